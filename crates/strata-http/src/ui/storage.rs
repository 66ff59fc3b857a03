//! `/ui/storage`: block cache, row cache and WAL.

use axum::extract::State;
use axum::response::Html;

use super::{card, num, page, table};
use crate::api;
use crate::format::{bytes, html, micros, percent};
use crate::AppState;

pub async fn page_handler(State(state): State<AppState>) -> Html<String> {
    let cache = api::cache(&state);
    let t = &cache.totals;
    let mut body = String::from("<h2>Block cache</h2><div class=\"cards\">");
    let held = t.size_bytes + t.index_bloom_bytes;
    body += &card(
        "Size",
        &format!("{} of {}", bytes(held), bytes(t.capacity_bytes)),
        Some((held, t.capacity_bytes)),
    );
    body += &card("Index and bloom", &bytes(t.index_bloom_bytes), None);
    body += &card(
        "Hit ratio",
        &format!("{:.1}%", cache.hit_ratio * 100.0),
        None,
    );
    body += &card("Hits / misses", &format!("{} / {}", t.hits, t.misses), None);
    body += &card("Evictions", &t.evictions.to_string(), None);
    body += "</div>";
    let rows: Vec<Vec<String>> = cache
        .tiers
        .iter()
        .map(|tier| {
            vec![
                tier.tier.into(),
                num(bytes(tier.size_bytes)),
                num(bytes(tier.capacity_bytes)),
                num(format!(
                    "{:.1}%",
                    percent(tier.size_bytes, tier.capacity_bytes)
                )),
                num(tier.entries),
                num(tier.hits),
                num(tier.evictions),
            ]
        })
        .collect();
    body += &table(
        &[
            "Tier",
            "Size",
            "Capacity",
            "Used",
            "Blocks",
            "Hits",
            "Evictions",
        ],
        &rows,
    );
    body += "<p class=\"muted\">Size counts data blocks and the open files' index and bloom memory, which is charged to the cache: the tiers share what it leaves. The high tier holds the data blocks of IN_MEMORY families, sized for the IN_MEMORY files open (none: 0), up to a quarter; a scan churning the normal tier cannot evict them. Misses are counted for the cache as a whole.</p>";
    if let Some(l2) = &t.l2 {
        body += &second_level(l2);
    }
    body += &row_cache(&cache.row_cache);

    let wal = api::wal(&state);
    let w = &wal.stats;
    body += "<h2>Write-ahead log</h2><div class=\"cards\">";
    body += &card(
        "Segments",
        &format!("{} ({})", w.segments, bytes(w.total_bytes)),
        None,
    );
    body += &card(
        "Sync latency p50 / p95 / p99 ≤",
        &format!(
            "{} / {} / {}",
            micros(wal.sync_p50_micros),
            micros(wal.sync_p95_micros),
            micros(wal.sync_p99_micros)
        ),
        None,
    );
    body += &card("Slowest sync", &micros(w.sync_micros_max), None);
    body += "</div>";
    let rows = vec![
        vec!["Edits appended".into(), num(w.appends)],
        vec!["Edits that skipped the WAL".into(), num(w.skipped)],
        vec!["Group commits (batches)".into(), num(w.batches)],
        vec!["Flushes to the OS".into(), num(w.flushes)],
        vec!["Syncs".into(), num(w.syncs)],
        vec!["Bytes written".into(), num(bytes(w.bytes_written))],
        vec!["Segment rolls".into(), num(w.rolls)],
        vec!["Write errors".into(), num(w.write_errors)],
    ];
    body += &table(&["Counter", "Value"], &rows);
    if wal.groups.len() > 1 {
        body += &wal_groups(&wal.groups);
    }
    page("/ui/storage", "Cache & WAL", &body)
}

/// One row per WAL group (and leftover directory), so a slow WAL device stands out.
fn wal_groups(groups: &[api::WalGroupReport]) -> String {
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            let s = &g.group.stats;
            vec![
                g.group
                    .group
                    .map_or_else(|| "leftover".to_string(), |n| n.to_string()),
                html(&g.group.volume),
                format!("{} ({})", s.segments, bytes(s.total_bytes)),
                num(s.appends),
                num(s.syncs),
                micros(g.sync_p99_micros),
                micros(s.sync_micros_max),
                num(s.write_errors),
            ]
        })
        .collect();
    let mut body = String::from("<h3>WAL groups</h3>");
    body += &table(
        &[
            "Group",
            "Volume",
            "Segments",
            "Edits",
            "Syncs",
            "Sync p99 ≤",
            "Slowest sync",
            "Write errors",
        ],
        &rows,
    );
    body
}

/// The row cache: answers to repeated point reads of ROW_CACHE families.
fn row_cache(report: &api::RowCacheReport) -> String {
    let r = &report.stats;
    let mut body = String::from("<h2>Row cache</h2>");
    if r.capacity_bytes == 0 {
        body += "<p class=\"muted\">Off (<code>row_cache_mb = 0</code>).</p>";
        return body;
    }
    body += "<div class=\"cards\">";
    body += &card(
        "Size",
        &format!("{} of {}", bytes(r.size_bytes), bytes(r.capacity_bytes)),
        Some((r.size_bytes, r.capacity_bytes)),
    );
    body += &card("Rows", &r.entries.to_string(), None);
    body += &card(
        "Hit ratio",
        &format!("{:.1}%", report.hit_ratio * 100.0),
        None,
    );
    body += &card("Hits / misses", &format!("{} / {}", r.hits, r.misses), None);
    body += &card(
        "Evictions / invalidations",
        &format!("{} / {}", r.evictions, r.invalidations),
        None,
    );
    body += "</div><p class=\"muted\">Whole answers to point reads of families with ROW_CACHE, above the block cache. Every write to a row drops its answers; a flush, compaction or alter makes them unusable.</p>";
    body
}

/// The block cache's second level (a file on a local device), when configured.
fn second_level(l2: &strata_engine::L2Stats) -> String {
    let mut body = String::from("<h3>Second level (file)</h3><div class=\"cards\">");
    body += &card(
        "Size",
        &format!("{} of {}", bytes(l2.size_bytes), bytes(l2.capacity_bytes)),
        Some((l2.size_bytes, l2.capacity_bytes)),
    );
    body += &card("Blocks", &l2.entries.to_string(), None);
    body += &card(
        "Hits / misses",
        &format!("{} / {}", l2.hits, l2.misses),
        None,
    );
    body += &card(
        "Demoted / promoted",
        &format!("{} / {}", l2.demotions, l2.promotions),
        None,
    );
    body += &card(
        "Overwritten / rejected / corrupt",
        &format!("{} / {} / {}", l2.evictions, l2.rejected, l2.corrupt),
        None,
    );
    body += &card("Kept at start", &l2.restored.to_string(), None);
    body += "</div><p class=\"muted\">Data blocks evicted from memory are written here; a memory miss that finds its block here is served from the file and put back into memory. Kept across a clean restart.</p>";
    body
}
