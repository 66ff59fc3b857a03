//! The forwarding server's side: a [`RegionPeer`] that sends each primitive to another
//! server.
//!
//! `RegionPeer` is synchronous, and so is this client: the calling thread takes an idle
//! connection to the peer from the pool (or opens one), writes the request frame and
//! reads the answer itself. The socket's read and write timeouts are the call's deadline.
//! A call made on a worker of a tokio runtime is counted and made through `block_in_place`
//! (`wait.rs`); the network servers keep their calls off the workers.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strata_engine::{Cell, Get, RowResult};
use strata_runtime::clock::{self, Clock};
use strata_server::remote::{
    admin_codec, AdminReply, AdminRequest, ExpectedReads, PeerTable, PeerWrite, RegionPeer,
    RegionWork, RowSpan, ScanChunk, ServerAddress,
};
use strata_server::{Result, ServiceError};

use crate::conn::Conn;
use crate::convert as c;
use crate::errors::detail_to_error;
use crate::frame::{self, FrameError};
use crate::messages as m;
use crate::pool::Pool;
use crate::wait;
use crate::wire::{Method, ANSWER_ERROR, ANSWER_OK};

/// How long a call waits for its answer by default, connecting included.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);

/// How long an administration call waits for the master's answer: creating a table of
/// many regions, or decommissioning a server (which moves each of its regions), takes
/// longer than any data request.
pub const ADMIN_DEADLINE: Duration = Duration::from_secs(300);

/// Why a [`PeerClient`] could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PeerClientError {
    #[error("invalid peer address {address:?}: {reason}")]
    InvalidAddress { address: String, reason: String },
}

/// The client of one other server's peer service. Connects on first use and reconnects
/// after a failure by itself; a call that gets no answer within the deadline (the peer is
/// down, unreachable or stuck) fails with `PeerUnavailable`.
#[derive(Debug)]
pub struct PeerClient {
    address: String,
    /// Where the peer answers clients (reported as its regions' location).
    served_at: Option<ServerAddress>,
    deadline: Duration,
    pool: Pool,
}

/// How a call failed on one connection.
struct Failure {
    reason: String,
    /// The request cannot have reached the peer whole, so the peer did nothing.
    unsent: bool,
    /// A pooled connection that the peer had closed before the request: a request that
    /// only reads may be sent again on a new one.
    dead_before_answer: bool,
}

impl PeerClient {
    /// The client of the server at `address` (`host:port`), with [`DEFAULT_DEADLINE`].
    pub fn new(address: &str) -> std::result::Result<Self, PeerClientError> {
        Self::with_deadline(address, DEFAULT_DEADLINE)
    }

    /// The client of the server at `address`, each call failing after `deadline`.
    pub fn with_deadline(
        address: &str,
        deadline: Duration,
    ) -> std::result::Result<Self, PeerClientError> {
        check_address(address).map_err(|reason| PeerClientError::InvalidAddress {
            address: address.to_string(),
            reason: reason.to_string(),
        })?;
        // TCP deadlines are real time; `with_clock` is the seam for tests.
        #[allow(clippy::disallowed_methods)]
        Ok(Self::with_clock(address, deadline, clock::system()))
    }

    /// Notes where the peer answers clients, to report as its regions' location.
    pub fn serving_clients_at(mut self, at: ServerAddress) -> Self {
        self.served_at = Some(at);
        self
    }

    /// [`PeerClient::with_deadline`] with the clock that ages idle connections.
    fn with_clock(address: &str, deadline: Duration, clock: Arc<dyn Clock>) -> Self {
        PeerClient {
            address: address.to_string(),
            served_at: None,
            deadline,
            pool: Pool::new(address.to_string(), clock),
        }
    }

