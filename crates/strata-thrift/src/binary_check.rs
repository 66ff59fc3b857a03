//! Checks a complete binary-protocol message before volo decodes it: it never claims more
//! bytes than it has, every container in a request declares the element types the IDL gives
//! it, and the whole message holds at most [`MAX_REQUEST_ELEMENTS`] container elements.
//!
//! Why: pilota 0.13.1's synchronous binary reader (used for every framed message) takes
//! strings and binaries with an unchecked `split_to`, so a length field larger than the rest
//! of the frame panics the connection's task instead of failing the decode. Found by the
//! `thrift_framed` fuzz target (docs/reliability-fuzz.md). And pilota's generated decoders
//! check a field's type but not a container's element types: they read the IDL's types and
//! reserve whatever count they then read, so a map declaring (string, i64) where the IDL has
//! map<Text, Text> made them take string bytes for a count and reserve ~139 GB, aborting the
//! process (finding 7). So for a request whose method is known the walk follows the schema
//! (`schema_check.rs`); otherwise every binary value says its own type and size.

use crate::compact::MAX_MESSAGE_BYTES;
use crate::schema;
use crate::schema_check::SchemaWalk;

/// Nesting deeper than this is rejected (pilota's own skip limit).
pub(crate) const MAX_DEPTH: usize = 64;

/// Container elements (list and set elements, map entries) allowed in one message, all
/// containers together. Why: every element takes at least one byte on the wire but far more
/// once decoded, so without a cap a 16 MiB message of 1-byte empty structs (a list of
/// `Mutation`s, say) would become 16 million structs of ~100 bytes each, a 1.6 GB request.
/// A million keeps one request's decoded containers near 100 MB.
pub const MAX_REQUEST_ELEMENTS: usize = 1_000_000;

/// The binary message type of an exception: volo decodes its body as an
/// `ApplicationException`, whatever the method name says.
const EXCEPTION_MESSAGE: u8 = 3;

/// Why a message was not accepted.
#[derive(Debug, PartialEq, Eq)]
pub enum CheckError {
    /// The message continues past the end of the buffer: at least `need` bytes in total are
    /// required (final for a frame; for a buffered stream, read more and look again).
    Incomplete { need: usize },
    /// Malformed whatever follows.
    Invalid(String),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Incomplete { need } => {
                write!(f, "binary message runs past its frame (needs {need} bytes)")
            }
            CheckError::Invalid(reason) => write!(f, "invalid binary message: {reason}"),
        }
    }
}

/// The number of bytes of the complete binary message at the start of `input`.
pub fn binary_message_len(input: &[u8]) -> Result<usize, CheckError> {
    let mut walk = Walk::new(input, MAX_MESSAGE_BYTES);
    walk.message()?;
    Ok(walk.pos)
}

/// Walks the strict binary message at the start of `input`; `Err` says where it overruns or
/// what is malformed. Bytes after the message are not looked at.
pub fn check_binary_message(input: &[u8]) -> Result<(), CheckError> {
    binary_message_len(input).map(|_| ())
}

/// [`check_binary_message`] for a message transcoded from compact: already in memory, and it
/// may be longer than the compact message it came from (varints widen), so its length is not
/// capped again.
pub fn check_transcoded_message(input: &[u8]) -> Result<(), CheckError> {
    let mut walk = Walk::new(input, input.len().max(MAX_MESSAGE_BYTES));
    walk.message()
}

pub(crate) fn invalid<T>(reason: impl Into<String>) -> Result<T, CheckError> {
    Err(CheckError::Invalid(reason.into()))
}

/// A cursor over one message, counting the container elements it has passed.
pub(crate) struct Walk<'a> {
    input: &'a [u8],
    pos: usize,
    /// Bytes the message may take.
    max_len: usize,
    elements: usize,
}

impl<'a> Walk<'a> {
    fn new(input: &'a [u8], max_len: usize) -> Self {
        Walk {
            input,
            pos: 0,
            max_len,
            elements: 0,
        }
    }

    fn message(&mut self) -> Result<(), CheckError> {
        let header = self.i32()?;
        if header >= 0 {
            return invalid("not a strict binary message");
        }
        // The low four bits, as pilota reads them (it ignores the rest of the low half).
        let message_type = (header & 0x0f) as u8;
        let name_len = self.len()?;
        let name_start = self.pos;
        self.skip(name_len)?;
        let input = self.input;
        let name = &input[name_start..self.pos];
        // pilota reads the name as a str without checking (see schema_check.rs).
        if std::str::from_utf8(name).is_err() {
            return invalid("the method name is not UTF-8");
        }
        self.skip(4)?; // sequence id
        if message_type == EXCEPTION_MESSAGE {
            return SchemaWalk::exception().body(self);
        }
        match schema::method(name) {
            Some(method) => SchemaWalk::request(method).body(self),
            // volo answers an unknown method with an exception without reading its body.
            None => self.value(12, 0),
        }
    }

