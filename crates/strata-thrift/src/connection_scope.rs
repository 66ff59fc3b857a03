//! Which connection a request came on, for the handler: volo's handler methods see only
//! their arguments, so the connection's decoder tags each request's context with the
//! connection's id, and [`ScopeLayer`] makes that id visible to the call as a task-local.
//! It is used to charge scanners to the connection that opened them
//! (`limits.max_scanners_per_client`).

use volo::{Layer, Service};
use volo_thrift::context::ServerContext;

/// A connection's id, unique for the life of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnectionId(pub u64);

tokio::task_local! {
    static CONNECTION: ConnectionId;
}

/// The connection of the request being handled, if the call runs under [`ScopeLayer`].
pub fn current() -> Option<ConnectionId> {
    CONNECTION.try_with(|id| *id).ok()
}

/// Runs each call with its connection's id in scope (see [`current`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ScopeLayer;

impl<S> Layer<S> for ScopeLayer {
    type Service = Scoped<S>;

    fn layer(self, inner: S) -> Scoped<S> {
        Scoped { inner }
    }
}

pub struct Scoped<S> {
    inner: S,
}

impl<S, Req> Service<ServerContext, Req> for Scoped<S>
where
    S: Service<ServerContext, Req> + Send + Sync,
    Req: Send,
{
    type Response = S::Response;
    type Error = S::Error;

    async fn call(&self, cx: &mut ServerContext, req: Req) -> Result<S::Response, S::Error> {
        match cx.extensions.get::<ConnectionId>().copied() {
            Some(id) => CONNECTION.scope(id, self.inner.call(cx, req)).await,
            None => self.inner.call(cx, req).await,
        }
    }
}
