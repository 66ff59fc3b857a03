//! HBase's split algorithms (RegionSplitter's `HexStringSplit`, `DecimalStringSplit` and
//! `UniformSplit`): the split keys that pre-split a new table into N regions of equal key
//! space, as `create 't', 'f', {NUMREGIONS => N, SPLITALGO => ...}` asks. Every front end
//! that creates tables (the shell through Thrift, REST, the native RPC) takes its keys
//! from here, so a table pre-split on Strata has exactly the boundaries HBase would give.
//!
//! The keys, for regions `i = 1 .. N-1` (docs/shell.md, "Pre-splitting"):
//! - `HexStringSplit`: the rows are 8 hex digits, `00000000` to `ffffffff`; key `i` is
//!   `i * floor(2^32 / N)` in lowercase hex, left-padded with `0` to 8 digits.
//! - `DecimalStringSplit`: the same over 8 decimal digits, `00000000` to `99999999`:
//!   `i * floor(10^8 / N)`.
//! - `UniformSplit`: the rows are 8 raw bytes, `00..00` to `ff..ff`; key `i` is
//!   `i * floor(2^64 / N)` as 8 big-endian bytes.

use bytes::Bytes;

use crate::error::{Result, ServiceError};

/// The most regions a table may be pre-split into by an algorithm: each region is opened
/// at once, so a mistyped count must not open millions.
pub const MAX_REGIONS: u32 = 10_000;

/// The package HBase's algorithms live in, as scripts name them in full.
const HBASE_CLASS_PREFIX: &str = "org.apache.hadoop.hbase.util.RegionSplitter$";

/// One of HBase's split algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitAlgorithm {
    HexString,
    DecimalString,
    Uniform,
}

impl SplitAlgorithm {
    /// Every algorithm, in the order their names are listed in errors.
    pub const ALL: [SplitAlgorithm; 3] = [
        SplitAlgorithm::HexString,
        SplitAlgorithm::DecimalString,
        SplitAlgorithm::Uniform,
    ];

