//! HBase's access-control model, on its own: five permissions (READ, WRITE, EXEC, CREATE,
//! ADMIN) granted to users and `@groups` at global, namespace, table, family or qualifier
//! scope, superusers from configuration, and the check each kind of operation makes.
//!
//! It knows nothing of the server: the server keeps the grants with its catalog, builds
//! an [`AccessRules`] snapshot from them, and asks it before each operation. The rules
//! follow HBase's `AuthManager` and `AccessController` (see `docs/security.md`):
//! - a grant at a scope reaches every narrower scope inside it (global → namespace →
//!   table → family → qualifier), never a wider one;
//! - admin operations need one of a few actions at one scope;
//! - a write needs its action on every column it touches;
//! - a read the caller may only partly see goes ahead with the other columns filtered out,
//!   when at least one column it asked for is readable, and is refused otherwise.

mod action;
mod admin_ops;
mod check;
mod error;
mod identity;
mod rules;
mod scope;

pub use action::{Action, Actions};
pub use admin_ops::{requirements_table, AdminOp, Level, Target};
pub use check::{ColumnGate, Columns, ReadAccess};
pub use error::{AccessError, Denial};
pub use identity::{Identity, Subject};
pub use rules::{AccessRules, Grant};
pub use scope::{Scope, TableScope};

#[cfg(test)]
mod matrix_tests;
