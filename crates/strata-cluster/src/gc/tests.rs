//! The collector's rules, one by one, on an in-memory store whose objects are timed by a
//! manual clock, with made-up cluster state (and, last, the real inputs on etcd's twin).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use object_store::memory::InMemory;
use object_store::path::Path as ObjectPath;
use parking_lot::Mutex;
use strata_coord::StreamRecord;
use strata_engine::tools::{encode_manifest, FileOrigin, ManifestState, StoreFileEntry};
use strata_engine::RowRange;
use strata_objstore::testing::ClockedStore;
use strata_objstore::{BlockingStore, StreamId};
use strata_runtime::clock::ManualClock;

use super::live::{manifest_key, region_prefix};
use super::*;
use crate::error::{Error, Result};

pub(super) const MIN_AGE: Duration = Duration::from_secs(10);

/// Made-up cluster state the collector reads.
#[derive(Default)]
pub(super) struct FakeInputs {
    pub snapshot: Mutex<Snapshot>,
    pub not_master: AtomicBool,
}

impl GcInputs for FakeInputs {
    fn may_delete(&self) -> Result<()> {
        if self.not_master.load(Ordering::SeqCst) {
            Err(Error::Collector("not the master".into()))
        } else {
            Ok(())
        }
    }
    fn snapshot(&self) -> Result<Snapshot> {
        Ok(self.snapshot.lock().clone())
    }
}

/// A store, a clock, a collector and the state it reads.
pub(super) struct Bed {
    pub clock: Arc<ManualClock>,
    pub store: BlockingStore,
    pub collector: Collector,
    pub inputs: FakeInputs,
    pub stats: Arc<GcStats>,
}

impl Bed {
    pub fn new() -> Self {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let timed = ClockedStore::new(Arc::new(InMemory::new()), clock.clone());
        let store = BlockingStore::new(Arc::new(timed), "memory://gc").unwrap();
        let stats = Arc::new(GcStats::default());
        let config = GcConfig {
            interval: Duration::from_secs(1),
            min_age: MIN_AGE,
        };
        let collector = Collector::new(store.clone(), clock.clone(), config, Arc::clone(&stats));
        Bed {
            clock,
            store,
            collector,
            inputs: FakeInputs::default(),
            stats,
        }
    }

    pub fn advance(&self, d: Duration) {
        self.clock.advance(i64::try_from(d.as_millis()).unwrap());
    }

    pub fn put(&self, key: &str) {
        let bytes = Bytes::from(format!("bytes of {key}"));
        self.store
            .put_overwrite(&ObjectPath::from(key), bytes)
            .unwrap();
    }

    pub fn exists(&self, key: &str) -> bool {
        self.store.head(&ObjectPath::from(key)).is_ok()
    }

    pub fn keys(&self) -> HashSet<String> {
        let mut all = HashSet::new();
        for prefix in ["data", "wal", "probe"] {
            for meta in self.store.list(&ObjectPath::from(prefix)).unwrap() {
                all.insert(meta.location.to_string());
            }
        }
        all
    }

    /// Writes manifest `number` of (rid, family) listing `files` (relative paths under
    /// `data/`, each with a row range when it is a reference).
    pub fn manifest(&self, rid: u64, family: &str, number: u64, files: &[(String, bool)]) {
        let mut state = ManifestState::empty();
        for (i, (path, reference)) in files.iter().enumerate() {
            state.files.push(entry(i as u64 + 1, path, *reference));
        }
        state.next_file_number = files.len() as u64 + 1;
        let bytes = encode_manifest(number, &state).unwrap();
        let key = ObjectPath::from(manifest_key(rid, family, number));
        self.store.put_overwrite(&key, Bytes::from(bytes)).unwrap();
    }

    pub fn pass(&mut self) -> PassReport {
        self.collector.pass(&self.inputs).unwrap()
    }

    pub fn state(&self) -> parking_lot::MutexGuard<'_, Snapshot> {
        self.inputs.snapshot.lock()
    }
}

fn entry(file_number: u64, path: &str, reference: bool) -> StoreFileEntry {
    StoreFileEntry {
        file_number,
        volume: "default".into(),
        relative_path: path.into(),
        size: 10,
        entries: 1,
        min_ts: 1,
        max_ts: 1,
        max_seq: 1,
        first_key: b"a".to_vec(),
        last_key: b"z".to_vec(),
        origin: FileOrigin::Flush,
        created_at_ms: 1,
        range: reference.then(|| RowRange {
            start: b"a".to_vec(),
            end: b"m".to_vec(),
        }),
    }
}

