//! One connection on the owner's side, served by its own thread: the handshake, then
//! request after request, each answered before the next is read.

use std::io::{self, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use strata_server::{Service, ServiceError};

use crate::dispatch;
use crate::frame::{self, FrameError};
use crate::server::ServeOptions;
use crate::wire::{ANSWER_OK, HELLO};

/// How long a new connection's client has to send its hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of a request a connection reads per system call.
const READ_BUFFER: usize = 16 * 1024;

/// What the server writes first on every connection it serves: its hello and an empty
/// success answer (the handshake's "accepted").
pub fn accepted() -> [u8; HELLO.len() + frame::HEADER_BYTES] {
    let mut bytes = [0u8; HELLO.len() + frame::HEADER_BYTES];
    bytes[..HELLO.len()].copy_from_slice(&HELLO);
    bytes[HELLO.len()..].copy_from_slice(&[1, 0, 0, 0, ANSWER_OK]);
    bytes
}

/// Writes our hello and a refusal (`error`) on a connection that will not be served,
/// then closes it. The client has sent nothing yet (it waits for our hello), so closing
/// does not reset the connection under the refusal.
pub fn refuse(mut stream: TcpStream, error: &ServiceError) {
    let mut bytes = HELLO.to_vec();
    bytes.extend(dispatch::error_frame(error));
    // A new connection's send buffer is empty: this does not block. If it fails, the
    // client sees the connection close during the handshake, which is refusal enough.
    let _ = stream.write_all(&bytes);
}

/// Serves `stream` until the client closes it, it fails, or it is idle too long.
pub fn run(service: &Service, stream: TcpStream, options: &ServeOptions) {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".to_string(), |a| a.to_string());
    if let Err(e) = serve(service, stream, options) {
        tracing::debug!(peer, error = %e, "peer connection ended");
    }
}

fn serve(service: &Service, stream: TcpStream, options: &ServeOptions) -> io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(HELLO_TIMEOUT))?;
    stream.set_write_timeout(Some(options.write_timeout))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER, stream);
    reader.get_mut().write_all(&accepted())?;
    let mut hello = [0u8; HELLO.len()];
    reader.read_exact(&mut hello)?;
    if hello != HELLO {
        let refusal = ServiceError::InvalidArgument(format!(
            "not a Strata internal RPC client of version {} (it sent {:?})",
            HELLO[7],
            String::from_utf8_lossy(&hello)
        ));
        reader
            .get_mut()
            .write_all(&dispatch::error_frame(&refusal))?;
        return close_after_error(reader);
    }
    reader
        .get_ref()
        .set_read_timeout(Some(options.idle_timeout))?;
    loop {
        let request = match frame::read(&mut reader, frame::MAX_FRAME_LEN) {
            Ok(request) => request,
            Err(FrameError::Closed) => return Ok(()),
            Err(FrameError::Io { source, .. }) => return Err(source),
            // Its bytes were not read, so the next frame's start is unknown: answer why,
            // then close.
            Err(bad) => {
                let error = ServiceError::InvalidArgument(format!("bad request frame: {bad}"));
                reader.get_mut().write_all(&dispatch::error_frame(&error))?;
                return close_after_error(reader);
            }
        };
        let answer = dispatch::answer(service, request.tag, request.payload);
        reader.get_mut().write_all(&answer)?;
    }
}

/// Closes a connection whose client broke the protocol, after an error answer. Closing a
/// socket with unread bytes resets the connection, which can discard the answer before
/// the client reads it; so the server stops writing, then reads and drops what the
/// client still sends, for a little while, before closing.
fn close_after_error(mut reader: BufReader<TcpStream>) -> io::Result<()> {
    const DRAIN_BYTES: u64 = 1 << 20;
    let stream = reader.get_ref();
    stream.shutdown(std::net::Shutdown::Write)?;
    stream.set_read_timeout(Some(Duration::from_secs(1)))?;
    let _ = io::copy(&mut (&mut reader).take(DRAIN_BYTES), &mut io::sink());
    Ok(())
}
