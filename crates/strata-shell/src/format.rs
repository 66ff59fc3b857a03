//! How values print: HBase's `Bytes.toStringBinary` for keys and values, its timestamp form,
//! and the two-column `ROW  COLUMN+CELL` layout.

use std::fmt::Write as _;

/// Printable ASCII as is; everything else (and the backslash) as `\xNN` with upper-case
/// digits, as HBase's shell prints row keys, columns and values.
pub fn binary(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (b' '..=b'~').contains(&b) && b != b'\\' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// How timestamps print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimestampStyle {
    /// HBase 2.6's default: ISO-8601 date and time with milliseconds (Strata prints UTC).
    #[default]
    Iso,
    /// Milliseconds since the epoch (HBase's `hbase.shell.timestamp.format.epoch`).
    Epoch,
}

pub fn timestamp(ms: i64, style: TimestampStyle) -> String {
    match style {
        TimestampStyle::Epoch => ms.to_string(),
        TimestampStyle::Iso => iso8601(ms),
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmm` in UTC.
pub fn iso8601(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The width of the first column of `ROW  COLUMN+CELL` output.
pub const KEY_WIDTH: usize = 34;

/// One line of two-column output: a space, the key padded to [`KEY_WIDTH`], then the rest.
pub fn two_columns(key: &str, rest: &str) -> String {
    format!(" {key:<KEY_WIDTH$} {rest}")
}

/// A header line of two-column output.
pub fn header(left: &str, right: &str) -> String {
    format!("{left:<w$} {right}", w = KEY_WIDTH + 1)
}

/// `column=cf:q, timestamp=..., value=...`
pub fn cell(column: &[u8], ts: i64, value: &[u8], style: TimestampStyle) -> String {
    format!(
        "column={}, timestamp={}, value={}",
        binary(column),
        timestamp(ts, style),
        binary(value)
    )
}

/// `N row(s)`.
pub fn row_count(n: u64) -> String {
    format!("{n} row(s)")
}

/// `Took 0.0123 seconds`.
pub fn took(seconds: f64) -> String {
    format!("Took {seconds:.4} seconds")
}

/// HBase's description of a TTL: `FOREVER` or `86400 SECONDS (1 DAY)`.
pub fn ttl(seconds: Option<i64>) -> String {
    let Some(total) = seconds.filter(|&s| s > 0 && s != i64::from(i32::MAX)) else {
        return "FOREVER".to_string();
    };
    let units = [
        ("DAY", 86_400),
        ("HOUR", 3600),
        ("MINUTE", 60),
        ("SECOND", 1),
    ];
    let mut parts = Vec::new();
    let mut left = total;
    for (name, size) in units {
        let n = left / size;
        left %= size;
        if n > 0 {
            let plural = if n == 1 { "" } else { "S" };
            parts.push(format!("{n} {name}{plural}"));
        }
    }
    format!("{total} SECONDS ({})", parts.join(" "))
}

/// The text of a row key or value in a message, as HBase quotes it.
pub fn quoted(bytes: &[u8]) -> String {
    format!("'{}'", binary(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_escapes_non_printable_bytes_and_backslash() {
        assert_eq!(binary(b"abc ~"), "abc ~");
        assert_eq!(
            binary(&[0, 0x1f, 0x7f, 0xff, b'\\']),
            "\\x00\\x1F\\x7F\\xFF\\x5C"
        );
        assert_eq!(binary("é".as_bytes()), "\\xC3\\xA9");
    }

    #[test]
    fn timestamps_print_as_utc_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000");
        assert_eq!(iso8601(1_700_000_000_123), "2023-11-14T22:13:20.123");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000");
        assert_eq!(iso8601(-1), "1969-12-31T23:59:59.999");
        assert_eq!(timestamp(42, TimestampStyle::Epoch), "42");
    }

    #[test]
    fn cells_and_columns_line_up() {
        let line = two_columns("r1", &cell(b"cf:q", 5, b"v\x00", TimestampStyle::Epoch));
        assert_eq!(
            line,
            format!(
                " r1{} column=cf:q, timestamp=5, value=v\\x00",
                " ".repeat(KEY_WIDTH - 2)
            )
        );
        assert_eq!(
            header("ROW", "COLUMN+CELL").find("COLUMN"),
            line.find("column")
        );
        assert_eq!(took(0.01234), "Took 0.0123 seconds");
        assert_eq!(row_count(1), "1 row(s)");
    }

    #[test]
    fn ttls_read_like_hbase() {
        assert_eq!(ttl(None), "FOREVER");
        assert_eq!(ttl(Some(i64::from(i32::MAX))), "FOREVER");
        assert_eq!(ttl(Some(86_400)), "86400 SECONDS (1 DAY)");
        assert_eq!(
            ttl(Some(90_061)),
            "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)"
        );
        assert_eq!(ttl(Some(7200)), "7200 SECONDS (2 HOURS)");
    }
}
