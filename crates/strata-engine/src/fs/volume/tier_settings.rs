//! Settings per storage type, applied to every SSTable written on a volume of that type:
//! the seed's per-tier wish ("none on RAM, LZ4 on SSD, ZSTD on HDD"). Cheap compression
//! where reads are fast and space is dear for nothing, strong compression where every
//! byte read costs a slow device's time.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use super::StorageType;
use crate::error::{Error, Result};
use crate::options::Compression;

/// What a storage type overrides in the files written on it; `None` keeps the family's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TierSettings {
    pub compression: Option<Compression>,
    /// Data block size in bytes.
    pub block_size: Option<usize>,
}

/// The settings of each storage type that has any.
pub type TierSettingsMap = HashMap<StorageType, TierSettings>;

impl FromStr for Compression {
    type Err = Error;

    /// HBase's names, any case: NONE, LZ4, ZSTD, SNAPPY, GZ.
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "NONE" => Ok(Compression::None),
            "LZ4" => Ok(Compression::Lz4),
            "ZSTD" => Ok(Compression::Zstd),
            "SNAPPY" => Ok(Compression::Snappy),
            "GZ" => Ok(Compression::Gz),
            _ => Err(Error::InvalidArgument(format!(
                "unknown compression {s:?}: NONE, LZ4, ZSTD, SNAPPY or GZ"
            ))),
        }
    }
}

impl Compression {
    /// HBase's name of the codec.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "NONE",
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "ZSTD",
            Compression::Snappy => "SNAPPY",
            Compression::Gz => "GZ",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_names_round_trip_in_any_case() {
        for c in [
            Compression::None,
            Compression::Lz4,
            Compression::Zstd,
            Compression::Snappy,
            Compression::Gz,
        ] {
            assert_eq!(
                c.to_string().to_lowercase().parse::<Compression>().unwrap(),
                c
            );
        }
        assert!("brotli".parse::<Compression>().is_err());
    }
}
