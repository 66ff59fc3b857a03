//! Delete-marker bookkeeping shared by reads and compactions: which timestamps of the
//! current row and column the markers seen so far mask.

use crate::cell::CellType;

/// The markers seen in the current row (family markers) and column (column markers).
#[derive(Debug, Default)]
pub struct DeleteTracker {
    family_delete_ts: Option<i64>,
    family_version_deletes: Vec<i64>,
    column_delete_ts: Option<i64>,
    column_version_deletes: Vec<i64>,
}

impl DeleteTracker {
    /// Forgets everything: a new row starts.
    pub fn start_row(&mut self) {
        self.family_delete_ts = None;
        self.family_version_deletes.clear();
        self.start_column();
    }

    /// Forgets the column markers: a new column starts.
    pub fn start_column(&mut self) {
        self.column_delete_ts = None;
        self.column_version_deletes.clear();
    }

    /// Records a marker. DeleteFamily and DeleteColumn mask every version at or below their
    /// timestamp; DeleteFamilyVersion and Delete exactly their timestamp.
    pub fn record(&mut self, marker: CellType, ts: i64) {
        let raise = |slot: &mut Option<i64>| *slot = Some(slot.map_or(ts, |d| d.max(ts)));
        match marker {
            CellType::DeleteFamily => raise(&mut self.family_delete_ts),
            CellType::DeleteFamilyVersion => self.family_version_deletes.push(ts),
            CellType::DeleteColumn => raise(&mut self.column_delete_ts),
            CellType::Delete => self.column_version_deletes.push(ts),
            CellType::Put => {}
        }
    }

    /// True if a recorded marker masks a put at `ts`.
    pub fn is_deleted(&self, ts: i64) -> bool {
        self.family_delete_ts.is_some_and(|d| ts <= d)
            || self.column_delete_ts.is_some_and(|d| ts <= d)
            || self.family_version_deletes.contains(&ts)
            || self.column_version_deletes.contains(&ts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_marker_kind_masks_what_it_should() {
        let mut t = DeleteTracker::default();
        t.record(CellType::DeleteColumn, 5);
        assert!(t.is_deleted(5) && t.is_deleted(1) && !t.is_deleted(6));
        t.start_column();
        assert!(!t.is_deleted(5), "column markers end with their column");
        t.record(CellType::Delete, 7);
        assert!(t.is_deleted(7) && !t.is_deleted(6));
        t.record(CellType::DeleteFamilyVersion, 3);
        t.start_column();
        assert!(
            t.is_deleted(3) && !t.is_deleted(7),
            "family markers last the whole row"
        );
        t.record(CellType::DeleteFamily, 2);
        assert!(t.is_deleted(2) && t.is_deleted(0));
        t.start_row();
        assert!(!t.is_deleted(3) && !t.is_deleted(0));
    }
}
