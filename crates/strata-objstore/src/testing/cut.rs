//! [`CutStore`]: a store one server can be cut off from, as by a network partition. While
//! cut, every request fails before it reaches the store (nothing is stored), and requests
//! already past the check complete: a partition does not undo what arrived.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

use super::injected_timeout;

/// Wraps a store; [`CutStore::cut`] and [`CutStore::heal`] switch it.
#[derive(Debug)]
pub struct CutStore {
    inner: Arc<dyn ObjectStore>,
    cut: AtomicBool,
}

impl fmt::Display for CutStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CutStore({})", self.inner)
    }
}

impl CutStore {
    /// Wraps `inner`, reachable.
    pub fn new(inner: Arc<dyn ObjectStore>) -> Self {
        CutStore {
            inner,
            cut: AtomicBool::new(false),
        }
    }

    /// From now on every request fails.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
    }

    /// From now on requests reach the store again.
    pub fn heal(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }

    /// True while cut.
    pub fn is_cut(&self) -> bool {
        self.cut.load(Ordering::SeqCst)
    }

    fn check(&self, op: &str) -> Result<()> {
        if self.is_cut() {
            Err(injected_timeout(op))
        } else {
            Ok(())
        }
    }
}

#[async_trait]
impl ObjectStore for CutStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.check("Put")?;
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.check("PutMultipart")?;
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.check("Get")?;
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        if self.is_cut() {
            return Box::pin(futures_util::stream::once(async {
                Err(injected_timeout("Delete"))
            }));
        }
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        if self.is_cut() {
            return Box::pin(futures_util::stream::once(async {
                Err(injected_timeout("List"))
            }));
        }
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.check("List")?;
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.check("Copy")?;
        self.inner.copy_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;

    #[test]
    fn a_cut_store_refuses_everything_until_healed() {
        let cut = Arc::new(CutStore::new(Arc::new(InMemory::new())));
        let store = crate::BlockingStore::new(Arc::clone(&cut) as _, "cut").unwrap();
        let path = Path::from("a");
        store
            .put_overwrite(&path, bytes::Bytes::from_static(b"1"))
            .unwrap();
        cut.cut();
        assert!(store.head(&path).is_err());
        assert!(store.list(&Path::from("")).is_err());
        assert!(store
            .put_overwrite(&Path::from("b"), bytes::Bytes::from_static(b"2"))
            .is_err());
        cut.heal();
        assert_eq!(
            store.list(&Path::from("")).unwrap().len(),
            1,
            "b never landed"
        );
        assert!(store.head(&path).is_ok());
    }
}
