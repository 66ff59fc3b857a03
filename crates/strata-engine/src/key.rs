//! The internal key: how a cell's coordinates are laid out as bytes inside one store (one column
//! family), so that plain byte comparison gives HBase's sort order:
//! row ascending, qualifier ascending, timestamp descending, type code descending (delete markers
//! before puts), sequence id descending (the newest write first).
//!
//! Layout (specified in docs/format.md):
//! `escape(row) 00 01 escape(qualifier) 00 01 !ts:u64be !type:u8 !seq:u64be`
//! where `escape` doubles every 0x00 byte as `00 FF`. The `00 01` terminator sorts below any
//! escaped continuation, so a row is ordered before every longer row that extends it.

use crate::cell::CellType;

/// Bytes after the escaped row and qualifier: timestamp, type, sequence id.
pub const KEY_SUFFIX_LEN: usize = 8 + 1 + 8;

const ESCAPE: u8 = 0xFF;
const TERM: u8 = 0x01;

/// The escaped form of an empty row or qualifier.
pub const ESCAPED_EMPTY: &[u8] = &[0, TERM];

fn put_escaped(buf: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        buf.push(b);
        if b == 0 {
            buf.push(ESCAPE);
        }
    }
    buf.push(0);
    buf.push(TERM);
}

/// The escaped form of one key component (row or qualifier), terminator included.
pub fn escape_component(bytes: &[u8]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(bytes.len() + 2);
    put_escaped(&mut buf, bytes);
    buf
}

/// Decodes an escaped row prefix (as returned by [`row_prefix_of`]) back to the row.
pub fn unescape_row(prefix: &[u8]) -> Option<Vec<u8>> {
    let (row, end) = take_escaped(prefix, 0)?;
    (end == prefix.len()).then_some(row)
}

/// Appends the internal key for a cell to `buf`.
pub fn encode_key(
    buf: &mut Vec<u8>,
    row: &[u8],
    qualifier: &[u8],
    ts: i64,
    cell_type: CellType,
    seq: u64,
) {
    buf.reserve(row.len() + qualifier.len() + 4 + KEY_SUFFIX_LEN);
    put_escaped(buf, row);
    put_escaped(buf, qualifier);
    buf.extend_from_slice(&(!(ts as u64)).to_be_bytes());
    buf.push(!cell_type.code());
    buf.extend_from_slice(&(!seq).to_be_bytes());
}

/// The internal key for a cell, as a fresh vector.
pub fn make_key(row: &[u8], qualifier: &[u8], ts: i64, cell_type: CellType, seq: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    encode_key(&mut buf, row, qualifier, ts, cell_type, seq);
    buf
}

/// The prefix shared by every key of `row`. Every key of the row is >= it.
pub fn row_prefix(row: &[u8]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(row.len() + 2);
    put_escaped(&mut buf, row);
    buf
}

/// The smallest byte string greater than every key of `row` and smaller than every key of any
/// later row. The escaped form never contains `00 02`, so it is not itself a key prefix.
pub fn row_end(row: &[u8]) -> Vec<u8> {
    let mut buf = row_prefix(row);
    if let Some(last) = buf.last_mut() {
        *last = TERM + 1;
    }
    buf
}

/// The smallest key of column (`row`, `qualifier`): the newest possible version.
pub fn column_start(row: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut buf = row_prefix(row);
    put_escaped(&mut buf, qualifier);
    buf
}

/// The smallest byte string greater than every key of column (`row`, `qualifier`).
#[cfg(test)]
pub fn column_end(row: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut buf = column_start(row, qualifier);
    if let Some(last) = buf.last_mut() {
        *last = TERM + 1;
    }
    buf
}

/// A decoded internal key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedKey {
    pub row: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub timestamp: i64,
    pub cell_type: CellType,
    pub seq: u64,
}

/// Reads one escaped field starting at `pos`; returns the field and the position after it.
fn take_escaped(key: &[u8], mut pos: usize) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    loop {
        let b = *key.get(pos)?;
        if b != 0 {
            out.push(b);
            pos += 1;
            continue;
        }
        match *key.get(pos + 1)? {
            ESCAPE => out.push(0),
            TERM => return Some((out, pos + 2)),
            _ => return None,
        }
        pos += 2;
    }
}

