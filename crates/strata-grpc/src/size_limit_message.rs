//! Names the config key in tonic's refusal of a message over `grpc_max_request_bytes`.
//!
//! Why here: tonic checks the size while decoding, before any of our code sees the request,
//! and answers OUT_OF_RANGE in its own words ("decoded message length too large: found …
//! bytes, the limit is: … bytes"). Every other limit's error names its `[limits]` key, so an
//! operator knows which setting to change; this layer appends the key to that one message
//! on its way out (tonic sends such a refusal in the response headers).

use tonic::codegen::http::{self, HeaderValue};

const GRPC_STATUS: &str = "grpc-status";
const GRPC_MESSAGE: &str = "grpc-message";
/// `tonic::Code::OutOfRange` on the wire.
const OUT_OF_RANGE: &[u8] = b"11";
/// tonic's wording for both directions, as it percent-encodes it into the header.
const TONIC_SIZE_REFUSAL: &[u8] = b"message%20length%20too%20large";
/// Appended to the header as it is sent: percent-encoded, as clients decode it.
const KEY_SUFFIX: &[u8] = b"%20(limits.grpc_max_request_bytes)";

/// Appends the key to a size refusal; leaves every other response as it is.
pub fn name_the_key<B>(mut response: http::Response<B>) -> http::Response<B> {
    let headers = response.headers_mut();
    if headers.get(GRPC_STATUS).map(HeaderValue::as_bytes) != Some(OUT_OF_RANGE) {
        return response;
    }
    let Some(message) = headers.get(GRPC_MESSAGE).map(HeaderValue::as_bytes) else {
        return response;
    };
    if !message
        .windows(TONIC_SIZE_REFUSAL.len())
        .any(|w| w == TONIC_SIZE_REFUSAL)
    {
        return response;
    }
    let named = [message, KEY_SUFFIX].concat();
    if let Ok(value) = HeaderValue::from_bytes(&named) {
        headers.insert(GRPC_MESSAGE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: &str, message: &str) -> http::Response<()> {
        http::Response::builder()
            .header(GRPC_STATUS, status)
            .header(GRPC_MESSAGE, message)
            .body(())
            .unwrap()
    }

    fn message_of(response: &http::Response<()>) -> &str {
        response.headers()[GRPC_MESSAGE].to_str().unwrap()
    }

    #[test]
    fn only_tonics_size_refusal_gets_the_key() {
        let refusal = "Error,%20decoded%20message%20length%20too%20large:%20found%209000%20bytes";
        let named = name_the_key(response("11", refusal));
        assert!(message_of(&named).ends_with("%20(limits.grpc_max_request_bytes)"));
        let other = name_the_key(response("11", "row%20range%20out%20of%20range"));
        assert_eq!(message_of(&other), "row%20range%20out%20of%20range");
        let not_out_of_range = name_the_key(response("3", refusal));
        assert_eq!(message_of(&not_out_of_range), refusal);
    }
}
