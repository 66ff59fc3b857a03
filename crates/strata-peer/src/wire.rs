//! The constants of the framed protocol, version 3: the hello each side sends when a
//! connection opens, the method codes of a request frame and the status byte of an
//! answer frame. `docs/format.md` ("Internal RPC (cluster mode)") specifies them byte by
//! byte; changing any of them is a new protocol version.

/// The protocol version this build speaks. Version 1 was gRPC (`strata.peer.v1.Peer`);
/// version 2 named the errors rebuilt exactly by text (`ErrorDetail` field 4), version 3
/// by code (field 6). A version 2 peer would decode a version 3 detail without error but
/// answer such errors by kind alone (a Thrift client would get an `IOError` where it
/// expects `AlreadyExists`), so the two refuse each other at the hello instead.
pub const VERSION: u8 = 3;

/// What each side sends first: `STRPEER` and the version byte. A connection whose other
/// side sends anything else is not to a Strata peer of this version, and is refused
/// with a message saying so rather than misread.
pub const HELLO: [u8; 8] = [b'S', b'T', b'R', b'P', b'E', b'E', b'R', VERSION];

/// The answer's first byte: the payload is the method's response message.
pub const ANSWER_OK: u8 = 0;

/// The answer's first byte: the payload is an `ErrorDetail` (see `errors.rs`).
pub const ANSWER_ERROR: u8 = 1;

/// One call of the peer service; its code is a request frame's first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Mutate,
    MutateIf,
    ScanChunk,
    Maintain,
    Admin,
}

impl Method {
    /// Every method, for tests and tools.
    pub const ALL: [Method; 6] = [
        Method::Get,
        Method::Mutate,
        Method::MutateIf,
        Method::ScanChunk,
        Method::Maintain,
        Method::Admin,
    ];

    /// The method's code on the wire (0 is never one, so a zeroed frame is refused).
    pub fn code(self) -> u8 {
        match self {
            Method::Get => 1,
            Method::Mutate => 2,
            Method::MutateIf => 3,
            Method::ScanChunk => 4,
            Method::Maintain => 5,
            Method::Admin => 6,
        }
    }

    /// The method of a wire code, `None` for a code this version does not know.
    pub fn from_code(code: u8) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.code() == code)
    }

    /// The method's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Method::Get => "Get",
            Method::Mutate => "Mutate",
            Method::MutateIf => "MutateIf",
            Method::ScanChunk => "ScanChunk",
            Method::Maintain => "Maintain",
            Method::Admin => "Admin",
        }
    }

    /// Whether the request only reads, so that sending it twice is harmless. The client
    /// sends such a request once more on a new connection when a pooled one turns out
    /// dead; never a write or administration, which the owner may have carried out before
    /// the connection died. (Maintenance is decided per request: flushing twice is
    /// harmless, releasing a region twice is not.)
    pub fn reads_only(self) -> bool {
        matches!(self, Method::Get | Method::ScanChunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_round_trip() {
        for m in Method::ALL {
            assert_eq!(Method::from_code(m.code()), Some(m));
        }
        assert_eq!(Method::from_code(0), None);
        assert_eq!(Method::from_code(7), None);
        assert_eq!(&HELLO[..7], b"STRPEER");
    }
}
