//! Request rate and latency percentiles, sampled once a second into a ring buffer, for the
//! live charts.

use std::collections::VecDeque;

use parking_lot::Mutex;
use serde::Serialize;
use strata_server::metrics::LatencySnapshot;

/// Samples kept: ten minutes at one a second.
pub const CHART_SAMPLES: usize = 600;

/// One second of requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ChartSample {
    pub at_ms: i64,
    pub requests_per_sec: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

#[derive(Default)]
struct Inner {
    last: Option<(i64, LatencySnapshot)>,
    samples: VecDeque<ChartSample>,
}

/// The ring buffer.
#[derive(Default)]
pub struct Charts {
    inner: Mutex<Inner>,
}

impl Charts {
    /// Adds a sample from the cumulative histogram of all requests at `now_ms`.
    pub fn sample(&self, now_ms: i64, all: LatencySnapshot) {
        let mut inner = self.inner.lock();
        if let Some((last_ms, last)) = &inner.last {
            let delta = all.since(last);
            let seconds = ((now_ms - last_ms) as f64 / 1000.0).max(0.001);
            let ms = |q| delta.quantile_micros(q) as f64 / 1000.0;
            let sample = ChartSample {
                at_ms: now_ms,
                requests_per_sec: delta.count as f64 / seconds,
                p50_ms: ms(0.5),
                p95_ms: ms(0.95),
                p99_ms: ms(0.99),
            };
            if inner.samples.len() == CHART_SAMPLES {
                inner.samples.pop_front();
            }
            inner.samples.push_back(sample);
        }
        inner.last = Some((now_ms, all));
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> Vec<ChartSample> {
        self.inner.lock().samples.iter().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(count: u64, bucket: usize) -> LatencySnapshot {
        let mut buckets = vec![0; strata_server::metrics::LATENCY_BOUNDS_MICROS.len() + 1];
        buckets[bucket] = count;
        LatencySnapshot {
            count,
            sum_micros: 0,
            buckets,
        }
    }

    #[test]
    fn samples_are_rates_of_the_deltas_and_bounded() {
        let charts = Charts::default();
        charts.sample(0, histogram(10, 0));
        assert!(
            charts.samples().is_empty(),
            "the first reading is the baseline"
        );
        charts.sample(2_000, histogram(30, 0));
        let s = charts.samples();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].requests_per_sec, 10.0);
        assert_eq!(s[0].p99_ms, 0.05);
        for i in 0..(CHART_SAMPLES as i64 + 10) {
            charts.sample(3_000 + i * 1000, histogram(30, 0));
        }
        let s = charts.samples();
        assert_eq!(s.len(), CHART_SAMPLES);
        assert_eq!(s[CHART_SAMPLES - 1].requests_per_sec, 0.0);
    }
}
