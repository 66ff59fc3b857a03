//! `[tls]`: which listeners serve TLS, with which certificate (issue 28, RFC 0016).
//!
//! TLS is opt-in and named per listener, so that a configuration says exactly what is
//! encrypted: `listeners = ["http"]`. A listener that cannot serve TLS yet is refused at
//! start with that said, rather than left in clear text behind a setting that looks on.

use std::path::PathBuf;

use serde::Deserialize;
use strata_tls::TlsFiles;

/// The listeners that serve TLS today.
const SERVES_TLS: &[&str] = &["http", "grpc", "thrift"];

/// The listeners a server has that do not serve TLS yet.
const NOT_YET: &[&str] = &["hbase", "zookeeper", "peer"];

/// `[tls]` in the configuration file; absent is no TLS.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFileConfig {
    /// The certificate chain (PEM), leaf first.
    pub cert: Option<PathBuf>,
    /// Its private key (PEM).
    pub key: Option<PathBuf>,
    /// Mutual TLS: the CA bundle (PEM) client certificates must be signed by.
    pub client_ca: Option<PathBuf>,
    /// The listeners that serve TLS (today: `http`, `grpc`, `thrift`).
    #[serde(default)]
    pub listeners: Vec<String>,
}

/// TLS as the server applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    pub files: TlsFiles,
    /// The listeners named, each one that serves TLS.
    pub listeners: Vec<String>,
}

impl TlsSettings {
    /// Whether listener `name` (`http`, `grpc`) serves TLS.
    pub fn serves(&self, name: &str) -> bool {
        self.listeners.iter().any(|l| l == name)
    }
}

impl TlsFileConfig {
    /// The settings, or `None` when `[tls]` is absent; an error names what is missing or
    /// wrong. The files themselves are read when the listeners start.
    pub fn resolve(&self) -> Result<Option<TlsSettings>, String> {
        if self.cert.is_none() && self.key.is_none() && self.listeners.is_empty() {
            if self.client_ca.is_some() {
                return Err("[tls] client_ca needs cert, key and listeners".into());
            }
            return Ok(None);
        }
        let (Some(cert), Some(key)) = (&self.cert, &self.key) else {
            return Err("[tls] needs both cert and key (PEM files)".into());
        };
        if self.listeners.is_empty() {
            return Err(format!(
                "[tls] listeners is empty: name the listeners that serve TLS ({})",
                SERVES_TLS.join(", ")
            ));
        }
        for name in &self.listeners {
            check_listener(name)?;
        }
        Ok(Some(TlsSettings {
            files: TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: self.client_ca.clone(),
            },
            listeners: self.listeners.clone(),
        }))
    }
}

/// The rustls configuration of a listener that offers the ALPN protocols `alpn` (`h2`,
/// `http/1.1`; none for Thrift), with the system clock (the binary is the composition root).
pub fn server_config(
    tls: &TlsSettings,
    alpn: &[&[u8]],
) -> Result<std::sync::Arc<strata_tls::ServerConfig>, String> {
    #[allow(clippy::disallowed_methods)]
    let clock = strata_runtime::clock::system();
    strata_tls::server_config(&tls.files, alpn, clock).map_err(|e| format!("cannot serve TLS: {e}"))
}

fn check_listener(name: &str) -> Result<(), String> {
    if SERVES_TLS.contains(&name) {
        Ok(())
    } else if NOT_YET.contains(&name) {
        Err(format!(
            "[tls] listeners: {name} cannot serve TLS yet (today: {}); remove it, or put a \
             TLS-terminating proxy in front of that port",
            SERVES_TLS.join(", ")
        ))
    } else {
        Err(format!(
            "[tls] listeners: unknown listener {name:?} (the listeners are {}, {})",
            SERVES_TLS.join(", "),
            NOT_YET.join(", ")
        ))
    }
}

