//! Offline inspection of the engine's files, for tools that read a data directory without
//! opening an [`Engine`](crate::Engine) (the `strata` CLI's `check`, `sst` and `wal`
//! commands). Read-only: nothing here writes.

pub use crate::key::parse_key;
pub use crate::manifest::inspect::{read_manifest, ManifestRead};
pub use crate::manifest::{parse_manifest_file_name, ManifestState, StoreFileEntry};
pub use crate::table::inspect::{InspectedTable, TableEntry};
pub use crate::wal::format::parse_segment_file_name;
pub use crate::wal::inspect::inspect_segment;
