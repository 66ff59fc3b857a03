//! Opening the second level: what of the previous process's cache is kept.
//!
//! Kept only when all of these hold: the cache file is exactly the configured size, its
//! header decodes (magic, version, CRC) and records that size, and the index a clean close
//! wrote decodes (magic, version, CRC) and names the header's nonce. Anything else discards
//! the contents with a warning (the file is emptied and reused). The index is removed as
//! soon as it is read, and the header gets a new nonce, so an index can serve one open
//! only: after a crash there is none, and stale entries are never trusted.

use std::sync::atomic::{AtomicBool, AtomicU64};

use parking_lot::Mutex;

use super::device::{self, Device};
use super::format::{decode_index, FileHeader, FormatError, HEADER_REGION};
use super::ring::Ring;
use super::{L2Options, Shared, MIN_CAPACITY_BYTES};
use crate::error::{Error, Result};

/// Name of the cache file in the configured directory.
pub(super) const BLOCKS_FILE: &str = "blocks";
/// Name of the index a clean close writes.
pub(super) const INDEX_FILE: &str = "index";

/// Why the previous contents were not kept (for the warning).
enum Discard {
    /// No file yet: nothing to say.
    New,
    Format(FormatError),
    /// The file is intact but was not closed cleanly.
    NoIndex,
}

pub(super) fn open(options: &L2Options) -> Result<Shared> {
    let capacity = options.capacity_bytes;
    if capacity < MIN_CAPACITY_BYTES {
        return Err(Error::InvalidArgument(format!(
            "the L2 cache needs at least {MIN_CAPACITY_BYTES} bytes, {capacity} configured"
        )));
    }
    device::create_dir_all(&options.dir)?;
    let index_path = options.dir.join(INDEX_FILE);
    let index = device::read_file(&index_path)?;
    // Read once, used at most once (see the module comment).
    device::remove_file(&index_path)?;
    let path = options.dir.join(BLOCKS_FILE);
    let dev = Device::open(&path)?;
    let restored = match previous(&dev, capacity, index.as_deref())? {
        Ok(ring) => ring,
        Err(discard) => {
            match discard {
                Discard::New => {}
                Discard::Format(reason) => tracing::warn!(
                    path = %path.display(), %reason,
                    "discarding the L2 block cache: its file does not match"
                ),
                Discard::NoIndex => tracing::warn!(
                    path = %path.display(),
                    "discarding the L2 block cache: it was not closed cleanly"
                ),
            }
            dev.reset(capacity)?;
            Ring::new(HEADER_REGION, capacity)
        }
    };
    // A fresh file generation, only compared for equality: no replay depends on it.
    #[allow(clippy::disallowed_methods)]
    let nonce = rand::random::<u64>();
    dev.write_at(0, &FileHeader { capacity, nonce }.encode())?;
    dev.sync()?;
    let restored_entries = restored.len() as u64;
    if restored_entries > 0 {
        tracing::info!(
            entries = restored_entries,
            bytes = restored.used(),
            "L2 block cache kept from the previous clean close"
        );
    }
    Ok(Shared {
        device: dev,
        index_path,
        capacity,
        nonce,
        // Entries record their length in a u32.
        max_block: ((capacity - HEADER_REGION) / 4).min(u64::from(u32::MAX)),
        ring: Mutex::new(restored),
        queued_bytes: AtomicU64::new(0),
        hits: AtomicU64::new(0),
        misses: AtomicU64::new(0),
        writes: AtomicU64::new(0),
        evictions: AtomicU64::new(0),
        rejected: AtomicU64::new(0),
        corrupt: AtomicU64::new(0),
        restored: restored_entries,
        warned_corrupt: AtomicBool::new(false),
        warned_write: AtomicBool::new(false),
    })
}

/// The previous contents, if they are to be kept; I/O errors are errors (the device
/// itself is not usable), mismatches are a `Discard`.
fn previous(
    dev: &Device,
    capacity: u64,
    index: Option<&[u8]>,
) -> Result<std::result::Result<Ring, Discard>> {
    let len = dev.len()?;
    if len == 0 {
        return Ok(Err(Discard::New));
    }
    if len != capacity {
        let mismatch = FormatError::Capacity {
            configured: capacity,
            stored: len,
        };
        return Ok(Err(Discard::Format(mismatch)));
    }
    let header_len = usize::try_from(HEADER_REGION.min(len)).unwrap_or(0);
    let header = match FileHeader::decode(&dev.read_at(0, header_len)?, capacity) {
        Ok(header) => header,
        Err(e) => return Ok(Err(Discard::Format(e))),
    };
    let Some(index) = index else {
        return Ok(Err(Discard::NoIndex));
    };
    Ok(match decode_index(index, capacity, header.nonce) {
        Ok(index) => Ok(Ring::restore(HEADER_REGION, capacity, index)),
        Err(e) => Err(Discard::Format(e)),
    })
}
