//! `memory_limit_mb`: one number for the server's memory, split into every budget that holds
//! data (like sizing an HBase region server by its heap, which then sets the memstore and
//! block-cache shares).
//!
//! The parts, each still settable on its own (an explicit key wins over its share):
//! - memstores (`[engine] memstore_limit_mb`): 40 % of what is left after the reserve;
//! - block cache (`[engine] block_cache_mb`): 30 %, the open files' index and bloom memory
//!   included (it is charged to the cache, whose data blocks get the rest; see
//!   the engine's block cache, `crates/strata-engine/src/cache`), less the row cache
//!   (`[engine] row_cache_mb`, off unless set): both are read caches, and which one a
//!   workload wants more is the operator's call;
//! - writes waiting for memstore room (`[limits] max_write_bytes_in_flight`): 10 %;
//! - requests being received and served (`[limits] max_request_bytes_in_flight`): 10 %.
//!
//! The last 10 % and a fixed reserve cover what no budget counts: the program and runtime
//! (about 11 MiB idle), flush and compaction buffers, and freed memory the allocator keeps
//! for a while. The overload test checks the process stays under the limit
//! (`tests/reliability/test_overload.py`).

use strata_server::ServiceOptions;

const MIB: u64 = 1 << 20;
/// Kept out of every budget, for the program itself.
pub const RESERVED_MB: u64 = 32;
/// Below this the budgets would be too small to be useful.
pub const MIN_LIMIT_MB: u64 = 64;

/// The explicit keys, if set, in MiB or bytes as the config file has them.
#[derive(Debug, Default, Clone, Copy)]
pub struct ExplicitParts {
    pub memstore_mb: Option<u64>,
    pub block_cache_mb: Option<u64>,
    pub row_cache_mb: Option<u64>,
    pub write_bytes: Option<usize>,
    pub request_bytes: Option<usize>,
}

/// Sizes the memstores, block cache, write budget and request budget of `service` from
/// `limit_mb`, keeping every explicit key. Fails when the limit is too small or the explicit
/// parts leave no room, naming the keys.
pub fn apply(
    limit_mb: u64,
    explicit: ExplicitParts,
    service: &mut ServiceOptions,
) -> Result<(), String> {
    if limit_mb < MIN_LIMIT_MB {
        return Err(format!(
            "memory_limit_mb = {limit_mb} is below the minimum of {MIN_LIMIT_MB}"
        ));
    }
    let shareable = (limit_mb - RESERVED_MB) * MIB;
    let share = |percent: u64| shareable / 100 * percent;
    let memstore = explicit.memstore_mb.map_or(share(40), |mb| mb * MIB);
    let rows = explicit.row_cache_mb.unwrap_or(0) * MIB;
    let cache = explicit
        .block_cache_mb
        .map_or(share(30).saturating_sub(rows), |mb| mb * MIB);
    let writes = explicit.write_bytes.map_or(share(10), |b| b as u64);
    let requests = explicit.request_bytes.map_or(share(10), |b| b as u64);
    let total = memstore + cache + rows + writes + requests + RESERVED_MB * MIB;
    if total > limit_mb * MIB {
        return Err(format!(
            "memory_limit_mb = {limit_mb} is smaller than its parts: memstores {} MiB + block \
             cache {} MiB + row cache {} MiB + limits.max_write_bytes_in_flight {} MiB + \
             limits.max_request_bytes_in_flight {} MiB + {RESERVED_MB} MiB reserved",
            memstore / MIB,
            cache / MIB,
            rows / MIB,
            writes / MIB,
            requests / MIB
        ));
    }
    service.engine.memstore_limit = memstore;
    service.engine.block_cache_bytes = cache;
    service.engine.row_cache_bytes = rows;
    service.limits.max_write_bytes_in_flight = usize::try_from(writes).unwrap_or(usize::MAX);
    service.limits.max_request_bytes_in_flight = usize::try_from(requests).unwrap_or(usize::MAX);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service() -> ServiceOptions {
        ServiceOptions::new("unused")
    }

    #[test]
    fn the_limit_is_split_into_shares_that_fit_with_the_reserve() {
        let mut s = service();
        apply(132, ExplicitParts::default(), &mut s).unwrap();
        assert_eq!(s.engine.memstore_limit, 40 * MIB);
        assert_eq!(s.engine.block_cache_bytes, 30 * MIB);
        assert_eq!(s.limits.max_write_bytes_in_flight as u64, 10 * MIB);
        assert_eq!(s.limits.max_request_bytes_in_flight as u64, 10 * MIB);
    }

    #[test]
    fn explicit_keys_win_over_their_share() {
        let mut s = service();
        let explicit = ExplicitParts {
            memstore_mb: Some(8),
            request_bytes: Some(1234),
            ..ExplicitParts::default()
        };
        apply(132, explicit, &mut s).unwrap();
        assert_eq!(s.engine.memstore_limit, 8 * MIB);
        assert_eq!(s.limits.max_request_bytes_in_flight, 1234);
        assert_eq!(s.engine.block_cache_bytes, 30 * MIB);
    }

    #[test]
    fn the_row_cache_comes_out_of_the_block_cache_share_unless_both_are_set() {
        let mut s = service();
        let rows = ExplicitParts {
            row_cache_mb: Some(10),
            ..ExplicitParts::default()
        };
        apply(132, rows, &mut s).unwrap();
        assert_eq!(s.engine.row_cache_bytes, 10 * MIB);
        assert_eq!(s.engine.block_cache_bytes, 20 * MIB);
        let both = ExplicitParts {
            block_cache_mb: Some(30),
            row_cache_mb: Some(20),
            ..ExplicitParts::default()
        };
        let err = apply(132, both, &mut service()).unwrap_err();
        assert!(err.contains("row cache 20 MiB"), "{err}");
    }

    #[test]
    fn too_small_or_overfull_limits_are_refused_naming_the_parts() {
        let err = apply(10, ExplicitParts::default(), &mut service()).unwrap_err();
        assert!(err.contains("below the minimum of 64"), "{err}");
        let explicit = ExplicitParts {
            block_cache_mb: Some(100),
            ..ExplicitParts::default()
        };
        let err = apply(132, explicit, &mut service()).unwrap_err();
        assert!(err.contains("block cache 100 MiB"), "{err}");
        assert!(
            err.contains("limits.max_request_bytes_in_flight 10 MiB"),
            "{err}"
        );
    }
}
