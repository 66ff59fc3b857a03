//! Building the disk a restarted process finds after a crash.

use std::collections::HashMap;
use std::path::Path;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::state::{is_root, Entry, FileData, FileId, Namespace, State};

/// What a power cut may leave behind beyond the synced bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrashOptions {
    /// Each file may keep a prefix of the bytes written after its last sync (the disk had
    /// written some of them when the power went).
    pub keep_unsynced_prefix: bool,
    /// A file may end in garbage bytes in place of part of its unsynced tail (a torn sector).
    pub garbage_tail: bool,
}

impl CrashOptions {
    /// Only synced bytes and dir-synced names survive: the worst case the engine must handle
    /// without any help from luck.
    pub fn strict() -> Self {
        CrashOptions {
            keep_unsynced_prefix: false,
            garbage_tail: false,
        }
    }
}

impl Default for CrashOptions {
    /// Torn writes on: unsynced prefixes and garbage tails may appear.
    fn default() -> Self {
        CrashOptions {
            keep_unsynced_prefix: true,
            garbage_tail: true,
        }
    }
}

/// After `kill -9`: the OS keeps everything it was handed, so the live namespace and every
/// file's OS bytes carry over. The durable level is kept too, so a power cut can follow.
/// Files that only open handles kept alive (removed while open) are gone.
pub(super) fn process_crash(old: &State) -> State {
    let mut new = State::with_capacity(old.capacity);
    let mut ids = HashMap::new();
    for (ns, map) in [
        (Namespace::Live, &old.live),
        (Namespace::Durable, &old.durable),
    ] {
        for (path, entry) in map {
            let entry = match entry {
                Entry::Dir => Entry::Dir,
                Entry::File(id) => Entry::File(*ids.entry(*id).or_insert_with(|| {
                    let data = old.files.get(id).cloned().unwrap_or_default();
                    new.new_file(FileData::new(data.os, data.durable))
                })),
            };
            new.set_entry(ns, path.clone(), Some(entry));
        }
    }
    new
}

/// After a power cut: only durable names whose parent directories are also durable exist,
/// and each file holds its synced bytes plus whatever `opts` allows of its unsynced tail.
pub(super) fn power_loss(old: &State, seed: u64, opts: CrashOptions) -> State {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut new = State::with_capacity(old.capacity);
    let mut ids: HashMap<FileId, FileId> = HashMap::new();
    // Parents sort before their children, so one pass sees each parent first.
    for (path, entry) in &old.durable {
        if !parent_survived(&new, path) {
            continue;
        }
        let entry = match entry {
            Entry::Dir => Entry::Dir,
            Entry::File(id) => match ids.get(id) {
                Some(new_id) => Entry::File(*new_id),
                None => {
                    let data = old.files.get(id).cloned().unwrap_or_default();
                    let content = surviving_bytes(&data, &mut rng, opts);
                    let new_id = new.new_file(FileData::new(content.clone(), content));
                    ids.insert(*id, new_id);
                    Entry::File(new_id)
                }
            },
        };
        new.set_entry(Namespace::Live, path.clone(), Some(entry));
        new.set_entry(Namespace::Durable, path.clone(), Some(entry));
    }
    new
}

fn parent_survived(new: &State, path: &Path) -> bool {
    path.parent()
        .is_some_and(|p| is_root(p) || new.durable.get(p) == Some(&Entry::Dir))
}

/// The synced bytes, then maybe part of the unsynced tail, then maybe garbage.
///
/// A tail exists only when the OS bytes extend the synced bytes. When they do not (the file
/// was truncated or rewritten since its last sync), the old synced bytes are what survives:
/// that metadata change was never made durable either.
fn surviving_bytes(data: &FileData, rng: &mut SmallRng, opts: CrashOptions) -> Vec<u8> {
    let mut out = data.durable.clone();
    if !data.os.starts_with(&data.durable) {
        return out;
    }
    let tail = &data.os[data.durable.len()..];
    if tail.is_empty() {
        return out;
    }
    let kept = if opts.keep_unsynced_prefix {
        // Nothing, everything and a random cut each get a third: the two edge cases matter
        // most and a uniform pick would rarely hit them for long tails.
        match rng.random_range(0..3) {
            0 => 0,
            1 => tail.len(),
            _ => rng.random_range(0..=tail.len()),
        }
    } else {
        0
    };
    out.extend_from_slice(&tail[..kept]);
    let room = tail.len() - kept;
    if opts.garbage_tail && room > 0 && rng.random_bool(0.5) {
        // Garbage never makes the file longer than what was written.
        let garbage_len = rng.random_range(1..=room.min(64));
        out.extend((0..garbage_len).map(|_| rng.random::<u8>()));
    }
    out
}
