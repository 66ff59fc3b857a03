//! Opening the WAL groups at engine open: where each group lives, and every group
//! directory found on any volume, replayed whether or not a group writes there now.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::{Leftover, LogPlace, WalGroups};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, Volumes};
use crate::options::{WalGroupCount, WalOptions};
use crate::util::clock::Clock;
use crate::wal::edit::WalEdit;
use crate::wal::format::{group_dir_name, parse_group_dir_name};
use crate::wal::local::LocalSegments;
use crate::wal::stats::WalCounters;
use crate::wal::Wal;

/// A WAL group directory on a volume.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GroupDir {
    volume: String,
    dir: PathBuf,
}

/// Opens the configured groups on their volumes and replays every group directory found
/// on any volume, calling `on_edit` for each edit. A region's edits arrive in seq order
/// within each directory, but may come from two (after the group count changed).
pub(crate) fn open_groups(
    volumes: &Volumes,
    clock: Arc<dyn Clock>,
    opts: &WalOptions,
    on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
) -> Result<WalGroups> {
    let homes = group_homes(volumes, opts.groups)?;
    let found = find_group_dirs(volumes)?;
    let fs = volumes.fs();
    let mut groups = Vec::with_capacity(homes.len());
    let mut places = Vec::with_capacity(homes.len());
    for home in &homes {
        let mut replayed = HashSet::new();
        let mut noting = |edit: WalEdit| {
            replayed.insert(edit.region_id);
            on_edit(edit)
        };
        let wal = Wal::open(
            Arc::clone(fs),
            Arc::clone(&clock),
            home.dir.clone(),
            opts.clone(),
            &mut noting,
        )?;
        groups.push(wal);
        places.push(place(home, replayed));
    }
    let mut leftovers = Vec::new();
    for dir in found.iter().filter(|d| !homes.contains(d)) {
        if let Some((leftover, place)) = open_leftover(fs, &clock, dir, on_edit)? {
            leftovers.push(leftover);
            places.push(place);
        }
    }
    Ok(WalGroups {
        groups,
        leftovers,
        places,
    })
}

/// The directory of each group: group `g` on the `g mod n`-th of the `n` WAL volumes.
fn group_homes(volumes: &Volumes, count: WalGroupCount) -> Result<Vec<GroupDir>> {
    let wal_volumes = volumes.wal_volumes();
    let count = match count {
        WalGroupCount::Fixed(n) if (1..=WalGroupCount::MAX).contains(&n) => n,
        WalGroupCount::Fixed(n) => {
            let max = WalGroupCount::MAX;
            let msg = format!("{n} WAL groups: there must be 1 to {max}");
            return Err(Error::InvalidArgument(msg));
        }
        WalGroupCount::PerVolume => wal_volumes.len().clamp(1, WalGroupCount::MAX),
    };
    if wal_volumes.is_empty() {
        return Err(Error::InvalidArgument("no volume for the WAL".into()));
    }
    let homes = (0..count)
        .map(|group| {
            let volume = wal_volumes[group % wal_volumes.len()];
            GroupDir {
                volume: volume.name.clone(),
                dir: volume.root.join(group_dir_name(group)),
            }
        })
        .collect();
    Ok(homes)
}

/// Every WAL group directory at the root of any volume.
fn find_group_dirs(volumes: &Volumes) -> Result<Vec<GroupDir>> {
    let mut found = Vec::new();
    for volume in volumes.list() {
        for name in volumes.fs().list(&volume.root)? {
            if parse_group_dir_name(&name).is_some() {
                found.push(GroupDir {
                    volume: volume.name.clone(),
                    dir: volume.root.join(name),
                });
            }
        }
    }
    Ok(found)
}

/// Replays a group directory no group writes to now. `None` when it holds no segment:
/// it is removed, so it is not found again.
fn open_leftover(
    fs: &Arc<dyn FileSystem>,
    clock: &Arc<dyn Clock>,
    dir: &GroupDir,
    on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
) -> Result<Option<(Leftover, LogPlace)>> {
    let counters = Arc::new(WalCounters::new(Arc::clone(clock)));
    let mut replayed = HashSet::new();
    let mut noting = |edit: WalEdit| {
        replayed.insert(edit.region_id);
        on_edit(edit)
    };
    let segments = LocalSegments::replay_only(
        Arc::clone(fs),
        dir.dir.clone(),
        Arc::clone(&counters),
        &mut noting,
    )?;
    if counters.snapshot().segments == 0 {
        fs.remove_dir_all(&dir.dir)?;
        return Ok(None);
    }
    tracing::info!(
        dir = %dir.dir.display(),
        "no WAL group writes to this directory any more; its segments go once flushed"
    );
    let leftover = Leftover {
        segments: Arc::new(segments),
        counters,
    };
    Ok(Some((leftover, place(dir, replayed))))
}

fn place(dir: &GroupDir, replayed: HashSet<u64>) -> LogPlace {
    LogPlace {
        volume: dir.volume.clone(),
        dir: dir.dir.clone(),
        replayed,
    }
}
