//! Who a gRPC request is from. [`AuthLayer`] authenticates each request (a bearer token in
//! its `authorization` metadata, as Bigtable's clients send one, else the connection's
//! client certificate) before any handler runs, and refuses bad credentials with
//! `UNAUTHENTICATED`. It then polls the request's handler with the service's caller set on
//! the polling thread (`strata_server::access::as_caller`), so every service call a
//! handler makes on its task sees it; work a handler hands to the blocking pool takes the
//! caller along ([`current`], [`with_caller`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use strata_access::Identity;
use strata_auth::{Authenticator, Credentials};
use strata_server::access::{as_caller, Caller};

/// The caller of the request being handled (anonymous outside [`AuthLayer`]).
pub fn current() -> Caller {
    strata_server::access::current()
}

/// A future polled as `caller`.
struct PolledAs<F> {
    caller: Caller,
    inner: std::pin::Pin<Box<F>>,
}

impl<F: std::future::Future> std::future::Future for PolledAs<F> {
    type Output = F::Output;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        as_caller(this.caller.clone(), || this.inner.as_mut().poll(cx))
    }
}

/// Runs `f` as the current request's caller.
pub fn with_caller<R>(caller: &Caller, f: impl FnOnce() -> R) -> R {
    as_caller(caller.clone(), f)
}

/// What a connection knows of its client, for every request on it.
#[derive(Debug, Clone, Default)]
pub struct PeerInfo {
    pub addr: Option<SocketAddr>,
    /// The identity of its verified client certificate (mutual TLS).
    pub certificate: Option<Arc<Identity>>,
}

/// Authenticates every request.
#[derive(Clone)]
pub struct AuthLayer {
    pub authenticator: Option<Arc<Authenticator>>,
}

impl<S> tower::Layer<S> for AuthLayer {
    type Service = Authenticated<S>;

    fn layer(&self, inner: S) -> Authenticated<S> {
        Authenticated {
            inner,
            authenticator: self.authenticator.clone(),
        }
    }
}

#[derive(Clone)]
pub struct Authenticated<S> {
    inner: S,
    authenticator: Option<Arc<Authenticator>>,
}

type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl<S, B> tower::Service<http::Request<B>> for Authenticated<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let caller = match caller_of(self.authenticator.as_deref(), &request) {
            Ok(caller) => caller,
            Err(status) => {
                let response = status.into_http();
                return Box::pin(async move { Ok(response) });
            }
        };
        let future = self.inner.call(request);
        Box::pin(PolledAs {
            caller,
            inner: Box::pin(future),
        })
    }
}

fn caller_of<B>(
    authenticator: Option<&Authenticator>,
    request: &http::Request<B>,
) -> Result<Caller, tonic::Status> {
    let peer = request.extensions().get::<PeerInfo>();
    let Some(authenticator) = authenticator else {
        return Ok(peer
            .and_then(|p| p.certificate.as_deref())
            .map_or(Caller::Anonymous, |id| Caller::user(id.clone())));
    };
    let authorization = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let credentials = Credentials {
        authorization,
        certificate: peer.and_then(|p| p.certificate.as_deref()),
        peer: peer.and_then(|p| p.addr).map(|a| a.ip()),
    };
    match authenticator.authenticate(credentials) {
        Ok(Some(identity)) => Ok(Caller::user(identity)),
        Ok(None) => Ok(Caller::Anonymous),
        Err(e) => Err(tonic::Status::unauthenticated(e.to_string())),
    }
}
