//! `[engine] l2_cache_path` and `l2_cache_mb`: the block cache's second level, a file on a
//! fast local device (HBase's file-backed BucketCache). Both keys or neither: a path
//! without a size, or a size without a path, is refused rather than silently ignored.
//! The file's memory, when it is on tmpfs, is not part of `memory_limit_mb`.

use std::path::PathBuf;

use strata_engine::{EngineOptions, L2Options};

const MIB: u64 = 1 << 20;

/// Sets the second level from the two keys.
pub fn apply(
    path: Option<&PathBuf>,
    mb: Option<u64>,
    engine: &mut EngineOptions,
) -> Result<(), String> {
    engine.l2_cache = match (path, mb) {
        (None, None) => None,
        (Some(_), None) => {
            return Err("[engine] l2_cache_path needs l2_cache_mb (the file's size)".into())
        }
        (None, Some(_)) => {
            return Err("[engine] l2_cache_mb needs l2_cache_path (where the file goes)".into())
        }
        (Some(_), Some(0)) => return Err("[engine] l2_cache_mb must be at least 1".into()),
        (Some(path), Some(mb)) => Some(L2Options {
            dir: path.clone(),
            capacity_bytes: mb.saturating_mul(MIB),
        }),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_keys_configure_the_second_level_and_one_alone_is_refused() {
        let mut engine = EngineOptions::new("unused");
        let path = PathBuf::from("/dev/shm/strata-l2");
        apply(None, None, &mut engine).unwrap();
        assert_eq!(engine.l2_cache, None, "no path: memory only, as before");
        apply(Some(&path), Some(1024), &mut engine).unwrap();
        let l2 = engine.l2_cache.clone().unwrap();
        assert_eq!((l2.dir, l2.capacity_bytes), (path.clone(), 1024 * MIB));
        let err = apply(Some(&path), None, &mut engine).unwrap_err();
        assert!(err.contains("needs l2_cache_mb"), "{err}");
        let err = apply(None, Some(5), &mut engine).unwrap_err();
        assert!(err.contains("needs l2_cache_path"), "{err}");
        assert!(apply(Some(&path), Some(0), &mut engine).is_err());
    }
}
