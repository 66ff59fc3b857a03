//! WAL stream records: which dead servers' streams a new master already replayed and
//! flushed, so the next recovery skips them (their objects wait for the collector).

use crate::coordinator::{KvCoordinator, Leadership};
use crate::error::Result;
use crate::keys::check_name;
use crate::kv::{MetaKv, Txn};
use crate::records::{encode, StreamRecord, FORMAT_VERSION};
use crate::session::put;

impl<K: MetaKv> KvCoordinator<K> {
    /// Records that `stream` needs no more replay. Master only.
    pub fn retire_stream(&self, master: &Leadership, stream: &str) -> Result<()> {
        check_name("stream name", stream)?;
        let key = self.keys.stream(stream);
        let record = StreamRecord {
            v: FORMAT_VERSION,
            state: "replayed".to_string(),
        };
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![put(&key, encode(&record)?, None)],
        };
        self.master_txn(master, txn, || format!("stream {stream} record"))
            .map(|_| ())
    }

    /// The names of the streams no recovery needs to read.
    pub fn retired_streams(&self) -> Result<Vec<String>> {
        let prefix = self.keys.streams();
        let (kvs, _) = self.kv.range_prefix(&prefix)?;
        Ok(kvs
            .iter()
            .filter_map(|kv| kv.key.strip_prefix(&prefix).map(str::to_owned))
            .collect())
    }
}
