//! Parse errors: what went wrong and where.

use std::fmt;

/// Longest excerpt of the input quoted in an error.
const EXCERPT_CHARS: usize = 24;

/// A filter string that could not be parsed (or a filter whose arguments HBase would reject).
/// `offset` counts characters from the start of the filter string; `excerpt` is the input text
/// starting there, cut to a few characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    pub offset: usize,
    pub message: String,
    pub excerpt: String,
}

impl FilterError {
    /// An error at byte offset `at` of `input`.
    pub(crate) fn at(input: &[u8], at: usize, message: impl Into<String>) -> FilterError {
        let at = at.min(input.len());
        let offset = String::from_utf8_lossy(&input[..at]).chars().count();
        let excerpt: String = String::from_utf8_lossy(&input[at..])
            .chars()
            .take(EXCERPT_CHARS)
            .collect();
        FilterError {
            offset,
            message: message.into(),
            excerpt,
        }
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.excerpt.is_empty() {
            write!(
                f,
                "{} at offset {} (end of input)",
                self.message, self.offset
            )
        } else {
            write!(
                f,
                "{} at offset {} near \"{}\"",
                self.message, self.offset, self.excerpt
            )
        }
    }
}

impl std::error::Error for FilterError {}
