//! Frames: how one request or one answer travels on a connection.
//!
//! A frame is a length (u32, little-endian) of what follows, then a tag byte (a request's
//! method code, an answer's status) and a prost message. A connection carries one request
//! at a time and its answer comes next, so frames need no request id: any failure drops
//! the connection, and an answer can only belong to the request just sent.

use std::io::{self, BufRead, Read};

use bytes::Bytes;

use crate::MAX_MESSAGE_BYTES;

/// The length prefix and the tag byte.
pub const HEADER_BYTES: usize = 5;

/// The largest length a frame may declare: its tag and a message of
/// [`MAX_MESSAGE_BYTES`].
pub const MAX_FRAME_LEN: usize = MAX_MESSAGE_BYTES + 1;

/// How much of a frame's declared length is allocated before its bytes arrive: a peer
/// that declares 256 MiB and sends nothing does not get 256 MiB of memory.
const PREALLOCATE: usize = 64 * 1024;

/// One frame read from a connection.
#[derive(Debug)]
pub struct Frame {
    /// The request's method code, or the answer's status.
    pub tag: u8,
    /// The prost message.
    pub payload: Bytes,
}

/// Why no frame could be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The other side closed the connection between two frames.
    #[error("the connection was closed")]
    Closed,
    /// The connection failed: an I/O error, a timeout, or the end of the stream inside a
    /// frame. `started`: some byte of the frame had arrived.
    #[error("{source}")]
    Io {
        #[source]
        source: io::Error,
        started: bool,
    },
    /// A length of zero: not even a tag byte.
    #[error("a frame of length 0")]
    Empty,
    /// A length over [`MAX_FRAME_LEN`]. Its bytes are not read, so the connection cannot
    /// be used any more.
    #[error("a frame of {len} bytes is over the limit of {max} bytes")]
    TooLarge { len: u64, max: usize },
    /// A message to send over the limit.
    #[error("a message of {len} bytes is over the limit of {max} bytes")]
    MessageTooLarge { len: usize, max: usize },
}

impl FrameError {
    /// True when the connection ended or failed before any byte of the frame arrived,
    /// except by a timeout: on a connection that was idle in the pool, the other side had
    /// closed it (or was gone) already.
    pub fn before_any_byte(&self) -> bool {
        match self {
            FrameError::Closed => true,
            FrameError::Io { source, started } => {
                !started
                    && !matches!(
                        source.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    )
            }
            _ => false,
        }
    }

    /// True for a read that timed out.
    pub fn timed_out(&self) -> bool {
        matches!(self, FrameError::Io { source, .. }
            if matches!(source.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut))
    }
}

/// `message` as a frame tagged `tag`, ready to write in one call.
pub fn encode(tag: u8, message: &impl prost::Message) -> Result<Vec<u8>, FrameError> {
    let len = message.encoded_len();
    if len > MAX_MESSAGE_BYTES {
        return Err(FrameError::MessageTooLarge {
            len,
            max: MAX_MESSAGE_BYTES,
        });
    }
    let mut frame = Vec::with_capacity(HEADER_BYTES + len);
    // len + 1 <= MAX_FRAME_LEN, which fits in a u32.
    frame.extend_from_slice(&((len + 1) as u32).to_le_bytes());
    frame.push(tag);
    message.encode(&mut frame).map_err(|e| FrameError::Io {
        source: io::Error::other(e),
        started: false,
    })?;
    Ok(frame)
}

/// Reads one frame of at most `max_len` bytes (after the length prefix).
pub fn read(reader: &mut impl BufRead, max_len: usize) -> Result<Frame, FrameError> {
    let mut prefix = [0u8; 4];
    read_prefix(reader, &mut prefix)?;
    let len = u32::from_le_bytes(prefix) as usize;
    if len == 0 {
        return Err(FrameError::Empty);
    }
    if len > max_len {
        return Err(FrameError::TooLarge {
            len: len as u64,
            max: max_len,
        });
    }
    let started = |source| FrameError::Io {
        source,
        started: true,
    };
    let mut tag = [0u8; 1];
    reader.read_exact(&mut tag).map_err(started)?;
    let rest = len - 1;
    let mut payload = Vec::with_capacity(rest.min(PREALLOCATE));
    reader
        .take(rest as u64)
        .read_to_end(&mut payload)
        .map_err(started)?;
    if payload.len() < rest {
        return Err(started(io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(Frame {
        tag: tag[0],
        payload: payload.into(),
    })
}

/// Reads the length prefix, telling a connection closed between frames (nothing read)
/// from one that failed inside a frame.
fn read_prefix(reader: &mut impl Read, prefix: &mut [u8; 4]) -> Result<(), FrameError> {
    let mut got = 0;
    while got < prefix.len() {
        match reader.read(&mut prefix[got..]) {
            Ok(0) if got == 0 => return Err(FrameError::Closed),
            Ok(0) => {
                return Err(FrameError::Io {
                    source: io::ErrorKind::UnexpectedEof.into(),
                    started: true,
                })
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(FrameError::Io {
                    source,
                    started: got > 0,
                })
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages as m;

    fn read_all(bytes: &[u8]) -> Result<Frame, FrameError> {
        read(&mut io::BufReader::new(bytes), MAX_FRAME_LEN)
    }

    #[test]
    fn a_frame_round_trips_and_is_laid_out_as_documented() {
        let message = m::MaintainResponse { bytes: 300 };
        let frame = encode(7, &message).unwrap();
        // length 4 (tag + 3 bytes of message), tag, field 1 varint 300.
        assert_eq!(frame, [4, 0, 0, 0, 7, 0x08, 0xac, 0x02]);
        let got = read_all(&frame).unwrap();
        assert_eq!(got.tag, 7);
        let decoded: m::MaintainResponse = prost::Message::decode(got.payload).unwrap();
        assert_eq!(decoded, message);
        // An empty message is a frame of length 1.
        assert_eq!(encode(0, &m::MutateResponse {}).unwrap(), [1, 0, 0, 0, 0]);
    }

    #[test]
    fn bad_lengths_and_cut_frames_are_errors() {
        assert!(matches!(read_all(&[]), Err(FrameError::Closed)));
        assert!(matches!(read_all(&[0, 0, 0, 0]), Err(FrameError::Empty)));
        let huge = read_all(&[0xff, 0xff, 0xff, 0xff]).unwrap_err();
        assert!(matches!(huge, FrameError::TooLarge { .. }), "{huge:?}");
        assert!(!huge.before_any_byte());
        let cut = read_all(&[2, 0]).unwrap_err();
        assert!(
            matches!(cut, FrameError::Io { started: true, .. }),
            "{cut:?}"
        );
        let cut = read_all(&[3, 0, 0, 0, 1, 9]).unwrap_err();
        assert!(
            matches!(cut, FrameError::Io { started: true, .. }),
            "{cut:?}"
        );
        assert!(FrameError::Closed.before_any_byte());
    }
}
