//! The shared state behind a `MemFs`.
//!
//! Two namespaces are kept side by side: `live` is what a running process sees, `durable` is
//! what the disk would show after a power cut. Directory operations change `live` at once and
//! reach `durable` only through `sync_dir`. File contents have the same two levels (`os` and
//! `durable`), moved forward by a writer's `flush` and `sync`.
//!
//! File contents live in `files`, keyed by an inode-like id, so a rename moves a name without
//! copying bytes and an open handle keeps a removed file's bytes alive, as on Unix. A file's
//! bytes are dropped once no name in either namespace and no open handle refers to it.

use std::collections::{BTreeMap, HashMap};
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// An inode number.
pub(super) type FileId = u64;

/// What a name points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    File(FileId),
    Dir,
}

/// One file's bytes at the two durability levels.
#[derive(Debug, Clone, Default)]
pub(super) struct FileData {
    /// Bytes handed to the OS (visible to readers, survive a process crash).
    pub os: Vec<u8>,
    /// Bytes made durable by the last `sync` (survive a power cut).
    pub durable: Vec<u8>,
    /// Names referring to this file, counted over both namespaces.
    links: usize,
    /// Open writers and readers.
    handles: usize,
}

impl FileData {
    /// Contents with no names and no handles yet.
    pub fn new(os: Vec<u8>, durable: Vec<u8>) -> Self {
        FileData {
            os,
            durable,
            links: 0,
            handles: 0,
        }
    }
}

/// Which namespace an entry update goes to.
#[derive(Debug, Clone, Copy)]
pub(super) enum Namespace {
    Live,
    Durable,
}

/// The whole simulated disk.
#[derive(Debug, Default)]
pub(super) struct State {
    next_id: FileId,
    pub files: HashMap<FileId, FileData>,
    pub live: BTreeMap<PathBuf, Entry>,
    pub durable: BTreeMap<PathBuf, Entry>,
    /// Total bytes the disk can hold, when a test wants a disk that can fill up.
    pub capacity: Option<u64>,
}

/// Drops `.` components and doubled separators so equal paths are equal keys.
pub(super) fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// The root ("" or "/") always exists and has no name of its own.
pub(super) fn is_root(path: &Path) -> bool {
    path.parent().is_none()
}

/// An `Error::Io` of the given kind, as a real filesystem would report it.
pub(super) fn io_error(path: &Path, kind: ErrorKind, what: &str) -> Error {
    Error::io(path, std::io::Error::new(kind, what.to_string()))
}

impl State {
    /// An empty disk.
    pub fn with_capacity(capacity: Option<u64>) -> Self {
        State {
            capacity,
            ..State::default()
        }
    }

    /// A new file with no name and no handle yet (the caller links or opens it).
    pub fn new_file(&mut self, data: FileData) -> FileId {
        self.next_id += 1;
        self.files.insert(self.next_id, data);
        self.next_id
    }

    /// Points `path` at `entry` (or removes it) in one namespace, keeping link counts right.
    pub fn set_entry(&mut self, ns: Namespace, path: PathBuf, entry: Option<Entry>) {
        let map = match ns {
            Namespace::Live => &mut self.live,
            Namespace::Durable => &mut self.durable,
        };
        let old = match entry {
            Some(e) => map.insert(path, e),
            None => map.remove(&path),
        };
        if let Some(Entry::File(id)) = entry {
            if let Some(file) = self.files.get_mut(&id) {
                file.links += 1;
            }
        }
        if let Some(Entry::File(id)) = old {
            if let Some(file) = self.files.get_mut(&id) {
                file.links -= 1;
            }
            self.drop_if_unused(id);
        }
    }

    /// Registers an open handle on `id`.
    pub fn acquire(&mut self, id: FileId) {
        if let Some(file) = self.files.get_mut(&id) {
            file.handles += 1;
        }
    }

    /// Releases a handle; the bytes go once nothing refers to them.
    pub fn release(&mut self, id: FileId) {
        if let Some(file) = self.files.get_mut(&id) {
            file.handles = file.handles.saturating_sub(1);
        }
        self.drop_if_unused(id);
    }