/// `regions/<rid>/<family>/<name>.sst`, relative to `data/`.
pub(super) fn sst(rid: u64, family: &str, name: &str) -> String {
    format!("regions/{rid:016x}/{family}/{name}.sst")
}

pub(super) fn data(relative: &str) -> String {
    format!("data/{relative}")
}

#[test]
fn live_files_stay_and_obsolete_ones_go_only_after_both_ages() {
    let mut bed = Bed::new();
    let (a, b) = (sst(1, "cf", "a"), sst(1, "cf", "b"));
    bed.put(&data(&a));
    bed.put(&data(&b));
    bed.manifest(1, "cf", 1, &[(a.clone(), false)]);
    bed.manifest(1, "cf", 2, &[(b.clone(), false)]);
    bed.state().live_regions.insert(1);
    bed.state().pointers = vec![(1, "cf".into(), 2)];

    // Old by the store's clock, but not seen as garbage for long yet.
    bed.advance(MIN_AGE * 2);
    let report = bed.pass();
    assert_eq!((report.garbage, report.deleted_objects), (2, 0));
    bed.advance(MIN_AGE - Duration::from_millis(1));
    assert_eq!(bed.pass().deleted_objects, 0);
    bed.advance(Duration::from_millis(1));
    let report = bed.pass();
    assert_eq!(report.deleted_objects, 2);
    assert!(!bed.exists(&data(&a)));
    assert!(!bed.exists(&manifest_key(1, "cf", 1)));
    assert!(bed.exists(&data(&b)));
    assert!(bed.exists(&manifest_key(1, "cf", 2)));
    let figures = bed.stats.figures();
    assert_eq!(figures.strata_gc_deleted_objects_total, 2);
    assert_eq!(figures.strata_gc_passes_total, 3);
    assert!(figures.strata_gc_deleted_bytes_total > 0);
}

#[test]
fn young_objects_stay_however_long_they_were_seen() {
    let mut bed = Bed::new();
    bed.state().live_regions.insert(1);
    bed.pass();
    bed.advance(MIN_AGE * 3);
    // An in-flight flush: its SSTable and manifest candidate, the pointer not moved yet.
    let c = sst(1, "cf", "c");
    bed.put(&data(&c));
    bed.manifest(1, "cf", 1, &[(c.clone(), false)]);
    bed.pass();
    bed.advance(MIN_AGE / 2);
    assert_eq!(bed.pass().deleted_objects, 0);
    // The commit lands: live from then on.
    bed.state().pointers = vec![(1, "cf".into(), 1)];
    bed.advance(MIN_AGE * 3);
    bed.pass();
    assert_eq!(bed.pass().garbage, 0);
    assert!(bed.exists(&data(&c)));
}

#[test]
fn a_candidate_that_was_live_in_between_starts_over() {
    let mut bed = Bed::new();
    let a = sst(1, "cf", "a");
    bed.put(&data(&a));
    bed.manifest(1, "cf", 1, &[(a.clone(), false)]);
    bed.manifest(1, "cf", 2, &[]);
    bed.state().live_regions.insert(1);
    bed.advance(MIN_AGE * 2);
    // Seen as garbage (pointer 2), then live again in one pass's view (pointer read as 1).
    bed.state().pointers = vec![(1, "cf".into(), 2)];
    bed.pass();
    bed.advance(MIN_AGE / 2);
    bed.state().pointers = vec![(1, "cf".into(), 1)];
    bed.pass();
    bed.state().pointers = vec![(1, "cf".into(), 2)];
    bed.advance(MIN_AGE / 2 + Duration::from_secs(1));
    assert_eq!(
        bed.pass().deleted_objects,
        0,
        "seen continuously only since the last pass"
    );
    bed.advance(MIN_AGE);
    assert_eq!(bed.pass().deleted_objects, 2);
}

#[test]
fn files_a_reader_holds_stay_until_released() {
    let mut bed = Bed::new();
    let a = sst(1, "cf", "a");
    bed.put(&data(&a));
    bed.manifest(1, "cf", 1, &[]);
    bed.state().live_regions.insert(1);
    bed.state().pointers = vec![(1, "cf".into(), 1)];
    bed.state().held.insert(data(&a));
    bed.advance(MIN_AGE * 2);
    bed.pass();
    bed.advance(MIN_AGE * 2);
    let report = bed.pass();
    assert_eq!((report.held, report.deleted_objects), (1, 0));
    bed.state().held.clear();
    assert_eq!(bed.pass().deleted_objects, 1);
}

