//! Block framing: `payload | codec: u8 | crc32c(payload | codec): u32 LE`. Every block of a
//! table (data, index, bloom, meta) is stored this way, and the CRC is checked on every read
//! from disk, before any byte of the payload is interpreted.

use std::path::Path;

use bytes::Bytes;

use super::compression::{codec_byte, codec_from_byte, compress, decompress};
use crate::error::{Error, Result};
use crate::options::Compression;
use crate::util::crc::crc32c;

/// Frames `raw`, compressing it with `codec` when that makes it smaller.
pub fn encode_frame(raw: &[u8], codec: Compression) -> Vec<u8> {
    let (payload, used) = match compress(codec, raw) {
        Some(packed) => (packed, codec),
        None => (raw.to_vec(), Compression::None),
    };
    let mut out = payload;
    out.push(codec_byte(used));
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Verifies and unpacks a frame read from `offset` of `path`, returning the raw block bytes.
pub fn decode_frame(mut framed: Vec<u8>, path: &Path, offset: u64) -> Result<Bytes> {
    let bad = |reason: &str| Error::corruption(path, offset, format!("block: {reason}"));
    let body_len = framed
        .len()
        .checked_sub(4)
        .filter(|&n| n >= 1)
        .ok_or_else(|| bad("shorter than its frame"))?;
    let (body, crc) = framed.split_at(body_len);
    let stored = u32::from_le_bytes(crc.try_into().map_err(|_| bad("short checksum"))?);
    if crc32c(body) != stored {
        return Err(bad("checksum mismatch"));
    }
    let codec_at = body_len - 1;
    let codec = codec_from_byte(framed[codec_at]).ok_or_else(|| bad("unknown codec"))?;
    framed.truncate(codec_at);
    if codec == Compression::None {
        return Ok(Bytes::from(framed));
    }
    let raw = decompress(codec, &framed).map_err(bad)?;
    Ok(Bytes::from(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip_and_fallback() {
        let raw = vec![3u8; 1000];
        let framed = encode_frame(&raw, Compression::Lz4);
        assert!(framed.len() < raw.len());
        assert_eq!(framed[framed.len() - 5], 1, "lz4 codec byte");
        assert_eq!(decode_frame(framed, Path::new("f"), 0).unwrap(), raw);

        let tiny = b"ab".to_vec();
        let framed = encode_frame(&tiny, Compression::Zstd);
        assert_eq!(framed.len(), 2 + 5);
        assert_eq!(
            framed[2], 0,
            "stored uncompressed because it did not shrink"
        );
        assert_eq!(decode_frame(framed, Path::new("f"), 0).unwrap(), tiny);
    }

    #[test]
    fn every_flipped_byte_is_corruption() {
        let raw: Vec<u8> = (0..300u32).map(|i| (i % 7) as u8).collect();
        for codec in [Compression::None, Compression::Snappy] {
            let framed = encode_frame(&raw, codec);
            for i in 0..framed.len() {
                let mut bad = framed.clone();
                bad[i] ^= 0x01;
                let err = decode_frame(bad, Path::new("t.sst"), 42).unwrap_err();
                match err {
                    Error::Corruption { path, offset, .. } => {
                        assert_eq!(path, Path::new("t.sst"));
                        assert_eq!(offset, 42);
                    }
                    other => panic!("byte {i}: {other}"),
                }
            }
        }
    }

    #[test]
    fn short_frames_are_corruption() {
        for len in 0..5 {
            let err = decode_frame(vec![0; len], Path::new("f"), 0).unwrap_err();
            assert!(err.is_corruption());
        }
    }
}
