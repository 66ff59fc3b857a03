//! How to open a database: a friendly subset of the service's settings, with an escape hatch
//! to all of them.

use std::path::PathBuf;
use std::sync::Arc;

use strata_engine::Durability;
use strata_runtime::clock::Clock;
use strata_server::ServiceOptions;

/// Settings for [`Db::open_with`](crate::Db::open_with).
///
/// ```
/// use strata_db::{Durability, Options};
/// let options = Options::new("/tmp/strata-demo")
///     .memstore_limit(256 << 20)
///     .block_cache_bytes(64 << 20)
///     .durability(Durability::FsyncWal);
/// assert_eq!(options.default_durability(), Durability::FsyncWal);
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    service: ServiceOptions,
    durability: Durability,
}

impl Options {
    /// Standalone defaults (the server's) with data in `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Options {
            service: ServiceOptions::new(data_dir),
            durability: Durability::default(),
        }
    }

    /// Starts from complete service settings (everything the server can configure).
    pub fn from_service_options(service: ServiceOptions) -> Self {
        Options {
            service,
            durability: Durability::default(),
        }
    }

    /// Total memstore bytes before writers wait for flushes.
    pub fn memstore_limit(mut self, bytes: u64) -> Self {
        self.service.engine.memstore_limit = bytes;
        self
    }

    /// A region's memstores are flushed once they hold this many bytes.
    pub fn memstore_flush_size(mut self, bytes: u64) -> Self {
        self.service.engine.memstore_flush_size = bytes;
        self
    }

    /// Size of the block cache shared by every table.
    pub fn block_cache_bytes(mut self, bytes: u64) -> Self {
        self.service.engine.block_cache_bytes = bytes;
        self
    }

    /// A second block-cache level: a file of `bytes` in `dir` on a fast local device (SSD
    /// or tmpfs), holding data blocks evicted from the in-memory cache and kept across a
    /// clean close. Off by default.
    pub fn l2_cache(mut self, dir: impl Into<PathBuf>, bytes: u64) -> Self {
        self.service.engine.l2_cache = Some(strata_engine::L2Options {
            dir: dir.into(),
            capacity_bytes: bytes,
        });
        self
    }

    /// Memory for the row cache, which answers repeated point reads of the families with
    /// `row_cache` set (`FamilyOptions::row_cache`) without reading them again. 0 (the
    /// default) turns it off.
    pub fn row_cache_bytes(mut self, bytes: u64) -> Self {
        self.service.engine.row_cache_bytes = bytes;
        self
    }

    /// Durability of puts, deletes and check-and-mutates that do not choose their own, to
    /// tables without a DURABILITY of their own (default: `SyncWal`, which survives a
    /// process crash; `FsyncWal` also survives a power loss).
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Whether regions split by themselves as they grow (default: on).
    pub fn auto_split(mut self, enabled: bool) -> Self {
        self.service.split.enabled = enabled;
        self
    }

    /// The clock that stamps writes without a timestamp (tests inject a manual one).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.service.engine.clock = clock;
        self
    }

    /// The durability writes use unless they say otherwise.
    pub fn default_durability(&self) -> Durability {
        self.durability
    }

    /// The complete service settings these options map to.
    pub fn service_options(&self) -> &ServiceOptions {
        &self.service
    }

    pub(crate) fn into_parts(self) -> (ServiceOptions, Durability) {
        (self.service, self.durability)
    }
}
