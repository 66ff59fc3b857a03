//! A cursor over one binary-protocol message that checks as it goes: every length stays
//! inside the message and under its size cap, nesting stays under [`MAX_DEPTH`], and the
//! container elements of the whole message stay under [`MAX_REQUEST_ELEMENTS`]. The request
//! check (`binary_check.rs`) drives it, through the schema where the method is known
//! (`schema_check.rs`).

/// Nesting deeper than this is rejected (pilota's own skip limit).
pub(crate) const MAX_DEPTH: usize = 64;

/// Container elements (list and set elements, map entries) allowed in one message, all
/// containers together. Why: every element takes at least one byte on the wire but far more
/// once decoded, so without a cap a 16 MiB message of 1-byte empty structs (a list of
/// `Mutation`s, say) would become 16 million structs of ~100 bytes each, a 1.6 GB request.
/// A million keeps one request's decoded containers near 100 MB.
pub const MAX_REQUEST_ELEMENTS: usize = 1_000_000;

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

pub(crate) fn invalid<T>(reason: impl Into<String>) -> Result<T, CheckError> {
    Err(CheckError::Invalid(reason.into()))
}

/// A cursor over one message, counting the container elements it has passed.
pub(crate) struct Walk<'a> {
    pub(crate) input: &'a [u8],
    /// Bytes passed so far.
    pub(crate) pos: usize,
    /// Bytes the message may take.
    max_len: usize,
    elements: usize,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(input: &'a [u8], max_len: usize) -> Self {
        Walk {
            input,
            pos: 0,
            max_len,
            elements: 0,
        }
    }
    /// Passes one string value; false if it is not UTF-8.
    pub(crate) fn utf8_string(&mut self) -> Result<bool, CheckError> {
        let n = self.len()?;
        let at = self.pos;
        self.skip(n)?;
        Ok(std::str::from_utf8(&self.input[at..self.pos]).is_ok())
    }

    pub(crate) fn skip(&mut self, n: usize) -> Result<(), CheckError> {
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

    pub(crate) fn i32(&mut self) -> Result<i32, CheckError> {
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
    pub(crate) fn len(&mut self) -> Result<usize, CheckError> {
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
