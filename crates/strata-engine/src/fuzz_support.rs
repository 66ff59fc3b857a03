//! Entry points for the fuzz targets (`fuzz/`) and their stable corpus replay
//! (`tests/fuzz_corpus_test.rs`): each takes arbitrary bytes, runs one on-disk decoder over
//! them through [`MemFs`], and panics only when an invariant breaks. A clean error
//! (corruption) is an acceptable outcome; a panic, hang or huge allocation is a bug.
//!
//! Not part of the engine's API for other crates: it exists so the fuzzers reach the
//! crate-private WAL reader and recovery.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::error::Result;
use crate::fs::{FileSystem, MemFs};
use crate::iter::KvIter;
use crate::table::block::{Block, BlockBuilder, BlockIter, PREFIX_RESTART_INTERVAL};
use crate::table::index::DecodedIndex;
use crate::table::{CachePolicy, TableReader};
use crate::wal::format::segment_file_name;
use crate::wal::recovery::recover;
use crate::wal::WalEdit;

/// Entries read from one fuzzed block or table, at most: keeps a run bounded.
const MAX_ENTRIES: usize = 100_000;

/// Decodes `payload` as a WAL edit. Invariants: whatever decodes re-encodes to at most as
/// many bytes, and the re-encoding decodes to the same edit. (Not byte-identical: the
/// varint decoder accepts over-long encodings, which Strata never writes; found by this
/// target, see docs/reliability-fuzz.md.)
pub fn wal_edit(payload: &[u8]) {
    let payload = Bytes::copy_from_slice(payload);
    if let Ok(edit) = WalEdit::decode_payload(&payload) {
        let mut again = Vec::new();
        edit.encode_payload(&mut again);
        assert!(again.len() <= payload.len(), "re-encoding grew the edit");
        let decoded = WalEdit::decode_payload(&Bytes::from(again));
        assert_eq!(
            decoded.as_ref(),
            Ok(&edit),
            "a re-encoded WAL edit decodes differently"
        );
        assert!(edit.cells.iter().all(|c| c.seq == edit.seq));
    }
}

/// Replays `bytes` as the only segment of a WAL directory (the recovery run at open).
/// Invariants: every replayed edit re-encodes to a record payload; recovery either fails
/// with corruption or leaves a segment that a second recovery replays identically and
/// without further repair.
pub fn wal_segment(bytes: &[u8]) {
    let fs = MemFs::new();
    let dir = PathBuf::from("/wal");
    let path = dir.join(segment_file_name(1));
    if write_file(&fs, &dir, &path, bytes).is_err() {
        return;
    }
    let Ok((first, size)) = replay(&fs, &dir) else {
        return;
    };
    assert!(size <= bytes.len() as u64, "recovery grew the segment");
    let (second, size_again) = match replay(&fs, &dir) {
        Ok(done) => done,
        Err(e) => panic!("a repaired segment fails a second recovery: {e}"),
    };
    assert_eq!(first, second, "a second recovery replays different edits");
    assert_eq!(size, size_again, "a second recovery repairs again");
}

/// The edits replayed from `dir` and the surviving segment's size (0 if it was removed).
fn replay(fs: &MemFs, dir: &Path) -> Result<(Vec<WalEdit>, u64)> {
    let mut edits = Vec::new();
    let recovered = recover(fs, dir, &mut |edit| {
        edits.push(edit);
        Ok(())
    })?;
    for edit in &edits {
        let mut payload = Vec::new();
        edit.encode_payload(&mut payload);
        wal_edit(&payload);
    }
    let size = recovered.segments.iter().map(|s| s.size).sum();
    Ok((edits, size))
}

