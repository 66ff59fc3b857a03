//! The internal iterator every sorted source implements (memstore, SSTable, merged view).
//! Keys are internal keys (see [`crate::key`]); values are raw cell values.

use crate::error::Result;

/// A positioned cursor over (internal key, value) pairs in ascending key order.
pub trait KvIter: Send {
    /// Positions at the first entry whose key is >= `target`.
    fn seek(&mut self, target: &[u8]) -> Result<()>;
    /// [`KvIter::seek`] to a `target` after the current key, in a forward pass positioned
    /// by a seek: a merged iterator may then leave alone the sources already at or past it
    /// (they hold nothing between), instead of searching each again. The default seeks.
    fn seek_forward(&mut self, target: &[u8]) -> Result<()> {
        self.seek(target)
    }
    /// Positions at the first entry.
    fn seek_to_first(&mut self) -> Result<()>;
    /// True while positioned at an entry.
    fn valid(&self) -> bool;
    /// The current key. Only call while `valid()`.
    fn key(&self) -> &[u8];
    /// The current value. Only call while `valid()`.
    fn value(&self) -> &[u8];
    /// The current value as shared bytes. Sources that hold values in `Bytes` (memstores,
    /// cached blocks) return a reference-counted slice instead of a copy.
    fn value_bytes(&self) -> bytes::Bytes {
        bytes::Bytes::copy_from_slice(self.value())
    }
    /// Moves to the next entry.
    fn next(&mut self) -> Result<()>;
    /// The greatest key strictly less than `target`, if any. Used by reverse scans to find the
    /// previous row. It may leave the iterator unpositioned: callers `seek` afterwards.
    fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>>;
}
