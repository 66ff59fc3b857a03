//! SSTables: data blocks, index, bloom filter, metadata and trailer (see docs/format.md).
pub mod block;
pub mod bloom;
pub mod builder;
pub mod compression;
pub mod format;
pub mod frame;
pub mod iter;
pub mod meta;
pub mod options;
pub mod reader;

pub use builder::TableBuilder;
pub use iter::TableIter;
pub use meta::TableMeta;
pub use options::{CachePolicy, TableOptions};
pub use reader::TableReader;

#[cfg(test)]
mod tests;
