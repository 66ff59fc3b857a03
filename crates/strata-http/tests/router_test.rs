#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Every endpoint through the router (no socket): status codes, content types, JSON shapes,
//! and Prometheus text that parses and whose counters grow with requests.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use strata_engine::{Cell, Durability, FamilyOptions, Get, Scan};
use strata_http::{ConfigEntry, HttpState};
use strata_server::{Service, ServiceOptions, TableName};
use tower::ServiceExt;

struct Fixture {
    _dir: tempfile::TempDir,
    service: Arc<Service>,
    http: Arc<HttpState>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let t = TableName::parse("web").unwrap();
    service
        .admin()
        .create_table(&t, vec![FamilyOptions::new("cf")], vec!["m".into()])
        .unwrap();
    let http = Arc::new(HttpState::new(
        "9.9.9",
        vec![
            ConfigEntry::new("thrift_port", 9090),
            ConfigEntry::secret("password"),
        ],
        strata_runtime::clock::system(),
    ));
    Fixture {
        _dir: dir,
        service,
        http,
    }
}

fn load(service: &Service, rows: usize) {
    let t = TableName::parse("web").unwrap();
    for i in 0..rows {
        let cell = Cell::put(format!("row{i:03}"), "cf", "q", 1_700_000_000_000, "v");
        service
            .rows()
            .mutate(&t, vec![cell], Durability::SyncWal)
            .unwrap();
        service
            .rows()
            .get(&t, &Get::new(format!("row{i:03}")))
            .unwrap();
    }
    let id = service.scanners().open_scanner(&t, Scan::new()).unwrap();
    assert_eq!(
        service.scanners().scanner_next(id, 1000).unwrap().len(),
        rows
    );
    service.scanners().close_scanner(id).unwrap();
}

async fn call(f: &Fixture, path: &str) -> (StatusCode, String, String) {
    let router = strata_http::router(Arc::clone(&f.service), Arc::clone(&f.http));
    let response = router
        .oneshot(Request::get(path).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        content_type,
        String::from_utf8(body.to_vec()).unwrap(),
    )
}

async fn json(f: &Fixture, path: &str) -> Value {
    let (status, content_type, body) = call(f, path).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    assert_eq!(content_type, "application/json", "{path}");
    serde_json::from_str(&body).unwrap()
}

/// Parses Prometheus text: every line is a comment or `name{labels} value`; returns the
/// samples keyed by `name{labels}`.
fn parse_prometheus(text: &str) -> HashMap<String, f64> {
    let mut samples = HashMap::new();
    let mut typed = std::collections::HashSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut parts = rest.split(' ');
            let name = parts.next().unwrap();
            let kind = parts.next().unwrap();
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            assert!(typed.insert(name.to_string()), "family typed twice: {line}");
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect(line);
        let name_end = series.find('{').unwrap_or(series.len());
        let name = &series[..name_end];
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && name.starts_with("strata_"),
            "bad metric name in {line}"
        );
        if name_end < series.len() {
            assert!(series.ends_with('}'), "{line}");
        }
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s).filter(|f| typed.contains(*f)))
            .unwrap_or(name);
        assert!(typed.contains(family), "sample before its TYPE: {line}");
        let value: f64 = value.parse().expect(line);
        assert!(
            samples.insert(series.to_string(), value).is_none(),
            "duplicate {line}"
        );
    }
    samples
}

