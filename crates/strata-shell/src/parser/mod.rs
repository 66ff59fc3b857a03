//! Parses shell input: statements of HBase shell commands with Ruby literal arguments.
//!
//! `name arg, arg, ...` or `name(arg, ...)`; statements end at `;` or a newline outside
//! brackets; `#` starts a comment. Arguments are single-quoted strings (only `\\` and `\'`
//! escape), double-quoted strings with Ruby's escapes (`\x00`, `\n`, `\u00e9`, octal),
//! integers, floats, `true`/`false`/`nil`, bare constants, `[...]` arrays and
//! `{KEY => value}` hashes; a hash may also trail without braces (`scan 't', LIMIT => 1`).

use crate::value::Value;

/// One command as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub name: String,
    pub args: Vec<Value>,
}

/// Why input could not be parsed, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("syntax error at line {line}, column {column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The input ended inside a string or bracket: more lines may complete it.
    pub incomplete: bool,
}

/// Parses every statement in `input`.
pub fn parse(input: &str) -> Result<Vec<Statement>, ParseError> {
    let mut p = Parser {
        chars: input.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let mut statements = Vec::new();
    loop {
        p.skip_blank(true);
        match p.peek() {
            None => return Ok(statements),
            Some(';') => p.pos += 1,
            Some(_) => statements.push(p.statement()?),
        }
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// Open brackets: inside them a newline is only whitespace.
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        let before = &self.chars[..at.min(self.chars.len())];
        let line = before.iter().filter(|&&c| c == '\n').count() + 1;
        let column = at - before.iter().rposition(|&c| c == '\n').map_or(0, |i| i + 1) + 1;
        ParseError {
            line,
            column,
            message: message.into(),
            incomplete: false,
        }
    }

    fn incomplete(&self, message: &str) -> ParseError {
        ParseError {
            incomplete: true,
            ..self.error(self.pos, message)
        }
    }

    /// Skips spaces and comments; newlines too when `newlines` or inside brackets.
    fn skip_blank(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            if c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
            } else if c == '\n' && !(newlines || self.depth > 0) {
                return;
            } else if c.is_whitespace() {
                self.pos += 1;
            } else {
                return;
            }
        }
    }

    fn statement(&mut self) -> Result<Statement, ParseError> {
        let start = self.pos;
        let name = self.word();
        if name.is_empty() {
            let c = self.peek().unwrap_or(' ');
            return Err(self.error(start, format!("expected a command name, found {c:?}")));
        }
        self.skip_blank(false);
        let parens = self.peek() == Some('(');
        if parens {
            self.pos += 1;
            self.depth += 1;
            self.skip_blank(false);
        }
        let args = if self.at_statement_end() || (parens && self.peek() == Some(')')) {
            Vec::new()
        } else {
            self.arguments()?
        };
        if parens {
            self.expect(')', "to close the argument list")?;
            self.depth -= 1;
        }
        self.skip_blank(false);
        if !self.at_statement_end() {
            let c = self.peek().unwrap_or(' ');
            return Err(self.error(self.pos, format!("unexpected {c:?} after the arguments")));
        }
        Ok(Statement { name, args })
    }

    fn at_statement_end(&self) -> bool {
        matches!(self.peek(), None | Some(';') | Some('\n'))
    }

    /// Comma-separated values; `key => value` pairs after the last value form a trailing hash.
    fn arguments(&mut self) -> Result<Vec<Value>, ParseError> {
        let mut args = Vec::new();
        loop {
            let value = self.value()?;
            self.skip_blank(false);
            if self.arrow() {
                args.push(self.bare_hash(value)?);
                return Ok(args);
            }
            args.push(value);
            if self.peek() != Some(',') {
                return Ok(args);
            }
            self.pos += 1;
            // A trailing comma continues the statement on the next line.
            self.skip_blank(true);
        }
    }

    fn bare_hash(&mut self, first_key: Value) -> Result<Value, ParseError> {
        let mut pairs = vec![(first_key, self.spaced_value()?)];
        loop {
            self.skip_blank(false);
            if self.peek() != Some(',') {
                return Ok(Value::Hash(pairs));
            }
            self.pos += 1;
            self.skip_blank(true);
            let key = self.value()?;
            self.skip_blank(false);
            if !self.arrow() {
                return Err(self.error(self.pos, "expected '=>' after a hash key"));
            }
            pairs.push((key, self.spaced_value()?));
        }
    }

    /// Consumes `=>` if it comes next.
    fn arrow(&mut self) -> bool {
        if self.peek() == Some('=') && self.peek_at(1) == Some('>') {
            self.pos += 2;
            true
        } else {
            false
        }
    }

    fn spaced_value(&mut self) -> Result<Value, ParseError> {
        self.skip_blank(false);
        self.value()
    }

    fn expect(&mut self, c: char, why: &str) -> Result<(), ParseError> {
        self.skip_blank(false);
        match self.peek() {
            Some(found) if found == c => {
                self.pos += 1;
                Ok(())
            }
            None => Err(self.incomplete(&format!("expected {c:?} {why}"))),
            Some(found) => {
                Err(self.error(self.pos, format!("expected {c:?} {why}, found {found:?}")))
            }
        }
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        self.skip_blank(false);
        let start = self.pos;
        match self.peek() {
            None => Err(self.incomplete("expected a value")),
            Some('\'') => self.single_quoted().map(Value::Str),
            Some('"') => self.double_quoted().map(Value::Str),
            Some('[') => self.array(),
            Some('{') => self.hash(),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                let word = self.word();
                Ok(match word.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "nil" => Value::Nil,
                    _ => Value::Const(word),
                })
            }
            Some(c) => Err(self.error(start, format!("unexpected {c:?}, expected a value"))),
        }
    }

    fn word(&mut self) -> String {
        let mut word = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
            word.push(c);
            self.pos += 1;
        }
        // Ruby method names may end in '?' or '!'.
        if let Some(c) = self.peek().filter(|c| *c == '?' || *c == '!') {
            if !word.is_empty() && self.peek_at(1) != Some('=') {
                word.push(c);
                self.pos += 1;
            }
        }
        word
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let mut text = String::new();
        if let Some(sign) = self.peek().filter(|c| *c == '-' || *c == '+') {
            text.push(sign);
            self.pos += 1;
        }
        while let Some(c) = self
            .peek()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        {
            if c != '_' {
                text.push(c);
            }
            self.pos += 1;
        }
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        if let Some(hex) = text.strip_prefix("0x") {
            if let Ok(i) = i64::from_str_radix(hex, 16) {
                return Ok(Value::Int(i));
            }
        }
        text.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && text.contains('.'))
            .map(Value::Float)
            .ok_or_else(|| self.error(start, format!("{text:?} is not a number")))
    }

    fn array(&mut self) -> Result<Value, ParseError> {
        self.pos += 1;
        self.depth += 1;
        let mut items = Vec::new();
        loop {
            self.skip_blank(false);
            if self.peek() == Some(']') {
                break;
            }
            items.push(self.value()?);
            self.skip_blank(false);
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.expect(']', "to close the array")?;
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn hash(&mut self) -> Result<Value, ParseError> {
        self.pos += 1;
        self.depth += 1;
        let mut pairs = Vec::new();
        loop {
            self.skip_blank(false);
            if self.peek() == Some('}') {
                break;
            }
            let key = self.value()?;
            self.skip_blank(false);
            if !self.arrow() {
                return Err(match self.peek() {
                    None => self.incomplete("expected '=>' after a hash key"),
                    Some(_) => self.error(self.pos, "expected '=>' after a hash key"),
                });
            }
            pairs.push((key, self.spaced_value()?));
            self.skip_blank(false);
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.expect('}', "to close the hash")?;
        self.depth -= 1;
        Ok(Value::Hash(pairs))
    }
}

mod strings;

#[cfg(test)]
mod tests;
