//! Generates the gRPC server trait, router and client of the internal peer service.
//!
//! The messages are written by hand in `src/messages.rs` (no `.proto` file, so no `protoc`
//! at build time); `tonic-build`'s manual builder only needs each method's name, route and
//! message types to write the usual `peer_server` and `peer_client` modules.

use tonic_build::manual::{Builder, Method, Service};

const MESSAGES: &str = "crate::messages";
const CODEC: &str = "tonic_prost::ProstCodec";

/// A unary method `name` (snake case in Rust) routed as `route`.
fn unary(name: &str, route: &str) -> Method {
    Method::builder()
        .name(name)
        .route_name(route)
        .input_type(format!("{MESSAGES}::{route}Request"))
        .output_type(format!("{MESSAGES}::{route}Response"))
        .codec_path(CODEC)
        .build()
}

fn peer_service() -> Service {
    Service::builder()
        .name("Peer")
        .package("strata.peer.v1")
        .method(unary("get", "Get"))
        .method(unary("mutate", "Mutate"))
        .method(unary("mutate_if", "MutateIf"))
        .method(unary("scan_chunk", "ScanChunk"))
        .method(unary("maintain", "Maintain"))
        .method(unary("admin", "Admin"))
        .build()
}

fn main() {
    Builder::new()
        .build_client(true)
        .build_server(true)
        .build_transport(true)
        .compile(&[peer_service()]);
}
