//! The read path: merging sources, applying HBase's visibility rules, and assembling rows.

pub mod bounded;
pub mod deletes;
pub mod matcher;
pub mod merge;
pub mod row;

#[cfg(test)]
mod tests;
