//! Cell blocks in HBase's `KeyValueCodec` layout (and `KeyValueCodecWithTags`).
//!
//! Each cell is `i32 length` then a KeyValue: `i32 key_len, i32 value_len, key, value`
//! (plus `i16 tags_len, tags` with tags), where the key is `i16 row_len, row, u8
//! family_len, family, qualifier, i64 timestamp, u8 type`. The qualifier's length is what
//! the key has left. Zero-copy: decoded cells slice the block they came from.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use strata_engine::{Cell, CellType};

use super::WireError;

/// Bytes of a key besides row, family and qualifier: lengths, timestamp, type.
const KEY_OVERHEAD: usize = 2 + 1 + 8 + 1;

/// Which of HBase's two KeyValue codecs a connection declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// `org.apache.hadoop.hbase.codec.KeyValueCodec` (the client's default).
    KeyValue,
    /// `org.apache.hadoop.hbase.codec.KeyValueCodecWithTags`: tags follow each value.
    KeyValueWithTags,
}

impl Codec {
    /// The codec a connection header names; `None` for a class Strata does not speak.
    pub fn from_class(class: &str) -> Option<Codec> {
        match class {
            "org.apache.hadoop.hbase.codec.KeyValueCodec" => Some(Codec::KeyValue),
            "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags" => Some(Codec::KeyValueWithTags),
            _ => None,
        }
    }
}

fn bad(message: impl Into<String>) -> WireError {
    WireError::CellBlock(message.into())
}

/// Decodes every cell of `block`.
pub fn decode(codec: Codec, mut block: Bytes) -> Result<Vec<Cell>, WireError> {
    let mut cells = Vec::new();
    while block.has_remaining() {
        cells.push(decode_one(codec, &mut block)?);
    }
    Ok(cells)
}

/// Decodes `count` cells from the front of `block`, leaving the rest in it.
pub fn take(codec: Codec, block: &mut Bytes, count: usize) -> Result<Vec<Cell>, WireError> {
    let mut cells = Vec::with_capacity(count.min(block.len() / 20 + 1));
    for _ in 0..count {
        if !block.has_remaining() {
            return Err(bad(format!(
                "expected {count} cells, found {}",
                cells.len()
            )));
        }
        cells.push(decode_one(codec, block)?);
    }
    Ok(cells)
}

fn take_bytes(block: &mut Bytes, len: usize, what: &str) -> Result<Bytes, WireError> {
    if block.remaining() < len {
        return Err(bad(format!("{what} runs past the end of the block")));
    }
    Ok(block.split_to(len))
}

fn decode_one(codec: Codec, block: &mut Bytes) -> Result<Cell, WireError> {
    let total = read_len(block, "cell length")?;
    let mut kv = take_bytes(block, total, "cell")?;
    let key_len = read_len(&mut kv, "key length")?;
    let value_len = read_len(&mut kv, "value length")?;
    let mut key = take_bytes(&mut kv, key_len, "key")?;
    let value = take_bytes(&mut kv, value_len, "value")?;
    if codec == Codec::KeyValueWithTags && kv.has_remaining() {
        if kv.remaining() < 2 {
            return Err(bad("tags length is cut short"));
        }
        let tags_len = usize::from(kv.get_u16());
        take_bytes(&mut kv, tags_len, "tags")?;
    }
    if kv.has_remaining() {
        return Err(bad(format!("{} bytes left over in a cell", kv.remaining())));
    }
    decode_key(&mut key, value)
}

fn read_len(buf: &mut Bytes, what: &str) -> Result<usize, WireError> {
    if buf.remaining() < 4 {
        return Err(bad(format!("{what} is cut short")));
    }
    let len = buf.get_i32();
    usize::try_from(len).map_err(|_| bad(format!("{what} is negative ({len})")))
}

fn decode_key(key: &mut Bytes, value: Bytes) -> Result<Cell, WireError> {
    if key.remaining() < KEY_OVERHEAD {
        return Err(bad("key is shorter than its fixed fields"));
    }
    let row_len = usize::from(key.get_u16());
    let row = take_bytes(key, row_len, "row")?;
    if !key.has_remaining() {
        return Err(bad("family length is missing"));
    }
    let family_len = usize::from(key.get_u8());
    let family = take_bytes(key, family_len, "family")?;
    let qualifier_len = key
        .remaining()
        .checked_sub(9)
        .ok_or_else(|| bad("timestamp and type are missing"))?;
    let qualifier = key.split_to(qualifier_len);
    let timestamp = key.get_i64();
    let code = key.get_u8();
    let cell_type =
        CellType::from_code(code).ok_or_else(|| bad(format!("unknown cell type {code}")))?;
    Ok(Cell {
        row,
        family,
        qualifier,
        timestamp,
        cell_type,
        seq: 0,
        value,
    })
}

