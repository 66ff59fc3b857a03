//! A region on its own: no engine, a host that only records what it is told.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::*;
use crate::cache::{BlockCache, RowCache};
use crate::compaction::policy::CompactionConfig;
use crate::error::Error;
use crate::fs::{FileSystem, MemFs, Volumes};
use crate::memstore::limiter::MemoryLimiter;
use crate::options::{Durability, WalOptions};
use crate::stats::EventLog;
use crate::util::clock::{system, Clock, ManualClock};
use crate::util::rate_limiter::RateLimiter;
use crate::wal::{Wal, WalGroups};
use crate::Cell;

/// What a region told its host.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Notice {
    FlushWanted(u64),
    CompactionWanted(u64),
    MemoryPressure(u64),
    Flushed { region: u64, seq: u64 },
    ReferencesDropped(u64),
}

/// Records every notice; compacts the region when asked to, if it was given one.
#[derive(Default)]
struct FakeHost {
    notices: Mutex<Vec<Notice>>,
    compacts: OnceLock<Weak<Region>>,
}

impl FakeHost {
    fn take(&self) -> Vec<Notice> {
        std::mem::take(&mut *self.notices.lock())
    }

    fn tell(&self, notice: Notice) {
        self.notices.lock().push(notice);
    }
}

impl RegionHost for FakeHost {
    fn flush_wanted(&self, region: u64) {
        self.tell(Notice::FlushWanted(region));
    }

    fn compaction_wanted(&self, region: u64) {
        self.tell(Notice::CompactionWanted(region));
        if let Some(region) = self.compacts.get().and_then(Weak::upgrade) {
            // As a background lane would: later, in another thread.
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                region.compact(true).unwrap();
            });
        }
    }

    fn memory_pressure(&self, region: u64) {
        self.tell(Notice::MemoryPressure(region));
    }

    fn flushed(&self, region: u64, seq: u64) {
        self.tell(Notice::Flushed { region, seq });
    }

    fn references_dropped(&self, region: u64) {
        self.tell(Notice::ReferencesDropped(region));
    }
}

fn context(limits: RegionLimits, clock: Arc<dyn Clock>) -> Arc<RegionContext> {
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let root = PathBuf::from("/data");
    fs.create_dir_all(&root).unwrap();
    let no_replay = &mut |_| Ok(());
    let wal = Wal::open(
        Arc::clone(&fs),
        Arc::clone(&clock),
        root.join("wal"),
        WalOptions::default(),
        no_replay,
    );
    let volumes = Arc::new(Volumes::single(fs, root));
    Arc::new(RegionContext {
        wal: Arc::new(WalGroups::single(wal.unwrap())),
        sequence: SequenceIds::starting_after(0),
        memory: MemoryLimiter::new(1 << 30, limits.write_wait_timeout, Arc::clone(&clock)),
        rate_limiter: RateLimiter::new(None, Arc::clone(&clock)),
        clock,
        limits,
        events: EventLog::default(),
        stores: StoreContextFactory::new(volumes, BlockCache::new(1 << 20)),
        row_cache: RowCache::new(0),
    })
}

fn limits(memstore_flush_size: u64, blocking_store_files: usize) -> RegionLimits {
    RegionLimits {
        memstore_flush_size,
        blocking_store_files,
        memstore_block_multiplier: 4,
        write_wait_timeout: Duration::from_secs(30),
        compaction: CompactionConfig::default(),
    }
}

fn open(ctx: &Arc<RegionContext>, host: &Arc<FakeHost>) -> Arc<Region> {
    let spec = RegionSpec {
        id: 9,
        families: vec![FamilyOptions::new("cf")],
    };
    let host = Arc::downgrade(host) as Weak<dyn RegionHost>;
    Region::open(spec, Arc::clone(ctx), host, Vec::new()).unwrap()
}

fn put(region: &Region, row: u32) -> u64 {
    let cell = Cell::put(format!("r{row:04}"), "cf", "q", 1, vec![b'x'; 100]);
    region.mutate(vec![cell], Durability::SyncWal).unwrap()
}

#[test]
fn a_full_memstore_asks_its_host_for_a_flush_and_a_flush_reports_its_seq() {
    let host = Arc::new(FakeHost::default());
    let region = open(&context(limits(4 * 1024, 100), system()), &host);
    let mut row = 0;
    while region.memstore_bytes() < 4 * 1024 {
        assert!(host.take().is_empty(), "nothing asked below the flush size");
        put(&region, row);
        row += 1;
    }
    assert_eq!(host.take(), [Notice::FlushWanted(9)]);
    let newest = put(&region, row);
    assert!(host.take().is_empty(), "asked once until the flush runs");

    region.flush().unwrap();
    let flushed = Notice::Flushed {
        region: 9,
        seq: newest,
    };
    assert_eq!(host.take(), [flushed]);
    assert_eq!(region.min_unflushed_seq(), None);
}

#[test]
fn a_writer_blocked_on_files_goes_on_once_a_compaction_finishes() {
    let host = Arc::new(FakeHost::default());
    let region = open(&context(limits(1 << 30, 3), system()), &host);
    host.compacts.set(Arc::downgrade(&region)).unwrap();
    for row in 0..3 {
        put(&region, row);
        region.flush().unwrap();
    }
    host.take();
    let started = Instant::now();
    put(&region, 3);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woken by the compaction, not by the 30 s timeout"
    );
    let notices = host.take();
    assert_eq!(notices[0], Notice::CompactionWanted(9));
    assert_eq!(region.stores()[b"cf".as_slice()].file_count(), 1);
}

