//! [`Grants`]: the snapshot of grants every check reads, replaced whole when the catalog's
//! grants change (a grant or revoke here, or the master's, followed).

use std::sync::Arc;

use parking_lot::RwLock;
use strata_access::{AccessRules, Grant};

/// The grants in force.
#[derive(Debug, Default)]
pub struct Grants {
    rules: RwLock<Arc<AccessRules>>,
}

impl Grants {
    pub fn new(grants: Vec<Grant>) -> Grants {
        Grants {
            rules: RwLock::new(Arc::new(AccessRules::new(Vec::new(), grants))),
        }
    }

    /// The snapshot in force (superusers are the configuration's, not in it).
    pub fn rules(&self) -> Arc<AccessRules> {
        Arc::clone(&self.rules.read())
    }

    /// Puts `rules` in force.
    pub(crate) fn replace(&self, rules: AccessRules) {
        *self.rules.write() = Arc::new(rules);
    }

    /// Puts the catalog's `grants` in force, unless they are those in force already.
    pub(crate) fn follow(&self, grants: Vec<Grant>) {
        let same = self.rules.read().grants().eq(grants.iter().cloned());
        if !same {
            self.replace(AccessRules::new(Vec::new(), grants));
        }
    }
}
