//! [`Collector`]: one pass over the store. Listings go one group at a time (a region's
//! directory, a WAL stream, the probes), so memory holds one group's listing, the live
//! keys, and the keys seen as garbage so far.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::path::Path as ObjectPath;
use object_store::ObjectMeta;
use strata_engine::tools::parse_manifest_file_name;
use strata_objstore::{list_streams, BlockingStore, RetryPolicy};
use strata_runtime::clock::Clock;

use crate::error::{Error, Result};
use crate::gc::inputs::{GcInputs, Snapshot};
use crate::gc::live::{region_prefix, LiveSet};
use crate::gc::wal::deletable_below;
use crate::gc::{GcConfig, GcStats};
use crate::objects::{stream_name, DATA_ROOT};

/// Deletes between two checks of the leadership and the lease.
const BATCH: usize = 64;

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Objects found to be garbage (deleted or not yet).
    pub garbage: u64,
    pub deleted_objects: u64,
    pub deleted_bytes: u64,
    /// Garbage kept because a live server holds it for a reader.
    pub held: u64,
}

/// An object judged garbage, with what its deletion depends on.
struct Candidate {
    key: String,
    size: u64,
    /// By the store's clock, milliseconds since the epoch.
    modified_ms: i64,
}

/// The collector of one master. Its memory of when each object was first seen as garbage
/// starts empty: a new master waits the full minimum age again, which is only slower.
pub struct Collector {
    store: BlockingStore,
    clock: Arc<dyn Clock>,
    retry: RetryPolicy,
    config: GcConfig,
    stats: Arc<GcStats>,
    /// By group (a region's prefix, a stream's prefix, `probe/`): when each of its
    /// objects was first seen as garbage, among those seen so in the last pass.
    first_seen: HashMap<String, HashMap<String, Instant>>,
}

impl Collector {
    /// A collector deleting from `store`, timing ages on `clock`.
    pub fn new(
        store: BlockingStore,
        clock: Arc<dyn Clock>,
        config: GcConfig,
        stats: Arc<GcStats>,
    ) -> Self {
        Collector {
            retry: RetryPolicy::with_clock(Arc::clone(&clock)),
            store,
            clock,
            config,
            stats,
            first_seen: HashMap::new(),
        }
    }

    /// The counters this collector adds to.
    pub fn stats(&self) -> &GcStats {
        &self.stats
    }

    /// One pass. Deletes nothing unless `inputs` says this process may, and stops (with
    /// an error) as soon as it may not any more.
    pub fn pass(&mut self, inputs: &dyn GcInputs) -> Result<PassReport> {
        let started = self.clock.now();
        let outcome = self.run(inputs);
        // Deletions were counted one by one as they happened (`delete`); only the pass's
        // own figures are left.
        self.stats
            .count_pass(self.clock.elapsed(started), outcome.is_err());
        outcome
    }

    fn run(&mut self, inputs: &dyn GcInputs) -> Result<PassReport> {
        self.check_may_delete(inputs)?;
        let snapshot = inputs.snapshot()?;
        let live = LiveSet::read(&self.store, &self.retry, &snapshot)?;
        let mut report = PassReport::default();
        let mut visited = HashSet::new();
        self.collect_regions(inputs, &snapshot, &live, &mut visited, &mut report)?;
        self.collect_probes(inputs, &mut visited, &mut report)?;
        self.collect_streams(inputs, &snapshot, &mut visited, &mut report)?;
        self.first_seen.retain(|group, _| visited.contains(group));
        Ok(report)
    }

    /// Every region directory: what the live set lacks is garbage.
    fn collect_regions(
        &mut self,
        inputs: &dyn GcInputs,
        snapshot: &Snapshot,
        live: &LiveSet,
        visited: &mut HashSet<String>,
        report: &mut PassReport,
    ) -> Result<()> {
        let root = ObjectPath::from(format!("{DATA_ROOT}/regions"));
        let dirs = self.retry.run(|| self.store.list_children(&root));
        for dir in dirs.map_err(|e| self.store_error(e))? {
            let Some(rid) = parse_region_dir(&dir) else {
                continue;
            };
            let group = region_prefix(rid);
            let Some(objects) = self.list_group(&group, visited) else {
                continue;
            };
            let garbage = objects
                .into_iter()
                .filter(|o| is_table_object(&group, o.location.as_ref()))
                .filter(|o| !live.contains(o.location.as_ref()))
                .map(candidate)
                .collect();
            self.judge_and_delete(inputs, &group, garbage, &snapshot.held, false, report)?;
        }
        Ok(())
    }

