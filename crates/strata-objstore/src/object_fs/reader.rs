//! Reading an object with ranged GETs, for SSTables this process did not write (a region
//! that moved here) and manifests.

use bytes::Bytes;
use object_store::path::Path as ObjectPath;
use strata_engine::fs::RandomAccessFile;
use strata_engine::{Error, Result};

use crate::retry::RetryPolicy;
use crate::store::BlockingStore;

/// An object read by range; its length comes from the HEAD at open.
pub(super) struct RemoteFile {
    pub(super) store: BlockingStore,
    pub(super) retry: RetryPolicy,
    pub(super) key: ObjectPath,
    pub(super) len: u64,
}

impl RandomAccessFile for RemoteFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let end = offset.saturating_add(len as u64);
        if end > self.len {
            return Err(Error::corruption(
                self.key.as_ref(),
                offset,
                format!("read of {len} bytes past the end ({} bytes)", self.len),
            ));
        }
        if len == 0 {
            return Ok(Vec::new());
        }
        let bytes: Bytes = self
            .retry
            .run(|| self.store.get_range(&self.key, offset..end))
            .map_err(crate::Error::into_engine_error)?;
        if bytes.len() != len {
            return Err(Error::corruption(
                self.key.as_ref(),
                offset,
                format!(
                    "store returned {} bytes for a {len}-byte range",
                    bytes.len()
                ),
            ));
        }
        Ok(bytes.to_vec())
    }

    fn len(&self) -> u64 {
        self.len
    }
}
