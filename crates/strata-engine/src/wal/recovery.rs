//! Replays every segment of a WAL directory at open, repairing torn tails.

use std::path::{Path, PathBuf};

use super::edit::WalEdit;
use super::format::{parse_segment_file_name, segment_file_name};
use super::reader::{HeaderState, SegmentEnd, SegmentReader};
use crate::error::{Error, Result};
use crate::fs::FileSystem;

/// A segment that survived replay; kept until `mark_flushed` deletes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SegmentMeta {
    pub number: u64,
    pub path: PathBuf,
    /// Highest edit seq in the segment; `None` when it holds no edit.
    pub max_seq: Option<u64>,
    pub size: u64,
}

/// What replay found.
#[derive(Debug)]
pub(crate) struct Recovered {
    /// Surviving segments, oldest first.
    pub segments: Vec<SegmentMeta>,
    /// The number for the next segment: above every number ever seen in the directory.
    pub next_number: u64,
    /// Edits passed to the callback.
    pub edits: u64,
}

/// Replays every segment in `dir` in number order, calling `on_edit` for each edit.
pub(crate) fn recover(
    fs: &dyn FileSystem,
    dir: &Path,
    on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
) -> Result<Recovered> {
    let mut numbers: Vec<u64> = fs
        .list(dir)?
        .iter()
        .filter_map(|name| parse_segment_file_name(name))
        .collect();
    numbers.sort_unstable();
    let mut recovered = Recovered {
        segments: Vec::new(),
        next_number: numbers.last().map_or(1, |n| n.saturating_add(1)),
        edits: 0,
    };
    for (i, &number) in numbers.iter().enumerate() {
        let newest = i + 1 == numbers.len();
        let path = dir.join(segment_file_name(number));
        if let Some(meta) =
            replay_segment(fs, &path, number, newest, &mut recovered.edits, on_edit)?
        {
            recovered.segments.push(meta);
        }
    }
    Ok(recovered)
}

/// Replays one segment. `None` when it was an unusable newest segment and was removed.
fn replay_segment(
    fs: &dyn FileSystem,
    path: &Path,
    number: u64,
    newest: bool,
    edits: &mut u64,
    on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
) -> Result<Option<SegmentMeta>> {
    let mut reader = SegmentReader::open(fs, path)?;
    match reader.header_state(number)? {
        HeaderState::Valid => {}
        state => return discard_unusable_newest(fs, path, newest, &reader, state).map(|()| None),
    }
    let mut max_seq: Option<u64> = None;
    let end = reader.read_records(&mut |offset, payload| {
        let edit = WalEdit::decode_payload(&payload)
            .map_err(|reason| Error::corruption(path, offset, format!("bad edit: {reason}")))?;
        max_seq = max_seq.max(Some(edit.seq));
        *edits += 1;
        on_edit(edit)
    })?;
    let size = match end {
        SegmentEnd::Clean => {
            // After a process crash the tail may be in the OS only. Replayed edits go to
            // memstores and are flushed store by store, so they must not be lost to a later
            // power cut: make the segment as read durable (`truncate` to its own length
            // syncs it).
            fs.truncate(path, reader.len())?;
            reader.len()
        }
        SegmentEnd::Torn { offset, reason } => {
            tracing::warn!(path = %path.display(), offset, %reason, "truncating torn WAL tail");
            fs.truncate(path, offset)?;
            offset
        }
    };
    Ok(Some(SegmentMeta {
        number,
        path: path.to_path_buf(),
        max_seq,
        size,
    }))
}

/// A newest segment whose header never made it to disk whole (a crash right after the file
/// was created) holds no edits and is removed. Anywhere else a bad header is corruption.
fn discard_unusable_newest(
    fs: &dyn FileSystem,
    path: &Path,
    newest: bool,
    reader: &SegmentReader,
    state: HeaderState,
) -> Result<()> {
    let reason = match state {
        HeaderState::Valid => return Ok(()),
        HeaderState::Torn => format!("segment header cut off at {} bytes", reader.len()),
        HeaderState::Bad(reason) => reason,
    };
    let header_only = reader.len() <= super::format::SEGMENT_HEADER_LEN as u64;
    if !(newest && header_only) {
        return Err(Error::corruption(path, 0, reason));
    }
    tracing::warn!(path = %path.display(), %reason, "removing WAL segment with a torn header");
    fs.remove(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    fs.sync_dir(dir)
}
