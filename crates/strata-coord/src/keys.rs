//! Where each piece of cluster metadata lives in etcd (`docs/format.md`, "Cluster metadata
//! in etcd"). Everything sits under `/strata/<cluster>/`, so clusters can share an etcd.

use crate::error::{Error, Result};

/// A region's id. Formatted with 20 digits so that etcd's key order is numeric order.
pub type RegionId = u64;

/// The key layout of one cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    root: String,
}

impl Keys {
    /// The layout of cluster `cluster` (letters, digits, '-', '_', '.').
    pub fn new(cluster: &str) -> Result<Self> {
        check_name("cluster name", cluster)?;
        Ok(Keys {
            root: format!("/strata/{cluster}/"),
        })
    }

    /// `/strata/<c>/`: everything of the cluster.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// `/strata/<c>/servers/`: one key per live server, attached to its lease.
    pub fn servers(&self) -> String {
        format!("{}servers/", self.root)
    }

    pub fn server(&self, sid: &str) -> String {
        format!("{}{sid}", self.servers())
    }

    /// `/strata/<c>/master`: the elected master, attached to its lease.
    pub fn master(&self) -> String {
        format!("{}master", self.root)
    }

    /// `/strata/<c>/regions/`: the region directory. A record's mod revision is its epoch.
    pub fn regions(&self) -> String {
        format!("{}regions/", self.root)
    }

    pub fn region(&self, rid: RegionId) -> String {
        format!("{}{rid:020}", self.regions())
    }

    /// `/strata/<c>/own/<rid>`: who serves the region now, attached to its lease.
    pub fn owners(&self) -> String {
        format!("{}own/", self.root)
    }

    pub fn owner(&self, rid: RegionId) -> String {
        format!("{}{rid:020}", self.owners())
    }

    /// `/strata/<c>/manifests/<rid>/<family>`: the committed manifest of a store.
    pub fn manifests(&self) -> String {
        format!("{}manifests/", self.root)
    }

    pub fn manifest(&self, rid: RegionId, family: &str) -> String {
        format!("{}{rid:020}/{family}", self.manifests())
    }

    /// `/strata/<c>/wal/<stream>`: WAL streams whose edits every region has flushed since
    /// (a new master replayed and flushed them), so no later recovery reads them.
    pub fn streams(&self) -> String {
        format!("{}wal/", self.root)
    }

    pub fn stream(&self, stream: &str) -> String {
        format!("{}{stream}", self.streams())
    }

    /// `/strata/<c>/catalog/`: namespaces (`ns/<name>`) and tables (`table/<ns:name>`),
    /// written by the master; every server follows them.
    pub fn catalog(&self) -> String {
        format!("{}catalog/", self.root)
    }

    /// `/strata/<c>/decommissioned/<sid>`: servers the master places no region on.
    pub fn decommissioned(&self) -> String {
        format!("{}decommissioned/", self.root)
    }

    /// `/strata/<c>/splits/<rid>`: a region's owner asks the master to split it.
    pub fn split_requests(&self) -> String {
        format!("{}splits/", self.root)
    }

    pub fn split_request(&self, rid: RegionId) -> String {
        format!("{}{rid:020}", self.split_requests())
    }

    /// `/strata/<c>/held/<sid>`: the obsolete SSTables a live server still reads (the
    /// garbage collector leaves them), attached to its lease.
    pub fn held(&self) -> String {
        format!("{}held/", self.root)
    }

    pub fn held_by(&self, sid: &str) -> String {
        format!("{}{sid}", self.held())
    }

    /// `/strata/<c>/load/<sid>`: the requests per second of each region a live server
    /// serves (the balancer's input), attached to its lease.
    pub fn loads(&self) -> String {
        format!("{}load/", self.root)
    }

    pub fn load_of(&self, sid: &str) -> String {
        format!("{}{sid}", self.loads())
    }

    /// The region id at the end of a directory or owner key.
    pub fn region_id_of(&self, key: &str) -> Result<RegionId> {
        let digits = key.rsplit('/').next().unwrap_or_default();
        digits
            .parse()
            .map_err(|_| Error::corruption(key, "the key does not end in a region id"))
    }

    /// The server id at the end of a membership key.
    pub fn server_id_of<'k>(&self, key: &'k str) -> &'k str {
        key.strip_prefix(&self.servers()).unwrap_or(key)
    }
}

/// Ids that become key segments: non-empty, no '/', printable ASCII.
pub fn check_name(what: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} {name:?} must be 1-128 of [A-Za-z0-9-_.:]"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_region_id_and_round_trip() {
        let keys = Keys::new("c1").unwrap();
        assert_eq!(keys.region(42), "/strata/c1/regions/00000000000000000042");
        assert!(keys.region(9) < keys.region(10));
        assert_eq!(keys.region_id_of(&keys.owner(77)).unwrap(), 77);
        assert_eq!(
            keys.manifest(3, "cf"),
            "/strata/c1/manifests/00000000000000000003/cf"
        );
        assert_eq!(keys.server_id_of(&keys.server("rs-1")), "rs-1");
        assert!(Keys::new("a/b").is_err());
        assert!(check_name("server id", "").is_err());
    }
}
