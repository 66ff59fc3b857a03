//! One-shot hooks a test sets on its own thread to run code at a named moment inside the
//! engine (a write landing between a read's two steps, a flush between a read's views and
//! its read point), for regression tests of races that timing alone would rarely show.

use std::cell::RefCell;
use std::collections::HashMap;

type Hook = Box<dyn FnOnce()>;

thread_local! {
    static HOOKS: RefCell<HashMap<&'static str, Hook>> = RefCell::new(HashMap::new());
}

/// Runs `hook` once, the next time this thread reaches moment `name`.
pub fn set(name: &'static str, hook: impl FnOnce() + 'static) {
    HOOKS.with(|h| h.borrow_mut().insert(name, Box::new(hook)));
}

/// Moment `name`: runs the hook this thread set for it, if any.
pub fn run(name: &'static str) {
    if let Some(hook) = HOOKS.with(|h| h.borrow_mut().remove(name)) {
        hook();
    }
}
