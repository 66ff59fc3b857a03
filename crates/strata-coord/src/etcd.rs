//! [`MetaKv`] on a real etcd through `etcd-client` (gRPC on tokio).
//!
//! Why blocking, over the process's shared I/O runtime (`strata_runtime::IoRuntime`, which
//! the object store's `BlockingStore` runs on too): the callers are the engine's synchronous threads (a group-commit
//! leader checking its lease, a flush committing a manifest, the master's loop), and each
//! waits for its one answer anyway. The gRPC channel's connection is a task of the
//! runtime that opened it, so that runtime owns it and keeps it driven between calls; the
//! server's request runtime is not used, so coordination never queues behind requests.
//! A caller on a runtime's worker is waited for on a thread of its own (`IoRuntime::
//! block_on`).
//!
//! Every call has a deadline, so an unreachable etcd is an `Unavailable` error naming the
//! endpoint within `op_timeout`, never a hang.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::future::Future;
use std::sync::mpsc::{channel, Sender};
use std::time::Duration;

use etcd_client::{
    Client, CompareOp, ConnectOptions, EventType, GetOptions, LeaseKeepAliveStream, LeaseKeeper,
    PutOptions, TxnOp, WatchOptions,
};
use strata_runtime::IoRuntime;
use tokio::sync::Mutex as AsyncMutex;

use crate::error::{Error, Result};
use crate::kv::{
    CompareTarget, KeyValue, LeaseId, MetaKv, Op, Revision, Txn, TxnOutcome, WatchEvent,
    WatchReceiver,
};

/// Default deadline of one etcd call.
pub const DEFAULT_OP_TIMEOUT: Duration = Duration::from_secs(2);

/// One keepalive stream per lease, reused by every keepalive of that lease.
type KeepAlives = HashMap<LeaseId, (LeaseKeeper, LeaseKeepAliveStream)>;

/// A connection to etcd.
pub struct EtcdKv {
    client: Client,
    endpoint: String,
    op_timeout: Duration,
    keepalives: AsyncMutex<KeepAlives>,
    runtime: IoRuntime,
}

impl std::fmt::Debug for EtcdKv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdKv")
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl EtcdKv {
    /// Connects to `endpoints` (comma-separated `http://host:port`) on an I/O runtime of
    /// its own (tools and tests; a server shares one through [`EtcdKv::connect_on`]).
    pub fn connect(endpoints: &str, op_timeout: Duration) -> Result<Self> {
        let runtime = IoRuntime::start("strata-coord-io", 1).map_err(|e| Error::Io {
            endpoint: endpoints.to_owned(),
            op: "start runtime",
            reason: e.to_string(),
        })?;
        Self::connect_on(endpoints, op_timeout, runtime)
    }

    /// Connects to `endpoints` with its connections driven by `runtime`.
    pub fn connect_on(endpoints: &str, op_timeout: Duration, runtime: IoRuntime) -> Result<Self> {
        let endpoint = endpoints.to_owned();
        let list: Vec<&str> = endpoints.split(',').map(str::trim).collect();
        let options = ConnectOptions::new()
            .with_connect_timeout(op_timeout)
            .with_timeout(op_timeout)
            .with_keep_alive(Duration::from_secs(1), op_timeout);
        let connect = Client::connect(list, Some(options));
        let client = block(&runtime, &endpoint, "connect", None, op_timeout, connect)?;
        let kv = EtcdKv {
            client,
            endpoint,
            op_timeout,
            keepalives: AsyncMutex::new(HashMap::new()),
            runtime,
        };
        kv.get("/strata/")?; // connect is lazy: prove etcd answers now
        Ok(kv)
    }

    fn run<T: Send>(
        &self,
        op: &'static str,
        fut: impl Future<Output = std::result::Result<T, etcd_client::Error>> + Send,
    ) -> Result<T> {
        self.run_for(op, None, fut)
    }

    /// [`Self::run`] for a call naming `lease`, whose refusal for want of the lease is
    /// [`Error::LeaseExpired`] for it.
    fn run_leased<T: Send>(
        &self,
        op: &'static str,
        lease: LeaseId,
        fut: impl Future<Output = std::result::Result<T, etcd_client::Error>> + Send,
    ) -> Result<T> {
        self.run_for(op, Some(lease), fut)
    }

    fn run_for<T: Send>(
        &self,
        op: &'static str,
        lease: Option<LeaseId>,
        fut: impl Future<Output = std::result::Result<T, etcd_client::Error>> + Send,
    ) -> Result<T> {
        let (runtime, endpoint) = (&self.runtime, self.endpoint.as_str());
        block(runtime, endpoint, op, lease, self.op_timeout, fut)
    }

    /// One keepalive on the lease's stream: whether etcd renewed it. etcd answers one for
    /// a lease it does not hold with a TTL of 0, on the stream rather than as an error.
    async fn keep_alive_once(
        &self,
        lease: LeaseId,
    ) -> std::result::Result<bool, etcd_client::Error> {
        let mut streams = self.keepalives.lock().await;
        let (keeper, stream) = match streams.entry(lease) {
            Entry::Occupied(open) => open.into_mut(),
            Entry::Vacant(slot) => slot.insert(self.client.clone().lease_keep_alive(lease).await?),
        };
        let answer = async {
            keeper.keep_alive().await?;
            stream.message().await
        }
        .await;
        match answer {
            Ok(Some(response)) => Ok(response.ttl() > 0),
            Ok(None) => {
                streams.remove(&lease);
                Err(etcd_client::Error::LeaseKeepAliveError(
                    "keepalive stream closed".into(),
                ))
            }
            Err(e) => {
                streams.remove(&lease); // a broken stream is reopened by the next keepalive
                Err(e)
            }
        }
    }
}

