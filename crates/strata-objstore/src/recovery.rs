//! What a region's new owner replays from a dead server's WAL stream.
//!
//! The master fences the stream first (`fencer.rs`): from then on its replayable objects
//! (every object below the first fence) are final, and every write the dead server
//! acknowledged is among them. The new owner reads only its own region's sections of
//! them, so a failover never splits a log.

use strata_engine::codec::WalEdit;

use crate::error::Result;
use crate::reader::{list_stream, replayable, StreamReader};
use crate::retry::RetryPolicy;
use crate::store::BlockingStore;
use crate::stream::StreamId;

/// The edits of `region` newer than `after_seq` in the fenced `stream`, in stream order.
/// Call only after the stream was fenced: before, its writer may still add objects.
pub fn fenced_region_edits(
    store: &BlockingStore,
    stream: StreamId,
    region: u64,
    after_seq: u64,
    retry: &RetryPolicy,
) -> Result<Vec<WalEdit>> {
    let listed = list_stream(store, stream, retry)?;
    let objects = replayable(&listed);
    let reader = StreamReader::new(store.clone(), stream, retry.clone());
    let first = after_seq.saturating_add(1);
    reader.replay_region(&objects, region, first..=u64::MAX)
}
