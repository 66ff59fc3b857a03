//! Health endpoints for process supervisors and load balancers.

use axum::extract::State;
use axum::http::StatusCode;

use crate::AppState;

/// `/healthz`: the process is alive and answering.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// `/readyz`: the service is open with its catalog loaded and not shutting down.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if state.http.is_ready() {
        (StatusCode::OK, "ready\n")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
    }
}
