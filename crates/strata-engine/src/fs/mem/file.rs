//! Open file handles of a `MemFs`. Each holds the shared state and an inode id, so a handle
//! keeps working on its file after a rename or removal, and keeps writing into the old
//! filesystem after a crash clone was taken.

use std::io::ErrorKind;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;

use super::state::{io_error, FileId, State};
use crate::error::Result;
use crate::fs::{RandomAccessFile, WritableFile};

/// A writer: `append` fills a process-side buffer, `flush` writes it at the writer's own
/// offset (like `write(2)` on a non-append descriptor), `sync` makes the OS bytes durable.
pub(super) struct MemWritable {
    state: Arc<Mutex<State>>,
    path: PathBuf,
    id: FileId,
    buffer: Vec<u8>,
    /// Bytes already handed to the OS: the descriptor's offset.
    flushed: u64,
    len: u64,
}

impl MemWritable {
    /// Takes a handle on `id`; the caller holds no lock.
    pub fn open(state: Arc<Mutex<State>>, path: PathBuf, id: FileId) -> Self {
        state.lock().acquire(id);
        MemWritable {
            state,
            path,
            id,
            buffer: Vec::new(),
            flushed: 0,
            len: 0,
        }
    }
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.buffer.extend_from_slice(data);
        self.len += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let mut state = self.state.lock();
        let start = usize::try_from(self.flushed)
            .map_err(|_| io_error(&self.path, ErrorKind::InvalidInput, "offset too large"))?;
        let end = start + self.buffer.len();
        let old_len = state.file(&self.path, self.id)?.os.len();
        if let Some(capacity) = state.capacity {
            // Only growth of the file uses new space; overwriting in place does not.
            let growth = end.saturating_sub(old_len) as u64;
            if state.used_bytes() + growth > capacity {
                return Err(io_error(&self.path, ErrorKind::StorageFull, "disk full"));
            }
        }
        let file = state.file_mut(&self.path, self.id)?;
        if file.os.len() < end {
            // A file truncated behind the writer's back gets a zero-filled hole, as on Unix.
            file.os.resize(end, 0);
        }
        file.os[start..end].copy_from_slice(&self.buffer);
        self.flushed = end as u64;
        self.buffer.clear();
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.flush()?;
        let mut state = self.state.lock();
        let file = state.file_mut(&self.path, self.id)?;
        file.durable = file.os.clone();
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl Drop for MemWritable {
    fn drop(&mut self) {
        // Unflushed bytes are lost, exactly like a process buffer that is never written.
        self.state.lock().release(self.id);
    }
}

/// A reader. Its length is taken at open (like `LocalFs`), its reads see the current bytes.
pub(super) struct MemReadable {
    state: Arc<Mutex<State>>,
    path: PathBuf,
    id: FileId,
    len: u64,
}

impl MemReadable {
    /// Takes a handle on `id`; the caller holds no lock.
    pub fn open(state: Arc<Mutex<State>>, path: PathBuf, id: FileId) -> Result<Self> {
        let len = {
            let mut guard = state.lock();
            let len = guard.file(&path, id)?.os.len() as u64;
            guard.acquire(id);
            len
        };
        Ok(MemReadable {
            state,
            path,
            id,
            len,
        })
    }
}

impl RandomAccessFile for MemReadable {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let state = self.state.lock();
        let data = &state.file(&self.path, self.id)?.os;
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(len)?))
            .filter(|r| r.end <= data.len());
        match range {
            Some(r) => Ok(data[r].to_vec()),
            None => Err(io_error(
                &self.path,
                ErrorKind::UnexpectedEof,
                "read past end of file",
            )),
        }
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl Drop for MemReadable {
    fn drop(&mut self) {
        self.state.lock().release(self.id);
    }
}
