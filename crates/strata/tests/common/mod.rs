//! Shared by the tests that run the `strata` binary.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Spawns `command` (a `strata server ...`) and returns once it printed its "listening" line.
/// The caller owns the child and kills and waits for it (the tests' `Drop`).
#[allow(clippy::zombie_processes)]
pub fn spawn_until_listening(command: &mut Command) -> Child {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = lines
            .next()
            .expect("server exited before listening")
            .unwrap();
        if line.contains("listening") {
            return child;
        }
    }
}

/// A loopback port free now (another process may take it before the server binds it).
#[allow(dead_code)] // each test binary compiles this module; not all of them use this
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
