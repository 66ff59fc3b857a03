//! Certificates for tests (feature `test-support`): a CA made on the spot, and server
//! and client certificates it signs. Never for production use: the keys live in memory
//! and in the test's temporary directory.

use std::path::Path;

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls::ClientConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

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

    /// A client certificate whose subject's common name is `user` (no alternative
    /// names) and its key, both PEM: mutual TLS's identity for `user`.
    #[allow(clippy::expect_used)]
    pub fn client_leaf(&self, user: &str) -> (String, String) {
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("parameters");
        params.distinguished_name = rcgen::DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, user);
        let cert = params
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

    /// A client configuration that trusts only this CA and offers `alpn`; with
    /// `identity` (a certificate and key, PEM: see [`TestCa::leaf`]) it presents that
    /// certificate for mutual TLS.
    #[allow(clippy::expect_used)]
    pub fn client_config(
        &self,
        alpn: &[&[u8]],
        identity: Option<(String, String)>,
    ) -> Arc<ClientConfig> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.der()).expect("the CA is a usable root");
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots);
        let mut config = match identity {
            None => builder.with_no_client_auth(),
            Some((cert, key)) => {
                let chain = vec![CertificateDer::from_pem_slice(cert.as_bytes()).expect("PEM")];
                let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).expect("PEM key");
                builder
                    .with_client_auth_cert(chain, key)
                    .expect("a client certificate")
            }
        };
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Arc::new(config)
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