#[tokio::test]
async fn health_and_readiness() {
    let f = fixture();
    let (status, _, body) = call(&f, "/healthz").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok\n"));
    assert_eq!(call(&f, "/readyz").await.0, StatusCode::OK);
    f.http.set_ready(false);
    assert_eq!(call(&f, "/readyz").await.0, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(call(&f, "/healthz").await.0, StatusCode::OK);
}

#[tokio::test]
async fn other_paths_are_left_to_the_fallback() {
    let f = fixture();
    for path in ["/", "/web/schema", "/version/cluster", "/status/cluster"] {
        assert_eq!(call(&f, path).await.0, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn metrics_parse_and_counters_grow_with_requests() {
    let f = fixture();
    let (status, content_type, before) = call(&f, "/metrics").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let before = parse_prometheus(&before);
    load(&f.service, 20);
    f.service
        .admin()
        .flush_table(&TableName::parse("web").unwrap())
        .unwrap();
    f.service
        .rows()
        .get(&TableName::parse("web").unwrap(), &Get::new("row001"))
        .unwrap();
    let after = parse_prometheus(&call(&f, "/metrics").await.2);
    let get = "strata_requests_total{operation=\"get\"}";
    assert_eq!(before[get], 0.0);
    assert_eq!(after[get], 21.0);
    assert_eq!(after["strata_requests_total{operation=\"mutate\"}"], 20.0);
    assert_eq!(
        after["strata_request_duration_seconds_count{operation=\"scanner_next\"}"],
        1.0
    );
    assert_eq!(
        after["strata_table_request_duration_seconds_count{table=\"web\",operation=\"get\"}"],
        21.0
    );
    assert_eq!(
        after["strata_request_duration_seconds_bucket{operation=\"get\",le=\"+Inf\"}"],
        21.0
    );
    assert!(
        after["strata_flushes_total"] >= 1.0,
        "the region holding the rows flushed"
    );
    assert!(after["strata_flushes_total"] > before["strata_flushes_total"]);
    assert!(after["strata_wal_appends_total"] >= 20.0);
    assert!(after["strata_wal_written_bytes_total"] > before["strata_wal_written_bytes_total"]);
    assert!(after["strata_store_files{volume=\"default\"}"] >= 1.0);
    assert!(
        after["strata_block_cache_hits_total{tier=\"high\"}"]
            + after["strata_block_cache_misses_total"]
            > 0.0
    );
    assert!(after["strata_regions"] >= 2.0);
    assert!(
        after["strata_block_cache_index_bloom_bytes"] > 0.0,
        "the flushed file's index and bloom are charged to the cache"
    );
    assert!(
        after["strata_block_cache_configured_bytes"]
            >= after["strata_block_cache_capacity_bytes{tier=\"high\"}"]
                + after["strata_block_cache_capacity_bytes{tier=\"normal\"}"]
                + after["strata_block_cache_index_bloom_bytes"]
    );
    for lane in ["flush", "small_compaction", "large_compaction"] {
        // One volume, of the default type: one tier of lanes.
        let labels = format!("lane=\"{lane}\",storage_type=\"ssd\"");
        let threads = format!("strata_background_threads{{{labels}}}");
        assert!(after.contains_key(&threads), "{threads} missing");
        let running = format!("strata_background_running{{{labels}}}");
        assert!(after.contains_key(&running), "{running} missing");
    }
    assert_eq!(after["strata_open_scanners"], 0.0);
    // A connection counted by the service shows in the gauge of its API.
    let open = f
        .service
        .connections()
        .guard(strata_server::connections::Api::Thrift);
    let with_one = parse_prometheus(&call(&f, "/metrics").await.2);
    assert_eq!(with_one["strata_open_connections{api=\"thrift\"}"], 1.0);
    assert_eq!(with_one["strata_open_connections{api=\"grpc\"}"], 0.0);
    drop(open);
    assert_eq!(after["strata_build_info{version=\"9.9.9\"}"], 1.0);
    for name in [
        "strata_memstore_bytes",
        "strata_compactions_total",
        "strata_compaction_queue_length",
        "strata_wal_sync_duration_seconds_count",
        "strata_region_splits_total",
    ] {
        assert!(after.contains_key(name), "{name} missing");
    }
}

#[tokio::test]
async fn server_json() {
    let f = fixture();
    let v = json(&f, "/api/v1/server").await;
    assert_eq!(v["version"], "9.9.9");
    assert!(v["memory"]["memstore_limit"].as_u64().unwrap() > 0);
    assert!(v["block_cache_capacity_bytes"].as_u64().unwrap() > 0);
    assert!(v["regions"].as_u64().unwrap() >= 2);
    let volume = &v["volumes"][0];
    assert!(volume["free_bytes"].as_u64().unwrap() > 0, "{volume}");
    assert!(volume["total_bytes"].as_u64().unwrap() >= volume["free_bytes"].as_u64().unwrap());
    let config = v["config"].as_array().unwrap();
    assert!(config
        .iter()
        .any(|c| c["key"] == "thrift_port" && c["value"] == "9090"));
    assert!(config
        .iter()
        .any(|c| c["key"] == "password" && c["value"] == "(hidden)"));
}

#[tokio::test]
async fn tables_json() {
    let f = fixture();
    load(&f.service, 10);
    let tables = json(&f, "/api/v1/tables").await;
    let web = tables
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "web")
        .unwrap()
        .clone();
    assert_eq!(web["regions"].as_array().unwrap().len(), 2);
    assert_eq!(web["write_requests"], 10);
    assert!(web["read_requests"].as_u64().unwrap() >= 10);
    f.service
        .admin()
        .flush_table(&TableName::parse("web").unwrap())
        .unwrap();
    let one = json(&f, "/api/v1/tables/web").await;
    assert_eq!(one["regions"][0]["end_key"], "m");
    assert_eq!(one["regions"][0]["file_count"], 0, "no row sorts below m");
    let region = &one["regions"][1];
    assert_eq!(region["start_key"], "m");
    assert_eq!(region["end_key"], "");
    let file = &region["stores"][0]["files"][0];
    assert_eq!(file["entries"], 10, "rows row000..row009 sort above m");
    assert_eq!(file["min_timestamp"], 1_700_000_000_000i64);
    assert!(file["volume"].is_string());
    assert!(file["size"].as_u64().unwrap() > 0);
    let (status, _, body) = call(&f, "/api/v1/tables/nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("no table nope"));
}

#[tokio::test]
async fn cache_wal_background_slow_requests_and_charts_json() {
    let f = fixture();
    load(&f.service, 5);
    let t = TableName::parse("web").unwrap();
    f.service.admin().flush_table(&t).unwrap();
    f.service.rows().get(&t, &Get::new("row001")).unwrap();
    let cache = json(&f, "/api/v1/cache").await;
    assert_eq!(cache["tiers"].as_array().unwrap().len(), 2);
    assert!(cache["hit_ratio"].as_f64().unwrap() >= 0.0);
    assert!(cache["capacity_bytes"].as_u64().unwrap() > 0);
    assert!(cache["index_bloom_bytes"].as_u64().unwrap() > 0);
    let wal = json(&f, "/api/v1/wal").await;
    assert!(wal["appends"].as_u64().unwrap() >= 5);
    assert!(wal["sync_p99_micros"].as_u64().unwrap() >= wal["sync_p50_micros"].as_u64().unwrap());
    // One WAL group by default, whose counters are the totals.
    let groups = wal["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["group"], 0);
    assert_eq!(groups[0]["appends"], wal["appends"]);
    assert!(groups[0]["dir"].as_str().unwrap().ends_with("wal"));
    let background = json(&f, "/api/v1/background").await;
    let recent = background["recent"].as_array().unwrap();
    assert!(recent
        .iter()
        .any(|e| e["kind"] == "flush" && e["bytes_out"].as_u64().unwrap() > 0));
    assert!(background["queued_compactions"].is_u64());
    let lanes: Vec<&str> = background["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["lane"].as_str().unwrap())
        .collect();
    assert_eq!(lanes, ["flush", "small_compaction", "large_compaction"]);
    f.service
        .metrics()
        .set_slow_threshold(std::time::Duration::ZERO);
    f.service.rows().get(&t, &Get::new("row002")).unwrap();
    let slow = json(&f, "/api/v1/slow").await;
    assert_eq!(slow["threshold_ms"], 0);
    assert_eq!(slow["requests"][0]["operation"], "get");
    assert_eq!(slow["requests"][0]["table"], "web");
    let requests = json(&f, "/api/v1/requests").await;
    let get = &requests["operations"][0];
    assert_eq!(get["operation"], "get");
    assert_eq!(get["count"], 7);
    assert_eq!(requests["tables"][0]["table"], "web");
    f.http
        .charts
        .sample(1_000, f.service.metrics().all_requests());
    load(&f.service, 5);
    f.http
        .charts
        .sample(2_000, f.service.metrics().all_requests());
    let charts = json(&f, "/api/v1/charts").await;
    let sample = &charts["samples"][0];
    assert_eq!(
        sample["requests_per_sec"], 12.0,
        "5 mutates, 5 gets, a scanner opened and read"
    );
}

#[tokio::test]
async fn ui_pages_render_with_the_data() {
    let f = fixture();
    load(&f.service, 3);
    f.service
        .admin()
        .flush_table(&TableName::parse("web").unwrap())
        .unwrap();
    for (path, needle) in [
        ("/ui", "Server overview"),
        ("/ui/tables", "web"),
        ("/ui/tables/web", ".sst</code>"),
        ("/ui/storage", "Write-ahead log"),
        ("/ui/background", "flush"),
        ("/ui/slow", "slow_request_ms"),
    ] {
        let (status, content_type, body) = call(&f, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(
            content_type.starts_with("text/html"),
            "{path}: {content_type}"
        );
        assert!(body.contains(needle), "{path} lacks {needle}");
        assert!(body.ends_with("</html>"), "{path}");
    }
    let (_, _, overview) = call(&f, "/ui").await;
    assert!(overview.contains("(hidden)") && !overview.contains("hunter2"));
    assert!(overview.contains("chart-rate"));
    let (status, _, body) = call(&f, "/ui/tables/%3Cscript%3E").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        body.contains("&lt;script&gt;") && !body.contains("<script>alert"),
        "escaped"
    );
}

#[tokio::test]
async fn the_second_cache_level_shows_in_metrics_and_the_cache_report_only_when_configured() {
    let f = fixture();
    let plain = parse_prometheus(&call(&f, "/metrics").await.2);
    assert!(!plain.contains_key("strata_l2_cache_capacity_bytes"));
    assert_eq!(json(&f, "/api/v1/cache").await["l2"], Value::Null);

    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path().join("data"));
    options.engine.l2_cache = Some(strata_engine::L2Options {
        dir: dir.path().join("l2"),
        capacity_bytes: 4 << 20,
    });
    let service = Service::open(options).unwrap();
    let with_l2 = Fixture {
        _dir: dir,
        service,
        http: Arc::clone(&f.http),
    };
    let metrics = parse_prometheus(&call(&with_l2, "/metrics").await.2);
    assert_eq!(metrics["strata_l2_cache_capacity_bytes"], (4 << 20) as f64);
    assert_eq!(metrics["strata_l2_cache_hits_total"], 0.0);
    assert_eq!(metrics["strata_l2_cache_promotions_total"], 0.0);
    let report = json(&with_l2, "/api/v1/cache").await;
    assert_eq!(report["l2"]["capacity_bytes"], 4 << 20);
    assert!(call(&with_l2, "/ui/storage")
        .await
        .2
        .contains("Second level"));
    assert!(!call(&f, "/ui/storage").await.2.contains("Second level"));
}
