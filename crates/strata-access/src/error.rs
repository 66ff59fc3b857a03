//! Errors: a refusal (HBase's `AccessDeniedException`) is told apart from bad input.

use std::fmt;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// The caller lacks a permission. The text names the user, the scope and the actions
    /// any one of which would have been enough, as HBase's messages do.
    #[error("{0}")]
    Denied(Denial),
    /// A grant, revoke or stored record that makes no sense.
    #[error("{0}")]
    Invalid(String),
}

impl AccessError {
    pub fn invalid(message: impl Into<String>) -> AccessError {
        AccessError::Invalid(message.into())
    }
}

/// A refusal, with what was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub user: String,
    /// The operation, as HBase names it in its messages (`put`, `createTable`, ...).
    pub operation: String,
    /// Where the permission was needed (`table=ns:t, family=cf` or `global`).
    pub scope: String,
    /// Any one of these would have been enough.
    pub needed: Vec<crate::Action>,
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let needed: Vec<&str> = self.needed.iter().map(|a| a.name()).collect();
        write!(
            f,
            "Insufficient permissions for user '{}' (operation={}, {}, action={})",
            self.user,
            self.operation,
            self.scope,
            needed.join("|")
        )
    }
}
