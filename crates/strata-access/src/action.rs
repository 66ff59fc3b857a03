//! The five permissions of HBase's access control and sets of them.

use std::fmt;

use crate::error::AccessError;

/// One permission. The letters are HBase's (`grant 'bob', 'RW'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Read,
    Write,
    /// Running coprocessor endpoints. Strata has none, so nothing requires it; it is kept
    /// so that grants made for HBase read back as they were given.
    Exec,
    Create,
    Admin,
}

impl Action {
    pub const ALL: [Action; 5] = [
        Action::Read,
        Action::Write,
        Action::Exec,
        Action::Create,
        Action::Admin,
    ];

    pub fn letter(self) -> char {
        match self {
            Action::Read => 'R',
            Action::Write => 'W',
            Action::Exec => 'X',
            Action::Create => 'C',
            Action::Admin => 'A',
        }
    }

    /// HBase's name, as its `AccessDeniedException` messages print it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Read => "READ",
            Action::Write => "WRITE",
            Action::Exec => "EXEC",
            Action::Create => "CREATE",
            Action::Admin => "ADMIN",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    fn from_letter(c: char) -> Option<Action> {
        Action::ALL
            .into_iter()
            .find(|a| a.letter() == c.to_ascii_uppercase())
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Actions(u8);

impl Actions {
    pub const NONE: Actions = Actions(0);

    pub fn all() -> Actions {
        Action::ALL.into_iter().collect()
    }

    /// Parses HBase's letters (`"RWXCA"`, any order, any case). An empty text or an unknown
    /// letter is an error: HBase refuses both.
    pub fn parse(letters: &str) -> Result<Actions, AccessError> {
        if letters.is_empty() {
            return Err(AccessError::invalid(
                "no permissions given (use letters of RWXCA)",
            ));
        }
        letters
            .chars()
            .map(|c| {
                Action::from_letter(c).ok_or_else(|| {
                    AccessError::invalid(format!(
                        "unknown permission {c:?} in {letters:?} (use letters of RWXCA)"
                    ))
                })
            })
            .collect()
    }

    pub fn contains(self, action: Action) -> bool {
        self.0 & action.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, other: Actions) -> Actions {
        Actions(self.0 | other.0)
    }

    /// The actions in `self` that are not in `other`.
    pub fn without(self, other: Actions) -> Actions {
        Actions(self.0 & !other.0)
    }

    pub fn iter(self) -> impl Iterator<Item = Action> {
        Action::ALL.into_iter().filter(move |a| self.contains(*a))
    }
}

impl FromIterator<Action> for Actions {
    fn from_iter<I: IntoIterator<Item = Action>>(iter: I) -> Actions {
        Actions(iter.into_iter().fold(0, |bits, a| bits | a.bit()))
    }
}

impl From<Action> for Actions {
    fn from(action: Action) -> Actions {
        Actions(action.bit())
    }
}

/// The letters, in HBase's order (`RWXCA`).
impl fmt::Display for Actions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.iter().try_for_each(|a| write!(f, "{}", a.letter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_parse_in_any_order_and_case_and_print_in_hbase_order() {
        let set = Actions::parse("aWr").unwrap();
        assert_eq!(set.to_string(), "RWA");
        assert!(set.contains(Action::Admin) && !set.contains(Action::Create));
        assert_eq!(Actions::all().to_string(), "RWXCA");
    }

    #[test]
    fn an_unknown_letter_or_none_is_refused() {
        assert!(Actions::parse("RZ")
            .unwrap_err()
            .to_string()
            .contains("'Z'"));
        assert!(Actions::parse("").is_err());
    }

    #[test]
    fn without_removes_only_the_named_actions() {
        let set = Actions::parse("RWC").unwrap();
        assert_eq!(set.without(Actions::parse("WA").unwrap()).to_string(), "RC");
    }
}
