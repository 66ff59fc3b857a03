//! The `[limits]` section of the configuration file: the service's request limits (shared by
//! every API, see `strata_server::Limits`) and each network server's connection limits.
//! docs/reliability.md ("Limits") has the table of keys, defaults and errors.

use std::time::Duration;

use serde::Deserialize;
use strata_grpc::GrpcLimits;
use strata_server::Limits;
use strata_thrift::ThriftLimits;

/// The `[limits]` keys; every one is optional (the default applies). Timeouts are in
/// milliseconds, 0 meaning none.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub max_row_key_bytes: Option<usize>,
    pub max_qualifier_bytes: Option<usize>,
    pub max_value_bytes: Option<usize>,
    pub grpc_max_value_bytes: Option<usize>,
    pub max_cells_per_request: Option<usize>,
    pub max_rows_per_request: Option<usize>,
    pub max_open_scanners: Option<usize>,
    pub max_scanners_per_client: Option<usize>,
    pub filter_max_bytes: Option<usize>,
    pub filter_max_depth: Option<usize>,
    pub filter_regex_max_bytes: Option<usize>,
    pub max_write_bytes_in_flight: Option<usize>,
    pub max_request_bytes_in_flight: Option<usize>,
    pub thrift_max_connections: Option<usize>,
    /// The older, Thrift-only name of `max_scanners_per_client`; still accepted, and
    /// `max_scanners_per_client` wins when both are set.
    pub thrift_max_scanners_per_connection: Option<usize>,
    pub thrift_read_timeout_ms: Option<u64>,
    pub grpc_max_connections: Option<usize>,
    pub grpc_max_request_bytes: Option<usize>,
    pub grpc_handshake_timeout_ms: Option<u64>,
    pub grpc_keepalive_interval_ms: Option<u64>,
    pub grpc_keepalive_timeout_ms: Option<u64>,
    pub rest_max_body_bytes: Option<usize>,
    pub rest_max_in_flight: Option<usize>,
}

/// The connection limits of the network servers.
#[derive(Debug, Clone, Copy, Default)]
pub struct NetworkLimits {
    pub thrift: ThriftLimits,
    pub grpc: GrpcLimits,
    pub rest: RestLimits,
}

/// The REST gateway's request limits (the rest of `RestOptions` keeps its defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestLimits {
    pub max_body_bytes: usize,
    pub max_in_flight: usize,
}

impl Default for RestLimits {
    fn default() -> Self {
        let d = strata_rest::RestOptions::default();
        RestLimits {
            max_body_bytes: d.max_body_bytes,
            max_in_flight: d.max_in_flight,
        }
    }
}

impl RestLimits {
    /// The gateway's options with these limits.
    pub fn options(&self) -> strata_rest::RestOptions {
        strata_rest::RestOptions {
            max_body_bytes: self.max_body_bytes,
            max_in_flight: self.max_in_flight,
            ..strata_rest::RestOptions::default()
        }
    }
}

fn set<T: Copy>(target: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *target = v;
    }
}

