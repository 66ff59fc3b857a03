//! Every server's periodic housekeeping, once a second: keep its live WAL stream short (ask
//! for a flush of the region pinning the oldest objects once too many are unflushed), and
//! publish where a recovery of its stream would start, so a region's next owner replays
//! only that; and publish the obsolete SSTables its readers still hold (`/held/<sid>`), so
//! the master's garbage collector leaves them; and every ten seconds, how busy each of its
//! regions is (`load_meter.rs`), for the balancer.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use strata_engine::Engine;
use strata_objstore::StreamProgress;

use crate::node::ClusterNode;
use crate::objects::{path_key, stream_name};

/// A server's housekeeping state. It holds the node weakly: the node owns runtimes
/// (etcd's client, the store's), so it must not be dropped by an async task.
pub struct Maintenance {
    node: Weak<ClusterNode>,
    progress: Arc<StreamProgress>,
    published: Mutex<u64>,
    /// The held set as last published (`None`: not yet).
    held: Mutex<Option<Vec<String>>>,
    load: crate::load_meter::LoadMeter,
}

impl Maintenance {
    /// Housekeeping of `node`'s stream, whose progress the WAL reports to `progress`.
    pub fn new(node: Arc<ClusterNode>, progress: Arc<StreamProgress>) -> Self {
        Maintenance {
            node: Arc::downgrade(&node),
            progress,
            published: Mutex::new(0),
            held: Mutex::new(None),
            load: crate::load_meter::LoadMeter::default(),
        }
    }

    /// One round; blocking (etcd).
    pub fn tick(&self, engine: &Engine) {
        engine.keep_wal_bounded();
        let Some(node) = self.node.upgrade() else {
            return;
        };
        self.publish_held(&node, engine);
        self.load.tick(&node, engine);
        let first_live = self.progress.first_live_id.load(Ordering::Acquire);
        let mut published = self.published.lock();
        if first_live <= *published {
            return;
        }
        let stream = stream_name(node.stream());
        match node
            .coord
            .publish_own_stream_progress(&node.lease, &stream, first_live)
        {
            Ok(()) => *published = first_live,
            Err(e) => tracing::warn!(stream, error = %e, "could not publish the stream's progress"),
        }
    }
}

impl Maintenance {
    /// Publishes the held set when it changed since it was last published.
    fn publish_held(&self, node: &ClusterNode, engine: &Engine) {
        let keys: Vec<String> = engine
            .held_obsolete_files()
            .iter()
            .filter_map(|path| path_key(path))
            .collect();
        let mut held = self.held.lock();
        if held.as_ref() == Some(&keys) {
            return;
        }
        match node.coord.publish_held(&node.lease, &node.sid, &keys) {
            Ok(()) => *held = Some(keys),
            Err(e) => tracing::warn!(error = %e, "could not publish the files readers hold"),
        }
    }
}
