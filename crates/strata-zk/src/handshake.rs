//! The first frame of a connection: the connect request, the negotiated session timeout
//! and the connect response; and the two four-letter commands answered in its place.

use std::time::Duration;

use bytes::Bytes;

use crate::jute::{DecodeError, JuteWriter};
use crate::records::{ConnectRequest, ConnectResponse};
use crate::session::{Opened, SessionTable, PASSWD_LEN};

/// The range a client's requested session timeout is clamped into (ZooKeeper's defaults
/// are 2 and 20 ticks of 2 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeoutRange {
    pub min: Duration,
    pub max: Duration,
}

impl TimeoutRange {
    /// The requested timeout (ms, possibly nonsense) clamped into the range.
    pub fn negotiate(&self, requested_ms: i32) -> Duration {
        let requested = Duration::from_millis(u64::try_from(requested_ms).unwrap_or(0));
        requested.clamp(self.min, self.max.max(self.min))
    }
}

/// How the handshake went.
#[derive(Debug, PartialEq, Eq)]
pub enum Handshake {
    /// Send `response` and serve session `session_id`.
    Accepted {
        response: Bytes,
        session_id: i64,
        resumed: bool,
        timeout: Duration,
    },
    /// Send `response` (timeout 0, session 0: the client's session expired), then close.
    Expired { response: Bytes, session_id: i64 },
    /// No room for another session: close without a response; the client tries again.
    Full,
}

/// The facade presents itself as an ordinary (read-write) server: HBase's client does not
/// ask for read-only mode, and a server that said it is read-only would be refused by such
/// a client's expectations (3.8's client logs an error and keeps probing for a read-write
/// server). Writes are refused per request instead.
const SERVER_IS_READ_ONLY: bool = false;

/// Answers the connect request in `frame`.
pub fn handshake(
    frame: &[u8],
    sessions: &SessionTable,
    timeouts: TimeoutRange,
) -> Result<Handshake, DecodeError> {
    let request = ConnectRequest::decode(frame)?;
    let timeout = timeouts.negotiate(request.timeout_ms);
    // The answer carries a read-only byte exactly when the request did.
    let read_only = request.read_only.map(|_| SERVER_IS_READ_ONLY);
    let opened = sessions.open(request.session_id, &request.passwd, timeout);
    let (grant, resumed) = match opened {
        Opened::New(grant) => (grant, false),
        Opened::Resumed(grant) => (grant, true),
        Opened::Full => return Ok(Handshake::Full),
        Opened::Expired => {
            let response = ConnectResponse {
                protocol_version: 0,
                timeout_ms: 0,
                session_id: 0,
                passwd: Bytes::from_static(&[0; PASSWD_LEN]),
                read_only,
            };
            return Ok(Handshake::Expired {
                response: frame_of(&response),
                session_id: request.session_id,
            });
        }
    };
    let response = ConnectResponse {
        protocol_version: 0,
        timeout_ms: i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX),
        session_id: grant.id,
        passwd: Bytes::copy_from_slice(&grant.passwd),
        read_only,
    };
    Ok(Handshake::Accepted {
        response: frame_of(&response),
        session_id: grant.id,
        resumed,
        timeout,
    })
}

fn frame_of(response: &ConnectResponse) -> Bytes {
    let mut w = JuteWriter::new();
    response.encode(&mut w);
    w.into_frame()
}

