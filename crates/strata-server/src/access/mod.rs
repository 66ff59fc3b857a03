//! Access control in the service: HBase's permissions (`strata-access`) checked at the
//! facades every network API calls (`Rows`, `Scanners`, `Admin`), against the grants the
//! catalog keeps. Off unless configured; the embedded API never checks (it runs as the
//! system, or with checks off).
//!
//! The grants live in the catalog (`catalog/codec/grants.rs`), so in cluster mode every
//! server follows the master's changes with the rest of the catalog. A check reads an
//! immutable snapshot ([`Grants`]): a few hash lookups, never a catalog read.

mod caller;
mod columns;
mod grants;

use std::sync::Arc;

use strata_access::{
    AccessError, AccessRules, Action, AdminOp, Columns, Identity, ReadAccess, Subject, TableScope,
    Target,
};
use strata_engine::{Cell, ColumnSelection};

pub use caller::{as_caller, as_system, current, Caller};
pub use grants::Grants;

/// The columns a read's selection names, in the access model's form.
pub fn columns_of_selection(selection: &ColumnSelection) -> Columns {
    columns::of_selection(selection)
}

use crate::error::{Result, ServiceError};
use crate::names::TableName;

/// Whether permissions are checked, and who may do everything.
#[derive(Debug, Clone, Default)]
pub struct AccessConfig {
    /// HBase's `hbase.security.authorization`.
    pub enabled: bool,
    /// HBase's `hbase.superuser`: users and `@groups`.
    pub superusers: Vec<Subject>,
    /// How the network adapters know a caller from its credentials (bearer tokens,
    /// client certificates); `None`: only client certificates, no tokens.
    pub authenticator: Option<Arc<strata_auth::Authenticator>>,
}

/// The checks, with the grants in force.
#[derive(Debug)]
pub struct AccessControl {
    config: AccessConfig,
    grants: Arc<Grants>,
}

/// Who a check is made for: nobody (checks off, the system, a superuser), or a user.
enum Checked {
    Skip,
    User(Arc<Identity>, Arc<AccessRules>),
}

impl AccessControl {
    pub fn new(config: AccessConfig, grants: Arc<Grants>) -> AccessControl {
        AccessControl { config, grants }
    }

    pub fn is_enabled(&self) -> bool {
        self.config.enabled
    }

    pub fn config(&self) -> &AccessConfig {
        &self.config
    }

    /// What the adapters authenticate requests with.
    pub fn authenticator(&self) -> Option<&Arc<strata_auth::Authenticator>> {
        self.config.authenticator.as_ref()
    }

    /// The grants in force.
    pub fn rules(&self) -> Arc<AccessRules> {
        self.grants.rules()
    }

    fn who(&self, operation: &str) -> Result<Checked> {
        if !self.config.enabled {
            return Ok(Checked::Skip);
        }
        match current() {
            Caller::System => Ok(Checked::Skip),
            Caller::Anonymous => Err(ServiceError::AccessDenied(format!(
                "{operation} needs an authenticated user; this connection presented none"
            ))),
            Caller::User(id) => {
                let superuser = id.subjects().any(|s| self.config.superusers.contains(&s));
                if superuser {
                    Ok(Checked::Skip)
                } else {
                    Ok(Checked::User(id, self.grants.rules()))
                }
            }
        }
    }

    /// Requires what `op` needs on `target`.
    pub fn require_admin(&self, op: AdminOp, target: Target<'_>) -> Result<()> {
        match self.who(op.name())? {
            Checked::Skip => Ok(()),
            Checked::User(id, rules) => rules.require_admin(&id, op, target).map_err(denied),
        }
    }

    /// Requires `action` on every column `cells` write in `table`.
    pub fn require_cells(
        &self,
        operation: &str,
        table: &TableName,
        cells: &[Cell],
        action: Action,
    ) -> Result<()> {
        match self.who(operation)? {
            Checked::Skip => Ok(()),
            Checked::User(id, rules) => rules
                .require_columns(
                    &id,
                    operation,
                    &scope_of(table),
                    &columns::of_cells(cells),
                    action,
                )
                .map_err(denied),
        }
    }

    /// Requires `action` on `columns` of `table`.
    pub fn require_columns(
        &self,
        operation: &str,
        table: &TableName,
        columns: &Columns,
        action: Action,
    ) -> Result<()> {
        match self.who(operation)? {
            Checked::Skip => Ok(()),
            Checked::User(id, rules) => rules
                .require_columns(&id, operation, &scope_of(table), columns, action)
                .map_err(denied),
        }
    }

    /// Checks a read of `selection` in `table`, narrowing `selection` to the columns the
    /// caller may read when it may read only some (HBase filters the others out).
    pub fn authorize_read(
        &self,
        operation: &str,
        table: &TableName,
        selection: &mut ColumnSelection,
    ) -> Result<()> {
        let (id, rules) = match self.who(operation)? {
            Checked::Skip => return Ok(()),
            Checked::User(id, rules) => (id, rules),
        };
        let asked = columns::of_selection(selection);
        match rules
            .check_read(&id, operation, &scope_of(table), &asked)
            .map_err(denied)?
        {
            ReadAccess::Whole => Ok(()),
            ReadAccess::Filtered(gate) => {
                let narrowed = gate.narrow(&asked);
                if narrowed.is_empty() {
                    // An empty selection would read the whole row.
                    return Err(ServiceError::AccessDenied(format!(
                        "Insufficient permissions for user '{}' (operation={operation}, {}, action=READ)",
                        id.user,
                        scope_of(table)
                    )));
                }
                *selection = columns::to_selection(&narrowed);
                Ok(())
            }
        }
    }

    /// Whether the caller holds any permission on `table` (HBase lists only such tables).
    pub fn may_see_table(&self, table: &TableName) -> bool {
        match self.who("listTables") {
            Err(_) => false,
            Ok(Checked::Skip) => true,
            Ok(Checked::User(id, rules)) => rules.holds_any_on_table(&id, &scope_of(table)),
        }
    }
}

/// The access scope of a whole table.
pub fn scope_of(table: &TableName) -> TableScope {
    TableScope::table(&table.namespace, &table.name)
}

fn denied(error: AccessError) -> ServiceError {
    match error {
        AccessError::Denied(denial) => {
            tracing::info!(user = %denial.user, operation = %denial.operation, scope = %denial.scope, "access denied");
            ServiceError::AccessDenied(denial.to_string())
        }
        AccessError::Invalid(message) => ServiceError::InvalidArgument(message),
    }
}
