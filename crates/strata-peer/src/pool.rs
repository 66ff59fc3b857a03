//! The forwarding side's connections to one peer: opened with the handshake, lent to one
//! call at a time, and kept idle between calls so that a call costs one write and one
//! read, not a connection.

use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use strata_runtime::clock::Clock;

use crate::conn::Conn;
use crate::errors::detail_to_error;
use crate::messages as m;
use crate::wire::{ANSWER_ERROR, ANSWER_OK, HELLO};

/// An idle connection older than this is closed rather than reused. The server closes
/// connections idle for [`crate::server::IDLE_TIMEOUT`], which is longer, so a
/// connection taken from the pool was not closed for idleness by the server.
pub const MAX_IDLE_AGE: Duration = Duration::from_secs(60);

/// Idle connections kept per peer beyond which a returned one is closed: a burst of
/// concurrent calls opens many, and their server threads should not all linger.
pub const MAX_IDLE: usize = 64;

/// Why no connection to the peer could be made. Nothing was sent: the request was not
/// written, so the peer cannot have acted on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    #[error("cannot resolve the address: {0}")]
    Resolve(io::Error),
    #[error("cannot connect: {0}")]
    Connect(io::Error),
    #[error("handshake failed: {0}")]
    Handshake(String),
    /// The peer answered the handshake with an error (too many connections).
    #[error("the peer refused the connection: {0}")]
    Refused(String),
}

/// The connections to one peer.
#[derive(Debug)]
pub struct Pool {
    address: String,
    idle: Mutex<Vec<Conn>>,
    clock: Arc<dyn Clock>,
}

impl Pool {
    pub fn new(address: String, clock: Arc<dyn Clock>) -> Self {
        Pool {
            address,
            idle: Mutex::new(Vec::new()),
            clock,
        }
    }

    /// The most recently used idle connection, if any, closing the ones too old found on
    /// the way. `check`: only one that still looks alive (a system call each): for a
    /// request that may not be sent twice, which a connection found dead after the
    /// request was written would leave in doubt; a read is sent again instead.
    pub fn take(&self, check: bool) -> Option<Conn> {
        let now = self.clock.now();
        loop {
            let mut conn = self.idle.lock().pop()?;
            let age = now.saturating_duration_since(conn.idle_since);
            if age > MAX_IDLE_AGE {
                // The rest are older still.
                self.idle.lock().clear();
                return None;
            }
            if !check || conn.looks_alive() {
                conn.reused = true;
                return Some(conn);
            }
        }
    }

    /// Returns a connection whose call ended with a whole answer.
    pub fn put(&self, mut conn: Conn) {
        conn.idle_since = self.clock.now();
        let mut idle = self.idle.lock();
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
    }

    /// Closes every idle connection.
    pub fn clear(&self) {
        self.idle.lock().clear();
    }

    /// A new connection, handshake done, waiting at most `deadline` for each step.
    pub fn connect(&self, deadline: Duration) -> Result<Conn, ConnectError> {
        let addresses = self
            .address
            .to_socket_addrs()
            .map_err(ConnectError::Resolve)?;
        let mut last = io::Error::new(io::ErrorKind::NotFound, "the name has no address");
        for address in addresses {
            match TcpStream::connect_timeout(&address, deadline) {
                Ok(stream) => return self.handshake(stream, deadline),
                Err(e) => last = e,
            }
        }
        Err(ConnectError::Connect(last))
    }

    /// Reads the server's hello and its verdict (accepted, or refused with a reason),
    /// then sends ours.
    fn handshake(&self, stream: TcpStream, deadline: Duration) -> Result<Conn, ConnectError> {
        let failed =
            |what: &str, e: &dyn std::fmt::Display| ConnectError::Handshake(format!("{what}: {e}"));
        // Requests are small and answered at once: without this, Nagle's algorithm
        // holds a request back until the previous answer's ACK.
        stream
            .set_nodelay(true)
            .map_err(|e| failed("cannot set TCP_NODELAY", &e))?;
        stream
            .set_read_timeout(Some(deadline))
            .and_then(|()| stream.set_write_timeout(Some(deadline)))
            .map_err(|e| failed("cannot set timeouts", &e))?;
        let mut conn = Conn::new(stream, deadline, self.clock.now());
        let mut hello = [0u8; HELLO.len()];
        conn.receive_exact(&mut hello)
            .map_err(|e| failed("no hello from the peer", &e))?;
        check_hello(&hello)?;
        let verdict = conn
            .receive()
            .map_err(|e| failed("no answer to the hello", &e))?;
        match verdict.tag {
            ANSWER_OK => {}
            ANSWER_ERROR => {
                let detail: m::ErrorDetail = prost::Message::decode(verdict.payload)
                    .map_err(|e| failed("malformed refusal", &e))?;
                let reason =
                    detail_to_error(detail).map_or_else(|unreadable| unreadable, |e| e.to_string());
                return Err(ConnectError::Refused(reason));
            }
            tag => return Err(failed("malformed hello answer", &format!("status {tag}"))),
        }
        conn.send(&HELLO)
            .map_err(|e| failed("cannot send the hello", &e))?;
        Ok(conn)
    }
}

/// Refuses a server that is not a Strata peer, or speaks another version, clearly.
pub fn check_hello(hello: &[u8; HELLO.len()]) -> Result<(), ConnectError> {
    if hello[..7] != HELLO[..7] {
        return Err(ConnectError::Handshake(format!(
            "not a Strata peer server (it sent {:?}): is this the peer port?",
            String::from_utf8_lossy(hello)
        )));
    }
    if hello[7] != HELLO[7] {
        return Err(ConnectError::Handshake(format!(
            "the peer speaks internal RPC version {}, this server version {}",
            hello[7], HELLO[7]
        )));
    }
    Ok(())
}
