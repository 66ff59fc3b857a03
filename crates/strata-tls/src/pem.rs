//! Certificates and keys from PEM files.

use std::path::Path;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::error::{Result, TlsError};

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn bad(path: &Path, what: impl Into<String>) -> TlsError {
    TlsError::Pem {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// Every `CERTIFICATE` block of the file, in order; at least one.
pub(crate) fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let bytes = read(path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| bad(path, format!("unreadable PEM: {e}")))?;
    if certs.is_empty() {
        return Err(bad(path, "no PEM CERTIFICATE block"));
    }
    Ok(certs)
}

/// The file's private key (the first PKCS#8, PKCS#1 or SEC1 block).
pub(crate) fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>> {
    let bytes = read(path)?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| {
        bad(
            path,
            format!("no usable private key (PKCS#8, PKCS#1 or SEC1 PEM block): {e}"),
        )
    })
}