#[test]
fn reference_entries_keep_their_parents_files() {
    let mut bed = Bed::new();
    let (p, q) = (sst(1, "cf", "p"), sst(1, "cf", "q"));
    let own = sst(2, "cf", "own");
    for key in [&p, &q, &own] {
        bed.put(&data(key));
    }
    // The parent (region 1, split) is no table's any more; daughter 2 refers to p.
    bed.manifest(1, "cf", 3, &[(p.clone(), false), (q.clone(), false)]);
    bed.manifest(2, "cf", 1, &[(p.clone(), true), (own.clone(), false)]);
    bed.state().live_regions.insert(2);
    bed.state().pointers = vec![(1, "cf".into(), 3), (2, "cf".into(), 1)];
    bed.advance(MIN_AGE * 2);
    bed.pass();
    bed.advance(MIN_AGE * 2);
    let report = bed.pass();
    assert_eq!(report.deleted_objects, 1);
    assert!(!bed.exists(&data(&q)), "referenced by nobody");
    assert!(bed.exists(&data(&p)), "the daughter reads it");
    assert!(bed.exists(&manifest_key(1, "cf", 3)), "a pointer names it");
    assert!(bed.exists(&data(&own)));
}

#[test]
fn a_dropped_tables_files_go_but_not_the_manifest_its_pointer_names() {
    let mut bed = Bed::new();
    let (a, b) = (sst(3, "cf", "a"), sst(4, "cf", "b"));
    bed.put(&data(&a));
    bed.put(&data(&b));
    bed.manifest(3, "cf", 2, &[(a.clone(), false)]);
    bed.manifest(4, "cf", 1, &[(b.clone(), false)]);
    bed.state().pointers = vec![(3, "cf".into(), 2)];
    bed.put(&format!("{}cf/notes.txt", region_prefix(3)));
    bed.advance(MIN_AGE * 2);
    bed.pass();
    bed.advance(MIN_AGE * 2);
    assert_eq!(bed.pass().deleted_objects, 3);
    let left = bed.keys();
    let expected: HashSet<String> = [
        manifest_key(3, "cf", 2),
        format!("{}cf/notes.txt", region_prefix(3)),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        left, expected,
        "only the pointed-to manifest and what is not the engine's"
    );
}

fn put_stream(bed: &Bed, stream: StreamId, ids: std::ops::Range<u64>) {
    for id in ids {
        bed.put(stream.object_path(id).as_ref());
    }
}

fn stream_ids(bed: &Bed, stream: StreamId) -> Vec<u64> {
    let mut ids: Vec<u64> = bed
        .store
        .list(&stream.prefix())
        .unwrap()
        .iter()
        .filter_map(|m| stream.parse_object_id(&m.location))
        .collect();
    ids.sort_unstable();
    ids
}

fn record(state: &str, first_live_id: Option<u64>) -> StreamRecord {
    StreamRecord {
        v: strata_coord::records::FORMAT_VERSION,
        state: state.into(),
        first_live_id,
    }
}

#[test]
fn wal_objects_below_first_live_go_and_the_newest_always_stays() {
    let mut bed = Bed::new();
    let (live, ahead, retired, unknown) = (
        StreamId::new(11, 2),
        StreamId::new(12, 3),
        StreamId::new(13, 4),
        StreamId::new(14, 5),
    );
    for s in [live, ahead, retired, unknown] {
        put_stream(&bed, s, 0..6);
    }
    {
        let mut state = bed.state();
        state.streams.insert("11-2".into(), record("live", Some(3)));
        state.streams.insert("12-3".into(), record("live", Some(9)));
        state
            .streams
            .insert("13-4".into(), record("replayed", None));
    }
    bed.advance(MIN_AGE * 2);
    bed.pass();
    bed.advance(MIN_AGE * 2);
    bed.pass();
    assert_eq!(stream_ids(&bed, live), vec![3, 4, 5]);
    assert_eq!(
        stream_ids(&bed, ahead),
        vec![5],
        "never the newest of a live stream"
    );
    assert!(stream_ids(&bed, retired).is_empty());
    assert_eq!(stream_ids(&bed, unknown), (0..6).collect::<Vec<_>>());
}

#[test]
fn a_stream_is_deleted_oldest_first_and_never_gets_a_hole() {
    let mut bed = Bed::new();
    let s = StreamId::new(21, 1);
    put_stream(&bed, s, 0..2);
    put_stream(&bed, s, 3..4);
    bed.state()
        .streams
        .insert("21-1".into(), record("replayed", None));
    bed.pass();
    bed.advance(MIN_AGE);
    put_stream(&bed, s, 2..3); // young (a test's stand-in for any object that must wait)
    bed.pass();
    assert_eq!(
        stream_ids(&bed, s),
        vec![2, 3],
        "3 is old enough but waits for 2"
    );
    bed.advance(MIN_AGE);
    bed.pass();
    assert!(stream_ids(&bed, s).is_empty());
}

