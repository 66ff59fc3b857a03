//! What each administrative operation requires, from HBase's `AccessController` (the
//! HBase book's ACL matrix lists the same). Data operations are checked by column instead
//! (`check.rs`): reads need READ, writes and counters WRITE, check-and-mutate both.

use crate::{AccessError, AccessRules, Action, Identity, Scope, TableScope};

/// An administrative operation, named as HBase names it in its denials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminOp {
    CreateTable,
    ModifyTable,
    DeleteTable,
    TruncateTable,
    EnableTable,
    DisableTable,
    Flush,
    Compact,
    Split,
    MergeRegions,
    Move,
    Balance,
    CreateNamespace,
    ModifyNamespace,
    DeleteNamespace,
    GetNamespaceDescriptor,
    Snapshot,
    CloneSnapshot,
    RestoreSnapshot,
    DeleteSnapshot,
    Grant,
    Revoke,
    GetUserPermissions,
}

/// Where an operation's permission is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Global,
    /// The namespace the operation works in (a new table's, for `createTable`).
    Namespace,
    Table,
    /// The scope being granted, revoked or listed.
    Target,
}

impl AdminOp {
    pub const ALL: [AdminOp; 23] = [
        AdminOp::CreateTable,
        AdminOp::ModifyTable,
        AdminOp::DeleteTable,
        AdminOp::TruncateTable,
        AdminOp::EnableTable,
        AdminOp::DisableTable,
        AdminOp::Flush,
        AdminOp::Compact,
        AdminOp::Split,
        AdminOp::MergeRegions,
        AdminOp::Move,
        AdminOp::Balance,
        AdminOp::CreateNamespace,
        AdminOp::ModifyNamespace,
        AdminOp::DeleteNamespace,
        AdminOp::GetNamespaceDescriptor,
        AdminOp::Snapshot,
        AdminOp::CloneSnapshot,
        AdminOp::RestoreSnapshot,
        AdminOp::DeleteSnapshot,
        AdminOp::Grant,
        AdminOp::Revoke,
        AdminOp::GetUserPermissions,
    ];

    /// HBase's name for it.
    pub fn name(self) -> &'static str {
        match self {
            AdminOp::CreateTable => "createTable",
            AdminOp::ModifyTable => "modifyTable",
            AdminOp::DeleteTable => "deleteTable",
            AdminOp::TruncateTable => "truncateTable",
            AdminOp::EnableTable => "enableTable",
            AdminOp::DisableTable => "disableTable",
            AdminOp::Flush => "flush",
            AdminOp::Compact => "compact",
            AdminOp::Split => "split",
            AdminOp::MergeRegions => "mergeRegions",
            AdminOp::Move => "move",
            AdminOp::Balance => "balance",
            AdminOp::CreateNamespace => "createNamespace",
            AdminOp::ModifyNamespace => "modifyNamespace",
            AdminOp::DeleteNamespace => "deleteNamespace",
            AdminOp::GetNamespaceDescriptor => "getNamespaceDescriptor",
            AdminOp::Snapshot => "snapshot",
            AdminOp::CloneSnapshot => "cloneSnapshot",
            AdminOp::RestoreSnapshot => "restoreSnapshot",
            AdminOp::DeleteSnapshot => "deleteSnapshot",
            AdminOp::Grant => "grant",
            AdminOp::Revoke => "revoke",
            AdminOp::GetUserPermissions => "getUserPermissions",
        }
    }

    /// Where the permission is looked for, and which actions (any one) will do.
    pub fn needs(self) -> (Level, &'static [Action]) {
        use Action::{Admin, Create};
        const ADMIN: &[Action] = &[Admin];
        const ADMIN_OR_CREATE: &[Action] = &[Admin, Create];
        match self {
            AdminOp::CreateTable => (Level::Namespace, ADMIN_OR_CREATE),
            AdminOp::ModifyTable
            | AdminOp::DeleteTable
            | AdminOp::TruncateTable
            | AdminOp::EnableTable
            | AdminOp::DisableTable
            | AdminOp::Flush
            | AdminOp::Compact => (Level::Table, ADMIN_OR_CREATE),
            AdminOp::Split | AdminOp::MergeRegions | AdminOp::Move | AdminOp::Snapshot => {
                (Level::Table, ADMIN)
            }
            AdminOp::RestoreSnapshot => (Level::Table, ADMIN),
            AdminOp::CloneSnapshot => (Level::Namespace, ADMIN),
            AdminOp::GetNamespaceDescriptor => (Level::Namespace, ADMIN),
            AdminOp::Balance
            | AdminOp::CreateNamespace
            | AdminOp::ModifyNamespace
            | AdminOp::DeleteNamespace
            | AdminOp::DeleteSnapshot => (Level::Global, ADMIN),
            AdminOp::Grant | AdminOp::Revoke | AdminOp::GetUserPermissions => {
                (Level::Target, ADMIN)
            }
        }
    }
}

/// The object an administrative operation acts on.
#[derive(Debug, Clone)]
pub enum Target<'a> {
    /// Nothing narrower than the cluster.
    Cluster,
    Namespace(&'a str),
    Table(&'a TableScope),
    /// A grant's scope (grant, revoke, listing permissions).
    Scope(&'a Scope),
}

impl AccessRules {
    /// Requires what `op` needs to act on `target`.
    pub fn require_admin(
        &self,
        who: &Identity,
        op: AdminOp,
        target: Target<'_>,
    ) -> Result<(), AccessError> {
        let (level, any_of) = op.needs();
        let scope = match (level, target) {
            (Level::Global, _) | (_, Target::Cluster) => Scope::Global,
            (_, Target::Scope(scope)) => scope.clone(),
            (Level::Namespace, Target::Namespace(ns)) | (Level::Target, Target::Namespace(ns)) => {
                Scope::Namespace(ns.to_string())
            }
            (Level::Namespace, Target::Table(t)) => Scope::Namespace(t.namespace.clone()),
            (Level::Table | Level::Target, Target::Table(t)) => {
                Scope::Table(TableScope::table(&t.namespace, &t.table))
            }
            (Level::Table, Target::Namespace(ns)) => Scope::Namespace(ns.to_string()),
        };
        self.require(who, op.name(), &scope, any_of)
    }
}

/// The table of what each operation needs, for the security guide: one line per
/// operation, `name | level | actions`.
pub fn requirements_table() -> String {
    let mut out = String::from("| operation | where | any of |\n|---|---|---|\n");
    for op in AdminOp::ALL {
        let (level, any_of) = op.needs();
        let level = match level {
            Level::Global => "global",
            Level::Namespace => "namespace (or global)",
            Level::Table => "table (or its namespace, or global)",
            Level::Target => "the scope granted or listed (or wider)",
        };
        let letters: Vec<&str> = any_of.iter().map(|a| a.name()).collect();
        out.push_str(&format!(
            "| `{}` | {level} | {} |\n",
            op.name(),
            letters.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    /// The security guide's table is this one (regenerate it from `requirements_table`).
    #[test]
    fn the_security_guide_lists_these_requirements() {
        let guide = include_str!("../../../docs/security.md");
        let table = super::requirements_table();
        assert!(
            guide.contains(&table),
            "docs/security.md should hold:\n{table}"
        );
    }
}
