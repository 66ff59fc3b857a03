//! One WAL edit: every cell of one region's write batch, so a batch is all-or-nothing on
//! replay.
//!
//! Payload encoding (record type 1):
//!
//! ```text
//! edit := region_id: varint | seq: varint | cell_count: varint | cell*
//! cell := row: bytes | family: bytes | qualifier: bytes | timestamp: i64 LE
//!         | type: u8 (HBase code) | value: bytes
//! bytes := len: varint | raw[len]
//! ```

use bytes::Bytes;

use crate::cell::{Cell, CellType};
use crate::util::coding::{put_len_prefixed, put_u64_le, put_varint, Decoder};

/// The smallest encoded cell: four empty byte strings (one length byte each), the timestamp
/// and the type. Bounds the cell count before the cell vector is allocated.
const MIN_ENCODED_CELL_LEN: usize = 4 + 8 + 1;

/// One region's write batch as it is logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalEdit {
    /// The region the batch belongs to.
    pub region_id: u64,
    /// The batch's sequence id; every cell's `seq` equals it after a decode.
    pub seq: u64,
    /// The batch's cells, in the order they were written.
    pub cells: Vec<Cell>,
}

impl WalEdit {
    /// An edit of `cells` for `region_id` at `seq`.
    pub fn new(region_id: u64, seq: u64, cells: Vec<Cell>) -> Self {
        WalEdit {
            region_id,
            seq,
            cells,
        }
    }

    /// Appends the payload encoding to `buf`. Cells' own `seq` fields are not stored: the
    /// edit's seq is the one that counts.
    pub fn encode_payload(&self, buf: &mut Vec<u8>) {
        buf.reserve(self.estimated_len());
        put_varint(buf, self.region_id);
        put_varint(buf, self.seq);
        put_varint(buf, self.cells.len() as u64);
        for cell in &self.cells {
            put_len_prefixed(buf, &cell.row);
            put_len_prefixed(buf, &cell.family);
            put_len_prefixed(buf, &cell.qualifier);
            put_u64_le(buf, cell.timestamp as u64);
            buf.push(cell.cell_type.code());
            put_len_prefixed(buf, &cell.value);
        }
    }

    /// An upper bound on the encoded payload size, for reserving buffer space.
    fn estimated_len(&self) -> usize {
        let cells: usize = self
            .cells
            .iter()
            .map(|c| c.row.len() + c.family.len() + c.qualifier.len() + c.value.len() + 49)
            .sum();
        30 + cells
    }

    /// Decodes a payload. Cells share `payload`'s memory. `Err` carries the reason; the
    /// caller adds the file and offset.
    pub fn decode_payload(payload: &Bytes) -> Result<WalEdit, String> {
        let mut d = Decoder::new(payload);
        let region_id = d.varint().ok_or("truncated region id")?;
        let seq = d.varint().ok_or("truncated seq")?;
        let count = d.varint().ok_or("truncated cell count")?;
        // Every cell takes at least MIN_ENCODED_CELL_LEN bytes, so a larger count is a lie.
        let max_cells = d.remaining() / MIN_ENCODED_CELL_LEN;
        let count = usize::try_from(count)
            .ok()
            .filter(|&n| n <= max_cells)
            .ok_or_else(|| {
                format!(
                    "cell count {count} exceeds what {} bytes can hold",
                    d.remaining()
                )
            })?;
        let mut cells = Vec::with_capacity(count);
        for i in 0..count {
            cells.push(decode_cell(&mut d, payload, seq).map_err(|e| format!("cell {i}: {e}"))?);
        }
        if !d.is_empty() {
            return Err(format!(
                "{} trailing bytes after the last cell",
                d.remaining()
            ));
        }
        Ok(WalEdit {
            region_id,
            seq,
            cells,
        })
    }
}

fn decode_cell(d: &mut Decoder<'_>, payload: &Bytes, seq: u64) -> Result<Cell, String> {
    let row = take_bytes(d, payload).ok_or("truncated row")?;
    let family = take_bytes(d, payload).ok_or("truncated family")?;
    let qualifier = take_bytes(d, payload).ok_or("truncated qualifier")?;
    let timestamp = d.i64_le().ok_or("truncated timestamp")?;
    let code = d.u8().ok_or("truncated cell type")?;
    let cell_type =
        CellType::from_code(code).ok_or_else(|| format!("unknown cell type code {code}"))?;
    let value = take_bytes(d, payload).ok_or("truncated value")?;
    Ok(Cell {
        row,
        family,
        qualifier,
        timestamp,
        cell_type,
        seq,
        value,
    })
}

/// Reads a length-prefixed byte string as a zero-copy slice of `payload`.
fn take_bytes(d: &mut Decoder<'_>, payload: &Bytes) -> Option<Bytes> {
    let len = usize::try_from(d.varint()?).ok()?;
    let start = d.position();
    d.bytes(len)?;
    Some(payload.slice(start..start + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> WalEdit {
        WalEdit::new(
            3,
            77,
            vec![
                Cell::put("r1", "f", "q", 10, "v"),
                Cell::delete("r2", "f", "ignored", 11, CellType::DeleteFamily),
                Cell::put("r3", "f", "", 0, ""),
            ],
        )
    }

    fn encode(edit: &WalEdit) -> Bytes {
        let mut buf = Vec::new();
        edit.encode_payload(&mut buf);
        Bytes::from(buf)
    }

    #[test]
    fn round_trip_sets_cell_seq_to_edit_seq() {
        let edit = sample();
        let decoded = WalEdit::decode_payload(&encode(&edit)).unwrap();
        assert_eq!(decoded.region_id, 3);
        assert_eq!(decoded.seq, 77);
        let mut expected = edit.cells.clone();
        expected.iter_mut().for_each(|c| c.seq = 77);
        assert_eq!(decoded.cells, expected);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode(&sample());
        for len in 0..bytes.len() {
            assert!(
                WalEdit::decode_payload(&bytes.slice(..len)).is_err(),
                "len {len}"
            );
        }
    }

    #[test]
    fn bad_type_code_trailing_bytes_and_huge_count_are_errors() {
        let edit = WalEdit::new(1, 2, vec![Cell::put("r", "f", "q", 5, "v")]);
        let mut raw = encode(&edit).to_vec();
        // region(1) seq(1) count(1) row(2) family(2) qualifier(2) timestamp(8) -> type byte.
        let type_at = 3 + 6 + 8;
        assert_eq!(raw[type_at], CellType::Put.code());
        raw[type_at] = 5;
        let err = WalEdit::decode_payload(&Bytes::from(raw.clone())).unwrap_err();
        assert!(err.contains("unknown cell type code 5"), "{err}");

        let mut trailing = encode(&edit).to_vec();
        trailing.push(0);
        assert!(WalEdit::decode_payload(&Bytes::from(trailing)).is_err());

        let mut huge = Vec::new();
        put_varint(&mut huge, 1);
        put_varint(&mut huge, 2);
        put_varint(&mut huge, u64::MAX);
        let err = WalEdit::decode_payload(&Bytes::from(huge)).unwrap_err();
        assert!(err.contains("cell count"), "{err}");
    }
}
