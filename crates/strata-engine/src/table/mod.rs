//! SSTables: data blocks, index, bloom filter, metadata and trailer (see docs/format.md).
