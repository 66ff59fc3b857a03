//! Who is asking: a user and the groups it belongs to, and who a grant names.

use std::fmt;

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: String,
    pub groups: Vec<String>,
}

impl Identity {
    pub fn user(name: &str) -> Identity {
        Identity {
            user: name.to_string(),
            groups: Vec::new(),
        }
    }

    pub fn with_groups(mut self, groups: &[&str]) -> Identity {
        self.groups = groups.iter().map(|g| g.to_string()).collect();
        self
    }

    /// The subjects whose grants apply to this caller: itself, then each of its groups.
    pub fn subjects(&self) -> impl Iterator<Item = Subject> + '_ {
        std::iter::once(Subject::User(self.user.clone()))
            .chain(self.groups.iter().map(|g| Subject::Group(g.clone())))
    }
}

/// Who a grant is for: a user, or a group written `@group` as in HBase.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    User(String),
    Group(String),
}

impl Subject {
    /// Reads HBase's spelling: `@name` is a group, anything else a user.
    pub fn parse(text: &str) -> Option<Subject> {
        match text.strip_prefix('@') {
            Some("") => None,
            Some(group) => Some(Subject::Group(group.to_string())),
            None if text.is_empty() => None,
            None => Some(Subject::User(text.to_string())),
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::User(u) => f.write_str(u),
            Subject::Group(g) => write!(f, "@{g}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_at_sign_names_a_group_and_round_trips() {
        assert_eq!(Subject::parse("@ops"), Some(Subject::Group("ops".into())));
        assert_eq!(Subject::parse("bob"), Some(Subject::User("bob".into())));
        assert_eq!(Subject::parse("@"), None);
        assert_eq!(Subject::parse(""), None);
        assert_eq!(Subject::Group("ops".into()).to_string(), "@ops");
    }
}
