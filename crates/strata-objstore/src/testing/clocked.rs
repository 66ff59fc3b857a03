//! An [`ObjectStore`] wrapper whose objects' `last_modified` comes from an injected clock
//! instead of the wall clock, so tests of age rules (the garbage collector's minimum age)
//! can make objects old by advancing a manual clock.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};
use parking_lot::Mutex;
use strata_runtime::clock::Clock;

/// Put times by key, in milliseconds of the injected clock.
type PutTimes = Arc<Mutex<HashMap<Path, i64>>>;

/// Wraps a store; each successful PUT records the clock's time as the object's
/// modification time, which `head` and listings report.
pub struct ClockedStore {
    inner: Arc<dyn ObjectStore>,
    clock: Arc<dyn Clock>,
    times: PutTimes,
}

impl fmt::Debug for ClockedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ClockedStore({})", self.inner)
    }
}

impl fmt::Display for ClockedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl ClockedStore {
    /// Wraps `inner`, timing PUTs on `clock`.
    pub fn new(inner: Arc<dyn ObjectStore>, clock: Arc<dyn Clock>) -> Self {
        ClockedStore {
            inner,
            clock,
            times: Arc::default(),
        }
    }
}

/// `meta` with its modification time replaced by the recorded one, if any.
fn retimed(times: &PutTimes, mut meta: ObjectMeta) -> ObjectMeta {
    if let Some(&millis) = times.lock().get(&meta.location) {
        let millis = u64::try_from(millis).unwrap_or(0);
        meta.last_modified = (UNIX_EPOCH + Duration::from_millis(millis)).into();
    }
    meta
}

#[async_trait]
impl ObjectStore for ClockedStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        let result = self.inner.put_opts(location, payload, opts).await?;
        self.times
            .lock()
            .insert(location.clone(), self.clock.now_millis());
        Ok(result)
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        // Timed at the start of the upload: close enough for tests, which keep uploads small.
        self.times
            .lock()
            .insert(location.clone(), self.clock.now_millis());
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let mut result = self.inner.get_opts(location, options).await?;
        result.meta = retimed(&self.times, result.meta);
        Ok(result)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        let times = Arc::clone(&self.times);
        self.inner
            .delete_stream(locations)
            .map(move |deleted| {
                if let Ok(path) = &deleted {
                    times.lock().remove(path);
                }
                deleted
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let times = Arc::clone(&self.times);
        self.inner
            .list(prefix)
            .map(move |meta| meta.map(|m| retimed(&times, m)))
            .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let mut listing = self.inner.list_with_delimiter(prefix).await?;
        listing.objects = listing
            .objects
            .into_iter()
            .map(|m| retimed(&self.times, m))
            .collect();
        Ok(listing)
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await?;
        self.times
            .lock()
            .insert(to.clone(), self.clock.now_millis());
        Ok(())
    }
}
