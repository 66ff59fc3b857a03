//! `/ui/tables` (every table and its regions) and `/ui/tables/{name}` (one table down to
//! its store files).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use strata_server::status::{RegionStatus, TableStatus};
use strata_server::TableName;

use super::{num, page, table};
use crate::format::{bytes, html, timestamp};
use crate::AppState;

pub async fn list(State(state): State<AppState>) -> Html<String> {
    let tables = state.service.admin().table_status();
    let rows: Vec<Vec<String>> = tables
        .iter()
        .map(|t| {
            vec![
                table_link(&t.name),
                if t.enabled { "enabled" } else { "disabled" }.into(),
                html(&t.families.join(", ")),
                num(t.regions.len()),
                num(bytes(t.size_bytes)),
                num(bytes(t.memstore_bytes)),
                num(t.read_requests),
                num(t.write_requests),
            ]
        })
        .collect();
    let mut body = table(
        &[
            "Table",
            "State",
            "Families",
            "Regions",
            "Size",
            "Memstore",
            "Read requests",
            "Write requests",
        ],
        &rows,
    );
    body += &snapshots(&state);
    for t in &tables {
        body += &format!("<h2>{} regions</h2>", table_link(&t.name));
        body += &regions(t);
    }
    page("/ui/tables", "Tables", &body)
}

/// The snapshots (HBase's master UI lists them beside the tables).
fn snapshots(state: &AppState) -> String {
    let list = crate::api::snapshots(state);
    let mut body = String::from("<h2>Snapshots</h2>");
    if list.is_empty() {
        body += "<p class=\"muted\">None (<code>snapshot 'table', 'name'</code> in <code>strata shell</code>).</p>";
        return body;
    }
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|s| {
            vec![
                html(&s.name),
                table_link(&s.table),
                timestamp(s.created_at_ms),
                num(s.regions),
                num(s.files),
                num(bytes(s.bytes)),
            ]
        })
        .collect();
    body += &table(
        &[
            "Snapshot",
            "Table",
            "Taken (UTC)",
            "Regions",
            "Files",
            "Size",
        ],
        &rows,
    );
    body
}

fn table_link(name: &str) -> String {
    format!("<a href=\"/ui/tables/{}\">{}</a>", html(name), html(name))
}

fn regions(t: &TableStatus) -> String {
    let rows: Vec<Vec<String>> = t.regions.iter().map(region_row).collect();
    table(
        &[
            "Region",
            "Start key",
            "End key",
            "Store files",
            "Size",
            "Memstore",
            "Read requests",
            "Write requests",
        ],
        &rows,
    )
}

fn region_row(r: &RegionStatus) -> Vec<String> {
    vec![
        format!("<code>{}</code>", html(&r.name)),
        format!("<code>{}</code>", html(&r.start_key)),
        format!("<code>{}</code>", html(&r.end_key)),
        num(r.stats.file_count),
        num(bytes(r.stats.file_bytes)),
        num(bytes(r.stats.memstore_bytes)),
        num(r.stats.read_requests),
        num(r.stats.write_requests),
    ]
}

pub async fn detail(State(state): State<AppState>, Path(name): Path<String>) -> Response {
    let Some(t) = TableName::parse(&name)
        .ok()
        .and_then(|n| state.service.admin().one_table_status(&n))
    else {
        let body = format!("<p>There is no table <code>{}</code>.</p>", html(&name));
        return (
            StatusCode::NOT_FOUND,
            page("/ui/tables", "No such table", &body),
        )
            .into_response();
    };
    let mut body = format!(
        "<p>{} · families {} · {} regions · {} on disk · {} in memstores</p>",
        if t.enabled { "enabled" } else { "disabled" },
        html(&t.families.join(", ")),
        t.regions.len(),
        bytes(t.size_bytes),
        bytes(t.memstore_bytes)
    );
    body += &regions(&t);
    for r in &t.regions {
        body += &format!("<h2>Region <code>{}</code></h2>", html(&r.name));
        for s in &r.stats.stores {
            body += &format!(
                "<p>Family <b>{}</b>: memstore {}, {} in {} files</p>",
                html(&s.family),
                bytes(s.memstore_bytes),
                bytes(s.file_bytes),
                s.files.len()
            );
            let rows: Vec<Vec<String>> = s
                .files
                .iter()
                .map(|f| {
                    vec![
                        format!(
                            "<code>{}</code>{}",
                            html(&f.path),
                            if f.reference { " (reference)" } else { "" }
                        ),
                        html(&f.volume),
                        num(bytes(f.size)),
                        num(f.entries),
                        format!(
                            "{} … {}",
                            timestamp(f.min_timestamp),
                            timestamp(f.max_timestamp)
                        ),
                        f.origin.into(),
                        timestamp(f.created_at_ms),
                    ]
                })
                .collect();
            body += &table(
                &[
                    "File",
                    "Volume",
                    "Size",
                    "Entries",
                    "Cell time range (UTC)",
                    "Written by",
                    "Created (UTC)",
                ],
                &rows,
            );
        }
    }
    page("/ui/tables", &format!("Table {}", t.name), &body).into_response()
}
