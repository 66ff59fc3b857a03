//! Reads one segment's records and tells a torn tail (a crash or a failed write cut the
//! segment short) apart from corruption in the middle of the segment.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use super::format::{
    check_segment_header, RecordHeader, MAX_RECORD_LEN, RECORD_HEADER_LEN, RECORD_TYPE_EDIT,
    SEGMENT_HEADER_LEN,
};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RandomAccessFile};

/// Records are read through a window of at least this many bytes, so replaying many small
/// records costs one read per window rather than two per record.
const READ_WINDOW: usize = 1 << 20;

/// What the segment header looks like.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HeaderState {
    /// Valid; records start right after it.
    Valid,
    /// The file is shorter than a header (a crash right after creation).
    Torn,
    /// A full-length header that fails its checks; the reason.
    Bad(String),
}

/// How a segment's record sequence ends.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SegmentEnd {
    /// Every byte belongs to a complete, valid record.
    Clean,
    /// The segment ends in a torn record starting at `offset`; everything before it is valid.
    Torn { offset: u64, reason: String },
}

/// One step through the record sequence.
enum Step {
    Record {
        record_type: u8,
        payload: Bytes,
        next: u64,
    },
    Eof,
    /// The record header or payload runs past the end of the file.
    PastEnd(String),
    /// Fully inside the file but damaged; `next` is where its length says the next one starts.
    Damaged {
        reason: String,
        next: u64,
    },
}

/// A sequential reader over one segment file.
pub(crate) struct SegmentReader {
    path: PathBuf,
    file: Arc<dyn RandomAccessFile>,
    len: u64,
    window_start: u64,
    window: Vec<u8>,
}

impl SegmentReader {
    /// Opens the segment at `path`.
    pub(crate) fn open(fs: &dyn FileSystem, path: &Path) -> Result<Self> {
        let file = fs.open_read(path)?;
        let len = file.len();
        Ok(SegmentReader {
            path: path.to_path_buf(),
            file,
            len,
            window_start: 0,
            window: Vec::new(),
        })
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Checks the header against the segment number from the file name.
    pub(crate) fn header_state(&mut self, number: u64) -> Result<HeaderState> {
        if self.len < SEGMENT_HEADER_LEN as u64 {
            return Ok(HeaderState::Torn);
        }
        let header = self.read(0, SEGMENT_HEADER_LEN)?;
        Ok(match check_segment_header(header, number) {
            Ok(()) => HeaderState::Valid,
            Err(reason) => HeaderState::Bad(reason),
        })
    }

    /// Calls `on_record(offset, payload)` for every valid edit record after the header, in
    /// order. A damaged record followed by a valid one is `Error::Corruption`; a damaged
    /// record with nothing valid after it is a torn tail, returned for the caller to cut off.
    pub(crate) fn read_records(
        &mut self,
        on_record: &mut dyn FnMut(u64, Bytes) -> Result<()>,
    ) -> Result<SegmentEnd> {
        let mut offset = SEGMENT_HEADER_LEN as u64;
        loop {
            match self.step(offset)? {
                Step::Eof => return Ok(SegmentEnd::Clean),
                Step::PastEnd(reason) => return Ok(SegmentEnd::Torn { offset, reason }),
                Step::Record {
                    record_type,
                    payload,
                    next,
                } => {
                    self.check_type(offset, record_type)?;
                    on_record(offset, payload)?;
                    offset = next;
                }
                Step::Damaged { reason, next } => {
                    return self.classify_damage(offset, reason, next);
                }
            }
        }
    }

    /// A damaged record at `offset` is a torn tail only if no valid record follows it. Later
    /// records are found by following length fields, so each byte is checksummed at most
    /// once and the walk is linear in the file size.
    fn classify_damage(
        &mut self,
        offset: u64,
        reason: String,
        mut next: u64,
    ) -> Result<SegmentEnd> {
        loop {
            match self.step(next)? {
                Step::Eof | Step::PastEnd(_) => return Ok(SegmentEnd::Torn { offset, reason }),
                Step::Damaged { next: after, .. } => next = after,
                Step::Record { .. } => {
                    let reason = format!("{reason}, and a valid record follows at offset {next}");
                    return Err(Error::corruption(&self.path, offset, reason));
                }
            }
        }
    }

    fn check_type(&self, offset: u64, record_type: u8) -> Result<()> {
        if record_type == RECORD_TYPE_EDIT {
            return Ok(());
        }
        let reason = format!("unknown record type {record_type}");
        Err(Error::corruption(&self.path, offset, reason))
    }

    fn step(&mut self, offset: u64) -> Result<Step> {
        let remaining = self.len.saturating_sub(offset);
        if remaining == 0 {
            return Ok(Step::Eof);
        }
        if remaining < RECORD_HEADER_LEN as u64 {
            return Ok(Step::PastEnd(format!(
                "record header cut off after {remaining} bytes"
            )));
        }
        let header = RecordHeader::decode(self.read(offset, RECORD_HEADER_LEN)?)
            .ok_or_else(|| Error::corruption(&self.path, offset, "short record header read"))?;
        let body = remaining - RECORD_HEADER_LEN as u64;
        let next = offset + RECORD_HEADER_LEN as u64 + u64::from(header.len);
        if u64::from(header.len) > body {
            let reason = format!(
                "record of {} bytes runs past the end ({body} left)",
                header.len
            );
            return Ok(Step::PastEnd(reason));
        }
        if header.len as usize > MAX_RECORD_LEN {
            let reason = format!("record length {} exceeds the limit", header.len);
            return Ok(Step::Damaged { reason, next });
        }
        let payload = self.read(offset + RECORD_HEADER_LEN as u64, header.len as usize)?;
        if !header.checksum_matches(payload) {
            let reason = "record checksum mismatch".to_string();
            return Ok(Step::Damaged { reason, next });
        }
        let payload = Bytes::copy_from_slice(payload);
        Ok(Step::Record {
            record_type: header.record_type,
            payload,
            next,
        })
    }

    /// Returns `n` bytes at `offset`; the caller has checked they lie inside the file.
    fn read(&mut self, offset: u64, n: usize) -> Result<&[u8]> {
        let window_end = self.window_start + self.window.len() as u64;
        if offset < self.window_start || offset + n as u64 > window_end {
            let want = n.max(READ_WINDOW) as u64;
            let len = want.min(self.len - offset) as usize;
            self.window = self.file.read_at(offset, len)?;
            self.window_start = offset;
        }
        let start = (offset - self.window_start) as usize;
        self.window
            .get(start..start + n)
            .ok_or_else(|| Error::corruption(&self.path, offset, "short read inside the file"))
    }
}
