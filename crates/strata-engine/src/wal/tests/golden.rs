//! Pins WAL format version 1 byte for byte.

use std::sync::Arc;

use crate::cell::{Cell, CellType};
use crate::fs::{FileSystem, LocalFs};
use crate::options::Durability;
use crate::wal::tests::support::{open, opts, segment_path};
use crate::wal::WalEdit;

#[test]
fn segment_bytes_are_format_v1() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (wal, replayed) = open(Arc::clone(&fs), dir.path(), opts(1 << 20)).unwrap();
    assert!(replayed.is_empty());
    let edit = WalEdit::new(
        7,
        300,
        vec![
            Cell::put("row", "cf", "q", 1000, "val"),
            Cell::delete("row", "cf", "q2", 999, CellType::DeleteColumn),
        ],
    );
    wal.append(&edit, Durability::FsyncWal).unwrap();
    wal.close().unwrap();

    #[rustfmt::skip]
    let expected: Vec<u8> = [
        // Segment header: magic, version 1, segment number 1, CRC32C of the 20 bytes before.
        &b"STRATWAL"[..],
        &[1, 0, 0, 0],
        &[1, 0, 0, 0, 0, 0, 0, 0],
        &[0x85, 0x37, 0x0c, 0x57],
        // Record header: payload length 46, CRC32C(type | payload), type 1 (edit).
        &[46, 0, 0, 0],
        &[0xb4, 0xd3, 0xfc, 0x67],
        &[1],
        // Payload: region 7, seq 300 (varint ac 02), 2 cells.
        &[7, 0xac, 0x02, 2],
        // Cell 1: row, family, qualifier, timestamp 1000 (i64 LE), Put (4), value.
        &[3], b"row", &[2], b"cf", &[1], b"q",
        &[0xe8, 0x03, 0, 0, 0, 0, 0, 0], &[4], &[3], b"val",
        // Cell 2: DeleteColumn (12) at 999 with an empty value.
        &[3], b"row", &[2], b"cf", &[2], b"q2",
        &[0xe7, 0x03, 0, 0, 0, 0, 0, 0], &[12], &[0],
    ]
    .concat();
    let actual = fs.read_all(&segment_path(dir.path(), 1)).unwrap();
    assert_eq!(actual, expected, "actual bytes: {actual:02x?}");
}
