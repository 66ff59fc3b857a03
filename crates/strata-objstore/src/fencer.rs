//! Seals a dead (or presumed dead) server's stream, as the master will before its regions
//! move: a fence object at the first free id. From then on the old writer's next PUT meets
//! `AlreadyExists` with a foreign token and it stops; everything it ever had acknowledged
//! lies below the fence, where the new owners replay it.

use crate::error::{Error, Result};
use crate::format::{ObjectHeader, ObjectKind, HEADER_LEN};
use crate::reader::{list_stream, replayable, StreamObject};
use crate::store::{BlockingStore, CreateOutcome};
use crate::stream::StreamId;
use crate::writer::WriterDeps;

/// How many taken ids the fencer steps over before giving up: a writer racing the fencer
/// wins each id at most once per PUT, and a live writer would need this many PUTs in a row.
const MAX_FENCE_ATTEMPTS: u64 = 1_000;

/// The result of fencing a stream.
#[derive(Debug, Clone)]
pub struct Fenced {
    /// The fence's id: no object at or above it was ever acknowledged.
    pub fence_id: u64,
    /// The batch objects a new owner must replay, in id order.
    pub replay: Vec<StreamObject>,
}

/// Fences `stream`: lists it, creates a fence object at max id + 1 (or 0 when empty),
/// stepping up past ids the writer takes meanwhile, then lists again for the replay set.
///
/// The stream's newest object must never be deleted while its writer may live (the GC
/// rule); otherwise the fence could land below the writer's next id.
pub fn fence_stream(store: &BlockingStore, stream: StreamId, deps: &WriterDeps) -> Result<Fenced> {
    let listed = list_stream(store, stream, &deps.retry)?;
    let first_free = listed.last().map_or(0, |o| o.id + 1);
    let token = deps.tokens.next_token();
    for id in first_free..first_free.saturating_add(MAX_FENCE_ATTEMPTS) {
        let header = ObjectHeader {
            kind: ObjectKind::Fence,
            server_id: stream.server_id,
            incarnation: stream.incarnation,
            object_id: id,
            token,
            created_at_ms: deps.clock.now_millis(),
        };
        if fence_at(store, stream, &header, deps)? {
            let objects = list_stream(store, stream, &deps.retry)?;
            let below: Vec<StreamObject> = objects.into_iter().filter(|o| o.id < id).collect();
            tracing::info!(%stream, fence_id = id, "WAL stream fenced");
            return Ok(Fenced {
                fence_id: id,
                replay: replayable(&below),
            });
        }
    }
    Err(Error::Unavailable {
        store: store.name().to_owned(),
        op: "fence",
        path: stream.to_string(),
        reason: format!("{MAX_FENCE_ATTEMPTS} ids in a row were taken; is the writer alive?"),
    })
}

/// Tries to create the fence `header` describes; `Ok(false)` when someone else owns the id.
fn fence_at(
    store: &BlockingStore,
    stream: StreamId,
    header: &ObjectHeader,
    deps: &WriterDeps,
) -> Result<bool> {
    let path = stream.object_path(header.object_id);
    let bytes = bytes::Bytes::copy_from_slice(&header.encode());
    match deps.retry.run(|| store.put_create(&path, bytes.clone()))? {
        CreateOutcome::Created => Ok(true),
        CreateOutcome::AlreadyExists => {
            let head = deps
                .retry
                .run(|| store.get_range(&path, 0..HEADER_LEN as u64))?;
            // Our own fence from an attempt whose response was lost counts as placed.
            Ok(ObjectHeader::decode(&head, path.as_ref())?.token == header.token)
        }
    }
}
