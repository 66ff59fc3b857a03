//! Meta's rows: one per region (family `info`) and one per table (family `table`).

use bytes::{BufMut, Bytes, BytesMut};
use prost::Message;
use strata_engine::{Cell, RowResult};
use strata_server::names::TableName;
use strata_server::table::RegionInfo;

use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::region_name::{region_name, table_string};
use crate::topology::ServerAddr;

/// The timestamp of every meta cell: meta is computed, it has no history.
const TS: i64 = 1;

/// Every meta row, tables in name order, each table's state row before its regions. Every
/// user may read all of hbase:meta, as in HBase: clients locate regions through it, and a
/// table's permissions are checked when its regions are read.
pub fn all(ctx: &Context) -> Result<Vec<RowResult>, RemoteException> {
    strata_server::access::as_system(|| all_rows(ctx))
}

fn all_rows(ctx: &Context) -> Result<Vec<RowResult>, RemoteException> {
    let mut tables = ctx.service.admin().list_tables();
    tables.sort_by_key(table_string);
    let mut rows = Vec::new();
    for table in tables {
        // A table dropped between the listing and here simply has no rows.
        let (Ok(enabled), Ok(regions)) = (
            ctx.service.admin().is_table_enabled(&table),
            ctx.service.admin().table_regions(&table),
        ) else {
            continue;
        };
        rows.push(state_row(&table, enabled));
        for region in &regions {
            rows.push(region_row(ctx, &table, region));
        }
    }
    Ok(rows)
}

fn cell(
    row: &Bytes,
    family: &'static [u8],
    qualifier: &'static [u8],
    value: impl Into<Bytes>,
) -> Cell {
    Cell::put(
        row.clone(),
        Bytes::from_static(family),
        Bytes::from_static(qualifier),
        TS,
        value.into(),
    )
}

/// `<table>` / `table:state`: a raw TableState (no PBUF magic).
fn state_row(table: &TableName, enabled: bool) -> RowResult {
    let row = Bytes::from(table_string(table));
    let state = if enabled {
        pb::table_state::State::Enabled
    } else {
        pb::table_state::State::Disabled
    };
    let value = pb::TableState {
        state: state as i32,
    }
    .encode_to_vec();
    RowResult {
        cells: vec![cell(&row, b"table", b"state", value)],
        row,
    }
}

/// The protobuf RegionInfo of a region.
pub fn region_info(table: &TableName, region: &RegionInfo) -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: region.id,
        table_name: pb::TableName {
            namespace: Bytes::from(table.namespace.clone()),
            qualifier: Bytes::from(table.name.clone()),
        },
        start_key: Some(region.start_key.clone()),
        end_key: Some(region.end_key.clone()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

fn pbuf(message: &impl Message) -> Bytes {
    let mut out = BytesMut::with_capacity(4 + message.encoded_len());
    out.put_slice(b"PBUF");
    out.put_slice(&message.encode_to_vec());
    out.freeze()
}

fn region_row(ctx: &Context, table: &TableName, region: &RegionInfo) -> RowResult {
    let row = region_name(&table_string(table), &region.start_key, region.id);
    let mut cells = vec![cell(
        &row,
        b"info",
        b"regioninfo",
        pbuf(&region_info(table, region)),
    )];
    if let Some(owner) = ctx.topology.owner_of(region) {
        let seq = ctx.topology.location_seq(region);
        cells.extend(server_cells(&row, &owner, seq));
    }
    // Qualifiers in byte order, as a real meta row's cells are.
    cells.sort_by(|a, b| a.qualifier.cmp(&b.qualifier));
    RowResult { row, cells }
}

fn server_cells(row: &Bytes, owner: &ServerAddr, seq: u64) -> Vec<Cell> {
    vec![
        cell(
            row,
            b"info",
            b"seqnumDuringOpen",
            seq.to_be_bytes().to_vec(),
        ),
        cell(row, b"info", b"server", owner.host_and_port()),
        cell(
            row,
            b"info",
            b"serverstartcode",
            owner.start_code.to_be_bytes().to_vec(),
        ),
        cell(
            row,
            b"info",
            b"sn",
            format!("{},{},{}", owner.host, owner.port, owner.start_code),
        ),
        cell(row, b"info", b"state", "OPEN"),
    ]
}
