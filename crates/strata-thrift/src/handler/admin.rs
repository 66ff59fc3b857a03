//! Table administration and server information: the HBase Thrift1 methods that `ops::admin`
//! answers, and the ones Strata refuses (access control).

use pilota::{AHashMap, FastStr};
use volo_thrift::ServerError;

use super::{binary_or_empty, text_or_empty, Handler, Reply};
use crate::failure::Failure;
use crate::gen::volo_gen::hbase::{self as t, *};
use crate::ops::admin;

pub(super) async fn enable_table(
    h: &Handler,
    table_name: Option<t::Bytes>,
) -> Reply<(), HbaseEnableTableException> {
    h.run(move |s| admin::set_enabled(s, &binary_or_empty(table_name), true))
        .await
}

pub(super) async fn disable_table(
    h: &Handler,
    table_name: Option<t::Bytes>,
) -> Reply<(), HbaseDisableTableException> {
    h.run(move |s| admin::set_enabled(s, &binary_or_empty(table_name), false))
        .await
}

pub(super) async fn is_table_enabled(
    h: &Handler,
    table_name: Option<t::Bytes>,
) -> Reply<bool, HbaseIsTableEnabledException> {
    h.run(move |s| admin::is_enabled(s, &binary_or_empty(table_name)))
        .await
}

pub(super) async fn compact(
    h: &Handler,
    name: Option<t::Bytes>,
) -> Reply<(), HbaseCompactException> {
    h.run(move |s| admin::compact(s, &binary_or_empty(name), false))
        .await
}

pub(super) async fn major_compact(
    h: &Handler,
    name: Option<t::Bytes>,
) -> Reply<(), HbaseMajorCompactException> {
    h.run(move |s| admin::compact(s, &binary_or_empty(name), true))
        .await
}

pub(super) async fn get_table_names(h: &Handler) -> Reply<Vec<Text>, HbaseGetTableNamesException> {
    h.run(move |s| Ok(admin::table_names(s))).await
}

pub(super) async fn get_table_names_with_is_table_enabled(
    h: &Handler,
) -> Reply<AHashMap<Text, bool>, HbaseGetTableNamesWithIsTableEnabledException> {
    h.run(admin::table_names_enabled).await
}

pub(super) async fn get_column_descriptors(
    h: &Handler,
    table_name: Option<Text>,
) -> Reply<AHashMap<Text, ColumnDescriptor>, HbaseGetColumnDescriptorsException> {
    h.run(move |s| admin::column_descriptors(s, &text_or_empty(table_name)))
        .await
}

pub(super) async fn get_table_regions(
    h: &Handler,
    table_name: Option<Text>,
) -> Reply<Vec<TRegionInfo>, HbaseGetTableRegionsException> {
    let port = h.port;
    h.run(move |s| admin::table_regions(s, &text_or_empty(table_name), port))
        .await
}

pub(super) async fn create_table(
    h: &Handler,
    table_name: Option<Text>,
    families: Option<Vec<ColumnDescriptor>>,
) -> Reply<(), HbaseCreateTableException> {
    h.run(move |s| {
        admin::create_table(s, &text_or_empty(table_name), &families.unwrap_or_default())
    })
    .await
}

pub(super) async fn delete_table(
    h: &Handler,
    table_name: Option<Text>,
) -> Reply<(), HbaseDeleteTableException> {
    h.run(move |s| admin::delete_table(s, &text_or_empty(table_name)))
        .await
}

pub(super) async fn get_region_info(
    h: &Handler,
    row: Option<Text>,
) -> Reply<TRegionInfo, HbaseGetRegionInfoException> {
    let port = h.port;
    h.run(move |s| admin::region_info(s, &text_or_empty(row), port))
        .await
}

pub(super) async fn get_thrift_server_type(_h: &Handler) -> Result<TThriftServerType, ServerError> {
    Ok(TThriftServerType::ONE)
}

pub(super) async fn get_cluster_id(_h: &Handler) -> Result<FastStr, ServerError> {
    Ok(FastStr::from_static_str("strata-standalone"))
}

pub(super) async fn grant(
    h: &Handler,
    info: Option<TAccessControlEntity>,
) -> Reply<bool, HbaseGrantException> {
    h.run(move |s| {
        let entity = info.ok_or_else(|| Failure::illegal("grant names no permission"))?;
        crate::ops::strata::permissions::grant_entity(s, &entity)
    })
    .await
}

pub(super) async fn revoke(
    h: &Handler,
    info: Option<TAccessControlEntity>,
) -> Reply<bool, HbaseRevokeException> {
    h.run(move |s| {
        let entity = info.ok_or_else(|| Failure::illegal("revoke names no permission"))?;
        crate::ops::strata::permissions::revoke_entity(s, &entity)
    })
    .await
}
