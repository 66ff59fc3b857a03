//! Namespace administration: list, describe, create, modify and drop (HBase's namespace
//! descriptors). The configurations live in the directory and in the catalog, which is
//! written first, under the admin lock.

use std::collections::BTreeMap;

use super::TableDirectory;
use crate::catalog::NamespaceConfig;
use crate::error::{Result, ServiceError};
use crate::names::{check_namespace, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};

/// The namespaces of a directory (see [`TableDirectory::namespaces`]).
pub struct Namespaces<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl Namespaces<'_> {
    /// Every namespace.
    pub fn list(&self) -> Vec<String> {
        self.dir.namespace_configs.read().keys().cloned().collect()
    }

    /// A namespace's configuration.
    pub fn config(&self, namespace: &str) -> Result<NamespaceConfig> {
        self.dir
            .namespace_configs
            .read()
            .get(namespace)
            .cloned()
            .ok_or_else(|| ServiceError::NamespaceNotFound(namespace.to_string()))
    }

    /// Creates a namespace with `config`.
    pub fn create(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        check_namespace(namespace)?;
        let _admin = self.dir.lock_admin();
        if self.exists(namespace) {
            return Err(ServiceError::NamespaceExists(namespace.to_string()));
        }
        self.put(namespace, config)
    }

    /// Replaces an existing namespace's configuration with `config`, as HBase's
    /// modifyNamespace does.
    pub fn modify(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        let _admin = self.dir.lock_admin();
        if !self.exists(namespace) {
            return Err(ServiceError::NamespaceNotFound(namespace.to_string()));
        }
        self.put(namespace, config)
    }

    /// Drops an empty namespace (the default and system namespaces cannot be dropped).
    pub fn delete(&self, namespace: &str) -> Result<()> {
        let _admin = self.dir.lock_admin();
        if namespace == DEFAULT_NAMESPACE || namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(format!(
                "namespace {namespace} cannot be dropped"
            )));
        }
        if !self.exists(namespace) {
            return Err(ServiceError::NamespaceNotFound(namespace.to_string()));
        }
        if self
            .dir
            .tables
            .read()
            .keys()
            .any(|t| t.namespace == namespace)
        {
            return Err(ServiceError::NamespaceNotEmpty(namespace.to_string()));
        }
        self.dir.catalog.delete_namespace(namespace)?;
        self.dir.namespace_configs.write().remove(namespace);
        Ok(())
    }

    /// True if `namespace` exists.
    pub(super) fn exists(&self, namespace: &str) -> bool {
        self.dir.namespace_configs.read().contains_key(namespace)
    }

    /// Writes `config` to the catalog, then here. The caller holds the admin lock.
    fn put(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        self.dir.catalog.put_namespace(namespace, &config)?;
        self.dir
            .namespace_configs
            .write()
            .insert(namespace.to_string(), config);
        Ok(())
    }
}

/// `namespaces` with the two every cluster has, which the catalog does not list.
pub(super) fn with_builtin_namespaces(
    mut namespaces: BTreeMap<String, NamespaceConfig>,
) -> BTreeMap<String, NamespaceConfig> {
    for builtin in [DEFAULT_NAMESPACE, SYSTEM_NAMESPACE] {
        namespaces.entry(builtin.to_string()).or_default();
    }
    namespaces
}
