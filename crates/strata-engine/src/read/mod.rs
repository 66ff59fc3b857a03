//! The read path: merging sources, applying HBase's visibility rules, and assembling rows.

pub mod matcher;
pub mod merge;
pub mod row;

#[cfg(test)]
mod tests;
