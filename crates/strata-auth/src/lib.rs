//! Authentication for the network adapters: who a request is from.
//!
//! - **Bearer tokens** (`tokens.rs`): Bigtable's clients and REST callers send
//!   `authorization: Bearer <token>`; the server keeps only each token's SHA-256 in a
//!   token file, with the user and groups it stands for, reloaded when the file changes.
//! - **Client certificates** (`certificate.rs`): under mutual TLS a verified client
//!   certificate names its holder (the subject's common name, else its first DNS or email
//!   name).
//! - **Failed attempts** (`failures.rs`): counted per source address; an address with too
//!   many in a minute is refused without checking, so a token cannot be guessed quickly.
//!
//! [`Authenticator`] puts these together for an adapter; the adapter turns its answer into
//! the service's caller. Nothing here knows a protocol.

mod authenticator;
mod certificate;
mod failures;
mod tokens;

pub use authenticator::{AuthError, Authenticator, Credentials};
pub use certificate::identity_of_certificate;
pub use failures::{FailureLimiter, MAX_FAILURES_PER_MINUTE};
pub use tokens::{bearer_token, hash_token, TokenFile, TokenStore};
