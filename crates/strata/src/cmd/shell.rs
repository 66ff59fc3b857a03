//! `strata shell`: HBase-shell-compatible commands against a running server over Thrift1.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use strata_shell::format::TimestampStyle;
use strata_shell::{repl, Client, Session};

#[derive(Debug, Args)]
pub struct ShellArgs {
    /// Thrift server host.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Thrift server port.
    #[arg(long, default_value_t = 9090)]
    port: u16,
    /// Run these commands (';' or newlines separate several; the flag may repeat), then exit;
    /// the exit status is non-zero at the first error.
    #[arg(short = 'e', long = "execute")]
    execute: Vec<String>,
    /// Print timestamps as milliseconds since the epoch instead of UTC dates.
    #[arg(long)]
    epoch_timestamps: bool,
    /// Seconds to wait for the connection.
    #[arg(long, default_value_t = 10)]
    connect_timeout: u64,
    /// A script of shell commands to run instead of the interactive shell.
    script: Option<PathBuf>,
}

pub fn run(args: ShellArgs) -> Result<(), String> {
    let client = Client::connect(
        &args.host,
        args.port,
        Duration::from_secs(args.connect_timeout),
    )
    .map_err(|e| e.to_string())?;
    // The binary is the composition root: it picks the real clock and runtime.
    #[allow(clippy::disallowed_methods)]
    let mut session = Session::new(
        client,
        Box::new(std::io::stdout()),
        Box::new(std::io::stderr()),
        strata_runtime::clock::system(),
    );
    if args.epoch_timestamps {
        session.timestamps = TimestampStyle::Epoch;
    }
    let stopped = |_| "stopped at the first error".to_string();
    if !args.execute.is_empty() {
        return repl::run_script(&mut session, &args.execute.join("\n")).map_err(stopped);
    }
    if let Some(path) = &args.script {
        let script = read_script(path)?;
        return repl::run_script(&mut session, &script).map_err(stopped);
    }
    if !std::io::stdin().is_terminal() {
        return repl::run_reader(&mut session, std::io::stdin().lock()).map_err(stopped);
    }
    let history = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".strata_shell_history"));
    repl::interactive(&mut session, history).map_err(|e| e.to_string())
}

/// A user's script file: a tool reading a file the user named, not database storage.
fn read_script(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