    fn drop_if_unused(&mut self, id: FileId) {
        if self
            .files
            .get(&id)
            .is_some_and(|f| f.links == 0 && f.handles == 0)
        {
            self.files.remove(&id);
        }
    }

    /// Open handles over all files (for leak checks in tests).
    pub fn open_handles(&self) -> usize {
        self.files.values().map(|f| f.handles).sum()
    }

    /// Bytes the OS holds over all files, the measure for `capacity`.
    pub fn used_bytes(&self) -> u64 {
        self.files.values().map(|f| f.os.len() as u64).sum()
    }

    pub fn is_dir(&self, path: &Path) -> bool {
        is_root(path) || self.live.get(path) == Some(&Entry::Dir)
    }

    /// The file a live name points at.
    pub fn file_id(&self, path: &Path) -> Result<FileId> {
        match self.live.get(path) {
            Some(Entry::File(id)) => Ok(*id),
            Some(Entry::Dir) => Err(io_error(path, ErrorKind::IsADirectory, "is a directory")),
            None => Err(io_error(path, ErrorKind::NotFound, "no such file")),
        }
    }

    pub fn file(&self, path: &Path, id: FileId) -> Result<&FileData> {
        self.files
            .get(&id)
            .ok_or_else(|| io_error(path, ErrorKind::NotFound, "file was dropped"))
    }

    pub fn file_mut(&mut self, path: &Path, id: FileId) -> Result<&mut FileData> {
        self.files
            .get_mut(&id)
            .ok_or_else(|| io_error(path, ErrorKind::NotFound, "file was dropped"))
    }

    /// A new name may only be made inside an existing directory.
    fn require_parent_dir(&self, path: &Path) -> Result<()> {
        match path.parent() {
            Some(parent) if self.is_dir(parent) => Ok(()),
            Some(parent) if self.live.contains_key(parent) => {
                Err(io_error(path, ErrorKind::NotADirectory, "parent is a file"))
            }
            _ => Err(io_error(path, ErrorKind::NotFound, "no parent directory")),
        }
    }

    /// `create` with O_TRUNC: an existing file keeps its inode (so its durable bytes stay
    /// until the next sync) and loses its OS-level bytes.
    pub fn create_file(&mut self, path: &Path) -> Result<FileId> {
        self.require_parent_dir(path)?;
        match self.live.get(path) {
            Some(Entry::File(id)) => {
                let id = *id;
                self.file_mut(path, id)?.os.clear();
                Ok(id)
            }
            Some(Entry::Dir) => Err(io_error(path, ErrorKind::IsADirectory, "is a directory")),
            None => {
                let id = self.new_file(FileData::default());
                self.set_entry(Namespace::Live, path.to_path_buf(), Some(Entry::File(id)));
                Ok(id)
            }
        }
    }

    pub fn remove_file(&mut self, path: &Path) -> Result<()> {
        self.file_id(path)?;
        self.set_entry(Namespace::Live, path.to_path_buf(), None);
        Ok(())
    }

    /// Renames a file, replacing any file at `to`. Directories cannot be renamed: the engine
    /// renames only WAL and manifest files.
    pub fn rename_file(&mut self, from: &Path, to: &Path) -> Result<()> {
        let id = self.file_id(from)?;
        self.require_parent_dir(to)?;
        if self.live.get(to) == Some(&Entry::Dir) {
            return Err(io_error(
                to,
                ErrorKind::IsADirectory,
                "target is a directory",
            ));
        }
        if from == to {
            return Ok(());
        }
        self.set_entry(Namespace::Live, to.to_path_buf(), Some(Entry::File(id)));
        self.set_entry(Namespace::Live, from.to_path_buf(), None);
        Ok(())
    }

    /// Gives file `from` a second name `to`, which must not exist. Like a creation, the new
    /// name is durable only once its directory is synced.
    pub fn link_file(&mut self, from: &Path, to: &Path) -> Result<()> {
        let id = self.file_id(from)?;
        self.require_parent_dir(to)?;
        if self.live.contains_key(to) {
            return Err(io_error(to, ErrorKind::AlreadyExists, "already exists"));
        }
        self.set_entry(Namespace::Live, to.to_path_buf(), Some(Entry::File(id)));
        Ok(())
    }

