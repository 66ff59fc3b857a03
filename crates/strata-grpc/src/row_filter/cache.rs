//! Compiled filters, remembered by their encoded bytes.
//!
//! Clients send the same few filters over and over (YCSB's Bigtable binding sends one with
//! every read), and compiling one builds its regexes, which cost far more than the read
//! itself. A filter's compiled form depends only on its bytes, so the cache needs no
//! invalidation; it is bounded by entry count, and each filter is at most 20 KB encoded.

use std::sync::{Arc, OnceLock};

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use prost::Message;
use tonic::Status;

use super::RowFilter;

/// Distinct filters kept compiled.
const CACHED_FILTERS: usize = 1024;

fn cache() -> &'static quick_cache::sync::Cache<Vec<u8>, Arc<RowFilter>> {
    static CACHE: OnceLock<quick_cache::sync::Cache<Vec<u8>, Arc<RowFilter>>> = OnceLock::new();
    CACHE.get_or_init(|| quick_cache::sync::Cache::new(CACHED_FILTERS))
}

impl RowFilter {
    /// [`RowFilter::compile_field`], reusing an earlier compilation of the same filter. Only
    /// filters that compile are cached; a bad one is checked again each time.
    pub fn compile_cached(
        filter: Option<&pb::RowFilter>,
        field: &str,
    ) -> Result<Arc<RowFilter>, Status> {
        let Some(filter) = filter else {
            return RowFilter::compile_field(None, field).map(Arc::new);
        };
        let key = filter.encode_to_vec();
        if let Some(compiled) = cache().get(&key) {
            return Ok(compiled);
        }
        let compiled = Arc::new(RowFilter::compile_field(Some(filter), field)?);
        cache().insert(key, Arc::clone(&compiled));
        Ok(compiled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regex_filter(pattern: &str) -> pb::RowFilter {
        pb::RowFilter {
            filter: Some(pb::row_filter::Filter::ValueRegexFilter(
                pattern.as_bytes().to_vec().into(),
            )),
        }
    }

    #[test]
    fn the_same_filter_is_compiled_once() {
        let filter = regex_filter("cache-test-[0-9]+");
        let first = RowFilter::compile_cached(Some(&filter), "filter").unwrap();
        let second = RowFilter::compile_cached(Some(&filter), "filter").unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        let other =
            RowFilter::compile_cached(Some(&regex_filter("other-[a-z]")), "filter").unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
    }

    #[test]
    fn bad_filters_are_refused_every_time() {
        let bad = regex_filter("(unclosed");
        for _ in 0..2 {
            let err = RowFilter::compile_cached(Some(&bad), "predicate_filter").unwrap_err();
            assert_eq!(err.code(), tonic::Code::InvalidArgument);
            assert!(err.message().starts_with("predicate_filter"), "{err:?}");
        }
    }
}