/// Length of the escaped row (including its terminator) at the start of `key`.
pub fn row_prefix_len(key: &[u8]) -> Option<usize> {
    let mut pos = 0;
    loop {
        let b = *key.get(pos)?;
        if b != 0 {
            pos += 1;
            continue;
        }
        match *key.get(pos + 1)? {
            ESCAPE => pos += 2,
            TERM => return Some(pos + 2),
            _ => return None,
        }
    }
}

/// Decodes an internal key; `None` means the bytes are not a well-formed key.
pub fn parse_key(key: &[u8]) -> Option<ParsedKey> {
    let (row, pos) = take_escaped(key, 0)?;
    let (qualifier, pos) = take_escaped(key, pos)?;
    let suffix = key.get(pos..)?;
    if suffix.len() != KEY_SUFFIX_LEN {
        return None;
    }
    let ts = !u64::from_be_bytes(suffix[0..8].try_into().ok()?);
    let cell_type = CellType::from_code(!suffix[8])?;
    let seq = !u64::from_be_bytes(suffix[9..17].try_into().ok()?);
    Some(ParsedKey {
        row,
        qualifier,
        timestamp: ts as i64,
        cell_type,
        seq,
    })
}

/// The escaped row prefix of an encoded key (for bloom filters and row comparisons).
pub fn row_prefix_of(key: &[u8]) -> Option<&[u8]> {
    key.get(..row_prefix_len(key)?)
}

/// The escaped row and qualifier of an encoded key: everything but the fixed suffix.
pub fn column_prefix_of(key: &[u8]) -> Option<&[u8]> {
    key.get(..key.len().checked_sub(KEY_SUFFIX_LEN)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(row: &[u8], q: &[u8], ts: i64, t: CellType, seq: u64) -> Vec<u8> {
        make_key(row, q, ts, t, seq)
    }

    #[test]
    fn sort_order_matches_hbase() {
        let ordered = vec![
            k(b"a", b"", 5, CellType::DeleteFamily, 1),
            k(b"a", b"", 5, CellType::Put, 1),
            k(b"a", b"q", 9, CellType::Put, 1),
            k(b"a", b"q", 5, CellType::DeleteColumn, 1),
            k(b"a", b"q", 5, CellType::Delete, 1),
            k(b"a", b"q", 5, CellType::Put, 7),
            k(b"a", b"q", 5, CellType::Put, 3),
            k(b"a", b"q", 0, CellType::Put, 3),
            k(b"a", b"q\0", 9, CellType::Put, 1),
            k(b"a", b"qa", 9, CellType::Put, 1),
            k(b"a\0", b"", 9, CellType::Put, 1),
            k(b"ab", b"", 9, CellType::Put, 1),
            k(b"b", b"", i64::MAX, CellType::Put, u64::MAX),
        ];
        for pair in ordered.windows(2) {
            assert!(pair[0] < pair[1], "{:?} !< {:?}", pair[0], pair[1]);
        }
    }

    #[test]
    fn row_bounds_enclose_exactly_the_row() {
        let key = k(b"r", b"\0\0", 0, CellType::Put, 0);
        assert!(row_prefix(b"r") <= key && key < row_end(b"r"));
        assert!(row_end(b"r") < k(b"r\0", b"", i64::MAX, CellType::DeleteFamily, u64::MAX));
        assert!(row_end(b"r") < row_prefix(b"r\0"));
        let col = k(b"r", b"q", 3, CellType::Put, 1);
        assert!(column_start(b"r", b"q") <= col && col < column_end(b"r", b"q"));
        assert!(column_end(b"r", b"q") < k(b"r", b"q\0", i64::MAX, CellType::Put, 9));
    }

    #[test]
    fn parse_round_trip() {
        let key = k(b"r\0w", b"q\0", 12345, CellType::DeleteColumn, 99);
        let parsed = parse_key(&key).unwrap();
        assert_eq!(parsed.row, b"r\0w");
        assert_eq!(parsed.qualifier, b"q\0");
        assert_eq!(parsed.timestamp, 12345);
        assert_eq!(parsed.cell_type, CellType::DeleteColumn);
        assert_eq!(parsed.seq, 99);
        assert_eq!(row_prefix_of(&key), Some(&row_prefix(b"r\0w")[..]));
    }

    #[test]
    fn malformed_keys_are_rejected() {
        assert_eq!(parse_key(b""), None);
        assert_eq!(parse_key(b"abc"), None);
        assert_eq!(parse_key(&[b'a', 0, 7]), None);
        let mut key = k(b"r", b"q", 1, CellType::Put, 1);
        key.pop();
        assert_eq!(parse_key(&key), None);
    }
}
