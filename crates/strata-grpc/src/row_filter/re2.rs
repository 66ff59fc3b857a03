//! RE2 syntax (Latin-1 mode) rewritten into the `regex` crate's syntax with Unicode off.
//!
//! The two agree on the syntax they share; [`translate`] turns the RE2-only pieces into
//! equivalents (`\C`, `\Q...\E`, raw non-ASCII bytes, RE2's `\s`, escaped `<` and `>`, a
//! literal `[` inside a class) and rejects what RE2 rejects but the `regex` crate would
//! accept with another meaning (an unbalanced `)` that would escape the anchoring group,
//! flags RE2 lacks, backreferences).

/// The RE2 pattern `pattern` in the `regex` crate's syntax (Unicode off).
pub fn translate(pattern: &[u8]) -> Result<String, String> {
    let mut t = Translator {
        pattern,
        at: 0,
        out: String::with_capacity(pattern.len() + 16),
        in_class: false,
        class_start: false,
        groups: 0,
    };
    while t.at < pattern.len() {
        t.step()?;
    }
    if t.in_class {
        return Err("missing ] at the end of a character class".into());
    }
    Ok(t.out)
}

struct Translator<'a> {
    pattern: &'a [u8],
    at: usize,
    out: String,
    in_class: bool,
    /// Just after `[` or `[^`, where `]` is a literal.
    class_start: bool,
    /// Open groups outside classes.
    groups: usize,
}

impl Translator<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.pattern.get(self.at + ahead).copied()
    }

    fn step(&mut self) -> Result<(), String> {
        let byte = self.pattern[self.at];
        if byte == b'\\' {
            return self.escape();
        }
        if self.in_class {
            self.class_byte(byte);
        } else {
            self.plain_byte(byte)?;
        }
        Ok(())
    }

    /// A byte outside any class.
    fn plain_byte(&mut self, byte: u8) -> Result<(), String> {
        self.at += 1;
        match byte {
            b'[' => {
                self.out.push('[');
                if self.peek(0) == Some(b'^') {
                    self.out.push('^');
                    self.at += 1;
                }
                self.in_class = true;
                self.class_start = true;
            }
            b'(' => {
                self.groups += 1;
                self.out.push('(');
                if self.peek(0) == Some(b'?') {
                    self.check_flags()?;
                }
            }
            b')' => {
                if self.groups == 0 {
                    return Err("unexpected ) without a matching (".into());
                }
                self.groups -= 1;
                self.out.push(')');
            }
            _ => push_literal_or_meta(&mut self.out, byte),
        }
        Ok(())
    }

    /// RE2 knows the flags i, m, s and U only; the `regex` crate's others (x: comments that
    /// could swallow the anchoring) are rejected as RE2 does.
    fn check_flags(&self) -> Result<(), String> {
        let rest = &self.pattern[self.at + 1..];
        if matches!(rest.first(), Some(b'P' | b'<' | b':')) {
            return Ok(());
        }
        for &flag in rest.iter().take_while(|&&b| b != b')' && b != b':') {
            if !matches!(flag, b'i' | b'm' | b's' | b'U' | b'-') {
                return Err(format!(
                    "invalid or unsupported group flag {:?}",
                    flag as char
                ));
            }
        }
        Ok(())
    }

    /// A byte inside a class: the `regex` crate reads `[`, `&&`, `--` and `~~` there as
    /// nested classes and set operations, RE2 as literals.
    fn class_byte(&mut self, byte: u8) {
        self.at += 1;
        let at_start = std::mem::replace(&mut self.class_start, false);
        match byte {
            b']' if at_start => self.out.push_str(r"\]"),
            b']' => {
                self.out.push(']');
                self.in_class = false;
            }
            b'[' if self.peek(0) == Some(b':') => self.posix_class(),
            b'[' | b'&' | b'~' => {
                self.out.push('\\');
                self.out.push(byte as char);
            }
            b'-' if self.peek(0) == Some(b'-') => {
                self.out.push_str(r"-\-");
                self.at += 1;
            }
            _ => push_literal_or_meta(&mut self.out, byte),
        }
    }

    /// `[:alpha:]` inside a class, copied through to its closing `:]`.
    fn posix_class(&mut self) {
        self.out.push('[');
        while let Some(b) = self.peek(0) {
            self.at += 1;
            push_literal_or_meta(&mut self.out, b);
            if b == b']' {
                break;
            }
        }
    }

    fn escape(&mut self) -> Result<(), String> {
        let Some(next) = self.peek(1) else {
            return Err("trailing backslash at the end of the pattern".into());
        };
        self.at += 2;
        self.class_start = false;
        match next {
            b'C' if self.in_class => {
                return Err(r"\C is not allowed inside a character class".into());
            }
            b'C' => self.out.push_str("(?s-u:.)"),
            b'Q' => self.quoted(),
            b's' if self.in_class => self.out.push_str(r"\t\n\f\r "),
            b's' => self.out.push_str(r"[\t\n\f\r ]"),
            b'S' if !self.in_class => self.out.push_str(r"[^\t\n\f\r ]"),
            // RE2 reads an escaped non-word character as itself; the `regex` crate reads `\<`
            // and `\>` as word boundaries, so those two lose their backslash.
            b'<' | b'>' => self.out.push(next as char),
            // RE2 reads `\1`..`\7` as octal only before another digit; alone they would be
            // backreferences, which RE2 rejects (the `regex` crate would read octal).
            b'1'..=b'7' if !self.peek(0).is_some_and(|b| b.is_ascii_digit()) => {
                return Err("backreferences are not supported".into());
            }
            n if !n.is_ascii() => return Err("invalid escape of a non-ASCII byte".into()),
            n => {
                self.out.push('\\');
                self.out.push(n as char);
            }
        }
        Ok(())
    }

    /// `\Q...\E`: everything up to `\E` (or the end) is literal.
    fn quoted(&mut self) {
        while self.at < self.pattern.len() {
            if self.pattern[self.at..].starts_with(br"\E") {
                self.at += 2;
                return;
            }
            push_escaped(&mut self.out, self.pattern[self.at]);
            self.at += 1;
        }
    }
}

