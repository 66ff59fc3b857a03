//! [`Admin`]'s access control: the check each call makes first, grants, revokes and
//! listings (HBase's `grant`, `revoke`, `user_permission`), the creator's rights on a new
//! table, and forgetting a dropped table's grants. In cluster mode grants change at the
//! master, like the rest of the catalog.

use strata_access::{AccessRules, Actions, AdminOp, Grant, Scope, Subject, Target};

use super::Admin;
use crate::access::{current, scope_of, Caller};
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::remote::AdminRequest;

impl Admin {
    /// Requires what `op` needs on `target`.
    pub(super) fn require(&self, op: AdminOp, target: Target<'_>) -> Result<()> {
        self.access.require_admin(op, target)
    }

    /// Requires what `op` needs on table `name`.
    pub(super) fn require_table(&self, op: AdminOp, name: &TableName) -> Result<()> {
        self.access
            .require_admin(op, Target::Table(&scope_of(name)))
    }

    /// Adds `grant`'s actions to what its subject holds at its scope. The table, family
    /// or namespace it names must exist (HBase's shell refuses others too).
    pub fn grant(&self, grant: Grant) -> Result<()> {
        self.require(AdminOp::Grant, Target::Scope(&grant.scope))?;
        if let Some(reply) = self.at_master(|| AdminRequest::Grant(grant.clone())) {
            return reply?.done();
        }
        self.check_scope_exists(&grant.scope)?;
        tracing::info!(subject = %grant.subject, scope = %grant.scope, actions = %grant.actions, by = current().name(), "grant");
        self.change_grants(|rules| rules.granting(grant))
    }

    /// Takes `actions` from `subject` at `scope` (all of them when empty).
    pub fn revoke(&self, subject: &Subject, scope: &Scope, actions: Actions) -> Result<()> {
        self.require(AdminOp::Revoke, Target::Scope(scope))?;
        let request = || {
            AdminRequest::Revoke(Grant {
                subject: subject.clone(),
                scope: scope.clone(),
                actions: if actions.is_empty() {
                    Actions::all()
                } else {
                    actions
                },
            })
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        tracing::info!(%subject, %scope, %actions, by = current().name(), "revoke");
        self.change_grants(|rules| rules.revoking(subject, scope, actions))
    }

    /// The grants at `scope` and every scope inside it (all of them for `Global`), as
    /// HBase's `user_permission` lists them. A caller may always list its own.
    pub fn user_permissions(&self, scope: &Scope) -> Result<Vec<Grant>> {
        let own_only = self
            .require(AdminOp::GetUserPermissions, Target::Scope(scope))
            .is_err();
        let caller = current();
        let rules = self.access.rules();
        let grants = rules.grants().filter(|g| within(&g.scope, scope));
        Ok(grants
            .filter(|g| !own_only || is_callers(&caller, &g.subject))
            .collect())
    }

    /// The creator of a table gets every permission on it (HBase's table owner).
    pub(super) fn grant_owner(&self, table: &TableName) -> Result<()> {
        let Caller::User(id) = current() else {
            return Ok(());
        };
        if !self.access.is_enabled() {
            return Ok(());
        }
        let grant = Grant {
            subject: Subject::User(id.user.clone()),
            scope: Scope::Table(scope_of(table)),
            actions: Actions::all(),
        };
        // The caller may lack ADMIN where the grant lands: the owner's rights come with
        // the create, which was checked.
        crate::access::as_system(|| self.grant(grant))
    }

    /// Drops every grant on a dropped table, so a new table of that name starts with none.
    pub(super) fn forget_table_grants(&self, table: &TableName) -> Result<()> {
        let gone = scope_of(table);
        let rules = self.access.rules();
        if !rules
            .grants()
            .any(|g| within(&g.scope, &Scope::Table(gone.clone())))
        {
            return Ok(());
        }
        self.change_grants(|rules| {
            let kept = rules
                .grants()
                .filter(|g| !within(&g.scope, &Scope::Table(gone.clone())));
            AccessRules::new(Vec::new(), kept.collect::<Vec<_>>())
        })
    }

    /// The table a snapshot was taken of.
    pub(super) fn snapshot_table_name(&self, snapshot: &str) -> Result<TableName> {
        self.directory
            .snapshots()
            .list()?
            .into_iter()
            .find(|s| s.name == snapshot)
            .map(|s| s.table)
            .ok_or_else(|| ServiceError::SnapshotNotFound(snapshot.to_string()))
    }

    fn check_scope_exists(&self, scope: &Scope) -> Result<()> {
        match scope {
            Scope::Global => Ok(()),
            Scope::Namespace(ns) => self.directory.namespaces().config(ns).map(|_| ()),
            Scope::Table(t) => {
                let name = TableName {
                    namespace: t.namespace.clone(),
                    name: t.table.clone(),
                };
                let descriptor = self.directory.describe_table(&name)?;
                match &t.family {
                    Some(family)
                        if !descriptor
                            .families
                            .iter()
                            .any(|f| f.name == family.as_slice()) =>
                    {
                        Err(ServiceError::FamilyNotFound {
                            table: name.to_string(),
                            family: String::from_utf8_lossy(family).into_owned(),
                        })
                    }
                    _ => Ok(()),
                }
            }
        }
    }

    /// Replaces the grants with `change(current)` in the catalog, then in force here.
    fn change_grants(&self, change: impl FnOnce(&AccessRules) -> AccessRules) -> Result<()> {
        let _admin = self.directory.lock_admin();
        let grants = self.directory.grants();
        let next = change(&grants.rules());
        let list: Vec<Grant> = next.grants().collect();
        self.directory.catalog().put_grants(&list)?;
        grants.replace(next);
        Ok(())
    }
}

/// Whether `scope` is `outer` or inside it.
fn within(scope: &Scope, outer: &Scope) -> bool {
    match (outer, scope) {
        (Scope::Global, _) => true,
        (Scope::Namespace(ns), Scope::Namespace(other)) => ns == other,
        (Scope::Namespace(ns), Scope::Table(t)) => &t.namespace == ns,
        (Scope::Table(outer), Scope::Table(t)) => outer.covers(t),
        _ => false,
    }
}

fn is_callers(caller: &Caller, subject: &Subject) -> bool {
    match caller {
        Caller::User(id) => id.subjects().any(|s| &s == subject),
        _ => false,
    }
}