/// The reply to a four-letter command sent instead of a connect request, if it is one the
/// facade answers: `ruok` (health checks) and `isro` (a read-only client looking for a
/// read-write server). ZooKeeper answers them without a frame and closes.
pub fn four_letter_reply(prefix: [u8; 4]) -> Option<&'static [u8]> {
    match &prefix {
        b"ruok" => Some(b"imok"),
        b"isro" => Some(if SERVER_IS_READ_ONLY { b"ro" } else { b"rw" }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use strata_runtime::clock::{Clock, ManualClock};

    const RANGE: TimeoutRange = TimeoutRange {
        min: Duration::from_millis(4000),
        max: Duration::from_millis(40000),
    };

    fn sessions() -> SessionTable {
        SessionTable::new(Arc::new(ManualClock::new(0)) as Arc<dyn Clock>, 3, 9, 8)
    }

    fn connect(timeout_ms: i32, session_id: i64, passwd: &[u8], read_only: Option<bool>) -> Bytes {
        let mut w = JuteWriter::new();
        ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: 0,
            timeout_ms,
            session_id,
            passwd: Bytes::copy_from_slice(passwd),
            read_only,
        }
        .encode(&mut w);
        w.finish()
    }

    fn accepted(h: Handshake) -> (ConnectResponse, i64, bool) {
        match h {
            Handshake::Accepted {
                response,
                session_id,
                resumed,
                ..
            } => (
                ConnectResponse::decode(&response[4..]).unwrap(),
                session_id,
                resumed,
            ),
            other => panic!("not accepted: {other:?}"),
        }
    }

    #[test]
    fn timeouts_are_clamped() {
        assert_eq!(RANGE.negotiate(1), RANGE.min);
        assert_eq!(RANGE.negotiate(-5), RANGE.min);
        assert_eq!(RANGE.negotiate(10_000), Duration::from_secs(10));
        assert_eq!(RANGE.negotiate(i32::MAX), RANGE.max);
    }

    #[test]
    fn a_new_session_answers_with_the_read_only_byte_only_when_asked() {
        let t = sessions();
        for (read_only, len) in [(Some(false), 37), (Some(true), 37), (None, 36)] {
            let h = handshake(&connect(30_000, 0, &[0; 16], read_only), &t, RANGE).unwrap();
            let Handshake::Accepted { ref response, .. } = h else {
                panic!("{h:?}");
            };
            assert_eq!(response.len(), 4 + len);
            let (resp, id, resumed) = accepted(h);
            assert_eq!(resp.read_only, read_only.map(|_| false));
            assert_eq!(resp.timeout_ms, 30_000);
            assert_eq!(resp.session_id, id);
            assert_ne!(id, 0);
            assert_eq!(resp.passwd.len(), 16);
            assert!(!resumed);
        }
    }

    #[test]
    fn a_known_session_resumes_with_its_id_and_a_wrong_password_expires() {
        let t = sessions();
        let (first, id, _) =
            accepted(handshake(&connect(5000, 0, &[], Some(false)), &t, RANGE).unwrap());
        t.detach(id);
        let again = connect(5000, id, &first.passwd, Some(false));
        let (second, same, resumed) = accepted(handshake(&again, &t, RANGE).unwrap());
        assert_eq!((same, second.session_id, resumed), (id, id, true));

        let wrong = connect(5000, id, &[1; 16], Some(false));
        let Handshake::Expired { response, .. } = handshake(&wrong, &t, RANGE).unwrap() else {
            panic!("a wrong password must expire");
        };
        let resp = ConnectResponse::decode(&response[4..]).unwrap();
        assert_eq!((resp.timeout_ms, resp.session_id), (0, 0));
    }

    #[test]
    fn a_full_table_refuses() {
        let t = SessionTable::new(Arc::new(ManualClock::new(0)) as Arc<dyn Clock>, 0, 0, 1);
        handshake(&connect(5000, 0, &[], None), &t, RANGE).unwrap();
        assert_eq!(
            handshake(&connect(5000, 0, &[], None), &t, RANGE).unwrap(),
            Handshake::Full
        );
    }

    #[test]
    fn a_truncated_connect_request_is_an_error() {
        let frame = connect(5000, 0, &[0; 16], None);
        assert!(handshake(&frame[..frame.len() - 1], &sessions(), RANGE).is_err());
    }

    #[test]
    fn four_letter_words() {
        assert_eq!(four_letter_reply(*b"ruok"), Some(&b"imok"[..]));
        assert_eq!(four_letter_reply(*b"isro"), Some(&b"rw"[..]));
        assert_eq!(four_letter_reply(*b"stat"), None);
        assert_eq!(four_letter_reply([0, 0, 0, 45]), None);
    }
}
