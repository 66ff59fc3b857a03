//! Who the request being served on this thread is from. A network adapter learns the
//! identity when it authenticates the connection and wraps each call into the service in
//! [`as_caller`]; the service's facades ask [`current`] before they act. Work the server
//! does for itself, and requests other servers of the cluster forward, run as
//! [`Caller::System`].
//!
//! A thread-local rather than a parameter: every service call is synchronous on the thread
//! that asks (the checks happen at the facades, before any hand-off), and an adapter sets it
//! in the one place it runs calls, instead of at each of the service's methods. It fails
//! closed: a call made with nothing set is [`Caller::Anonymous`], which holds no grants.

use std::cell::RefCell;
use std::sync::Arc;

use strata_access::Identity;

/// Who is asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// An authenticated user.
    User(Arc<Identity>),
    /// A connection that presented no identity.
    Anonymous,
    /// The server itself, or another server of the cluster.
    System,
}

impl Caller {
    pub fn user(identity: Identity) -> Caller {
        Caller::User(Arc::new(identity))
    }

    /// The name to print in denials and logs.
    pub fn name(&self) -> &str {
        match self {
            Caller::User(id) => &id.user,
            Caller::Anonymous => "(anonymous)",
            Caller::System => "(system)",
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Caller>> = const { RefCell::new(None) };
}

/// Runs `f` as `caller`; the previous caller is back when `f` returns or panics.
pub fn as_caller<R>(caller: Caller, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Caller>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|c| c.borrow_mut().replace(caller));
    let _restore = Restore(previous);
    f()
}

/// Runs `f` as the server itself.
pub fn as_system<R>(f: impl FnOnce() -> R) -> R {
    as_caller(Caller::System, f)
}

/// The caller of the call being served here.
pub fn current() -> Caller {
    CURRENT.with(|c| c.borrow().clone().unwrap_or(Caller::Anonymous))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_set_is_anonymous_and_scopes_nest_and_restore() {
        assert_eq!(current(), Caller::Anonymous);
        let bob = Caller::user(Identity::user("bob"));
        as_caller(bob.clone(), || {
            assert_eq!(current(), bob);
            as_system(|| assert_eq!(current(), Caller::System));
            assert_eq!(current(), bob);
        });
        assert_eq!(current(), Caller::Anonymous);
    }

    #[test]
    fn a_panic_inside_restores_the_caller() {
        let result = std::panic::catch_unwind(|| {
            as_caller(Caller::user(Identity::user("bob")), || panic!("boom"))
        });
        assert!(result.is_err());
        assert_eq!(current(), Caller::Anonymous);
    }
}
