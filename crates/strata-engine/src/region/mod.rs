//! A region: a row-key range of a table, with one store per column family.

pub mod mvcc;