/// What an exposed server lacks, or `None` when it listens on loopback only, standalone,
/// or has both TLS and permission checks. Logged at start and shown on the status page.
pub fn exposure_warning(
    listen: std::net::IpAddr,
    cluster: bool,
    tls: Option<&TlsSettings>,
    authorization: bool,
) -> Option<String> {
    if listen.is_loopback() && !cluster {
        return None;
    }
    let reach = if cluster {
        "in cluster mode".to_string()
    } else {
        format!("on {listen}")
    };
    match (tls.is_some(), authorization) {
        (true, true) => None,
        (false, false) => Some(format!(
            "this server listens {reach} with no security configured: no TLS and no \
             authentication, so anyone who can reach its ports can read, change or drop every \
             table ([tls] and [security] in docs/security.md)"
        )),
        (false, true) => Some(format!(
            "this server listens {reach} without TLS: permissions are checked, but credentials \
             and data cross the network in clear text ([tls] in docs/security.md)"
        )),
        (true, false) => Some(format!(
            "this server listens {reach} with TLS but no permission checks: anyone who can \
             connect can read, change or drop every table ([security] in docs/security.md)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Option<TlsSettings>, String> {
        let config: TlsFileConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        config.resolve()
    }

    #[test]
    fn absent_is_off_and_a_complete_section_is_on() {
        assert_eq!(parsed("").unwrap(), None);
        let on = parsed("cert = \"c.pem\"\nkey = \"k.pem\"\nlisteners = [\"http\"]\n")
            .unwrap()
            .unwrap();
        assert!(on.serves("http") && !on.serves("grpc"));
        assert_eq!(on.files.cert, PathBuf::from("c.pem"));
        assert_eq!(on.files.client_ca, None);
    }

    #[test]
    fn an_incomplete_or_unservable_section_is_refused_with_the_reason() {
        let no_key = parsed("cert = \"c.pem\"\nlisteners = [\"http\"]\n").unwrap_err();
        assert!(no_key.contains("both cert and key"), "{no_key}");
        let none_named = parsed("cert = \"c.pem\"\nkey = \"k.pem\"\n").unwrap_err();
        assert!(none_named.contains("listeners is empty"), "{none_named}");
        let hbase =
            parsed("cert = \"c\"\nkey = \"k\"\nlisteners = [\"http\", \"hbase\"]\n").unwrap_err();
        assert!(hbase.contains("hbase cannot serve TLS yet"), "{hbase}");
        let typo = parsed("cert = \"c\"\nkey = \"k\"\nlisteners = [\"htp\"]\n").unwrap_err();
        assert!(typo.contains("unknown listener \"htp\""), "{typo}");
        let ca_alone = parsed("client_ca = \"ca.pem\"\n").unwrap_err();
        assert!(ca_alone.contains("client_ca needs"), "{ca_alone}");
    }

    #[test]
    fn an_exposed_server_is_told_what_it_lacks() {
        let loopback = std::net::IpAddr::from([127, 0, 0, 1]);
        let any = std::net::IpAddr::from([0, 0, 0, 0]);
        assert_eq!(exposure_warning(loopback, false, None, false), None);
        let open = exposure_warning(any, false, None, false).unwrap();
        assert!(
            open.contains("on 0.0.0.0") && open.contains("no TLS"),
            "{open}"
        );
        assert!(exposure_warning(loopback, true, None, false)
            .unwrap()
            .contains("in cluster mode"));
        let tls = parsed("cert = \"c\"\nkey = \"k\"\nlisteners = [\"http\"]\n")
            .unwrap()
            .unwrap();
        assert_eq!(exposure_warning(any, true, Some(&tls), true), None);
        let clear = exposure_warning(any, false, None, true).unwrap();
        assert!(
            clear.contains("without TLS") && clear.contains("permissions are checked"),
            "{clear}"
        );
        let unchecked = exposure_warning(any, false, Some(&tls), false).unwrap();
        assert!(unchecked.contains("no permission checks"), "{unchecked}");
    }
}
