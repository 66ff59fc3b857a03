//! Offline reading of one manifest file for `strata check`: like [`decode_manifest`], but
//! an unfinished write (torn) is told apart from damage, as the open's recovery rules do.

use std::path::Path;

use super::format::{inspect, DecodedManifest};
use crate::error::{Error, Result};

/// A manifest file that is not corrupt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestRead {
    Valid(DecodedManifest),
    /// Shorter than its header or its declared length, or all zeros: a commit a crash cut
    /// short. The open ignores it when an older manifest exists.
    Torn {
        offset: u64,
        reason: String,
    },
}

/// Decodes `bytes` (the file at `path`); damage is `Error::Corruption` with the offset.
pub fn read_manifest(path: &Path, bytes: &[u8]) -> Result<ManifestRead> {
    match inspect(bytes) {
        Ok(decoded) => Ok(ManifestRead::Valid(decoded)),
        Err(d) if d.torn => Ok(ManifestRead::Torn {
            offset: d.offset,
            reason: d.reason,
        }),
        Err(d) => Err(Error::corruption(path, d.offset, d.reason)),
    }
}
