#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Random puts and deletes through the REST API, checked against a simple in-memory model:
//! every row read back (JSON or XML, several versions) must equal the model's. Deletes are
//! HBase's: a delete marker hides every version at or below its timestamp, including
//! versions written after it. The same workload runs again on families with ROW_CACHE (set
//! through the schema) and a server row cache: the cache must never change a read.

mod common;

use std::collections::BTreeMap;

use axum::http::StatusCode;
use common::{b64, encode, json_cells, DecodedCell, Harness};

/// The cells, and the delete markers: the highest deleted timestamp per column and per
/// family of a row.
#[derive(Default)]
struct Model {
    cells: BTreeMap<(Vec<u8>, String), BTreeMap<i64, Vec<u8>>>,
    column_deleted: BTreeMap<(Vec<u8>, String), i64>,
    family_deleted: BTreeMap<(Vec<u8>, String), i64>,
}

fn family_of(column: &str) -> String {
    column.split(':').next().unwrap_or_default().to_string()
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const ROWS: [&[u8]; 5] = [b"a", b"a/b", b"\xff\x00", b"c,d", b"sp ace+"];
const COLUMNS: [&str; 4] = ["f:x", "f:y", "g:", "g:z"];
/// Versions read per column; the family keeps more, so none is dropped on the way.
const VERSIONS: usize = 3;

/// The model's view of a row: newest `VERSIONS` versions per column.
fn expected(model: &Model, row: &[u8]) -> Vec<DecodedCell> {
    let mut out = Vec::new();
    for ((r, column), versions) in &model.cells {
        if r.as_slice() != row {
            continue;
        }
        let key = (r.clone(), column.clone());
        let hidden = model
            .column_deleted
            .get(&key)
            .copied()
            .max(
                model
                    .family_deleted
                    .get(&(r.clone(), family_of(column)))
                    .copied(),
            )
            .unwrap_or(0);
        let visible = versions.iter().rev().filter(|(ts, _)| **ts > hidden);
        for (ts, value) in visible.take(VERSIONS) {
            out.push((r.clone(), column.as_bytes().to_vec(), *ts, value.clone()));
        }
    }
    out
}

async fn check_row(h: &Harness, model: &Model, row: &[u8], xml: bool) {
    let want = expected(model, row);
    let path = format!("/t/{}?v={VERSIONS}", encode(row));
    let reply = h
        .get(&path, if xml { "text/xml" } else { "application/json" })
        .await;
    if want.is_empty() {
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "{path}: {}",
            reply.text()
        );
        return;
    }
    assert_eq!(reply.status, StatusCode::OK, "{path}: {}", reply.text());
    if xml {
        // Each expected cell appears in the XML, and no others.
        let text = reply.text();
        assert_eq!(text.matches("<Cell ").count(), want.len(), "{text}");
        for (_, column, ts, value) in &want {
            let cell = format!(
                r#"<Cell column="{}" timestamp="{ts}">{}</Cell>"#,
                b64(column),
                b64(value)
            );
            assert!(text.contains(&cell), "{cell} missing from {text}");
        }
    } else {
        assert_eq!(json_cells(&reply.json()), want, "{path}");
    }
}

/// A harness with table "t" (families f and g, many versions), with the row cache on in
/// both families when `row_cache`.
async fn harness(row_cache: bool) -> Harness {
    if !row_cache {
        let h = Harness::new();
        h.create_table("t", &["f", "g"], 1000).await;
        return h;
    }
    let h = Harness::with_service(Default::default(), |o| o.engine.row_cache_bytes = 64 << 10);
    let family = |name| serde_json::json!({"name": name, "VERSIONS": "1000", "ROW_CACHE": "true"});
    let body = serde_json::json!({"name": "t", "ColumnSchema": [family("f"), family("g")]});
    let reply = h
        .send("PUT", "/t/schema", "application/json", body.to_string())
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    h
}

/// Runs the workload; returns the row cache's hits.
async fn run_random_writes(seed: u64, steps: usize, row_cache: bool) -> u64 {
    let h = harness(row_cache).await;
    let mut model = Model::default();
    let mut rng = Rng(seed);
    for step in 0..steps {
        let row = ROWS[rng.below(ROWS.len() as u64) as usize];
        let column = COLUMNS[rng.below(COLUMNS.len() as u64) as usize];
        let ts = 1 + rng.below(20) as i64;
        match rng.below(10) {
            0..=5 => {
                let value = format!("v{step}").into_bytes();
                h.put_cell("t", row, column, Some(ts), &value).await;
                model
                    .cells
                    .entry((row.to_vec(), column.to_string()))
                    .or_default()
                    .insert(ts, value);
            }
            6 | 7 => {
                let path = format!("/t/{}/{}/{ts}", encode(row), encode(column.as_bytes()));
                let reply = h.call("DELETE", &path, &[], Vec::new()).await;
                assert_eq!(reply.status, StatusCode::OK, "{path}");
                let marker = model
                    .column_deleted
                    .entry((row.to_vec(), column.to_string()))
                    .or_default();
                *marker = (*marker).max(ts);
            }
            8 => {
                let family = column.split(':').next().unwrap();
                let path = format!("/t/{}/{family}/{ts}", encode(row));
                assert_eq!(
                    h.call("DELETE", &path, &[], Vec::new()).await.status,
                    StatusCode::OK
                );
                let marker = model
                    .family_deleted
                    .entry((row.to_vec(), family.to_string()))
                    .or_default();
                *marker = (*marker).max(ts);
            }
            _ => check_row(&h, &model, row, rng.below(2) == 0).await,
        }
    }
    for row in ROWS {
        check_row(&h, &model, row, false).await;
        check_row(&h, &model, row, true).await;
    }
    h.service.engine().row_cache_stats().hits
}

const SEEDS: [u64; 3] = [0x2545_f491_4f6c_dd1d, 0x9e37_79b9_7f4a_7c15, 42];

#[tokio::test]
async fn random_writes_match_the_model() {
    for seed in SEEDS {
        run_random_writes(seed, 600, false).await;
    }
}

#[tokio::test]
async fn random_writes_match_the_model_with_the_row_cache_on() {
    for seed in SEEDS {
        let hits = run_random_writes(seed, 600, true).await;
        assert!(hits > 0, "seed {seed:#x}: the row cache was never used");
    }
}
