//! One client connection: the handshake, then requests answered in order until the client
//! closes its session, goes silent past its session timeout, or sends what we cannot read.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::time::timeout;

use crate::answer::{answer, Asker, Then};
use crate::config::ZkConfig;
use crate::frame::{frame_length, read_body, read_frame, read_prefix, FrameError};
use crate::handshake::{four_letter_reply, handshake, Handshake};
use crate::session::SessionTable;
use crate::tree::ZkTree;

/// What every connection of one server shares.
pub(crate) struct Shared {
    pub tree: Arc<dyn ZkTree>,
    pub sessions: SessionTable,
    pub config: ZkConfig,
}

/// How a connection ended, for its log line.
#[derive(Debug, thiserror::Error)]
enum Ended {
    #[error("the client closed the connection")]
    ClientLeft,
    #[error("the client closed its session")]
    SessionClosed,
    #[error("answered a four-letter command")]
    FourLetterCommand,
    /// As in ZooKeeper, the session expires with it.
    #[error(
        "nothing received (not even a ping) within the {0:?} session timeout; session expired"
    )]
    Silent(Duration),
    #[error("no whole connect request within {0:?}")]
    HandshakeTimeout(Duration),
    #[error("reconnect for session {0:#x}, which expired; told the client so")]
    SessionExpired(i64),
    #[error("too many sessions; refused a new one")]
    TooManySessions,
    #[error("bad frame: {0}")]
    BadFrame(FrameError),
    #[error("malformed {0}")]
    Malformed(String),
    #[error("cannot send a reply: {0}")]
    WriteFailed(String),
}

/// Serves one accepted connection to its end and logs how it ended.
pub(crate) async fn serve_connection(stream: TcpStream, peer: SocketAddr, shared: &Shared) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, error = %e, "cannot disable Nagle on a ZooKeeper connection");
    }
    let ended = run(stream, peer, shared).await;
    match ended {
        Ended::ClientLeft | Ended::SessionClosed | Ended::FourLetterCommand => {
            tracing::debug!(%peer, "zookeeper connection ended: {ended}");
        }
        _ => tracing::info!(%peer, "closing zookeeper connection: {ended}"),
    }
}

async fn run(mut stream: TcpStream, peer: SocketAddr, shared: &Shared) -> Ended {
    let (reader, mut writer) = stream.split();
    let mut reader = BufReader::new(reader);
    let config = &shared.config;
    let limit = config.handshake_timeout;

    let prefix = match timeout(limit, read_prefix(&mut reader)).await {
        Err(_) => return Ended::HandshakeTimeout(limit),
        Ok(Ok(None)) => return Ended::ClientLeft,
        Ok(Ok(Some(prefix))) => prefix,
        Ok(Err(e)) => return Ended::BadFrame(e),
    };
    if let Some(reply) = four_letter_reply(prefix) {
        // A failed write only means the asker is gone already.
        let _ = timeout(limit, writer.write_all(reply)).await;
        return Ended::FourLetterCommand;
    }
    let len = match frame_length(prefix, config.max_frame_bytes) {
        Ok(len) => len,
        Err(e) => return Ended::BadFrame(e),
    };
    let frame = match timeout(limit, read_body(&mut reader, len)).await {
        Err(_) => return Ended::HandshakeTimeout(limit),
        Ok(Err(e)) => return Ended::BadFrame(e),
        Ok(Ok(frame)) => frame,
    };
    let (response, session_id, resumed, session_timeout) =
        match handshake(&frame, &shared.sessions, config.session_timeouts()) {
            Err(e) => return Ended::Malformed(format!("connect request: {e}")),
            Ok(Handshake::Full) => return Ended::TooManySessions,
            Ok(Handshake::Expired {
                response,
                session_id,
            }) => {
                let _ = timeout(limit, writer.write_all(&response)).await;
                return Ended::SessionExpired(session_id);
            }
            Ok(Handshake::Accepted {
                response,
                session_id,
                resumed,
                timeout,
            }) => (response, session_id, resumed, timeout),
        };
    let session = AttachedSession {
        sessions: &shared.sessions,
        id: session_id,
        ended: false,
    };
    tracing::debug!(%peer, session = format_args!("{session_id:#x}"), resumed, ?session_timeout, "zookeeper session");
    if let Err(e) = send(&mut writer, &response, session_timeout).await {
        return Ended::WriteFailed(e);
    }
    let asker_ip = peer.ip().to_string();
    let asker = Asker { ip: &asker_ip };
    serve_requests(
        &mut reader,
        &mut writer,
        shared,
        asker,
        session_timeout,
        session,
    )
    .await
}

async fn serve_requests<R, W>(
    reader: &mut R,
    writer: &mut W,
    shared: &Shared,
    asker: Asker<'_>,
    session_timeout: Duration,
    mut session: AttachedSession<'_>,
) -> Ended
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let max = shared.config.max_frame_bytes;
    loop {
        let frame = match timeout(session_timeout, read_frame(reader, max)).await {
            Err(_) => {
                session.end();
                return Ended::Silent(session_timeout);
            }
            Ok(Ok(None)) => return Ended::ClientLeft,
            Ok(Ok(Some(frame))) => frame,
            Ok(Err(e)) => return Ended::BadFrame(e),
        };
        let answer = match answer(&frame, shared.tree.as_ref(), asker) {
            Ok(answer) => answer,
            Err(e) => return Ended::Malformed(format!("request header: {e}")),
        };
        if let Err(e) = send(writer, &answer.reply, session_timeout).await {
            return Ended::WriteFailed(e);
        }
        match answer.then {
            Then::Continue => {}
            Then::SessionClosed => {
                session.end();
                return Ended::SessionClosed;
            }
            Then::Malformed(e) => return Ended::Malformed(format!("request body: {e}")),
        }
    }
}

/// Writes one reply; a client that does not take it within the session timeout is gone.
async fn send<W: AsyncWrite + Unpin>(
    w: &mut W,
    bytes: &[u8],
    limit: Duration,
) -> Result<(), String> {
    match timeout(limit, w.write_all(bytes)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("reply not taken within {limit:?}")),
    }
}

/// The session a connection serves. However the connection ends (even when its future is
/// dropped at shutdown) the session is detached, and it stays resumable for its timeout
/// unless it was ended.
struct AttachedSession<'a> {
    sessions: &'a SessionTable,
    id: i64,
    ended: bool,
}

impl AttachedSession<'_> {
    fn end(&mut self) {
        self.sessions.end(self.id);
        self.ended = true;
    }
}

impl Drop for AttachedSession<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.sessions.detach(self.id);
        }
    }
}