#[test]
fn under_memory_pressure_a_region_flushes_only_once_it_holds_a_share_worth_a_file() {
    let host = Arc::new(FakeHost::default());
    let flush_size = 64 * 1024;
    let ctx = context(limits(flush_size, 100), system());
    // Another region's memstores (say, one whose flush is slow) hold half of the limit.
    ctx.memory.charge(ctx.memory.used().max(1 << 29));
    assert!(ctx.memory.should_flush());
    let region = open(&ctx, &host);
    put(&region, 0);
    assert!(
        !host.take().contains(&Notice::FlushWanted(9)),
        "a flush of one small write was asked for"
    );
    let mut row = 1;
    while region.active_memstore_bytes() < flush_size / flush::PRESSURE_FLUSH_SHARE {
        put(&region, row);
        row += 1;
    }
    assert!(host.take().contains(&Notice::FlushWanted(9)));
}

/// Fills region 9's memstores to the blocking multiple (4) of a 4 KiB flush size.
fn fill_to_memstore_block(region: &Region) {
    let mut row = 0;
    while region.memstore_bytes() < 4 * 4 * 1024 {
        put(region, row);
        row += 1;
    }
}

#[test]
fn writers_to_a_region_over_its_memstore_block_wait_for_its_flush() {
    let host = Arc::new(FakeHost::default());
    let region = open(&context(limits(4 * 1024, 100), system()), &host);
    fill_to_memstore_block(&region);
    assert!(host.take().contains(&Notice::FlushWanted(9)));
    let writer = {
        let region = Arc::clone(&region);
        std::thread::spawn(move || put(&region, 9999))
    };
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !writer.is_finished(),
        "the writer did not wait for the flush"
    );
    region.flush().unwrap();
    writer.join().unwrap();
    assert!(region.memstore_bytes() < 4 * 1024);
}

#[test]
fn a_region_whose_flush_does_not_come_refuses_writes_after_the_timeout() {
    let clock = Arc::new(ManualClock::new(0));
    let mut limits = limits(4 * 1024, 100);
    limits.write_wait_timeout = Duration::from_millis(20);
    let host = Arc::new(FakeHost::default());
    let region = open(&context(limits, Arc::clone(&clock) as _), &host);
    fill_to_memstore_block(&region);
    let writer = {
        let region = Arc::clone(&region);
        let cell = Cell::put("late", "cf", "q", 1, "v");
        std::thread::spawn(move || region.mutate(vec![cell], Durability::SyncWal))
    };
    std::thread::sleep(Duration::from_millis(50));
    clock.advance(20);
    let err = writer.join().unwrap().unwrap_err();
    assert!(matches!(err, Error::TooBusy(_)), "{err}");
    assert!(err.to_string().contains("over its memstore limit"), "{err}");
}

#[test]
fn a_blocked_writer_times_out_by_the_region_clock() {
    let clock = Arc::new(ManualClock::new(0));
    let mut limits = limits(1 << 30, 1);
    limits.write_wait_timeout = Duration::from_millis(20);
    let host = Arc::new(FakeHost::default());
    let region = open(&context(limits, Arc::clone(&clock) as _), &host);
    put(&region, 0);
    region.flush().unwrap();
    let writer = {
        let region = Arc::clone(&region);
        let cell = Cell::put("r9", "cf", "q", 1, "v");
        std::thread::spawn(move || region.mutate(vec![cell], Durability::SyncWal))
    };
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !writer.is_finished(),
        "100 ms of real time are not the 20 ms timeout of a clock that stood still"
    );
    clock.advance(20);
    let err = writer.join().unwrap().unwrap_err();
    assert!(matches!(err, Error::TooBusy(_)), "{err}");
}

/// Regression (the flake `mvcc_test::readers_never_see_part_of_a_mutation` showed under
/// load, "get shows half a mutation"): a read took its read point, then its stores' views.
/// A flush and a compaction landing in between gave it files written after its read point
/// (which may lack versions it needs) or a read point newer than its views (which then
/// miss writes it should see). Reads now take their views first and retry if a view
/// changed before they took the read point.
#[test]
fn regression_a_flush_and_compaction_between_views_and_read_point_are_not_missed() {
    let host = Arc::new(FakeHost::default());
    let ctx = context(limits(1 << 30, 100), system());
    let region = open(&ctx, &host);
    let write = |region: &Region, value: &str, ts: i64| {
        let cell = Cell::put("row", "cf", "q", ts, value.to_owned());
        region.mutate(vec![cell], Durability::SyncWal).unwrap();
        region.flush().unwrap();
    };
    write(&region, "old", 1);
    let racer = Arc::clone(&region);
    crate::util::test_hook::set(super::read::BETWEEN_VIEWS_AND_READ_POINT, move || {
        write(&racer, "mid", 2); // a flush: the read's memstore becomes a snapshot
        racer.compact(true).unwrap();
        let cell = Cell::put("row", "cf", "q", 3, "new");
        racer.mutate(vec![cell], Durability::SyncWal).unwrap(); // into a memstore the read's views lack
    });
    let got = region.get(&crate::Get::new("row")).unwrap().unwrap();
    assert_eq!(
        got.cells[0].value.as_ref(),
        b"new",
        "the read missed a write before its read point"
    );
}
