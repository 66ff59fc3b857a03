//! The process allocator (mimalloc) and the two ways Strata tunes it.
//!
//! Why change them: under write overload each connection's requests pass through several
//! threads, and with mimalloc's defaults the memory they free stays resident: heaps are
//! backed by transparent huge pages (mimalloc asks for them with `madvise`), so a few live
//! objects keep whole 2 MiB pages, and freed pages are returned to the OS only after 1 s.
//! The overload test of the real server measured peak RSS of 215 MiB for 12 writers against
//! 40 MiB configured (26 MiB idle); without huge pages and with freed memory returned after
//! 10 ms the same run peaked at 103–110 MiB (11 MiB idle). A delay of 0 saved a few MiB more
//! but cost gRPC point reads ~15 % (`bench/cpu-per-op.sh grpc`: 26.7k vs 32.8k reads/s);
//! 10 ms and 1 s read alike (docs/reliability.md, "Overload (real server)").
//! Huge pages are switched off at build time (the `no_thp` feature of mimalloc in
//! Cargo.toml: the first heap exists before `main` runs); the purge delay is set here. An
//! operator can still set it through mimalloc's environment variable, which then wins.

/// mimalloc instead of the system allocator: the engine allocates many small objects from
/// several threads (writers, flush, compaction), where glibc's allocator spent measurable
/// time in arena locking and consolidation (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The index of `mi_option_purge_delay` in the mimalloc v3 option table vendored by
/// libmimalloc-sys 0.1.49 (the crate does not export it as a constant). The test below
/// checks that the index holds that option's default and its neighbours do not.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the OS after this many milliseconds (mimalloc v3: 1000).
const PURGE_DELAY_MS: i64 = 10;

/// Returns freed memory to the OS sooner, unless the environment sets the purge delay.
pub fn tune() {
    set_unless_in_env(PURGE_DELAY, "MIMALLOC_PURGE_DELAY", PURGE_DELAY_MS);
}

fn set_unless_in_env(option: libmimalloc_sys::mi_option_t, variable: &str, value: i64) {
    if std::env::var_os(variable).is_some() {
        return;
    }
    #[allow(unsafe_code)]
    // SAFETY: `mi_option_set` stores an integer in mimalloc's option table; `option` is a
    // valid index of that table (checked by `option_indexes_match_the_vendored_header`).
    unsafe {
        libmimalloc_sys::mi_option_set(option, value as std::ffi::c_long)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(option: libmimalloc_sys::mi_option_t) -> i64 {
        #[allow(unsafe_code)]
        // SAFETY: reading an option of mimalloc's table by a valid index.
        let value = unsafe { libmimalloc_sys::mi_option_get(option) };
        value as i64
    }

    /// Before `tune` runs, the index must read purge_delay's default in mimalloc v3
    /// (1000 ms), and its neighbours must not.
    #[test]
    fn option_indexes_match_the_vendored_header() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(get(PURGE_DELAY), 1000);
        }
        for neighbour in [PURGE_DELAY - 1, PURGE_DELAY + 1] {
            assert_ne!(get(neighbour), 1000, "option {neighbour}");
        }
    }
}