    /// Sends `request` and decodes the answer, waiting at most `deadline` for each step.
    /// `resend`: the request may be sent once more when a pooled connection turns out
    /// dead (see [`Method::reads_only`]).
    fn call<A: prost::Message + Default>(
        &self,
        method: Method,
        request: &impl prost::Message,
        deadline: Duration,
        resend: bool,
    ) -> Result<A> {
        let request = frame::encode(method.code(), request).map_err(|e| {
            ServiceError::InvalidArgument(format!(
                "cannot forward a {} request to {}: {e}",
                method.name(),
                self.address
            ))
        })?;
        let answer = self.exchange(method, &request, deadline, resend)?;
        A::decode(answer).map_err(|e| self.unavailable(format!("malformed answer: {e}"), false))
    }

    /// One request and its answer's payload, on a pooled connection or a new one.
    fn exchange(
        &self,
        method: Method,
        request: &[u8],
        deadline: Duration,
        resend: bool,
    ) -> Result<Bytes> {
        wait::off_worker(method.name(), || {
            if let Some(conn) = self.pool.take(!resend) {
                match self.attempt(conn, request, deadline) {
                    Ok(answer) => return answer,
                    Err(f) if f.dead_before_answer && resend => {}
                    Err(f) => return Err(self.unavailable(f.reason, f.unsent)),
                }
            }
            let conn = self
                .pool
                .connect(deadline)
                .map_err(|e| self.unavailable(e.to_string(), true))?;
            match self.attempt(conn, request, deadline) {
                Ok(answer) => answer,
                Err(f) => Err(self.unavailable(f.reason, f.unsent)),
            }
        })
    }

    /// Sends `request` on `conn` and reads its answer. The outer error is the connection
    /// failing (it is dropped); the inner result is the peer's answer (the connection
    /// goes back to the pool).
    fn attempt(
        &self,
        mut conn: Conn,
        request: &[u8],
        deadline: Duration,
    ) -> std::result::Result<Result<Bytes>, Failure> {
        conn.set_deadline(deadline).map_err(|e| Failure {
            reason: format!("cannot set the deadline: {e}"),
            unsent: true,
            dead_before_answer: false,
        })?;
        // A failed write left the frame incomplete at the peer (its last bytes were never
        // handed to the kernel), and a peer acts only on a whole frame: nothing was done.
        conn.send(request).map_err(|e| Failure {
            reason: format!("cannot send the request: {e}"),
            unsent: true,
            dead_before_answer: conn.reused,
        })?;
        let answer = conn
            .receive()
            .map_err(|e| self.lost(&e, conn.reused, deadline))?;
        let result = match answer.tag {
            ANSWER_OK => Ok(answer.payload),
            ANSWER_ERROR => {
                let detail: std::result::Result<m::ErrorDetail, _> =
                    prost::Message::decode(answer.payload);
                match detail.map(detail_to_error) {
                    Ok(Ok(error)) => Err(error),
                    Ok(Err(unreadable)) => Err(self.unavailable(unreadable, false)),
                    Err(e) => Err(self.unavailable(format!("malformed error answer: {e}"), false)),
                }
            }
            tag => {
                // Not this protocol: do not trust the connection with another request.
                return Err(Failure {
                    reason: format!("malformed answer (status {tag})"),
                    unsent: false,
                    dead_before_answer: false,
                });
            }
        };
        self.pool.put(conn);
        Ok(result)
    }

    /// The failure of a read after the request was written: the peer may have acted on
    /// it, so it is never `unsent`, whatever the cause.
    fn lost(&self, error: &FrameError, reused: bool, deadline: Duration) -> Failure {
        let reason = if error.timed_out() {
            format!("no answer within {deadline:?}")
        } else {
            format!("no answer: {error}")
        };
        Failure {
            reason,
            unsent: false,
            dead_before_answer: reused && error.before_any_byte(),
        }
    }

    fn unavailable(&self, reason: String, unsent: bool) -> ServiceError {
        ServiceError::PeerUnavailable {
            peer: self.address.clone(),
            reason,
            unsent,
        }
    }

    /// A malformed answer is the peer failing to answer, not an error of the request.
    fn decoded<T>(&self, answer: Result<T>) -> Result<T> {
        answer.map_err(|e| self.unavailable(format!("malformed answer: {e}"), false))
    }
}

