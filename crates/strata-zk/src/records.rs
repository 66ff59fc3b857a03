//! The jute records the facade reads and writes, field for field in ZooKeeper's order
//! (`zookeeper.jute`). Each has both directions, so tests can play the client.

use bytes::Bytes;

use crate::jute::{DecodeError, JuteReader, JuteWriter};

/// The first frame of a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRequest {
    pub protocol_version: i32,
    pub last_zxid_seen: i64,
    pub timeout_ms: i32,
    /// 0 for a new session; otherwise the session the client wants to resume.
    pub session_id: i64,
    pub passwd: Bytes,
    /// Clients since ZooKeeper 3.3 append whether they accept a read-only server; older
    /// ones (and go-zookeeper) send nothing, and then the answer has no such byte either.
    pub read_only: Option<bool>,
}

impl ConnectRequest {
    pub fn decode(frame: &[u8]) -> Result<ConnectRequest, DecodeError> {
        let mut r = JuteReader::new(frame);
        let protocol_version = r.int("protocolVersion")?;
        let last_zxid_seen = r.long("lastZxidSeen")?;
        let timeout_ms = r.int("timeOut")?;
        let session_id = r.long("sessionId")?;
        let passwd = Bytes::copy_from_slice(r.buffer("passwd")?);
        let read_only = match r.remaining() {
            0 => None,
            _ => Some(r.boolean("readOnly")?),
        };
        Ok(ConnectRequest {
            protocol_version,
            last_zxid_seen,
            timeout_ms,
            session_id,
            passwd,
            read_only,
        })
    }

    pub fn encode(&self, w: &mut JuteWriter) {
        w.int(self.protocol_version)
            .long(self.last_zxid_seen)
            .int(self.timeout_ms)
            .long(self.session_id)
            .buffer(&self.passwd);
        if let Some(read_only) = self.read_only {
            w.boolean(read_only);
        }
    }
}

/// The answer to a [`ConnectRequest`]. A `timeout_ms` of 0 with session 0 tells the client
/// its session expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectResponse {
    pub protocol_version: i32,
    pub timeout_ms: i32,
    pub session_id: i64,
    pub passwd: Bytes,
    /// Present exactly when the request carried its own read-only byte.
    pub read_only: Option<bool>,
}

impl ConnectResponse {
    pub fn decode(frame: &[u8]) -> Result<ConnectResponse, DecodeError> {
        let mut r = JuteReader::new(frame);
        let protocol_version = r.int("protocolVersion")?;
        let timeout_ms = r.int("timeOut")?;
        let session_id = r.long("sessionId")?;
        let passwd = Bytes::copy_from_slice(r.buffer("passwd")?);
        let read_only = match r.remaining() {
            0 => None,
            _ => Some(r.boolean("readOnly")?),
        };
        Ok(ConnectResponse {
            protocol_version,
            timeout_ms,
            session_id,
            passwd,
            read_only,
        })
    }

    pub fn encode(&self, w: &mut JuteWriter) {
        w.int(self.protocol_version)
            .int(self.timeout_ms)
            .long(self.session_id)
            .buffer(&self.passwd);
        if let Some(read_only) = self.read_only {
            w.boolean(read_only);
        }
    }
}

/// What starts every request after the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    pub xid: i32,
    pub op: i32,
}

impl RequestHeader {
    pub fn decode(r: &mut JuteReader<'_>) -> Result<RequestHeader, DecodeError> {
        Ok(RequestHeader {
            xid: r.int("xid")?,
            op: r.int("type")?,
        })
    }

    pub fn encode(&self, w: &mut JuteWriter) {
        w.int(self.xid).int(self.op);
    }
}

/// What starts every reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyHeader {
    pub xid: i32,
    pub zxid: i64,
    pub err: i32,
}

impl ReplyHeader {
    pub fn decode(r: &mut JuteReader<'_>) -> Result<ReplyHeader, DecodeError> {
        Ok(ReplyHeader {
            xid: r.int("xid")?,
            zxid: r.long("zxid")?,
            err: r.int("err")?,
        })
    }

    pub fn encode(&self, w: &mut JuteWriter) {
        w.int(self.xid).long(self.zxid).int(self.err);
    }
}

/// The body of getData, exists, getChildren and getChildren2: a path and whether to
/// leave a watch (accepted, never fired). The bodies of sync, getACL and getEphemerals
/// are a path alone: `watch` is then false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRequest {
    pub path: String,
    pub watch: bool,
}

impl PathRequest {
    pub fn decode_with_watch(r: &mut JuteReader<'_>) -> Result<PathRequest, DecodeError> {
        Ok(PathRequest {
            path: r.string("path")?,
            watch: r.boolean("watch")?,
        })
    }

    pub fn decode_path(r: &mut JuteReader<'_>) -> Result<PathRequest, DecodeError> {
        Ok(PathRequest {
            path: r.string("path")?,
            watch: false,
        })
    }
}

/// A znode's metadata, the 11 fields of ZooKeeper's `Stat`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat {
    pub czxid: i64,
    pub mzxid: i64,
    pub ctime: i64,
    pub mtime: i64,
    pub version: i32,
    pub cversion: i32,
    pub aversion: i32,
    pub ephemeral_owner: i64,
    pub data_length: i32,
    pub num_children: i32,
    pub pzxid: i64,
}

