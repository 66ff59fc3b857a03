//! Calls answered on a network server's own task, which must never block it.
//!
//! The Thrift, gRPC and native RPC servers answer a one-row read on the connection's task
//! rather than on the blocking pool: from the memstore or the block cache it takes
//! microseconds, while the hop to the pool and back costs two thread wake-ups. That is
//! only sound while the read stays on this server. Forwarding it to the region's owner,
//! waiting for a split to finish, or catching up with the catalog waits on another
//! machine, and an async worker that waits stalls every task queued on it.
//!
//! [`here_only`] runs such a call. Inside it, each place that would wait on something
//! outside this server asks [`refuse_wait`] first, which fails the call with
//! [`ServiceError::WouldBlock`] and records that it did; `here_only` then answers `None`
//! and the adapter runs the call again on the blocking pool, where waiting is allowed.
//! Only reads run this way, so running one again changes nothing. The record, not the
//! error, decides: an adapter converts errors to its own types before `here_only` sees
//! the outcome, and a caller that swallowed the error still gets `None`.
//!
//! The scope is a thread-local because the calls pass through the adapters' own layers
//! (filters, result conversion) before they reach a region; a parameter would have to
//! cross every one of them for a rule that only the region routing applies.

use std::cell::Cell;

use crate::error::{Result, ServiceError};

/// What the current thread's call may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Not inside [`here_only`]: waiting is allowed.
    MayWait,
    /// Inside [`here_only`], nothing refused so far.
    HereOnly,
    /// Inside [`here_only`], and the call met something it would have waited for.
    Refused,
}

thread_local! {
    static SCOPE: Cell<Scope> = const { Cell::new(Scope::MayWait) };
}

/// Runs `call` answering only from what is on this server, without waiting on a peer, the
/// catalog or a region change. `None` when the call needed to: its outcome is discarded
/// and the caller runs it again off the async workers.
pub fn here_only<T>(call: impl FnOnce() -> T) -> Option<T> {
    let outer = SCOPE.with(|s| s.replace(Scope::HereOnly));
    let restore = RestoreScope(outer);
    let outcome = call();
    let refused = SCOPE.with(|s| s.get()) == Scope::Refused;
    drop(restore);
    if refused && outer != Scope::MayWait {
        // A call nested in another here-only call: the outer one cannot wait either.
        SCOPE.with(|s| s.set(Scope::Refused));
    }
    (!refused).then_some(outcome)
}

/// Whether the calling thread may wait on something outside this server: `Err`
/// ([`ServiceError::WouldBlock`]) inside [`here_only`], which then answers `None`.
pub(crate) fn refuse_wait(what: &'static str) -> Result<()> {
    SCOPE.with(|s| match s.get() {
        Scope::MayWait => Ok(()),
        Scope::HereOnly | Scope::Refused => {
            s.set(Scope::Refused);
            Err(ServiceError::WouldBlock(what))
        }
    })
}

/// Puts the enclosing scope back, also when the call panics (a panic is caught further up
/// and the thread serves other calls).
struct RestoreScope(Scope);

impl Drop for RestoreScope {
    fn drop(&mut self) {
        SCOPE.with(|s| s.set(self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_waits_nowhere_is_answered() {
        assert_eq!(here_only(|| 7), Some(7));
        assert!(
            refuse_wait("outside").is_ok(),
            "the scope ends with the call"
        );
    }

    #[test]
    fn a_refused_wait_discards_the_outcome_even_when_the_error_was_swallowed() {
        let outcome = here_only(|| {
            let refused = refuse_wait("a peer");
            assert!(matches!(refused, Err(ServiceError::WouldBlock("a peer"))));
            "answered anyway"
        });
        assert_eq!(outcome, None);
        assert!(refuse_wait("outside").is_ok());
    }

    #[test]
    fn scopes_nest_and_restore_after_a_panic() {
        assert_eq!(here_only(|| here_only(|| 1)), Some(Some(1)));
        let outer = here_only(|| here_only(|| refuse_wait("x")).is_none());
        assert_eq!(outer, None, "the outer call could not wait either");
        let caught = std::panic::catch_unwind(|| here_only(|| panic!("boom")));
        assert!(caught.is_err());
        assert!(refuse_wait("after the panic").is_ok());
    }
}
