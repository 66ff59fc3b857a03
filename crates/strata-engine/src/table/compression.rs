//! Block codecs. A compressed payload is `varint(uncompressed length)` followed by the codec's
//! raw output; the recorded length lets the reader allocate exactly once and refuse absurd
//! sizes before decompressing anything.

use crate::options::Compression;
use crate::util::coding::{put_varint, Decoder};

/// Largest decompressed block the reader accepts. Blocks whose raw size exceeds it are always
/// stored uncompressed by the writer, so this only ever rejects damaged files.
pub const MAX_DECOMPRESSED_LEN: usize = 64 << 20;

/// Zstd level: the library default, a good speed/ratio balance for flushes and compactions.
const ZSTD_LEVEL: i32 = 3;

/// The codec byte stored in every block frame.
pub fn codec_byte(c: Compression) -> u8 {
    match c {
        Compression::None => 0,
        Compression::Lz4 => 1,
        Compression::Zstd => 2,
        Compression::Snappy => 3,
        Compression::Gz => 4,
    }
}

/// Parses a codec byte.
pub fn codec_from_byte(b: u8) -> Option<Compression> {
    Some(match b {
        0 => Compression::None,
        1 => Compression::Lz4,
        2 => Compression::Zstd,
        3 => Compression::Snappy,
        4 => Compression::Gz,
        _ => return None,
    })
}

fn gzip(raw: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(raw).ok()?;
    encoder.finish().ok()
}

/// Inflates at most `len` bytes (the recorded length), so a damaged stream cannot expand
/// into unbounded memory.
fn gunzip(body: &[u8], len: usize) -> Result<Vec<u8>, &'static str> {
    use std::io::Read;
    let mut out = Vec::with_capacity(len);
    let mut decoder = flate2::read::GzDecoder::new(body).take(len as u64 + 1);
    decoder.read_to_end(&mut out).map_err(|_| "bad gzip data")?;
    if out.len() != len {
        return Err("gzip length disagrees with the recorded length");
    }
    Ok(out)
}

/// Compresses `raw` with `codec`. Returns `None` when compression fails, is not worth it
/// (the result is not smaller) or the block is too large for a reader to accept.
pub fn compress(codec: Compression, raw: &[u8]) -> Option<Vec<u8>> {
    if raw.len() > MAX_DECOMPRESSED_LEN {
        return None;
    }
    let body = match codec {
        Compression::None => return None,
        Compression::Lz4 => lz4_flex::block::compress(raw),
        Compression::Zstd => zstd::bulk::compress(raw, ZSTD_LEVEL).ok()?,
        Compression::Snappy => snap::raw::Encoder::new().compress_vec(raw).ok()?,
        Compression::Gz => gzip(raw)?,
    };
    let mut out = Vec::with_capacity(body.len() + 5);
    put_varint(&mut out, raw.len() as u64);
    out.extend_from_slice(&body);
    (out.len() < raw.len()).then_some(out)
}

/// Decompresses a payload written by [`compress`]. Errors are reasons for a corruption error.
pub fn decompress(codec: Compression, payload: &[u8]) -> Result<Vec<u8>, &'static str> {
    let mut d = Decoder::new(payload);
    let len = d.varint().ok_or("bad uncompressed length")?;
    let len = usize::try_from(len)
        .ok()
        .filter(|&n| n <= MAX_DECOMPRESSED_LEN)
        .ok_or("uncompressed length too large")?;
    let body = d.bytes(d.remaining()).ok_or("truncated payload")?;
    let out = match codec {
        Compression::None => return Err("uncompressed block has no length header"),
        Compression::Lz4 => {
            let mut out = vec![0u8; len];
            let n = lz4_flex::block::decompress_into(body, &mut out).map_err(|_| "bad lz4 data")?;
            out.truncate(n);
            out
        }
        Compression::Zstd => zstd::bulk::decompress(body, len).map_err(|_| "bad zstd data")?,
        Compression::Gz => gunzip(body, len)?,
        Compression::Snappy => {
            if snap::raw::decompress_len(body).map_err(|_| "bad snappy data")? != len {
                return Err("snappy length disagrees with the recorded length");
            }
            snap::raw::Decoder::new()
                .decompress_vec(body)
                .map_err(|_| "bad snappy data")?
        }
    };
    if out.len() != len {
        return Err("decompressed length disagrees with the recorded length");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODECS: [Compression; 4] = [
        Compression::Lz4,
        Compression::Zstd,
        Compression::Snappy,
        Compression::Gz,
    ];

    #[test]
    fn round_trip_every_codec() {
        let raw: Vec<u8> = (0..10_000u32).map(|i| (i % 17) as u8).collect();
        for codec in CODECS {
            let packed = compress(codec, &raw).unwrap();
            assert!(packed.len() < raw.len());
            assert_eq!(decompress(codec, &packed).unwrap(), raw, "{codec:?}");
        }
    }

    #[test]
    fn incompressible_data_is_not_compressed() {
        let raw: Vec<u8> = (0..64u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect();
        for codec in CODECS {
            assert_eq!(compress(codec, &raw), None, "{codec:?}");
        }
    }

    #[test]
    fn lying_length_is_rejected() {
        let raw = vec![7u8; 4096];
        for codec in CODECS {
            let mut packed = compress(codec, &raw).unwrap();
            // Replace the 2-byte varint 4096 with 4095 (0xFF 0x1F).
            assert_eq!(&packed[..2], &[0x80, 0x20]);
            packed[0] = 0xFF;
            packed[1] = 0x1F;
            assert!(decompress(codec, &packed).is_err(), "{codec:?}");
        }
    }

    #[test]
    fn huge_recorded_length_is_rejected_before_allocating() {
        let mut payload = Vec::new();
        put_varint(&mut payload, u64::MAX);
        payload.extend_from_slice(b"xx");
        for codec in CODECS {
            assert_eq!(
                decompress(codec, &payload),
                Err("uncompressed length too large")
            );
        }
    }

    #[test]
    fn codec_bytes_are_stable() {
        for (c, b) in [
            (Compression::None, 0),
            (Compression::Lz4, 1),
            (Compression::Zstd, 2),
            (Compression::Snappy, 3),
            (Compression::Gz, 4),
        ] {
            assert_eq!(codec_byte(c), b);
            assert_eq!(codec_from_byte(b), Some(c));
        }
        assert_eq!(codec_from_byte(5), None);
    }
}
