//! Entry point for the RowFilter fuzz target (`fuzz/fuzz_targets/grpc_row_filter.rs`) and its
//! stable corpus replay (`tests/fuzz_corpus_test.rs`): request validation of a hostile
//! `RowFilter`. Panics only when an invariant breaks; a decode or INVALID_ARGUMENT error is an
//! acceptable outcome.

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use prost::Message;

use crate::row_filter::{FilterCell, RowFilter, Sampler};

/// Decodes `input` as a protobuf `RowFilter`, compiles it and applies it to a small row.
/// Invariant: every cell that comes out is a cell of the row (same family, qualifier and
/// timestamp), with its own value or an empty one (`strip_value_transformer`).
pub fn row_filter(input: &[u8]) {
    let Ok(filter) = pb::RowFilter::decode(input) else {
        return;
    };
    let Ok(compiled) = RowFilter::compile(Some(&filter)) else {
        return;
    };
    let row = sample_row();
    for seed in 0..2u64 {
        let mut sampler = Alternating(seed);
        let Ok(out) = compiled.try_apply(b"row1", row.clone(), &mut sampler) else {
            continue;
        };
        for cell in &out {
            let source = row.iter().find(|c| {
                c.family == cell.family
                    && c.qualifier == cell.qualifier
                    && c.timestamp_micros == cell.timestamp_micros
            });
            let Some(source) = source else {
                panic!("the filter invented a cell: {cell:?}");
            };
            assert!(
                cell.value == source.value || cell.value.is_empty(),
                "the filter changed a value: {cell:?}"
            );
        }
    }
}

/// A repeatable sampler: alternately says yes and no.
struct Alternating(u64);

impl Sampler for Alternating {
    fn sample(&mut self, _p: f64) -> bool {
        self.0 += 1;
        self.0 % 2 == 0
    }
}

fn sample_row() -> Vec<FilterCell> {
    let cell = |family: &str, qualifier: &'static [u8], ts: i64, value: &'static [u8]| FilterCell {
        family: family.to_string(),
        qualifier: Bytes::from_static(qualifier),
        timestamp_micros: ts,
        value: Bytes::from_static(value),
        labels: Vec::new(),
    };
    vec![
        cell("cf", b"a", 3000, b"1"),
        cell("cf", b"a", 2000, b"xyz"),
        cell("cf", b"b", 5000, b"abc"),
        cell("cg", b"c", 1000, b""),
    ]
}
