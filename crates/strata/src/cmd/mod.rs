//! One module per subcommand.

pub mod bench;
pub mod check;
pub mod cluster;
pub mod server;
pub mod shell;
pub mod sst;
pub mod wal;
