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

    /// Gives `grant`'s subject its actions at its scope: added to what it held there
    /// (`merge`), or in their place (HBase's default, as its shell and Thrift grant). The
    /// table, family or namespace it names must exist (HBase's shell refuses others too).
    pub fn grant(&self, grant: Grant, merge: bool) -> Result<()> {
        self.require(AdminOp::Grant, Target::Scope(&grant.scope))?;
        let request = || AdminRequest::Grant {
            grant: grant.clone(),
            merge,
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.check_scope_exists(&grant.scope)?;
        tracing::info!(subject = %grant.subject, scope = %grant.scope, actions = %grant.actions, merge, by = current().name(), "grant");
        self.change_grants(|rules| {
            let base = if merge {
                rules.clone()
            } else {
                rules.revoking(&grant.subject, &grant.scope, Actions::NONE)
            };
            base.granting(grant)
        })
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

    /// The grants HBase's `getUserPermissions` lists for `scope`: the global ones, one
    /// namespace's, or a table's (those on the family and qualifier given, when given).
    /// A caller without ADMIN there gets its own only.
    pub fn user_permissions(&self, scope: &Scope) -> Result<Vec<Grant>> {
        let own_only = self
            .require(AdminOp::GetUserPermissions, Target::Scope(scope))
            .is_err();
        let caller = current();
        let rules = self.access.rules();
        let grants = rules.grants().filter(|g| listed_for(&g.scope, scope));
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
        crate::access::as_system(|| self.grant(grant, false))
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

/// Whether a grant at `scope` is listed for a listing of `asked`.
fn listed_for(scope: &Scope, asked: &Scope) -> bool {
    let part = |asked: &Option<Vec<u8>>, held: &Option<Vec<u8>>| asked.is_none() || asked == held;
    match (asked, scope) {
        (Scope::Global, Scope::Global) => true,
        (Scope::Namespace(ns), Scope::Namespace(other)) => ns == other,
        (Scope::Table(asked), Scope::Table(t)) => {
            asked.same_table(t)
                && part(&asked.family, &t.family)
                && part(&asked.qualifier, &t.qualifier)
        }
        _ => false,
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
