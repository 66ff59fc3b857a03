//! `strata shell`: an interactive shell with HBase shell's command names and argument syntax,
//! talking to a Strata (or HBase) server over the Thrift1 API.

pub mod client;
pub mod commands;
pub mod error;
pub mod format;
pub mod parser;
pub mod repl;
pub mod run;
pub mod session;
pub mod value;

pub use client::Client;
pub use error::{Result, ShellError};
pub use session::Session;
