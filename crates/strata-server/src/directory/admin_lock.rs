//! The directory's admin lock, which serialises catalog changes, with a note of whether
//! the current thread holds it. A table lookup that misses reads the shared catalog again
//! (cluster mode: the table may have been created through another server a moment ago),
//! which takes the lock; inside a catalog change, which holds it already, it must not.

use std::cell::Cell;

use parking_lot::{Mutex, MutexGuard};

thread_local! {
    static HOLDS_ADMIN: Cell<bool> = const { Cell::new(false) };
}

/// Held while a catalog change (or a catch-up with the catalog) runs.
pub(crate) struct AdminGuard<'a> {
    _guard: MutexGuard<'a, ()>,
    held_before: bool,
}

impl Drop for AdminGuard<'_> {
    fn drop(&mut self) {
        HOLDS_ADMIN.with(|held| held.set(self.held_before));
    }
}

/// Takes `lock`, noting that this thread holds it.
pub(crate) fn lock_admin(lock: &Mutex<()>) -> AdminGuard<'_> {
    let guard = lock.lock();
    let held_before = HOLDS_ADMIN.with(|held| held.replace(true));
    AdminGuard {
        _guard: guard,
        held_before,
    }
}

/// True while this thread holds the admin lock.
pub(crate) fn holds_admin() -> bool {
    HOLDS_ADMIN.with(Cell::get)
}
