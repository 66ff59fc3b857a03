//! `[security]`: whether permissions are checked (HBase's `hbase.security.authorization`),
//! who the superusers are (`hbase.superuser`), and how a native RPC connection says who it
//! is (issue 28, `docs/security.md`).
//!
//! ```toml
//! [security]
//! authorization = true
//! superusers = ["admin", "@ops"]
//! # HBase's SIMPLE authentication on the native RPC: the user its connection header
//! # names is believed. Without it every native RPC caller is anonymous.
//! authentication = "simple"
//! # Bearer tokens for gRPC and REST: lines of `sha256:<hex of the token> user [@g1,@g2]`.
//! tokens = "/etc/strata/tokens"
//! ```

use std::sync::Arc;

use serde::Deserialize;
use strata_access::Subject;
use strata_auth::{Authenticator, TokenStore};
use strata_runtime::clock::Clock;
use strata_server::access::AccessConfig;

/// `[security]` in the configuration file; absent is no checks.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecurityFileConfig {
    #[serde(default)]
    pub authorization: bool,
    #[serde(default)]
    pub superusers: Vec<String>,
    /// `"simple"`, or absent.
    pub authentication: Option<String>,
    /// A token file: bearer tokens (by their SHA-256) and who each stands for, for gRPC
    /// and REST (`strata_auth::TokenFile`).
    pub tokens: Option<std::path::PathBuf>,
}

/// Security as the server applies it.
#[derive(Debug, Clone, Default)]
pub struct SecuritySettings {
    pub access: AccessConfig,
    /// The native RPC believes the user its connection header names.
    pub simple_authentication: bool,
}

impl SecurityFileConfig {
    /// The settings; the token file is read now, so a bad one stops the start.
    pub fn resolve(&self, clock: &Arc<dyn Clock>) -> Result<SecuritySettings, String> {
        let superusers = self
            .superusers
            .iter()
            .map(|name| {
                Subject::parse(name).ok_or_else(|| {
                    format!("[security] superusers: {name:?} is not a user or @group")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !self.authorization && !superusers.is_empty() {
            return Err("[security] superusers needs authorization = true".into());
        }
        if self.authorization && superusers.is_empty() {
            return Err(
                "[security] authorization = true needs superusers: nobody could grant anything"
                    .into(),
            );
        }
        let simple_authentication = match self.authentication.as_deref() {
            None => false,
            Some("simple") => true,
            Some(other) => {
                return Err(format!(
                    "[security] authentication = {other:?}: only \"simple\" is supported so far"
                ))
            }
        };
        let authenticator = match &self.tokens {
            None => None,
            Some(path) => {
                let store = TokenStore::load(path, Arc::clone(clock))
                    .map_err(|e| format!("[security] tokens: {e}"))?;
                Some(Arc::new(Authenticator::new(Some(store), Arc::clone(clock))))
            }
        };
        Ok(SecuritySettings {
            access: AccessConfig {
                enabled: self.authorization,
                superusers,
                authenticator,
            },
            simple_authentication,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(
        authorization: bool,
        superusers: &[&str],
        authentication: Option<&str>,
    ) -> SecurityFileConfig {
        SecurityFileConfig {
            authorization,
            superusers: superusers.iter().map(|s| s.to_string()).collect(),
            authentication: authentication.map(str::to_string),
            tokens: None,
        }
    }

    fn clock() -> Arc<dyn Clock> {
        Arc::new(strata_runtime::clock::ManualClock::new(0))
    }

    #[test]
    fn absent_is_no_checks() {
        let settings = SecurityFileConfig::default().resolve(&clock()).unwrap();
        assert!(settings.access.authenticator.is_none());
        assert!(!settings.access.enabled && !settings.simple_authentication);
    }

    #[test]
    fn superusers_are_users_and_groups() {
        let settings = config(true, &["admin", "@ops"], Some("simple"))
            .resolve(&clock())
            .unwrap();
        assert_eq!(
            settings.access.superusers,
            vec![Subject::User("admin".into()), Subject::Group("ops".into())]
        );
        assert!(settings.simple_authentication);
    }

    #[test]
    fn settings_that_cannot_work_are_refused_by_name() {
        assert!(config(true, &[], None)
            .resolve(&clock())
            .unwrap_err()
            .contains("superusers"));
        assert!(config(false, &["a"], None)
            .resolve(&clock())
            .unwrap_err()
            .contains("authorization"));
        assert!(config(true, &["@"], None)
            .resolve(&clock())
            .unwrap_err()
            .contains("\"@\""));
        assert!(config(true, &["a"], Some("kerberos"))
            .resolve(&clock())
            .unwrap_err()
            .contains("kerberos"));
    }
}

#[cfg(test)]
mod token_file_tests {
    use super::*;

    #[test]
    fn a_token_file_is_read_at_start_and_a_bad_one_stops_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        let clock: Arc<dyn Clock> = Arc::new(strata_runtime::clock::ManualClock::new(0));
        let mut config = SecurityFileConfig {
            tokens: Some(path.clone()),
            ..SecurityFileConfig::default()
        };
        let missing = config.resolve(&clock).unwrap_err();
        assert!(missing.contains("[security] tokens"), "{missing}");
        std::fs::write(
            &path,
            format!("sha256:{} alice\n", strata_auth::hash_token("t")),
        )
        .unwrap();
        assert!(config
            .resolve(&clock)
            .unwrap()
            .access
            .authenticator
            .is_some());
        std::fs::write(&path, "nonsense\n").unwrap();
        config.tokens = Some(path);
        assert!(config.resolve(&clock).unwrap_err().contains("line 1"));
    }
}