    /// The start-up probes' objects: scratch, garbage once old.
    fn collect_probes(
        &mut self,
        inputs: &dyn GcInputs,
        visited: &mut HashSet<String>,
        report: &mut PassReport,
    ) -> Result<()> {
        let group = "probe/".to_string();
        if let Some(objects) = self.list_group(&group, visited) {
            let garbage = objects.into_iter().map(candidate).collect();
            self.judge_and_delete(inputs, &group, garbage, &HashSet::new(), false, report)?;
        }
        Ok(())
    }

    /// WAL streams, each by its record (`wal.rs`), oldest objects first.
    fn collect_streams(
        &mut self,
        inputs: &dyn GcInputs,
        snapshot: &Snapshot,
        visited: &mut HashSet<String>,
        report: &mut PassReport,
    ) -> Result<()> {
        let streams = list_streams(&self.store, &self.retry).map_err(|e| self.store_error(e))?;
        for stream in streams {
            let record = snapshot.streams.get(&stream_name(stream));
            if record.is_none() {
                continue;
            }
            let group = format!("{}/", stream.prefix());
            let Some(objects) = self.list_group(&group, visited) else {
                continue;
            };
            let mut objects: Vec<(u64, ObjectMeta)> = objects
                .into_iter()
                .filter_map(|o| Some((stream.parse_object_id(&o.location)?, o)))
                .collect();
            objects.sort_by_key(|(id, _)| *id);
            let newest = objects.last().map(|(id, _)| *id);
            let Some(below) = deletable_below(record, newest) else {
                self.first_seen.remove(&group);
                continue;
            };
            let garbage = objects
                .into_iter()
                .take_while(|(id, _)| *id < below)
                .map(|(_, o)| candidate(o))
                .collect();
            self.judge_and_delete(inputs, &group, garbage, &HashSet::new(), true, report)?;
        }
        Ok(())
    }

    /// Lists `group`; on failure forgets what it saw there (its first-seen times start
    /// over) and returns `None`.
    fn list_group(
        &mut self,
        group: &str,
        visited: &mut HashSet<String>,
    ) -> Option<Vec<ObjectMeta>> {
        let prefix = ObjectPath::from(group.trim_end_matches('/'));
        match self.retry.run(|| self.store.list(&prefix)) {
            Ok(objects) => {
                visited.insert(group.to_owned());
                Some(objects)
            }
            Err(e) => {
                tracing::warn!(group, error = %e, "garbage collection cannot list; skipped");
                self.first_seen.remove(group);
                None
            }
        }
    }

    /// Notes `garbage` as seen now, and deletes what is old enough, seen as garbage long
    /// enough, and held by no reader. `in_order`: stop at the first object that must
    /// stay (a WAL stream may not get a hole).
    fn judge_and_delete(
        &mut self,
        inputs: &dyn GcInputs,
        group: &str,
        garbage: Vec<Candidate>,
        held: &HashSet<String>,
        in_order: bool,
        report: &mut PassReport,
    ) -> Result<()> {
        let now = self.clock.now();
        let now_ms = self.clock.now_millis();
        let min_age = self.config.min_age;
        let previous = self.first_seen.remove(group).unwrap_or_default();
        let mut seen = HashMap::with_capacity(garbage.len());
        let mut doomed = Vec::new();
        let mut blocked = false;
        for c in garbage {
            let first = previous.get(&c.key).copied().unwrap_or(now);
            seen.insert(c.key.clone(), first);
            report.garbage += 1;
            let is_held = held.contains(&c.key);
            report.held += u64::from(is_held);
            let old = age(now_ms, c.modified_ms) >= min_age;
            let long_seen = now.saturating_duration_since(first) >= min_age;
            if old && long_seen && !is_held && !blocked {
                doomed.push(c);
            } else if in_order {
                blocked = true;
            }
        }
        let outcome = self.delete(inputs, &doomed, &mut seen, report);
        // After a refusal the first-seen times are void (`check_may_delete`).
        if outcome.is_ok() && !seen.is_empty() {
            self.first_seen.insert(group.to_owned(), seen);
        }
        outcome
    }

