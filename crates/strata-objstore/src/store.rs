//! A blocking facade over an async [`ObjectStore`].
//!
//! Why blocking: the engine's WAL group commit is synchronous threads (the leader writes a
//! whole batch and its followers wait on a condvar), and at most one WAL PUT is in flight
//! per stream. An async WAL would need the whole write path to become async for no gain.
//!
//! Why a multi-threaded I/O runtime (`strata_runtime::IoRuntime`, the one a server shares
//! with its etcd client): the calling thread (the group commit leader, a fencer, a
//! replaying region) blocks on its request while the I/O threads keep the HTTP client's
//! pooled connections driven. A current-thread runtime, driven
//! only by callers, was tried first: an S3 client's connections are tasks of the runtime
//! that opened them, so a request that picked up a connection of another runtime (or one
//! idle between calls) stalled until its 10 s timeout (seen against S3Proxy). The server's
//! request runtime is not used either, so WAL I/O cannot queue behind request handling.
//! A caller on a runtime's worker is waited for on a thread of its own (`IoRuntime::
//! block_on`).
//!
//! Each call is one attempt; [`crate::retry`] decides what to retry.

use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::path::Path;
use object_store::{
    ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, WriteMultipart,
};

use strata_engine::fs::RandomAccessFile;
use strata_runtime::IoRuntime;

use crate::error::{Error, Result};

/// The outcome of a create-if-absent PUT that reached the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateOutcome {
    /// The object did not exist and now holds our bytes.
    Created,
    /// An object already existed at the key (maybe our own earlier attempt's).
    AlreadyExists,
}

/// An object store plus the runtime that drives it; cheap to clone.
#[derive(Clone)]
pub struct BlockingStore {
    inner: Arc<dyn ObjectStore>,
    name: Arc<str>,
    runtime: IoRuntime,
}

impl fmt::Debug for BlockingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingStore")
            .field("name", &self.name)
            .finish()
    }
}

impl BlockingStore {
    /// Wraps `inner` on an I/O runtime of its own (tools and tests; a server shares one
    /// through [`BlockingStore::on`]); `name` (normally the store URL) appears in every
    /// error.
    pub fn new(inner: Arc<dyn ObjectStore>, name: impl Into<String>) -> Result<Self> {
        let name: String = name.into();
        let runtime = IoRuntime::start("strata-objstore-io", 1).map_err(|e| Error::Io {
            store: name.clone(),
            op: "start runtime",
            path: String::new(),
            reason: e.to_string(),
        })?;
        Ok(Self::on(inner, name, runtime))
    }

    /// Wraps `inner`, its calls driven by `runtime`.
    pub fn on(inner: Arc<dyn ObjectStore>, name: impl Into<String>, runtime: IoRuntime) -> Self {
        BlockingStore {
            inner,
            name: name.into().into(),
            runtime,
        }
    }

    /// `wrap(inner)` (a test's fault injector, a throttle...) sharing this store's runtime
    /// and name.
    pub fn with_inner(
        &self,
        wrap: impl FnOnce(Arc<dyn ObjectStore>) -> Arc<dyn ObjectStore>,
    ) -> Self {
        BlockingStore {
            inner: wrap(self.inner.clone()),
            name: self.name.clone(),
            runtime: self.runtime.clone(),
        }
    }

    /// The store's name (its URL) as used in errors.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The async store underneath, for tests and for tools that are async already.
    pub fn inner(&self) -> &Arc<dyn ObjectStore> {
        &self.inner
    }

