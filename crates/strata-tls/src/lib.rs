//! TLS for Strata's listeners (issue 28, RFC 0016).
//!
//! A server's certificate chain and private key come from PEM files ([`TlsFiles`]), and so
//! does, for mutual TLS, the CA that signs client certificates. [`ReloadingCert`] answers
//! every handshake with the files' current contents: a renewed certificate is picked up
//! without a restart, within [`reload::CHECK_EVERY`] of being written. [`server_config`]
//! builds rustls's configuration for one listener (its ALPN protocols differ: `h2` for
//! gRPC, `http/1.1` for HTTP). [`TlsListener`] accepts TCP connections and runs their
//! handshakes concurrently, each bounded by a timeout, so a client that stalls in its
//! handshake holds up no one else.
//!
//! rustls (with the aws-lc-rs provider already used by the object store's S3 client) does
//! the protocol; this crate only loads files, reloads them and schedules handshakes.

mod error;
mod listener;
mod pem;
pub mod reload;
#[cfg(feature = "test-support")]
pub mod test_support;

use std::path::PathBuf;
use std::sync::Arc;

use rustls::server::WebPkiClientVerifier;
use rustls::RootCertStore;
use strata_runtime::clock::Clock;

pub use error::{Result, TlsError};
pub use listener::{TlsListener, HANDSHAKE_TIMEOUT, MAX_PENDING_HANDSHAKES};
pub use reload::ReloadingCert;
pub use rustls::ServerConfig;
/// The tokio-rustls this crate is built on, for servers whose connection type wraps its
/// streams (volo's).
pub use tokio_rustls;
pub use tokio_rustls::server::TlsStream;

/// Where a listener's TLS material is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first (PEM `CERTIFICATE` blocks).
    pub cert: PathBuf,
    /// The leaf's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// Mutual TLS: clients must present a certificate this CA bundle signs.
    pub client_ca: Option<PathBuf>,
}

/// The rustls configuration of one listener: the certificate from `files` (reloaded on
/// change), client certificates required when `files.client_ca` is set, and `alpn` as the
/// protocols offered, most preferred first.
pub fn server_config(
    files: &TlsFiles,
    alpn: &[&[u8]],
    clock: Arc<dyn Clock>,
) -> Result<Arc<ServerConfig>> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let mut roots = RootCertStore::empty();
            for cert in pem::certificates(path)? {
                roots.add(cert).map_err(|e| TlsError::Pem {
                    path: path.clone(),
                    what: format!("not a usable CA certificate: {e}"),
                })?;
            }
            let verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                    .build()
                    .map_err(|e| TlsError::Config(format!("client CA {}: {e}", path.display())))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let resolver = ReloadingCert::load(files, provider, clock)?;
    let mut config = builder.with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}