impl Drop for PeerClient {
    fn drop(&mut self) {
        self.pool.clear();
    }
}

/// Checks that `address` looks like `host:port`, so that a bad configuration is
/// reported when the client is made; the host is resolved on each connect.
fn check_address(address: &str) -> std::result::Result<(), &'static str> {
    let (host, port) = address.rsplit_once(':').ok_or("expected host:port")?;
    port.parse::<u16>()
        .map_err(|_| "the port is not a number")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err("no host");
    }
    if host
        .chars()
        .any(|ch| ch.is_whitespace() || ch.is_control() || ch == '/')
    {
        return Err("the host has a character no host name has");
    }
    Ok(())
}

impl RegionPeer for PeerClient {
    fn address(&self) -> String {
        self.address.clone()
    }

    fn served_at(&self) -> Option<ServerAddress> {
        self.served_at.clone()
    }

    fn get(&self, table: &PeerTable, get: &Get) -> Result<Option<RowResult>> {
        let request = m::GetRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            get: Some(c::get_to_msg(get)),
        };
        let answer: m::GetResponse = self.call(Method::Get, &request, self.deadline, true)?;
        self.decoded(answer.row.map(c::row_from_msg).transpose())
    }

    fn mutate(&self, table: &PeerTable, cells: Vec<Cell>, write: PeerWrite) -> Result<()> {
        let request = m::MutateRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            cells: c::cells_to_msg(&cells),
            dialect: c::dialect_to_msg(write.dialect),
            durability: write.durability.name().to_string(),
        };
        let _: m::MutateResponse = self.call(Method::Mutate, &request, self.deadline, false)?;
        Ok(())
    }

    fn mutate_if(
        &self,
        table: &PeerTable,
        row: &[u8],
        expected: ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        let request = m::MutateIfRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            row: Bytes::copy_from_slice(row),
            expected: c::expected_to_msg(&expected),
            cells: c::cells_to_msg(&cells),
            dialect: c::dialect_to_msg(write.dialect),
            durability: write.durability.name().to_string(),
        };
        let answer: m::MutateIfResponse =
            self.call(Method::MutateIf, &request, self.deadline, false)?;
        Ok(answer.applied)
    }

    fn maintain(&self, table: &PeerTable, range: &RowSpan, work: RegionWork) -> Result<u64> {
        let request = m::MaintainRequest {
            table: c::table_to_msg(&table.name),
            schema: table.schema,
            start: range.start.clone(),
            end: range.end.clone(),
            work: c::work_to_msg(work),
        };
        // Measuring, flushing or compacting twice is harmless; releasing a region twice
        // would answer the second time that it is not served here.
        let resend = !matches!(work, RegionWork::Release);
        let answer: m::MaintainResponse =
            self.call(Method::Maintain, &request, self.deadline, resend)?;
        Ok(answer.bytes)
    }

    fn scan_chunk(&self, table: &PeerTable, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        let request = c::chunk_to_msg(table, chunk);
        let answer: m::ScanChunkResponse =
            self.call(Method::ScanChunk, &request, self.deadline, true)?;
        self.decoded(c::rows_from_msg(answer.rows))
    }

    fn admin(&self, request: &AdminRequest) -> Result<AdminReply> {
        let request = m::AdminRequest {
            request: admin_codec::encode_request(request).into(),
        };
        let answer: m::AdminResponse = self.call(Method::Admin, &request, ADMIN_DEADLINE, false)?;
        self.decoded(admin_codec::decode_reply(&answer.reply))
    }
}

#[cfg(test)]
mod tests {
    use super::check_address;

    #[test]
    fn addresses_are_checked_when_the_client_is_made() {
        for good in ["127.0.0.1:1", "host-1.example:16020", "[::1]:9"] {
            assert!(check_address(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "host",
            ":1",
            "host:port",
            "a b:1",
            "x/y:1",
            "not a host:port/\0",
        ] {
            assert!(check_address(bad).is_err(), "{bad}");
        }
    }
}
