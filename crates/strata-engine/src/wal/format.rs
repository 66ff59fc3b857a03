//! WAL format version 1: segment file names, the segment header and record framing.
//!
//! ```text
//! segment  := header record*
//! header   := magic[8] = "STRATWAL" | version: u32 LE = 1 | segment number: u64 LE
//!             | crc: u32 LE = CRC32C(the 20 bytes before it)
//! record   := len: u32 LE (payload bytes) | crc: u32 LE = CRC32C(type | payload)
//!             | type: u8 | payload[len]
//! ```
//!
//! The byte-level spec, with the replay rules, is `docs/format.md`, "Write-ahead log".

use crate::util::crc::crc32c;

/// First bytes of every segment.
pub const SEGMENT_MAGIC: [u8; 8] = *b"STRATWAL";
/// The segment format version this code writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes in a segment header: magic, version, segment number, checksum.
pub const SEGMENT_HEADER_LEN: usize = 8 + 4 + 8 + 4;
/// Bytes in a record header: length, checksum, type.
pub const RECORD_HEADER_LEN: usize = 4 + 4 + 1;
/// Largest payload accepted on write and on read. Checked before any buffer is allocated, so
/// a damaged length field can never make replay allocate gigabytes.
pub const MAX_RECORD_LEN: usize = 256 << 20;
/// Record type of a [`WalEdit`](super::WalEdit) payload. Type 0 is never written, so a
/// zero-filled tail never looks like a record.
pub const RECORD_TYPE_EDIT: u8 = 1;

const SEGMENT_PREFIX: &str = "wal-";
/// Group 0's directory: the WAL's directory from before groups, so a data directory
/// written by a single WAL opens as group 0 unchanged.
const GROUP_ZERO_DIR: &str = "wal";
const GROUP_DIR_PREFIX: &str = "wal-group-";
const SEGMENT_SUFFIX: &str = ".log";
const SEGMENT_DIGITS: usize = 20;

/// The file name of segment `number`: `wal-<20-digit zero-padded number>.log`. The padding
/// makes lexicographic order equal numeric order.
pub fn segment_file_name(number: u64) -> String {
    format!(
        "{SEGMENT_PREFIX}{number:0width$}{SEGMENT_SUFFIX}",
        width = SEGMENT_DIGITS
    )
}

