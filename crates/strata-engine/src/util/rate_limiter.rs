//! A token-bucket I/O rate limiter.
