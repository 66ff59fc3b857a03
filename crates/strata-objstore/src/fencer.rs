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

/// How many times the fencer re-reads the stream's head after losing an id before giving
/// up. Each round it aims just past the newest object, so a writer keeps it out only by
/// storing an object in every list-to-PUT window.
const MAX_FENCE_ROUNDS: u32 = 100;

/// The result of fencing a stream.
#[derive(Debug, Clone)]
pub struct Fenced {
    /// The fence's id: no object at or above it was ever acknowledged.
    pub fence_id: u64,
    /// The batch objects a new owner must replay, in id order.
    pub replay: Vec<StreamObject>,
}

/// Fences `stream`: creates a fence object just past the newest object (at 0 when the
/// stream is empty). When the writer takes that id first, the fencer lists again and
/// aims past the new head. The fence never leaves a hole below it, so every object the
/// writer could still store lies below the fence and is in the replay set, listed last.
///
/// The stream's newest object must never be deleted while its writer may live (the GC
/// rule); otherwise the fence could land below the writer's next id.
pub fn fence_stream(store: &BlockingStore, stream: StreamId, deps: &WriterDeps) -> Result<Fenced> {
    let token = deps.tokens.next_token();
    let mut listed = list_stream(store, stream, &deps.retry)?;
    for _ in 0..MAX_FENCE_ROUNDS {
        let id = listed.last().map_or(0, |o| o.id + 1);
        let header = ObjectHeader {
            kind: ObjectKind::Fence,
            server_id: stream.server_id,
            incarnation: stream.incarnation,
            object_id: id,
            token,
            created_at_ms: deps.clock.now_millis(),
        };
        if fence_at(store, stream, &header, deps)? {
            let below: Vec<StreamObject> = list_stream(store, stream, &deps.retry)?
                .into_iter()
                .filter(|o| o.id < id)
                .collect();
            tracing::info!(%stream, fence_id = id, "WAL stream fenced");
            return Ok(Fenced {
                fence_id: id,
                replay: replayable(&below),
            });
        }
        listed = list_stream(store, stream, &deps.retry)?;
    }
    Err(Error::Unavailable {
        store: store.name().to_owned(),
        op: "fence",
        path: stream.to_string(),
        reason: format!(
            "the writer took the next id {MAX_FENCE_ROUNDS} times in a row; is it alive?"
        ),
    })
}

/// Tries to create the fence `header` describes; `Ok(false)` when the id is taken.
fn fence_at(
    store: &BlockingStore,
    stream: StreamId,
    header: &ObjectHeader,
    deps: &WriterDeps,
) -> Result<bool> {
    let path = stream.object_path(header.object_id);
    let bytes = bytes::Bytes::copy_from_slice(&header.encode());
    let mut attempts = 0;
    let outcome = deps.retry.run(|| {
        attempts += 1;
        store.put_create(&path, bytes.clone())
    })?;
    match outcome {
        CreateOutcome::Created => Ok(true),
        // Taken at the first attempt: someone else's. (Were it our own, landed through a
        // client-internal retry, the next round would only add a second fence above it.)
        CreateOutcome::AlreadyExists if attempts == 1 => Ok(false),
        CreateOutcome::AlreadyExists => {
            let head = deps
                .retry
                .run(|| store.get_range(&path, 0..HEADER_LEN as u64))?;
            // Our own fence from an attempt whose response was lost counts as placed.
            Ok(ObjectHeader::decode(&head, path.as_ref())?.token == header.token)
        }
    }
}
