//! [`Manifest`]: opening (with crash recovery) and committing a store's manifest.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::fields::Defect;
use super::files::{list_manifests, manifest_path, rewrite_durably, write_durably};
use super::format::{encode_manifest, inspect, DecodedManifest, MAX_MANIFEST_LEN};
use super::pointer::StorePointer;
use super::shared::{open_shared, Shared};
use super::state::ManifestState;
use crate::error::{Error, Result};
use crate::fs::FileSystem;

/// The durable record of one store's live SSTable set.
///
/// Concurrency: all mutation takes `&mut self`; the store keeps its `Manifest` behind a
/// lock and holds it only to allocate numbers and to commit.
#[derive(Debug)]
pub struct Manifest {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    /// Number of the manifest file that holds `state`.
    number: u64,
    state: ManifestState,
    /// Next number `allocate_file_number` hands out; never below `state.next_file_number`.
    next_file_number: u64,
    /// Set when a failed commit may have left the new manifest on disk while memory kept
    /// the old state; further commits are refused until the store is reopened.
    poisoned: bool,
    /// Shared storage: the current manifest is the one the store's pointer names
    /// (`pointer.rs`), and no manifest is ever removed here. `None` on a local disk.
    shared: Option<Shared>,
}

impl Manifest {
    /// Opens the manifest in `dir`, creating the directory and an empty first manifest if
    /// there is none. See the module docs for the crash-recovery rules.
    pub fn open(fs: Arc<dyn FileSystem>, dir: PathBuf) -> Result<Manifest> {
        fs.create_dir_all(&dir)?;
        let numbers = list_manifests(fs.as_ref(), &dir)?;
        let decoded = match numbers.last() {
            None => create_initial(fs.as_ref(), &dir)?,
            Some(&newest) => recover(fs.as_ref(), &dir, &numbers, newest)?,
        };
        // Another manifest present means a commit may have been cut short by a process
        // crash, and the OS may hold the chosen file's bytes without their having reached
        // the disk. Removing the others before that file is durable could leave it empty
        // and alone after a later power cut (crash test seed 46282).
        if numbers.iter().any(|&n| n != decoded.manifest_number) {
            let path = manifest_path(&dir, decoded.manifest_number);
            rewrite_durably(fs.as_ref(), &dir, &path)?;
        }
        remove_other_manifests(fs.as_ref(), &dir, decoded.manifest_number)?;
        Ok(Manifest::loaded(fs, dir, decoded, None))
    }

    /// Opens the manifest of a store on shared storage: the one its pointer names (or the
    /// empty state when it has none). Nothing is removed, whatever else is present.
    pub fn open_with_pointer(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        pointer: StorePointer,
    ) -> Result<Manifest> {
        let (decoded, shared) = open_shared(fs.as_ref(), &dir, pointer)?;
        Ok(Manifest::loaded(fs, dir, decoded, Some(shared)))
    }

    fn loaded(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        decoded: DecodedManifest,
        shared: Option<Shared>,
    ) -> Manifest {
        Manifest {
            next_file_number: decoded.state.next_file_number,
            number: decoded.manifest_number,
            state: decoded.state,
            fs,
            dir,
            poisoned: false,
            shared,
        }
    }

    /// The store directory holding the manifest files.
    #[cfg(test)]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The current durable state.
    pub fn state(&self) -> &ManifestState {
        &self.state
    }

    /// True after a failed commit that could not be rolled back: the disk may hold the
    /// state that commit wrote, so the files it added must be kept until a reopen decides.
    pub fn may_hold_uncommitted_state(&self) -> bool {
        self.poisoned
    }

    /// The number of the manifest file holding the current state.
    #[cfg(test)]
    pub fn manifest_number(&self) -> u64 {
        self.number
    }

    /// Hands out a file number no other SSTable of this store has or will get. The next
    /// commit persists the raised counter, so numbers are never reused across restarts
    /// once a commit succeeds; numbers allocated but never committed may be reused after a
    /// crash, which is safe because no manifest references them.
    pub fn allocate_file_number(&mut self) -> u64 {
        let number = self.next_file_number;
        self.next_file_number += 1;
        number
    }

    /// Durably replaces the state with `new_state`, writing the next manifest file.
    ///
    /// `new_state.next_file_number` is raised to cover every allocated number, so
    /// `state()` afterwards may differ from `new_state` in that field only. The
    /// `flushed_seq` may not decrease, and every file's number must have been allocated.
    ///
    /// On error the in-memory state stays the old one. The new file is removed again if
    /// possible; if even that fails, the disk may hold either state, so the manifest
    /// refuses further commits (`Error::Closed`) and the store must be reopened. Callers
    /// must not delete SSTables of either state after a failed commit.
    pub fn commit(&mut self, mut new_state: ManifestState) -> Result<()> {
        if self.poisoned {
            return Err(Error::Closed(format!(
                "manifest in {} failed to commit earlier; reopen the store",
                self.dir.display()
            )));
        }
        new_state.next_file_number = new_state.next_file_number.max(self.next_file_number);
        self.check_successor(&new_state)?;
        if self.shared.is_some() {
            return self.commit_shared(new_state);
        }
        let number = self
            .number
            .checked_add(1)
            .ok_or_else(|| Error::InvalidArgument("manifest numbers exhausted".to_string()))?;
        let bytes = encode_manifest(number, &new_state)?;
        let path = manifest_path(&self.dir, number);
        if let Err(e) = write_durably(self.fs.as_ref(), &self.dir, &path, &bytes) {
            self.roll_back(&path);
            return Err(e);
        }
        self.number = number;
        self.next_file_number = new_state.next_file_number;
        self.state = new_state;
        // The new state is durable; leftovers are cleaned up by the next commit or open.
        if let Err(e) = remove_other_manifests(self.fs.as_ref(), &self.dir, number) {
            tracing::warn!(dir = %self.dir.display(), error = %e, "could not remove old manifests");
        }
        Ok(())
    }

