//! Splits a filter string into tokens: parentheses, commas, quoted byte strings (a doubled
//! quote `''` stands for one quote), comparison operators, and words (filter names, keywords,
//! integers, booleans).

use super::compare::CompareOp;
use super::error::FilterError;

/// One token's kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    LParen,
    RParen,
    Comma,
    /// A quoted string, quotes removed and `''` unescaped.
    Str(Vec<u8>),
    /// A comparison operator.
    Op(CompareOp),
    /// Any other run of characters up to whitespace, punctuation or an operator.
    Word(&'a [u8]),
}

/// A token and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub tok: Tok<'a>,
    pub start: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_op_char(b: u8) -> bool {
    matches!(b, b'<' | b'>' | b'=' | b'!')
}

fn ends_word(b: u8) -> bool {
    is_space(b) || is_op_char(b) || matches!(b, b'(' | b')' | b',' | b'\'')
}

/// Tokenizes `input`.
pub(crate) fn tokenize(input: &[u8]) -> Result<Vec<Token<'_>>, FilterError> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        let start = i;
        let tok = match b {
            _ if is_space(b) => {
                i += 1;
                continue;
            }
            b'(' => {
                i += 1;
                Tok::LParen
            }
            b')' => {
                i += 1;
                Tok::RParen
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'\'' => {
                let (text, end) = quoted(input, i)?;
                i = end;
                Tok::Str(text)
            }
            _ if is_op_char(b) => {
                while i < input.len() && is_op_char(input[i]) {
                    i += 1;
                }
                let symbol = &input[start..i];
                let op = CompareOp::from_symbol(symbol).ok_or_else(|| {
                    FilterError::at(
                        input,
                        start,
                        format!(
                            "unknown comparison operator '{}' (expected <, <=, =, !=, >= or >)",
                            String::from_utf8_lossy(symbol)
                        ),
                    )
                })?;
                Tok::Op(op)
            }
            _ => {
                while i < input.len() && !ends_word(input[i]) {
                    i += 1;
                }
                Tok::Word(&input[start..i])
            }
        };
        tokens.push(Token { tok, start });
    }
    Ok(tokens)
}

/// Reads the quoted string starting at `open` (a quote); returns its bytes and the offset just
/// past the closing quote.
fn quoted(input: &[u8], open: usize) -> Result<(Vec<u8>, usize), FilterError> {
    let mut text = Vec::new();
    let mut i = open + 1;
    loop {
        match input.get(i) {
            None => return Err(FilterError::at(input, open, "unterminated quoted string")),
            Some(b'\'') if input.get(i + 1) == Some(&b'\'') => {
                text.push(b'\'');
                i += 2;
            }
            Some(b'\'') => return Ok((text, i + 1)),
            Some(&b) => {
                text.push(b);
                i += 1;
            }
        }
    }
}