/// The segment number in a file name, or `None` if the name is not a WAL segment.
pub fn parse_segment_file_name(name: &str) -> Option<u64> {
    let digits = name
        .strip_prefix(SEGMENT_PREFIX)?
        .strip_suffix(SEGMENT_SUFFIX)?;
    if digits.len() != SEGMENT_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The directory (at a WAL volume's root) of WAL group `group`: `wal` for group 0,
/// `wal-group-<group>` (decimal, no leading zeros) for the others.
pub fn group_dir_name(group: usize) -> String {
    if group == 0 {
        GROUP_ZERO_DIR.to_string()
    } else {
        format!("{GROUP_DIR_PREFIX}{group}")
    }
}

/// The group whose directory is named `name`, or `None` if it names no WAL group.
pub fn parse_group_dir_name(name: &str) -> Option<usize> {
    if name == GROUP_ZERO_DIR {
        return Some(0);
    }
    let digits = name.strip_prefix(GROUP_DIR_PREFIX)?;
    let canonical = !digits.is_empty()
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    // Only the canonical spelling, so one group never has two directories on a volume.
    canonical.then(|| digits.parse().ok()).flatten()
}

/// The header that opens segment `number`.
pub fn encode_segment_header(number: u64) -> [u8; SEGMENT_HEADER_LEN] {
    let mut header = [0u8; SEGMENT_HEADER_LEN];
    header[0..8].copy_from_slice(&SEGMENT_MAGIC);
    header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[12..20].copy_from_slice(&number.to_le_bytes());
    let crc = crc32c(&header[..20]);
    header[20..24].copy_from_slice(&crc.to_le_bytes());
    header
}

/// Checks a segment header against the number in the file name; `Err` carries the reason.
pub fn check_segment_header(bytes: &[u8], expected_number: u64) -> Result<(), String> {
    if bytes.len() < SEGMENT_HEADER_LEN {
        return Err(format!(
            "segment header is {} bytes, expected {SEGMENT_HEADER_LEN}",
            bytes.len()
        ));
    }
    if bytes[0..8] != SEGMENT_MAGIC {
        return Err("bad segment magic".into());
    }
    let stored_crc = le_u32(&bytes[20..24]);
    if crc32c(&bytes[..20]) != stored_crc {
        return Err("segment header checksum mismatch".into());
    }
    let version = le_u32(&bytes[8..12]);
    if version != FORMAT_VERSION {
        return Err(format!("unsupported WAL format version {version}"));
    }
    let number = le_u64(&bytes[12..20]);
    if number != expected_number {
        return Err(format!(
            "header says segment {number}, file name says {expected_number}"
        ));
    }
    Ok(())
}

/// Builds one framed record: `write_payload` appends the payload, then the length and the
/// checksum are filled in, so the payload is encoded in place without a second copy.
/// Returns the payload length as `Err` if it exceeds [`MAX_RECORD_LEN`].
pub fn encode_record(
    record_type: u8,
    write_payload: impl FnOnce(&mut Vec<u8>),
) -> Result<Vec<u8>, usize> {
    let mut buf = vec![0u8; RECORD_HEADER_LEN - 1];
    buf.push(record_type);
    write_payload(&mut buf);
    let payload_len = buf.len() - RECORD_HEADER_LEN;
    if payload_len > MAX_RECORD_LEN {
        return Err(payload_len);
    }
    let crc = crc32c(&buf[RECORD_HEADER_LEN - 1..]);
    buf[0..4].copy_from_slice(&(payload_len as u32).to_le_bytes());
    buf[4..8].copy_from_slice(&crc.to_le_bytes());
    Ok(buf)
}

/// The fixed-size front of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// Payload length (excluding the type byte).
    pub len: u32,
    /// CRC32C over the type byte and the payload.
    pub crc: u32,
    /// What the payload is.
    pub record_type: u8,
}

impl RecordHeader {
    /// Parses the first [`RECORD_HEADER_LEN`] bytes of `bytes`; `None` if it is shorter.
    pub fn decode(bytes: &[u8]) -> Option<RecordHeader> {
        let header = bytes.get(..RECORD_HEADER_LEN)?;
        Some(RecordHeader {
            len: le_u32(&header[0..4]),
            crc: le_u32(&header[4..8]),
            record_type: header[8],
        })
    }

    /// True when `payload` matches the stored checksum.
    pub fn checksum_matches(&self, payload: &[u8]) -> bool {
        crate::util::crc::crc32c_parts(&[&[self.record_type], payload]) == self.crc
    }
}

fn le_u32(bytes: &[u8]) -> u32 {
    let mut raw = [0u8; 4];
    raw.copy_from_slice(bytes);
    u32::from_le_bytes(raw)
}

fn le_u64(bytes: &[u8]) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(bytes);
    u64::from_le_bytes(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip_and_sort_numerically() {
        assert_eq!(segment_file_name(7), "wal-00000000000000000007.log");
        assert_eq!(
            parse_segment_file_name(&segment_file_name(u64::MAX)),
            Some(u64::MAX)
        );
        assert!(segment_file_name(9) < segment_file_name(10));
        for bad in [
            "wal-7.log",
            "wal-0000000000000000000x.log",
            "x.log",
            "wal-00000000000000000007.tmp",
        ] {
            assert_eq!(parse_segment_file_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn group_directory_names_round_trip() {
        assert_eq!(group_dir_name(0), "wal");
        assert_eq!(group_dir_name(3), "wal-group-3");
        for group in [0, 1, 9, 10, 63] {
            assert_eq!(parse_group_dir_name(&group_dir_name(group)), Some(group));
        }
        for bad in [
            "wal-group-",
            "wal-group-0",
            "wal-group-01",
            "wal-group-x",
            "wals",
            "regions",
        ] {
            assert_eq!(parse_group_dir_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn header_checks_every_field() {
        let header = encode_segment_header(42);
        assert_eq!(check_segment_header(&header, 42), Ok(()));
        assert!(check_segment_header(&header, 43).is_err());
        assert!(check_segment_header(&header[..23], 42).is_err());
        for i in 0..SEGMENT_HEADER_LEN {
            let mut bad = header;
            bad[i] ^= 0x10;
            assert!(
                check_segment_header(&bad, 42).is_err(),
                "flip at {i} accepted"
            );
        }
    }

    #[test]
    fn record_framing_round_trips() {
        let rec = encode_record(RECORD_TYPE_EDIT, |b| b.extend_from_slice(b"abc")).unwrap();
        let header = RecordHeader::decode(&rec).unwrap();
        assert_eq!(header.len, 3);
        assert_eq!(header.record_type, RECORD_TYPE_EDIT);
        assert!(header.checksum_matches(&rec[RECORD_HEADER_LEN..]));
        assert!(!header.checksum_matches(b"abd"));
        assert_eq!(RecordHeader::decode(&rec[..8]), None);
    }
}
