//! Generates the Thrift types and the `Hbase` service trait from `idl/hbase.thrift` with
//! volo-build (pure Rust, so no Thrift compiler is needed on the build machine).

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    println!("cargo:rerun-if-changed=idl/hbase.thrift");
    volo_build::Builder::thrift()
        .add_service("idl/hbase.thrift")
        .write()?;
    Ok(())
}
