//! The order of hbase:meta's rows. HBase compares meta rows by table, then start key, then
//! the rest (region id and encoded name), not byte by byte: a start key may hold commas.

use bytes::Bytes;

use crate::pb;

/// A meta row key taken apart: `<table>` (a table's state row) or
/// `<table>,<start key>,<id...>` (a region row, or a lookup key).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MetaKey {
    pub table: Bytes,
    /// `None` for a table's state row, which sorts before the table's regions.
    pub region: Option<(Bytes, Bytes)>,
}

impl MetaKey {
    pub fn parse(row: &[u8]) -> MetaKey {
        let Some(first) = row.iter().position(|&b| b == b',') else {
            return MetaKey {
                table: Bytes::copy_from_slice(row),
                region: None,
            };
        };
        let last = row.iter().rposition(|&b| b == b',').unwrap_or(first);
        let (start, tail) = if last == first {
            (&row[first + 1..], &[][..])
        } else {
            (&row[first + 1..last], &row[last + 1..])
        };
        MetaKey {
            table: Bytes::copy_from_slice(&row[..first]),
            region: Some((Bytes::copy_from_slice(start), Bytes::copy_from_slice(tail))),
        }
    }
}

/// The rows a scan covers, in meta order.
pub struct Range {
    reversed: bool,
    start: Option<MetaKey>,
    include_start: bool,
    stop: Option<MetaKey>,
    include_stop: bool,
}

impl Range {
    pub fn of(scan: &pb::Scan) -> Range {
        let bound = |row: &Option<Bytes>| {
            row.as_ref()
                .filter(|r| !r.is_empty())
                .map(|r| MetaKey::parse(r))
        };
        Range {
            reversed: scan.reversed(),
            start: bound(&scan.start_row),
            include_start: scan.include_start_row(),
            stop: bound(&scan.stop_row),
            include_stop: scan.include_stop_row(),
        }
    }

    pub fn contains(&self, key: &MetaKey) -> bool {
        use std::cmp::Ordering::*;
        let after_start = |ord| match ord {
            Equal => self.include_start,
            Greater => !self.reversed,
            Less => self.reversed,
        };
        let before_stop = |ord| match ord {
            Equal => self.include_stop,
            Greater => self.reversed,
            Less => !self.reversed,
        };
        self.start.as_ref().is_none_or(|s| after_start(key.cmp(s)))
            && self.stop.as_ref().is_none_or(|s| before_stop(key.cmp(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(row: &str) -> MetaKey {
        MetaKey::parse(row.as_bytes())
    }

    #[test]
    fn rows_sort_by_table_then_start_key_not_bytewise() {
        // The start key "a,b" holds a comma: it still sorts after the start key "a".
        assert!(key("t,a,b,9.x.") > key("t,a,5.y."));
        assert!(key("t") < key("t,,1.z."));
        assert!(key("t,,1.z.") < key("t,a,2.w."));
        assert!(key("t,zz,3.v.") < key("u"));
        assert!(key("t,row,5.abc.") < key("t,row,99999999999999"));
    }

    #[test]
    fn a_reversed_lookup_finds_the_region_holding_the_row() {
        let scan = pb::Scan {
            start_row: Some(Bytes::from_static(b"t,m,99999999999999")),
            stop_row: Some(Bytes::from_static(b"t,,")),
            include_stop_row: Some(true),
            reversed: Some(true),
            ..Default::default()
        };
        let range = Range::of(&scan);
        assert!(range.contains(&key("t,,1.a.")));
        assert!(range.contains(&key("t,k,2.b.")));
        assert!(!range.contains(&key("t,n,3.c.")));
        assert!(!range.contains(&key("s,zz,4.d.")));
    }
}
