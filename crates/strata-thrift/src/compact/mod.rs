//! Rewrites one Apache Thrift compact-protocol message as the same message in the strict binary
//! protocol, without knowing its schema.
//!
//! Why: pilota 0.13.1 (the newest release, used by volo-thrift 0.12.7) decodes compact messages
//! wrongly in two ways, while its binary decoder is correct:
//! - neither compact reader restores the previous field id when a nested struct ends, so a
//!   field written as a delta after a struct-valued field (or a list of structs) gets the wrong
//!   id and is skipped as unknown: mutateRowTs loses its `timestamp` after `mutations`;
//! - its synchronous compact reader (used for framed messages) panics on every bool field,
//!   because the generated decoder announces the field for length bookkeeping and the pending
//!   bool is never cleared.
//!
//! Both sit inside pilota's protocol types, and volo only lets a codec hand bytes to its own
//! decoder (the message wrapper cannot be built outside volo), so the smallest sound fix is to
//! transcode: the compact encoding is self-describing, so every field and element maps one to
//! one onto its binary encoding. See `codec.rs` for where this is used.

use bytes::{BufMut, BytesMut};

/// The first byte of every compact message.
pub const COMPACT_PROTOCOL_ID: u8 = 0x82;

/// Upper bound for one compact message (volo's default frame limit, so both transports agree).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Nesting deeper than this is rejected rather than risking the stack.
const MAX_DEPTH: usize = 64;

const COMPACT_VERSION: u8 = 1;

/// Why a buffer could not be transcoded.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranscodeError {
    /// The message continues past the end of the buffer: at least `need` bytes in total are
    /// required before trying again.
    #[error("incomplete compact message: need at least {need} bytes")]
    Incomplete { need: usize },
    #[error("invalid compact message: {0}")]
    Invalid(String),
}

type Result<T> = std::result::Result<T, TranscodeError>;

fn invalid<T>(msg: impl Into<String>) -> Result<T> {
    Err(TranscodeError::Invalid(msg.into()))
}

/// Transcodes the compact message at the start of `input`. Returns the binary message and the
/// number of input bytes it used (anything after it belongs to the next message).
pub fn compact_to_binary(input: &[u8]) -> Result<(BytesMut, usize)> {
    let mut t = Transcoder {
        input,
        pos: 0,
        out: BytesMut::with_capacity(input.len().saturating_mul(2).min(1 << 20)),
    };
    t.message()?;
    Ok((t.out, t.pos))
}

struct Transcoder<'a> {
    input: &'a [u8],
    pos: usize,
    out: BytesMut,
}