    /// Resizes (zero-filling when growing) and makes the result durable, like
    /// `set_len` followed by `fsync`.
    pub fn truncate(&mut self, path: &Path, len: u64) -> Result<()> {
        let id = self.file_id(path)?;
        let len = usize::try_from(len)
            .map_err(|_| io_error(path, ErrorKind::InvalidInput, "length too large"))?;
        let file = self.file_mut(path, id)?;
        file.os.resize(len, 0);
        file.durable = file.os.clone();
        Ok(())
    }

    /// Live names directly below `dir`, sorted. `PathBuf` orders by components, so a
    /// directory's descendants form one contiguous range right after it.
    pub fn list(&self, dir: &Path) -> Result<Vec<String>> {
        if let Some(Entry::File(_)) = self.live.get(dir) {
            return Err(io_error(dir, ErrorKind::NotADirectory, "not a directory"));
        }
        let mut names: Vec<String> = children(&self.live, dir)
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Creates `dir` and its missing ancestors. Directory creation is durable at once: the
    /// engine makes its directories when it opens, and asking every test to sync each
    /// ancestor would add noise without finding bugs in file durability.
    pub fn create_dir_all(&mut self, dir: &Path) -> Result<()> {
        let mut missing = Vec::new();
        for ancestor in dir.ancestors().filter(|a| !is_root(a)) {
            match self.live.get(ancestor) {
                Some(Entry::Dir) => break,
                Some(Entry::File(_)) => {
                    return Err(io_error(ancestor, ErrorKind::NotADirectory, "is a file"))
                }
                None => missing.push(ancestor.to_path_buf()),
            }
        }
        for path in missing.into_iter().rev() {
            self.set_entry(Namespace::Live, path.clone(), Some(Entry::Dir));
            self.set_entry(Namespace::Durable, path, Some(Entry::Dir));
        }
        Ok(())
    }

    /// Removes `dir` and everything below it from the live namespace. The removal becomes
    /// durable with a `sync_dir` of the parent.
    pub fn remove_dir_all(&mut self, dir: &Path) -> Result<()> {
        match self.live.get(dir) {
            None => return Ok(()),
            Some(Entry::File(_)) => {
                return Err(io_error(dir, ErrorKind::NotADirectory, "not a directory"))
            }
            Some(Entry::Dir) => {}
        }
        let doomed: Vec<PathBuf> = self
            .live
            .range(dir.to_path_buf()..)
            .map(|(p, _)| p.clone())
            .take_while(|p| p.starts_with(dir))
            .collect();
        for path in doomed {
            self.set_entry(Namespace::Live, path, None);
        }
        Ok(())
    }

    /// Copies the live state of `dir`'s direct children into the durable namespace. A child
    /// directory that is gone takes its whole durable subtree with it.
    pub fn sync_dir(&mut self, dir: &Path) -> Result<()> {
        if !self.is_dir(dir) {
            return Err(io_error(dir, ErrorKind::NotFound, "no such directory"));
        }
        let mut names: Vec<PathBuf> = children(&self.live, dir).cloned().collect();
        names.extend(children(&self.durable, dir).cloned());
        names.sort();
        names.dedup();
        for path in names {
            let live = self.live.get(&path).copied();
            if live.is_none() && self.durable.get(&path) == Some(&Entry::Dir) {
                self.drop_durable_subtree(&path);
            }
            self.set_entry(Namespace::Durable, path, live);
        }
        Ok(())
    }

    fn drop_durable_subtree(&mut self, dir: &Path) {
        let doomed: Vec<PathBuf> = self
            .durable
            .range(dir.to_path_buf()..)
            .map(|(p, _)| p.clone())
            .take_while(|p| p.starts_with(dir))
            .collect();
        for path in doomed {
            self.set_entry(Namespace::Durable, path, None);
        }
    }
}

/// Direct children of `dir` in `map`.
fn children<'a>(
    map: &'a BTreeMap<PathBuf, Entry>,
    dir: &'a Path,
) -> impl Iterator<Item = &'a PathBuf> + 'a {
    map.range(dir.to_path_buf()..)
        .map(|(p, _)| p)
        .take_while(move |p| p.starts_with(dir))
        .filter(move |p| p.parent() == Some(dir))
}
