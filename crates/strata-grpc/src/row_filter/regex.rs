//! RE2 patterns over raw bytes, as Bigtable's regex filters use them.
//!
//! Bigtable runs RE2 in Latin-1 mode with full-match semantics: the pattern is rewritten
//! for the `regex` crate's byte regexes with Unicode off ([`super::re2::translate`]) and
//! wrapped in `\A(?:...)\z`.

use regex::bytes::{Regex, RegexBuilder};

use super::re2::translate;

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