/// Parses `bytes` as a raw (unframed) data or index block and walks it. Invariants: the walk
/// ends; when the keys come out strictly increasing, a block rebuilt from them by the
/// builder finds each key by seeking, with and without the prefix index. (Seeking in the
/// fuzzed block itself is not checked: the reader trusts restart offsets, which the block's
/// CRC protects; see docs/reliability-fuzz.md.)
pub fn sst_block(bytes: &[u8]) {
    let Ok(block) = Block::new(Bytes::copy_from_slice(bytes), Arc::from(Path::new("b")), 0) else {
        return;
    };
    for i in 0..3 {
        let mut iter = BlockIter::new(block.clone());
        let _ = iter.seek(&bytes[..bytes.len().min(i * 4)]);
    }
    let Ok(entries) = walk(BlockIter::new(block)) else {
        return;
    };
    if entries.is_empty() || !entries.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    let mut builder = BlockBuilder::new(PREFIX_RESTART_INTERVAL);
    for (key, value) in &entries {
        builder.add(key, value);
    }
    let rebuilt = Bytes::from(builder.finish());
    let rebuilt = match Block::new(rebuilt, Arc::from(Path::new("b")), 0) {
        Ok(b) => b,
        Err(e) => panic!("a built block does not parse: {e}"),
    };
    for indexed in [false, true] {
        let block = if indexed {
            match rebuilt.clone().with_prefix_index() {
                Ok(b) => b,
                Err(e) => panic!("a built block has no prefix index: {e}"),
            }
        } else {
            rebuilt.clone()
        };
        for (key, value) in &entries {
            let mut iter = BlockIter::new(block.clone());
            if let Err(e) = iter.seek(key) {
                panic!("seek in a built block: {e}");
            }
            assert!(iter.valid(), "seek to a present key ran off the block");
            assert_eq!(
                iter.key(),
                &key[..],
                "seek to a present key (prefix index {indexed})"
            );
            assert_eq!(iter.value(), &value[..]);
        }
    }
}

fn walk(mut iter: BlockIter) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut out = Vec::new();
    iter.seek_to_first()?;
    while iter.valid() && out.len() < MAX_ENTRIES {
        out.push((iter.key().to_vec(), iter.value().to_vec()));
        iter.advance()?;
    }
    Ok(out)
}

/// Decodes `bytes` as a raw index block. Invariants: keys strictly increase and a lower-bound
/// search for each key finds its own entry.
pub fn sst_index(bytes: &[u8]) {
    let path = Path::new("i");
    let Ok(block) = Block::new(Bytes::copy_from_slice(bytes), Arc::from(path), 0) else {
        return;
    };
    let Ok(index) = DecodedIndex::decode(block, path) else {
        return;
    };
    for i in 0..index.len() {
        if i > 0 {
            assert!(index.key(i - 1) < index.key(i), "index keys out of order");
        }
        assert_eq!(index.lower_bound(index.key(i)), i, "lower bound of key {i}");
        assert!(index.handle(i).is_some());
    }
    assert!(index.handle(index.len()).is_none());
}

/// Opens `bytes` as a whole SSTable and reads every entry. Invariants: entries come out in
/// strictly increasing key order, and seeking to each one finds it.
pub fn sst_file(bytes: &[u8]) {
    let fs = MemFs::new();
    let dir = PathBuf::from("/t");
    let path = dir.join("1.sst");
    if write_file(&fs, &dir, &path, bytes).is_err() {
        return;
    }
    let Ok(file) = fs.open_read(&path) else {
        return;
    };
    let Ok(table) = TableReader::open(file, path, None, CachePolicy::default()) else {
        return;
    };
    let mut iter = table.iter();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut step = iter.seek_to_first();
    while step.is_ok() && iter.valid() && keys.len() < MAX_ENTRIES {
        if let Some(last) = keys.last() {
            assert!(last.as_slice() < iter.key(), "table keys out of order");
        }
        keys.push(iter.key().to_vec());
        step = iter.next();
    }
    if step.is_err() {
        return;
    }
    for key in keys.iter().take(64) {
        let mut iter = table.iter();
        if iter.seek(key).is_ok() {
            assert!(
                iter.valid() && iter.key() == key.as_slice(),
                "seek missed a key"
            );
        }
    }
    let _ = table.may_contain_row(b"row");
}

fn write_file(fs: &MemFs, dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    fs.create_dir_all(dir)?;
    let mut file = fs.create(path)?;
    file.append(bytes)?;
    file.sync()?;
    fs.sync_dir(dir)
}
