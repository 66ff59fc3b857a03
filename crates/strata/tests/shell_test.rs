#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `strata shell` as a user runs it: the real binary against a real `strata server`, in its
//! three non-interactive modes (-e, a script file, stdin), with their exit codes.

mod common;

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_strata");

struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = common::spawn_until_listening(
            Command::new(BIN)
                .args(["server", "--data-dir"])
                .arg(dir.path())
                .args([
                    "--thrift-port",
                    &port.to_string(),
                    "--grpc-port",
                    "0",
                    "--http-port",
                    "0",
                ]),
        );
        Server {
            child,
            port,
            _dir: dir,
        }
    }

    fn shell(&self) -> Command {
        let mut c = Command::new(BIN);
        c.args([
            "shell",
            "--port",
            &self.port.to_string(),
            "--epoch-timestamps",
        ]);
        c
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn execute_flags_run_in_order_and_fail_fast() {
    let server = Server::start();
    let o = server
        .shell()
        .args(["-e", "create 't', 'cf'; put 't', 'r1', 'cf:a', 'v1', 42"])
        .args(["-e", "scan 't'"])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("Created table t"), "{out}");
    assert!(out.contains("column=cf:a, timestamp=42, value=v1"), "{out}");
    assert!(out.contains("1 row(s)"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("Took ") && l.ends_with(" seconds")),
        "{out}"
    );

    let o = server
        .shell()
        .args(["-e", "get 'nope', 'r'; list"])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("ERROR: table nope does not exist"), "{err}");
    assert!(!out.contains("TABLE"), "stopped before list: {out}");

    let o = server.shell().args(["-e", "get 't'"]).output().unwrap();
    assert!(!o.status.success());
    assert!(text(&o).1.contains("wrong number of arguments"));
}

#[test]
fn script_files_and_stdin() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("setup.rb");
    std::fs::write(
        &script,
        "# a script\ncreate 's', {NAME => 'cf',\n  VERSIONS => 2}\nput 's', 'r', 'cf:q', \"\\x00\", 7\n",
    )
    .unwrap();
    let o = server.shell().arg(&script).output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");

    let mut child = server
        .shell()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"get 's', 'r'\ncount 's'\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("timestamp=7, value=\\x00"), "{out}");
    assert!(out.contains("=> 1"), "{out}");

    std::fs::write(&script, "list\nfrobnicate\nlist\n").unwrap();
    let o = server.shell().arg(&script).output().unwrap();
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("Unknown command 'frobnicate'"), "{err}");
    assert_eq!(out.matches("TABLE").count(), 1, "{out}");
}