#[test]
fn a_server_that_is_not_master_deletes_nothing() {
    let mut bed = Bed::new();
    let a = sst(9, "cf", "a");
    bed.put(&data(&a));
    bed.advance(MIN_AGE * 2);
    bed.pass();
    bed.inputs.not_master.store(true, Ordering::SeqCst);
    bed.advance(MIN_AGE * 2);
    assert!(bed.collector.pass(&bed.inputs).is_err());
    assert!(bed.exists(&data(&a)));
    // Leading again (a new term), it starts over: the full age again.
    bed.inputs.not_master.store(false, Ordering::SeqCst);
    assert_eq!(bed.pass().deleted_objects, 0);
    bed.advance(MIN_AGE);
    assert_eq!(bed.pass().deleted_objects, 1);
    assert_eq!(bed.stats.figures().strata_gc_failed_passes_total, 1);
}

#[test]
fn an_unreadable_live_manifest_stops_the_whole_pass() {
    let mut bed = Bed::new();
    let a = sst(5, "cf", "a");
    bed.put(&data(&a));
    bed.state().live_regions.insert(1);
    bed.state().pointers = vec![(1, "cf".into(), 7)]; // MANIFEST-7 is missing
    bed.advance(MIN_AGE * 2);
    assert!(bed.collector.pass(&bed.inputs).is_err());
    bed.advance(MIN_AGE * 2);
    assert!(bed.collector.pass(&bed.inputs).is_err());
    assert!(bed.exists(&data(&a)));
}

#[test]
fn probe_scratch_objects_go_once_old() {
    let mut bed = Bed::new();
    bed.put("probe/create-0123");
    bed.pass();
    bed.advance(MIN_AGE);
    assert_eq!(bed.pass().deleted_objects, 1);
    assert!(bed.keys().is_empty());
}

/// Made-up inputs that, at each check of the leadership, note the deletion counters and
/// refuse from the `refuse_from`th check on.
struct Watching {
    stats: Arc<GcStats>,
    refuse_from: usize,
    /// At each check: (deleted objects, deleted bytes).
    seen: Mutex<Vec<(u64, u64)>>,
}

impl Watching {
    fn new(bed: &Bed, refuse_from: usize) -> Self {
        Watching {
            stats: Arc::clone(&bed.stats),
            refuse_from,
            seen: Mutex::new(Vec::new()),
        }
    }
}

impl GcInputs for Watching {
    fn may_delete(&self) -> Result<()> {
        let figures = self.stats.figures();
        let mut seen = self.seen.lock();
        seen.push((
            figures.strata_gc_deleted_objects_total,
            figures.strata_gc_deleted_bytes_total,
        ));
        if seen.len() >= self.refuse_from {
            return Err(Error::Collector("lease expired".into()));
        }
        Ok(())
    }
    fn snapshot(&self) -> Result<Snapshot> {
        Ok(Snapshot::default())
    }
}

/// 150 SSTables of a dropped region, old and seen as garbage long enough.
fn doomed_batches(bed: &mut Bed) {
    for i in 0..150 {
        bed.put(&data(&sst(6, "cf", &format!("f{i:03}"))));
    }
    bed.advance(MIN_AGE * 2);
    bed.pass();
    bed.advance(MIN_AGE);
}

/// Issue 25: a reader of the counters who sees objects gone must see them counted, even
/// while the pass that deleted them is still under way (it may take minutes).
#[test]
fn deletions_are_counted_as_they_happen_not_when_the_pass_ends() {
    let mut bed = Bed::new();
    doomed_batches(&mut bed);
    let size = |i: usize| format!("bytes of {}", data(&sst(6, "cf", &format!("f{i:03}")))).len();
    let first_batch: u64 = (0..64).map(|i| size(i) as u64).sum();
    let inputs = Watching::new(&bed, usize::MAX);
    let report = bed.collector.pass(&inputs).unwrap();
    assert_eq!(report.deleted_objects, 150);
    // Checks: the pass's first, then one before each batch of 64 (64, 64, 22).
    let seen = inputs.seen.lock().clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen[..2], [(0, 0), (0, 0)]);
    assert_eq!(
        seen[2],
        (64, first_batch),
        "the first batch, counted before the second"
    );
    assert_eq!(seen[3].0, 128);
    let figures = bed.stats.figures();
    assert_eq!(figures.strata_gc_deleted_objects_total, 150);
    assert_eq!(figures.strata_gc_deleted_bytes_total, report.deleted_bytes);
    assert_eq!(figures.strata_gc_passes_total, 2);
    assert_eq!(figures.strata_gc_failed_passes_total, 0);
}

