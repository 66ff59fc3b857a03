//! The crate's error: which piece of infrastructure failed, named so an operator knows
//! where to look (the etcd endpoints, the store URL).

/// Why joining, taking over or serving in cluster mode failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is missing or malformed.
    #[error("cluster configuration: {0}")]
    Config(String),
    /// etcd could not be reached or refused a request.
    #[error("etcd at {endpoints}: {source}")]
    Etcd {
        endpoints: String,
        #[source]
        source: strata_coord::Error,
    },
    /// The object store could not be reached, or cannot fence (non-atomic create).
    #[error("object store {url}: {source}")]
    Store {
        url: String,
        #[source]
        source: strata_objstore::Error,
    },
    /// The garbage collector cannot tell what is live (an unreadable manifest, catalog),
    /// or may not delete (not the master): the pass deletes nothing.
    #[error("garbage collection: {0}")]
    Collector(String),
    /// The storage engine or service failed to open.
    #[error("{0}")]
    Service(String),
    /// A runtime or thread could not be started (the process is out of threads).
    #[error("cannot start {what}: {reason}")]
    Start { what: &'static str, reason: String },
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
