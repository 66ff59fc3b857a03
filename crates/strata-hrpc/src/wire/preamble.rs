//! The six bytes a client sends first. `HBas` + version 0 + an authentication byte opens
//! an RPC connection; HBase 2.6's `Regist` asks only for the cluster id; `Securi` asks for
//! TLS/SASL negotiation, which Strata does not offer yet.

use super::WireError;

/// Length of every preamble.
pub const LEN: usize = 6;

/// SIMPLE authentication: the connection header names the user, nothing proves it.
const AUTH_SIMPLE: u8 = 80;

/// What the first six bytes asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preamble {
    /// An RPC connection with SIMPLE authentication.
    Rpc,
    /// The connection registry's cluster-id request (answered with one frame, then closed).
    Registry,
}

/// Reads a preamble.
pub fn parse(bytes: [u8; LEN]) -> Result<Preamble, WireError> {
    if &bytes == b"Regist" {
        return Ok(Preamble::Registry);
    }
    if &bytes[..4] != b"HBas" {
        return Err(WireError::BadPreamble(bytes));
    }
    if bytes[4] != 0 {
        return Err(WireError::UnsupportedVersion(bytes[4]));
    }
    if bytes[5] != AUTH_SIMPLE {
        return Err(WireError::UnsupportedAuth(bytes[5]));
    }
    Ok(Preamble::Rpc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_rpc_and_registry_preambles_are_recognised() {
        assert_eq!(parse(*b"HBas\x00\x50"), Ok(Preamble::Rpc));
        assert_eq!(parse(*b"Regist"), Ok(Preamble::Registry));
    }

    #[test]
    fn other_versions_auth_methods_and_magics_are_refused() {
        assert_eq!(
            parse(*b"HBas\x01\x50"),
            Err(WireError::UnsupportedVersion(1))
        );
        assert_eq!(parse(*b"HBas\x00\x51"), Err(WireError::UnsupportedAuth(81)));
        assert!(matches!(parse(*b"Securi"), Err(WireError::BadPreamble(_))));
        assert!(matches!(parse(*b"GET / "), Err(WireError::BadPreamble(_))));
    }
}
