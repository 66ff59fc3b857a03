//! The filter-language grammar, parsed by recursive descent:
//!
//! ```text
//! expr    := and ( "OR" and )*
//! and     := unary ( "AND" unary )*
//! unary   := ( "SKIP" | "WHILE" ) unary | primary
//! primary := "(" expr ")" | Name "(" [ arg ( "," arg )* ] ")"
//! arg     := integer | boolean | 'quoted' | < | <= | = | != | >= | >
//! ```
//!
//! SKIP and WHILE bind tightest, then AND, then OR, as in HBase. Keywords are upper case. As in
//! HBase, a group left unclosed at the end of the input is closed there. Nesting (parentheses
//! plus SKIP/WHILE prefixes) is capped at [`MAX_DEPTH`] so hostile input cannot exhaust the
//! stack, and the input at [`MAX_FILTER_LEN`] bytes.

use super::args::{build, word_value, Arg, ArgValue};
use super::ast::Expr;
use super::error::FilterError;
use super::lexer::{tokenize, Tok, Token};

/// Deepest nesting of parentheses and SKIP/WHILE prefixes accepted.
pub const MAX_DEPTH: usize = 64;
/// Longest filter string accepted, in bytes.
pub const MAX_FILTER_LEN: usize = 1024 * 1024;

const KEYWORDS: [&[u8]; 4] = [b"AND", b"OR", b"SKIP", b"WHILE"];

/// The configurable caps on a filter string (the server's `[limits]` section); each is at
/// most the built-in ceiling of the same name above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterLimits {
    pub max_bytes: usize,
    pub max_depth: usize,
    pub regex_max_bytes: usize,
}

impl Default for FilterLimits {
    fn default() -> Self {
        FilterLimits {
            max_bytes: MAX_FILTER_LEN,
            max_depth: MAX_DEPTH,
            regex_max_bytes: super::MAX_REGEX_LEN,
        }
    }
}

/// What starts a regex comparator argument.
const REGEX_PREFIX: &[u8] = b"regexstring:";

/// Parses a filter string into an expression.
pub fn parse_expr(text: &str) -> Result<Expr, FilterError> {
    parse_expr_bytes(text.as_bytes())
}

/// Parses a filter string given as bytes (Thrift carries it as binary). Quoted strings may
/// hold any bytes.
pub fn parse_expr_bytes(input: &[u8]) -> Result<Expr, FilterError> {
    parse_expr_bytes_with(input, &FilterLimits::default())
}

/// [`parse_expr_bytes`] within `limits`.
pub fn parse_expr_bytes_with(input: &[u8], limits: &FilterLimits) -> Result<Expr, FilterError> {
    let max = limits.max_bytes.min(MAX_FILTER_LEN);
    if input.len() > max {
        return Err(FilterError::at(
            input,
            0,
            format!(
                "filter string is {} bytes; the limit is {max} (limits.filter_max_bytes)",
                input.len()
            ),
        ));
    }
    let tokens = tokenize(input)?;
    if tokens.is_empty() {
        return Err(FilterError::at(input, 0, "empty filter string"));
    }
    let mut p = Parser {
        input,
        tokens,
        pos: 0,
        depth: 0,
        max_depth: limits.max_depth.min(MAX_DEPTH),
        regex_max_bytes: limits.regex_max_bytes,
    };
    let expr = p.expr()?;
    match p.peek() {
        None => Ok(expr),
        Some(Tok::RParen) => Err(p.err_here("unmatched ')'")),
        Some(Tok::Word(w)) if is_lower_keyword(w) => Err(p.err_here(format!(
            "expected AND, OR or the end of the filter, found '{}' (keywords are upper case)",
            String::from_utf8_lossy(w)
        ))),
        Some(_) => Err(p.err_here("expected AND, OR or the end of the filter")),
    }
}

fn is_lower_keyword(word: &[u8]) -> bool {
    KEYWORDS
        .iter()
        .any(|k| word.eq_ignore_ascii_case(k) && word != *k)
}

