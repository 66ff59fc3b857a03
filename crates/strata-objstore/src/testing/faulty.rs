//! An [`ObjectStore`] wrapper that injects scripted faults into chosen requests.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};
use parking_lot::Mutex;

use super::injected_timeout;

/// A request kind a fault applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Put,
    Get,
    List,
}

/// An action run at a chosen point of a request (e.g. a fencer sealing the stream).
pub type Action = Box<dyn FnOnce() + Send>;

/// What happens to the next matching request.
pub enum Fault {
    /// The request times out before reaching the store: nothing is stored.
    FailBefore,
    /// The request reaches the store, then its response is lost: a PUT *is* stored.
    FailAfter,
    /// `Action` runs first (it wins any race), then the request proceeds normally.
    RunBefore(Action),
    /// `Action` runs, then the request times out without reaching the store.
    RunThenFail(Action),
    /// The request is applied, `Action` runs, then the response is lost.
    RunAfterThenFail(Action),
}

impl fmt::Debug for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fault::FailBefore => "FailBefore",
            Fault::FailAfter => "FailAfter",
            Fault::RunBefore(_) => "RunBefore",
            Fault::RunThenFail(_) => "RunThenFail",
            Fault::RunAfterThenFail(_) => "RunAfterThenFail",
        })
    }
}

/// Wraps a store; each scripted fault applies to the next request of its kind, in order.
#[derive(Debug)]
pub struct FaultyStore {
    inner: Arc<dyn ObjectStore>,
    script: Mutex<VecDeque<(Op, Fault)>>,
}

impl fmt::Display for FaultyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FaultyStore({})", self.inner)
    }
}

impl FaultyStore {
    /// Wraps `inner` with no faults scripted.
    pub fn new(inner: Arc<dyn ObjectStore>) -> Self {
        FaultyStore {
            inner,
            script: Mutex::new(VecDeque::new()),
        }
    }

    /// Adds `fault` for the next `op` request not yet claimed by an earlier fault.
    pub fn inject(&self, op: Op, fault: Fault) {
        self.script.lock().push_back((op, fault));
    }

    /// Drops every fault not yet used.
    pub fn clear(&self) {
        self.script.lock().clear();
    }

    /// Faults not yet used.
    pub fn pending_faults(&self) -> usize {
        self.script.lock().len()
    }

    fn next_fault(&self, op: Op) -> Option<Fault> {
        let mut script = self.script.lock();
        let at = script.iter().position(|(o, _)| *o == op)?;
        script.remove(at).map(|(_, fault)| fault)
    }

    /// Runs `request` under the next fault for `op`.
    async fn faulted<T>(
        &self,
        op: Op,
        request: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        let name = format!("{op:?}");
        match self.next_fault(op) {
            None => request.await,
            Some(Fault::FailBefore) => Err(injected_timeout(&name)),
            Some(Fault::FailAfter) => {
                request.await?;
                Err(injected_timeout(&name))
            }
            Some(Fault::RunBefore(action)) => {
                action();
                request.await
            }
            Some(Fault::RunThenFail(action)) => {
                action();
                Err(injected_timeout(&name))
            }
            Some(Fault::RunAfterThenFail(action)) => {
                let _ = request.await;
                action();
                Err(injected_timeout(&name))
            }
        }
    }
}

#[async_trait]
impl ObjectStore for FaultyStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.faulted(Op::Put, self.inner.put_opts(location, payload, opts))
            .await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.faulted(Op::Get, self.inner.get_opts(location, options))
            .await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        match self.next_fault(Op::List) {
            None => self.inner.list(prefix),
            Some(_) => Box::pin(futures_util::stream::once(async {
                Err(injected_timeout("List"))
            })),
        }
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
