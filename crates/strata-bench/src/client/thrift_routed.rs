//! Region-aware routing for the Thrift target (`--route-by-region`). Like HBase's native
//! client, which reads `hbase:meta`, each worker sends a row's request straight to the
//! server that `getTableRegions` names for the row's region, instead of through one entry
//! server that forwards it. This measures a cluster without the forwarding hop; happybase
//! and the other Thrift clients cannot route, so it is a benchmark mode, not a client.
//!
//! The map is read once, when the first worker connects. A region moved since is still
//! answered (its old server forwards), only one hop dearer.

use std::net::{SocketAddr, ToSocketAddrs};

use super::thrift::{err, ThriftClient};
use super::{Client, RowWrite, ScanOutcome};
use crate::error::BenchResult;

/// Which server serves each region of the table, by start key.
#[derive(Debug)]
pub struct RegionMap {
    /// Region start keys, ascending (the first is empty).
    starts: Vec<Vec<u8>>,
    /// For each region, its server's index in `servers`.
    owner: Vec<usize>,
    /// The distinct Thrift addresses.
    pub servers: Vec<SocketAddr>,
}

/// One region as `getTableRegions` locates it: start key, host, Thrift port.
pub type Located = (Vec<u8>, Option<String>, Option<i32>);

impl RegionMap {
    /// The map of `regions`; a region without a location, and the host `localhost`, are
    /// taken to be the entry server's.
    pub fn new(mut regions: Vec<Located>, entry: SocketAddr) -> BenchResult<RegionMap> {
        regions.sort_by(|a, b| a.0.cmp(&b.0));
        let mut map = RegionMap {
            starts: Vec::new(),
            owner: Vec::new(),
            servers: vec![entry],
        };
        for (start, host, port) in regions {
            let addr = match (host.as_deref(), port) {
                (Some(host), Some(port)) => resolve(host, port, entry)?,
                _ => entry,
            };
            let index = match map.servers.iter().position(|s| *s == addr) {
                Some(index) => index,
                None => {
                    map.servers.push(addr);
                    map.servers.len() - 1
                }
            };
            map.starts.push(start);
            map.owner.push(index);
        }
        Ok(map)
    }

    /// The index in `servers` of the server serving `row`.
    fn server_of(&self, row: &[u8]) -> usize {
        let region = self
            .starts
            .partition_point(|start| start.as_slice() <= row)
            .saturating_sub(1);
        self.owner.get(region).copied().unwrap_or(0)
    }
}

fn resolve(host: &str, port: i32, entry: SocketAddr) -> BenchResult<SocketAddr> {
    let port = u16::try_from(port).map_err(|_| err(format!("region port {port}")))?;
    if host == "localhost" {
        return Ok(SocketAddr::new(entry.ip(), port));
    }
    (host, port)
        .to_socket_addrs()
        .map_err(|e| err(format!("cannot resolve region server {host}:{port}: {e}")))?
        .next()
        .ok_or_else(|| err(format!("region server {host}:{port} has no address")))
}

/// A worker's connections, one per server, and the map that picks one per row.
pub(super) struct RoutedClient {
    pub(super) map: std::sync::Arc<RegionMap>,
    /// One per `map.servers` entry.
    pub(super) clients: Vec<ThriftClient>,
}

impl RoutedClient {
    fn client_for(&mut self, row: &[u8]) -> &mut ThriftClient {
        let index = self.map.server_of(row);
        // `clients` has one entry per server, so the index is always in range.
        let last = self.clients.len().saturating_sub(1);
        &mut self.clients[index.min(last)]
    }

    /// `items` split by the server of each one's row, in the order servers come up.
    fn by_server<T: Clone>(&self, items: &[T], row: impl Fn(&T) -> &[u8]) -> Vec<(usize, Vec<T>)> {
        let mut groups: Vec<(usize, Vec<T>)> = Vec::new();
        for item in items {
            let server = self.map.server_of(row(item));
            match groups.iter_mut().find(|(s, _)| *s == server) {
                Some((_, group)) => group.push(item.clone()),
                None => groups.push((server, vec![item.clone()])),
            }
        }
        groups
    }
}

impl Client for RoutedClient {
    fn write(&mut self, rows: &[RowWrite]) -> BenchResult<()> {
        for (server, group) in self.by_server(rows, |r| &r.key) {
            self.clients[server].write(&group)?;
        }
        Ok(())
    }

    fn read(&mut self, row: &[u8]) -> BenchResult<Option<usize>> {
        self.client_for(row).read(row)
    }

    fn read_many(&mut self, rows: &[Vec<u8>]) -> BenchResult<usize> {
        let mut found = 0;
        for (server, group) in self.by_server(rows, |r| r) {
            found += self.clients[server].read_many(&group)?;
        }
        Ok(found)
    }

    fn scan(
        &mut self,
        start: &[u8],
        stop: Option<&[u8]>,
        limit: usize,
    ) -> BenchResult<ScanOutcome> {
        self.client_for(start).scan(start, stop, limit)
    }

    fn increment(&mut self, row: &[u8], qualifier: &[u8], amount: i64) -> BenchResult<i64> {
        self.client_for(row).increment(row, qualifier, amount)
    }

    fn check_and_put(
        &mut self,
        row: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
    ) -> BenchResult<bool> {
        self.client_for(row)
            .check_and_put(row, qualifier, expected, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_go_to_the_server_of_their_region() {
        let entry: SocketAddr = "127.0.0.1:9090".parse().unwrap();
        let regions = vec![
            (b"m".to_vec(), Some("127.0.0.1".to_string()), Some(9091)),
            (Vec::new(), Some("localhost".to_string()), Some(9090)),
            (b"t".to_vec(), None, None),
        ];
        let map = RegionMap::new(regions, entry).unwrap();
        assert_eq!(map.servers.len(), 2);
        assert_eq!(map.servers[map.server_of(b"a")], entry);
        assert_eq!(map.servers[map.server_of(b"m")].port(), 9091);
        assert_eq!(map.servers[map.server_of(b"s")].port(), 9091);
        assert_eq!(
            map.servers[map.server_of(b"z")],
            entry,
            "unlocated: the entry"
        );
    }
}
