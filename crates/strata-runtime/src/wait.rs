//! Waiting on a condition variable against a deadline of an injected [`Clock`], so that a
//! test clock decides when a wait has lasted too long.

use std::time::Instant;

use parking_lot::{Condvar, MutexGuard};

use super::clock::Clock;

/// Waits on `condvar` until it is notified or `deadline` (read on `clock`) has passed;
/// returns true once the deadline has passed. The real wait never outlasts the time left
/// on `clock`; a clock that did not move meanwhile (a test's) simply lets the caller
/// re-check its condition and wait again.
pub fn wait_until<T>(
    condvar: &Condvar,
    guard: &mut MutexGuard<'_, T>,
    clock: &dyn Clock,
    deadline: Instant,
) -> bool {
    let now = clock.now();
    if now >= deadline {
        return true;
    }
    condvar.wait_for(guard, deadline - now);
    clock.now() >= deadline
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ManualClock, SystemClock};
    use parking_lot::Mutex;
    use std::time::Duration;

    #[test]
    fn the_deadline_is_read_on_the_clock() {
        let (lock, condvar) = (Mutex::new(()), Condvar::new());
        let mut guard = lock.lock();
        let manual = ManualClock::new(0);
        let deadline = manual.now() + Duration::from_millis(5);
        assert!(!wait_until(&condvar, &mut guard, &manual, deadline));
        manual.advance(5);
        assert!(wait_until(&condvar, &mut guard, &manual, deadline));
        let system = SystemClock;
        let deadline = system.now() + Duration::from_millis(5);
        assert!(wait_until(&condvar, &mut guard, &system, deadline));
    }
}
