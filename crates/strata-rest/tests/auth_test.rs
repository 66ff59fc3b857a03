//! Bearer tokens on REST: a valid token names the caller, a bad one is 401 with
//! `WWW-Authenticate: Bearer`, and a missing permission is 403; nothing refused is done.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::{b64, Harness};
use strata_access::{Actions, Grant, Scope, Subject, TableScope};
use strata_auth::{hash_token, Authenticator, TokenStore};
use strata_rest::RestOptions;
use strata_server::access::{as_system, AccessConfig};

fn harness(dir: &std::path::Path) -> Harness {
    let tokens = dir.join("tokens");
    let lines = format!(
        "sha256:{} admin\nsha256:{} reader\n",
        hash_token("admin-token"),
        hash_token("reader-token")
    );
    std::fs::write(&tokens, lines).unwrap();
    let clock = strata_runtime::clock::ManualClock::new(0);
    let clock: Arc<dyn strata_runtime::clock::Clock> = Arc::new(clock);
    let store = TokenStore::load(&tokens, Arc::clone(&clock)).unwrap();
    Harness::with_service(RestOptions::default(), |options| {
        options.access = AccessConfig {
            enabled: true,
            superusers: vec![Subject::User("admin".into())],
            authenticator: Some(Arc::new(Authenticator::new(Some(store), clock))),
        };
    })
}

fn cell_set(row: &[u8], value: &[u8]) -> String {
    serde_json::json!({"Row": [{"key": b64(row), "Cell": [{"column": b64(b"cf:q"), "$": b64(value)}]}]})
        .to_string()
}

#[tokio::test]
async fn a_bearer_token_names_the_caller_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let h = harness(dir.path());
    let bearer = |token: &'static str| format!("Bearer {token}");
    let admin = bearer("admin-token");
    let body = serde_json::json!({"name": "t", "ColumnSchema": [{"name": "cf"}]}).to_string();
    let created = h
        .call(
            "PUT",
            "/t/schema",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", &admin),
            ],
            body,
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text());
    as_system(|| {
        let grant = Grant {
            subject: Subject::User("reader".into()),
            scope: Scope::Table(TableScope::table("default", "t")),
            actions: Actions::parse("R").unwrap(),
        };
        h.service.admin().grant(grant, false).unwrap();
    });
    async fn put(h: &Harness, token: Option<String>, row: &'static [u8]) -> common::Reply {
        let mut headers = vec![("Content-Type", "application/json")];
        let auth = token.unwrap_or_default();
        if !auth.is_empty() {
            headers.push(("Authorization", auth.as_str()));
        }
        h.call("PUT", "/t/fakerow", &headers, cell_set(row, b"v"))
            .await
    }
    assert_eq!(
        put(&h, Some(admin.clone()), b"a").await.status,
        StatusCode::OK
    );
    let reader = bearer("reader-token");
    let read = h
        .call(
            "GET",
            "/t/a/cf:q",
            &[
                ("Accept", "application/octet-stream"),
                ("Authorization", &reader),
            ],
            Vec::new(),
        )
        .await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.text());
    assert_eq!(read.body, b"v");
    let denied = put(&h, Some(reader), b"b").await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN, "{}", denied.text());
    assert_eq!(put(&h, None, b"c").await.status, StatusCode::FORBIDDEN);
    let forged = put(&h, Some(bearer("guessed")), b"d").await;
    assert_eq!(forged.status, StatusCode::UNAUTHORIZED);
    assert_eq!(forged.header("www-authenticate").as_deref(), Some("Bearer"));
    for row in ["b", "c", "d"] {
        let gone = h
            .call(
                "GET",
                &format!("/t/{row}/cf:q"),
                &[
                    ("Accept", "application/octet-stream"),
                    ("Authorization", &admin),
                ],
                Vec::new(),
            )
            .await;
        assert_eq!(
            gone.status,
            StatusCode::NOT_FOUND,
            "row {row} was not written"
        );
    }
}
