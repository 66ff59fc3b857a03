//! The checks an operation makes, following HBase's `AccessController`: admin operations
//! need one of a few permissions at one scope; reads and writes need a permission on every
//! column they touch, and a read that may see only some of its columns goes ahead with the
//! others filtered out.

use std::collections::BTreeMap;

use crate::error::{AccessError, Denial};
use crate::{AccessRules, Action, Identity, Scope, TableScope};

/// The columns a read or write names: each family with its qualifiers, an empty list
/// meaning the whole family. An empty map means the whole row.
pub type Columns = BTreeMap<Vec<u8>, Vec<Vec<u8>>>;

/// How much of a table a read may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadAccess {
    /// Everything it asked for.
    Whole,
    /// Only cells of the columns a [`ColumnGate`] lets through.
    Filtered(ColumnGate),
}

/// The table-scope grants of one caller on one table, to filter cells by column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnGate {
    grants: Vec<TableScope>,
}

impl ColumnGate {
    /// Whether a cell in `family:qualifier` may be returned.
    pub fn allows(&self, family: &[u8], qualifier: &[u8]) -> bool {
        self.grants.iter().any(|g| {
            g.family.as_deref().is_none_or(|f| f == family)
                && g.qualifier.as_deref().is_none_or(|q| q == qualifier)
        })
    }
}

impl ColumnGate {
    /// The part of `requested` (as named in a read) this gate lets through: families it
    /// covers whole keep what was asked; families it covers only by columns keep those
    /// columns (the ones asked for, when the read names columns); other families go.
    pub fn narrow(&self, requested: &Columns) -> Columns {
        let mut allowed = Columns::new();
        for (family, asked) in requested {
            let in_family = || {
                self.grants
                    .iter()
                    .filter(|g| g.family.as_deref().is_none_or(|f| f == family.as_slice()))
            };
            if in_family().any(|g| g.qualifier.is_none()) {
                allowed.insert(family.clone(), asked.clone());
                continue;
            }
            let granted: Vec<Vec<u8>> = in_family().filter_map(|g| g.qualifier.clone()).collect();
            let kept: Vec<Vec<u8>> = if asked.is_empty() {
                granted
            } else {
                asked
                    .iter()
                    .filter(|q| granted.contains(q))
                    .cloned()
                    .collect()
            };
            if !kept.is_empty() {
                allowed.insert(family.clone(), kept);
            }
        }
        allowed
    }
}

impl AccessRules {
    /// Requires any one of `any_of` at `scope` (HBase's `requirePermission` family).
    pub fn require(
        &self,
        who: &Identity,
        operation: &str,
        scope: &Scope,
        any_of: &[Action],
    ) -> Result<(), AccessError> {
        let allowed = any_of.iter().any(|&action| match scope {
            Scope::Global => self.allows_global(who, action),
            Scope::Namespace(ns) => self.allows_namespace(who, ns, action),
            Scope::Table(t) => self.allows_table(who, t, action),
        });
        if allowed {
            Ok(())
        } else {
            Err(denied(who, operation, scope.to_string(), any_of))
        }
    }

    /// Requires `action` on every column `columns` names in `table` (HBase's
    /// `permissionGranted`): a grant on the table covers all; otherwise each family needs a
    /// grant on it, or, when the request names the family's qualifiers, one on each. A
    /// request for the whole row needs the table.
    pub fn require_columns(
        &self,
        who: &Identity,
        operation: &str,
        table: &TableScope,
        columns: &Columns,
        action: Action,
    ) -> Result<(), AccessError> {
        match self.first_uncovered(who, table, columns, action) {
            None => Ok(()),
            Some(scope) => Err(denied(who, operation, scope.to_string(), &[action])),
        }
    }

    /// The read check: the whole request if [`AccessRules::require_columns`] passes for
    /// READ; else, when the caller may read some column of a family it asked for, the read
    /// goes ahead filtered; else it is refused.
    pub fn check_read(
        &self,
        who: &Identity,
        operation: &str,
        table: &TableScope,
        columns: &Columns,
    ) -> Result<ReadAccess, AccessError> {
        let Some(uncovered) = self.first_uncovered(who, table, columns, Action::Read) else {
            return Ok(ReadAccess::Whole);
        };
        let grants: Vec<TableScope> = self
            .table_grants(who, table, Action::Read)
            .cloned()
            .collect();
        // A whole-row read needs the table: HBase (with its default early-out) refuses it
        // rather than filter it, so a caller with column grants must name its families.
        let reaches_request = grants.iter().any(|g| {
            columns.iter().any(|(family, qualifiers)| {
                g.family.as_deref().is_none_or(|f| f == family.as_slice())
                    && (qualifiers.is_empty()
                        || g.qualifier
                            .as_deref()
                            .is_none_or(|q| qualifiers.iter().any(|wanted| wanted.as_slice() == q)))
            })
        });
        if reaches_request {
            Ok(ReadAccess::Filtered(ColumnGate { grants }))
        } else {
            Err(denied(
                who,
                operation,
                uncovered.to_string(),
                &[Action::Read],
            ))
        }
    }

