//! A writer of the Prometheus text exposition format.

use std::fmt::Write;

/// Writes metric families; `help` and `kind` are written once per family.
pub struct Exposition {
    pub out: String,
}

impl Exposition {
    pub fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {kind}");
    }

    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let _ = write!(self.out, "{k}=\"{}\"", escape_label(v));
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {value}");
    }

    pub fn single(&mut self, name: &str, kind: &str, help: &str, value: impl std::fmt::Display) {
        self.family(name, kind, help);
        self.sample(name, &[], value);
    }

    /// One histogram series: cumulative buckets with `le` in seconds, `_sum` and `_count`.
    pub fn histogram(
        &mut self,
        name: &str,
        labels: &[(&str, &str)],
        bounds_micros: &[u64],
        buckets: &[u64],
        sum_micros: u64,
    ) {
        let mut cumulative = 0;
        for (i, n) in buckets.iter().enumerate() {
            cumulative += n;
            let le = match bounds_micros.get(i) {
                Some(b) => format!("{}", *b as f64 / 1e6),
                None => "+Inf".to_string(),
            };
            let mut with_le = labels.to_vec();
            with_le.push(("le", &le));
            self.sample(&format!("{name}_bucket"), &with_le, cumulative);
        }
        if buckets.len() <= bounds_micros.len() {
            let mut with_le = labels.to_vec();
            with_le.push(("le", "+Inf"));
            self.sample(&format!("{name}_bucket"), &with_le, cumulative);
        }
        self.sample(&format!("{name}_sum"), labels, sum_micros as f64 / 1e6);
        self.sample(&format!("{name}_count"), labels, cumulative);
    }
}

fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
