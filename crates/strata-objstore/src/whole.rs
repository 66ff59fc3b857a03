//! Reading whole batch objects, many at a time: what a server replaying an entire dead
//! stream (every region) needs. One GET per object, up to [`PARALLEL_GETS`] in flight, in
//! stream order; a region's new owner in a multi-owner cluster uses the ranged reads of
//! `reader.rs` instead.

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::ObjectStoreExt;
use strata_engine::codec::WalEdit;

use crate::error::{Error, Result};
use crate::format::{decode_footer, decode_section, ObjectHeader, ObjectKind, Trailer};
use crate::format::{HEADER_LEN, TRAILER_LEN};
use crate::reader::StreamObject;
use crate::retry::RetryPolicy;
use crate::store::BlockingStore;
use crate::stream::StreamId;

/// GETs in flight while replaying: enough to hide a store's latency (a few ms each on a
/// local S3 server, tens on a remote one) without holding much memory, since batch objects
/// are small.
pub const PARALLEL_GETS: usize = 32;

/// The bytes of every object, in order; a failed GET is retried on its own.
pub fn fetch_objects(
    store: &BlockingStore,
    objects: &[StreamObject],
    retry: &RetryPolicy,
) -> Result<Vec<Bytes>> {
    let inner = store.inner().clone();
    let gets = objects.iter().map(|object| {
        let inner = inner.clone();
        let path = object.path.clone();
        async move { inner.get(&path).await?.bytes().await }
    });
    let first_try: Vec<_> = store.block_on(
        futures_util::stream::iter(gets)
            .buffered(PARALLEL_GETS)
            .collect::<Vec<_>>(),
    );
    let mut bytes = Vec::with_capacity(objects.len());
    for (object, result) in objects.iter().zip(first_try) {
        match result {
            Ok(b) => bytes.push(b),
            Err(_) => bytes.push(retry.run(|| store.get_range(&object.path, 0..object.size))?),
        }
    }
    Ok(bytes)
}

/// Every edit of one whole batch object of `stream`, section by section.
pub fn decode_object(
    stream: StreamId,
    object: &StreamObject,
    bytes: &Bytes,
) -> Result<Vec<WalEdit>> {
    let name = object.path.as_ref();
    let len = bytes.len() as u64;
    if len < (HEADER_LEN + TRAILER_LEN) as u64 || len != object.size {
        let reason = format!("{len} bytes read of a {}-byte batch object", object.size);
        return Err(Error::corruption(name, 0, reason));
    }
    let header = ObjectHeader::decode(&bytes[..HEADER_LEN], name)?;
    let expected = (stream.server_id, stream.incarnation, object.id);
    let found = (header.server_id, header.incarnation, header.object_id);
    if header.kind != ObjectKind::Batch || found != expected {
        let reason = format!(
            "header says {:?} {found:?}, key says batch {expected:?}",
            header.kind
        );
        return Err(Error::corruption(name, 0, reason));
    }
    let trailer_at = bytes.len() - TRAILER_LEN;
    let trailer = Trailer::decode(&bytes[trailer_at..], name, len)?;
    let footer = slice(
        bytes,
        trailer.footer_offset,
        u64::from(trailer.footer_len),
        name,
    )?;
    let mut edits = Vec::new();
    for entry in decode_footer(&footer, name, trailer.footer_offset)? {
        let section = slice(bytes, entry.offset, entry.len, name)?;
        edits.extend(decode_section(&section, &entry, name)?);
    }
    Ok(edits)
}

fn slice(bytes: &Bytes, offset: u64, len: u64, name: &str) -> Result<Bytes> {
    let end = offset
        .checked_add(len)
        .filter(|&end| end <= bytes.len() as u64);
    match end {
        Some(end) => Ok(bytes.slice(offset as usize..end as usize)),
        None => Err(Error::corruption(
            name,
            offset,
            format!("{len} bytes past the object's end"),
        )),
    }
}
