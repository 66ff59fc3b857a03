//! The same random operations on two services splitting a table and on one holding it all.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

fn key(rng: &mut StdRng) -> String {
    format!("r{:03}", rng.random_range(0..600))
}

/// One random operation, applied to `svc`; what it answered, comparable across services.
fn apply(svc: &Service, step: u64, rng: &mut StdRng) -> String {
    let t = table();
    let row = key(rng);
    let column = format!("q{}", rng.random_range(0..3));
    match rng.random_range(0..9) {
        0 | 1 => {
            // Explicit timestamps: the same versions in every service.
            let cell = Cell::put(row, "cf", column, step as i64, format!("v{step}"));
            format!(
                "{:?}",
                svc.rows().mutate(&t, vec![cell], WriteDurability::SyncWal)
            )
        }
        2 => {
            let cell = Cell::delete(row, "cf", column, step as i64, CellType::DeleteColumn);
            format!(
                "{:?}",
                svc.rows().mutate(&t, vec![cell], WriteDurability::SyncWal)
            )
        }
        3 => {
            let get = Get::new(row).versions(rng.random_range(1..4));
            let got = svc
                .rows()
                .get(&t, &get)
                .map(|r| shape(&r.into_iter().collect::<Vec<_>>()));
            format!("{got:?}")
        }
        4 => format!(
            "{:?}",
            svc.rows()
                .increment(&t, row.as_bytes(), b"cf", b"n", 1 + (step % 5) as i64)
        ),
        5 => {
            let suffix = (
                Bytes::from("cf"),
                Bytes::from("s"),
                Bytes::from(format!("{step},")),
            );
            let cells = svc.rows().append(&t, row.as_bytes(), &[suffix]);
            format!(
                "{:?}",
                cells.map(|c| c.into_iter().map(|c| c.value).collect::<Vec<_>>())
            )
        }
        6 => {
            let check = Check {
                row: Bytes::from(row.clone()),
                family: Bytes::from("cf"),
                qualifier: Bytes::from("q0"),
                op: CompareOp::Equal,
                value: rng
                    .random_bool(0.5)
                    .then(|| Bytes::from(format!("v{}", step - 1))),
            };
            let put = Cell::put(row, "cf", "q1", step as i64, "checked");
            format!(
                "{:?}",
                svc.rows()
                    .check_and_mutate(&t, &check, vec![put], WriteDurability::SyncWal)
            )
        }
        7 => {
            let (lo, hi) = (key(rng), key(rng));
            let (lo, hi) = (lo.clone().min(hi.clone()), lo.max(hi));
            let reversed = rng.random_bool(0.3);
            let mut scan = if reversed {
                Scan::new().range(hi, lo).reversed(true)
            } else {
                Scan::new().range(lo, hi)
            };
            if rng.random_bool(0.5) {
                scan = Scan::new().reversed(reversed);
            }
            let mut stream = svc.scanners().scan_rows(&t, scan).unwrap();
            let mut rows = Vec::new();
            while let Some(row) = stream.next_row().unwrap() {
                rows.push(row);
            }
            format!("{:?}", shape(&rows))
        }
        _ => {
            let limit = rng.random_range(1..700);
            let filter = rng
                .random_bool(0.5)
                .then(|| svc.parse_filter(b"PrefixFilter('r2')").unwrap());
            let scan = Scan::new().limit(limit).reversed(rng.random_bool(0.3));
            let id = svc
                .scanners()
                .open_filtered_scanner(&t, scan, filter)
                .unwrap();
            let mut rows = Vec::new();
            loop {
                let batch = svc
                    .scanners()
                    .scanner_next(id, rng.random_range(1..300))
                    .unwrap();
                if batch.is_empty() {
                    break;
                }
                rows.extend(batch);
            }
            svc.scanners().close_scanner(id).unwrap();
            format!("{:?}", shape(&rows))
        }
    }
}

#[test]
fn two_services_sharing_a_table_answer_as_one() {
    let c = cluster();
    let seed = 0x5eed_0001;
    let mut pick = StdRng::seed_from_u64(seed);
    // Enough rows that a full scan of each region takes several chunks.
    for i in 0..600 {
        let cell = Cell::put(format!("r{i:03}"), "cf", "q0", 1, format!("v{i}"));
        for svc in [&c.a, &c.reference] {
            svc.rows()
                .mutate(&table(), vec![cell.clone()], WriteDurability::SyncWal)
                .unwrap();
        }
    }
    for step in 2..1_500u64 {
        let through = if pick.random_bool(0.5) { &c.a } else { &c.b };
        let op_seed: u64 = pick.random();
        let expected = apply(&c.reference, step, &mut StdRng::seed_from_u64(op_seed));
        let got = apply(through, step, &mut StdRng::seed_from_u64(op_seed));
        assert_eq!(got, expected, "step {step} (seed {seed:#x})");
    }
}
