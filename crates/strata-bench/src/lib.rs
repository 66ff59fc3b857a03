//! Benchmark workloads (filled in below).
