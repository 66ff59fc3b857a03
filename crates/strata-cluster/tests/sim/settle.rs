//! After the faults: waiting for the cluster to settle (every region of the directory
//! owned by exactly one running server, which etcd agrees owns it), then reading the
//! whole table through every server.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use strata_engine::Scan;

use crate::clients::table;
use crate::model::{Model, FAMILY};
use crate::world::World;

/// How long a cluster may take to settle.
const SETTLE_WITHIN: Duration = Duration::from_secs(30);

/// Waits until every region has exactly one owner; the last disagreement if it never does.
pub fn settled(world: &World) -> Result<(), String> {
    let started = world.clock.now();
    let mut last = String::new();
    while world.clock.elapsed(started) < SETTLE_WITHIN {
        world.tick_lessor();
        world.reap();
        match disagreement(world) {
            None => return Ok(()),
            Some(why) => last = why,
        }
        world.clock.sleep(Duration::from_millis(50));
    }
    Err(last)
}

/// Why the cluster is not settled yet, or `None` when it is.
fn disagreement(world: &World) -> Option<String> {
    let observer = world.observer();
    let regions = match observer.regions() {
        Ok(regions) => regions,
        Err(e) => return Some(format!("cannot read the directory: {e}")),
    };
    let owners: HashMap<u64, String> = match observer.owners() {
        Ok(owners) => owners.into_iter().map(|(id, o)| (id, o.sid)).collect(),
        Err(e) => return Some(format!("cannot read the owners: {e}")),
    };
    let running = world.all_running();
    let mut believed: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for server in &running {
        for region in server.owned() {
            believed.entry(region).or_default().push(server.sid.clone());
        }
    }
    let live: HashSet<&str> = running.iter().map(|r| r.sid.as_str()).collect();
    let mut table_regions = 0;
    for region in &regions {
        let retired = region.record.state == strata_coord::RegionState::Retired;
        if region.record.table != table().to_string() || retired {
            continue;
        }
        table_regions += 1;
        let claimed = owners.get(&region.id);
        let believers = believed.get(&region.id).cloned().unwrap_or_default();
        let assigned = region.record.owner.as_deref();
        let one_owner = matches!(claimed, Some(sid) if live.contains(sid.as_str()))
            && believers.len() == 1
            && claimed == believers.first()
            && assigned == claimed.map(String::as_str);
        if !one_owner {
            return Some(format!(
                "region {}: assigned to {assigned:?}, claimed by {claimed:?}, believed owned \
                 by {believers:?}",
                region.id
            ));
        }
    }
    if table_regions == 0 {
        return Some("the table has no regions in the directory".into());
    }
    // Every server must also see the same regions for the table (its view followed).
    for server in &running {
        match server.service.admin().table_regions(&table()) {
            Ok(seen) if seen.len() == table_regions => {}
            Ok(seen) => {
                return Some(format!(
                    "s{} sees {} regions, the directory has {table_regions}",
                    server.slot,
                    seen.len()
                ))
            }
            Err(e) => return Some(format!("s{} cannot list regions: {e}", server.slot)),
        }
    }
    None
}

/// Reads the whole table through every running server and checks it against the model.
pub fn final_reads(world: &World, model: &Model) -> Vec<String> {
    let mut problems = Vec::new();
    for server in world.all_running() {
        let via = format!("s{} (#{})", server.slot, server.number);
        let mut rows = Vec::new();
        let outcome = server
            .service
            .scanners()
            .scan_rows(&table(), Scan::new().family(FAMILY))
            .and_then(|mut stream| {
                while let Some(row) = stream.next_row()? {
                    rows.push(row);
                }
                Ok(())
            });
        match outcome {
            Ok(()) => problems.extend(model.check_final(&rows, &via)),
            Err(e) => problems.push(format!("the final scan via {via} failed: {e}")),
        }
    }
    problems
}
