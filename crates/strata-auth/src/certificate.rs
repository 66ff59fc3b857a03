//! The identity a verified client certificate names: its subject's common name, else its
//! first DNS name or email address. rustls has verified the chain against the configured
//! client CA before anything here runs; this only reads the name.

use strata_access::Identity;
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::{FromDer, X509Certificate};

/// The user a client certificate (DER) names, or `None` when it names nobody.
pub fn identity_of_certificate(der: &[u8]) -> Option<Identity> {
    let (_, cert) = X509Certificate::from_der(der).ok()?;
    let common_name = cert
        .subject()
        .iter_common_name()
        .find_map(|cn| cn.as_str().ok().map(str::to_string));
    let alternative = || {
        let names = cert.subject_alternative_name().ok().flatten()?;
        names
            .value
            .general_names
            .iter()
            .find_map(|name| match name {
                GeneralName::DNSName(n) | GeneralName::RFC822Name(n) => Some(n.to_string()),
                _ => None,
            })
    };
    common_name
        .or_else(alternative)
        .filter(|name| !name.is_empty() && !name.starts_with('@'))
        .map(|name| Identity::user(&name))
}

#[cfg(test)]
mod tests {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::CertificateDer;
    use strata_tls::test_support::TestCa;

    use super::*;

    fn der(pem: &str) -> Vec<u8> {
        CertificateDer::from_pem_slice(pem.as_bytes())
            .unwrap()
            .to_vec()
    }

    #[test]
    fn the_common_name_is_the_user() {
        let ca = TestCa::new("test CA");
        let (cert, _) = ca.client_leaf("alice");
        assert_eq!(
            identity_of_certificate(&der(&cert)),
            Some(Identity::user("alice"))
        );
    }

    #[test]
    fn bytes_that_are_no_certificate_name_nobody() {
        assert_eq!(identity_of_certificate(b"not a certificate"), None);
        assert_eq!(identity_of_certificate(&[]), None);
    }
}
