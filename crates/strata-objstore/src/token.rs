//! Writer tokens: 128 random bits in every WAL object's header. After an ambiguous PUT, the
//! writer reads the header back; its own token means its write landed, any other means the
//! id belongs to someone else (a fencer). Tokens come from an injected source so tests are
//! deterministic.

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A 128-bit writer token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriterToken(pub [u8; 16]);

impl std::fmt::Display for WriterToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// Where tokens come from.
pub trait TokenSource: Send + Sync + std::fmt::Debug {
    /// A fresh token, distinct from every other with overwhelming probability.
    fn next_token(&self) -> WriterToken;
}

/// Tokens from the operating system's entropy (via `rand`'s thread generator).
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomTokens;

impl TokenSource for RandomTokens {
    // The composition root's source: the binary hands it in, the simulation seeds its own.
    #[allow(clippy::disallowed_methods)]
    fn next_token(&self) -> WriterToken {
        WriterToken(rand::rng().random())
    }
}

/// A seeded generator, for tests: the same seed gives the same tokens.
#[derive(Debug)]
pub struct SeededTokens(Mutex<SmallRng>);

impl SeededTokens {
    /// Tokens determined by `seed`.
    pub fn new(seed: u64) -> Self {
        SeededTokens(Mutex::new(SmallRng::seed_from_u64(seed)))
    }
}

impl TokenSource for SeededTokens {
    fn next_token(&self) -> WriterToken {
        WriterToken(self.0.lock().random())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_tokens_repeat_and_differ() {
        let (a, b) = (SeededTokens::new(7), SeededTokens::new(7));
        let first = a.next_token();
        assert_eq!(first, b.next_token());
        assert_ne!(first, a.next_token());
        assert_ne!(RandomTokens.next_token(), RandomTokens.next_token());
        assert_eq!(WriterToken([0xab; 16]).to_string().len(), 32);
    }
}
