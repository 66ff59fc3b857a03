//! Tagged, length-prefixed fields: the extensible body encoding of a manifest.
//!
//! A field is `tag (varint) | payload length (varint) | payload`. Because every field
//! carries its length, a reader can skip fields it does not know. Tags below
//! [`FIRST_SKIPPABLE_TAG`] must be understood (an unknown one is corruption, since ignoring
//! it could change meaning); tags at or above it are optional and skipped when unknown.

use crate::util::coding::{put_len_prefixed, put_u64_le, put_varint, Decoder};

/// Tags at or above this value may be skipped by readers that do not know them.
pub const FIRST_SKIPPABLE_TAG: u64 = 64;

/// Why some bytes could not be decoded, with the absolute file offset of the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defect {
    /// Offset in the file where decoding failed.
    pub offset: u64,
    /// What was wrong.
    pub reason: String,
    /// True when the bytes look like an unfinished write rather than damage.
    pub torn: bool,
}

impl Defect {
    /// Damage (or a bug): the bytes are complete but wrong.
    pub fn corrupt(offset: u64, reason: impl Into<String>) -> Self {
        Defect {
            offset,
            reason: reason.into(),
            torn: false,
        }
    }

    /// An unfinished write: the file stops before its declared end.
    pub fn torn(offset: u64, reason: impl Into<String>) -> Self {
        Defect {
            offset,
            reason: reason.into(),
            torn: true,
        }
    }
}

/// Appends a field with raw bytes as its payload.
pub fn put_bytes_field(buf: &mut Vec<u8>, tag: u64, payload: &[u8]) {
    put_varint(buf, tag);
    put_len_prefixed(buf, payload);
}

/// Appends a field whose payload is one varint.
pub fn put_varint_field(buf: &mut Vec<u8>, tag: u64, value: u64) {
    let mut payload = Vec::with_capacity(10);
    put_varint(&mut payload, value);
    put_bytes_field(buf, tag, &payload);
}

/// Appends a field whose payload is a signed 64-bit little-endian integer.
pub fn put_i64_field(buf: &mut Vec<u8>, tag: u64, value: i64) {
    let mut payload = Vec::with_capacity(8);
    put_u64_le(&mut payload, value as u64);
    put_bytes_field(buf, tag, &payload);
}

/// One decoded field, borrowing its payload.
#[derive(Debug, Clone, Copy)]
pub struct Field<'a> {
    /// The field's tag.
    pub tag: u64,
    /// The payload bytes.
    pub payload: &'a [u8],
    /// Absolute file offset of the payload, for error messages.
    pub offset: u64,
}

impl<'a> Field<'a> {
    /// The payload as exactly one varint.
    pub fn varint(&self) -> Result<u64, Defect> {
        let mut d = Decoder::new(self.payload);
        match d.varint() {
            Some(v) if d.is_empty() => Ok(v),
            _ => Err(self.bad("a varint")),
        }
    }

    /// The payload as exactly 8 little-endian bytes.
    pub fn i64(&self) -> Result<i64, Defect> {
        let mut d = Decoder::new(self.payload);
        match d.i64_le() {
            Some(v) if d.is_empty() => Ok(v),
            _ => Err(self.bad("an 8-byte integer")),
        }
    }

    /// The payload as UTF-8 text.
    pub fn string(&self) -> Result<String, Defect> {
        String::from_utf8(self.payload.to_vec()).map_err(|_| self.bad("UTF-8 text"))
    }

    fn bad(&self, expected: &str) -> Defect {
        Defect::corrupt(
            self.offset,
            format!("field {} payload is not {expected}", self.tag),
        )
    }
}

/// Iterates the fields of a byte range that starts at absolute offset `base`, rejecting
/// duplicate or unknown must-understand tags.
pub struct FieldReader<'a> {
    decoder: Decoder<'a>,
    base: u64,
    known: &'static [u64],
    repeatable: &'static [u64],
    seen: u64,
}

impl<'a> FieldReader<'a> {
    /// Reads `data` (found at `base` in the file); `known` lists the tags the caller handles.
    pub fn new(data: &'a [u8], base: u64, known: &'static [u64]) -> Self {
        FieldReader {
            decoder: Decoder::new(data),
            base,
            known,
            repeatable: &[],
            seen: 0,
        }
    }

