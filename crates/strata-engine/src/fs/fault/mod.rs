//! A [`FileSystem`] wrapper that injects faults by rule, for testing how the WAL, flushes,
//! compactions and reads handle failing and lying disks.
//!
//! A rule names an operation, optionally a path substring, what goes wrong, how many matching
//! operations to let through first (`skip`) and how many faults to inject (`times`). Handles
//! returned by a `FaultFs` keep consulting the rules, so faults can be armed mid-write.

mod files;
mod injector;

#[cfg(test)]
mod tests;

use std::io;
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use super::{FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};
use files::{FaultReadable, FaultWritable};
use injector::{Injector, Verdict};

/// An operation a rule can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultOp {
    /// `FileSystem::create`.
    Create,
    /// `FileSystem::open_read`.
    Open,
    /// `WritableFile::append`.
    Append,
    /// `WritableFile::flush`.
    Flush,
    /// `WritableFile::sync`.
    Sync,
    /// `RandomAccessFile::read_at` (and so `read_all`).
    Read,
    /// `FileSystem::remove`.
    Remove,
    /// `FileSystem::rename` and `FileSystem::hard_link` (the path filter matches either name).
    Rename,
    /// `FileSystem::truncate`.
    Truncate,
    /// `FileSystem::sync_dir`.
    SyncDir,
    /// `FileSystem::create_dir_all`.
    CreateDir,
    /// `FileSystem::remove_dir_all`.
    RemoveDir,
    /// `FileSystem::list`.
    List,
    /// `FileSystem::exists` and `file_size`.
    Stat,
}

impl FaultOp {
    /// Operations that change the disk, refused in read-only mode.
    pub fn is_mutating(self) -> bool {
        !matches!(
            self,
            FaultOp::Open | FaultOp::Read | FaultOp::List | FaultOp::Stat
        )
    }
}

/// What goes wrong when a rule fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The operation fails with an I/O error of this kind and has no effect.
    Error(io::ErrorKind),
    /// The read succeeds but one bit of the returned bytes is flipped. `Read` only.
    CorruptRead,
    /// The first half of the bytes is appended, then the append fails. `Append` only.
    TornAppend,
    /// The operation waits this long, then runs normally: a slow device (say 2 ms added
    /// to every sync on one volume). Slept on the clock set with `FaultFs::with_clock`.
    Delay(std::time::Duration),
}

/// One fault-injection rule; build with [`FaultRule::new`] or [`FaultRule::error`] and the
/// builder methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    /// The operation targeted.
    pub op: FaultOp,
    /// Only paths containing this substring match; `None` matches every path.
    pub path_contains: Option<String>,
    /// What happens when the rule fires.
    pub kind: FaultKind,
    /// The first `skip` matching operations succeed.
    pub skip: u64,
    /// How many faults to inject; `None` means every matching operation after `skip`.
    pub times: Option<u64>,
}

impl FaultRule {
    /// A rule firing on every `op`, on every path.
    pub fn new(op: FaultOp, kind: FaultKind) -> Self {
        FaultRule {
            op,
            path_contains: None,
            kind,
            skip: 0,
            times: None,
        }
    }

    /// A rule failing every `op` with an I/O error of `kind`.
    pub fn error(op: FaultOp, kind: io::ErrorKind) -> Self {
        Self::new(op, FaultKind::Error(kind))
    }

    /// Restricts the rule to paths containing `needle`.
    pub fn path_contains(mut self, needle: impl Into<String>) -> Self {
        self.path_contains = Some(needle.into());
        self
    }

    /// Lets the first `n` matching operations succeed.
    pub fn skip(mut self, n: u64) -> Self {
        self.skip = n;
        self
    }

    /// Injects at most `n` faults.
    pub fn times(mut self, n: u64) -> Self {
        self.times = Some(n);
        self
    }

    fn validate(&self) -> Result<()> {
        let fits = match self.kind {
            FaultKind::Error(_) => true,
            FaultKind::CorruptRead => self.op == FaultOp::Read,
            FaultKind::TornAppend => self.op == FaultOp::Append,
            FaultKind::Delay(_) => true,
        };
        if fits {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "fault {:?} cannot apply to {:?}",
                self.kind, self.op
            )))
        }
    }
}

/// Names an injected rule, for [`FaultFs::remove_rule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId(u64);