    fn first_uncovered(
        &self,
        who: &Identity,
        table: &TableScope,
        columns: &Columns,
        action: Action,
    ) -> Option<TableScope> {
        let whole = TableScope::table(&table.namespace, &table.table);
        if self.allows_table(who, &whole, action) {
            return None;
        }
        if columns.is_empty() {
            return Some(whole);
        }
        for (family, qualifiers) in columns {
            let family_scope = whole.clone().with_family(family);
            if self.allows_table(who, &family_scope, action) {
                continue;
            }
            if qualifiers.is_empty() {
                return Some(family_scope);
            }
            for qualifier in qualifiers {
                let column = family_scope.clone().with_qualifier(qualifier);
                if !self.allows_table(who, &column, action) {
                    return Some(column);
                }
            }
        }
        None
    }
}

fn denied(who: &Identity, operation: &str, scope: String, any_of: &[Action]) -> AccessError {
    AccessError::Denied(Denial {
        user: who.user.clone(),
        operation: operation.to_string(),
        scope,
        needed: any_of.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Actions, Grant, Subject};

    fn bob_with(scopes: &[TableScope]) -> AccessRules {
        let grants = scopes.iter().map(|s| Grant {
            subject: Subject::User("bob".into()),
            scope: Scope::Table(s.clone()),
            actions: Actions::from(Action::Read),
        });
        AccessRules::new(vec![], grants.collect::<Vec<_>>())
    }

    #[test]
    fn a_partly_readable_request_is_filtered_to_the_granted_columns() {
        let t = TableScope::table("default", "t");
        let rules = bob_with(&[
            t.clone().with_family(b"a"),
            t.clone().with_family(b"b").with_qualifier(b"q"),
        ]);
        let mut columns = Columns::new();
        columns.insert(b"a".to_vec(), vec![]);
        columns.insert(b"b".to_vec(), vec![]);
        let ReadAccess::Filtered(gate) = rules
            .check_read(&Identity::user("bob"), "get", &t, &columns)
            .unwrap()
        else {
            panic!("expected a filtered read");
        };
        assert!(gate.allows(b"a", b"anything"));
        assert!(gate.allows(b"b", b"q") && !gate.allows(b"b", b"r"));
        assert!(!gate.allows(b"c", b"q"));
    }

    #[test]
    fn narrowing_keeps_whole_families_granted_and_only_granted_columns_of_others() {
        let t = TableScope::table("default", "t");
        let rules = bob_with(&[
            t.clone().with_family(b"a"),
            t.clone().with_family(b"b").with_qualifier(b"q"),
        ]);
        let mut asked = Columns::new();
        asked.insert(b"a".to_vec(), vec![b"x".to_vec()]);
        asked.insert(b"b".to_vec(), vec![]);
        asked.insert(b"c".to_vec(), vec![]);
        let ReadAccess::Filtered(gate) = rules
            .check_read(&Identity::user("bob"), "scan", &t, &asked)
            .unwrap()
        else {
            panic!("expected a filtered read");
        };
        let mut expected = Columns::new();
        expected.insert(b"a".to_vec(), vec![b"x".to_vec()]);
        expected.insert(b"b".to_vec(), vec![b"q".to_vec()]);
        assert_eq!(gate.narrow(&asked), expected);
        let mut other_columns = Columns::new();
        other_columns.insert(b"b".to_vec(), vec![b"r".to_vec()]);
        assert!(gate.narrow(&other_columns).is_empty());
    }

    #[test]
    fn a_read_of_only_ungranted_families_is_refused_naming_the_first() {
        let t = TableScope::table("default", "t");
        let rules = bob_with(&[t.clone().with_family(b"a")]);
        let mut columns = Columns::new();
        columns.insert(b"z".to_vec(), vec![]);
        let err = rules
            .check_read(&Identity::user("bob"), "get", &t, &columns)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Insufficient permissions for user 'bob' (operation=get, table=t, family=z, action=READ)"
        );
    }

    #[test]
    fn revoking_some_actions_keeps_the_rest_and_revoking_all_removes_the_grant() {
        let bob = Subject::User("bob".into());
        let rules = AccessRules::new(
            vec![],
            [Grant {
                subject: bob.clone(),
                scope: Scope::Global,
                actions: Actions::parse("RWA").unwrap(),
            }],
        );
        let fewer = rules.revoking(&bob, &Scope::Global, Actions::parse("W").unwrap());
        assert_eq!(fewer.held(&bob, &Scope::Global).to_string(), "RA");
        assert!(!fewer.allows_global(&Identity::user("bob"), Action::Write));
        let none = fewer.revoking(&bob, &Scope::Global, Actions::NONE);
        assert_eq!(none.grants().count(), 0);
        let again = none.granting(Grant {
            subject: bob.clone(),
            scope: Scope::Global,
            actions: Actions::parse("R").unwrap(),
        });
        let more = again.granting(Grant {
            subject: bob.clone(),
            scope: Scope::Global,
            actions: Actions::parse("C").unwrap(),
        });
        assert_eq!(more.held(&bob, &Scope::Global).to_string(), "RC");
    }
}