/// Pushes an ASCII byte as is (it keeps its RE2 meaning) and any other byte as `\xNN`,
/// which with Unicode off matches exactly that byte, as in RE2's Latin-1 mode.
fn push_literal_or_meta(out: &mut String, byte: u8) {
    if byte.is_ascii() {
        out.push(byte as char);
    } else {
        out.push_str(&format!(r"\x{byte:02X}"));
    }
}

/// Pushes `byte` so that it matches only itself.
fn push_escaped(out: &mut String, byte: u8) {
    if byte.is_ascii_alphanumeric() || byte == b'_' {
        out.push(byte as char);
    } else {
        out.push_str(&format!(r"\x{byte:02X}"));
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    fn t(pattern: &[u8]) -> String {
        translate(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
    }

    #[test]
    fn rewrites_only_the_re2_specific_pieces() {
        assert_eq!(t(br"a\Cb"), "a(?s-u:.)b");
        assert_eq!(t(br"\\C"), r"\\C");
        assert_eq!(t(b"caf\xe9"), r"caf\xE9");
        assert_eq!(t(br"\Qa.\E"), r"a\x2E");
        assert_eq!(t(br"[a[]"), r"[a\[]");
        assert_eq!(t(br"[]x]"), r"[\]x]");
        assert_eq!(t(br"\<"), "<");
        assert_eq!(t(br"(?i)x{2,3}|y+?"), r"(?i)x{2,3}|y+?");
    }

    #[test]
    fn rejects_what_would_change_meaning() {
        for bad in [
            &br"a)"[..],
            br"[\C]",
            br"(?x)a",
            br"\1",
            b"\\\xe9",
            br"[a",
            br"a\",
        ] {
            assert!(translate(bad).is_err(), "{bad:?}");
        }
    }
}
