//! `hdfs://HOST:PORT/PATH` stores, through the `hdfs-native-object-store` crate (a pure-Rust
//! HDFS client: no JVM, no libhdfs). Behind the `hdfs` cargo feature, off by default: the
//! client costs about two CPU-minutes to compile, which builds that never meet HDFS should
//! not pay.
//!
//! Why fencing holds on HDFS: the crate writes a create-only PUT to a hidden temporary file
//! beside the key (`.NAME.tmp.N`) and then renames it onto the key *without* overwrite.
//! The NameNode performs that rename atomically and refuses it if the key exists, so of two
//! racing creates exactly one wins, which is what the start-up probe checks. A losing
//! racer's temporary file stays behind (the crate does not remove it); its name starts with
//! a dot, which no Strata object name does, and readers skip names they do not know.

use std::sync::Arc;

use object_store::ObjectStore;

use crate::error::{Error, Result};

/// Opens the NameNode `namenode` (`hdfs://HOST:PORT`) for the store URL `url`.
#[cfg(feature = "hdfs")]
pub(crate) fn open(url: &str, namenode: &str) -> Result<Arc<dyn ObjectStore>> {
    let store = hdfs_native_object_store::HdfsObjectStoreBuilder::new()
        .with_url(namenode)
        .build()
        .map_err(|e| {
            Error::InvalidArgument(format!("store URL {url:?}: cannot configure HDFS: {e}"))
        })?;
    Ok(Arc::new(store))
}

/// Without the feature an `hdfs://` URL is refused with the way to get it.
#[cfg(not(feature = "hdfs"))]
pub(crate) fn open(url: &str, _namenode: &str) -> Result<Arc<dyn ObjectStore>> {
    Err(Error::InvalidArgument(format!(
        "store URL {url:?}: this strata was built without HDFS support \
         (cargo build -p strata --features hdfs)"
    )))
}
