//! Reads one whole Thrift request at a time off a connection into memory the server owns,
//! charging its bytes to the service's request budget before reading them.
//!
//! Why not volo's reader: its `BufReader` grows to the largest message a connection ever
//! sent (rounded up to a power of two) and never shrinks, and nothing bounds those buffers
//! over all connections. Here each message is split off an owned buffer without a copy,
//! a fresh small buffer starts each request, and a connection waits (its socket fills, the client
//! blocks) while the budget is spent; see `strata_server::request_budget`.
//!
//! Every message form HBase's Thrift server accepts is recognised from its first bytes:
//! - framed: a 4-byte big-endian length, then a binary (0x80 0x01) or compact (0x82)
//!   message;
//! - buffered binary (0x80) and buffered compact (0x82): the length is only known by walking
//!   the message (`binary_check.rs`, `compact.rs`).
//!
//! Either way the charge grows a chunk at a time as the message is read, never by what a
//! length field merely declares.

use bytes::{BufMut, Bytes, BytesMut};
use strata_server::request_budget::{RequestBudget, RequestCharge};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::binary_check::{binary_message_len, CheckError};
use crate::compact::{compact_to_binary, TranscodeError, COMPACT_PROTOCOL_ID, MAX_MESSAGE_BYTES};

/// The first byte of a strict binary message.
const BINARY_FIRST_BYTE: u8 = 0x80;
/// Bytes needed to tell a frame header from an unframed message.
const FRAME_DETECT_BYTES: usize = 6;
const FRAME_HEADER_BYTES: usize = 4;
/// Bytes asked of the socket (and charged) at once: large enough that a buffered message is
/// walked again once per chunk rather than once per field.
const READ_CHUNK: usize = 64 * 1024;
/// The first read of a request (most requests fit in it whole).
const FIRST_READ_BYTES: usize = 8 * 1024;

/// One request as read: its bytes, in binary, and their share of the budget (hold it until
/// the request is answered: the decoded request points into the bytes).
#[derive(Debug)]
pub struct Request {
    pub message: Message,
    /// Whether the request came in a frame (the reply must be framed too).
    pub framed: bool,
    pub charge: RequestCharge,
}

/// A request message, as the decoder takes it.
#[derive(Debug)]
pub enum Message {
    /// A binary message, or a compact one still to be transcoded (framed compact).
    Raw(Bytes),
    /// A buffered compact message, already transcoded to binary while finding its end.
    Transcoded(Bytes),
}

/// Why no request could be read; the connection is closed after any of these.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("connection error while reading a request: {0}")]
    Io(#[from] std::io::Error),
    #[error("the connection ended inside a request")]
    Truncated,
    /// `framed` and `compact` say what the request was recognised as, so the error reply
    /// can take the same form (a client cannot read another).
    #[error("malformed request: {reason}")]
    Invalid {
        reason: String,
        framed: bool,
        compact: bool,
    },
}

/// Reads requests from one connection.
#[derive(Debug)]
pub struct RequestReader<R> {
    reader: R,
    /// Bytes read and not yet part of a returned request.
    buf: BytesMut,
    budget: RequestBudget,
}

impl<R: AsyncRead + Unpin> RequestReader<R> {
    pub fn new(reader: R, budget: RequestBudget) -> Self {
        RequestReader {
            reader,
            buf: BytesMut::new(),
            budget,
        }
    }

    /// The next request, or `None` when the connection ended cleanly between requests.
    pub async fn next(&mut self) -> Result<Option<Request>, ReadError> {
        if self.buf.is_empty() {
            // A fresh buffer: the old one may share (and keep alive) the allocation of a large
            // request already answered.
            self.buf = BytesMut::new();
            if self.read_some(FIRST_READ_BYTES).await? == 0 {
                return Ok(None);
            }
        }
        let mut charge = self.budget.start();
        charge.grow_to_now(self.buf.len());
        let (message, framed) = match self.buf[0] {
            BINARY_FIRST_BYTE => (self.read_buffered_binary(&mut charge).await?, false),
            COMPACT_PROTOCOL_ID => (self.read_buffered_compact(&mut charge).await?, false),
            _ => (self.read_framed(&mut charge).await?, true),
        };
        Ok(Some(Request {
            message,
            framed,
            charge,
        }))
    }

