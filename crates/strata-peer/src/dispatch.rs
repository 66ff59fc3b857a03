//! The owner's side of one request: decodes it, calls the local service's `serve_*`
//! method on the calling thread (the connection's own), and encodes the answer frame.

use bytes::Bytes;
use strata_server::remote::{admin_codec, RowSpan};
use strata_server::{Result, Service, ServiceError};

use crate::convert as c;
use crate::errors::error_to_detail;
use crate::frame;
use crate::messages as m;
use crate::wire::{Method, ANSWER_ERROR, ANSWER_OK};

/// The answer frame to the request frame tagged `code` with `payload`: the method's
/// response, or the error it failed with.
pub fn answer(service: &Service, code: u8, payload: Bytes) -> Vec<u8> {
    let outcome = match Method::from_code(code) {
        Some(method) => call(service, method, payload),
        None => Err(ServiceError::InvalidArgument(format!(
            "unknown internal RPC method code {code}"
        ))),
    };
    outcome.unwrap_or_else(|e| error_frame(&e))
}

/// The error answer for `error`.
pub fn error_frame(error: &ServiceError) -> Vec<u8> {
    match frame::encode(ANSWER_ERROR, &error_to_detail(error)) {
        Ok(frame) => frame,
        // Only a message of hundreds of megabytes gets here; its kind still travels.
        Err(_) => {
            let mut detail = error_to_detail(error);
            detail.message.truncate(1024);
            detail.fields.clear();
            frame::encode(ANSWER_ERROR, &detail).unwrap_or_default()
        }
    }
}

fn call(service: &Service, method: Method, payload: Bytes) -> Result<Vec<u8>> {
    match method {
        Method::Get => {
            let request: m::GetRequest = decode(method, payload)?;
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let get = c::get_from_msg(request.get)?;
            let row = service.peer_serving().serve_get(&table, &get)?;
            ok(&m::GetResponse {
                row: row.as_ref().map(c::row_to_msg),
            })
        }
        Method::Mutate => {
            let request: m::MutateRequest = decode(method, payload)?;
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let write = c::write_from_msg(request.dialect, &request.durability)?;
            let cells = c::cells_from_msg(request.cells)?;
            service.peer_serving().serve_mutate(&table, cells, write)?;
            ok(&m::MutateResponse {})
        }
        Method::MutateIf => {
            let request: m::MutateIfRequest = decode(method, payload)?;
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let write = c::write_from_msg(request.dialect, &request.durability)?;
            let expected = c::expected_from_msg(request.expected)?;
            let cells = c::cells_from_msg(request.cells)?;
            let applied = service.peer_serving().serve_mutate_if(
                &table,
                &request.row,
                &expected,
                cells,
                write,
            )?;
            ok(&m::MutateIfResponse { applied })
        }
        Method::ScanChunk => {
            let request: m::ScanChunkRequest = decode(method, payload)?;
            let (table, chunk) = c::chunk_from_msg(request)?;
            let rows = service.peer_serving().serve_scan_chunk(&table, &chunk)?;
            ok(&m::ScanChunkResponse {
                rows: rows.iter().map(c::row_to_msg).collect(),
            })
        }
        Method::Maintain => {
            let request: m::MaintainRequest = decode(method, payload)?;
            let table = c::peer_table_from_msg(&request.table, request.schema)?;
            let work = c::work_from_msg(request.work)?;
            let range = RowSpan {
                start: request.start,
                end: request.end,
            };
            let bytes = service
                .peer_serving()
                .serve_maintain(&table, &range, work)?;
            ok(&m::MaintainResponse { bytes })
        }
        Method::Admin => {
            let request: m::AdminRequest = decode(method, payload)?;
            let request = admin_codec::decode_request(&request.request)?;
            let reply = service.peer_serving().serve_admin(request)?;
            ok(&m::AdminResponse {
                reply: admin_codec::encode_reply(&reply).into(),
            })
        }
    }
}

/// Decodes a request; from a `Bytes`, so that values are slices of the frame, not copies.
fn decode<M: prost::Message + Default>(method: Method, payload: Bytes) -> Result<M> {
    M::decode(payload).map_err(|e| {
        ServiceError::InvalidArgument(format!("malformed {} request: {e}", method.name()))
    })
}

/// The answer frame of a response; one over the size limit (a scan chunk of huge rows)
/// is an error the caller sees, as it would be locally.
fn ok(response: &impl prost::Message) -> Result<Vec<u8>> {
    frame::encode(ANSWER_OK, response)
        .map_err(|e| ServiceError::InvalidArgument(format!("cannot answer: {e}")))
}
