//! Offline inspection of the engine's files, for tools that read a data directory without
//! opening an [`Engine`](crate::Engine) (the `strata` CLI's `check`, `sst` and `wal`
//! commands). Read-only: nothing here writes. The shapes these functions return are
//! re-exported with them, so callers can name what they get back.

pub use crate::key::{parse_key, ParsedKey};
pub use crate::manifest::format::{encode_manifest, DecodedManifest};
pub use crate::manifest::inspect::{read_manifest, ManifestRead};
pub use crate::manifest::{parse_manifest_file_name, FileOrigin, ManifestState, StoreFileEntry};
pub use crate::snapshot::{decode_descriptor, DESCRIPTOR_FILE, SNAPSHOTS_DIR};
pub use crate::table::format::{BlockHandle, Trailer};
pub use crate::table::inspect::{IndexEntry, InspectedTable, TableCheck, TableEntry};
pub use crate::table::TableMeta;
pub use crate::wal::format::{group_dir_name, parse_group_dir_name, parse_segment_file_name};
pub use crate::wal::inspect::{inspect_segment, SegmentSummary};
