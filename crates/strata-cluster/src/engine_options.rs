//! The engine on the object store: every server opens its engine with the tables' files
//! as objects, the WAL as its own stream, and manifests by pointer in etcd.

use std::path::PathBuf;
use std::sync::Arc;

use strata_engine::{EngineOptions, ManifestPointers};
use strata_objstore::{ObjectFs, ObjectWalOpener, StreamProgress};

use crate::node::ClusterNode;
use crate::objects::DATA_ROOT;

/// Points `engine` at the object store: tables' files as objects (with local copies of
/// this server's own writes under `cache_dir`), the WAL as this server's stream, and
/// manifests by pointer through `pointers`. The engine replays no stream as it opens:
/// each region replays a dead owner's edits as it opens here (`recovered.rs`).
pub fn cluster_engine_options(
    node: &ClusterNode,
    mut engine: EngineOptions,
    pointers: Arc<dyn ManifestPointers>,
    progress: Arc<StreamProgress>,
    cache_dir: PathBuf,
) -> EngineOptions {
    let deps = node.writer_deps();
    engine.data_dir = PathBuf::from(DATA_ROOT);
    // Volumes describe local devices; in cluster mode every durable file is an object.
    engine.volumes = Vec::new();
    engine.placement = None;
    engine.fs = Arc::new(ObjectFs::new(
        node.store.clone(),
        deps.retry.clone(),
        Some(cache_dir),
    ));
    engine.wal_backend = Some(Arc::new(
        ObjectWalOpener::new(node.store.clone(), node.stream(), deps)
            .replaying(Vec::new())
            .with_progress(progress)
            .with_ack_gate(node.ack_gate()),
    ));
    engine.manifest_pointers = Some(pointers);
    engine
}
