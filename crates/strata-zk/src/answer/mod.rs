//! Answering one request frame after the handshake: a pure function from the frame and
//! the tree to the reply frame, so the fuzz target and the unit tests drive exactly what a
//! connection runs.
//!
//! Reads are served; every write gets NOTREADONLY, as a read-only ZooKeeper server answers
//! them; operations the facade does not know get UNIMPLEMENTED, as ZooKeeper answers an
//! unknown type. Watches are accepted and never fire: the facade's znodes change only
//! when the cluster changes under them, and HBase's client does not rely on watches.

use bytes::Bytes;

use crate::jute::{DecodeError, JuteReader, JuteWriter};
use crate::protocol::{op, ErrorCode, PERM_READ, PING_XID};
use crate::records::{PathRequest, ReplyHeader, RequestHeader, Stat};
use crate::tree::{ZkNode, ZkTree};

/// The zxid every reply and every `Stat` carries. The tree has no transaction history; a
/// constant keeps what clients remember (their last zxid seen) consistent across the
/// servers of a cluster and across restarts.
pub const SERVED_ZXID: i64 = 1;

/// A reply, and what the connection does after sending it.
#[derive(Debug)]
pub struct Answer {
    /// The whole reply frame, length prefix included.
    pub reply: Bytes,
    pub then: Then,
}

/// What follows a reply.
#[derive(Debug, PartialEq, Eq)]
pub enum Then {
    Continue,
    /// The client closed its session: the connection ends after the reply.
    SessionClosed,
    /// The body did not decode: MARSHALLINGERROR was sent (as ZooKeeper does), then the
    /// connection ends, since a client that sends such bytes is not one we understand.
    Malformed(DecodeError),
}

/// Who is asking, for `whoAmI`.
#[derive(Debug, Clone, Copy)]
pub struct Asker<'a> {
    pub ip: &'a str,
}

/// The request frame `frame` answered from `tree`. An error means not even the request
/// header could be read: there is no xid to answer, so the caller closes the connection.
pub fn answer(frame: &[u8], tree: &dyn ZkTree, asker: Asker<'_>) -> Result<Answer, DecodeError> {
    let mut r = JuteReader::new(frame);
    let header = RequestHeader::decode(&mut r)?;
    Ok(match serve(header, &mut r, tree, asker) {
        Ok((reply, then)) => Answer { reply, then },
        Err(e) => Answer {
            reply: error_reply(header.xid, ErrorCode::MarshallingError),
            then: Then::Malformed(e),
        },
    })
}

type Served = Result<(Bytes, Then), DecodeError>;

fn serve(
    header: RequestHeader,
    r: &mut JuteReader<'_>,
    tree: &dyn ZkTree,
    asker: Asker<'_>,
) -> Served {
    let xid = header.xid;
    let reply = match header.op {
        op::PING => ok_reply(PING_XID, |_| {}),
        op::EXISTS => read_node(xid, r, tree, |w, node| stat_of(node).encode(w))?,
        op::GET_DATA => read_node(xid, r, tree, |w, node| {
            w.buffer(&node.data);
            stat_of(node).encode(w);
        })?,
        op::GET_CHILDREN => read_node(xid, r, tree, |w, node| {
            w.strings(&node.children);
        })?,
        op::GET_CHILDREN2 => read_node(xid, r, tree, |w, node| {
            w.strings(&node.children);
            stat_of(node).encode(w);
        })?,
        op::GET_ACL => get_acl(xid, r, tree)?,
        op::SYNC => sync(xid, r)?,
        op::CLOSE_SESSION => return Ok((ok_reply(xid, |_| {}), Then::SessionClosed)),
        op::ADD_WATCH => ok_reply(xid, |w| {
            // ZooKeeper answers addWatch with an ErrorResponse carrying 0.
            w.int(0);
        }),
        // Watches are accepted and never fire (see the module doc); an auth packet is
        // accepted because every znode is readable by anyone.
        op::SET_WATCHES | op::SET_WATCHES2 | op::CHECK_WATCHES | op::REMOVE_WATCHES | op::AUTH => {
            ok_reply(xid, |_| {})
        }
        op::WHO_AM_I => ok_reply(xid, |w| {
            w.int(1).string("ip").string(asker.ip);
        }),
        // No session here ever owns an ephemeral node.
        op::GET_EPHEMERALS => ok_reply(xid, |w| {
            w.int(0);
        }),
        code if op::WRITES.contains(&code) => error_reply(xid, ErrorCode::NotReadOnly),
        _ => error_reply(xid, ErrorCode::Unimplemented),
    };
    Ok((reply, Then::Continue))
}

/// getData, exists, getChildren(2): a path and a watch flag, answered from the node.
fn read_node(
    xid: i32,
    r: &mut JuteReader<'_>,
    tree: &dyn ZkTree,
    body: impl FnOnce(&mut JuteWriter, &ZkNode),
) -> Result<Bytes, DecodeError> {
    let request = PathRequest::decode_with_watch(r)?;
    Ok(match tree.get(&request.path) {
        Some(node) => ok_reply(xid, |w| body(w, &node)),
        None => error_reply(xid, ErrorCode::NoNode),
    })
}

/// Every node is readable by anyone and writable by no one: `world:anyone` with READ.
fn get_acl(xid: i32, r: &mut JuteReader<'_>, tree: &dyn ZkTree) -> Result<Bytes, DecodeError> {
    let request = PathRequest::decode_path(r)?;
    Ok(match tree.get(&request.path) {
        Some(node) => ok_reply(xid, |w| {
            w.int(1).int(PERM_READ).string("world").string("anyone");
            stat_of(&node).encode(w);
        }),
        None => error_reply(xid, ErrorCode::NoNode),
    })
}

/// A sync asks this server to catch up with the leader. The tree is computed from the live
/// cluster at each read, so there is nothing to catch up on: it succeeds at once. (A
/// read-only ZooKeeper server refuses sync; succeeding is what a client that syncs before
/// reading needs.)
fn sync(xid: i32, r: &mut JuteReader<'_>) -> Result<Bytes, DecodeError> {
    let request = PathRequest::decode_path(r)?;
    Ok(ok_reply(xid, |w| {
        w.string(&request.path);
    }))
}

/// The `Stat` of a served node: lengths from the node itself, zxids constant, times and
/// version as the tree reports them.
pub fn stat_of(node: &ZkNode) -> Stat {
    Stat {
        czxid: SERVED_ZXID,
        mzxid: SERVED_ZXID,
        ctime: node.mtime_ms,
        mtime: node.mtime_ms,
        version: node.version,
        cversion: 0,
        aversion: 0,
        ephemeral_owner: 0,
        data_length: i32::try_from(node.data.len()).unwrap_or(i32::MAX),
        num_children: i32::try_from(node.children.len()).unwrap_or(i32::MAX),
        pzxid: SERVED_ZXID,
    }
}

fn ok_reply(xid: i32, body: impl FnOnce(&mut JuteWriter)) -> Bytes {
    let mut w = JuteWriter::new();
    ReplyHeader {
        xid,
        zxid: SERVED_ZXID,
        err: ErrorCode::Ok.code(),
    }
    .encode(&mut w);
    body(&mut w);
    w.into_frame()
}

/// An error reply is the header alone, as ZooKeeper sends it.
fn error_reply(xid: i32, err: ErrorCode) -> Bytes {
    let mut w = JuteWriter::new();
    ReplyHeader {
        xid,
        zxid: SERVED_ZXID,
        err: err.code(),
    }
    .encode(&mut w);
    w.into_frame()
}

#[cfg(test)]
mod tests;
