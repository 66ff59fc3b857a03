//! Opening a store's manifest on shared storage, where its pointer (`pointer.rs`), not the
//! newest file, names the current one.
//!
//! Every manifest object is written once under a number never used before in the store's
//! directory: a candidate that lost (a zombie's, or one whose pointer commit failed) stays
//! as garbage for the collector, and numbers simply skip past it.

use std::path::Path;

use super::files::{list_manifests, manifest_path};
use super::format::{inspect, DecodedManifest, MAX_MANIFEST_LEN};
use super::pointer::StorePointer;
use super::state::ManifestState;
use crate::error::{Error, ErrorKind, Result};
use crate::fs::FileSystem;

/// The shared-storage half of a [`super::Manifest`].
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) pointer: StorePointer,
    /// The number the next commit writes; above every manifest seen in the directory.
    next_number: u64,
}

/// How many taken numbers one commit skips before giving up: each means another writer
/// (a zombie of the region) wrote a candidate meanwhile, which cannot go on for long since
/// its commits all fail.
const MAX_TAKEN_NUMBERS: usize = 16;

impl Shared {
    /// Writes `encode(number)` as a new candidate under a number no one has used, skipping
    /// numbers another writer took; returns the number.
    pub(super) fn write_next(
        &mut self,
        fs: &dyn FileSystem,
        dir: &Path,
        encode: impl Fn(u64) -> Result<Vec<u8>>,
    ) -> Result<u64> {
        let mut attempts = 0;
        loop {
            let number = self.take_number()?;
            let path = manifest_path(dir, number);
            match write_candidate(fs, dir, &path, &encode(number)?) {
                Ok(()) => return Ok(number),
                Err(e) if e.is_already_exists() && attempts < MAX_TAKEN_NUMBERS => {
                    attempts += 1;
                    tracing::warn!(path = %path.display(), "manifest number taken by another writer");
                    let newest = list_manifests(fs, dir)?.last().copied().unwrap_or(0);
                    self.next_number = self.next_number.max(newest.saturating_add(1));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// A number for a new candidate; each is used at most once by this process.
    pub(super) fn take_number(&mut self) -> Result<u64> {
        let number = self.next_number;
        self.next_number = number
            .checked_add(1)
            .ok_or_else(|| Error::InvalidArgument("manifest numbers exhausted".to_string()))?;
        Ok(number)
    }
}

/// Loads the manifest the pointer names. A pointer to a missing or damaged manifest is
/// corruption: the commit that set it wrote the manifest first, and nothing but the
/// collector (which honours pointers) deletes one.
pub(super) fn open_shared(
    fs: &dyn FileSystem,
    dir: &Path,
    pointer: StorePointer,
) -> Result<(DecodedManifest, Shared)> {
    fs.create_dir_all(dir)?;
    let listed = list_manifests(fs, dir)?;
    let decoded = match pointer.load()? {
        Some(number) => read_pointed(fs, dir, number)?,
        None => DecodedManifest {
            manifest_number: 0,
            state: ManifestState::empty(),
        },
    };
    let newest = listed.last().copied().unwrap_or(0);
    let next_number = newest.max(decoded.manifest_number) + 1;
    Ok((
        decoded,
        Shared {
            pointer,
            next_number,
        },
    ))
}

fn read_pointed(fs: &dyn FileSystem, dir: &Path, number: u64) -> Result<DecodedManifest> {
    let path = manifest_path(dir, number);
    let size = fs.file_size(&path).map_err(|e| match e.kind() {
        ErrorKind::NotFound => Error::corruption(
            &path,
            0,
            format!("missing, yet the store's pointer names it: {e}"),
        ),
        _ => e,
    })?;
    if size > MAX_MANIFEST_LEN {
        let reason = format!("manifest file of {size} bytes is too large");
        return Err(Error::corruption(&path, 0, reason));
    }
    let bytes = fs.read_all(&path)?;
    let decoded = inspect(&bytes).map_err(|d| Error::corruption(&path, d.offset, d.reason))?;
    if decoded.manifest_number != number {
        let reason = format!("header says manifest {}", decoded.manifest_number);
        return Err(Error::corruption(&path, 16, reason));
    }
    Ok(decoded)
}

/// Writes candidate manifest `path` once: create-if-absent, so a number another writer
/// took is an error here rather than an overwrite of its manifest.
fn write_candidate(fs: &dyn FileSystem, dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = fs.create_new(path)?;
    file.append(bytes)?;
    file.sync()?;
    drop(file);
    fs.sync_dir(dir)
}
