//! Certificates for tests (feature `test-support`): a CA made on the spot, and server
//! and client certificates it signs. Never for production use: the keys live in memory
//! and in the test's temporary directory.

use std::path::Path;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls_pki_types::CertificateDer;

use crate::TlsFiles;

/// A certificate authority that signs certificates for tests.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa").finish_non_exhaustive()
    }
}

impl TestCa {
    /// A new CA called `name`. Panics if rcgen cannot make one (a test setup failure).
    #[allow(clippy::expect_used)]
    pub fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().expect("a CA key");
        let issuer = CertifiedIssuer::self_signed(params, key).expect("a CA certificate");
        TestCa { issuer }
    }

    /// A certificate for `name` (a DNS name as its subject alternative name) and its key,
    /// both PEM.
    #[allow(clippy::expect_used)]
    pub fn leaf(&self, name: &str) -> (String, String) {
        let key = KeyPair::generate().expect("a key");
        let cert = CertificateParams::new(vec![name.to_string()])
            .expect("certificate parameters")
            .signed_by(&key, &self.issuer)
            .expect("a signed certificate");
        (cert.pem(), key.serialize_pem())
    }

    /// The CA's own certificate, for a client's trusted roots.
    pub fn der(&self) -> CertificateDer<'static> {
        self.issuer.der().clone()
    }

    /// The CA's own certificate, PEM (a `client_ca` file).
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// Writes a `localhost` certificate and key to `dir` (server.pem, server.key) and
    /// answers them as a listener's files.
    #[allow(clippy::expect_used)]
    pub fn write_server_files(&self, dir: &Path) -> TlsFiles {
        let (cert, key) = self.leaf("localhost");
        std::fs::write(dir.join("server.pem"), cert).expect("server.pem written");
        std::fs::write(dir.join("server.key"), key).expect("server.key written");
        TlsFiles {
            cert: dir.join("server.pem"),
            key: dir.join("server.key"),
            client_ca: None,
        }
    }
}
