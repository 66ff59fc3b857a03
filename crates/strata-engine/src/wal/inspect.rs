//! Offline inspection of one WAL segment, for `strata check` and `strata wal dump`: the same
//! reader as replay, without repairing anything (a torn tail is reported, not truncated).

use std::path::Path;

use super::edit::WalEdit;
use super::format::{parse_segment_file_name, SEGMENT_HEADER_LEN};
use super::reader::{HeaderState, SegmentEnd, SegmentReader};
use crate::error::{Error, Result};
use crate::fs::FileSystem;

/// What reading a segment found, when it holds no corruption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentSummary {
    /// The segment number (from the file name, else from the header).
    pub number: u64,
    pub size: u64,
    pub records: u64,
    /// The file is shorter than a header: a crash right after creation.
    pub torn_header: bool,
    /// A torn last record (offset, reason): a crash mid-write; replay cuts it off.
    pub torn_tail: Option<(u64, String)>,
}

/// Reads every record of the segment at `path`, calling `on_edit(offset, edit)`.
/// Corruption (a bad header, a damaged record followed by a valid one, an undecodable
/// edit) is `Error::Corruption` naming the file and offset.
pub fn inspect_segment(
    fs: &dyn FileSystem,
    path: &Path,
    on_edit: &mut dyn FnMut(u64, WalEdit),
) -> Result<SegmentSummary> {
    let mut reader = SegmentReader::open(fs, path)?;
    let number = segment_number(fs, path)?;
    let mut summary = SegmentSummary {
        number,
        size: reader.len(),
        records: 0,
        torn_header: false,
        torn_tail: None,
    };
    match reader.header_state(number)? {
        HeaderState::Valid => {}
        HeaderState::Torn => {
            summary.torn_header = true;
            return Ok(summary);
        }
        HeaderState::Bad(reason) => return Err(Error::corruption(path, 0, reason)),
    }
    let mut on_record = |offset: u64, payload: bytes::Bytes| -> Result<()> {
        let edit = WalEdit::decode_payload(&payload)
            .map_err(|reason| Error::corruption(path, offset, reason))?;
        summary.records += 1;
        on_edit(offset, edit);
        Ok(())
    };
    let end = reader.read_records(&mut on_record)?;
    if let SegmentEnd::Torn { offset, reason } = end {
        summary.torn_tail = Some((offset, reason));
    }
    Ok(summary)
}

/// The number in a `wal-<N>.log` name; for a renamed copy, the number in its header.
fn segment_number(fs: &dyn FileSystem, path: &Path) -> Result<u64> {
    let from_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_segment_file_name);
    if let Some(number) = from_name {
        return Ok(number);
    }
    let file = fs.open_read(path)?;
    if file.len() < SEGMENT_HEADER_LEN as u64 {
        return Err(Error::corruption(path, 0, "shorter than a segment header"));
    }
    let header = file.read_at(0, SEGMENT_HEADER_LEN)?;
    let mut number = [0u8; 8];
    number.copy_from_slice(&header[12..20]);
    Ok(u64::from_le_bytes(number))
}