/// Bytes `cell` takes in a block (without tags).
pub fn encoded_len(cell: &Cell) -> usize {
    4 + 8 + key_len(cell) + cell.value.len()
}

fn key_len(cell: &Cell) -> usize {
    KEY_OVERHEAD + cell.row.len() + cell.family.len() + cell.qualifier.len()
}

/// Appends `cell` to `out` (without tags, which Strata never stores). Rows and families
/// longer than the format allows were refused when written, so the narrowing casts hold.
pub fn encode(cell: &Cell, out: &mut BytesMut) {
    let key_len = key_len(cell);
    out.reserve(encoded_len(cell));
    out.put_i32((8 + key_len + cell.value.len()) as i32);
    out.put_i32(key_len as i32);
    out.put_i32(cell.value.len() as i32);
    out.put_u16(cell.row.len() as u16);
    out.put_slice(&cell.row);
    out.put_u8(cell.family.len() as u8);
    out.put_slice(&cell.family);
    out.put_slice(&cell.qualifier);
    out.put_i64(cell.timestamp);
    out.put_u8(cell.cell_type.code());
    out.put_slice(&cell.value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: &[u8], qualifier: &[u8], ts: i64, value: &[u8]) -> Cell {
        Cell::put(
            Bytes::copy_from_slice(row),
            Bytes::from_static(b"f"),
            Bytes::copy_from_slice(qualifier),
            ts,
            Bytes::copy_from_slice(value),
        )
    }

    #[test]
    fn cells_round_trip_through_a_block() {
        let cells = vec![
            cell(b"r1", b"q", 5, b"v"),
            cell(b"", b"", i64::MAX, b""),
            cell(&[0xff; 300], &[0u8; 70], -1, &[7u8; 1000]),
        ];
        let mut block = BytesMut::new();
        for c in &cells {
            encode(c, &mut block);
        }
        assert_eq!(block.len(), cells.iter().map(encoded_len).sum::<usize>());
        assert_eq!(decode(Codec::KeyValue, block.freeze()).unwrap(), cells);
    }

    #[test]
    fn a_known_cell_has_hbase_layout() {
        let mut block = BytesMut::new();
        encode(&cell(b"r", b"q", 1, b"v"), &mut block);
        let expected: &[u8] = &[
            0, 0, 0, 24, // cell length: 8 + key 15 + value 1
            0, 0, 0, 15, 0, 0, 0, 1, // key and value lengths
            0, 1, b'r', 1, b'f', b'q', // row, family, qualifier
            0, 0, 0, 0, 0, 0, 0, 1, 4, // timestamp, Put
            b'v',
        ];
        assert_eq!(&block[..], expected);
    }

    #[test]
    fn tags_are_skipped_with_the_tags_codec() {
        let mut block = BytesMut::new();
        encode(&cell(b"r", b"q", 1, b"v"), &mut block);
        let mut tagged = block.to_vec();
        tagged[3] += 5; // cell length covers two tag-length bytes and 3 tag bytes
        tagged.extend_from_slice(&[0, 3, 1, 2, 3]);
        let cells = decode(Codec::KeyValueWithTags, Bytes::from(tagged.clone())).unwrap();
        assert_eq!(cells, vec![cell(b"r", b"q", 1, b"v")]);
        assert!(decode(Codec::KeyValue, Bytes::from(tagged)).is_err());
    }

    #[test]
    fn truncated_and_inconsistent_blocks_are_refused() {
        let mut block = BytesMut::new();
        encode(&cell(b"row", b"qual", 1, b"value"), &mut block);
        let full = block.freeze();
        for cut in 0..full.len() {
            let result = decode(Codec::KeyValue, full.slice(..cut));
            assert!(cut == 0 || result.is_err(), "cut at {cut}");
        }
        let mut bad_type = full.to_vec();
        let type_at = full.len() - 6;
        bad_type[type_at] = 99;
        assert!(decode(Codec::KeyValue, Bytes::from(bad_type)).is_err());
    }

    #[test]
    fn take_reads_exactly_the_announced_cells() {
        let mut block = BytesMut::new();
        for i in 0..3u8 {
            encode(&cell(&[i], b"q", 1, b"v"), &mut block);
        }
        let mut block = block.freeze();
        let first_two = take(Codec::KeyValue, &mut block, 2).unwrap();
        assert_eq!(first_two.len(), 2);
        assert_eq!(
            take(Codec::KeyValue, &mut block, 1).unwrap()[0].row[..],
            [2]
        );
        assert!(take(Codec::KeyValue, &mut block, 1).is_err());
    }
}
