//! One module per subcommand.

pub mod bench;
pub mod server;
pub mod shell;