impl Transcoder<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.saturating_add(n);
        if end > MAX_MESSAGE_BYTES {
            return invalid(format!("message longer than {MAX_MESSAGE_BYTES} bytes"));
        }
        let Some(bytes) = self.input.get(self.pos..end) else {
            return Err(TranscodeError::Incomplete { need: end });
        };
        self.pos = end;
        Ok(bytes)
    }

    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        invalid("varint longer than 10 bytes")
    }

    fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A length or count: an unsigned varint that must fit the binary protocol's i32.
    fn size(&mut self) -> Result<usize> {
        let v = self.varint()?;
        match usize::try_from(v) {
            Ok(n) if n <= MAX_MESSAGE_BYTES => Ok(n),
            _ => invalid(format!("size {v} is too large")),
        }
    }

    fn put_size(&mut self, n: usize) {
        // `size` caps every length at MAX_MESSAGE_BYTES, which fits an i32.
        self.out.put_i32(n as i32);
    }

    fn message(&mut self) -> Result<()> {
        if self.byte()? != COMPACT_PROTOCOL_ID {
            return invalid("not a compact message");
        }
        let version_and_type = self.byte()?;
        if version_and_type & 0x1f != COMPACT_VERSION {
            return invalid(format!("compact version {}", version_and_type & 0x1f));
        }
        let message_type = version_and_type >> 5;
        // The sequence id is written as an unsigned varint holding the i32's bits.
        let seq = self.varint()? as u32;
        let name_len = self.size()?;
        let name = self.take(name_len)?;
        let name = name.to_vec();
        // Strict binary header: version 1 in the high half, message type in the low byte.
        self.out.put_u32(0x8001_0000 | u32::from(message_type));
        self.put_size(name.len());
        self.out.put_slice(&name);
        self.out.put_u32(seq);
        self.structure(0)
    }

    fn structure(&mut self, depth: usize) -> Result<()> {
        if depth >= MAX_DEPTH {
            return invalid("structs nested too deeply");
        }
        // Field ids are deltas from the previous field of *this* struct: the state is local to
        // this call, which is exactly what pilota gets wrong.
        let mut last_id: i16 = 0;
        loop {
            let header = self.byte()?;
            if header == 0 {
                self.out.put_u8(0); // stop
                return Ok(());
            }
            let ctype = header & 0x0f;
            let delta = header >> 4;
            let id = if delta == 0 {
                let id = self.zigzag()?;
                i16::try_from(id).or_else(|_| invalid(format!("field id {id}")))?
            } else {
                last_id
                    .checked_add(i16::from(delta))
                    .map_or_else(|| invalid("field id overflow"), Ok)?
            };
            last_id = id;
            self.out.put_u8(binary_type(ctype)?);
            self.out.put_i16(id);
            match ctype {
                // A bool field carries its value in the type nibble.
                1 => self.out.put_u8(1),
                2 => self.out.put_u8(0),
                _ => self.value(ctype, depth)?,
            }
        }
    }

    fn value(&mut self, ctype: u8, depth: usize) -> Result<()> {
        match ctype {
            // Bools inside collections are one byte: 1 is true; 2 (or 0 from old writers) false.
            1 | 2 => {
                let b = self.byte()?;
                self.out.put_u8(u8::from(b == 1));
            }
            3 => {
                let b = self.byte()?;
                self.out.put_u8(b);
            }
            4 => {
                let v = self.zigzag()?;
                let v = i16::try_from(v).or_else(|_| invalid(format!("i16 out of range: {v}")))?;
                self.out.put_i16(v);
            }
            5 => {
                let v = self.zigzag()?;
                let v = i32::try_from(v).or_else(|_| invalid(format!("i32 out of range: {v}")))?;
                self.out.put_i32(v);
            }
            6 => {
                let v = self.zigzag()?;
                self.out.put_i64(v);
            }
            // Compact doubles are little-endian, binary ones big-endian.
            7 => {
                let mut d = [0u8; 8];
                d.copy_from_slice(self.take(8)?);
                d.reverse();
                self.out.put_slice(&d);
            }
            8 => {
                let n = self.size()?;
                let bytes = self.take(n)?.to_vec();
                self.put_size(n);
                self.out.put_slice(&bytes);
            }
            9 | 10 => self.list_or_set(depth)?,
            11 => self.map(depth)?,
            12 => self.structure(depth + 1)?,
            13 => {
                let uuid = self.take(16)?.to_vec();
                self.out.put_slice(&uuid);
            }
            t => return invalid(format!("unknown compact type {t}")),
        }
        Ok(())
    }

    fn list_or_set(&mut self, depth: usize) -> Result<()> {
        if depth >= MAX_DEPTH {
            return invalid("collections nested too deeply");
        }
        let header = self.byte()?;
        let elem = header & 0x0f;
        let short_size = usize::from(header >> 4);
        let n = if short_size == 15 {
            self.size()?
        } else {
            short_size
        };
        self.out.put_u8(binary_type(elem)?);
        self.put_size(n);
        for _ in 0..n {
            self.value(elem, depth + 1)?;
        }
        Ok(())
    }

    fn map(&mut self, depth: usize) -> Result<()> {
        if depth >= MAX_DEPTH {
            return invalid("collections nested too deeply");
        }
        let n = self.size()?;
        if n == 0 {
            // An empty compact map omits its key/value types; any valid type byte will do.
            self.out.put_slice(&[0, 0]);
            self.put_size(0);
            return Ok(());
        }
        let types = self.byte()?;
        let (key, val) = (types >> 4, types & 0x0f);
        self.out.put_u8(binary_type(key)?);
        self.out.put_u8(binary_type(val)?);
        self.put_size(n);
        for _ in 0..n {
            self.value(key, depth + 1)?;
            self.value(val, depth + 1)?;
        }
        Ok(())
    }
}

/// The binary protocol's type id for a compact type id.
fn binary_type(ctype: u8) -> Result<u8> {
    Ok(match ctype {
        1 | 2 => 2, // bool
        3 => 3,     // i8
        4 => 6,     // i16
        5 => 8,     // i32
        6 => 10,    // i64
        7 => 4,     // double
        8 => 11,    // binary / string
        9 => 15,    // list
        10 => 14,   // set
        11 => 13,   // map
        12 => 12,   // struct
        13 => 16,   // uuid
        t => return invalid(format!("unknown compact type {t}")),
    })
}

#[cfg(test)]
mod tests;
