use super::*;
use crate::records::Stat;
use crate::tree::ComputedTree;

const ASKER: Asker<'static> = Asker { ip: "127.0.0.1" };

fn tree() -> ComputedTree {
    ComputedTree::new()
        .with_mtime_ms(77)
        .fixed("/hbase/master", &b"master-bytes"[..])
        .unwrap()
        .fixed("/hbase/hbaseid", &b"id"[..])
        .unwrap()
}

fn request(xid: i32, op: i32, body: impl FnOnce(&mut JuteWriter)) -> Bytes {
    let mut w = JuteWriter::new();
    RequestHeader { xid, op }.encode(&mut w);
    body(&mut w);
    w.finish()
}

fn path_watch(path: &'static str, watch: bool) -> impl FnOnce(&mut JuteWriter) {
    move |w| {
        w.string(path).boolean(watch);
    }
}

/// The reply's header and the bytes after it, checking the frame's length prefix.
fn ask(frame: &[u8]) -> (ReplyHeader, Vec<u8>, Then) {
    let answer = answer(frame, &tree(), ASKER).unwrap();
    let reply = &answer.reply[..];
    let len = i32::from_be_bytes(reply[..4].try_into().unwrap()) as usize;
    assert_eq!(len, reply.len() - 4, "length prefix");
    let mut r = JuteReader::new(&reply[4..]);
    let header = ReplyHeader::decode(&mut r).unwrap();
    let body = reply[4 + 16..].to_vec();
    (header, body, answer.then)
}

#[test]
fn get_data_returns_the_bytes_and_a_stat_with_their_length() {
    let (header, body, then) = ask(&request(5, op::GET_DATA, path_watch("/hbase/master", true)));
    assert_eq!((header.xid, header.err, header.zxid), (5, 0, SERVED_ZXID));
    assert_eq!(then, Then::Continue);
    let mut r = JuteReader::new(&body);
    assert_eq!(r.buffer("data").unwrap(), b"master-bytes");
    let stat = Stat::decode(&mut r).unwrap();
    assert_eq!(stat.data_length, 12);
    assert_eq!(stat.num_children, 0);
    assert_eq!(stat.mtime, 77);
    assert_eq!(r.remaining(), 0);
}

#[test]
fn exists_returns_a_stat_counting_children() {
    let (header, body, _) = ask(&request(6, op::EXISTS, path_watch("/hbase", false)));
    assert_eq!(header.err, 0);
    let stat = Stat::decode(&mut JuteReader::new(&body)).unwrap();
    assert_eq!((stat.num_children, stat.data_length), (2, 0));
    assert_eq!(body.len(), 68);
}

#[test]
fn a_missing_node_is_nonode_with_no_body() {
    for op in [
        op::EXISTS,
        op::GET_DATA,
        op::GET_CHILDREN,
        op::GET_CHILDREN2,
    ] {
        let (header, body, then) = ask(&request(7, op, path_watch("/nope", true)));
        assert_eq!((header.xid, header.err), (7, -101), "op {op}");
        assert!(body.is_empty());
        assert_eq!(then, Then::Continue);
    }
}

#[test]
fn get_children_lists_names_and_get_children2_adds_a_stat() {
    let (_, body, _) = ask(&request(8, op::GET_CHILDREN, path_watch("/", false)));
    let mut r = JuteReader::new(&body);
    assert_eq!(r.int("count").unwrap(), 1);
    assert_eq!(r.string("child").unwrap(), "hbase");
    assert_eq!(r.remaining(), 0);

    let (_, body, _) = ask(&request(9, op::GET_CHILDREN2, path_watch("/hbase", false)));
    let mut r = JuteReader::new(&body);
    assert_eq!(r.int("count").unwrap(), 2);
    let names = [r.string("a").unwrap(), r.string("b").unwrap()];
    assert_eq!(names, ["hbaseid".to_string(), "master".to_string()]);
    assert_eq!(Stat::decode(&mut r).unwrap().num_children, 2);
}

#[test]
fn ping_is_answered_with_the_ping_xid() {
    let (header, body, _) = ask(&request(PING_XID, op::PING, |_| {}));
    assert_eq!((header.xid, header.err), (PING_XID, 0));
    assert!(body.is_empty());
}

