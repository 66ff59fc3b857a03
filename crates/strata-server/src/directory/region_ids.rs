//! The ids new regions get. An id is never reused: a reused id would open another
//! region's files, so the next id stays above every id the catalog, the cluster or the
//! engine's directories name.

use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;

use crate::catalog::RegionEntry;

/// Hands out region ids, each once.
pub(super) struct RegionIds {
    next: AtomicU64,
}

impl RegionIds {
    /// Ids from `next` on.
    pub(super) fn starting_at(next: u64) -> RegionIds {
        RegionIds {
            next: AtomicU64::new(next),
        }
    }

    /// A fresh id.
    pub(super) fn allocate(&self) -> u64 {
        self.next.fetch_add(1, Ordering::AcqRel)
    }

    /// Catalog entries with fresh ids for new regions covering `ranges`.
    pub(super) fn entries(&self, ranges: Vec<(Bytes, Bytes)>) -> Vec<RegionEntry> {
        ranges
            .into_iter()
            .map(|(start_key, end_key)| RegionEntry {
                id: self.allocate(),
                start_key,
                end_key,
            })
            .collect()
    }

    /// Makes every id handed out from now on larger than `in_use`.
    pub(super) fn reserve_above(&self, in_use: u64) {
        self.next.fetch_max(in_use + 1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_handed_out_once_and_a_reservation_never_lowers_them() {
        let ids = RegionIds::starting_at(5);
        assert_eq!(ids.allocate(), 5);
        let entries = ids.entries(vec![(Bytes::new(), Bytes::from_static(b"m"))]);
        assert_eq!(entries[0].id, 6);
        ids.reserve_above(20);
        assert_eq!(ids.allocate(), 21);
        ids.reserve_above(3);
        assert_eq!(
            ids.allocate(),
            22,
            "an older, lower id in use changes nothing"
        );
    }
}
