//! Framing: every message in either direction is a 4-byte big-endian length and then that
//! many bytes. The length is checked against the limit before a byte of the body is
//! allocated.

use std::io;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Why no frame could be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("frame length {0} is negative")]
    Negative(i32),
    #[error("frame of {len} bytes is over the {max}-byte limit")]
    TooLong { len: usize, max: usize },
    #[error("connection ended inside a frame")]
    Truncated,
    #[error("read failed: {0}")]
    Io(#[from] io::Error),
}

/// The length a frame's 4-byte prefix announces, if it is within `max`.
pub fn frame_length(prefix: [u8; 4], max: usize) -> Result<usize, FrameError> {
    let len = i32::from_be_bytes(prefix);
    let len = usize::try_from(len).map_err(|_| FrameError::Negative(len))?;
    if len > max {
        return Err(FrameError::TooLong { len, max });
    }
    Ok(len)
}

/// The first 4 bytes of the next frame, or `None` when the peer closed the connection
/// cleanly between frames.
pub async fn read_prefix<R: AsyncRead + Unpin>(r: &mut R) -> Result<Option<[u8; 4]>, FrameError> {
    let mut prefix = [0u8; 4];
    let mut filled = 0;
    while filled < prefix.len() {
        match r.read(&mut prefix[filled..]).await? {
            0 if filled == 0 => return Ok(None),
            0 => return Err(FrameError::Truncated),
            n => filled += n,
        }
    }
    Ok(Some(prefix))
}

/// The `len` bytes of a frame's body (`len` already checked against the limit).
pub async fn read_body<R: AsyncRead + Unpin>(r: &mut R, len: usize) -> Result<Bytes, FrameError> {
    let mut body = vec![0u8; len];
    match r.read_exact(&mut body).await {
        Ok(_) => Ok(Bytes::from(body)),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(FrameError::Truncated),
        Err(e) => Err(FrameError::Io(e)),
    }
}

/// The next whole frame, or `None` at a clean end of the connection.
pub async fn read_frame<R: AsyncRead + Unpin>(
    r: &mut R,
    max: usize,
) -> Result<Option<Bytes>, FrameError> {
    let Some(prefix) = read_prefix(r).await? else {
        return Ok(None);
    };
    let len = frame_length(prefix, max)?;
    read_body(r, len).await.map(Some)
}

/// Splits a byte string into its frames, the same checks as [`read_frame`] but over
/// memory: the frames found, and why splitting stopped early, if it did.
pub fn split_frames(mut bytes: &[u8], max: usize) -> (Vec<&[u8]>, Option<FrameError>) {
    let mut frames = Vec::new();
    while !bytes.is_empty() {
        let Some((prefix, rest)) = bytes.split_first_chunk::<4>() else {
            return (frames, Some(FrameError::Truncated));
        };
        let len = match frame_length(*prefix, max) {
            Ok(len) => len,
            Err(e) => return (frames, Some(e)),
        };
        if rest.len() < len {
            return (frames, Some(FrameError::Truncated));
        }
        let (frame, rest) = rest.split_at(len);
        frames.push(frame);
        bytes = rest;
    }
    (frames, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 1 << 20;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn reads_frames_back_to_back_then_a_clean_end() {
        let bytes: &[u8] = &[0, 0, 0, 2, 7, 8, 0, 0, 0, 0];
        let mut r = bytes;
        block_on(async {
            assert_eq!(
                &read_frame(&mut r, MAX).await.unwrap().unwrap()[..],
                &[7, 8]
            );
            assert!(read_frame(&mut r, MAX).await.unwrap().unwrap().is_empty());
            assert!(read_frame(&mut r, MAX).await.unwrap().is_none());
        });
    }

    #[test]
    fn a_frame_over_the_limit_is_refused_from_its_prefix() {
        // Only the prefix is there: the check cannot have waited for (or allocated) a body.
        let mut r: &[u8] = &[0x7f, 0xff, 0xff, 0xff];
        let err = block_on(read_frame(&mut r, MAX)).unwrap_err();
        assert!(
            matches!(err, FrameError::TooLong { len, max } if len == 0x7fff_ffff && max == MAX)
        );
        assert!(frame_length((MAX as u32).to_be_bytes(), MAX).is_ok());
        assert!(frame_length((MAX as u32 + 1).to_be_bytes(), MAX).is_err());
    }

    #[test]
    fn a_negative_length_is_refused() {
        let mut r: &[u8] = &[0xff, 0xff, 0xff, 0xff];
        let err = block_on(read_frame(&mut r, MAX)).unwrap_err();
        assert!(matches!(err, FrameError::Negative(-1)));
    }

    #[test]
    fn an_end_inside_a_prefix_or_body_is_truncation() {
        for bytes in [&[0u8, 0][..], &[0, 0, 0, 3, 1, 2][..]] {
            let mut r = bytes;
            let err = block_on(read_frame(&mut r, MAX)).unwrap_err();
            assert!(matches!(err, FrameError::Truncated), "{bytes:?}: {err}");
        }
    }

    #[test]
    fn split_frames_agrees_with_the_reader() {
        let bytes: &[u8] = &[0, 0, 0, 1, 9, 0, 0, 0, 2, 1];
        let (frames, stop) = split_frames(bytes, MAX);
        assert_eq!(frames, vec![&[9u8][..]]);
        assert!(matches!(stop, Some(FrameError::Truncated)));
        let (frames, stop) = split_frames(&bytes[..5], MAX);
        assert_eq!(frames.len(), 1);
        assert!(stop.is_none());
        let (_, stop) = split_frames(&[0, 0, 0, 5], 4);
        assert!(matches!(stop, Some(FrameError::TooLong { len: 5, max: 4 })));
    }
}