    /// Shared storage: write the next candidate, then move the pointer to it. A failed
    /// write costs only its number (the next commit takes a fresh one, so a number a
    /// zombie took is skipped); a failed pointer commit may or may not have landed, so the
    /// manifest refuses further commits until the store is reopened from the pointer.
    fn commit_shared(&mut self, new_state: ManifestState) -> Result<()> {
        let Some(shared) = self.shared.as_mut() else {
            return Err(Error::Closed("manifest is not on shared storage".into()));
        };
        let encode = |number| encode_manifest(number, &new_state);
        let number = shared.write_next(self.fs.as_ref(), &self.dir, encode)?;
        let path = manifest_path(&self.dir, number);
        if let Err(e) = shared.pointer.commit(number) {
            tracing::error!(path = %path.display(), error = %e,
                "manifest pointer not moved; refusing further commits until reopened");
            self.poisoned = true;
            return Err(e);
        }
        self.number = number;
        self.next_file_number = new_state.next_file_number;
        self.state = new_state;
        Ok(())
    }

    fn check_successor(&self, new_state: &ManifestState) -> Result<()> {
        new_state.check_invariants()?;
        if new_state.flushed_seq < self.state.flushed_seq {
            return Err(Error::InvalidArgument(format!(
                "flushed_seq would go back from {} to {}",
                self.state.flushed_seq, new_state.flushed_seq
            )));
        }
        Ok(())
    }

    /// Best-effort removal of a manifest file whose write failed, so that the disk durably
    /// matches the old in-memory state again.
    fn roll_back(&mut self, path: &Path) {
        let removed = match self.fs.exists(path) {
            Ok(false) => Ok(()),
            Ok(true) => self.fs.remove(path),
            Err(e) => Err(e),
        };
        if let Err(e) = removed.and_then(|()| self.fs.sync_dir(&self.dir)) {
            tracing::error!(path = %path.display(), error = %e,
                "failed manifest write could not be rolled back; refusing further commits");
            self.poisoned = true;
        }
    }
}

/// Writes manifest 1 with the empty state, making the directory itself durable too.
fn create_initial(fs: &dyn FileSystem, dir: &Path) -> Result<DecodedManifest> {
    let decoded = DecodedManifest {
        manifest_number: 1,
        state: ManifestState::empty(),
    };
    let bytes = encode_manifest(1, &decoded.state)?;
    write_durably(fs, dir, &manifest_path(dir, 1), &bytes)?;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs.sync_dir(parent)?;
    }
    Ok(decoded)
}

/// Chooses the state to load from the manifests present (`numbers`, ascending, non-empty).
fn recover(
    fs: &dyn FileSystem,
    dir: &Path,
    numbers: &[u64],
    newest: u64,
) -> Result<DecodedManifest> {
    let path = manifest_path(dir, newest);
    let defect = match read_manifest(fs, &path, newest)? {
        Ok(decoded) => return Ok(decoded),
        Err(defect) => defect,
    };
    let corruption = Error::corruption(&path, defect.offset, defect.reason.clone());
    if !defect.torn {
        return Err(corruption);
    }
    let older = numbers.len().checked_sub(2).map(|i| numbers[i]);
    match older {
        // Manifest N-1 is removed only after N is durable, so its presence means N's
        // write never completed: N is a torn write and N-1 is the committed state.
        Some(older) => {
            let older_path = manifest_path(dir, older);
            match read_manifest(fs, &older_path, older)? {
                Ok(decoded) => {
                    tracing::warn!(torn = %path.display(), using = %older_path.display(),
                        reason = %defect.reason, "ignoring torn manifest left by a crash");
                    Ok(decoded)
                }
                // The older one was durable, so any defect in it is real damage.
                Err(d) => Err(Error::corruption(&older_path, d.offset, d.reason)),
            }
        }
        // Manifest 1 always holds the empty state, so a torn one can be rewritten.
        None if newest == 1 => {
            tracing::warn!(path = %path.display(), "rewriting torn initial manifest");
            create_initial(fs, dir)
        }
        // A sole torn manifest past 1: the committed state is lost; never start empty.
        None => Err(corruption),
    }
}

/// Reads and decodes one manifest: I/O failures are the outer error, bad bytes the inner.
fn read_manifest(
    fs: &dyn FileSystem,
    path: &Path,
    expected_number: u64,
) -> Result<std::result::Result<DecodedManifest, Defect>> {
    let size = fs.file_size(path)?;
    if size > MAX_MANIFEST_LEN {
        return Ok(Err(Defect::corrupt(
            0,
            format!("manifest file of {size} bytes is too large"),
        )));
    }
    let bytes = fs.read_all(path)?;
    Ok(inspect(&bytes).and_then(|decoded| {
        if decoded.manifest_number == expected_number {
            Ok(decoded)
        } else {
            let reason = format!("header says manifest {}", decoded.manifest_number);
            Err(Defect::corrupt(16, reason))
        }
    }))
}

/// Removes every manifest file except `keep`, then makes the removals durable.
fn remove_other_manifests(fs: &dyn FileSystem, dir: &Path, keep: u64) -> Result<()> {
    let stale: Vec<u64> = list_manifests(fs, dir)?
        .into_iter()
        .filter(|&n| n != keep)
        .collect();
    for &number in &stale {
        fs.remove(&manifest_path(dir, number))?;
    }
    if !stale.is_empty() {
        fs.sync_dir(dir)?;
    }
    Ok(())
}
