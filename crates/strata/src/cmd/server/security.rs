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
//! ```

use serde::Deserialize;
use strata_access::Subject;
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
}

/// Security as the server applies it.
#[derive(Debug, Clone, Default)]
pub struct SecuritySettings {
    pub access: AccessConfig,
    /// The native RPC believes the user its connection header names.
    pub simple_authentication: bool,
}

impl SecurityFileConfig {
    pub fn resolve(&self) -> Result<SecuritySettings, String> {
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
        Ok(SecuritySettings {
            access: AccessConfig {
                enabled: self.authorization,
                superusers,
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
        }
    }

    #[test]
    fn absent_is_no_checks() {
        let settings = SecurityFileConfig::default().resolve().unwrap();
        assert!(!settings.access.enabled && !settings.simple_authentication);
    }

    #[test]
    fn superusers_are_users_and_groups() {
        let settings = config(true, &["admin", "@ops"], Some("simple"))
            .resolve()
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
            .resolve()
            .unwrap_err()
            .contains("superusers"));
        assert!(config(false, &["a"], None)
            .resolve()
            .unwrap_err()
            .contains("authorization"));
        assert!(config(true, &["@"], None)
            .resolve()
            .unwrap_err()
            .contains("\"@\""));
        assert!(config(true, &["a"], Some("kerberos"))
            .resolve()
            .unwrap_err()
            .contains("kerberos"));
    }
}
