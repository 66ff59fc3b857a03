//! Compaction: choosing files (policy) and rewriting them.

pub mod policy;
pub mod rules;
