//! `/ui/background` (flush and compaction queues and history) and `/ui/slow` (the
//! slow-request log).

use axum::extract::State;
use axum::response::Html;
use strata_engine::stats::EventKind;

use super::{card, num, page, table};
use crate::api;
use crate::format::{bytes, html, micros, timestamp};
use crate::AppState;

pub async fn background(State(state): State<AppState>) -> Html<String> {
    let b = api::background(&state);
    let t = &b.totals;
    let mut body = String::from("<div class=\"cards\">");
    body += &card(
        "Queued flushes / compactions",
        &format!("{} / {}", b.queued_flushes, b.queued_compactions),
        None,
    );
    body += &card(
        "Flushes",
        &format!(
            "{} ({}, {})",
            t.flushes,
            bytes(t.flush_bytes),
            micros(t.flush_micros)
        ),
        None,
    );
    body += &card(
        "Compactions",
        &format!(
            "{} ({} → {}, {})",
            t.compactions,
            bytes(t.compaction_bytes_in),
            bytes(t.compaction_bytes_out),
            micros(t.compaction_micros)
        ),
        None,
    );
    body += "</div><h2>Lanes</h2>";
    let lanes: Vec<Vec<String>> = b
        .lanes
        .iter()
        .map(|l| {
            vec![
                l.lane.replace('_', " "),
                l.storage_type.to_string(),
                num(l.threads),
                num(l.queued),
                num(l.running),
            ]
        })
        .collect();
    body += &table(
        &["Lane", "Storage type", "Threads", "Queued", "Running"],
        &lanes,
    );
    body += "<p class=\"muted\">Flushes have their own threads, so they never wait behind a compaction; compactions reading more than the throttle (<code>compaction_throttle_mb</code>) run in the large lane, so they do not hold up small ones. Every lane exists once per storage type of the volumes: work runs with the threads of the type it writes to, so a slow device holds up only its own.</p>";
    body += "<h2>Recent flushes and compactions (newest first)</h2>";
    let rows: Vec<Vec<String>> = b
        .recent
        .iter()
        .rev()
        .map(|e| {
            vec![
                timestamp(e.finished_at_ms),
                match e.kind {
                    EventKind::Flush => "flush",
                    EventKind::MinorCompaction => "minor compaction",
                    EventKind::MajorCompaction => "major compaction",
                }
                .into(),
                num(e.region),
                html(&e.family),
                num(micros(e.duration_micros)),
                num(e.files_in),
                num(bytes(e.bytes_in)),
                num(bytes(e.bytes_out)),
            ]
        })
        .collect();
    body += &table(
        &[
            "Finished (UTC)",
            "Kind",
            "Region",
            "Family",
            "Duration",
            "Files in",
            "Bytes in",
            "Bytes out",
        ],
        &rows,
    );
    body += "<p class=\"muted\">A flush's bytes in are memstore bytes; its bytes out are the SSTable written.</p>";
    page("/ui/background", "Background work", &body)
}

pub async fn slow(State(state): State<AppState>) -> Html<String> {
    let report = api::slow(&state);
    let mut body = format!(
        "<p>Requests taking at least <b>{} ms</b> (config key <code>slow_request_ms</code>), newest first; the last {} are kept.</p>",
        report.threshold_ms,
        strata_server::metrics::SLOW_LOG_LEN
    );
    let rows: Vec<Vec<String>> = report
        .requests
        .iter()
        .map(|r| {
            vec![
                timestamp(r.at_ms),
                r.operation.name().into(),
                html(&r.table),
                num(micros(r.duration_micros)),
            ]
        })
        .collect();
    body += &table(&["At (UTC)", "Operation", "Table", "Duration"], &rows);
    page("/ui/slow", "Slow requests", &body)
}
