//! `/ui`: the server overview.

use axum::extract::State;
use axum::response::Html;

use super::{card, num, page, table};
use crate::api;
use crate::format::{bytes, html, micros};
use crate::AppState;

pub async fn page_handler(State(state): State<AppState>) -> Html<String> {
    let server = api::server(&state);
    let m = &server.memory;
    let mut body = String::from("<div class=\"cards\">");
    body += &card("Version", &html(&server.version), None);
    body += &card("Uptime", &uptime(server.uptime_seconds), None);
    body += &card(
        "Tables / regions / open scanners",
        &format!(
            "{} / {} / {}",
            server.tables, server.regions, server.open_scanners
        ),
        None,
    );
    body += &card(
        &format!("Memstores (limit {})", bytes(m.memstore_limit)),
        &bytes(m.memstore_bytes),
        Some((m.memstore_bytes, m.memstore_limit)),
    );
    body += &card(
        &format!(
            "Block cache (capacity {})",
            bytes(server.block_cache_capacity_bytes)
        ),
        &bytes(server.block_cache_bytes),
        Some((server.block_cache_bytes, server.block_cache_capacity_bytes)),
    );
    body += "</div><h2>Requests</h2>";
    body += &super::chart::charts(&state.http.charts.samples());
    let ops = api::requests(&state).operations;
    let rows: Vec<Vec<String>> = ops
        .iter()
        .map(|o| {
            vec![
                o.operation.name().into(),
                num(o.count),
                num(micros(o.mean_micros)),
                num(micros(o.p50_micros)),
                num(micros(o.p99_micros)),
            ]
        })
        .collect();
    body += &table(&["Operation", "Requests", "Mean", "p50 ≤", "p99 ≤"], &rows);
    body += "<h2>Data volumes</h2>";
    let rows: Vec<Vec<String>> = server
        .volumes
        .iter()
        .map(|v| {
            let opt = |b: Option<u64>| b.map(bytes).unwrap_or_else(|| "?".into());
            vec![
                html(&v.volume.name),
                format!("<code>{}</code>", html(&v.volume.root)),
                html(&v.volume.storage_type),
                num(v.volume.files),
                num(bytes(v.volume.bytes)),
                num(opt(v.free_bytes)),
                num(opt(v.total_bytes)),
                volume_state(&v.volume),
            ]
        })
        .collect();
    body += &table(
        &[
            "Volume",
            "Root",
            "Type",
            "Store files",
            "Store bytes",
            "Free",
            "Size",
            "State",
        ],
        &rows,
    );
    body += "<h2>Effective configuration</h2>";
    let rows: Vec<Vec<String>> = server
        .config
        .iter()
        .map(|c| vec![format!("<code>{}</code>", html(&c.key)), html(&c.value)])
        .collect();
    body += &table(&["Key", "Value"], &rows);
    page("/ui", "Server overview", &body)
}

fn uptime(seconds: u64) -> String {
    let (d, h, m, s) = (
        seconds / 86_400,
        seconds / 3600 % 24,
        seconds / 60 % 60,
        seconds % 60,
    );
    if d > 0 {
        format!("{d}d {h}h {m}m")
    } else {
        format!("{h}h {m}m {s}s")
    }
}

/// A volume's health: `ok`, or `slow`/`failed` with what made it so (placement passes over
/// it meanwhile).
fn volume_state(v: &strata_engine::stats::VolumeStats) -> String {
    let latency = v
        .sync_latency_us
        .map(|us| format!(", sync {}", micros(us)))
        .unwrap_or_default();
    match (&v.state[..], &v.last_error) {
        ("failed", Some(error)) => {
            format!("<b>failed</b> ({} errors; last: {})", v.errors, html(error))
        }
        ("ok", _) => format!("ok{latency}"),
        (state, _) => format!("<b>{}</b>{latency}", html(state)),
    }
}
