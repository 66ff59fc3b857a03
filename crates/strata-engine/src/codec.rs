//! The engine's byte encodings, for crates that persist or ship bytes in the same shapes
//! (the server's catalog, the object-store WAL archive): varint and length-prefixed coding,
//! CRC32C, and the WAL's record framing with its edit payload ([`WalEdit`]).

pub use crate::util::coding::{put_len_prefixed, put_varint, Decoder};
pub use crate::util::crc::crc32c;
pub use crate::wal::format::{
    encode_record, RecordHeader, MAX_RECORD_LEN, RECORD_HEADER_LEN, RECORD_TYPE_EDIT,
};
pub use crate::wal::WalEdit;
