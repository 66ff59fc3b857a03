//! The documents HBase's REST server exchanges, with their JSON and XML forms.

pub mod cellset;
pub mod cluster;
pub mod filter;
pub mod scanner;
pub mod schema;
pub mod xml;
