//! Reads a stream back: its objects in id order up to the first fence, and one region's
//! edits from them through ranged GETs (header and trailer, footer, the region's section),
//! so a new owner downloads only its own regions' bytes.

use std::ops::RangeInclusive;

use object_store::path::Path;
use strata_engine::codec::WalEdit;

use crate::error::{Error, Result};
use crate::format::{
    decode_footer, decode_section, ObjectHeader, ObjectKind, SectionEntry, Trailer, HEADER_LEN,
    TRAILER_LEN,
};
use crate::retry::RetryPolicy;
use crate::store::BlockingStore;
use crate::stream::StreamId;

/// One object of a stream, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamObject {
    pub id: u64,
    pub size: u64,
    pub path: Path,
}

impl StreamObject {
    /// A fence is exactly a header; a batch object always adds a footer and a trailer.
    /// (The reader still checks the header's kind.)
    pub fn is_fence(&self) -> bool {
        self.size == HEADER_LEN as u64
    }
}

/// Every object of `stream`, in id order. Ids must be contiguous: a hole means an object
/// was lost, and replaying around it could skip acknowledged writes.
pub fn list_stream(
    store: &BlockingStore,
    stream: StreamId,
    retry: &RetryPolicy,
) -> Result<Vec<StreamObject>> {
    let listing = retry.run(|| store.list(&stream.prefix()))?;
    let mut objects: Vec<StreamObject> = listing
        .into_iter()
        .filter_map(|meta| {
            let id = stream.parse_object_id(&meta.location)?;
            Some(StreamObject {
                id,
                size: meta.size,
                path: meta.location,
            })
        })
        .collect();
    objects.sort_by_key(|o| o.id);
    for pair in objects.windows(2) {
        if pair[1].id != pair[0].id + 1 {
            return Err(Error::corruption(
                format!("{stream} in {}", store.name()),
                pair[0].id + 1,
                format!("object {} is missing before {}", pair[0].id + 1, pair[1].id),
            ));
        }
    }
    Ok(objects)
}

/// The batch objects a replay must read: those before the first fence (nothing can be
/// stored after it, because its writer needed the fence's id first).
pub fn replayable(objects: &[StreamObject]) -> Vec<StreamObject> {
    objects
        .iter()
        .take_while(|o| !o.is_fence())
        .cloned()
        .collect()
}

/// Reads regions' edits out of one stream's objects.
#[derive(Debug, Clone)]
pub struct StreamReader {
    store: BlockingStore,
    stream: StreamId,
    retry: RetryPolicy,
}

impl StreamReader {
    /// A reader of `stream` in `store`.
    pub fn new(store: BlockingStore, stream: StreamId, retry: RetryPolicy) -> Self {
        StreamReader {
            store,
            stream,
            retry,
        }
    }

    /// `region_id`'s edits with a seq in `seqs`, from every object of `objects`, in order.
    pub fn replay_region(
        &self,
        objects: &[StreamObject],
        region_id: u64,
        seqs: RangeInclusive<u64>,
    ) -> Result<Vec<WalEdit>> {
        let mut edits = Vec::new();
        for object in objects {
            edits.extend(self.read_region(object, region_id, seqs.clone())?);
        }
        Ok(edits)
    }

    /// `region_id`'s edits with a seq in `seqs` from one batch object.
    pub fn read_region(
        &self,
        object: &StreamObject,
        region_id: u64,
        seqs: RangeInclusive<u64>,
    ) -> Result<Vec<WalEdit>> {
        let sections = self.read_index(object)?;
        let Ok(at) = sections.binary_search_by_key(&region_id, |e| e.region_id) else {
            return Ok(Vec::new());
        };
        let entry = sections[at];
        if entry.max_seq < *seqs.start() || entry.min_seq > *seqs.end() {
            return Ok(Vec::new());
        }
        let range = entry.offset..entry.offset + entry.len;
        let bytes = self
            .retry
            .run(|| self.store.get_range(&object.path, range.clone()))?;
        let mut edits = decode_section(&bytes, &entry, object.path.as_ref())?;
        edits.retain(|e| seqs.contains(&e.seq));
        Ok(edits)
    }

    /// The object's footer entries, sorted by region, after checking its header.
    pub fn read_index(&self, object: &StreamObject) -> Result<Vec<SectionEntry>> {
        let name = object.path.as_ref();
        let min_len = (HEADER_LEN + TRAILER_LEN) as u64;
        if object.size < min_len {
            return Err(Error::corruption(
                name,
                0,
                format!("{} bytes is no batch object", object.size),
            ));
        }
        let ends = [
            0..HEADER_LEN as u64,
            object.size - TRAILER_LEN as u64..object.size,
        ];
        let parts = self
            .retry
            .run(|| self.store.get_ranges(&object.path, &ends))?;
        self.check_header(&ObjectHeader::decode(&parts[0], name)?, object)?;
        let trailer = Trailer::decode(&parts[1], name, object.size)?;
        let footer_range =
            trailer.footer_offset..trailer.footer_offset + u64::from(trailer.footer_len);
        let footer = self
            .retry
            .run(|| self.store.get_range(&object.path, footer_range.clone()))?;
        let mut entries = decode_footer(&footer, name, trailer.footer_offset)?;
        entries.sort_by_key(|e| e.region_id);
        Ok(entries)
    }

    fn check_header(&self, header: &ObjectHeader, object: &StreamObject) -> Result<()> {
        let expected = (self.stream.server_id, self.stream.incarnation, object.id);
        let found = (header.server_id, header.incarnation, header.object_id);
        if header.kind != ObjectKind::Batch || found != expected {
            return Err(Error::corruption(
                object.path.as_ref(),
                0,
                format!(
                    "header says {:?} {found:?}, key says batch {expected:?}",
                    header.kind
                ),
            ));
        }
        Ok(())
    }
}
