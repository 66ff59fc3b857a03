//! The read path: merging sources, applying HBase's visibility rules, and assembling rows.

pub mod bounded;
pub mod deletes;
pub mod matcher;
pub mod merge;
pub mod row;
pub mod scanner;

#[cfg(test)]
mod tests;
