//! Builds one batch object from the engine's edits, grouped into per-region sections.
//!
//! Records keep the engine's WAL v1 framing (`strata_engine::codec`), so the group
//! commit's batch bytes, already framed, are moved into sections without re-encoding.

use std::collections::BTreeMap;

use bytes::Bytes;
use strata_engine::codec::Decoder;
use strata_engine::codec::WalEdit;
use strata_engine::codec::{encode_record, RecordHeader, RECORD_HEADER_LEN, RECORD_TYPE_EDIT};

use super::footer::{encode_footer, SectionEntry, Trailer};
use super::header::{ObjectHeader, ObjectKind};
use crate::error::{Error, Result};

#[derive(Debug, Default)]
struct SectionBuf {
    bytes: Vec<u8>,
    min_seq: u64,
    max_seq: u64,
    records: u32,
}

/// The edits of one batch object, before encoding.
#[derive(Debug, Default)]
pub struct WalObjectBuilder {
    sections: BTreeMap<u64, SectionBuf>,
    bytes: usize,
}

impl WalObjectBuilder {
    /// An empty batch.
    pub fn new() -> Self {
        WalObjectBuilder::default()
    }

    /// True when no edit was added.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }

    /// Bytes of records added so far.
    pub fn record_bytes(&self) -> usize {
        self.bytes
    }

    /// Adds one edit, framed as the engine frames it.
    pub fn add_edit(&mut self, edit: &WalEdit) -> Result<()> {
        let record = encode_record(RECORD_TYPE_EDIT, |buf| edit.encode_payload(buf))
            .map_err(|len| Error::InvalidArgument(format!("WAL edit of {len} bytes")))?;
        self.push(edit.region_id, edit.seq, &record);
        Ok(())
    }

    /// Adds a group commit's batch bytes: concatenated WAL v1 records, in arrival order.
    /// Each record goes to its region's section, keeping its order within the region.
    pub fn add_framed_records(&mut self, mut framed: &[u8]) -> Result<()> {
        let mut offset = 0u64;
        while !framed.is_empty() {
            let (region_id, seq, len) = peek_record(framed)
                .map_err(|why| Error::corruption("group commit batch", offset, why))?;
            self.push(region_id, seq, &framed[..len]);
            framed = &framed[len..];
            offset += len as u64;
        }
        Ok(())
    }

    fn push(&mut self, region_id: u64, seq: u64, record: &[u8]) {
        let section = self
            .sections
            .entry(region_id)
            .or_insert_with(|| SectionBuf {
                min_seq: seq,
                max_seq: seq,
                ..SectionBuf::default()
            });
        section.bytes.extend_from_slice(record);
        section.min_seq = section.min_seq.min(seq);
        section.max_seq = section.max_seq.max(seq);
        section.records += 1;
        self.bytes += record.len();
    }

    /// The object: `header` (whose kind must be `Batch`), the sections in region order,
    /// the footer and the trailer.
    pub fn finish(&self, header: &ObjectHeader) -> Bytes {
        debug_assert_eq!(header.kind, ObjectKind::Batch);
        let mut out = Vec::with_capacity(super::HEADER_LEN + self.bytes + 64);
        out.extend_from_slice(&header.encode());
        let mut entries = Vec::with_capacity(self.sections.len());
        for (&region_id, section) in &self.sections {
            entries.push(SectionEntry {
                region_id,
                offset: out.len() as u64,
                len: section.bytes.len() as u64,
                min_seq: section.min_seq,
                max_seq: section.max_seq,
                records: section.records,
            });
            out.extend_from_slice(&section.bytes);
        }
        let footer = encode_footer(&entries);
        let trailer = Trailer {
            footer_offset: out.len() as u64,
            footer_len: footer.len() as u32,
        };
        out.extend_from_slice(&footer);
        out.extend_from_slice(&trailer.encode());
        Bytes::from(out)
    }
}

/// The region, seq and framed length of the record at the start of `framed`.
fn peek_record(framed: &[u8]) -> std::result::Result<(u64, u64, usize), String> {
    let header = RecordHeader::decode(framed).ok_or("truncated record header")?;
    let len = RECORD_HEADER_LEN + header.len as usize;
    let payload = framed
        .get(RECORD_HEADER_LEN..len)
        .ok_or("truncated record")?;
    if header.record_type != RECORD_TYPE_EDIT {
        return Err(format!("unknown record type {}", header.record_type));
    }
    if !header.checksum_matches(payload) {
        return Err("record checksum mismatch".into());
    }
    let mut d = Decoder::new(payload);
    let region_id = d.varint().ok_or("truncated region id")?;
    let seq = d.varint().ok_or("truncated seq")?;
    Ok((region_id, seq, len))
}