/// A master that loses its lease in the middle of a pass stops there, with an error: no
/// further delete, no further listing (a later group's garbage stays), what it deleted
/// counted, and what it had seen forgotten (a new term waits the full age again).
#[test]
fn a_pass_that_loses_the_leadership_stops_with_an_error_and_counts_what_it_deleted() {
    let mut bed = Bed::new();
    bed.put("probe/create-0123");
    doomed_batches(&mut bed);
    // The pass's first check and the first batch's pass; the second batch's fails.
    let inputs = Watching::new(&bed, 3);
    assert!(bed.collector.pass(&inputs).is_err());
    assert_eq!(inputs.seen.lock().len(), 3, "no check after the refusal");
    let keys = bed.keys();
    assert_eq!(keys.len(), 150 - 64 + 1, "one batch deleted");
    assert!(
        keys.contains("probe/create-0123"),
        "the pass ended at the refusal"
    );
    let figures = bed.stats.figures();
    assert_eq!(figures.strata_gc_deleted_objects_total, 64);
    assert!(figures.strata_gc_deleted_bytes_total > 0);
    assert_eq!(figures.strata_gc_passes_total, 2);
    assert_eq!(figures.strata_gc_failed_passes_total, 1);

    assert_eq!(bed.pass().deleted_objects, 0, "first seen again just now");
    bed.advance(MIN_AGE);
    assert_eq!(bed.pass().deleted_objects, 150 - 64 + 1);
    assert_eq!(bed.stats.figures().strata_gc_deleted_objects_total, 151);
}

#[test]
fn the_inputs_come_from_the_catalog_pointers_held_records_and_streams() {
    use strata_coord::{Campaign, CoordOptions, MemCoordinator, MemKv};
    use strata_runtime::clock::Clock;
    use strata_server::catalog::{encode_table, RegionEntry, TableRecord};

    let clock = Arc::new(ManualClock::new(1_000_000));
    let kv = MemKv::new(clock.clone());
    let coord = Arc::new(
        MemCoordinator::new(kv.connect("m"), clock.clone(), CoordOptions::new("c")).unwrap(),
    );
    let lease = coord.grant_lease().unwrap();
    let Campaign::Won(lead) = coord.campaign(&lease, "m", "m:1").unwrap() else {
        panic!("the key is free")
    };
    let record = TableRecord {
        families: vec![strata_engine::FamilyOptions::new("cf")],
        enabled: true,
        regions: vec![RegionEntry {
            id: 4,
            start_key: Bytes::new(),
            end_key: Bytes::new(),
        }],
        durability: Default::default(),
        metadata: Default::default(),
    };
    coord
        .put_catalog_entry(&lead, "table/default:t", encode_table(&record))
        .unwrap();
    let epoch = coord
        .create_region(
            &lead,
            4,
            &strata_coord::RegionRecord::new("default:t", b"", b""),
        )
        .unwrap();
    let epoch = coord.assign_region(&lead, 4, epoch, Some("m")).unwrap();
    coord.claim_region(&lease, "m", 1, 4, epoch).unwrap();
    coord.commit_manifest(&lease, 4, epoch, "cf", 3).unwrap();
    coord
        .publish_held(&lease, "m", &["data/x.sst".to_string()])
        .unwrap();
    coord.publish_own_stream_progress(&lease, "m-1", 7).unwrap();

    let master = Arc::new(AtomicBool::new(true));
    let is_master = {
        let master = Arc::clone(&master);
        Arc::new(move || master.load(Ordering::SeqCst))
    };
    let inputs = CoordInputs::new(
        Arc::clone(&coord),
        Arc::clone(&lease),
        clock.clone(),
        is_master,
    );
    let snapshot = inputs.snapshot().unwrap();
    assert_eq!(snapshot.live_regions, HashSet::from([4]));
    assert_eq!(snapshot.pointers, vec![(4, "cf".to_string(), 3)]);
    assert_eq!(snapshot.held, HashSet::from(["data/x.sst".to_string()]));
    let streams: HashMap<String, StreamRecord> = snapshot.streams;
    assert_eq!(streams["m-1"].first_live_id, Some(7));
    inputs.may_delete().unwrap();
    master.store(false, Ordering::SeqCst);
    assert!(inputs.may_delete().is_err());
    master.store(true, Ordering::SeqCst);
    clock.advance(5_000); // past the lease's own deadline
    let _ = clock.now();
    assert!(inputs.may_delete().is_err());
}