    /// Deletes `doomed` in order, in batches, each after checking the leadership and the
    /// lease, and forgets each deleted key from `seen`. A store failure stops this group
    /// (the rest is tried again next pass); a refusal to delete stops the whole pass, with
    /// the error, so that a master stepping down does not go on listing the store.
    fn delete(
        &mut self,
        inputs: &dyn GcInputs,
        doomed: &[Candidate],
        seen: &mut HashMap<String, Instant>,
        report: &mut PassReport,
    ) -> Result<()> {
        for batch in doomed.chunks(BATCH) {
            self.check_may_delete(inputs)?;
            for c in batch {
                let path = ObjectPath::from(c.key.as_str());
                if let Err(e) = self.retry.run(|| self.store.delete(&path)) {
                    tracing::warn!(key = c.key, error = %e, "garbage collection could not delete");
                    return Ok(());
                }
                tracing::debug!(key = c.key, bytes = c.size, "garbage collected");
                // Counted now rather than at the pass's end: whoever sees the object gone
                // must see it counted (issue 25).
                self.stats.count_deletion(c.size);
                report.deleted_objects += 1;
                report.deleted_bytes += c.size;
                seen.remove(&c.key);
            }
        }
        Ok(())
    }

    /// `inputs.may_delete()`; on a refusal also forgets every first-seen time, because
    /// what this process saw while it led says nothing to a later leadership.
    fn check_may_delete(&mut self, inputs: &dyn GcInputs) -> Result<()> {
        // The runner logs the error, with the pass's end.
        inputs.may_delete().inspect_err(|_| self.first_seen.clear())
    }

    fn store_error(&self, source: strata_objstore::Error) -> Error {
        Error::Store {
            url: self.store.name().to_owned(),
            source,
        }
    }
}

/// The age of an object modified at `modified_ms`, by the master's wall clock (zero when
/// the store's clock is ahead).
fn age(now_ms: i64, modified_ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(now_ms.saturating_sub(modified_ms)).unwrap_or(0))
}

fn candidate(meta: ObjectMeta) -> Candidate {
    Candidate {
        key: meta.location.to_string(),
        size: meta.size,
        modified_ms: meta.last_modified.timestamp_millis(),
    }
}

/// The region id of a directory under `data/regions/` (16 lowercase hex digits).
fn parse_region_dir(name: &str) -> Option<u64> {
    let hex = name.len() == 16 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    hex.then(|| u64::from_str_radix(name, 16).ok()).flatten()
}

/// True for `<group><family>/MANIFEST-<n>` and `<group><family>/<name>.sst`: the only
/// names the collector deletes under a region (anything else is not the engine's).
fn is_table_object(group: &str, key: &str) -> bool {
    let Some(rest) = key.strip_prefix(group) else {
        return false;
    };
    let Some((family, name)) = rest.split_once('/') else {
        return false;
    };
    !family.is_empty()
        && !name.contains('/')
        && (parse_manifest_file_name(name).is_some() || name.ends_with(".sst"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_engines_names_under_a_region_are_judged() {
        let g = "data/regions/0000000000000007/";
        assert!(is_table_object(
            g,
            "data/regions/0000000000000007/cf/MANIFEST-00000000000000000003"
        ));
        assert!(is_table_object(
            g,
            "data/regions/0000000000000007/cf/0000000000000001-s1i2.sst"
        ));
        assert!(!is_table_object(
            g,
            "data/regions/0000000000000007/cf/notes.txt"
        ));
        assert!(!is_table_object(g, "data/regions/0000000000000007/x.sst"));
        assert!(!is_table_object(
            g,
            "data/regions/0000000000000007/cf/sub/a.sst"
        ));
        assert_eq!(parse_region_dir("0000000000000007"), Some(7));
        assert_eq!(parse_region_dir("000000000000007"), None);
        assert_eq!(parse_region_dir("000000000000000G"), None);
    }
}
