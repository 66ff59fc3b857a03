//! HBase's Durability with its `USE_DEFAULT`: a table's `DURABILITY` attribute, and what a
//! write asks for. HBase's rule decides what a write gets: the write's own durability unless
//! it is `USE_DEFAULT`, else the table's unless that is `USE_DEFAULT`, else the server's
//! default (`SYNC_WAL`). The engine then raises logged writes to the server-wide minimum
//! (`[engine] durability`).

use std::fmt;
use std::str::FromStr;

use strata_engine::Durability;

/// HBase's Durability, in its order of increasing durability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WriteDurability {
    /// A write: the table's durability. A table: the server's default (`SYNC_WAL`).
    #[default]
    UseDefault,
    SkipWal,
    AsyncWal,
    SyncWal,
    FsyncWal,
}

/// Every value with its HBase name, in HBase's order.
const NAMES: [(WriteDurability, &str); 5] = [
    (WriteDurability::UseDefault, "USE_DEFAULT"),
    (WriteDurability::SkipWal, "SKIP_WAL"),
    (WriteDurability::AsyncWal, "ASYNC_WAL"),
    (WriteDurability::SyncWal, "SYNC_WAL"),
    (WriteDurability::FsyncWal, "FSYNC_WAL"),
];

/// The durability a `USE_DEFAULT` table gives its `USE_DEFAULT` writes (HBase's default).
pub const SERVER_DEFAULT: Durability = Durability::SyncWal;

impl WriteDurability {
    /// HBase's name: `USE_DEFAULT`, `SKIP_WAL`, `ASYNC_WAL`, `SYNC_WAL` or `FSYNC_WAL`.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(d, _)| *d == self)
            .map_or("USE_DEFAULT", |(_, name)| name)
    }

    /// The engine's durability, or `None` for `USE_DEFAULT`.
    pub fn explicit(self) -> Option<Durability> {
        match self {
            WriteDurability::UseDefault => None,
            WriteDurability::SkipWal => Some(Durability::SkipWal),
            WriteDurability::AsyncWal => Some(Durability::AsyncWal),
            WriteDurability::SyncWal => Some(Durability::SyncWal),
            WriteDurability::FsyncWal => Some(Durability::FsyncWal),
        }
    }

    /// What a write asking for `self` to a table whose attribute is `table` gets.
    pub fn resolve(self, table: WriteDurability) -> Durability {
        self.explicit()
            .or_else(|| table.explicit())
            .unwrap_or(SERVER_DEFAULT)
    }

    /// HBase 0.94's `DEFERRED_LOG_FLUSH`: `true` is `ASYNC_WAL`, `false` `SYNC_WAL` (as
    /// HBase's shell maps it since DURABILITY replaced it).
    pub fn from_deferred_log_flush(deferred: bool) -> WriteDurability {
        if deferred {
            WriteDurability::AsyncWal
        } else {
            WriteDurability::SyncWal
        }
    }
}

impl From<Durability> for WriteDurability {
    fn from(d: Durability) -> Self {
        match d {
            Durability::SkipWal => WriteDurability::SkipWal,
            Durability::AsyncWal => WriteDurability::AsyncWal,
            Durability::SyncWal => WriteDurability::SyncWal,
            Durability::FsyncWal => WriteDurability::FsyncWal,
        }
    }
}

impl fmt::Display for WriteDurability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A DURABILITY value that is none of HBase's five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown DURABILITY {0:?}: expected USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL"
)]
pub struct UnknownDurability(pub String);

impl FromStr for WriteDurability {
    type Err = UnknownDurability;

    /// HBase's names, in any letter case (HBase itself wants upper case).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        NAMES
            .iter()
            .find(|(_, name)| name.eq_ignore_ascii_case(wanted))
            .map(|(d, _)| *d)
            .ok_or_else(|| UnknownDurability(text.to_string()))
    }
}

impl From<UnknownDurability> for crate::ServiceError {
    fn from(e: UnknownDurability) -> Self {
        crate::ServiceError::InvalidArgument(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case() {
        for (d, name) in NAMES {
            assert_eq!(d.name(), name);
            assert_eq!(name.parse::<WriteDurability>(), Ok(d));
            assert_eq!(name.to_lowercase().parse::<WriteDurability>(), Ok(d));
        }
        assert_eq!(
            " async_wal ".parse::<WriteDurability>(),
            Ok(WriteDurability::AsyncWal)
        );
    }

    #[test]
    fn unknown_names_are_refused_naming_the_choices() {
        let err = "ASYNC".parse::<WriteDurability>().unwrap_err();
        assert_eq!(err, UnknownDurability("ASYNC".into()));
        let message = err.to_string();
        assert!(message.contains("\"ASYNC\""), "{message}");
        assert!(message.contains("FSYNC_WAL"), "{message}");
        assert!("".parse::<WriteDurability>().is_err());
    }

    #[test]
    fn a_write_overrides_its_table_and_the_table_overrides_the_server() {
        use WriteDurability as W;
        // The write's own choice wins, weaker or stronger.
        assert_eq!(W::SkipWal.resolve(W::FsyncWal), Durability::SkipWal);
        assert_eq!(W::FsyncWal.resolve(W::SkipWal), Durability::FsyncWal);
        // USE_DEFAULT writes take the table's.
        assert_eq!(W::UseDefault.resolve(W::AsyncWal), Durability::AsyncWal);
        assert_eq!(W::UseDefault.resolve(W::SkipWal), Durability::SkipWal);
        // Both USE_DEFAULT: the server's default.
        assert_eq!(W::UseDefault.resolve(W::UseDefault), SERVER_DEFAULT);
        assert_eq!(SERVER_DEFAULT, Durability::SyncWal);
    }

    #[test]
    fn engine_durabilities_convert_to_explicit_choices() {
        for d in [
            Durability::SkipWal,
            Durability::AsyncWal,
            Durability::SyncWal,
            Durability::FsyncWal,
        ] {
            assert_eq!(WriteDurability::from(d).explicit(), Some(d));
        }
        assert_eq!(WriteDurability::UseDefault.explicit(), None);
    }

    #[test]
    fn deferred_log_flush_is_async_wal_or_sync_wal() {
        assert_eq!(
            WriteDurability::from_deferred_log_flush(true),
            WriteDurability::AsyncWal
        );
        assert_eq!(
            WriteDurability::from_deferred_log_flush(false),
            WriteDurability::SyncWal
        );
    }
}
