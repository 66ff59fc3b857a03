//! A deliberately naive reference model of HBase cell semantics: a flat list of every cell
//! ever written, and reads computed by filtering that list column by column.

#![allow(dead_code)]

use std::collections::BTreeMap;

use strata_engine::{CellType, FamilyOptions, KeepDeletedCells};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MCell {
    pub row: Vec<u8>,
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub ts: i64,
    pub kind: CellType,
    pub seq: u64,
    pub value: Vec<u8>,
    /// In an SSTable (compactions only see flushed cells).
    pub flushed: bool,
}

/// What a read returns: (row, family, qualifier, timestamp, value).
pub type Out = (Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// Selected families, each with its selected qualifiers (`None` = all).
pub type FamilySelection = BTreeMap<Vec<u8>, Option<Vec<Vec<u8>>>>;

#[derive(Debug, Clone)]
pub struct ModelRead {
    pub families: Option<FamilySelection>,
    pub versions: u32,
    pub min_ts: i64,
    pub max_ts: i64,
}

#[derive(Debug, Default, Clone)]
pub struct Model {
    pub cells: Vec<MCell>,
    pub families: BTreeMap<Vec<u8>, FamilyOptions>,
    next_seq: u64,
}

impl Model {
    pub fn new(families: &[FamilyOptions]) -> Self {
        Model {
            cells: Vec::new(),
            families: families
                .iter()
                .map(|f| (f.name.clone(), f.clone()))
                .collect(),
            next_seq: 0,
        }
    }

    /// Applies one atomic mutation (cells already carry their final timestamps). Within one
    /// mutation every cell shares a sequence id, so a later cell with the same coordinates
    /// replaces an earlier one, as in HBase's memstore.
    pub fn apply(&mut self, cells: Vec<MCell>) {
        self.next_seq += 1;
        let first = self.cells.len();
        for mut c in cells {
            c.seq = self.next_seq;
            if matches!(
                c.kind,
                CellType::DeleteFamily | CellType::DeleteFamilyVersion
            ) {
                c.qualifier.clear();
            }
            let same = |o: &MCell| {
                o.row == c.row
                    && o.family == c.family
                    && o.qualifier == c.qualifier
                    && o.ts == c.ts
                    && o.kind == c.kind
            };
            if let Some(pos) = self.cells[first..].iter().position(same) {
                self.cells[first + pos] = c;
            } else {
                self.cells.push(c);
            }
        }
    }

    fn in_range(r: &ModelRead, ts: i64) -> bool {
        ts >= r.min_ts && (ts < r.max_ts || (r.max_ts == i64::MAX && ts == i64::MAX))
    }

    /// The visible cells of one column given every cell of its row+family.
    fn read_column(
        &self,
        fam: &FamilyOptions,
        row_cells: &[&MCell],
        qualifier: &[u8],
        r: &ModelRead,
        now: i64,
    ) -> Vec<Out> {
        let keep_deleted = fam.keep_deleted_cells != KeepDeletedCells::False;
        let applies = |ts: i64| !keep_deleted || Self::in_range(r, ts);
        let markers = |kind: CellType, q: Option<&[u8]>| -> Vec<i64> {
            row_cells
                .iter()
                .filter(|c| c.kind == kind && q.is_none_or(|q| c.qualifier == q) && applies(c.ts))
                .map(|c| c.ts)
                .collect()
        };
        let fam_del = markers(CellType::DeleteFamily, None);
        let fam_ver = markers(CellType::DeleteFamilyVersion, None);
        let col_del = markers(CellType::DeleteColumn, Some(qualifier));
        let col_ver = markers(CellType::Delete, Some(qualifier));
        let deleted = |ts: i64| {
            fam_del.iter().any(|&d| ts <= d)
                || col_del.iter().any(|&d| ts <= d)
                || fam_ver.contains(&ts)
                || col_ver.contains(&ts)
        };
        let mut puts: Vec<&&MCell> = row_cells
            .iter()
            .filter(|c| c.kind == CellType::Put && c.qualifier == qualifier)
            .collect();
        puts.sort_by(|a, b| b.ts.cmp(&a.ts).then(b.seq.cmp(&a.seq)));
        puts.dedup_by_key(|c| c.ts); // the later write at a timestamp replaces the earlier
        let max_versions = r.versions.min(fam.max_versions) as usize;
        let oldest = fam.ttl_millis().map_or(i64::MIN, |t| now - t);
        puts.into_iter()
            .filter(|c| !deleted(c.ts) && Self::in_range(r, c.ts))
            .take(max_versions)
            .enumerate()
            .filter(|(i, c)| c.ts >= oldest || (*i as u32) < fam.min_versions)
            .map(|(_, c)| {
                (
                    c.row.clone(),
                    c.family.clone(),
                    c.qualifier.clone(),
                    c.ts,
                    c.value.clone(),
                )
            })
            .collect()
    }

    /// Reads one row.
    pub fn get(&self, row: &[u8], r: &ModelRead, now: i64) -> Vec<Out> {
        let mut out = Vec::new();
        for (fname, fam) in &self.families {
            let selected_qualifiers = match &r.families {
                None => None,
                Some(sel) => match sel.get(fname) {
                    None => continue,
                    Some(q) => q.clone(),
                },
            };
            let row_cells: Vec<&MCell> = self
                .cells
                .iter()
                .filter(|c| c.row == row && &c.family == fname)
                .collect();
            let mut qualifiers: Vec<Vec<u8>> = row_cells
                .iter()
                .filter(|c| c.kind == CellType::Put)
                .map(|c| c.qualifier.clone())
                .collect();
            qualifiers.sort();
            qualifiers.dedup();
            for q in qualifiers {
                if selected_qualifiers
                    .as_ref()
                    .is_some_and(|s| !s.contains(&q))
                {
                    continue;
                }
                out.extend(self.read_column(fam, &row_cells, &q, r, now));
            }
        }
        out
    }

    /// Rows in `[start, stop)` (reversed: `(stop, start]`, high to low), at most `limit`.
    pub fn scan(
        &self,
        start: &[u8],
        stop: &[u8],
        reversed: bool,
        limit: usize,
        r: &ModelRead,
        now: i64,
    ) -> Vec<Vec<Out>> {
        let mut rows: Vec<Vec<u8>> = self.cells.iter().map(|c| c.row.clone()).collect();
        rows.sort();
        rows.dedup();
        if reversed {
            rows.reverse();
        }
        rows.into_iter()
            .filter(|row| {
                let (lo_ok, hi_ok) = if reversed {
                    (
                        stop.is_empty() || row.as_slice() > stop,
                        start.is_empty() || row.as_slice() <= start,
                    )
                } else {
                    (
                        start.is_empty() || row.as_slice() >= start,
                        stop.is_empty() || row.as_slice() < stop,
                    )
                };
                lo_ok && hi_ok
            })
            .map(|row| self.get(&row, r, now))
            .filter(|cells| !cells.is_empty())
            .take(limit)
            .collect()
    }

    /// Every cell is now in an SSTable.
    pub fn flush(&mut self) {
        for c in &mut self.cells {
            c.flushed = true;
        }
    }

    /// What a major compaction of one family's SSTables leaves physically; unflushed cells
    /// are untouched (and may become visible once a marker that masked them is gone).
    pub fn major_compact(&mut self, family: &[u8], now: i64) {
        let mut kept = Vec::new();
        let mut groups: BTreeMap<(Vec<u8>, Vec<u8>), Vec<MCell>> = BTreeMap::new();
        for c in self.cells.drain(..) {
            if c.flushed && c.family == family {
                groups
                    .entry((c.row.clone(), c.family.clone()))
                    .or_default()
                    .push(c);
            } else {
                kept.push(c);
            }
        }
        for ((_, family), cells) in groups {
            let fam = self.families[&family].clone();
            kept.extend(compact_row_family(&fam, cells, now));
        }
        self.cells = kept;
    }
}

fn compact_row_family(fam: &FamilyOptions, cells: Vec<MCell>, now: i64) -> Vec<MCell> {
    let keep_deleted = fam.keep_deleted_cells;
    let oldest = fam.ttl_millis().map_or(i64::MIN, |t| now - t);
    let fam_del: Vec<i64> = cells
        .iter()
        .filter(|c| c.kind == CellType::DeleteFamily)
        .map(|c| c.ts)
        .collect();
    let fam_ver: Vec<i64> = cells
        .iter()
        .filter(|c| c.kind == CellType::DeleteFamilyVersion)
        .map(|c| c.ts)
        .collect();
    let mut out = Vec::new();
    let mut by_column: BTreeMap<Vec<u8>, Vec<MCell>> = BTreeMap::new();
    for c in cells {
        if c.kind.is_delete() {
            let keep = match keep_deleted {
                KeepDeletedCells::False => false,
                KeepDeletedCells::True => true,
                KeepDeletedCells::Ttl => c.ts >= oldest,
            };
            if keep {
                out.push(c.clone());
            }
            if c.kind.is_family_marker() {
                continue;
            }
        }
        by_column.entry(c.qualifier.clone()).or_default().push(c);
    }
    for (_, col) in by_column {
        let col_del: Vec<i64> = col
            .iter()
            .filter(|c| c.kind == CellType::DeleteColumn)
            .map(|c| c.ts)
            .collect();
        let col_ver: Vec<i64> = col
            .iter()
            .filter(|c| c.kind == CellType::Delete)
            .map(|c| c.ts)
            .collect();
        let masked = |ts: i64| {
            fam_del.iter().any(|&d| ts <= d)
                || col_del.iter().any(|&d| ts <= d)
                || fam_ver.contains(&ts)
                || col_ver.contains(&ts)
        };
        let mut puts: Vec<MCell> = col
            .into_iter()
            .filter(|c| c.kind == CellType::Put)
            .collect();
        puts.sort_by(|a, b| b.ts.cmp(&a.ts).then(b.seq.cmp(&a.seq)));
        puts.dedup_by_key(|c| c.ts);
        let mut versions = 0u32;
        for p in puts {
            if masked(p.ts) && keep_deleted == KeepDeletedCells::False {
                continue;
            }
            versions += 1;
            if versions > fam.max_versions {
                continue;
            }
            if p.ts < oldest && versions > fam.min_versions {
                continue;
            }
            out.push(p);
        }
    }
    out
}