    async fn read_framed(&mut self, charge: &mut RequestCharge) -> Result<Message, ReadError> {
        self.fill_to(FRAME_DETECT_BYTES, charge).await?;
        let header = &self.buf[..FRAME_DETECT_BYTES];
        let is_frame =
            header[4..6] == [BINARY_FIRST_BYTE, 0x01] || header[4] == COMPACT_PROTOCOL_ID;
        if !is_frame {
            return Err(ReadError::Invalid {
                reason: format!(
                    "not a Thrift message (first bytes {header:02x?}): expected a binary or \
                     compact message, framed or not"
                ),
                framed: false,
                compact: false,
            });
        }
        let compact = header[4] == COMPACT_PROTOCOL_ID;
        let declared = i32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let len = usize::try_from(declared)
            .ok()
            .filter(|&len| len <= MAX_MESSAGE_BYTES)
            .ok_or_else(|| ReadError::Invalid {
                reason: format!(
                    "frame of {declared} bytes: frames are limited to {MAX_MESSAGE_BYTES} bytes"
                ),
                framed: true,
                compact,
            })?;
        let total = FRAME_HEADER_BYTES + len;
        self.fill_to(total, charge).await?;
        let mut frame = self.buf.split_to(total);
        let _header = frame.split_to(FRAME_HEADER_BYTES);
        Ok(Message::Raw(frame.freeze()))
    }

    async fn read_buffered_binary(
        &mut self,
        charge: &mut RequestCharge,
    ) -> Result<Message, ReadError> {
        loop {
            match binary_message_len(&self.buf) {
                Ok(len) => return Ok(Message::Raw(self.buf.split_to(len).freeze())),
                Err(CheckError::Incomplete { need }) => self.fill_to(need, charge).await?,
                Err(e) => return Err(unframed_invalid(e.to_string(), false)),
            }
        }
    }

    async fn read_buffered_compact(
        &mut self,
        charge: &mut RequestCharge,
    ) -> Result<Message, ReadError> {
        loop {
            match compact_to_binary(&self.buf) {
                Ok((binary, used)) => {
                    // The request is held in its binary form from here on: free the compact
                    // bytes now (the start of the next request, at most a chunk, moves to a
                    // buffer of its own) so that the request is charged for one form, not
                    // two. Varints widen, so the binary form can be a little larger than the
                    // compact one; it is in memory already, so waiting would free nothing.
                    self.buf = BytesMut::from(&self.buf[used..]);
                    charge.set_now(binary.len() + self.buf.len());
                    return Ok(Message::Transcoded(binary.freeze()));
                }
                Err(TranscodeError::Incomplete { need }) => self.fill_to(need, charge).await?,
                Err(e) => return Err(unframed_invalid(e.to_string(), true)),
            }
        }
    }

    /// Reads until at least `need` bytes are buffered, a chunk at a time, charging each
    /// chunk before asking the socket for it: a client that declares a large message but
    /// sends it slowly holds only what it sent. A read may go up to a chunk past `need` (the
    /// rest of a message being walked, or the start of the next one, kept for it).
    async fn fill_to(&mut self, need: usize, charge: &mut RequestCharge) -> Result<(), ReadError> {
        while self.buf.len() < need {
            charge.grow_to(self.buf.len() + READ_CHUNK).await;
            if self.read_some(READ_CHUNK).await? == 0 {
                return Err(ReadError::Truncated);
            }
        }
        Ok(())
    }

    /// One read of at most `max` bytes; 0 at the end of the stream.
    async fn read_some(&mut self, max: usize) -> Result<usize, ReadError> {
        self.buf.reserve(max);
        let read = self
            .reader
            .read_buf(&mut (&mut self.buf).limit(max))
            .await?;
        Ok(read)
    }
}

/// A malformed unframed message, binary or compact.
fn unframed_invalid(reason: String, compact: bool) -> ReadError {
    ReadError::Invalid {
        reason,
        framed: false,
        compact,
    }
}

#[cfg(test)]
mod tests;
