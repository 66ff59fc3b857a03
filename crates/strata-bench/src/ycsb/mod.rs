//! YCSB's core workloads A–F with YCSB's key names, field layout, operation mix and request
//! distributions, as a `load` phase (insert `records` records) and a `run` phase (`operations`
//! operations of the chosen workload).

pub mod counter;
pub mod generator;
pub mod keys;
pub mod run;
pub mod workload;

pub use run::{load, run, YcsbOptions};
pub use workload::{CoreWorkload, Distribution, Operation};