    /// Runs `future` to completion on this store's runtime, from any thread.
    pub(crate) fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        match self.runtime.block_on(future) {
            Ok(output) => output,
            // No thread could be started (the process is out of threads): nothing can
            // wait for the store from this runtime, and the caller has no error to take.
            Err(e) => panic!("cannot start a thread to wait for the object store: {e}"),
        }
    }

    /// PUTs `bytes` at `path` only if no object exists there (`If-None-Match: *`).
    pub fn put_create(&self, path: &Path, bytes: Bytes) -> Result<CreateOutcome> {
        let result = self.block_on(put_create_async(self.inner.as_ref(), path, bytes));
        classify_create(result).map_err(|e| self.error("put", path, e))
    }

    /// The bytes of `path` in `range`.
    pub fn get_range(&self, path: &Path, range: Range<u64>) -> Result<Bytes> {
        self.block_on(self.inner.get_range(path, range))
            .map_err(|e| self.error("get", path, e))
    }

    /// The bytes of `path` in each of `ranges`, fetched together (the store may coalesce).
    pub fn get_ranges(&self, path: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        self.block_on(self.inner.get_ranges(path, ranges))
            .map_err(|e| self.error("get", path, e))
    }

    /// Every object under `prefix`, sorted by key (stores do not all list in order).
    pub fn list(&self, prefix: &Path) -> Result<Vec<ObjectMeta>> {
        let listing = self.block_on(self.inner.list(Some(prefix)).try_collect::<Vec<_>>());
        let mut objects = listing.map_err(|e| self.error("list", prefix, e))?;
        objects.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(objects)
    }

    /// Size and version of `path`.
    pub fn head(&self, path: &Path) -> Result<ObjectMeta> {
        self.block_on(self.inner.head(path))
            .map_err(|e| self.error("head", path, e))
    }

    /// The names directly under `prefix`: objects and "directories" (common prefixes),
    /// without the prefix, sorted.
    pub fn list_children(&self, prefix: &Path) -> Result<Vec<String>> {
        let listing = self
            .block_on(self.inner.list_with_delimiter(Some(prefix)))
            .map_err(|e| self.error("list", prefix, e))?;
        let mut names: Vec<String> = listing
            .common_prefixes
            .iter()
            .chain(listing.objects.iter().map(|o| &o.location))
            .filter_map(|p| p.filename().map(str::to_owned))
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// PUTs `bytes` at `path`, replacing any object there. Only for keys no one else
    /// writes (SSTables carry their writer's tag in their name).
    pub fn put_overwrite(&self, path: &Path, bytes: Bytes) -> Result<()> {
        self.block_on(self.inner.put(path, PutPayload::from(bytes)))
            .map(|_| ())
            .map_err(|e| self.error("put", path, e))
    }

    /// Uploads the whole of `source` (a local file) as `path` in parts of `part_size`
    /// bytes, at most two parts in flight, so memory stays bounded whatever its size.
    /// Multipart uploads cannot be create-if-absent: only for keys no one else writes.
    pub fn put_multipart_from(
        &self,
        path: &Path,
        source: &dyn RandomAccessFile,
        part_size: usize,
    ) -> Result<()> {
        let upload = async {
            let upload = self.inner.put_multipart(path).await?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, part_size);
            let mut offset = 0u64;
            while offset < source.len() {
                let n = usize::try_from(source.len() - offset)
                    .map_or(part_size, |left| left.min(part_size));
                let part = match source.read_at(offset, n) {
                    Ok(part) => part,
                    Err(e) => {
                        let _ = writer.abort().await;
                        return Err(object_store::Error::Generic {
                            store: "local spool file",
                            source: Box::new(e),
                        });
                    }
                };
                writer.wait_for_capacity(2).await?;
                writer.write(&part);
                offset += n as u64;
            }
            writer.finish().await
        };
        self.block_on(upload)
            .map(|_| ())
            .map_err(|e| self.error("put", path, e))
    }

    /// Deletes `path`; deleting a missing object is not an error.
    pub fn delete(&self, path: &Path) -> Result<()> {
        match self.block_on(self.inner.delete(path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error("delete", path, e)),
        }
    }

    /// Maps an object_store error to this crate's, naming the store and the key.
    pub(crate) fn error(&self, op: &'static str, path: &Path, e: object_store::Error) -> Error {
        map_error(&self.name, op, path, e)
    }
}

/// One create-if-absent PUT, shared by the facade and the concurrent start-up probe.
pub(crate) async fn put_create_async(
    store: &dyn ObjectStore,
    path: &Path,
    bytes: Bytes,
) -> object_store::Result<object_store::PutResult> {
    let opts = PutOptions {
        mode: PutMode::Create,
        ..PutOptions::default()
    };
    store.put_opts(path, PutPayload::from(bytes), opts).await
}

/// Splits a create's result into "created", "already there" and a real error. Some servers
/// answer a lost `If-None-Match` race with 412 Precondition Failed rather than a mapped
/// `AlreadyExists`; both mean the key is taken.
pub(crate) fn classify_create(
    result: object_store::Result<object_store::PutResult>,
) -> std::result::Result<CreateOutcome, object_store::Error> {
    match result {
        Ok(_) => Ok(CreateOutcome::Created),
        Err(object_store::Error::AlreadyExists { .. })
        | Err(object_store::Error::Precondition { .. }) => Ok(CreateOutcome::AlreadyExists),
        Err(e) => Err(e),
    }
}

/// Which object_store errors may pass on a retry: transport failures, timeouts and server
/// errors all arrive as `Generic`; everything else is a definite answer.
fn map_error(store: &str, op: &'static str, path: &Path, e: object_store::Error) -> Error {
    let reason = e.to_string();
    let store = store.to_owned();
    let path = path.to_string();
    match e {
        object_store::Error::NotFound { .. } => {
            Error::NotFound(format!("{path} in object store {store}"))
        }
        object_store::Error::Generic { .. } | object_store::Error::JoinError { .. } => {
            Error::Unavailable {
                store,
                op,
                path,
                reason,
            }
        }
        _ => Error::Io {
            store,
            op,
            path,
            reason,
        },
    }
}
