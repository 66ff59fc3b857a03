//! Deterministic scenarios of a dead server's regions being taken over, on the same
//! simulated infrastructure as the seeded runs, each found by a seed first.

use std::time::Duration;

use bytes::Bytes;
use strata_engine::{Cell, FamilyOptions, Get, LATEST_TIMESTAMP};
use strata_server::WriteDurability;

use crate::clients::table;
use crate::model::FAMILY;
use crate::settle;
use crate::world::{Running, World};

/// How long the scenario waits for etcd to drop a killed server's lease.
const LEASE_GONE_WITHIN: Duration = Duration::from_secs(10);

/// Seed 123: a move of a region whose owner died assigned it before anyone sealed the dead
/// server's WAL stream. The target opened it finding no sealed stream to replay, served
/// it, and the stream was retired: the writes it alone held were lost. Here the master's
/// store is cut while the owner dies, so its own pass cannot seal (nor reassign) first,
/// and the move runs in that window, as the split's move did in the seed.
#[test]
fn a_region_moved_off_a_dead_server_keeps_what_it_acknowledged() {
    let world = World::new(0, 3);
    for slot in 0..world.slots() {
        world.start(slot).unwrap();
    }
    let master = wait_for_master(&world);
    let others: Vec<_> = world
        .all_running()
        .into_iter()
        .filter(|r| r.slot != master.slot)
        .collect();
    let (owner, target) = (&others[0], &others[1]);
    master
        .service
        .admin()
        .create_table(&table(), vec![FamilyOptions::new(FAMILY)], Vec::new())
        .unwrap();
    settle::settled(&world).unwrap();
    let region = master.service.admin().table_regions(&table()).unwrap()[0].id;
    let admin = master.service.admin().cluster_admin().unwrap();
    admin.move_region(region, Some(&owner.sid)).unwrap();
    let (row, value) = (Bytes::from("r00"), Bytes::from("acknowledged"));
    let cell = Cell::put(row.clone(), FAMILY, "q", LATEST_TIMESTAMP, value.clone());
    owner
        .service
        .rows()
        .mutate(&table(), vec![cell], WriteDurability::UseDefault)
        .expect("the owner acknowledges the put (it is only in its WAL stream)");

    world.store_blip(master.slot, true);
    world.kill(owner.slot, "the scenario");
    wait_until_gone(&world, &owner.sid);
    // Refused (the master cannot seal the stream) or carried out: either way nothing may
    // be lost.
    let moved = admin.move_region(region, Some(&target.sid));
    world.store_blip(master.slot, false);
    settle::settled(&world).unwrap();

    for server in world.all_running() {
        let read = server
            .service
            .rows()
            .get(&table(), &Get::new(row.clone()).family(FAMILY))
            .unwrap();
        let found = read.and_then(|r| r.cells.first().map(|c| c.value.clone()));
        assert_eq!(
            found.as_ref(),
            Some(&value),
            "read through s{} after the move ({moved:?})",
            server.slot
        );
    }
    world.shutdown();
}

fn wait_for_master(world: &World) -> std::sync::Arc<Running> {
    for _ in 0..200 {
        if let Some(master) = world.all_running().into_iter().find(|r| r.is_master()) {
            return master;
        }
        world.clock.sleep(Duration::from_millis(20));
    }
    panic!("no master elected");
}

/// Waits until etcd no longer lists `sid` as a live server.
fn wait_until_gone(world: &World, sid: &str) {
    let observer = world.observer();
    let started = world.clock.now();
    while world.clock.elapsed(started) < LEASE_GONE_WITHIN {
        world.tick_lessor();
        let live = observer.live_servers().unwrap();
        if !live.iter().any(|s| s.sid == sid) {
            return;
        }
        world.clock.sleep(Duration::from_millis(20));
    }
    panic!("the killed server's lease never expired");
}
