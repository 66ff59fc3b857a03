//! The start-up probe: is the store's create-if-absent atomic?
//!
//! Fencing is only as good as `If-None-Match: *`. Some S3 servers check for the key and
//! then write (s3s-fs 0.14 renames a temp file over the key), so two racing creates can
//! both "win", and a zombie writer would never learn it was fenced. The probe sends
//! [`PROBE_PUTS`] concurrent create-only PUTs of one fresh scratch key and refuses the
//! store unless exactly one wins and the key then holds the winner's bytes.

use bytes::Bytes;
use futures_util::future::join_all;
use object_store::path::Path;

use crate::error::{Error, Result};
use crate::retry::RetryPolicy;
use crate::store::{classify_create, put_create_async, BlockingStore, CreateOutcome};
use crate::token::TokenSource;

/// Concurrent creates per probe.
pub const PROBE_PUTS: usize = 8;

/// What a passed probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReport {
    /// The scratch key used (deleted afterwards, best effort).
    pub key: String,
    /// Creates refused because the key existed: `PROBE_PUTS - 1` on a good store.
    pub refused: usize,
}

/// Runs the probe (retrying a round that met transient errors, each with a fresh key).
pub fn probe_atomic_create(
    store: &BlockingStore,
    tokens: &dyn TokenSource,
    retry: &RetryPolicy,
) -> Result<ProbeReport> {
    retry.run(|| probe_once(store, tokens))
}

fn probe_once(store: &BlockingStore, tokens: &dyn TokenSource) -> Result<ProbeReport> {
    let key = Path::from(format!("probe/create-{}", tokens.next_token()));
    let body = |i: usize| Bytes::from(format!("strata create probe {key} racer {i}"));
    let racers = (0..PROBE_PUTS).map(|i| put_create_async(store.inner().as_ref(), &key, body(i)));
    let results = store.block_on(join_all(racers));
    let mut winners = Vec::new();
    for (i, result) in results.into_iter().enumerate() {
        match classify_create(result) {
            Ok(CreateOutcome::Created) => winners.push(i),
            Ok(CreateOutcome::AlreadyExists) => {}
            Err(e) => return Err(unreachable_or(store, &key, e)),
        }
    }
    let refuse = |detail: String| Error::NonAtomicStore {
        store: store.name().to_owned(),
        detail: format!(
            "{detail}. WAL fencing needs an atomic create-if-absent (If-None-Match: *); \
             s3s-fs is known not to have one. Use AWS S3, MinIO, S3Proxy's filesystem \
             backend or a file:// directory"
        ),
    };
    let [winner] = winners[..] else {
        return Err(refuse(format!(
            "of {PROBE_PUTS} concurrent create-only PUTs of {key}, {} reported success, \
             exactly one must",
            winners.len()
        )));
    };
    let stored = store.get_range(&key, 0..body(winner).len() as u64)?;
    if stored != body(winner) {
        return Err(refuse(format!(
            "{key} does not hold the bytes of the one create that reported success"
        )));
    }
    // A leftover scratch object is harmless (the GC may remove probe/), so ignore failure.
    let _ = store.delete(&key);
    Ok(ProbeReport {
        key: key.to_string(),
        refused: PROBE_PUTS - 1,
    })
}

/// The error for a probe PUT that failed: it names the store, which is what an operator
/// with a wrong endpoint or a stopped server needs to see first.
fn unreachable_or(store: &BlockingStore, key: &Path, e: object_store::Error) -> Error {
    match store.error("put", key, e) {
        Error::Unavailable { store, reason, .. } => Error::Unavailable {
            store: store.clone(),
            op: "start-up probe",
            path: key.to_string(),
            reason: format!("the object store is unreachable or failing: {reason}"),
        },
        other => other,
    }
}
