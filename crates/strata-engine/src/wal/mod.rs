//! The write-ahead log: segmented, CRC32C-framed, group commit.
