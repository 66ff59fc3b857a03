//! Generates the protobuf messages of HBase's RPC from `proto/` with protox, a protobuf
//! compiler in Rust, so the build needs no `protoc`.

use std::path::Path;

const FILES: [&str; 8] = [
    "types.proto",
    "rpc.proto",
    "filter.proto",
    "client.proto",
    "master.proto",
    "master_ops.proto",
    "registry.proto",
    "access.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new("proto");
    for file in FILES {
        println!("cargo:rerun-if-changed=proto/{file}");
    }
    let descriptors = protox::compile(FILES, [dir])?;
    prost_build::Config::new()
        .bytes(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
