//! The blocking scan iterator over a service scanner.

use std::collections::VecDeque;
use std::sync::Arc;

use bytes::Bytes;

use crate::error::Result;
use crate::open_database::OpenDatabase;
use crate::row::Row;

/// Rows of a scan, fetched from a service scanner in batches. The scanner is closed when
/// the iterator is exhausted, fails, or is dropped.
pub struct RowIter {
    database: Arc<OpenDatabase>,
    /// `None` once the scanner is closed.
    scanner: Option<u64>,
    buffer: VecDeque<Row>,
    batch: usize,
    remaining: Option<usize>,
    /// A prefix scan's prefix and direction: rows past it end the scan.
    prefix: Option<(Bytes, bool)>,
}

impl std::fmt::Debug for RowIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowIter")
            .field("scanner", &self.scanner)
            .field("buffered", &self.buffer.len())
            .finish_non_exhaustive()
    }
}

/// What a prefix scan does with a row.
enum PrefixVerdict {
    Keep,
    Skip,
    End,
}

fn judge(prefix: &[u8], reversed: bool, row: &[u8]) -> PrefixVerdict {
    if row.starts_with(prefix) {
        PrefixVerdict::Keep
    } else if reversed && row > prefix {
        // A reversed prefix scan starts at the prefix's successor, inclusive.
        PrefixVerdict::Skip
    } else {
        PrefixVerdict::End
    }
}

impl RowIter {
    pub(crate) fn new(
        database: Arc<OpenDatabase>,
        scanner: u64,
        batch: usize,
        limit: Option<usize>,
        prefix: Option<(Bytes, bool)>,
    ) -> RowIter {
        RowIter {
            database,
            scanner: Some(scanner),
            buffer: VecDeque::new(),
            batch,
            remaining: limit,
            prefix,
        }
    }

    /// A row already fetched, without touching the scanner (lets the async stream skip a
    /// trip to the blocking pool).
    pub(crate) fn take_buffered(&mut self) -> Option<Row> {
        let row = self.buffer.pop_front()?;
        self.count_returned();
        Some(row)
    }

    fn count_returned(&mut self) {
        if let Some(r) = self.remaining.as_mut() {
            *r = r.saturating_sub(1);
        }
    }

    fn close(&mut self) {
        if let Some(id) = self.scanner.take() {
            // An expired scanner is already gone; nothing else can fail here.
            let _ = self
                .database
                .service()
                .map(|s| s.scanners().close_scanner(id));
        }
    }

    /// Fetches the next batch into the buffer; closes the scanner when it is done.
    fn fill(&mut self) -> Result<()> {
        let Some(id) = self.scanner else {
            return Ok(());
        };
        let want = self.remaining.map_or(self.batch, |r| r.min(self.batch));
        if want == 0 {
            self.close();
            return Ok(());
        }
        let rows = self.database.service()?.scanners().scanner_next(id, want)?;
        if rows.is_empty() {
            self.close();
        }
        for row in rows {
            let verdict = match &self.prefix {
                None => PrefixVerdict::Keep,
                Some((prefix, reversed)) => judge(prefix, *reversed, &row.row),
            };
            match verdict {
                PrefixVerdict::Keep => self.buffer.push_back(Row::from(row)),
                PrefixVerdict::Skip => {}
                PrefixVerdict::End => {
                    self.close();
                    break;
                }
            }
        }
        if let Some(r) = self.remaining {
            self.buffer.truncate(r);
        }
        Ok(())
    }
}

impl Iterator for RowIter {
    type Item = Result<Row>;

    fn next(&mut self) -> Option<Result<Row>> {
        loop {
            if self.remaining == Some(0) {
                self.close();
                self.buffer.clear();
                return None;
            }
            if let Some(row) = self.take_buffered() {
                return Some(Ok(row));
            }
            // Nothing buffered and the scanner closed: the scan is over.
            self.scanner?;
            if let Err(e) = self.fill() {
                self.close();
                return Some(Err(e));
            }
        }
    }
}

impl Drop for RowIter {
    fn drop(&mut self) {
        self.close();
    }
}
