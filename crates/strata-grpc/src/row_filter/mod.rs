//! Bigtable's `RowFilter`, evaluated on one row at a time.
//!
//! The reader (ReadRows, CheckAndMutateRow's predicate) fetches every stored version of a
//! row's requested columns from the service layer, converts them to [`FilterCell`]s in
//! Bigtable's order, and keeps what [`RowFilter::apply`] returns. An empty result means the
//! row is filtered out.

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use tonic::Status;

/// One cell as Bigtable's filters see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterCell {
    /// Bigtable family names are strings (HBase's are bytes; Strata's are checked UTF-8).
    pub family: String,
    pub qualifier: Bytes,
    /// Microseconds, always a multiple of 1000 for Strata's millisecond storage.
    pub timestamp_micros: i64,
    pub value: Bytes,
    /// Labels added by `apply_label_transformer`.
    pub labels: Vec<String>,
}

/// A compiled filter: regexes built and arguments checked once per request.
#[derive(Debug, Clone)]
pub struct RowFilter {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    PassAll,
    BlockAll,
}

/// The source of randomness for `row_sample_filter` (injected so tests are repeatable).
pub trait Sampler {
    /// True with probability `p`.
    fn sample(&mut self, p: f64) -> bool;
}

impl RowFilter {
    /// Compiles `filter` (`None`: pass everything). A bad argument is INVALID_ARGUMENT
    /// naming the field, for example `filter.chain.filters[1].value_regex_filter`.
    pub fn compile(filter: Option<&pb::RowFilter>) -> Result<RowFilter, Status> {
        use pb::row_filter::Filter;
        let kind = match filter.and_then(|f| f.filter.as_ref()) {
            None | Some(Filter::PassAllFilter(true)) => Kind::PassAll,
            Some(Filter::BlockAllFilter(true)) => Kind::BlockAll,
            Some(other) => {
                return Err(Status::unimplemented(format!(
                    "filter: {other:?} is not supported yet"
                )))
            }
        };
        Ok(RowFilter { kind })
    }

    /// The cells of row `key` that pass (empty: the row is filtered out). `cells` are in
    /// Bigtable's order: family, then qualifier ascending, then timestamp descending.
    pub fn apply(
        &self,
        _key: &[u8],
        cells: Vec<FilterCell>,
        _sampler: &mut dyn Sampler,
    ) -> Vec<FilterCell> {
        match self.kind {
            Kind::PassAll => cells,
            Kind::BlockAll => Vec::new(),
        }
    }
}
