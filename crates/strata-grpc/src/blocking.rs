//! Running blocking service calls off the async runtime's worker threads.

use tonic::Status;

/// Runs a blocking service call on tokio's blocking pool and maps its error to a status.
pub(crate) async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> strata_server::Result<T> + Send + 'static,
) -> Result<T, Status> {
    run(move || call().map_err(crate::error::status)).await
}

/// Like [`blocking`] for calls that already answer with a status.
pub(crate) async fn run<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, Status> + Send + 'static,
) -> Result<T, Status> {
    let caller = crate::caller::current();
    tokio::task::spawn_blocking(move || crate::caller::with_caller(&caller, call))
        .await
        .map_err(|e| Status::internal(format!("request task failed: {e}")))?
}