/// Runs `fut` on `runtime` with a deadline, mapping failures to errors that name etcd
/// (and `lease`, when the call names one and etcd does not hold it).
fn block<T: Send>(
    runtime: &IoRuntime,
    endpoint: &str,
    op: &'static str,
    lease: Option<LeaseId>,
    timeout: Duration,
    fut: impl Future<Output = std::result::Result<T, etcd_client::Error>> + Send,
) -> Result<T> {
    let answer = match wait_on(runtime, async { tokio::time::timeout(timeout, fut).await }) {
        Ok(answer) => answer,
        Err(reason) => {
            return Err(Error::Unavailable {
                endpoint: endpoint.to_owned(),
                op,
                reason,
            })
        }
    };
    match answer {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(map_error(endpoint, op, lease, e)),
        Err(_) => Err(Error::Unavailable {
            endpoint: endpoint.to_owned(),
            op,
            reason: format!("no answer within {timeout:?}"),
        }),
    }
}

/// Runs `future` on the client's runtime, from any thread.
fn wait_on<F>(runtime: &IoRuntime, future: F) -> std::result::Result<F::Output, String>
where
    F: Future + Send,
    F::Output: Send,
{
    runtime
        .block_on(future)
        .map_err(|e| format!("cannot start a thread to wait for etcd: {e}"))
}

fn map_error(
    endpoint: &str,
    op: &'static str,
    lease: Option<LeaseId>,
    error: etcd_client::Error,
) -> Error {
    let reason = error.to_string();
    if let Some(lease) = lease.filter(|_| names_a_missing_lease(&error)) {
        return Error::lease_expired(
            endpoint,
            lease,
            format!("etcd does not hold it (expired or revoked), refused {op}: {reason}"),
        );
    }
    match &error {
        etcd_client::Error::GRpcStatus(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::PermissionDenied
            ) =>
        {
            Error::Io {
                endpoint: endpoint.to_owned(),
                op,
                reason,
            }
        }
        etcd_client::Error::InvalidArgs(_) | etcd_client::Error::InvalidUri(_) => {
            Error::InvalidArgument(format!("etcd endpoint {endpoint}: {reason}"))
        }
        _ => Error::Unavailable {
            endpoint: endpoint.to_owned(),
            op,
            reason,
        },
    }
}

/// Whether etcd refused a call for want of the lease it names (expired, revoked, never
/// granted): the one place that reads it. etcd answers that with gRPC NotFound
/// (`rpctypes.ErrGRPCLeaseNotFound`, "etcdserver: requested lease not found"), and no
/// other refusal of the calls made here (range, txn, lease grant, keepalive and revoke,
/// watch) has that code. A keepalive on an open stream is answered with a TTL of 0
/// instead (`keep_alive_once`), and so is the first one of a new stream, which
/// etcd-client turns into an error of text alone ([`keepalive_found_no_lease`]).
fn names_a_missing_lease(error: &etcd_client::Error) -> bool {
    match error {
        etcd_client::Error::GRpcStatus(status) => status.code() == tonic::Code::NotFound,
        etcd_client::Error::LeaseKeepAliveError(text) => keepalive_found_no_lease(text),
        _ => false,
    }
}

