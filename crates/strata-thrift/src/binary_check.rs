//! Checks a complete binary-protocol message before volo decodes it: it never claims more
//! bytes than it has, every container in a request declares the element types the IDL gives
//! it, and the whole message holds at most [`MAX_REQUEST_ELEMENTS`] container elements.
//!
//! Why: pilota 0.13.1's synchronous binary reader (used for every framed message) takes
//! strings and binaries with an unchecked `split_to`, so a length field larger than the rest
//! of the frame panics the connection's task instead of failing the decode. Found by the
//! `thrift_framed` fuzz target (docs/reliability-fuzz.md). And pilota's generated decoders
//! check a field's type but not a container's element types: they read the IDL's types and
//! reserve whatever count they then read, so a map declaring (string, i64) where the IDL has
//! map<Text, Text> made them take string bytes for a count and reserve ~139 GB, aborting the
//! process (finding 7). So for a request whose method is known the walk follows the schema
//! (`schema_check.rs`); otherwise every binary value says its own type and size.

pub use crate::binary_walk::{CheckError, MAX_REQUEST_ELEMENTS};

use crate::binary_walk::{invalid, Walk};
use crate::compact::MAX_MESSAGE_BYTES;
use crate::schema;
use crate::schema_check::SchemaWalk;

/// The binary message type of an exception: volo decodes its body as an
/// `ApplicationException`, whatever the method name says.
const EXCEPTION_MESSAGE: u8 = 3;

/// The number of bytes of the complete binary message at the start of `input`.
pub fn binary_message_len(input: &[u8]) -> Result<usize, CheckError> {
    let mut walk = Walk::new(input, MAX_MESSAGE_BYTES);
    message(&mut walk)?;
    Ok(walk.pos)
}

/// Walks the strict binary message at the start of `input`; `Err` says where it overruns or
/// what is malformed. Bytes after the message are not looked at.
pub fn check_binary_message(input: &[u8]) -> Result<(), CheckError> {
    binary_message_len(input).map(|_| ())
}

/// [`check_binary_message`] for a message transcoded from compact: already in memory, and it
/// may be longer than the compact message it came from (varints widen), so its length is not
/// capped again.
pub fn check_transcoded_message(input: &[u8]) -> Result<(), CheckError> {
    let mut walk = Walk::new(input, input.len().max(MAX_MESSAGE_BYTES));
    message(&mut walk)
}

/// Walks a whole message: header, method name, then the body by the method's schema.
fn message(walk: &mut Walk<'_>) -> Result<(), CheckError> {
    let header = walk.i32()?;
    if header >= 0 {
        return invalid("not a strict binary message");
    }
    // The low four bits, as pilota reads them (it ignores the rest of the low half).
    let message_type = (header & 0x0f) as u8;
    let name_len = walk.len()?;
    let name_start = walk.pos;
    walk.skip(name_len)?;
    let name = &walk.input[name_start..walk.pos];
    // pilota reads the name as a str without checking (see schema_check.rs).
    if std::str::from_utf8(name).is_err() {
        return invalid("the method name is not UTF-8");
    }
    walk.skip(4)?; // sequence id
    if message_type == EXCEPTION_MESSAGE {
        return SchemaWalk::exception().body(walk);
    }
    match schema::method(name) {
        Some(method) => SchemaWalk::request(method).body(walk),
        // volo answers an unknown method with an exception without reading its body.
        None => walk.value(12, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::check_binary_message;

    /// strict header, name "m", seq 1, then `body` and the struct stop.
    fn message(body: &[u8]) -> Vec<u8> {
        let mut m = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 1, b'm', 0, 0, 0, 1];
        m.extend_from_slice(body);
        m.push(0);
        m
    }

    #[test]
    fn well_formed_messages_pass() {
        let string_field = [11, 0, 1, 0, 0, 0, 2, b'h', b'i'];
        assert_eq!(check_binary_message(&message(&string_field)), Ok(()));
        let list_of_i32 = [15, 0, 2, 8, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 9];
        assert_eq!(check_binary_message(&message(&list_of_i32)), Ok(()));
    }

    #[test]
    fn lengths_past_the_end_are_rejected() {
        let long_string = [11, 0, 1, 0x04, 0x63, 0x66, 0x3a, b'x'];
        assert!(check_binary_message(&message(&long_string)).is_err());
        let negative = [11, 0, 1, 0xff, 0xff, 0xff, 0xff];
        assert!(check_binary_message(&message(&negative)).is_err());
        let mut long_name = message(&[]);
        long_name[4..8].copy_from_slice(&1000i32.to_be_bytes());
        assert!(check_binary_message(&long_name).is_err());
    }
}
