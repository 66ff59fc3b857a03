//! Generates the gRPC *server* side of the two Bigtable services.
//!
//! The `googleapis-tonic-*` crates carry the Bigtable message types and client stubs, but no
//! server traits. Generating those from the `.proto` files would need `protoc` and a copy of
//! Google's protos in this repository, so the services are described here by hand instead
//! (names, routes and message types only) and `tonic-build`'s manual builder writes the
//! usual server trait and router for each. Only the methods Strata serves are listed; any
//! other route answers UNIMPLEMENTED.

use tonic_build::manual::{Builder, Method, MethodBuilder, Service};

const DATA: &str = "googleapis_tonic_google_bigtable_v2::google::bigtable::v2";
const ADMIN: &str = "googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2";
const CODEC: &str = "tonic_prost::ProstCodec";

fn method(package: &str, name: &str, route: &str, input: &str, output: &str) -> MethodBuilder {
    Method::builder()
        .name(name)
        .route_name(route)
        .input_type(format!("{package}::{input}"))
        .output_type(qualified(package, output))
        .codec_path(CODEC)
}

/// google.protobuf.Empty is `()` in prost, named through the alias `crate::Empty` because
/// the builder wants a path.
fn qualified(package: &str, output: &str) -> String {
    if output == "()" {
        "crate::Empty".to_string()
    } else {
        format!("{package}::{output}")
    }
}

fn streaming(package: &str, name: &str, route: &str, input: &str, output: &str) -> Method {
    method(package, name, route, input, output)
        .server_streaming()
        .build()
}

fn unary(package: &str, name: &str, route: &str, input: &str, output: &str) -> Method {
    method(package, name, route, input, output).build()
}

fn data_service() -> Service {
    let p = DATA;
    Service::builder()
        .name("Bigtable")
        .package("google.bigtable.v2")
        .method(streaming(
            p,
            "read_rows",
            "ReadRows",
            "ReadRowsRequest",
            "ReadRowsResponse",
        ))
        .method(streaming(
            p,
            "sample_row_keys",
            "SampleRowKeys",
            "SampleRowKeysRequest",
            "SampleRowKeysResponse",
        ))
        .method(unary(
            p,
            "mutate_row",
            "MutateRow",
            "MutateRowRequest",
            "MutateRowResponse",
        ))
        .method(streaming(
            p,
            "mutate_rows",
            "MutateRows",
            "MutateRowsRequest",
            "MutateRowsResponse",
        ))
        .method(unary(
            p,
            "check_and_mutate_row",
            "CheckAndMutateRow",
            "CheckAndMutateRowRequest",
            "CheckAndMutateRowResponse",
        ))
        .method(unary(
            p,
            "ping_and_warm",
            "PingAndWarm",
            "PingAndWarmRequest",
            "PingAndWarmResponse",
        ))
        .method(unary(
            p,
            "read_modify_write_row",
            "ReadModifyWriteRow",
            "ReadModifyWriteRowRequest",
            "ReadModifyWriteRowResponse",
        ))
        .build()
}

fn admin_service() -> Service {
    let p = ADMIN;
    Service::builder()
        .name("BigtableTableAdmin")
        .package("google.bigtable.admin.v2")
        .method(unary(
            p,
            "create_table",
            "CreateTable",
            "CreateTableRequest",
            "Table",
        ))
        .method(unary(
            p,
            "list_tables",
            "ListTables",
            "ListTablesRequest",
            "ListTablesResponse",
        ))
        .method(unary(
            p,
            "get_table",
            "GetTable",
            "GetTableRequest",
            "Table",
        ))
        .method(unary(
            p,
            "delete_table",
            "DeleteTable",
            "DeleteTableRequest",
            "()",
        ))
        .method(unary(
            p,
            "modify_column_families",
            "ModifyColumnFamilies",
            "ModifyColumnFamiliesRequest",
            "Table",
        ))
        .method(unary(
            p,
            "drop_row_range",
            "DropRowRange",
            "DropRowRangeRequest",
            "()",
        ))
        .method(unary(
            p,
            "generate_consistency_token",
            "GenerateConsistencyToken",
            "GenerateConsistencyTokenRequest",
            "GenerateConsistencyTokenResponse",
        ))
        .method(unary(
            p,
            "check_consistency",
            "CheckConsistency",
            "CheckConsistencyRequest",
            "CheckConsistencyResponse",
        ))
        .build()
}

fn main() {
    Builder::new()
        .build_client(false)
        .build_transport(false)
        .compile(&[data_service(), admin_service()]);
}
