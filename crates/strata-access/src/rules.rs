//! [`AccessRules`]: every grant and the superusers, indexed for the checks. A snapshot is
//! immutable; a grant or revoke makes a new one (the server swaps it in whole), so a check
//! is a few hash lookups and never waits on a writer.

use std::collections::{BTreeMap, HashMap};

use crate::{Action, Actions, Identity, Scope, Subject, TableScope};

/// One grant: a subject holds `actions` at `scope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub subject: Subject,
    pub scope: Scope,
    pub actions: Actions,
}

type TableKey = (String, String);

/// The grants in force, and who is a superuser.
#[derive(Debug, Clone, Default)]
pub struct AccessRules {
    superusers: Vec<Subject>,
    /// The canonical list, one entry per (scope, subject).
    grants: BTreeMap<(Scope, Subject), Actions>,
    global: HashMap<Subject, Actions>,
    namespaces: HashMap<String, HashMap<Subject, Actions>>,
    tables: HashMap<TableKey, Vec<(Subject, TableScope, Actions)>>,
}

impl AccessRules {
    pub fn new(superusers: Vec<Subject>, grants: impl IntoIterator<Item = Grant>) -> AccessRules {
        let mut rules = AccessRules {
            superusers,
            ..AccessRules::default()
        };
        for grant in grants {
            rules.add(grant);
        }
        rules
    }

    /// Every grant, ordered by scope then subject.
    pub fn grants(&self) -> impl Iterator<Item = Grant> + '_ {
        self.grants.iter().map(|((scope, subject), actions)| Grant {
            subject: subject.clone(),
            scope: scope.clone(),
            actions: *actions,
        })
    }

    pub fn superusers(&self) -> &[Subject] {
        &self.superusers
    }

    /// These rules with `grant`'s actions added to what its subject already holds there.
    pub fn granting(&self, grant: Grant) -> AccessRules {
        let mut all: Vec<Grant> = self.grants().collect();
        all.push(grant);
        AccessRules::new(self.superusers.clone(), all)
    }

    /// These rules with `actions` taken from `subject` at `scope` (all of them when
    /// `actions` is empty, as HBase's shell revokes); a grant left with none is gone.
    pub fn revoking(&self, subject: &Subject, scope: &Scope, actions: Actions) -> AccessRules {
        let remaining = self.grants().filter_map(|mut g| {
            if &g.subject == subject && &g.scope == scope {
                g.actions = if actions.is_empty() {
                    Actions::NONE
                } else {
                    g.actions.without(actions)
                };
            }
            (!g.actions.is_empty()).then_some(g)
        });
        AccessRules::new(self.superusers.clone(), remaining.collect::<Vec<_>>())
    }

    /// What `subject` holds at exactly `scope`.
    pub fn held(&self, subject: &Subject, scope: &Scope) -> Actions {
        self.grants
            .get(&(scope.clone(), subject.clone()))
            .copied()
            .unwrap_or_default()
    }

    fn add(&mut self, grant: Grant) {
        if grant.actions.is_empty() {
            return;
        }
        let key = (grant.scope.clone(), grant.subject.clone());
        let actions = self.grants.entry(key).or_default();
        *actions = actions.union(grant.actions);
        let actions = *actions;
        match grant.scope {
            Scope::Global => {
                self.global.insert(grant.subject, actions);
            }
            Scope::Namespace(ns) => {
                self.namespaces
                    .entry(ns)
                    .or_default()
                    .insert(grant.subject, actions);
            }
            Scope::Table(t) => {
                let list = self
                    .tables
                    .entry((t.namespace.clone(), t.table.clone()))
                    .or_default();
                list.retain(|(s, scope, _)| !(s == &grant.subject && scope == &t));
                list.push((grant.subject, t, actions));
            }
        }
    }

    pub fn is_superuser(&self, who: &Identity) -> bool {
        who.subjects().any(|s| self.superusers.contains(&s))
    }

    /// HBase's `authorizeUserGlobal`.
    pub fn allows_global(&self, who: &Identity, action: Action) -> bool {
        self.is_superuser(who)
            || who
                .subjects()
                .any(|s| self.global.get(&s).is_some_and(|a| a.contains(action)))
    }

    /// HBase's `authorizeUserNamespace`: a global grant reaches every namespace.
    pub fn allows_namespace(&self, who: &Identity, namespace: &str, action: Action) -> bool {
        self.allows_global(who, action)
            || self.namespaces.get(namespace).is_some_and(|grants| {
                who.subjects()
                    .any(|s| grants.get(&s).is_some_and(|a| a.contains(action)))
            })
    }

    /// HBase's `authorizeUserTable`: a grant on the namespace or wider, or a table grant
    /// that covers `wanted` (see [`TableScope::covers`]).
    pub fn allows_table(&self, who: &Identity, wanted: &TableScope, action: Action) -> bool {
        self.allows_namespace(who, &wanted.namespace, action)
            || self
                .table_grants(who, wanted, action)
                .any(|granted| granted.covers(wanted))
    }

    /// HBase's `authorizeUserFamily`: like [`AccessRules::allows_table`] for `family`, but
    /// a grant on one column of it counts too.
    pub fn allows_some_of_family(
        &self,
        who: &Identity,
        wanted: &TableScope,
        family: &[u8],
        action: Action,
    ) -> bool {
        self.allows_namespace(who, &wanted.namespace, action)
            || self
                .table_grants(who, wanted, action)
                .any(|granted| granted.family.as_deref().is_none_or(|f| f == family))
    }

    /// Whether `who` holds any permission on `table`, at any scope that reaches it or
    /// inside it (HBase lists such tables to a user).
    pub fn holds_any_on_table(&self, who: &Identity, table: &TableScope) -> bool {
        Action::ALL.into_iter().any(|action| {
            self.allows_namespace(who, &table.namespace, action)
                || self.table_grants(who, table, action).next().is_some()
        })
    }

    /// The table-scope grants of `action` that apply to `who` on `table`'s table.
    pub(crate) fn table_grants<'a>(
        &'a self,
        who: &'a Identity,
        table: &TableScope,
        action: Action,
    ) -> impl Iterator<Item = &'a TableScope> + 'a {
        let key = (table.namespace.clone(), table.table.clone());
        self.tables
            .get(&key)
            .into_iter()
            .flatten()
            .filter(move |(subject, _, actions)| {
                actions.contains(action) && who.subjects().any(|s| &s == subject)
            })
            .map(|(_, scope, _)| scope)
    }
}
