//! Scans with HBase filter-language filters (`PrefixFilter`, `SingleColumnValueFilter`,
//! `ValueFilter` with `substring:`, and combinations), each checked against the rows and
//! cells the same selection picks from the data written.
//!
//! Run: `cargo run -p strata-examples --example filtered_scan [DATA_DIR]`

use strata_db::{Db, Family, Mutation, Put, Scan, Table, TableBuilder};
use strata_examples::{ensure, fresh_table, msg, run, DataDir};

const TABLE: &str = "people";
const NAMES: [&str; 8] = [
    "Ann", "Bob", "Joanna", "Dmitri", "Hannah", "Li", "Maria", "Susannah",
];
const CITIES: [&str; 4] = ["Paris", "Lima", "Oslo", "Pune"];

/// One person: (row key, name, city, age as three digits so that bytes compare as numbers).
struct Person {
    key: String,
    name: String,
    city: &'static str,
    age: String,
}

fn people() -> Vec<Person> {
    let mut all = Vec::new();
    for i in 0..40usize {
        let kind = if i % 10 == 0 { "admin" } else { "user" };
        all.push(Person {
            key: format!("{kind}#{i:03}"),
            name: format!("{}-{i}", NAMES[i % NAMES.len()]),
            city: CITIES[(i / 3) % CITIES.len()],
            age: format!("{:03}", 18 + (i * 7) % 50),
        });
    }
    all.sort_by(|a, b| a.key.cmp(&b.key));
    all
}

fn load(table: &Table, people: &[Person]) -> Result<(), String> {
    let puts: Vec<Mutation> = people
        .iter()
        .map(|p| {
            Put::new(p.key.clone())
                .add("p", "name", p.name.clone())
                .add("p", "city", p.city)
                .add("p", "age", p.age.clone())
                .into()
        })
        .collect();
    table.batch(puts).map_err(msg("batch put"))
}

/// The rows a filtered scan returns: (row key, number of cells).
fn scan(table: &Table, filter: &str) -> Result<Vec<(String, usize)>, String> {
    let mut rows = Vec::new();
    for row in table
        .scan(Scan::new().filter(filter))
        .map_err(msg(filter))?
    {
        let row = row.map_err(msg(filter))?;
        rows.push((
            String::from_utf8_lossy(row.key()).into_owned(),
            row.cells().len(),
        ));
    }
    Ok(rows)
}

fn check(
    table: &Table,
    filter: &str,
    people: &[Person],
    keep: impl Fn(&Person) -> Option<usize>,
) -> Result<usize, String> {
    let want: Vec<(String, usize)> = people
        .iter()
        .filter_map(|p| keep(p).map(|cells| (p.key.clone(), cells)))
        .collect();
    let got = scan(table, filter)?;
    ensure(!want.is_empty(), || {
        format!("{filter}: expects nothing, a useless check")
    })?;
    ensure(got == want, || {
        format!("{filter}:\n  got      {got:?}\n  expected {want:?}")
    })?;
    println!("filtered_scan: {filter} -> {} rows", got.len());
    Ok(got.len())
}

fn main() {
    run("filtered_scan", || {
        let dir = DataDir::from_args()?;
        let db = Db::open(dir.path()).map_err(msg("open"))?;
        let builder = TableBuilder::new(TABLE)
            .family(Family::new("p"))
            .split_keys(["user#020"]);
        let table = fresh_table(&db, builder, TABLE)?;
        let people = people();
        load(&table, &people)?;

        // Row-level filters keep whole rows (3 cells each).
        check(&table, "PrefixFilter('admin#')", &people, |p| {
            p.key.starts_with("admin#").then_some(3)
        })?;
        check(
            &table,
            "SingleColumnValueFilter('p', 'city', =, 'binary:Paris')",
            &people,
            |p| (p.city == "Paris").then_some(3),
        )?;
        // A cell-level filter keeps only the matching cells of each row.
        check(&table, "ValueFilter(=, 'substring:anna')", &people, |p| {
            p.name.contains("anna").then_some(1)
        })?;
        check(
            &table,
            "PrefixFilter('user#') AND SingleColumnValueFilter('p', 'age', >=, 'binary:050')",
            &people,
            |p| (p.key.starts_with("user#") && p.age.as_str() >= "050").then_some(3),
        )?;
        check(
            &table,
            "QualifierFilter(=, 'binary:city') AND ValueFilter(=, 'regexstring:^P')",
            &people,
            |p| p.city.starts_with('P').then_some(1),
        )?;
        let bad = table.scan(Scan::new().filter("ValueFilter(=, 'binary:x'"));
        ensure(
            matches!(bad, Err(strata_db::Error::InvalidFilter { .. })),
            || "an unbalanced filter string was not rejected".into(),
        )?;
        ensure(db.service().scanners().open_scanner_count() == 0, || {
            "a scanner was left open".into()
        })?;
        db.close().map_err(msg("close"))
    });
}