    /// Allows the listed known tags to occur more than once (lists of entries).
    pub fn with_repeatable(mut self, tags: &'static [u64]) -> Self {
        self.repeatable = tags;
        self
    }

    /// The next known field, `None` at the end of the range.
    pub fn next_field(&mut self) -> Result<Option<Field<'a>>, Defect> {
        loop {
            if self.decoder.is_empty() {
                return Ok(None);
            }
            let start = self.base + self.decoder.position() as u64;
            let tag = self
                .decoder
                .varint()
                .ok_or_else(|| Defect::corrupt(start, "bad field tag"))?;
            let payload = self
                .decoder
                .len_prefixed()
                .ok_or_else(|| Defect::corrupt(start, format!("field {tag} overruns its range")))?;
            let offset = self.base + (self.decoder.position() - payload.len()) as u64;
            if self.known.contains(&tag) {
                self.mark_seen(tag, start)?;
                return Ok(Some(Field {
                    tag,
                    payload,
                    offset,
                }));
            }
            if tag < FIRST_SKIPPABLE_TAG {
                return Err(Defect::corrupt(
                    start,
                    format!("unknown required field {tag}"),
                ));
            }
        }
    }

    fn mark_seen(&mut self, tag: u64, start: u64) -> Result<(), Defect> {
        if self.repeatable.contains(&tag) {
            return Ok(());
        }
        // Known tags are all below 64, so one bit each suffices.
        let bit = 1u64 << (tag % 64);
        if self.seen & bit != 0 {
            return Err(Defect::corrupt(start, format!("field {tag} repeated")));
        }
        self.seen |= bit;
        Ok(())
    }
}

/// Unwraps a required field or reports it missing at `offset` (the end of its range).
pub fn require<T>(value: Option<T>, name: &str, offset: u64) -> Result<T, Defect> {
    value.ok_or_else(|| Defect::corrupt(offset, format!("required field {name} missing")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[u64] = &[1, 2];

    #[test]
    fn skips_optional_unknown_fields() {
        let mut buf = Vec::new();
        put_varint_field(&mut buf, 1, 300);
        put_bytes_field(&mut buf, 99, b"future");
        put_i64_field(&mut buf, 2, -5);
        let mut r = FieldReader::new(&buf, 100, KNOWN);
        let f = r.next_field().unwrap().unwrap();
        assert_eq!((f.tag, f.varint().unwrap(), f.offset), (1, 300, 102));
        let f = r.next_field().unwrap().unwrap();
        assert_eq!((f.tag, f.i64().unwrap()), (2, -5));
        assert!(r.next_field().unwrap().is_none());
    }

    #[test]
    fn rejects_unknown_required_repeated_and_overrunning_fields() {
        let mut buf = Vec::new();
        put_varint_field(&mut buf, 3, 1);
        let err = FieldReader::new(&buf, 0, KNOWN).next_field().unwrap_err();
        assert!(err.reason.contains("unknown required"));

        let mut buf = Vec::new();
        put_varint_field(&mut buf, 1, 1);
        put_varint_field(&mut buf, 1, 2);
        let mut r = FieldReader::new(&buf, 0, KNOWN);
        r.next_field().unwrap();
        let err = r.next_field().unwrap_err();
        assert_eq!((err.offset, err.reason.contains("repeated")), (3, true));

        let mut buf = Vec::new();
        put_bytes_field(&mut buf, 1, b"abcdef");
        let err = FieldReader::new(&buf[..5], 0, KNOWN)
            .next_field()
            .unwrap_err();
        assert!(err.reason.contains("overruns"));
    }

    #[test]
    fn typed_payloads_must_fill_the_field_exactly() {
        let mut buf = Vec::new();
        put_bytes_field(&mut buf, 1, &[1, 2]);
        let f = FieldReader::new(&buf, 0, KNOWN)
            .next_field()
            .unwrap()
            .unwrap();
        assert!(f.varint().is_err());
        assert!(f.i64().is_err());
    }
}