    /// HBase's name for it (its class's simple name).
    pub fn name(self) -> &'static str {
        match self {
            SplitAlgorithm::HexString => "HexStringSplit",
            SplitAlgorithm::DecimalString => "DecimalStringSplit",
            SplitAlgorithm::Uniform => "UniformSplit",
        }
    }

    /// The algorithm HBase names `name`: its simple name or its full class name
    /// (`org.apache.hadoop.hbase.util.RegionSplitter$HexStringSplit`).
    pub fn named(name: &str) -> Result<SplitAlgorithm> {
        let simple = name.strip_prefix(HBASE_CLASS_PREFIX).unwrap_or(name);
        Self::ALL
            .into_iter()
            .find(|a| a.name() == simple)
            .ok_or_else(|| {
                let known: Vec<&str> = Self::ALL.iter().map(|a| a.name()).collect();
                ServiceError::InvalidArgument(format!(
                    "unknown split algorithm {name:?}: expected one of {}",
                    known.join(", ")
                ))
            })
    }

    /// The `regions - 1` split keys that divide the algorithm's key space into `regions`
    /// equal parts (the last takes the remainder), in ascending order.
    pub fn split_keys(self, regions: u32) -> Result<Vec<Bytes>> {
        if regions < 2 {
            return Err(ServiceError::InvalidArgument(format!(
                "the number of regions must be greater than 1, got {regions}"
            )));
        }
        if regions > MAX_REGIONS {
            return Err(ServiceError::InvalidArgument(format!(
                "at most {MAX_REGIONS} regions can be pre-split, got {regions}"
            )));
        }
        // Each part holds `step` rows of the space's `size`; regions <= MAX_REGIONS is
        // far below every space's size, so no step is 0.
        let step = self.space() / u128::from(regions);
        Ok((1..u128::from(regions))
            .map(|i| self.key(i * step))
            .collect())
    }

    /// How many rows the algorithm's key space holds.
    fn space(self) -> u128 {
        match self {
            SplitAlgorithm::HexString => 1 << 32,
            SplitAlgorithm::DecimalString => 100_000_000,
            SplitAlgorithm::Uniform => 1 << 64,
        }
    }

    /// Row number `n` of the key space as a row key.
    fn key(self, n: u128) -> Bytes {
        match self {
            SplitAlgorithm::HexString => Bytes::from(format!("{n:08x}")),
            SplitAlgorithm::DecimalString => Bytes::from(format!("{n:08}")),
            // n < 2^64: the low 8 bytes are the whole number.
            SplitAlgorithm::Uniform => Bytes::copy_from_slice(&n.to_be_bytes()[8..]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What HBase 2.6.1's `RegionSplitter.newSplitAlgoInstance(conf, name).split(n)` returned
    /// on the anchor (keys in hex), for each algorithm and these counts.
    const HBASE_KEYS: &[(SplitAlgorithm, u32, &[&str])] = &[
        (SplitAlgorithm::HexString, 2, &["3830303030303030"]),
        (
            SplitAlgorithm::HexString,
            3,
            &["3535353535353535", "6161616161616161"],
        ),
        (
            SplitAlgorithm::HexString,
            4,
            &["3430303030303030", "3830303030303030", "6330303030303030"],
        ),
        (
            SplitAlgorithm::HexString,
            7,
            &[
                "3234393234393234",
                "3439323439323438",
                "3664623664623663",
                "3932343932343930",
                "6236646236646234",
                "6462366462366438",
            ],
        ),
        (
            SplitAlgorithm::HexString,
            10,
            &[
                "3139393939393939",
                "3333333333333332",
                "3463636363636362",
                "3636363636363634",
                "3766666666666664",
                "3939393939393936",
                "6233333333333266",
                "6363636363636338",
                "6536363636363631",
            ],
        ),
        (SplitAlgorithm::DecimalString, 2, &["3530303030303030"]),
        (
            SplitAlgorithm::DecimalString,
            3,
            &["3333333333333333", "3636363636363636"],
        ),
        (
            SplitAlgorithm::DecimalString,
            4,
            &["3235303030303030", "3530303030303030", "3735303030303030"],
        ),
        (
            SplitAlgorithm::DecimalString,
            7,
            &[
                "3134323835373134",
                "3238353731343238",
                "3432383537313432",
                "3537313432383536",
                "3731343238353730",
                "3835373134323834",
            ],
        ),
        (
            SplitAlgorithm::DecimalString,
            10,
            &[
                "3130303030303030",
                "3230303030303030",
                "3330303030303030",
                "3430303030303030",
                "3530303030303030",
                "3630303030303030",
                "3730303030303030",
                "3830303030303030",
                "3930303030303030",
            ],
        ),
        (SplitAlgorithm::Uniform, 2, &["8000000000000000"]),
        (
            SplitAlgorithm::Uniform,
            3,
            &["5555555555555555", "aaaaaaaaaaaaaaaa"],
        ),
        (
            SplitAlgorithm::Uniform,
            4,
            &["4000000000000000", "8000000000000000", "c000000000000000"],
        ),
        (
            SplitAlgorithm::Uniform,
            7,
            &[
                "2492492492492492",
                "4924924924924924",
                "6db6db6db6db6db6",
                "9249249249249248",
                "b6db6db6db6db6da",
                "db6db6db6db6db6c",
            ],
        ),
        (
            SplitAlgorithm::Uniform,
            10,
            &[
                "1999999999999999",
                "3333333333333332",
                "4ccccccccccccccb",
                "6666666666666664",
                "7ffffffffffffffd",
                "9999999999999996",
                "b33333333333332f",
                "ccccccccccccccc8",
                "e666666666666661",
            ],
        ),
    ];

    fn hex(key: &[u8]) -> String {
        key.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn every_algorithm_gives_hbase_s_keys() {
        for (algorithm, regions, expected) in HBASE_KEYS {
            let keys = algorithm.split_keys(*regions).unwrap();
            let got: Vec<String> = keys.iter().map(|k| hex(k)).collect();
            assert_eq!(got, *expected, "{algorithm:?} {regions}");
        }
    }

    #[test]
    fn hex_and_decimal_keys_are_readable_digits() {
        let keys = SplitAlgorithm::HexString.split_keys(4).unwrap();
        assert_eq!(keys, ["40000000", "80000000", "c0000000"]);
        let keys = SplitAlgorithm::DecimalString.split_keys(4).unwrap();
        assert_eq!(keys, ["25000000", "50000000", "75000000"]);
    }

    #[test]
    fn keys_ascend_and_have_the_algorithm_s_width() {
        for algorithm in SplitAlgorithm::ALL {
            let keys = algorithm.split_keys(MAX_REGIONS).unwrap();
            assert_eq!(keys.len(), MAX_REGIONS as usize - 1);
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{algorithm:?}");
            assert!(keys.iter().all(|k| k.len() == 8), "{algorithm:?}");
        }
    }

    #[test]
    fn names_and_bad_counts() {
        assert_eq!(
            SplitAlgorithm::named("HexStringSplit").unwrap(),
            SplitAlgorithm::HexString
        );
        let full = "org.apache.hadoop.hbase.util.RegionSplitter$UniformSplit";
        assert_eq!(
            SplitAlgorithm::named(full).unwrap(),
            SplitAlgorithm::Uniform
        );
        let err = SplitAlgorithm::named("hexstringsplit")
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected one of HexStringSplit"), "{err}");
        for bad in [0, 1, MAX_REGIONS + 1] {
            assert!(SplitAlgorithm::HexString.split_keys(bad).is_err(), "{bad}");
        }
    }
}
