//! Who a scanner belongs to. The protocol decides who may find it by id (a Thrift client
//! cannot read a REST client's scanner by guessing its number); the client, when known, is
//! charged for it against `limits.max_scanners_per_client`.

use std::net::IpAddr;

/// The front end a scanner was opened through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScannerProtocol {
    /// The embedded API and the service's own scans.
    Embedded,
    /// HBase Thrift1.
    Thrift,
    /// HBase REST.
    Rest,
    /// HBase's native RPC (`hbase-client`).
    HbaseRpc,
}

/// The client charged for a scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScannerClient {
    /// A Thrift connection, by the server's number for it: HBase's Thrift scanners outlive
    /// no connection in practice, and a connection is what a misbehaving client holds.
    ThriftConnection(u64),
    /// A REST client, by its address: HTTP connections come and go between the requests of
    /// one client, its address stays.
    RestAddress(IpAddr),
}

/// Who opened a scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScannerOwner {
    pub protocol: ScannerProtocol,
    /// `None` when the front end cannot tell its clients apart; such scanners count only
    /// against `limits.max_open_scanners`.
    pub client: Option<ScannerClient>,
}

impl ScannerOwner {
    /// The embedded API: one process, no clients to tell apart.
    pub const EMBEDDED: ScannerOwner = ScannerOwner {
        protocol: ScannerProtocol::Embedded,
        client: None,
    };

    /// A Thrift scanner, charged to `connection` when known.
    pub fn thrift(connection: Option<u64>) -> ScannerOwner {
        ScannerOwner {
            protocol: ScannerProtocol::Thrift,
            client: connection.map(ScannerClient::ThriftConnection),
        }
    }

    /// A REST scanner, charged to the client at `address` when known.
    pub fn rest(address: Option<IpAddr>) -> ScannerOwner {
        ScannerOwner {
            protocol: ScannerProtocol::Rest,
            client: address.map(ScannerClient::RestAddress),
        }
    }
}
