//! Handles returned by a `FaultFs`: they consult the rules on every call, so a fault can hit
//! a file that was opened before the rule was added.

use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;

use super::injector::{check_and_wait, Injector, Verdict};
use super::FaultOp;
use crate::error::{Error, Result};
use crate::fs::{RandomAccessFile, WritableFile};

pub(super) struct FaultWritable {
    pub inner: Box<dyn WritableFile>,
    pub injector: Arc<Mutex<Injector>>,
    pub path: PathBuf,
    /// Appended bytes not yet charged against the disk-full budget.
    pub pending: u64,
}

impl FaultWritable {
    fn verdict(&self, op: FaultOp) -> Verdict {
        check_and_wait(&self.injector, op, &[&self.path])
    }

    /// Flush and sync are where bytes reach the disk, so that is where space runs out.
    fn charge_pending(&mut self, op: FaultOp) -> Result<()> {
        if self.pending == 0 {
            return Ok(());
        }
        if let Some(e) = self.injector.lock().charge(op, self.pending) {
            return Err(Error::io(&self.path, e));
        }
        self.pending = 0;
        Ok(())
    }

    fn guard(&mut self, op: FaultOp) -> Result<()> {
        match self.verdict(op) {
            Verdict::Fail(e) => Err(Error::io(&self.path, e)),
            _ => self.charge_pending(op),
        }
    }
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        match self.verdict(FaultOp::Append) {
            Verdict::Fail(e) => Err(Error::io(&self.path, e)),
            Verdict::TornAppend => {
                // Half the bytes make it into the file, then the write fails.
                let kept = &data[..data.len() / 2];
                self.inner.append(kept)?;
                self.pending += kept.len() as u64;
                let e = std::io::Error::other("injected torn append");
                Err(Error::io(&self.path, e))
            }
            Verdict::Pass | Verdict::CorruptRead | Verdict::Delay(_) => {
                self.inner.append(data)?;
                self.pending += data.len() as u64;
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> Result<()> {
        self.guard(FaultOp::Flush)?;
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        self.guard(FaultOp::Sync)?;
        self.inner.sync()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }
}

pub(super) struct FaultReadable {
    pub inner: Arc<dyn RandomAccessFile>,
    pub injector: Arc<Mutex<Injector>>,
    pub path: PathBuf,
}

impl RandomAccessFile for FaultReadable {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let verdict = check_and_wait(&self.injector, FaultOp::Read, &[&self.path]);
        match verdict {
            Verdict::Fail(e) => Err(Error::io(&self.path, e)),
            Verdict::CorruptRead => {
                let mut data = self.inner.read_at(offset, len)?;
                // One flipped bit in the middle: the smallest damage a checksum must catch.
                let middle = data.len() / 2;
                if let Some(byte) = data.get_mut(middle) {
                    *byte ^= 0x01;
                }
                Ok(data)
            }
            Verdict::Pass | Verdict::TornAppend | Verdict::Delay(_) => {
                self.inner.read_at(offset, len)
            }
        }
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }
}
