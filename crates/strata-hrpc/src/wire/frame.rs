//! Request and response frames.
//!
//! A request is `u32 length | varint-delimited RequestHeader | varint-delimited parameter |
//! cell block`; a response mirrors it with a ResponseHeader. The connection header alone
//! is `u32 length | protobuf` without a varint. The length is read and checked against the
//! limit before any buffer for the frame is allocated.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;

use super::WireError;
use crate::pb;

/// A request frame, split into its parts.
#[derive(Debug, Clone)]
pub struct Request {
    pub header: pb::RequestHeader,
    /// The encoded parameter message (empty when the header says there is none).
    pub param: Bytes,
    /// The cell block that follows the parameter (empty when there is none).
    pub cells: Bytes,
}

/// Checks a frame's declared length against `limit`.
pub fn check_len(len: u32, limit: usize) -> Result<usize, WireError> {
    let len = len as usize;
    if len > limit {
        return Err(WireError::FrameTooLarge {
            len: len as u64,
            limit,
        });
    }
    Ok(len)
}

/// Splits one request frame's payload (the bytes after its length).
pub fn decode_request(mut payload: Bytes) -> Result<Request, WireError> {
    let header = pb::RequestHeader::decode_length_delimited(&mut payload)
        .map_err(|e| WireError::protobuf("request header", e))?;
    let param = if header.request_param() {
        take_delimited(&mut payload)?
    } else {
        Bytes::new()
    };
    let cell_len = header
        .cell_block_meta
        .as_ref()
        .map(|meta| meta.length() as usize)
        .unwrap_or(0);
    if payload.len() != cell_len {
        return Err(WireError::CellBlock(format!(
            "header announces {cell_len} bytes of cells, the frame holds {}",
            payload.len()
        )));
    }
    Ok(Request {
        header,
        param,
        cells: payload,
    })
}

/// Takes one varint-delimited message's bytes without decoding them.
fn take_delimited(buf: &mut Bytes) -> Result<Bytes, WireError> {
    let len = prost::encoding::decode_varint(buf)
        .map_err(|e| WireError::protobuf("parameter length", e))?;
    let len = usize::try_from(len).map_err(|_| WireError::Truncated("parameter"))?;
    if buf.remaining() < len {
        return Err(WireError::Truncated("parameter"));
    }
    Ok(buf.split_to(len))
}

/// Decodes the connection header's payload.
pub fn decode_connection_header(payload: Bytes) -> Result<pb::ConnectionHeader, WireError> {
    pb::ConnectionHeader::decode(payload).map_err(|e| WireError::protobuf("connection header", e))
}

/// Encodes a whole response frame, its length first.
pub fn encode_response(header: &pb::ResponseHeader, body: Option<&[u8]>, cells: &[u8]) -> Bytes {
    let header_len = header.encoded_len();
    let mut len = prost::length_delimiter_len(header_len) + header_len + cells.len();
    if let Some(body) = body {
        len += prost::length_delimiter_len(body.len()) + body.len();
    }
    let mut out = BytesMut::with_capacity(4 + len);
    out.put_u32(len as u32);
    // Encoding into a BytesMut with enough capacity reserved cannot fail.
    let _ = header.encode_length_delimited(&mut out);
    if let Some(body) = body {
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        out.put_slice(body);
    }
    out.put_slice(cells);
    out.freeze()
}

/// Encodes a request frame (what a client sends; for tests and the fuzz targets). The
/// parameter is written only when the header says there is one, as [`decode_request`]
/// reads it.
pub fn encode_request(header: &pb::RequestHeader, param: &[u8], cells: &[u8]) -> Bytes {
    let header_len = header.encoded_len();
    let param_len = if header.request_param() {
        prost::length_delimiter_len(param.len()) + param.len()
    } else {
        0
    };
    let len = prost::length_delimiter_len(header_len) + header_len + param_len + cells.len();
    let mut out = BytesMut::with_capacity(4 + len);
    out.put_u32(len as u32);
    let _ = header.encode_length_delimited(&mut out);
    if header.request_param() {
        prost::encoding::encode_varint(param.len() as u64, &mut out);
        out.put_slice(param);
    }
    out.put_slice(cells);
    out.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(call_id: u32, method: &str, cells: usize) -> pb::RequestHeader {
        pb::RequestHeader {
            call_id: Some(call_id),
            method_name: Some(method.to_string()),
            request_param: Some(true),
            cell_block_meta: (cells > 0).then_some(pb::CellBlockMeta {
                length: Some(cells as u32),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_request_splits_into_header_parameter_and_cells() {
        let param = pb::GetClusterIdResponse {
            cluster_id: Some("abc".into()),
        }
        .encode_to_vec();
        let frame = encode_request(&header(7, "Get", 3), &param, b"xyz");
        let mut payload = frame.slice(4..);
        assert_eq!(
            frame.len() - 4,
            u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize
        );
        let request = decode_request(payload.split_off(0)).unwrap();
        assert_eq!(request.header.call_id(), 7);
        assert_eq!(request.header.method_name(), "Get");
        assert_eq!(&request.param[..], &param[..]);
        assert_eq!(&request.cells[..], b"xyz");
    }

    #[test]
    fn a_cell_block_of_the_wrong_length_is_refused() {
        let frame = encode_request(&header(1, "Multi", 5), b"", b"xyz");
        let error = decode_request(frame.slice(4..)).unwrap_err();
        assert!(matches!(error, WireError::CellBlock(_)), "{error}");
    }

    #[test]
    fn a_truncated_parameter_is_refused() {
        let frame = encode_request(&header(1, "Get", 0), b"0123456789", b"");
        let cut = frame.slice(4..frame.len() - 3);
        assert_eq!(
            decode_request(cut).unwrap_err(),
            WireError::Truncated("parameter")
        );
    }

    #[test]
    fn lengths_over_the_limit_are_refused_before_reading() {
        assert_eq!(check_len(10, 10), Ok(10));
        assert!(matches!(
            check_len(u32::MAX, 1 << 20),
            Err(WireError::FrameTooLarge { .. })
        ));
    }

    #[test]
    fn a_response_frame_carries_its_length_header_body_and_cells() {
        let header = pb::ResponseHeader {
            call_id: Some(9),
            ..Default::default()
        };
        let frame = encode_response(&header, Some(b"body"), b"cells");
        let mut payload = frame.slice(4..);
        assert_eq!(
            payload.len(),
            u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize
        );
        let decoded = pb::ResponseHeader::decode_length_delimited(&mut payload).unwrap();
        assert_eq!(decoded.call_id(), 9);
        let body = take_delimited(&mut payload).unwrap();
        assert_eq!(&body[..], b"body");
        assert_eq!(&payload[..], b"cells");
    }
}