/// etcd-client's `LeaseClient::keep_alive` opens the stream, sends the first keepalive
/// and, when etcd answers it with a TTL of 0 (it holds no such lease), fails with
/// `LeaseKeepAliveError("lease not found")`: this exact text, from etcd-client itself,
/// is then the only sign. Its other `LeaseKeepAliveError`s are a closed channel (the
/// stream is broken: reopened by the next keepalive, not the lease's end). The etcd test
/// `a_revoked_lease_is_refused_with_the_typed_error` pins it against a real etcd, so an
/// etcd-client that changes the text fails there rather than here.
fn keepalive_found_no_lease(text: &str) -> bool {
    text == "lease not found"
}

fn key_value(kv: &etcd_client::KeyValue) -> KeyValue {
    KeyValue {
        key: String::from_utf8_lossy(kv.key()).into_owned(),
        value: kv.value().to_vec(),
        create_revision: kv.create_revision(),
        mod_revision: kv.mod_revision(),
        lease: kv.lease(),
    }
}

fn to_etcd_txn(txn: &Txn) -> etcd_client::Txn {
    let compares: Vec<etcd_client::Compare> = txn
        .compares
        .iter()
        .map(|c| match c.target {
            CompareTarget::CreateRevision => {
                etcd_client::Compare::create_revision(c.key.as_str(), CompareOp::Equal, c.revision)
            }
            CompareTarget::ModRevision => {
                etcd_client::Compare::mod_revision(c.key.as_str(), CompareOp::Equal, c.revision)
            }
        })
        .collect();
    let ops: Vec<TxnOp> = txn
        .ops
        .iter()
        .map(|op| match op {
            Op::Put { key, value, lease } => {
                let options = lease.map(|id| PutOptions::new().with_lease(id));
                TxnOp::put(key.as_str(), value.clone(), options)
            }
            Op::Delete { key } => TxnOp::delete(key.as_str(), None),
        })
        .collect();
    etcd_client::Txn::new().when(compares).and_then(ops)
}

/// The lease a transaction's puts attach keys to, which etcd refuses it for when it does
/// not hold it. The coordinator attaches at most one lease per transaction.
fn txn_lease(txn: &Txn) -> Option<LeaseId> {
    txn.ops.iter().find_map(|op| match op {
        Op::Put { lease, .. } => *lease,
        Op::Delete { .. } => None,
    })
}

fn header_revision(header: Option<&etcd_client::ResponseHeader>) -> Revision {
    header.map_or(0, |h| h.revision())
}

impl MetaKv for EtcdKv {
    fn endpoint(&self) -> &str {
        &self.endpoint
    }

    fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        let mut client = self.client.clone();
        let response = self.run("get", async move { client.get(key, None).await })?;
        Ok(response.kvs().first().map(key_value))
    }

    fn range_prefix(&self, prefix: &str) -> Result<(Vec<KeyValue>, Revision)> {
        let mut client = self.client.clone();
        let options = GetOptions::new().with_prefix();
        let response = self.run(
            "range",
            async move { client.get(prefix, Some(options)).await },
        )?;
        let kvs = response.kvs().iter().map(key_value).collect();
        Ok((kvs, header_revision(response.header())))
    }

    fn txn(&self, txn: &Txn) -> Result<TxnOutcome> {
        let mut client = self.client.clone();
        let request = to_etcd_txn(txn);
        let call = async move { client.txn(request).await };
        let response = match txn_lease(txn) {
            Some(lease) => self.run_leased("txn", lease, call)?,
            None => self.run("txn", call)?,
        };
        Ok(TxnOutcome {
            succeeded: response.succeeded(),
            revision: header_revision(response.header()),
        })
    }

    fn grant_lease(&self, ttl: Duration) -> Result<LeaseId> {
        let seconds = i64::try_from(ttl.as_millis().div_ceil(1000)).unwrap_or(i64::MAX);
        let mut client = self.client.clone();
        let response = self.run("lease grant", async move {
            client.lease_grant(seconds, None).await
        })?;
        Ok(response.id())
    }

    fn keep_alive(&self, lease: LeaseId) -> Result<()> {
        let op = "lease keepalive";
        if self.run_leased(op, lease, self.keep_alive_once(lease))? {
            Ok(())
        } else {
            Err(Error::lease_expired(
                &self.endpoint,
                lease,
                format!("etcd does not hold it (expired or revoked), answered {op} with TTL 0"),
            ))
        }
    }

    fn revoke_lease(&self, lease: LeaseId) -> Result<()> {
        let mut client = self.client.clone();
        let revoked = self.run_leased("lease revoke", lease, async move {
            client.lease_revoke(lease).await
        });
        // Only a thread that cannot be started fails this; the keep-alive stream then
        // stays until the client is dropped, and etcd has dropped the lease anyway.
        let _ = self
            .runtime
            .block_on(async { self.keepalives.lock().await.remove(&lease) });
        match revoked {
            Err(e) if !e.is_lease_expired() => Err(e),
            _ => Ok(()),
        }
    }

    fn watch_prefix(&self, prefix: &str, start_revision: Revision) -> Result<WatchReceiver> {
        let mut client = self.client.clone();
        let options = WatchOptions::new()
            .with_prefix()
            .with_start_revision(start_revision);
        let stream = self.run(
            "watch",
            async move { client.watch(prefix, Some(options)).await },
        )?;
        let (sender, receiver) = channel();
        let endpoint = self.endpoint.clone();
        self.runtime
            .handle()
            .spawn(forward_watch(stream, sender, endpoint.clone()));
        Ok(WatchReceiver {
            events: receiver,
            endpoint,
        })
    }
}

/// Moves a watch's events to the blocking receiver until either side ends.
async fn forward_watch(
    mut stream: etcd_client::WatchStream,
    sender: Sender<Result<WatchEvent>>,
    endpoint: String,
) {
    loop {
        let response = match stream.message().await {
            Ok(Some(response)) => response,
            Ok(None) => return,
            Err(e) => {
                let _ = sender.send(Err(map_error(&endpoint, "watch", None, e)));
                return;
            }
        };
        for event in response.events() {
            let Some(kv) = event.kv() else { continue };
            let kv = key_value(kv);
            let event = match event.event_type() {
                EventType::Put => WatchEvent::Put(kv),
                EventType::Delete => WatchEvent::Delete(kv),
            };
            if sender.send(Ok(event)).is_err() {
                return; // the receiver was dropped: the stream's drop cancels the watch
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leased(error: etcd_client::Error) -> Error {
        map_error("http://e:2379", "txn", Some(0x2a), error)
    }

    #[test]
    fn a_missing_lease_is_read_from_the_status_code_not_its_text() {
        let refused = leased(etcd_client::Error::GRpcStatus(tonic::Status::not_found(
            "whatever etcd says",
        )));
        assert!(
            matches!(&refused, Error::LeaseExpired { lease: 0x2a, endpoint, .. }
                if endpoint == "http://e:2379"),
            "{refused:?}"
        );
        let text_only = leased(etcd_client::Error::GRpcStatus(tonic::Status::unavailable(
            "lease not found",
        )));
        assert!(!text_only.is_lease_expired(), "{text_only:?}");
        // A call that names no lease cannot have lost one.
        let unleased = map_error(
            "http://e:2379",
            "range",
            None,
            etcd_client::Error::GRpcStatus(tonic::Status::not_found("gone")),
        );
        assert!(!unleased.is_lease_expired(), "{unleased:?}");
    }

    #[test]
    fn a_keepalive_refused_when_its_stream_opens_is_the_lease_gone() {
        let opened = etcd_client::Error::LeaseKeepAliveError("lease not found".into());
        assert!(leased(opened).is_lease_expired());
        let broken = etcd_client::Error::LeaseKeepAliveError("channel closed".into());
        let broken = leased(broken);
        assert!(
            matches!(broken, Error::Unavailable { .. }),
            "a broken stream is reopened, not the lease's end: {broken:?}"
        );
    }
}