    /// Passes one string value; false if it is not UTF-8.
    pub(crate) fn utf8_string(&mut self) -> Result<bool, CheckError> {
        let n = self.len()?;
        let at = self.pos;
        self.skip(n)?;
        Ok(std::str::from_utf8(&self.input[at..self.pos]).is_ok())
    }

    fn skip(&mut self, n: usize) -> Result<(), CheckError> {
        let end = self.pos.saturating_add(n);
        if end > self.max_len {
            return invalid(format!("message longer than {} bytes", self.max_len));
        }
        if end > self.input.len() {
            return Err(CheckError::Incomplete { need: end });
        }
        self.pos = end;
        Ok(())
    }

    pub(crate) fn byte(&mut self) -> Result<u8, CheckError> {
        let at = self.pos;
        self.skip(1)?;
        Ok(self.input[at])
    }

    fn i32(&mut self) -> Result<i32, CheckError> {
        let at = self.pos;
        self.skip(4)?;
        let mut be = [0u8; 4];
        be.copy_from_slice(&self.input[at..at + 4]);
        Ok(i32::from_be_bytes(be))
    }

    pub(crate) fn i16(&mut self) -> Result<i16, CheckError> {
        let at = self.pos;
        self.skip(2)?;
        Ok(i16::from_be_bytes([self.input[at], self.input[at + 1]]))
    }

    /// A length or count: non-negative.
    fn len(&mut self) -> Result<usize, CheckError> {
        let n = self.i32()?;
        usize::try_from(n).or_else(|_| invalid(format!("negative length {n}")))
    }

    /// A container's element count, added to the message's total.
    pub(crate) fn count(&mut self) -> Result<usize, CheckError> {
        let n = self.len()?;
        self.elements = self.elements.saturating_add(n);
        if self.elements > MAX_REQUEST_ELEMENTS {
            return invalid(format!(
                "more than {MAX_REQUEST_ELEMENTS} container elements in one message"
            ));
        }
        Ok(n)
    }

    /// Skips one value of binary type `ttype`.
    pub(crate) fn value(&mut self, ttype: u8, depth: usize) -> Result<(), CheckError> {
        if depth > MAX_DEPTH {
            return invalid("values nested too deeply");
        }
        match ttype {
            2 | 3 => self.skip(1),
            6 => self.skip(2),
            8 => self.skip(4),
            4 | 10 => self.skip(8),
            16 => self.skip(16),
            11 => {
                let n = self.len()?;
                self.skip(n)
            }
            12 => loop {
                let field_type = self.byte()?;
                if field_type == 0 {
                    return Ok(());
                }
                self.skip(2)?; // field id
                self.value(field_type, depth + 1)?;
            },
            13 => {
                let (key, val) = (self.byte()?, self.byte()?);
                let n = self.count()?;
                for _ in 0..n {
                    self.value(key, depth + 1)?;
                    self.value(val, depth + 1)?;
                }
                Ok(())
            }
            14 | 15 => {
                let elem = self.byte()?;
                let n = self.count()?;
                for _ in 0..n {
                    self.value(elem, depth + 1)?;
                }
                Ok(())
            }
            t => invalid(format!("unknown binary type {t} at offset {}", self.pos)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_binary_message;

    /// strict header, name "m", seq 1, then `body` and the struct stop.
    fn message(body: &[u8]) -> Vec<u8> {
        let mut m = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 1, b'm', 0, 0, 0, 1];
        m.extend_from_slice(body);
        m.push(0);
        m
    }

    #[test]
    fn well_formed_messages_pass() {
        let string_field = [11, 0, 1, 0, 0, 0, 2, b'h', b'i'];
        assert_eq!(check_binary_message(&message(&string_field)), Ok(()));
        let list_of_i32 = [15, 0, 2, 8, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 9];
        assert_eq!(check_binary_message(&message(&list_of_i32)), Ok(()));
    }

    #[test]
    fn lengths_past_the_end_are_rejected() {
        let long_string = [11, 0, 1, 0x04, 0x63, 0x66, 0x3a, b'x'];
        assert!(check_binary_message(&message(&long_string)).is_err());
        let negative = [11, 0, 1, 0xff, 0xff, 0xff, 0xff];
        assert!(check_binary_message(&message(&negative)).is_err());
        let mut long_name = message(&[]);
        long_name[4..8].copy_from_slice(&1000i32.to_be_bytes());
        assert!(check_binary_message(&long_name).is_err());
    }
}
