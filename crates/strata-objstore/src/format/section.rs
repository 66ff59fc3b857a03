//! Decodes one region's section back into the engine's edits.

use bytes::Bytes;
use strata_engine::codec::WalEdit;
use strata_engine::codec::{RecordHeader, RECORD_HEADER_LEN, RECORD_TYPE_EDIT};

use super::footer::SectionEntry;
use crate::error::{Error, Result};

/// The edits of `bytes`, the section `entry` describes, read from `object`. Every record's
/// checksum is verified, and every edit must belong to the entry's region and seq range.
pub fn decode_section(bytes: &Bytes, entry: &SectionEntry, object: &str) -> Result<Vec<WalEdit>> {
    let mut edits = Vec::with_capacity(entry.records as usize);
    let mut at = 0usize;
    while at < bytes.len() {
        let offset = entry.offset + at as u64;
        let bad = |why: String| Error::corruption(object, offset, why);
        let header = RecordHeader::decode(&bytes[at..])
            .ok_or_else(|| bad("truncated record header".into()))?;
        let start = at + RECORD_HEADER_LEN;
        let end = start + header.len as usize;
        let payload = bytes.get(start..end).ok_or_else(|| {
            bad(format!(
                "record of {} bytes overruns its section",
                header.len
            ))
        })?;
        if header.record_type != RECORD_TYPE_EDIT {
            return Err(bad(format!("unknown record type {}", header.record_type)));
        }
        if !header.checksum_matches(payload) {
            return Err(bad("record checksum mismatch".into()));
        }
        let edit = WalEdit::decode_payload(&bytes.slice(start..end)).map_err(bad)?;
        check_belongs(&edit, entry).map_err(bad)?;
        edits.push(edit);
        at = end;
    }
    if edits.len() != entry.records as usize {
        return Err(Error::corruption(
            object,
            entry.offset,
            format!(
                "section has {} records, footer says {}",
                edits.len(),
                entry.records
            ),
        ));
    }
    Ok(edits)
}

fn check_belongs(edit: &WalEdit, entry: &SectionEntry) -> std::result::Result<(), String> {
    if edit.region_id != entry.region_id {
        return Err(format!(
            "edit of region {} in region {}'s section",
            edit.region_id, entry.region_id
        ));
    }
    if edit.seq < entry.min_seq || edit.seq > entry.max_seq {
        return Err(format!(
            "edit seq {} outside the section's {}..={}",
            edit.seq, entry.min_seq, entry.max_seq
        ));
    }
    Ok(())
}
