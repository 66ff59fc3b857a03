//! WAL stream records: which dead servers' streams a new master already replayed and
//! flushed, so the next recovery skips them (their objects wait for the collector).

use crate::coordinator::{KvCoordinator, Leadership};
use crate::error::Result;
use crate::keys::check_name;
use crate::kv::{MetaKv, Txn};
use crate::lease::Lease;
use crate::records::{decode, encode, StreamRecord, FORMAT_VERSION};
use crate::session::put;

impl<K: MetaKv> KvCoordinator<K> {
    /// Records that `stream` needs no more replay. Master only.
    pub fn retire_stream(&self, master: &Leadership, stream: &str) -> Result<()> {
        check_name("stream name", stream)?;
        let key = self.keys.stream(stream);
        let record = StreamRecord {
            v: FORMAT_VERSION,
            state: "replayed".to_string(),
            first_live_id: None,
        };
        self.put_stream(master, &key, &record, stream)
    }

    /// Records that objects of `stream` below `first_live_id` hold only flushed edits, so
    /// a recovery starts there. Master only (the master writes its own stream's record).
    pub fn publish_stream_progress(
        &self,
        master: &Leadership,
        stream: &str,
        first_live_id: u64,
    ) -> Result<()> {
        check_name("stream name", stream)?;
        let key = self.keys.stream(stream);
        let record = StreamRecord {
            v: FORMAT_VERSION,
            state: "live".to_string(),
            first_live_id: Some(first_live_id),
        };
        self.put_stream(master, &key, &record, stream)
    }

    /// Records where a recovery of this server's own live `stream` starts, while its
    /// lease is valid by its own clock (every server keeps its stream's record current, so
    /// replaying it after a crash stays bounded). The record outlives the lease.
    pub fn publish_own_stream_progress(
        &self,
        lease: &Lease,
        stream: &str,
        first_live_id: u64,
    ) -> Result<()> {
        check_name("stream name", stream)?;
        let record = StreamRecord {
            v: FORMAT_VERSION,
            state: "live".to_string(),
            first_live_id: Some(first_live_id),
        };
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![put(&self.keys.stream(stream), encode(&record)?, None)],
        };
        self.leased_txn(lease, &txn).map(|_| ())
    }

    fn put_stream(
        &self,
        master: &Leadership,
        key: &str,
        record: &StreamRecord,
        stream: &str,
    ) -> Result<()> {
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![put(key, encode(record)?, None)],
        };
        self.master_txn(master, txn, || format!("stream {stream} record"))
            .map(|_| ())
    }

    /// Every stream record, by stream name.
    pub fn stream_records(&self) -> Result<Vec<(String, StreamRecord)>> {
        let prefix = self.keys.streams();
        let (kvs, _) = self.kv.range_prefix(&prefix)?;
        kvs.iter()
            .map(|kv| {
                let name = kv.key.strip_prefix(&prefix).unwrap_or(&kv.key).to_owned();
                Ok((name, decode(&kv.key, &kv.value)?))
            })
            .collect()
    }

    /// The names of the streams no recovery needs to read.
    pub fn retired_streams(&self) -> Result<Vec<String>> {
        Ok(self
            .stream_records()?
            .into_iter()
            .filter(|(_, record)| record.state == "replayed")
            .map(|(name, _)| name)
            .collect())
    }
}
