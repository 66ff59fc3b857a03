//! The status pages: plain server-rendered HTML, one stylesheet, a few lines of JavaScript
//! (auto-refresh and the live charts). No build step, nothing loaded from elsewhere.

mod activity;
mod chart;
mod overview;
mod storage;
mod tables;

use axum::response::{Html, Redirect};
use axum::routing::get;
use axum::Router;

use crate::format::html;
use crate::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/ui", get(overview::page_handler))
        .route("/ui/", get(|| async { Redirect::permanent("/ui") }))
        .route("/ui/tables", get(tables::list))
        .route("/ui/tables/{name}", get(tables::detail))
        .route("/ui/storage", get(storage::page_handler))
        .route("/ui/background", get(activity::background))
        .route("/ui/slow", get(activity::slow))
}

const NAV: [(&str, &str); 6] = [
    ("/ui", "Overview"),
    ("/ui/tables", "Tables"),
    ("/ui/storage", "Cache &amp; WAL"),
    ("/ui/background", "Background work"),
    ("/ui/slow", "Slow requests"),
    ("/ui/cluster", "Cluster"),
];

const STYLE: &str = r#"
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2733;background:#f5f7fa}
header{background:#1d3557;color:#fff;padding:.6em 1.2em;display:flex;gap:1.5em;align-items:center}
header a{color:#cfe0f5;text-decoration:none}header a.on{color:#fff;font-weight:600}
header .brand{font-weight:700;font-size:1.1em;margin-right:1em}
header .refresh{margin-left:auto;font-size:.85em}
main{padding:1em 1.5em;max-width:1300px}
h1{font-size:1.4em;margin:.3em 0 .6em}h2{font-size:1.1em;margin:1.4em 0 .5em}
table{border-collapse:collapse;background:#fff;margin-bottom:1em;min-width:40%}
th,td{border:1px solid #d9dee5;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eef2f7;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:1em}
.card{background:#fff;border:1px solid #d9dee5;border-radius:6px;padding:.7em 1em;min-width:14em}
.card .v{font-size:1.5em;font-weight:600}.muted{color:#6b7785}
.bar{height:10px;background:#e3e8ef;border-radius:5px;overflow:hidden;margin-top:.3em}
.bar>div{height:100%;background:#2a9d8f}.bar>div.hot{background:#e76f51}
code{font-size:.92em}svg{background:#fff;border:1px solid #d9dee5}
"#;

/// A whole page: header with navigation, `title`, `body`. Pages reload every few seconds
/// unless the reader pauses it (the choice is kept in localStorage).
pub fn page(active: &str, title: &str, body: &str) -> Html<String> {
    let nav: String = NAV
        .iter()
        .map(|(href, label)| {
            let class = if *href == active { " class=\"on\"" } else { "" };
            format!("<a href=\"{href}\"{class}>{label}</a>")
        })
        .collect();
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>{title} - Strata</title><style>{STYLE}</style></head><body>\
<header><span class=\"brand\">Strata</span>{nav}\
<label class=\"refresh\"><input type=\"checkbox\" id=\"auto\"> auto-refresh</label></header>\
<main><h1>{title}</h1>{body}</main><script>{REFRESH_JS}</script></body></html>",
        title = html(title),
    ))
}

const REFRESH_JS: &str = r#"
(function(){var box=document.getElementById('auto');
box.checked=localStorage.getItem('strata-refresh')!=='off';
box.onchange=function(){localStorage.setItem('strata-refresh',box.checked?'on':'off')};
setInterval(function(){if(box.checked&&!document.hidden&&!window.strataLive)location.reload()},5000);})();
"#;

/// A table from a header row and rows of already-escaped cells; cells starting with `#`
/// are numbers (right-aligned, the `#` dropped).
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<table><tr>");
    for h in headers {
        out.push_str(&format!("<th>{h}</th>"));
    }
    out.push_str("</tr>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            match cell.strip_prefix('#') {
                Some(n) => out.push_str(&format!("<td class=\"n\">{n}</td>")),
                None => out.push_str(&format!("<td>{cell}</td>")),
            }
        }
        out.push_str("</tr>");
    }
    if rows.is_empty() {
        out.push_str(&format!(
            "<tr><td colspan=\"{}\" class=\"muted\">none</td></tr>",
            headers.len()
        ));
    }
    out.push_str("</table>");
    out
}

/// A card with a big value, a caption and an optional fill bar (`used` of `limit`).
pub fn card(caption: &str, value: &str, bar: Option<(u64, u64)>) -> String {
    let bar = bar
        .map(|(used, limit)| {
            let pct = crate::format::percent(used, limit).min(100.0);
            let hot = if pct > 85.0 { " class=\"hot\"" } else { "" };
            format!("<div class=\"bar\"><div{hot} style=\"width:{pct:.1}%\"></div></div>")
        })
        .unwrap_or_default();
    format!("<div class=\"card\"><div class=\"muted\">{caption}</div><div class=\"v\">{value}</div>{bar}</div>")
}

/// A number cell.
pub fn num(n: impl std::fmt::Display) -> String {
    format!("#{n}")
}
