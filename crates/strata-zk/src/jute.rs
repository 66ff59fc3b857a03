//! Jute, ZooKeeper's record encoding: big-endian `int` (4 bytes) and `long` (8 bytes), a
//! `boolean` as one byte, and `buffer`, `ustring` and `vector` as an `int` count followed
//! by that many bytes or elements, where a count of -1 means null.
//!
//! The reader never trusts a count: a buffer or string longer than what is left of the
//! frame is an error before anything is allocated, and a vector's count is checked against
//! the smallest size its elements could have.

use bytes::{BufMut, Bytes, BytesMut};

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("record cut short: {field} needs {needed} bytes, {left} left")]
    Truncated {
        field: &'static str,
        needed: usize,
        left: usize,
    },
    #[error("{field} has a negative length {length}")]
    NegativeLength { field: &'static str, length: i32 },
}

/// A cursor over one received frame.
#[derive(Debug)]
pub struct JuteReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> JuteReader<'a> {
    pub fn new(buf: &'a [u8]) -> JuteReader<'a> {
        JuteReader { buf, pos: 0 }
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn take(&mut self, field: &'static str, n: usize) -> Result<&'a [u8], DecodeError> {
        let left = self.remaining();
        if n > left {
            return Err(DecodeError::Truncated {
                field,
                needed: n,
                left,
            });
        }
        let bytes = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(field, N)?);
        Ok(out)
    }

    pub fn int(&mut self, field: &'static str) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array(field)?))
    }

    pub fn long(&mut self, field: &'static str) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array(field)?))
    }

    /// Jute writes `true` as 1; like ZooKeeper's reader, any non-zero byte is true.
    pub fn boolean(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        Ok(self.array::<1>(field)?[0] != 0)
    }

    /// A `buffer`; null (-1) reads as empty, which is how ZooKeeper treats a null password.
    pub fn buffer(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        match self.int(field)? {
            -1 => Ok(&[]),
            n if n < 0 => Err(DecodeError::NegativeLength { field, length: n }),
            n => self.take(field, n as usize),
        }
    }

    /// A `ustring`. Invalid UTF-8 becomes replacement characters rather than an error, as
    /// in ZooKeeper's Java reader: such a path then names no node.
    pub fn string(&mut self, field: &'static str) -> Result<String, DecodeError> {
        let bytes = self.buffer(field)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Appends jute values to an outgoing frame.
#[derive(Debug, Default)]
pub struct JuteWriter {
    buf: BytesMut,
}

impl JuteWriter {
    pub fn new() -> JuteWriter {
        JuteWriter::default()
    }

    pub fn int(&mut self, value: i32) -> &mut Self {
        self.buf.put_i32(value);
        self
    }

    pub fn long(&mut self, value: i64) -> &mut Self {
        self.buf.put_i64(value);
        self
    }

    pub fn boolean(&mut self, value: bool) -> &mut Self {
        self.buf.put_u8(u8::from(value));
        self
    }

    pub fn buffer(&mut self, value: &[u8]) -> &mut Self {
        self.int(jute_len(value.len()));
        self.buf.put_slice(value);
        self
    }

    pub fn string(&mut self, value: &str) -> &mut Self {
        self.buffer(value.as_bytes())
    }

    pub fn strings(&mut self, values: &[String]) -> &mut Self {
        self.int(jute_len(values.len()));
        for value in values {
            self.string(value);
        }
        self
    }

    /// The bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn finish(self) -> Bytes {
        self.buf.freeze()
    }

    /// The bytes written, behind the 4-byte length every frame starts with.
    pub fn into_frame(self) -> Bytes {
        let mut framed = BytesMut::with_capacity(4 + self.buf.len());
        framed.put_i32(jute_len(self.buf.len()));
        framed.put_slice(&self.buf);
        framed.freeze()
    }
}

/// A length as jute's `int`. Everything this crate writes is far below 2 GiB (replies are
/// built from znodes a few hundred bytes long), so saturating never changes a real value.
fn jute_len(len: usize) -> i32 {
    i32::try_from(len).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let mut w = JuteWriter::new();
        w.int(-7)
            .long(0x0102_0304_0506_0708)
            .boolean(true)
            .boolean(false)
            .buffer(b"pw")
            .string("/hbase")
            .strings(&["a".into(), "bc".into()]);
        let bytes = w.finish();
        let mut r = JuteReader::new(&bytes);
        assert_eq!(r.int("i").unwrap(), -7);
        assert_eq!(r.long("l").unwrap(), 0x0102_0304_0506_0708);
        assert!(r.boolean("t").unwrap());
        assert!(!r.boolean("f").unwrap());
        assert_eq!(r.buffer("b").unwrap(), b"pw");
        assert_eq!(r.string("s").unwrap(), "/hbase");
        assert_eq!(r.int("n").unwrap(), 2);
        assert_eq!(r.string("a").unwrap(), "a");
        assert_eq!(r.string("bc").unwrap(), "bc");
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn big_endian_on_the_wire() {
        let mut w = JuteWriter::new();
        w.int(1).long(2);
        assert_eq!(&w.finish()[..], &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2]);
    }

    #[test]
    fn a_count_longer_than_the_frame_is_refused_before_allocating() {
        let mut w = JuteWriter::new();
        w.int(i32::MAX).int(0);
        let bytes = w.finish();
        let err = JuteReader::new(&bytes).buffer("path").unwrap_err();
        assert_eq!(
            err,
            DecodeError::Truncated {
                field: "path",
                needed: i32::MAX as usize,
                left: 4
            }
        );
    }

    #[test]
    fn null_buffer_reads_empty_and_other_negatives_fail() {
        let mut w = JuteWriter::new();
        w.int(-1).int(-2);
        let bytes = w.finish();
        let mut r = JuteReader::new(&bytes);
        assert_eq!(r.buffer("passwd").unwrap(), b"");
        assert!(matches!(
            r.buffer("passwd"),
            Err(DecodeError::NegativeLength { length: -2, .. })
        ));
    }

    #[test]
    fn truncated_scalars_fail() {
        assert!(JuteReader::new(&[0, 0, 1]).int("x").is_err());
        assert!(JuteReader::new(&[0; 7]).long("x").is_err());
        assert!(JuteReader::new(&[]).boolean("x").is_err());
    }

    #[test]
    fn invalid_utf8_is_replaced_not_an_error() {
        let mut w = JuteWriter::new();
        w.buffer(&[b'/', 0xff]);
        let bytes = w.finish();
        assert_eq!(JuteReader::new(&bytes).string("p").unwrap(), "/\u{fffd}");
    }

    #[test]
    fn into_frame_prefixes_the_length() {
        let mut w = JuteWriter::new();
        w.int(5);
        assert_eq!(&w.into_frame()[..], &[0, 0, 0, 4, 0, 0, 0, 5]);
    }
}
