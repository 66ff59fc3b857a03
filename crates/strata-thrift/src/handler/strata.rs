//! Strata's extensions to the IDL (namespaces, durability, families, regions, status).

use pilota::FastStr;

use super::{text_list, text_or_empty, Handler, Reply};
use crate::gen::volo_gen::hbase::*;
use crate::ops::strata as ext;

pub(super) async fn strata_list_namespaces(
    h: &Handler,
) -> Reply<Vec<FastStr>, HbaseStrataListNamespacesException> {
    h.run(move |s| Ok(ext::admin::list_namespaces(s))).await
}

pub(super) async fn strata_grant(
    h: &Handler,
    permission: Option<TStrataPermission>,
    merge: Option<bool>,
) -> Reply<(), HbaseStrataGrantException> {
    h.run(move |s| {
        ext::permissions::grant(s, &permission.unwrap_or_default(), merge.unwrap_or(false))
    })
    .await
}

pub(super) async fn strata_revoke(
    h: &Handler,
    permission: Option<TStrataPermission>,
) -> Reply<(), HbaseStrataRevokeException> {
    h.run(move |s| ext::permissions::revoke(s, &permission.unwrap_or_default()))
        .await
}

pub(super) async fn strata_user_permissions(
    h: &Handler,
    scope: Option<TStrataPermission>,
) -> Reply<Vec<TStrataPermission>, HbaseStrataUserPermissionsException> {
    h.run(move |s| ext::permissions::user_permissions(s, &scope.unwrap_or_default()))
        .await
}

pub(super) async fn strata_create_namespace(
    h: &Handler,
    name: Option<FastStr>,
) -> Reply<(), HbaseStrataCreateNamespaceException> {
    h.run(move |s| ext::admin::create_namespace(s, &ext::admin::namespace(name)?))
        .await
}

pub(super) async fn strata_delete_namespace(
    h: &Handler,
    name: Option<FastStr>,
) -> Reply<(), HbaseStrataDeleteNamespaceException> {
    h.run(move |s| ext::admin::delete_namespace(s, &ext::admin::namespace(name)?))
        .await
}

pub(super) async fn strata_create_table(
    h: &Handler,
    table_name: Option<Text>,
    families: Option<Vec<TStrataFamily>>,
    split_keys: Option<Vec<Text>>,
    durability: Option<FastStr>,
) -> Reply<(), HbaseStrataCreateTableException> {
    h.run(move |s| {
        let splits = text_list(split_keys).unwrap_or_default();
        let families = families.unwrap_or_default();
        let durability = durability.as_deref();
        ext::admin::create_table(s, &text_or_empty(table_name), &families, splits, durability)
    })
    .await
}

pub(super) async fn strata_get_table_durability(
    h: &Handler,
    table_name: Option<Text>,
) -> Reply<FastStr, HbaseStrataGetTableDurabilityException> {
    h.run(move |s| ext::admin::table_durability(s, &text_or_empty(table_name)))
        .await
}

pub(super) async fn strata_set_table_durability(
    h: &Handler,
    table_name: Option<Text>,
    durability: Option<FastStr>,
) -> Reply<(), HbaseStrataSetTableDurabilityException> {
    h.run(move |s| {
        ext::admin::set_table_durability(s, &text_or_empty(table_name), durability.as_deref())
    })
    .await
}

pub(super) async fn strata_describe_table(
    h: &Handler,
    table_name: Option<Text>,
) -> Reply<Vec<TStrataFamily>, HbaseStrataDescribeTableException> {
    h.run(move |s| ext::admin::describe_table(s, &text_or_empty(table_name)))
        .await
}

pub(super) async fn strata_alter_family(
    h: &Handler,
    table_name: Option<Text>,
    family: Option<TStrataFamily>,
) -> Reply<(), HbaseStrataAlterFamilyException> {
    h.run(move |s| {
        ext::admin::alter_family(s, &text_or_empty(table_name), &family.unwrap_or_default())
    })
    .await
}

pub(super) async fn strata_delete_family(
    h: &Handler,
    table_name: Option<Text>,
    family: Option<Text>,
) -> Reply<(), HbaseStrataDeleteFamilyException> {
    h.run(move |s| ext::admin::delete_family(s, &text_or_empty(table_name), &text_or_empty(family)))
        .await
}

pub(super) async fn strata_truncate_table(
    h: &Handler,
    table_name: Option<Text>,
    preserve_splits: Option<bool>,
) -> Reply<(), HbaseStrataTruncateTableException> {
    let preserve = preserve_splits.unwrap_or(false);
    h.run(move |s| ext::admin::truncate_table(s, &text_or_empty(table_name), preserve))
        .await
}

