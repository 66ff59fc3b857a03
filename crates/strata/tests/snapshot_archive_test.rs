#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // waits in real time for the server's mover task
//! The archive tier as a user configures it: a server with an SSD and an HDD volume takes
//! a snapshot from the shell; once a compaction replaced the snapshot's files, the mover
//! task moves them to the HDD volume, and a clone still reads the snapshot's data.

mod common;

use std::path::Path;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_strata");

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &Path) -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = dir.join("strata.toml");
    let ssd = dir.join("ssd");
    let hdd = dir.join("hdd");
    std::fs::write(
        &config,
        format!(
            "data_dir = {ssd:?}\nstorage_policy = \"ONE_SSD\"\n\
             [[volumes]]\npath = {hdd:?}\nstorage_type = \"hdd\"\nname = \"hdd0\"\n\
             [mover]\ninterval_s = 1\nmb_per_sec = 0\n"
        ),
    )
    .unwrap();
    let child = common::spawn_until_listening(
        Command::new(BIN)
            .arg("server")
            .arg("--config")
            .arg(&config)
            .args(["--thrift-port", &port.to_string()])
            .args(["--grpc-port", "0", "--http-port", "0"]),
    );
    Server { child, port }
}

fn shell(server: &Server, script: &str) -> String {
    let o: Output = Command::new(BIN)
        .args(["shell", "--port", &server.port.to_string(), "-e", script])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{script}: {out}\n{err}");
    out
}

fn ssts_under(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .map(|e| e.unwrap().path())
        .map(|p| match p.is_dir() {
            true => ssts_under(&p),
            false => usize::from(p.extension().is_some_and(|x| x == "sst")),
        })
        .sum()
}

#[test]
fn files_only_a_snapshot_holds_move_to_the_hdd_volume() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    shell(
        &server,
        "create 't', 'f'; put 't', 'r1', 'f:q', 'old'; flush 't'",
    );
    shell(&server, "snapshot 't', 's1'");
    let (ssd, hdd) = (
        dir.path().join("ssd/snapshots"),
        dir.path().join("hdd/snapshots"),
    );
    assert_eq!(
        (ssts_under(&ssd), ssts_under(&hdd)),
        (1, 0),
        "linked where the file was"
    );

    shell(&server, "put 't', 'r1', 'f:q', 'new'; major_compact 't'");
    let deadline = Instant::now() + Duration::from_secs(30);
    while ssts_under(&hdd) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        (ssts_under(&ssd), ssts_under(&hdd)),
        (0, 1),
        "archived to the hdd volume"
    );

    shell(&server, "clone_snapshot 's1', 'copy'");
    assert!(shell(&server, "get 'copy', 'r1'").contains("value=old"));
    assert!(shell(&server, "get 't', 'r1'").contains("value=new"));
}