#[test]
fn every_write_is_refused_with_notreadonly() {
    for code in op::WRITES {
        // The body is not even read: a write is refused whatever it carries.
        let (header, body, then) = ask(&request(11, code, |w| {
            w.string("/x");
        }));
        assert_eq!((header.xid, header.err), (11, -119), "op {code}");
        assert!(body.is_empty());
        assert_eq!(then, Then::Continue);
    }
}

#[test]
fn unknown_operations_are_unimplemented() {
    for code in [0, 10, 22, 102, 104, 999, -10, i32::MIN] {
        let (header, _, then) = ask(&request(12, code, |_| {}));
        assert_eq!((header.xid, header.err), (12, -6), "op {code}");
        assert_eq!(then, Then::Continue);
    }
}

#[test]
fn close_session_is_acknowledged_then_ends_the_connection() {
    let (header, body, then) = ask(&request(13, op::CLOSE_SESSION, |_| {}));
    assert_eq!((header.xid, header.err), (13, 0));
    assert!(body.is_empty());
    assert_eq!(then, Then::SessionClosed);
}

#[test]
fn set_watches_and_auth_are_accepted_with_their_own_xids() {
    for (xid, code) in [
        (-8, op::SET_WATCHES),
        (-8, op::SET_WATCHES2),
        (-4, op::AUTH),
    ] {
        let (header, body, _) = ask(&request(xid, code, |w| {
            w.long(0).int(0).int(0).int(0);
        }));
        assert_eq!((header.xid, header.err), (xid, 0));
        assert!(body.is_empty());
    }
}

#[test]
fn sync_echoes_its_path() {
    let (header, body, _) = ask(&request(14, op::SYNC, |w| {
        w.string("/hbase");
    }));
    assert_eq!(header.err, 0);
    assert_eq!(JuteReader::new(&body).string("path").unwrap(), "/hbase");
}

#[test]
fn get_acl_is_world_anyone_read() {
    let (header, body, _) = ask(&request(15, op::GET_ACL, |w| {
        w.string("/hbase/hbaseid");
    }));
    assert_eq!(header.err, 0);
    let mut r = JuteReader::new(&body);
    assert_eq!(r.int("count").unwrap(), 1);
    assert_eq!(r.int("perms").unwrap(), PERM_READ);
    assert_eq!(r.string("scheme").unwrap(), "world");
    assert_eq!(r.string("id").unwrap(), "anyone");
    assert_eq!(Stat::decode(&mut r).unwrap().data_length, 2);
}

#[test]
fn who_am_i_names_the_peer_and_add_watch_succeeds() {
    let (_, body, _) = ask(&request(16, op::WHO_AM_I, |_| {}));
    let mut r = JuteReader::new(&body);
    assert_eq!(r.int("count").unwrap(), 1);
    assert_eq!(r.string("scheme").unwrap(), "ip");
    assert_eq!(r.string("user").unwrap(), "127.0.0.1");

    let (header, body, _) = ask(&request(17, op::ADD_WATCH, |w| {
        w.string("/hbase").int(0);
    }));
    assert_eq!((header.err, body), (0, vec![0, 0, 0, 0]));
}

#[test]
fn a_truncated_body_gets_marshalling_error_then_close() {
    let frame = request(18, op::GET_DATA, |w| {
        w.int(100).int(0);
    });
    let (header, body, then) = ask(&frame);
    assert_eq!((header.xid, header.err), (18, -5));
    assert!(body.is_empty());
    assert!(matches!(then, Then::Malformed(_)));
}

#[test]
fn a_frame_without_a_whole_header_is_an_error() {
    for len in 0..8 {
        assert!(answer(&[0u8; 8][..len], &tree(), ASKER).is_err(), "{len}");
    }
}

#[test]
fn trailing_bytes_after_a_body_are_ignored() {
    let frame = request(19, op::EXISTS, |w| {
        w.string("/hbase").boolean(false).int(12345);
    });
    let (header, _, then) = ask(&frame);
    assert_eq!(header.err, 0);
    assert_eq!(then, Then::Continue);
}
