//! Seeded random operations on a `MemFs`, checked against a small model of names and
//! contents at the live and durable levels, across both kinds of crash.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{CrashOptions, MemFs};
use crate::fs::{FileSystem, WritableFile};

const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

/// Names map to inode numbers; each inode's content is always synced, so only the
/// namespaces differ between a process crash and a power cut. A separate log file models
/// the byte levels: `log_synced <= log_flushed <= log_appended`.
#[derive(Default)]
struct Model {
    next_inode: u32,
    live: BTreeMap<String, u32>,
    durable: BTreeMap<String, u32>,
    content: HashMap<u32, Vec<u8>>,
    log_appended: Vec<u8>,
    log_flushed: usize,
    log_synced: usize,
}

fn path(name: &str) -> PathBuf {
    Path::new("/d").join(name)
}

fn check(fs: &MemFs, names: &BTreeMap<String, u32>, model: &Model, log: &[u8], step: usize) {
    let mut listed = fs.list(Path::new("/d")).unwrap();
    listed.retain(|n| n != "log");
    let expected: Vec<&String> = names.keys().collect();
    assert_eq!(listed.iter().collect::<Vec<_>>(), expected, "step {step}");
    for (name, inode) in names {
        assert_eq!(
            fs.read_all(&path(name)).unwrap(),
            model.content[inode],
            "step {step} file {name}"
        );
    }
    assert_eq!(fs.read_all(&path("log")).unwrap(), log, "step {step} log");
}

fn step(fs: &MemFs, log: &mut Box<dyn WritableFile>, model: &mut Model, rng: &mut SmallRng) {
    let name = NAMES[rng.random_range(0..NAMES.len())].to_string();
    match rng.random_range(0..7) {
        0 => {
            let data: Vec<u8> = (0..rng.random_range(0..20)).map(|_| rng.random()).collect();
            let mut w = fs.create(&path(&name)).unwrap();
            w.append(&data).unwrap();
            w.sync().unwrap();
            // O_TRUNC on an existing name keeps its inode.
            let inode = match model.live.get(&name) {
                Some(inode) => *inode,
                None => {
                    model.next_inode += 1;
                    model.next_inode
                }
            };
            model.live.insert(name, inode);
            model.content.insert(inode, data);
        }
        1 if model.live.contains_key(&name) => {
            fs.remove(&path(&name)).unwrap();
            model.live.remove(&name);
        }
        2 => {
            let to = NAMES[rng.random_range(0..NAMES.len())].to_string();
            let Some(inode) = model.live.get(&name).copied() else {
                assert!(fs.rename(&path(&name), &path(&to)).is_err());
                return;
            };
            fs.rename(&path(&name), &path(&to)).unwrap();
            model.live.remove(&name);
            model.live.insert(to, inode);
        }
        3 => {
            fs.sync_dir(Path::new("/d")).unwrap();
            model.durable = model.live.clone();
        }
        4 => {
            let data: Vec<u8> = (0..rng.random_range(1..10)).map(|_| rng.random()).collect();
            log.append(&data).unwrap();
            model.log_appended.extend_from_slice(&data);
        }
        5 => {
            log.flush().unwrap();
            model.log_flushed = model.log_appended.len();
        }
        _ => {
            log.sync().unwrap();
            model.log_flushed = model.log_appended.len();
            model.log_synced = model.log_flushed;
        }
    }
}

#[test]
fn random_operations_match_the_model_after_crashes() {
    for seed in 0..30u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let fs = MemFs::new();
        fs.create_dir_all(Path::new("/d")).unwrap();
        let mut log = fs.create(&path("log")).unwrap();
        fs.sync_dir(Path::new("/d")).unwrap();
        let mut model = Model::default();
        for i in 0..150 {
            step(&fs, &mut log, &mut model, &mut rng);
            if i % 10 != 0 {
                continue;
            }
            let flushed = &model.log_appended[..model.log_flushed];
            check(&fs, &model.live, &model, flushed, i);
            check(&fs.crash_process(), &model.live, &model, flushed, i);
            let strict = fs.crash_power_loss_with(seed ^ i as u64, CrashOptions::strict());
            let synced = &model.log_appended[..model.log_synced];
            check(&strict, &model.durable, &model, synced, i);
        }
    }
}
