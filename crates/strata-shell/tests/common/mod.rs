//! Test harness: a Strata Thrift server on an ephemeral port (in process, over a temp dir) and
//! shell sessions whose output is captured.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(dead_code, clippy::unwrap_used)] // test harness: a failed setup should panic

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_server::{Service, ServiceOptions};
use strata_shell::format::TimestampStyle;
use strata_shell::{Client, Session};
use tokio::sync::oneshot;

pub struct TestServer {
    pub addr: SocketAddr,
    pub service: Arc<Service>,
    stop: Option<oneshot::Sender<()>>,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub fn start() -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let svc = Arc::clone(&service);
        runtime.spawn(async move {
            strata_thrift::serve_listener(listener, svc, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        TestServer {
            addr,
            service,
            stop: Some(stop),
            runtime,
            _dir: dir,
        }
    }

    /// A session on this server printing epoch timestamps (so outputs are exact).
    pub fn session(&self) -> Shell {
        Shell::connect(self.addr.port())
    }

    /// Runs a script in a fresh session.
    pub fn run(&self, script: &str) -> Outcome {
        self.session().run(script)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A byte buffer that can be handed to a session as its output.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap());
        String::from_utf8(bytes).unwrap()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub struct Shell {
    pub session: Session,
    out: Captured,
    err: Captured,
}

/// What one script did.
#[derive(Debug)]
pub struct Outcome {
    pub ok: bool,
    pub out: String,
    pub err: String,
}

impl Shell {
    pub fn connect(port: u16) -> Shell {
        let client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
        let (out, err) = (Captured::default(), Captured::default());
        let mut session = Session::new(
            client,
            Box::new(out.clone()),
            Box::new(err.clone()),
            strata_runtime::clock::system(),
        );
        session.timestamps = TimestampStyle::Epoch;
        Shell { session, out, err }
    }

    pub fn run(&mut self, script: &str) -> Outcome {
        let ok = strata_shell::repl::run_script(&mut self.session, script).is_ok();
        Outcome {
            ok,
            out: self.out.take(),
            err: self.err.take(),
        }
    }

    /// Runs a script that must succeed; returns its output.
    pub fn ok(&mut self, script: &str) -> String {
        let o = self.run(script);
        assert!(o.ok, "{script} failed:\n{}\n{}", o.out, o.err);
        o.out
    }
}

/// The output lines that are not timing lines.
pub fn lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with("Took "))
        .map(str::to_string)
        .collect()
}

/// ` row   column=..., ...` as the shell prints a scan line.
pub fn scan_line(row: &str, column: &str, ts: i64, value: &str) -> String {
    strata_shell::format::two_columns(
        row,
        &format!("column={column}, timestamp={ts}, value={value}"),
    )
}

/// ` column   timestamp=..., value=...` as the shell prints a get line.
pub fn get_line(column: &str, ts: i64, value: &str) -> String {
    strata_shell::format::two_columns(column, &format!("timestamp={ts}, value={value}"))
}
