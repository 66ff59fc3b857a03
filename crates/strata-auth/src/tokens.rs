//! Bearer tokens: a token file names, per token, the user and groups it stands for. The
//! file holds each token's SHA-256, never the token, so reading the file gives nobody a
//! credential:
//!
//! ```text
//! # sha256 of the token                                              user   groups
//! sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 alice  @analysts,@ops
//! ```
//!
//! `printf %s "$TOKEN" | sha256sum` gives the hash. [`TokenStore`] reloads the file when
//! its size or modification time changed, looked at most every [`CHECK_EVERY`]; a file
//! that no longer parses is logged and the previous tokens kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::RwLock;
use strata_access::Identity;
use strata_runtime::clock::Clock;

/// How often the token file is looked at (on an authentication).
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// The token of an `authorization` header's value, when it is a bearer token.
pub fn bearer_token(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The SHA-256 of `token`, as the token file writes it (lowercase hex).
pub fn hash_token(token: &str) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes());
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// A parsed token file: token hash to identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenFile {
    by_hash: HashMap<String, Identity>,
}

impl TokenFile {
    /// Parses the file's text; an error names the line.
    pub fn parse(text: &str) -> Result<TokenFile, String> {
        let mut by_hash = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: &str| format!("token file line {}: {why}", number + 1);
            let mut fields = line.split_whitespace();
            let hash = fields.next().unwrap_or_default();
            let hash = hash
                .strip_prefix("sha256:")
                .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                .ok_or_else(|| bad("the first field must be sha256: and 64 hex digits"))?
                .to_ascii_lowercase();
            let user = fields.next().ok_or_else(|| bad("no user after the hash"))?;
            if user.starts_with('@') {
                return Err(bad("the user may not be a @group"));
            }
            let groups: Vec<String> = match fields.next() {
                None => Vec::new(),
                Some(list) => list
                    .split(',')
                    .map(|g| {
                        g.strip_prefix('@')
                            .filter(|g| !g.is_empty())
                            .map(str::to_string)
                            .ok_or_else(|| bad("groups are written @name, comma-separated"))
                    })
                    .collect::<Result<_, _>>()?,
            };
            if fields.next().is_some() {
                return Err(bad("more than hash, user and groups"));
            }
            let identity = Identity {
                user: user.to_string(),
                groups,
            };
            if by_hash.insert(hash, identity).is_some() {
                return Err(bad("a token listed twice"));
            }
        }
        Ok(TokenFile { by_hash })
    }

    /// Who `token` stands for.
    pub fn identity(&self, token: &str) -> Option<&Identity> {
        self.by_hash.get(&hash_token(token))
    }

    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

type FileStamp = Option<(u64, SystemTime)>;

fn stamp(path: &Path) -> FileStamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

fn read(path: &Path) -> Result<TokenFile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
    TokenFile::parse(&text)
}

/// The token file, followed as it changes.
#[derive(Debug)]
pub struct TokenStore {
    path: PathBuf,
    clock: Arc<dyn Clock>,
    loaded: RwLock<(Arc<TokenFile>, FileStamp, Instant)>,
}

impl TokenStore {
    /// Loads `path`; an error says what is wrong with it.
    pub fn load(path: &Path, clock: Arc<dyn Clock>) -> Result<TokenStore, String> {
        let stamp = stamp(path);
        let file = read(path)?;
        let now = clock.now();
        Ok(TokenStore {
            path: path.to_path_buf(),
            clock,
            loaded: RwLock::new((Arc::new(file), stamp, now)),
        })
    }

    /// Who `token` stands for, by the file as it is now (give or take a second).
    pub fn identity(&self, token: &str) -> Option<Identity> {
        self.refresh();
        self.loaded.read().0.identity(token).cloned()
    }

    fn refresh(&self) {
        let now = self.clock.now();
        let due = {
            let loaded = self.loaded.read();
            now.saturating_duration_since(loaded.2) >= CHECK_EVERY
        };
        if !due {
            return;
        }
        let mut loaded = self.loaded.write();
        loaded.2 = now;
        let current = stamp(&self.path);
        if current == loaded.1 {
            return;
        }
        match read(&self.path) {
            Ok(file) => {
                tracing::info!(path = %self.path.display(), tokens = file.len(), "token file reloaded");
                *loaded = (Arc::new(file), current, now);
            }
            Err(e) => {
                tracing::warn!(error = %e, "token file changed but does not load; keeping the previous tokens")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "test";
    const TEST_HASH: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn the_hash_is_sha256_in_lowercase_hex() {
        assert_eq!(hash_token(TOKEN), TEST_HASH);
    }

    #[test]
    fn a_listed_token_names_its_user_and_groups() {
        let file = TokenFile::parse(&format!(
            "# who\n\nsha256:{} alice @ops,@dev\n",
            TEST_HASH.to_uppercase()
        ))
        .unwrap();
        let alice = file.identity(TOKEN).unwrap();
        assert_eq!(alice, &Identity::user("alice").with_groups(&["ops", "dev"]));
        assert!(file.identity("other").is_none());
    }

    #[test]
    fn malformed_lines_are_refused_naming_the_line() {
        for (text, needle) in [
            ("abc alice", "line 1"),
            (&format!("sha256:{TEST_HASH}")[..], "no user"),
            (&format!("sha256:{TEST_HASH} @ops")[..], "@group"),
            (&format!("sha256:{TEST_HASH} a ops")[..], "@name"),
            (&format!("sha256:{TEST_HASH} a @x extra")[..], "more than"),
            (
                &format!("sha256:{TEST_HASH} a\nsha256:{TEST_HASH} b")[..],
                "line 2: a token listed twice",
            ),
        ] {
            let err = TokenFile::parse(text).unwrap_err();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn bearer_headers_are_read_in_any_case_and_others_ignored() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn the_store_follows_the_file_and_keeps_the_old_tokens_over_a_bad_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, format!("sha256:{TEST_HASH} alice\n")).unwrap();
        let clock = Arc::new(strata_runtime::clock::ManualClock::new(0));
        let store = TokenStore::load(&path, Arc::clone(&clock) as Arc<dyn Clock>).unwrap();
        assert_eq!(store.identity(TOKEN).unwrap().user, "alice");
        std::fs::write(&path, format!("sha256:{TEST_HASH} bob-the-second\n")).unwrap();
        assert_eq!(
            store.identity(TOKEN).unwrap().user,
            "alice",
            "not looked at within a second"
        );
        clock.advance(1000);
        assert_eq!(store.identity(TOKEN).unwrap().user, "bob-the-second");
        std::fs::write(&path, "garbage that does not parse at all\n").unwrap();
        clock.advance(1000);
        assert_eq!(store.identity(TOKEN).unwrap().user, "bob-the-second");
    }
}