pub(super) async fn strata_flush(
    h: &Handler,
    name: Option<Text>,
) -> Reply<(), HbaseStrataFlushException> {
    h.run(move |s| ext::regions::flush(s, &text_or_empty(name)))
        .await
}

pub(super) async fn strata_split(
    h: &Handler,
    name: Option<Text>,
    point: Option<Text>,
) -> Reply<(), HbaseStrataSplitException> {
    h.run(move |s| ext::regions::split(s, &text_or_empty(name), point.map(|p| p.0)))
        .await
}

pub(super) async fn strata_merge_regions(
    h: &Handler,
    a: Option<Text>,
    b_name: Option<Text>,
) -> Reply<(), HbaseStrataMergeRegionsException> {
    h.run(move |s| ext::regions::merge(s, &text_or_empty(a), &text_or_empty(b_name)))
        .await
}

pub(super) async fn strata_status(h: &Handler) -> Reply<TStrataStatus, HbaseStrataStatusException> {
    h.run(ext::regions::status).await
}

pub(super) async fn strata_move_region(
    h: &Handler,
    region_name: Option<Text>,
    server: Option<FastStr>,
) -> Reply<FastStr, HbaseStrataMoveRegionException> {
    h.run(move |s| ext::regions::move_region(s, &text_or_empty(region_name), server))
        .await
}

pub(super) async fn strata_assign(
    h: &Handler,
    region_name: Option<Text>,
) -> Reply<FastStr, HbaseStrataAssignException> {
    h.run(move |s| ext::regions::assign(s, &text_or_empty(region_name)))
        .await
}

pub(super) async fn strata_unassign(
    h: &Handler,
    region_name: Option<Text>,
) -> Reply<(), HbaseStrataUnassignException> {
    h.run(move |s| ext::regions::unassign(s, &text_or_empty(region_name)))
        .await
}

pub(super) async fn strata_decommission(
    h: &Handler,
    server: Option<FastStr>,
    on: Option<bool>,
) -> Reply<i32, HbaseStrataDecommissionException> {
    let server = server.unwrap_or_default();
    h.run(move |s| ext::regions::decommission(s, &server, on.unwrap_or(true)))
        .await
}

pub(super) async fn strata_list_decommissioned(
    h: &Handler,
) -> Reply<Vec<FastStr>, HbaseStrataListDecommissionedException> {
    h.run(ext::regions::decommissioned).await
}

pub(super) async fn strata_balance(h: &Handler) -> Reply<i32, HbaseStrataBalanceException> {
    h.run(ext::regions::balance).await
}

pub(super) async fn strata_balance_switch(
    h: &Handler,
    on: Option<bool>,
) -> Reply<bool, HbaseStrataBalanceSwitchException> {
    h.run(move |s| ext::regions::balance_switch(s, on.unwrap_or(true)))
        .await
}

pub(super) async fn strata_snapshot(
    h: &Handler,
    table_name: Option<Text>,
    snapshot_name: Option<FastStr>,
) -> Reply<(), HbaseStrataSnapshotException> {
    h.run(move |s| {
        let name = snapshot_name.unwrap_or_default();
        ext::snapshots::snapshot(s, &text_or_empty(table_name), &name)
    })
    .await
}

pub(super) async fn strata_list_snapshots(
    h: &Handler,
) -> Reply<Vec<TStrataSnapshot>, HbaseStrataListSnapshotsException> {
    h.run(ext::snapshots::list).await
}

pub(super) async fn strata_delete_snapshot(
    h: &Handler,
    snapshot_name: Option<FastStr>,
) -> Reply<(), HbaseStrataDeleteSnapshotException> {
    h.run(move |s| ext::snapshots::delete(s, &snapshot_name.unwrap_or_default()))
        .await
}

pub(super) async fn strata_clone_snapshot(
    h: &Handler,
    snapshot_name: Option<FastStr>,
    table_name: Option<Text>,
) -> Reply<(), HbaseStrataCloneSnapshotException> {
    h.run(move |s| {
        let name = snapshot_name.unwrap_or_default();
        ext::snapshots::clone(s, &name, &text_or_empty(table_name))
    })
    .await
}

pub(super) async fn strata_restore_snapshot(
    h: &Handler,
    snapshot_name: Option<FastStr>,
) -> Reply<(), HbaseStrataRestoreSnapshotException> {
    h.run(move |s| ext::snapshots::restore(s, &snapshot_name.unwrap_or_default()))
        .await
}
