//! A server certificate that follows its files.
//!
//! Certificates are renewed while servers run (an ACME client or a secrets agent rewrites
//! the PEM files). [`ReloadingCert`] looks at the files' size and modification time at
//! most every [`CHECK_EVERY`], on a handshake, and loads them again when either changed.
//! A new pair that does not load (a half-written file, a key that does not match) is
//! logged and the previous one kept, and it is tried again at the next check: a server
//! never stops answering because of a bad renewal.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::RwLock;
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use strata_runtime::clock::Clock;

use crate::error::{Result, TlsError};
use crate::{pem, TlsFiles};

/// How often the files are looked at (on a handshake; an idle server reads nothing).
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// What identifies a version of a file: its size and modification time.
type FileStamp = Option<(u64, SystemTime)>;

fn stamp(path: &Path) -> FileStamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// The certificate every handshake gets, reloaded when its files change.
#[derive(Debug)]
pub struct ReloadingCert {
    cert_path: PathBuf,
    key_path: PathBuf,
    provider: Arc<CryptoProvider>,
    clock: Arc<dyn Clock>,
    loaded: RwLock<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    key: Arc<CertifiedKey>,
    stamps: (FileStamp, FileStamp),
    checked: Instant,
}

impl ReloadingCert {
    /// Loads `files`' certificate chain and key; an error says which file is wrong.
    pub fn load(
        files: &TlsFiles,
        provider: Arc<CryptoProvider>,
        clock: Arc<dyn Clock>,
    ) -> Result<ReloadingCert> {
        let stamps = (stamp(&files.cert), stamp(&files.key));
        let key = certified_key(&files.cert, &files.key, &provider)?;
        Ok(ReloadingCert {
            cert_path: files.cert.clone(),
            key_path: files.key.clone(),
            provider,
            loaded: RwLock::new(Loaded {
                key,
                stamps,
                checked: clock.now(),
            }),
            clock,
        })
    }

    /// The certificate to present now, after loading the files again if they changed.
    pub fn current(&self) -> Arc<CertifiedKey> {
        let now = self.clock.now();
        {
            let loaded = self.loaded.read();
            if now.saturating_duration_since(loaded.checked) < CHECK_EVERY {
                return Arc::clone(&loaded.key);
            }
        }
        let mut loaded = self.loaded.write();
        if now.saturating_duration_since(loaded.checked) >= CHECK_EVERY {
            loaded.checked = now;
            let stamps = (stamp(&self.cert_path), stamp(&self.key_path));
            if stamps != loaded.stamps {
                self.reload(&mut loaded, stamps);
            }
        }
        Arc::clone(&loaded.key)
    }

    fn reload(&self, loaded: &mut Loaded, stamps: (FileStamp, FileStamp)) {
        match certified_key(&self.cert_path, &self.key_path, &self.provider) {
            Ok(key) => {
                loaded.key = key;
                loaded.stamps = stamps;
                tracing::info!(cert = %self.cert_path.display(), "TLS certificate reloaded");
            }
            // The stamps stay old, so the next check tries again (the writer may not be done).
            Err(e) => tracing::warn!(
                error = %e,
                "the TLS certificate files changed but do not load; the previous certificate stays"
            ),
        }
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

fn certified_key(cert: &Path, key: &Path, provider: &CryptoProvider) -> Result<Arc<CertifiedKey>> {
    let chain = pem::certificates(cert)?;
    let private = pem::private_key(key)?;
    let certified =
        CertifiedKey::from_der(chain, private, provider).map_err(|e| TlsError::Pem {
            path: key.to_path_buf(),
            what: format!(
                "does not go with the certificate in {}: {e}",
                cert.display()
            ),
        })?;
    Ok(Arc::new(certified))
}
