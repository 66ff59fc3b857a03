//! A store whose create-if-absent is check-then-put, like s3s-fs 0.14: the start-up probe
//! must refuse it. A barrier between the check and the put makes every racer check before
//! any of them writes, so the race is lost the same way on every run.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    ObjectStoreExt, PutMode, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};
use tokio::sync::Barrier;

/// Creates by HEAD, then an unconditional PUT.
#[derive(Debug)]
pub struct CheckThenPutStore {
    inner: Arc<dyn ObjectStore>,
    barrier: Barrier,
}

impl CheckThenPutStore {
    /// Wraps `inner`; `racers` creates meet at the barrier between check and put.
    pub fn new(inner: Arc<dyn ObjectStore>, racers: usize) -> Self {
        CheckThenPutStore {
            inner,
            barrier: Barrier::new(racers),
        }
    }
}

impl fmt::Display for CheckThenPutStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CheckThenPutStore({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for CheckThenPutStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        if opts.mode != PutMode::Create {
            return self.inner.put_opts(location, payload, opts).await;
        }
        let exists = self.inner.head(location).await.is_ok();
        self.barrier.wait().await;
        if exists {
            return Err(object_store::Error::AlreadyExists {
                path: location.to_string(),
                source: "exists".into(),
            });
        }
        self.inner.put(location, payload).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
