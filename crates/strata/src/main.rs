//! The `strata` binary.

fn main() {}
