//! [`Authenticator`]: an adapter hands it what a request presented and learns who it is.

use std::net::IpAddr;
use std::sync::Arc;

use strata_access::Identity;
use strata_runtime::clock::Clock;

use crate::failures::FailureLimiter;
use crate::tokens::TokenStore;

/// What a request presented.
#[derive(Debug, Default, Clone, Copy)]
pub struct Credentials<'a> {
    /// The `authorization` header's value, if any.
    pub authorization: Option<&'a str>,
    /// The identity of the connection's verified client certificate (mutual TLS).
    pub certificate: Option<&'a Identity>,
    /// Where the request came from.
    pub peer: Option<IpAddr>,
}

/// Why a request's credentials were refused. The texts carry no secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("the bearer token is not valid")]
    BadToken,
    #[error("the authorization header is not a bearer token")]
    UnsupportedScheme,
    #[error("bearer tokens are not accepted here: the server has no [security] tokens file")]
    NoTokens,
    #[error("too many failed authentications from this address; try again in a minute")]
    TooManyFailures,
}

/// The server's ways of knowing a caller.
#[derive(Debug)]
pub struct Authenticator {
    tokens: Option<TokenStore>,
    failures: FailureLimiter,
}

impl Authenticator {
    pub fn new(tokens: Option<TokenStore>, clock: Arc<dyn Clock>) -> Authenticator {
        Authenticator {
            tokens,
            failures: FailureLimiter::new(clock),
        }
    }

    /// Who presented `credentials`: `Ok(None)` when nothing was presented (an anonymous
    /// caller). A bearer token wins over a certificate; a token that is not valid is an
    /// error, not anonymity, so a client learns its token is wrong.
    pub fn authenticate(
        &self,
        credentials: Credentials<'_>,
    ) -> Result<Option<Identity>, AuthError> {
        let Some(header) = credentials.authorization else {
            return Ok(credentials.certificate.cloned());
        };
        if credentials.peer.is_some_and(|p| !self.failures.may_try(p)) {
            return Err(AuthError::TooManyFailures);
        }
        let outcome = match (crate::tokens::bearer_token(header), &self.tokens) {
            (None, _) => Err(AuthError::UnsupportedScheme),
            (Some(_), None) => Err(AuthError::NoTokens),
            (Some(token), Some(store)) => store.identity(token).ok_or(AuthError::BadToken),
        };
        match outcome {
            Ok(identity) => Ok(Some(identity)),
            Err(e) => {
                if let Some(peer) = credentials.peer {
                    self.failures.failed(peer);
                }
                tracing::info!(peer = ?credentials.peer, reason = %e, "authentication failed");
                Err(e)
            }
        }
    }
}
