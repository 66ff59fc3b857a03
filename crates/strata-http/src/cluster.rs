//! `/api/v1/cluster` and `/ui/cluster`: the cluster this server belongs to (cluster mode
//! only), as `strata cluster status` shows it: servers, master, regions with their owners
//! and epochs. The view is read from etcd on each request, off the async threads.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde_json::Value;

use crate::format::html;
use crate::ui::{page, table};
use crate::AppState;

/// Where the pages get the cluster's status from (cluster mode installs one).
pub trait ClusterView: Send + Sync {
    /// The status, shaped as `strata cluster status --json` prints it.
    fn status(&self) -> Result<Value, String>;

    /// This server's own cluster counters for `/metrics`: name, kind (`counter` or
    /// `gauge`), help, value. Read from memory, never from etcd, so scraping costs nothing.
    fn metrics(&self) -> Vec<ClusterMetric> {
        Vec::new()
    }
}

/// One of [`ClusterView::metrics`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterMetric {
    pub name: &'static str,
    pub kind: &'static str,
    pub help: &'static str,
    pub value: u64,
}

async fn read(state: &AppState) -> Option<Result<Value, String>> {
    let view: Arc<dyn ClusterView> = state.http.cluster()?;
    Some(
        tokio::task::spawn_blocking(move || view.status())
            .await
            .unwrap_or_else(|e| Err(e.to_string())),
    )
}

pub async fn api(State(state): State<AppState>) -> Response {
    match read(&state).await {
        None => (StatusCode::NOT_FOUND, "not in cluster mode\n").into_response(),
        Some(Ok(status)) => axum::Json(status).into_response(),
        Some(Err(e)) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")).into_response(),
    }
}

fn text(value: &Value, key: &str) -> String {
    match value.get(key) {
        Some(Value::String(s)) => html(s),
        Some(Value::Null) | None => "-".into(),
        Some(other) => html(&other.to_string()),
    }
}

pub async fn page_handler(State(state): State<AppState>) -> Html<String> {
    let body = match read(&state).await {
        None => "<p class=\"muted\">This server runs standalone.</p>".to_string(),
        Some(Err(e)) => format!("<p>Cannot read the cluster's status: {}</p>", html(&e)),
        Some(Ok(status)) => render(&status),
    };
    page("/ui/cluster", "Cluster", &body)
}

fn render(status: &Value) -> String {
    let master = status.get("master").and_then(Value::as_str).unwrap_or("");
    let empty = Vec::new();
    let list = |key: &str| {
        status
            .get(key)
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .clone()
    };
    let servers: Vec<Vec<String>> = list("servers")
        .iter()
        .map(|s| {
            let sid = s.get("sid").and_then(Value::as_str).unwrap_or("");
            let role = if sid == master { "master" } else { "server" };
            vec![
                text(s, "sid"),
                text(s, "addr"),
                text(s, "incarnation"),
                role.into(),
            ]
        })
        .collect();
    let regions: Vec<Vec<String>> = list("regions")
        .iter()
        .map(|r| {
            ["id", "table", "start", "end", "state", "owner", "epoch"]
                .iter()
                .map(|k| text(r, k))
                .collect()
        })
        .collect();
    format!(
        "<p>Cluster <b>{}</b>, master <code>{}</code>.</p><h2>Servers</h2>{}<h2>Regions</h2>{}",
        text(status, "cluster"),
        html(master),
        table(
            &[
                "Server",
                "Address (host:thrift:grpc:http)",
                "Incarnation",
                "Role"
            ],
            &servers
        ),
        table(
            &["Region", "Table", "Start", "End", "State", "Owner", "Epoch"],
            &regions
        ),
    )
}
