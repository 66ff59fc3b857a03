//! Strata's extension methods: the admin calls HBase's Thrift1 interface lacks (namespaces,
//! schema changes, flush, split, merge, status), used by `strata shell`. A real HBase answers
//! them with UNKNOWN_METHOD.

pub mod admin;
pub mod declared;
pub mod family;
pub mod permissions;
pub mod regions;
pub mod snapshots;