/// A timeout in milliseconds, 0 meaning none.
fn timeout(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

impl LimitsConfig {
    /// Applies the request limits over `limits`.
    pub fn apply_to_service(&self, limits: &mut Limits) {
        set(&mut limits.max_row_key_bytes, self.max_row_key_bytes);
        set(&mut limits.max_qualifier_bytes, self.max_qualifier_bytes);
        set(&mut limits.max_value_bytes, self.max_value_bytes);
        set(&mut limits.grpc_max_value_bytes, self.grpc_max_value_bytes);
        set(
            &mut limits.max_cells_per_request,
            self.max_cells_per_request,
        );
        set(&mut limits.max_rows_per_request, self.max_rows_per_request);
        set(&mut limits.max_open_scanners, self.max_open_scanners);
        set(
            &mut limits.max_scanners_per_client,
            self.max_scanners_per_client
                .or(self.thrift_max_scanners_per_connection),
        );
        set(&mut limits.filter_max_bytes, self.filter_max_bytes);
        set(&mut limits.filter_max_depth, self.filter_max_depth);
        set(
            &mut limits.filter_regex_max_bytes,
            self.filter_regex_max_bytes,
        );
        set(
            &mut limits.max_write_bytes_in_flight,
            self.max_write_bytes_in_flight,
        );
        set(
            &mut limits.max_request_bytes_in_flight,
            self.max_request_bytes_in_flight,
        );
    }

    /// The network servers' connection limits: the defaults with these keys applied.
    pub fn network(&self) -> NetworkLimits {
        let mut n = NetworkLimits::default();
        set(&mut n.thrift.max_connections, self.thrift_max_connections);
        if let Some(ms) = self.thrift_read_timeout_ms {
            n.thrift.read_timeout = timeout(ms);
        }
        set(&mut n.grpc.max_connections, self.grpc_max_connections);
        set(&mut n.grpc.max_request_bytes, self.grpc_max_request_bytes);
        if let Some(ms) = self.grpc_handshake_timeout_ms {
            n.grpc.handshake_timeout = timeout(ms);
        }
        if let Some(ms) = self.grpc_keepalive_interval_ms {
            n.grpc.keepalive_interval = timeout(ms);
        }
        if let Some(ms) = self.grpc_keepalive_timeout_ms {
            n.grpc.keepalive_timeout = Duration::from_millis(ms);
        }
        set(&mut n.rest.max_body_bytes, self.rest_max_body_bytes);
        set(&mut n.rest.max_in_flight, self.rest_max_in_flight);
        n
    }
}

/// The effective limits as the status page shows them, keyed `limits.<key>` (timeouts in
/// milliseconds, 0 for none).
pub fn entries(limits: &Limits, n: &NetworkLimits) -> Vec<(String, String)> {
    let ms = |d: Option<Duration>| d.map_or(0, |d| d.as_millis()).to_string();
    let values = [
        ("max_row_key_bytes", limits.max_row_key_bytes.to_string()),
        (
            "max_qualifier_bytes",
            limits.max_qualifier_bytes.to_string(),
        ),
        ("max_value_bytes", limits.max_value_bytes.to_string()),
        (
            "grpc_max_value_bytes",
            limits.grpc_max_value_bytes.to_string(),
        ),
        (
            "max_cells_per_request",
            limits.max_cells_per_request.to_string(),
        ),
        (
            "max_rows_per_request",
            limits.max_rows_per_request.to_string(),
        ),
        ("max_open_scanners", limits.max_open_scanners.to_string()),
        (
            "max_scanners_per_client",
            limits.max_scanners_per_client.to_string(),
        ),
        ("filter_max_bytes", limits.filter_max_bytes.to_string()),
        ("filter_max_depth", limits.filter_max_depth.to_string()),
        (
            "filter_regex_max_bytes",
            limits.filter_regex_max_bytes.to_string(),
        ),
        (
            "max_write_bytes_in_flight",
            limits.max_write_bytes_in_flight.to_string(),
        ),
        (
            "max_request_bytes_in_flight",
            limits.max_request_bytes_in_flight.to_string(),
        ),
        (
            "thrift_max_connections",
            n.thrift.max_connections.to_string(),
        ),
        ("thrift_read_timeout_ms", ms(n.thrift.read_timeout)),
        ("grpc_max_connections", n.grpc.max_connections.to_string()),
        (
            "grpc_max_request_bytes",
            n.grpc.max_request_bytes.to_string(),
        ),
        ("grpc_handshake_timeout_ms", ms(n.grpc.handshake_timeout)),
        ("grpc_keepalive_interval_ms", ms(n.grpc.keepalive_interval)),
        (
            "grpc_keepalive_timeout_ms",
            ms(Some(n.grpc.keepalive_timeout)),
        ),
        ("rest_max_body_bytes", n.rest.max_body_bytes.to_string()),
        ("rest_max_in_flight", n.rest.max_in_flight.to_string()),
    ];
    values
        .into_iter()
        .map(|(key, value)| (format!("limits.{key}"), value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> LimitsConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn no_keys_keep_every_default() {
        let config = parse("");
        let mut limits = Limits::default();
        config.apply_to_service(&mut limits);
        assert_eq!(limits, Limits::default());
        let n = config.network();
        assert_eq!(n.thrift, ThriftLimits::default());
        assert_eq!(n.grpc, GrpcLimits::default());
        assert_eq!(n.rest, RestLimits::default());
    }

    #[test]
    fn every_request_limit_key_is_applied() {
        let config = parse(
            "max_row_key_bytes = 1\nmax_qualifier_bytes = 2\nmax_value_bytes = 3\n\
             grpc_max_value_bytes = 4\nmax_cells_per_request = 5\nmax_rows_per_request = 6\n\
             max_open_scanners = 7\nfilter_max_bytes = 8\nfilter_max_depth = 9\n\
             filter_regex_max_bytes = 10\nmax_write_bytes_in_flight = 11\n\
             max_request_bytes_in_flight = 12\nmax_scanners_per_client = 13\n",
        );
        let mut limits = Limits::default();
        config.apply_to_service(&mut limits);
        let want = Limits {
            max_row_key_bytes: 1,
            max_qualifier_bytes: 2,
            max_value_bytes: 3,
            grpc_max_value_bytes: 4,
            max_cells_per_request: 5,
            max_rows_per_request: 6,
            max_open_scanners: 7,
            filter_max_bytes: 8,
            filter_max_depth: 9,
            filter_regex_max_bytes: 10,
            max_write_bytes_in_flight: 11,
            max_request_bytes_in_flight: 12,
            max_scanners_per_client: 13,
        };
        assert_eq!(limits, want);
    }

    #[test]
    fn connection_limit_keys_are_applied_and_zero_timeouts_mean_none() {
        let n = parse(
            "thrift_max_connections = 3\nthrift_read_timeout_ms = 0\ngrpc_max_connections = 4\n\
             grpc_max_request_bytes = 1024\ngrpc_handshake_timeout_ms = 250\n\
             grpc_keepalive_interval_ms = 0\ngrpc_keepalive_timeout_ms = 700\n\
             rest_max_body_bytes = 100\nrest_max_in_flight = 2\n",
        )
        .network();
        assert_eq!(n.thrift.max_connections, 3);
        assert_eq!(n.thrift.read_timeout, None);
        assert_eq!(n.grpc.max_connections, 4);
        assert_eq!(n.grpc.max_request_bytes, 1024);
        assert_eq!(n.grpc.handshake_timeout, Some(Duration::from_millis(250)));
        assert_eq!(n.grpc.keepalive_interval, None);
        assert_eq!(n.grpc.keepalive_timeout, Duration::from_millis(700));
        assert_eq!(n.rest.options().max_body_bytes, 100);
        assert_eq!(n.rest.options().max_in_flight, 2);
        let read = parse("thrift_read_timeout_ms = 1500").network();
        assert_eq!(read.thrift.read_timeout, Some(Duration::from_millis(1500)));
    }

    #[test]
    fn the_status_page_shows_every_key_with_its_effective_value() {
        let keys = [
            "max_row_key_bytes",
            "max_qualifier_bytes",
            "max_value_bytes",
            "grpc_max_value_bytes",
            "max_cells_per_request",
            "max_rows_per_request",
            "max_open_scanners",
            "max_scanners_per_client",
            "filter_max_bytes",
            "filter_max_depth",
            "filter_regex_max_bytes",
            "max_write_bytes_in_flight",
            "max_request_bytes_in_flight",
            "thrift_max_connections",
            "thrift_read_timeout_ms",
            "grpc_max_connections",
            "grpc_max_request_bytes",
            "grpc_handshake_timeout_ms",
            "grpc_keepalive_interval_ms",
            "grpc_keepalive_timeout_ms",
            "rest_max_body_bytes",
            "rest_max_in_flight",
        ];
        // Every key set to a distinct small number: each entry must show its own.
        let text: String = keys
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{k} = {}\n", i + 1))
            .collect();
        let config = parse(&text);
        let mut limits = Limits::default();
        config.apply_to_service(&mut limits);
        let shown = entries(&limits, &config.network());
        assert_eq!(shown.len(), keys.len());
        for (i, key) in keys.iter().enumerate() {
            let want = (format!("limits.{key}"), (i + 1).to_string());
            assert!(shown.contains(&want), "{want:?} not in {shown:?}");
        }
    }

    #[test]
    fn the_thrift_scanner_key_is_the_older_name_of_the_per_client_one() {
        let mut limits = Limits::default();
        parse("thrift_max_scanners_per_connection = 9").apply_to_service(&mut limits);
        assert_eq!(limits.max_scanners_per_client, 9);
        let both = "thrift_max_scanners_per_connection = 9\nmax_scanners_per_client = 4";
        parse(both).apply_to_service(&mut limits);
        assert_eq!(limits.max_scanners_per_client, 4, "the general key wins");
    }

    #[test]
    fn unknown_or_mistyped_keys_are_refused() {
        assert!(toml::from_str::<LimitsConfig>("max_value_byte = 1").is_err());
        assert!(toml::from_str::<LimitsConfig>("max_value_bytes = -1").is_err());
        assert!(toml::from_str::<LimitsConfig>("max_value_bytes = \"10MB\"").is_err());
    }
}
