//! Sorted key/value blocks with restart-point prefix compression, used for data blocks and
//! for the index block.
//!
//! Raw layout (before framing, see [`super::frame`]):
//!
//! ```text
//! entry*  restart_offset: u32 LE * n  n: u32 LE
//! entry = varint shared | varint unshared | varint value_len | key[shared..] | value
//! ```
//!
//! `shared` is the length of the prefix the key has in common with the previous entry's key.
//! At a restart point `shared` is 0, so a reader can binary-search the restart points and
//! decode forward from any of them.

mod builder;
mod iter;
mod reader;

pub mod prefix_index;

pub use builder::BlockBuilder;
pub use iter::BlockIter;
pub use reader::Block;

/// Entries between restart points for [`crate::options::DataBlockEncoding::Prefix`].
pub const PREFIX_RESTART_INTERVAL: usize = 16;

#[cfg(test)]
mod tests;
