//! String literals: single-quoted (only `\\` and `\'` escape) and double-quoted with Ruby's
//! escapes, decoded to bytes.

use super::{ParseError, Parser};

impl Parser {
    pub(super) fn single_quoted(&mut self) -> Result<Vec<u8>, ParseError> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(self.incomplete("unterminated string")),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(out.into_bytes());
                }
                Some('\\') if matches!(self.peek_at(1), Some('\\') | Some('\'')) => {
                    out.extend(self.peek_at(1));
                    self.pos += 2;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    pub(super) fn double_quoted(&mut self) -> Result<Vec<u8>, ParseError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.incomplete("unterminated string")),
                Some('"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(c) => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    self.pos += 1;
                }
            }
        }
    }

    /// One escape after a backslash in a double-quoted string.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), ParseError> {
        let at = self.pos - 1;
        let Some(c) = self.peek() else {
            return Err(self.incomplete("unterminated string"));
        };
        self.pos += 1;
        let simple = match c {
            'n' => Some(b'\n'),
            't' => Some(b'\t'),
            'r' => Some(b'\r'),
            'e' => Some(0x1b),
            'a' => Some(0x07),
            'b' => Some(0x08),
            'f' => Some(0x0c),
            'v' => Some(0x0b),
            's' => Some(b' '),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            return Ok(());
        }
        match c {
            'x' => {
                let digits = self.digits(2, 16);
                let byte = u8::from_str_radix(&digits, 16)
                    .map_err(|_| self.error(at, "\\x needs one or two hex digits"))?;
                out.push(byte);
            }
            '0'..='7' => {
                self.pos -= 1;
                let digits = self.digits(3, 8);
                let byte = u16::from_str_radix(&digits, 8)
                    .ok()
                    .and_then(|v| u8::try_from(v & 0xff).ok())
                    .ok_or_else(|| self.error(at, "bad octal escape"))?;
                out.push(byte);
            }
            'u' => {
                let digits = self.digits(4, 16);
                let ch = u32::from_str_radix(&digits, 16)
                    .ok()
                    .filter(|_| digits.len() == 4)
                    .and_then(char::from_u32)
                    .ok_or_else(|| self.error(at, "\\u needs four hex digits"))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            other => {
                // Ruby keeps the character itself for any other escape (`\"`, `\\`, `\'`).
                let mut buf = [0u8; 4];
                out.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
            }
        }
        Ok(())
    }

    /// Up to `max` digits in `radix`.
    fn digits(&mut self, max: usize, radix: u32) -> String {
        let mut s = String::new();
        while s.len() < max {
            match self.peek().filter(|c| c.is_digit(radix)) {
                Some(c) => {
                    s.push(c);
                    self.pos += 1;
                }
                None => break,
            }
        }
        s
    }
}
