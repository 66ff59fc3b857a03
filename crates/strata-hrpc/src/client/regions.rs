//! From the region a call names to the table and bounds it means.
//!
//! The client scans one region at a time and resumes at the end key it cached, so a name
//! that no longer stands for exactly one live region must fail with
//! NotServingRegionException: the client then re-reads hbase:meta. A region id changes on
//! every split and merge, so matching the id and the start key is enough. A live region
//! that another server serves now (it moved, or failed over) is answered with
//! RegionMovedException naming that server, as HBase's region servers answer for a region
//! they moved away.

use strata_server::names::TableName;
use strata_server::table::RegionInfo;

use crate::context::Context;
use crate::exception::{class, RemoteException};
use crate::pb;
use crate::region_name::{self, META_ENCODED_NAME, META_REGION_NAME};
use crate::topology::ServerAddr;

/// What a region specifier leads to.
pub enum Target {
    /// hbase:meta's one region, computed from the region directory.
    Meta,
    /// A region of a user table.
    Region {
        table: TableName,
        region: RegionInfo,
    },
}

fn not_serving(name: &[u8]) -> RemoteException {
    RemoteException::retry(
        class::NOT_SERVING_REGION,
        format!(
            "region {} is not online on this server",
            String::from_utf8_lossy(name)
        ),
    )
}

/// The region is served by `owner`: the client takes the new location from the message
/// (HBase's client parses exactly this text) and goes there without reading hbase:meta,
/// if `seq` is higher than the one it cached; otherwise it reads meta as after a
/// NotServingRegionException.
fn moved(owner: &ServerAddr, seq: u64) -> RemoteException {
    RemoteException::retry(
        class::REGION_MOVED,
        format!(
            "Region moved to: hostname={} port={} startCode={}. As of locationSeqNum={seq}.",
            owner.host, owner.port, owner.start_code
        ),
    )
}

/// Resolves `spec`.
pub fn resolve(
    ctx: &Context,
    spec: Option<&pb::RegionSpecifier>,
) -> Result<Target, RemoteException> {
    let spec = spec.ok_or_else(|| RemoteException::invalid("the call names no region"))?;
    let value = &spec.value[..];
    if spec.r#type() == pb::region_specifier::RegionSpecifierType::EncodedRegionName {
        if value == META_ENCODED_NAME.as_bytes() {
            return Ok(Target::Meta);
        }
        return Err(not_serving(value));
    }
    if value == META_REGION_NAME {
        return Ok(Target::Meta);
    }
    let parsed = region_name::parse(value).ok_or_else(|| not_serving(value))?;
    let table = region_name::parse_table(&parsed.table).ok_or_else(|| not_serving(value))?;
    let regions = ctx
        .service
        .admin()
        .table_regions(&table)
        .map_err(RemoteException::from)?;
    let region = regions
        .into_iter()
        .find(|r| r.id.to_string() == parsed.id && r.start_key == parsed.start_key)
        .ok_or_else(|| not_serving(value))?;
    if !ctx.topology.serves_here(&region) {
        return Err(match ctx.topology.owner_of(&region) {
            Some(owner) => moved(&owner, ctx.topology.location_seq(&region)),
            None => not_serving(value),
        });
    }
    Ok(Target::Region { table, region })
}

/// Resolves `spec`, which must name a user table's region.
pub fn resolve_region(
    ctx: &Context,
    spec: Option<&pb::RegionSpecifier>,
) -> Result<(TableName, RegionInfo), RemoteException> {
    match resolve(ctx, spec)? {
        Target::Region { table, region } => Ok((table, region)),
        Target::Meta => Err(RemoteException::invalid(
            "hbase:meta is read-only: Strata computes it from its region directory",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_region_names_its_server_in_the_text_hbase_client_parses() {
        let owner = ServerAddr {
            host: "db2.example.com".into(),
            port: 16020,
            start_code: 1_796_192_589_299,
        };
        let e = moved(&owner, 77);
        assert_eq!(e.class, class::REGION_MOVED);
        assert!(!e.do_not_retry);
        // The layout of RegionMovedException.getMessage(), which its String constructor
        // takes apart again on the client.
        assert_eq!(
            e.message,
            "Region moved to: hostname=db2.example.com port=16020 startCode=1796192589299. \
             As of locationSeqNum=77."
        );
    }
}
