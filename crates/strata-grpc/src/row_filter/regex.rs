//! RE2 patterns over raw bytes, as Bigtable's regex filters use them.
//!
//! Bigtable runs RE2 in Latin-1 mode with full-match semantics. The `regex` crate's byte
//! regexes with Unicode off behave the same for the syntax both share; [`translate`] turns
//! the RE2-only pieces into equivalents (`\C`, `\Q...\E`, raw non-ASCII bytes, RE2's `\s`,
//! a literal `[` inside a class) and rejects what RE2 would reject but the `regex` crate
//! would accept with another meaning (an unbalanced `)` that would escape the anchoring
//! group, flags RE2 lacks).

use regex::bytes::{Regex, RegexBuilder};

/// The compiled-size ceiling of one regex.
pub const MAX_REGEX_BYTES: usize = 1 << 20;

/// The compiled-size budget shared by all regexes of one filter.
pub const TOTAL_REGEX_BYTES: usize = 16 << 20;

/// The smallest per-regex budget, enough for ordinary name and value patterns.
const MIN_REGEX_BYTES: usize = 16 << 10;

/// The per-regex compiled-size limit for one filter.
#[derive(Debug, Clone, Copy)]
pub struct RegexBudget {
    per_regex: usize,
}

impl RegexBudget {
    /// Splits [`TOTAL_REGEX_BYTES`] between `regexes` patterns.
    pub fn shared_by(regexes: usize) -> RegexBudget {
        let share = TOTAL_REGEX_BYTES / regexes.max(1);
        RegexBudget {
            per_regex: share.clamp(MIN_REGEX_BYTES, MAX_REGEX_BYTES),
        }
    }
}

/// A compiled full-match RE2 pattern.
#[derive(Debug, Clone)]
pub struct BytesRegex {
    regex: Regex,
}

