//! A simulated distant store for benchmarks (`[cluster] store_latency_ms`): object_store's
//! own [`ThrottledStore`] (made for performance tests) waits before each call.
//!
//! The throttle can only pass on streamed GET bodies: given a local directory's answer, a
//! file handle, it panics ("not implemented", seen on `file://` with object_store 0.14.2).
//! [`StreamedGets`] sits between the two and turns file answers into streams, so `file://`
//! (the benchmark's store) can be throttled too.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use object_store::path::Path;
use object_store::throttle::{ThrottleConfig, ThrottledStore};
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};

/// `store` with `wait` before each PUT, GET (and HEAD), LIST and DELETE call. Every call a
/// WAL append, a flush or a replay makes pays it once, like a round trip to a distant store
/// would; the wait is a timer on the store's runtime, so concurrent calls wait side by side
/// rather than in a queue.
pub(crate) fn throttled(store: Arc<dyn ObjectStore>, wait: Duration) -> Arc<dyn ObjectStore> {
    if wait.is_zero() {
        return store;
    }
    let config = ThrottleConfig {
        wait_put_per_call: wait,
        wait_get_per_call: wait,
        wait_list_per_call: wait,
        wait_list_with_delimiter_per_call: wait,
        wait_delete_per_call: wait,
        ..ThrottleConfig::default()
    };
    Arc::new(ThrottledStore::new(StreamedGets(store), config))
}

/// Passes every call through, and hands GET bodies on as streams, never as files.
#[derive(Debug)]
struct StreamedGets(Arc<dyn ObjectStore>);

impl fmt::Display for StreamedGets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StreamedGets({})", self.0)
    }
}

#[async_trait]
impl ObjectStore for StreamedGets {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.0.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.0.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let result = self.0.get_opts(location, options).await?;
        if matches!(result.payload, GetResultPayload::Stream(_)) {
            return Ok(result);
        }
        let (meta, range, attributes, extensions) = (
            result.meta.clone(),
            result.range.clone(),
            result.attributes.clone(),
            result.extensions.clone(),
        );
        Ok(GetResult {
            payload: GetResultPayload::Stream(result.into_stream()),
            meta,
            range,
            attributes,
            extensions,
        })
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        self.0.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.0.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.0.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        self.0.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.0.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.0.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.0.rename_opts(from, to, options).await
    }
}
