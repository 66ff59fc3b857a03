//! The process-wide block cache.
