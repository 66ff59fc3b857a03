//! The store manifest: the live file set of one store, written atomically.
