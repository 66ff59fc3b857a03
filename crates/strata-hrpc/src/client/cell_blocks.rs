//! Results' cells in the response's cell block. A client that names a cell codec in its
//! connection header (hbase-client always does: KeyValueCodec) is answered as HBase's
//! region server answers it: each Result keeps only the count of its cells
//! (`associated_cell_count`; for scans `cells_per_result` and `partial_flag_per_result`),
//! and the cells follow the message in KeyValue form, in the order the client reads the
//! results. Without a codec the cells stay in the message.

use bytes::{BufMut, BytesMut};
use prost::Message;

use crate::call::{Call, Reply};
use crate::pb;
use crate::wire::cellblock::Codec;

/// The cells of one response, gathered as its results are moved in.
pub struct ResponseCells {
    codec: Option<Codec>,
    block: BytesMut,
}

impl ResponseCells {
    /// For a response to `call`.
    pub fn for_call(call: &Call) -> ResponseCells {
        ResponseCells {
            codec: call.codec,
            block: BytesMut::new(),
        }
    }

    /// Moves `result`'s cells into the block (when the connection has a codec). A result
    /// that answers `exists` has no cells and is left alone.
    pub fn take(&mut self, result: &mut pb::Result) {
        if self.codec.is_none() || result.exists.is_some() {
            return;
        }
        let cells = std::mem::take(&mut result.cell);
        result.associated_cell_count = Some(count(cells.len()));
        cells.iter().for_each(|c| encode(c, &mut self.block));
    }

    /// Moves the cells of every result of a scan answer into the block.
    pub fn take_scan(&mut self, response: &mut pb::ScanResponse) {
        if self.codec.is_none() {
            return;
        }
        for result in std::mem::take(&mut response.results) {
            response
                .cells_per_result
                .push(count(result.cell.len()) as u32);
            response
                .partial_flag_per_result
                .push(result.partial.unwrap_or(false));
            result.cell.iter().for_each(|c| encode(c, &mut self.block));
        }
    }

    /// The reply: `message` and the block.
    pub fn reply(self, message: &impl Message) -> Reply {
        if self.block.is_empty() {
            Reply::message(message)
        } else {
            Reply::with_cells(message, self.block)
        }
    }
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Appends a protobuf cell in KeyValue form, without tags (Strata stores none, and
/// KeyValueCodecWithTags reads a cell without them). Rows and families longer than the
/// format allows were refused when written, so the narrowing casts hold.
fn encode(cell: &pb::Cell, out: &mut BytesMut) {
    let part = |b: &Option<bytes::Bytes>| b.clone().unwrap_or_default();
    let (row, family, qualifier, value) = (
        part(&cell.row),
        part(&cell.family),
        part(&cell.qualifier),
        part(&cell.value),
    );
    let key_len = 2 + row.len() + 1 + family.len() + qualifier.len() + 8 + 1;
    out.reserve(12 + key_len + value.len());
    out.put_i32((8 + key_len + value.len()) as i32);
    out.put_i32(key_len as i32);
    out.put_i32(value.len() as i32);
    out.put_u16(row.len() as u16);
    out.put_slice(&row);
    out.put_u8(family.len() as u8);
    out.put_slice(&family);
    out.put_slice(&qualifier);
    out.put_i64(cell.timestamp.unwrap_or(0) as i64);
    out.put_u8(cell.cell_type.unwrap_or(0) as u8);
    out.put_slice(&value);
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use strata_engine::Cell;

    use super::*;
    use crate::results;
    use crate::wire::cellblock;

    fn cells() -> Vec<Cell> {
        vec![
            Cell::put(
                b"r1".to_vec(),
                b"f".to_vec(),
                b"a".to_vec(),
                7,
                b"v1".to_vec(),
            ),
            Cell::delete(
                b"r1".to_vec(),
                b"f".to_vec(),
                b"b".to_vec(),
                9,
                strata_engine::CellType::DeleteColumn,
            ),
        ]
    }

    fn with_codec() -> ResponseCells {
        ResponseCells {
            codec: Some(Codec::KeyValue),
            block: BytesMut::new(),
        }
    }

    #[test]
    fn a_result_keeps_its_count_and_its_cells_decode_from_the_block() {
        let mut out = with_codec();
        let mut result = results::cells_result(&cells());
        out.take(&mut result);
        assert!(result.cell.is_empty());
        assert_eq!(result.associated_cell_count, Some(2));
        let decoded = cellblock::decode(Codec::KeyValue, out.block.freeze()).unwrap();
        let key = |c: &Cell| (c.row.clone(), c.qualifier.clone(), c.timestamp, c.cell_type);
        assert_eq!(
            decoded.iter().map(key).collect::<Vec<_>>(),
            cells().iter().map(key).collect::<Vec<_>>()
        );
        assert_eq!(decoded[0].value, Bytes::from_static(b"v1"));
    }

    #[test]
    fn scan_results_become_counts_and_partial_flags() {
        let mut out = with_codec();
        let mut partial = results::cells_result(&cells()[..1]);
        partial.partial = Some(true);
        let mut response = pb::ScanResponse {
            results: vec![partial, results::result(None)],
            ..Default::default()
        };
        out.take_scan(&mut response);
        assert!(response.results.is_empty());
        assert_eq!(response.cells_per_result, vec![1, 0]);
        assert_eq!(response.partial_flag_per_result, vec![true, false]);
        assert_eq!(
            cellblock::decode(Codec::KeyValue, out.block.freeze())
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn without_a_codec_cells_stay_in_the_message() {
        let mut out = ResponseCells {
            codec: None,
            block: BytesMut::new(),
        };
        let mut result = results::cells_result(&cells());
        out.take(&mut result);
        assert_eq!(result.cell.len(), 2);
        assert!(out.block.is_empty());
    }
}