/// Wraps a filesystem and injects faults. Clones share rules, modes and counters.
#[derive(Debug, Clone)]
pub struct FaultFs {
    inner: Arc<dyn FileSystem>,
    injector: Arc<Mutex<Injector>>,
}

impl FaultFs {
    /// Wraps `inner` with no rules: every operation passes through.
    pub fn new(inner: Arc<dyn FileSystem>) -> Self {
        FaultFs {
            inner,
            injector: Arc::new(Mutex::new(Injector::default())),
        }
    }

    /// The wrapped filesystem, to inspect the disk behind the faults.
    pub fn inner(&self) -> &Arc<dyn FileSystem> {
        &self.inner
    }

    /// Adds a rule. Rules are checked in the order they were added; one operation suffers at
    /// most one fault. A kind that cannot apply to the op is `Error::InvalidArgument`.
    pub fn inject(&self, rule: FaultRule) -> Result<RuleId> {
        rule.validate()?;
        Ok(self.injector.lock().add(rule))
    }

    /// Drops a rule; false if it was already gone. (Not `remove`: that would shadow
    /// `FileSystem::remove` on a `FaultFs`.)
    pub fn remove_rule(&self, id: RuleId) -> bool {
        self.injector.lock().remove(id)
    }

    /// Drops every rule (modes stay as set).
    pub fn clear_rules(&self) {
        self.injector.lock().clear();
    }

    /// Faults injected so far, by rules and by modes.
    pub fn injected(&self) -> u64 {
        self.injector.lock().injected()
    }

    /// In read-only mode every mutating operation fails with `PermissionDenied`.
    pub fn set_read_only(&self, on: bool) {
        self.injector.lock().set_read_only(on);
    }

    /// Lets `bytes` more bytes reach the disk (through flush or sync), then fails flushes,
    /// syncs and appends with `StorageFull`; a write that does not fit writes nothing.
    /// `None` gives the disk back its space.
    pub fn set_disk_full_after(&self, bytes: Option<u64>) {
        self.injector.lock().set_disk_full_after(bytes);
    }

    /// Delays (`FaultKind::Delay`) sleep on `clock` (a test's manual clock) from now on.
    pub fn with_clock(self, clock: Arc<dyn crate::util::clock::Clock>) -> Self {
        self.injector.lock().set_clock(clock);
        self
    }

    fn check(&self, op: FaultOp, paths: &[&Path]) -> Result<()> {
        match injector::check_and_wait(&self.injector, op, paths) {
            Verdict::Fail(e) => Err(Error::io(paths[0], e)),
            _ => Ok(()),
        }
    }
}

impl FileSystem for FaultFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.check(FaultOp::Create, &[path])?;
        Ok(Box::new(FaultWritable {
            inner: self.inner.create(path)?,
            injector: self.injector.clone(),
            path: path.to_path_buf(),
            pending: 0,
        }))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.check(FaultOp::Open, &[path])?;
        Ok(Arc::new(FaultReadable {
            inner: self.inner.open_read(path)?,
            injector: self.injector.clone(),
            path: path.to_path_buf(),
        }))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.check(FaultOp::Remove, &[path])?;
        self.inner.remove(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.check(FaultOp::Rename, &[from, to])?;
        self.inner.rename(from, to)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        self.check(FaultOp::Rename, &[from, to])?;
        self.inner.hard_link(from, to)
    }

    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        self.check(FaultOp::Truncate, &[path])?;
        self.inner.truncate(path, len)
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.check(FaultOp::List, &[dir])?;
        self.inner.list(dir)
    }

    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.check(FaultOp::CreateDir, &[dir])?;
        self.inner.create_dir_all(dir)
    }

    fn remove_dir_all(&self, dir: &Path) -> Result<()> {
        self.check(FaultOp::RemoveDir, &[dir])?;
        self.inner.remove_dir_all(dir)
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.check(FaultOp::SyncDir, &[dir])?;
        self.inner.sync_dir(dir)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        self.check(FaultOp::Stat, &[path])?;
        self.inner.exists(path)
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        self.check(FaultOp::Stat, &[path])?;
        self.inner.file_size(path)
    }

    /// The smaller of the real free space and the disk-full budget.
    fn free_space(&self, path: &Path) -> Option<u64> {
        let budget = self.injector.lock().disk_budget();
        match (self.inner.free_space(path), budget) {
            (Some(real), Some(budget)) => Some(real.min(budget)),
            (real, budget) => real.or(budget),
        }
    }
}
