//! [`MetaKv`] on a real etcd through `etcd-client` (gRPC on tokio).
//!
//! Why blocking, over a runtime of its own with one I/O thread (as strata-objstore's
//! `BlockingStore`): the callers are the engine's synchronous threads (a group-commit
//! leader checking its lease, a flush committing a manifest, the master's loop), and each
//! waits for its one answer anyway. The gRPC channel's connection is a task of the
//! runtime that opened it, so one runtime owns it and keeps it driven between calls; the
//! server's request runtime is not used, so coordination never queues behind requests.
//! Callers must be plain threads, never async tasks (tokio refuses to block inside one).
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
use tokio::runtime::Runtime;
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
    runtime: Runtime,
}

impl std::fmt::Debug for EtcdKv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdKv")
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl EtcdKv {
    /// Connects to `endpoints` (comma-separated `http://host:port`).
    pub fn connect(endpoints: &str, op_timeout: Duration) -> Result<Self> {
        let endpoint = endpoints.to_owned();
        let list: Vec<&str> = endpoints.split(',').map(str::trim).collect();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("strata-coord-io")
            .enable_all()
            .build()
            .map_err(|e| Error::Io {
                endpoint: endpoint.clone(),
                op: "start runtime",
                reason: e.to_string(),
            })?;
        let options = ConnectOptions::new()
            .with_connect_timeout(op_timeout)
            .with_timeout(op_timeout)
            .with_keep_alive(Duration::from_secs(1), op_timeout);
        let connect = Client::connect(list, Some(options));
        let client = block(&runtime, &endpoint, "connect", op_timeout, connect)?;
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
        block(&self.runtime, &self.endpoint, op, self.op_timeout, fut)
    }

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

/// Runs `fut` on `runtime` with a deadline, mapping failures to errors that name etcd.
fn block<T: Send>(
    runtime: &Runtime,
    endpoint: &str,
    op: &'static str,
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
        Ok(Err(e)) => Err(map_error(endpoint, op, e)),
        Err(_) => Err(Error::Unavailable {
            endpoint: endpoint.to_owned(),
            op,
            reason: format!("no answer within {timeout:?}"),
        }),
    }
}

/// Runs `future` on the client's runtime, from any thread
/// (`strata_engine::util::runtime_wait`).
fn wait_on<F>(runtime: &Runtime, future: F) -> std::result::Result<F::Output, String>
where
    F: Future + Send,
    F::Output: Send,
{
    strata_engine::util::runtime_wait::block_on(runtime, future)
        .map_err(|e| format!("cannot start a thread to wait for etcd: {e}"))
}

fn map_error(endpoint: &str, op: &'static str, error: etcd_client::Error) -> Error {
    let reason = error.to_string();
    match &error {
        etcd_client::Error::GRpcStatus(status) if status.message().contains("lease not found") => {
            Error::NotFound(format!("etcd lease: {}", status.message()))
        }
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
        let response = self.run("txn", async move { client.txn(request).await })?;
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

    fn keep_alive(&self, lease: LeaseId) -> Result<bool> {
        match self.run("lease keepalive", self.keep_alive_once(lease)) {
            // etcd expired or revoked the lease meanwhile. etcd-client reports that as an
            // error ("lease keep alive error: lease not found") rather than as a TTL of 0
            // (seen with etcd 3.4 after a pause longer than the TTL): the same answer,
            // gone for good.
            Err(e) if e.to_string().contains("lease not found") => Ok(false),
            other => other,
        }
    }

    fn revoke_lease(&self, lease: LeaseId) -> Result<()> {
        let mut client = self.client.clone();
        let revoked = self.run(
            "lease revoke",
            async move { client.lease_revoke(lease).await },
        );
        self.runtime
            .block_on(async { self.keepalives.lock().await.remove(&lease) });
        match revoked {
            Ok(_) | Err(Error::NotFound(_)) => Ok(()),
            Err(e) => Err(e),
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
                let _ = sender.send(Err(map_error(&endpoint, "watch", e)));
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
