//! The filters that count cells across a row or a column, and the row sampler.
//!
//! Every copy of a duplicated cell (from an interleave) counts separately, as Bigtable says.

use super::{FilterCell, Sampler};

/// `cells_per_row_offset_filter`: skips the row's first `n` cells.
pub fn skip_cells(mut cells: Vec<FilterCell>, n: usize) -> Vec<FilterCell> {
    cells.drain(..n.min(cells.len()));
    cells
}

/// `cells_per_row_limit_filter`: keeps the row's first `n` cells.
pub fn limit_cells(mut cells: Vec<FilterCell>, n: usize) -> Vec<FilterCell> {
    cells.truncate(n);
    cells
}

/// `cells_per_column_limit_filter`: keeps the first `n` cells of each column (the newest,
/// since a column's cells come newest first).
pub fn limit_per_column(cells: Vec<FilterCell>, n: usize) -> Vec<FilterCell> {
    let mut seen_in_column = 0;
    let mut previous: Option<(String, bytes::Bytes)> = None;
    let mut out = Vec::with_capacity(cells.len());
    for cell in cells {
        let same_column = previous
            .as_ref()
            .is_some_and(|(f, q)| *f == cell.family && *q == cell.qualifier);
        if !same_column {
            previous = Some((cell.family.clone(), cell.qualifier.clone()));
            seen_in_column = 0;
        }
        seen_in_column += 1;
        if seen_in_column <= n {
            out.push(cell);
        }
    }
    out
}

/// `row_sample_filter`: the whole row with probability `p`, else nothing.
pub fn sample_row(cells: Vec<FilterCell>, p: f64, sampler: &mut dyn Sampler) -> Vec<FilterCell> {
    if sampler.sample(p) {
        cells
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn cell(family: &str, qualifier: &'static [u8], ts: i64) -> FilterCell {
        FilterCell {
            family: family.into(),
            qualifier: Bytes::from_static(qualifier),
            timestamp_micros: ts,
            value: Bytes::new(),
            labels: Vec::new(),
        }
    }

    fn row() -> Vec<FilterCell> {
        vec![
            cell("a", b"x", 3000),
            cell("a", b"x", 2000),
            cell("a", b"x", 1000),
            cell("a", b"y", 2000),
            cell("b", b"x", 5000),
            cell("b", b"x", 4000),
        ]
    }

    #[test]
    fn offset_and_limit_count_across_the_row() {
        assert_eq!(skip_cells(row(), 4), row()[4..].to_vec());
        assert_eq!(skip_cells(row(), 0), row());
        assert!(skip_cells(row(), 99).is_empty());
        assert_eq!(limit_cells(row(), 2), row()[..2].to_vec());
        assert!(limit_cells(row(), 0).is_empty());
        assert_eq!(limit_cells(row(), 99), row());
    }

    #[test]
    fn per_column_limit_keeps_the_newest_of_each_column() {
        let out = limit_per_column(row(), 1);
        let expected = vec![row()[0].clone(), row()[3].clone(), row()[4].clone()];
        assert_eq!(out, expected);
        assert_eq!(limit_per_column(row(), 2).len(), 5);
        assert!(limit_per_column(row(), 0).is_empty());
    }

    #[test]
    fn per_column_limit_separates_families_with_the_same_qualifier() {
        // a:x and b:x are different columns even when adjacent.
        let cells = vec![cell("a", b"x", 1000), cell("b", b"x", 1000)];
        assert_eq!(limit_per_column(cells.clone(), 1), cells);
    }

    #[test]
    fn per_column_limit_counts_duplicates() {
        let cells = vec![cell("a", b"x", 1000), cell("a", b"x", 1000)];
        assert_eq!(limit_per_column(cells.clone(), 1), cells[..1].to_vec());
    }

    struct Fixed(bool, Vec<f64>);
    impl Sampler for Fixed {
        fn sample(&mut self, p: f64) -> bool {
            self.1.push(p);
            self.0
        }
    }

    #[test]
    fn sampling_keeps_or_drops_the_whole_row() {
        let mut yes = Fixed(true, Vec::new());
        assert_eq!(sample_row(row(), 0.25, &mut yes), row());
        assert_eq!(yes.1, [0.25]);
        assert!(sample_row(row(), 0.25, &mut Fixed(false, Vec::new())).is_empty());
    }
}