struct Parser<'a> {
    input: &'a [u8],
    tokens: Vec<Token<'a>>,
    pos: usize,
    depth: usize,
    max_depth: usize,
    regex_max_bytes: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    /// Byte offset of the next token (or the end of the input).
    fn here(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.input.len(), |t| t.start)
    }

    fn err_here(&self, msg: impl Into<String>) -> FilterError {
        FilterError::at(self.input, self.here(), msg)
    }

    fn peek_keyword(&self, keyword: &[u8]) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if *w == keyword)
    }

    fn enter(&mut self) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.err_here(format!(
                "filter nests deeper than the limit of {} levels (limits.filter_max_depth)",
                self.max_depth
            )));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, FilterError> {
        let first = self.and()?;
        if !self.peek_keyword(b"OR") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.peek_keyword(b"OR") {
            self.pos += 1;
            items.push(self.and()?);
        }
        Ok(Expr::Or(items))
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        let first = self.unary()?;
        if !self.peek_keyword(b"AND") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.peek_keyword(b"AND") {
            self.pos += 1;
            items.push(self.unary()?);
        }
        Ok(Expr::And(items))
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        for (keyword, wrap) in [
            (&b"SKIP"[..], Expr::Skip as fn(Box<Expr>) -> Expr),
            (&b"WHILE"[..], Expr::While as fn(Box<Expr>) -> Expr),
        ] {
            if self.peek_keyword(keyword) {
                self.pos += 1;
                self.enter()?;
                let inner = self.unary()?;
                self.depth -= 1;
                return Ok(wrap(Box::new(inner)));
            }
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, FilterError> {
        match self.peek() {
            Some(Tok::LParen) => {
                self.pos += 1;
                self.enter()?;
                let inner = self.expr()?;
                match self.peek() {
                    Some(Tok::RParen) => self.pos += 1,
                    // HBase closes groups left open at the end of the string.
                    None => {}
                    Some(_) => return Err(self.err_here("expected ')', AND or OR")),
                }
                self.depth -= 1;
                Ok(inner)
            }
            Some(Tok::Word(name)) => {
                let name = *name;
                if KEYWORDS.contains(&name) {
                    return Err(self.err_here(format!(
                        "expected a filter, found the keyword {}",
                        String::from_utf8_lossy(name)
                    )));
                }
                let name_at = self.here();
                self.pos += 1;
                self.call(name, name_at)
            }
            None => Err(self.err_here("expected a filter, found the end of the input")),
            Some(_) => Err(self.err_here("expected a filter name or '('")),
        }
    }

    fn call(&mut self, name: &'a [u8], name_at: usize) -> Result<Expr, FilterError> {
        if self.peek() != Some(&Tok::LParen) {
            if is_lower_keyword(name) {
                return Err(FilterError::at(
                    self.input,
                    name_at,
                    format!(
                        "'{}' is not a keyword: keywords are upper case",
                        String::from_utf8_lossy(name)
                    ),
                ));
            }
            return Err(self.err_here(format!(
                "expected '(' after the filter name {}",
                String::from_utf8_lossy(name)
            )));
        }
        self.pos += 1;
        let mut args = Vec::new();
        if self.peek() == Some(&Tok::RParen) {
            let end = self.here();
            self.pos += 1;
            return build(self.input, name, name_at, end, args).map(Expr::Filter);
        }
        loop {
            args.push(self.arg()?);
            match self.peek() {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::RParen) => {
                    let end = self.here();
                    self.pos += 1;
                    return build(self.input, name, name_at, end, args).map(Expr::Filter);
                }
                None => return Err(self.err_here("expected ',' or ')' to continue the arguments")),
                Some(_) => return Err(self.err_here("expected ',' or ')' after an argument")),
            }
        }
    }

    /// The configured regex cap is checked here, where the argument's position is known;
    /// the comparator still enforces the built-in ceiling when it compiles the pattern.
    fn check_regex_len(&self, arg: &[u8]) -> Result<(), FilterError> {
        let Some(pattern) = arg.strip_prefix(REGEX_PREFIX) else {
            return Ok(());
        };
        if pattern.len() > self.regex_max_bytes {
            return Err(self.err_here(format!(
                "regexstring pattern is {} bytes; the limit is {} (limits.filter_regex_max_bytes)",
                pattern.len(),
                self.regex_max_bytes
            )));
        }
        Ok(())
    }

    fn arg(&mut self) -> Result<Arg, FilterError> {
        let start = self.here();
        let value = match self.peek() {
            Some(Tok::Str(s)) => {
                self.check_regex_len(s)?;
                ArgValue::Str(s.clone())
            }
            Some(Tok::Op(op)) => ArgValue::Op(*op),
            Some(Tok::Word(w)) => word_value(w).map_err(|e| self.err_here(e))?,
            None => return Err(self.err_here("expected an argument, found the end of the input")),
            Some(_) => return Err(self.err_here("expected an argument")),
        };
        self.pos += 1;
        Ok(Arg { value, start })
    }
}
