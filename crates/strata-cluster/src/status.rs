//! `strata cluster status`: the servers, the master, and every region with its owner and
//! epoch, read from etcd alone (any server may be down).

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;
use strata_coord::{CoordOptions, EtcdCoordinator, EtcdKv};

use crate::error::{Error, Result};

/// One server as registered.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    pub sid: String,
    /// `host:thrift:grpc:http:peer`.
    pub addr: String,
    pub incarnation: i64,
}

/// One region of the directory.
#[derive(Debug, Clone, Serialize)]
pub struct RegionStatus {
    pub id: u64,
    pub table: String,
    pub start: String,
    pub end: String,
    pub state: String,
    pub owner: Option<String>,
    pub epoch: i64,
}

/// The whole picture.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterStatus {
    pub cluster: String,
    pub master: Option<String>,
    pub servers: Vec<ServerStatus>,
    pub regions: Vec<RegionStatus>,
    pub replayed_streams: Vec<String>,
}

fn printable(key: &[u8]) -> String {
    key.iter()
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect()
}

impl ClusterStatus {
    /// Reads the status of cluster `name` from etcd at `etcd`.
    // `strata cluster status`'s own connection: a composition root for one read.
    #[allow(clippy::disallowed_methods)]
    pub fn read(etcd: &str, name: &str) -> Result<ClusterStatus> {
        let etcd_error = |source| Error::Etcd {
            endpoints: etcd.to_string(),
            source,
        };
        let kv = EtcdKv::connect(etcd, Duration::from_secs(2)).map_err(etcd_error)?;
        let coord =
            EtcdCoordinator::new(kv, strata_runtime::clock::system(), CoordOptions::new(name))
                .map_err(etcd_error)?;
        Self::from_coordinator(&coord, etcd, name)
    }

    /// Reads the status through an open coordinator (a server's own).
    pub fn from_coordinator<K: strata_coord::MetaKv>(
        coord: &strata_coord::KvCoordinator<K>,
        etcd: &str,
        name: &str,
    ) -> Result<ClusterStatus> {
        let etcd_error = |source| Error::Etcd {
            endpoints: etcd.to_string(),
            source,
        };
        let servers = coord
            .live_servers()
            .map_err(etcd_error)?
            .into_iter()
            .map(|s| ServerStatus {
                sid: s.sid,
                addr: s.addr,
                incarnation: s.incarnation,
            })
            .collect();
        let master = coord.master().map_err(etcd_error)?.map(|m| m.sid);
        let mut regions = Vec::new();
        for region in coord.regions().map_err(etcd_error)? {
            let owner = coord.owner(region.id).map_err(etcd_error)?;
            regions.push(RegionStatus {
                id: region.id,
                table: region.record.table.clone(),
                start: printable(&region.record.start),
                end: printable(&region.record.end),
                state: format!("{:?}", region.record.state).to_lowercase(),
                owner: owner.map(|o| o.sid),
                epoch: region.epoch,
            });
        }
        Ok(ClusterStatus {
            cluster: name.to_string(),
            master,
            servers,
            regions,
            replayed_streams: coord.retired_streams().map_err(etcd_error)?,
        })
    }

    /// The status as text for a terminal.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let master = self.master.as_deref().unwrap_or("(none)");
        let _ = writeln!(out, "cluster {}  master {master}", self.cluster);
        let _ = writeln!(out, "\nservers ({}):", self.servers.len());
        for s in &self.servers {
            let role = if Some(&s.sid) == self.master.as_ref() {
                "master"
            } else {
                "server"
            };
            let serving = self
                .regions
                .iter()
                .filter(|r| r.owner.as_ref() == Some(&s.sid))
                .count();
            let _ = writeln!(
                out,
                "  {:<16} {:<38} incarnation {:<8} {role:<6} regions {serving}",
                s.sid, s.addr, s.incarnation
            );
        }
        let _ = writeln!(out, "\nregions ({}):", self.regions.len());
        for r in &self.regions {
            let owner = r.owner.as_deref().unwrap_or("-");
            let _ = writeln!(
                out,
                "  {:>6} {:<24} [{:?}, {:?})  {:<8} owner {owner:<16} epoch {}",
                r.id, r.table, r.start, r.end, r.state, r.epoch
            );
        }
        out
    }
}