impl Stat {
    pub fn decode(r: &mut JuteReader<'_>) -> Result<Stat, DecodeError> {
        Ok(Stat {
            czxid: r.long("czxid")?,
            mzxid: r.long("mzxid")?,
            ctime: r.long("ctime")?,
            mtime: r.long("mtime")?,
            version: r.int("version")?,
            cversion: r.int("cversion")?,
            aversion: r.int("aversion")?,
            ephemeral_owner: r.long("ephemeralOwner")?,
            data_length: r.int("dataLength")?,
            num_children: r.int("numChildren")?,
            pzxid: r.long("pzxid")?,
        })
    }

    pub fn encode(&self, w: &mut JuteWriter) {
        w.long(self.czxid)
            .long(self.mzxid)
            .long(self.ctime)
            .long(self.mtime)
            .int(self.version)
            .int(self.cversion)
            .int(self.aversion)
            .long(self.ephemeral_owner)
            .int(self.data_length)
            .int(self.num_children)
            .long(self.pzxid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect_request(read_only: Option<bool>) -> ConnectRequest {
        ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: 0x11,
            timeout_ms: 30_000,
            session_id: 0,
            passwd: Bytes::from_static(&[0; 16]),
            read_only,
        }
    }

    #[test]
    fn connect_request_round_trips_with_and_without_the_read_only_byte() {
        for read_only in [None, Some(false), Some(true)] {
            let request = connect_request(read_only);
            let mut w = JuteWriter::new();
            request.encode(&mut w);
            let bytes = w.finish();
            // 4 + 8 + 4 + 8 + (4 + 16), plus one byte when the flag is sent.
            assert_eq!(bytes.len(), 44 + usize::from(read_only.is_some()));
            assert_eq!(ConnectRequest::decode(&bytes).unwrap(), request);
        }
    }

    #[test]
    fn connect_request_cut_anywhere_before_its_password_ends_fails() {
        let mut w = JuteWriter::new();
        connect_request(None).encode(&mut w);
        let bytes = w.finish();
        for len in 0..bytes.len() {
            assert!(
                ConnectRequest::decode(&bytes[..len]).is_err(),
                "cut at {len}"
            );
        }
    }

    #[test]
    fn connect_response_round_trips() {
        for read_only in [None, Some(false)] {
            let response = ConnectResponse {
                protocol_version: 0,
                timeout_ms: 4000,
                session_id: 0x0100_0000_0000_0001,
                passwd: Bytes::from_static(&[7; 16]),
                read_only,
            };
            let mut w = JuteWriter::new();
            response.encode(&mut w);
            let bytes = w.finish();
            assert_eq!(bytes.len(), 36 + usize::from(read_only.is_some()));
            assert_eq!(ConnectResponse::decode(&bytes).unwrap(), response);
        }
    }

    #[test]
    fn headers_round_trip() {
        let mut w = JuteWriter::new();
        RequestHeader { xid: 3, op: 4 }.encode(&mut w);
        ReplyHeader {
            xid: 3,
            zxid: 9,
            err: -101,
        }
        .encode(&mut w);
        let bytes = w.finish();
        assert_eq!(bytes.len(), 8 + 16);
        let mut r = JuteReader::new(&bytes);
        assert_eq!(
            RequestHeader::decode(&mut r).unwrap(),
            RequestHeader { xid: 3, op: 4 }
        );
        let reply = ReplyHeader::decode(&mut r).unwrap();
        assert_eq!((reply.xid, reply.zxid, reply.err), (3, 9, -101));
        assert!(ReplyHeader::decode(&mut JuteReader::new(&bytes[..15])).is_err());
    }

    #[test]
    fn stat_round_trips_in_68_bytes() {
        let stat = Stat {
            czxid: 1,
            mzxid: 2,
            ctime: 3,
            mtime: 4,
            version: 5,
            cversion: 6,
            aversion: 7,
            ephemeral_owner: 8,
            data_length: 9,
            num_children: 10,
            pzxid: 11,
        };
        let mut w = JuteWriter::new();
        stat.encode(&mut w);
        let bytes = w.finish();
        assert_eq!(bytes.len(), 68);
        assert_eq!(Stat::decode(&mut JuteReader::new(&bytes)).unwrap(), stat);
        assert!(Stat::decode(&mut JuteReader::new(&bytes[..67])).is_err());
    }

    #[test]
    fn path_requests_decode_with_and_without_a_watch() {
        let mut w = JuteWriter::new();
        w.string("/hbase/master").boolean(true);
        let bytes = w.finish();
        let watched = PathRequest::decode_with_watch(&mut JuteReader::new(&bytes)).unwrap();
        assert_eq!(watched.path, "/hbase/master");
        assert!(watched.watch);
        let plain = PathRequest::decode_path(&mut JuteReader::new(&bytes)).unwrap();
        assert!(!plain.watch);
        // The watch flag is part of the record: without it the request is cut short.
        let cut = &bytes[..bytes.len() - 1];
        assert!(PathRequest::decode_with_watch(&mut JuteReader::new(cut)).is_err());
    }
}