impl BytesRegex {
    /// Compiles RE2 `pattern`; the error says what is wrong, without the field name.
    pub fn new(pattern: &[u8], budget: &RegexBudget) -> Result<BytesRegex, String> {
        let translated = translate(pattern)?;
        let anchored = format!(r"\A(?:{translated})\z");
        let regex = RegexBuilder::new(&anchored)
            .unicode(false)
            .octal(true)
            .size_limit(budget.per_regex)
            .dfa_size_limit(budget.per_regex)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(limit) => {
                    format!("the pattern compiles to more than {limit} bytes (the limit)")
                }
                other => format!("invalid RE2 pattern: {other}"),
            })?;
        Ok(BytesRegex { regex })
    }

    /// True when the whole of `haystack` matches.
    pub fn full_match(&self, haystack: &[u8]) -> bool {
        self.regex.is_match(haystack)
    }
}

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
    use super::*;

    fn full(pattern: &[u8], haystack: &[u8]) -> bool {
        BytesRegex::new(pattern, &RegexBudget::shared_by(1))
            .unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
            .full_match(haystack)
    }

    fn rejects(pattern: &[u8]) -> String {
        match BytesRegex::new(pattern, &RegexBudget::shared_by(1)) {
            Ok(_) => panic!("{pattern:?} was accepted"),
            Err(e) => e,
        }
    }

    #[test]
    fn matches_the_whole_haystack_only() {
        assert!(full(b"abc", b"abc"));
        assert!(!full(b"abc", b"xabc"));
        assert!(!full(b"abc", b"abcx"));
        assert!(!full(b"b", b"abc"));
        assert!(full(b"a|b", b"b"));
        assert!(!full(b"a|b", b"ab"));
        assert!(full(b"", b""));
        assert!(!full(b"", b"a"));
    }

    #[test]
    fn dot_skips_newlines_and_backslash_c_matches_any_byte() {
        assert!(!full(b"a.c", b"a\nc"));
        assert!(full(b"a.c", b"a\xffc"));
        assert!(full(br"a\Cc", b"a\nc"));
        assert!(full(br"\C*", b"\x00\n\xff"));
        assert!(full(br"(?s).*", b"\n\xfe"));
    }

    #[test]
    fn escaped_backslash_before_c_is_a_literal_backslash() {
        assert!(full(br"\\C", br"\C"));
        assert!(!full(br"\\C", b"xC"));
        assert!(full(br"\\\C", b"\\\n"));
    }

    #[test]
    fn backslash_c_in_a_class_is_rejected() {
        assert!(rejects(br"[\C]").contains(r"\C"));
    }

    #[test]
    fn raw_non_ascii_bytes_are_latin1_literals() {
        assert!(full(b"caf\xe9", b"caf\xe9"));
        assert!(full("é".as_bytes(), "é".as_bytes()));
        assert!(full(b"[\xe0-\xef]+", b"\xe5\xe9"));
        assert!(!full(b"[\xe0-\xef]", b"\xf0"));
        assert!(full(br"\xff", b"\xff"));
    }

    #[test]
    fn re2_quoting_and_classes() {
        assert!(full(br"\Qa.b*\E+", b"a.b**"));
        assert!(!full(br"\Qa.b*\E+", b"a.b*a.b*"));
        assert!(!full(br"\Qa.b\E", b"axb"));
        assert!(full(br"[]a]+", b"]a]"));
        assert!(full(br"[a[]+", b"[a"));
        assert!(full(br"[a&&b]+", b"a&b"));
        assert!(full(br"[a~~b]+", b"~ab"));
        assert!(full(br"[[:digit:]x]+", b"1x2"));
        assert!(full(br"[^a]", b"\n"));
        assert!(full(br"\s", b"\t"));
        assert!(!full(br"\s", b"\x0b"));
        assert!(full(br"\d{3}", b"123"));
        assert!(full(br"(?i)abc", b"ABC"));
        assert!(full(br"\101", b"A"));
        assert!(full(br"\0", b"\0"));
        assert!(rejects(br"(a)\1").contains("backreference"));
    }

    #[test]
    fn escaped_punctuation_and_control_bytes_are_literals() {
        // As a client quoting arbitrary bytes writes them: a backslash before each.
        assert!(full(br"\<b\>", b"<b>"));
        assert!(!full(br"\<b\>", b"b"));
        assert!(full(b"a\\\nb", b"a\nb"));
        assert!(full(br"1\.0\-\ ", b"1.0- "));
        assert!(!full(br"1\.0", b"1x0"));
        assert!(full(br"[\<\>]+", b"<>"));
    }

    #[test]
    fn unbalanced_groups_cannot_escape_the_anchoring() {
        assert!(rejects(br"a)|(b").contains(")"));
        rejects(b"(a");
        rejects(b"[a");
        rejects(br"a\");
    }

    #[test]
    fn flags_unknown_to_re2_are_rejected() {
        assert!(rejects(b"(?x)a#").contains("flag"));
        assert!(full(b"(?s:.)", b"\n"));
        assert!(full(b"(?P<n>a)", b"a"));
    }

    #[test]
    fn huge_patterns_hit_the_size_limit() {
        let e = rejects(br"(?:\C{1000}){1000}");
        assert!(e.contains("limit"), "{e}");
    }

    #[test]
    fn ordinary_patterns_fit_the_smallest_budget() {
        let floor = RegexBudget::shared_by(usize::MAX);
        for pattern in [
            &br"(?i)column-[0-9]{1,4}|other_name"[..],
            br"\C*suffix",
            br"[a-z]+\.[a-z]+",
        ] {
            let regex = BytesRegex::new(pattern, &floor);
            assert!(regex.is_ok(), "{pattern:?}: {:?}", regex.err());
        }
    }

    #[test]
    fn the_budget_is_shared_but_never_below_the_floor() {
        assert_eq!(RegexBudget::shared_by(0).per_regex, MAX_REGEX_BYTES);
        assert_eq!(RegexBudget::shared_by(32).per_regex, TOTAL_REGEX_BYTES / 32);
        assert_eq!(RegexBudget::shared_by(1 << 20).per_regex, MIN_REGEX_BYTES);
    }

    /// Random patterns from RE2's metacharacters: compiling and matching never panics, and
    /// a pattern with an unbalanced `)` is always rejected.
    #[test]
    fn random_patterns_never_panic() {
        use rand::rngs::SmallRng;
        use rand::{Rng, SeedableRng};
        const ALPHABET: &[u8] = b"ab.\\C()[]^$|*+?{}1,:-&~QEsPx<>\n\xff";
        let mut rng = SmallRng::seed_from_u64(3);
        let budget = RegexBudget::shared_by(1);
        for _ in 0..3000 {
            let len = rng.random_range(0..10);
            let pattern: Vec<u8> = (0..len)
                .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
                .collect();
            let Ok(regex) = BytesRegex::new(&pattern, &budget) else {
                continue;
            };
            for haystack in [&b""[..], b"a", b"ab\n", b"\xff\xff", b"))"] {
                regex.full_match(haystack);
            }
            let depth = pattern.iter().try_fold(0i32, |d, &b| match b {
                b'(' => Some(d + 1),
                b')' => (d > 0).then(|| d - 1),
                _ => Some(d),
            });
            let simple = !pattern.iter().any(|b| b"\\[".contains(b));
            if simple {
                assert!(depth.is_some(), "{pattern:?} escaped its anchoring");
            }
        }
    }
}
