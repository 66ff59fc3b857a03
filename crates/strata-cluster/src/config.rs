//! What a server needs to join a cluster, and how it tells others where its APIs listen.

use std::time::Duration;

use crate::error::{Error, Result};

/// `strata server --cluster NAME --etcd URLS --store URL [--advertise HOST]`.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The cluster's name: its keys live under `/strata/<name>/` in etcd.
    pub name: String,
    /// etcd endpoints, comma-separated (`http://127.0.0.1:2379`).
    pub etcd: String,
    /// The object store URL (`s3://bucket/prefix`, `file:///dir`, `hdfs://host:port/dir`).
    pub store: String,
    /// Wait added to every object-store call: a simulated distant store for benchmarks
    /// (`[cluster] store_latency_ms`; zero in production).
    pub store_latency: Duration,
    /// The host other servers reach this one at.
    pub advertise: String,
    /// Lease TTL: how long a dead server's regions wait before another takes them.
    pub lease_ttl: Duration,
    /// The master's garbage collector: how often it runs (zero: off) and how old garbage
    /// must be (`[cluster] gc_interval_s`, `gc_min_age_s`).
    pub gc: crate::gc::GcConfig,
}

impl ClusterConfig {
    /// Checks the settings before anything is contacted.
    pub fn validate(&self) -> Result<()> {
        if self.name.is_empty() || self.etcd.is_empty() || self.store.is_empty() {
            return Err(Error::Config(
                "cluster mode needs --cluster NAME, --etcd URL[,URL...] and --store URL".into(),
            ));
        }
        if self.lease_ttl < Duration::from_secs(1) {
            return Err(Error::Config("lease_ttl must be at least 1 s".into()));
        }
        // A server writes an SSTable, then commits the manifest naming it, within its
        // lease: an object younger than a lease may be a commit still on its way.
        if !self.gc.interval.is_zero() && self.gc.min_age <= self.lease_ttl * 2 {
            return Err(Error::Config(format!(
                "gc_min_age_s must be more than twice the lease TTL ({:?})",
                self.lease_ttl
            )));
        }
        Ok(())
    }
}

/// Where a server's APIs listen, as recorded in its membership key and in the election
/// key: `host:thrift:grpc:http:peer:hbase` (a port of 0 is off; `peer` is the internal
/// RPC other servers forward requests to, `hbase` HBase's native RPC; an address written
/// before the native RPC has no `hbase` and reads as 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub host: String,
    pub thrift: u16,
    pub grpc: u16,
    pub http: u16,
    pub peer: u16,
    pub hbase: u16,
}

impl Endpoints {
    /// The recorded form.
    pub fn encode(&self) -> String {
        let Endpoints {
            host,
            thrift,
            grpc,
            http,
            peer,
            hbase,
        } = self;
        format!("{host}:{thrift}:{grpc}:{http}:{peer}:{hbase}")
    }

    /// `host:port` of the internal RPC.
    pub fn peer_address(&self) -> String {
        format!("{}:{}", self.host, self.peer)
    }

    /// Reads the recorded form (hosts may contain ':' only as IPv6 in brackets).
    pub fn parse(text: &str) -> Result<Endpoints> {
        let bad = || {
            Error::Config(format!(
                "bad server address {text:?}; want host:thrift:grpc:http:peer[:hbase]"
            ))
        };
        let host_end = if text.starts_with('[') {
            text.find(']').map(|i| i + 1).ok_or_else(bad)?
        } else {
            text.find(':').ok_or_else(bad)?
        };
        let (host, ports) = text.split_at(host_end);
        let ports: Vec<u16> = ports
            .strip_prefix(':')
            .ok_or_else(bad)?
            .split(':')
            .map(|p| p.parse().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        if host.is_empty() || !(4..=5).contains(&ports.len()) {
            return Err(bad());
        }
        Ok(Endpoints {
            host: host.to_string(),
            thrift: ports[0],
            grpc: ports[1],
            http: ports[2],
            peer: ports[3],
            hbase: ports.get(4).copied().unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_round_trip_and_bad_ones_are_refused() {
        let e = Endpoints {
            host: "[::1]".into(),
            thrift: 9090,
            grpc: 0,
            http: 8080,
            peer: 7070,
            hbase: 16020,
        };
        assert_eq!(Endpoints::parse(&e.encode()).unwrap(), e);
        let before = Endpoints::parse("h:1:2:3:4").unwrap();
        assert_eq!(
            (before.peer, before.hbase),
            (4, 0),
            "an address without hbase"
        );
        assert!(Endpoints::parse("h:1:2:3:4:5:6").is_err());
        assert_eq!(e.peer_address(), "[::1]:7070");
        assert!(Endpoints::parse("host:1:2:3").is_err());
        assert!(Endpoints::parse(":1:2:3:4").is_err());
        assert!(Endpoints::parse("h:x:2:3:4").is_err());
    }
}
