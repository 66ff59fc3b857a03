//! HBase's native RPC for Strata: what `hbase-client` 2.5/2.6 speaks to region servers and
//! masters, so a Java application written for HBase runs against Strata with only its
//! ZooKeeper quorum (or RPC bootstrap servers) changed.
//!
//! One port serves every service: the connection header names the one a connection
//! uses (`ClientService`, `MasterService`, `ClientMetaService`, `AdminService`). No Rust
//! crate implements this protocol's server side, so the framing (`wire/`) is written here;
//! the messages are generated from `proto/`, a subset of HBase's IDL.

pub mod pb;
pub mod wire;
