//! One client connection to a peer: a socket whose handshake is done, read through a
//! buffer, with the timeouts currently set on it.

use std::io::{self, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::net::{recv, RecvFlags};

use crate::frame::{self, Frame, FrameError};

/// How much of an answer a connection reads per system call.
const READ_BUFFER: usize = 16 * 1024;

/// One connection to the peer.
#[derive(Debug)]
pub struct Conn {
    reader: BufReader<TcpStream>,
    /// The socket's read and write timeout.
    timeout: Duration,
    /// When it was last given back to the pool.
    pub idle_since: Instant,
    /// Whether it served a call before (it came from the pool).
    pub reused: bool,
}

impl Conn {
    /// A connection over `stream`, whose read and write timeouts are `timeout`.
    pub fn new(stream: TcpStream, timeout: Duration, now: Instant) -> Conn {
        Conn {
            reader: BufReader::with_capacity(READ_BUFFER, stream),
            timeout,
            idle_since: now,
            reused: false,
        }
    }

    /// Makes `deadline` the socket's read and write timeout (a system call only when it
    /// changes: most calls use the client's one deadline).
    pub fn set_deadline(&mut self, deadline: Duration) -> io::Result<()> {
        if deadline != self.timeout {
            let stream = self.reader.get_ref();
            stream.set_read_timeout(Some(deadline))?;
            stream.set_write_timeout(Some(deadline))?;
            self.timeout = deadline;
        }
        Ok(())
    }

    /// Writes a whole frame (or raw bytes: the handshake's hello).
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.reader.get_mut().write_all(bytes)
    }

    /// Reads the next frame, waiting up to the timeout for each of its parts.
    pub fn receive(&mut self) -> Result<Frame, FrameError> {
        frame::read(&mut self.reader, frame::MAX_FRAME_LEN)
    }

    /// Reads exactly `bytes.len()` bytes (the handshake's hello).
    pub fn receive_exact(&mut self, bytes: &mut [u8]) -> io::Result<()> {
        io::Read::read_exact(&mut self.reader, bytes)
    }

    /// Whether an idle connection can carry a request: nothing arrived on it since its
    /// last answer, neither bytes (which would be a protocol error) nor its end (the
    /// peer closed it: restarted, or shut down). One non-blocking peek, so that a request
    /// is not written into a connection known to be dead.
    pub fn looks_alive(&self) -> bool {
        if !self.reader.buffer().is_empty() {
            return false;
        }
        let mut byte = [0u8; 1];
        let flags = RecvFlags::PEEK | RecvFlags::DONTWAIT;
        matches!(
            recv(self.reader.get_ref(), &mut byte, flags),
            Err(Errno::AGAIN)
        )
    }
}
