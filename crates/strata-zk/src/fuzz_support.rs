//! The entry point of the `zk_session` fuzz target (`fuzz/fuzz_targets/zk_session.rs`),
//! also replayed over the committed corpus by `tests/fuzz_corpus_test.rs` on stable Rust.

use std::sync::Arc;
use std::time::Duration;

use strata_runtime::clock::{Clock, ManualClock};

use crate::answer::{answer, Asker, Then};
use crate::frame::split_frames;
use crate::handshake::{handshake, Handshake, TimeoutRange};
use crate::jute::JuteReader;
use crate::protocol::{op, PING_XID};
use crate::records::{ConnectResponse, ReplyHeader, RequestHeader};
use crate::session::SessionTable;
use crate::tree::ComputedTree;

/// The frame limit the fuzz target uses: small, so inputs reach it.
const MAX_FRAME: usize = 4096;

/// Treats `data` as everything a client sent on one connection: its frames are split as
/// the server splits them, the first is the connect request and the rest are requests,
/// each answered as a connection answers it. Panics if a reply is not well formed: its
/// length prefix must match, it must decode, and it must carry the request's xid.
/// Returns how many requests were answered.
pub fn session_bytes(data: &[u8]) -> usize {
    let (frames, _) = split_frames(data, MAX_FRAME);
    let Some((connect, requests)) = frames.split_first() else {
        return 0;
    };
    let sessions = SessionTable::new(Arc::new(ManualClock::new(0)) as Arc<dyn Clock>, 1, 7, 4);
    let timeouts = TimeoutRange {
        min: Duration::from_secs(4),
        max: Duration::from_secs(40),
    };
    match handshake(connect, &sessions, timeouts) {
        Ok(Handshake::Accepted { response, .. }) => {
            if let Err(e) = ConnectResponse::decode(body_of(&response)) {
                panic!("our connect response does not decode: {e}");
            }
        }
        Ok(_) | Err(_) => return 0,
    }
    let tree = fuzz_tree();
    let mut answered_count = 0;
    for request in requests {
        let Ok(answered) = answer(request, &tree, Asker { ip: "127.0.0.1" }) else {
            break;
        };
        check_reply(request, &answered.reply);
        answered_count += 1;
        if answered.then != Then::Continue {
            break;
        }
    }
    answered_count
}

fn fuzz_tree() -> ComputedTree {
    ComputedTree::new()
        .fixed("/hbase/hbaseid", &b"fuzz-cluster"[..])
        .and_then(|t| t.fixed("/hbase/master", &[0xff, 0, 0, 0, 0, 4, 1, 2, 3, 4][..]))
        .unwrap_or_default()
}

fn body_of(frame: &[u8]) -> &[u8] {
    let Some((prefix, body)) = frame.split_first_chunk::<4>() else {
        panic!(
            "a reply frame of {} bytes has no length prefix",
            frame.len()
        );
    };
    assert_eq!(
        i32::from_be_bytes(*prefix) as usize,
        body.len(),
        "reply length prefix"
    );
    body
}

fn check_reply(request: &[u8], reply: &[u8]) {
    let sent = match RequestHeader::decode(&mut JuteReader::new(request)) {
        Ok(sent) => sent,
        Err(e) => panic!("a request was answered whose header does not decode: {e}"),
    };
    let header = match ReplyHeader::decode(&mut JuteReader::new(body_of(reply))) {
        Ok(header) => header,
        Err(e) => panic!("our reply header does not decode: {e}"),
    };
    let expected_xid = if sent.op == op::PING {
        PING_XID
    } else {
        sent.xid
    };
    assert_eq!(header.xid, expected_xid, "reply xid");
}
