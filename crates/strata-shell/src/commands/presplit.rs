//! `create`'s pre-split by algorithm: `{NUMREGIONS => N, SPLITALGO => 'HexStringSplit'}`
//! (or `DecimalStringSplit`, `UniformSplit`, or a full RegionSplitter class name). The
//! keys are the service's (`strata_server::split_algorithms`), exactly HBase's.

use strata_server::split_algorithms::SplitAlgorithm;

use super::args::Options;
use crate::error::{usage, Result};

/// Takes NUMREGIONS and SPLITALGO out of `opts` and returns the split keys they give;
/// `None` when neither is there. One without the other is an error, as in HBase.
pub fn take_split_keys(opts: &mut Options) -> Result<Option<Vec<Vec<u8>>>> {
    let regions = opts.take_int("NUMREGIONS")?;
    let algorithm = opts.take_string("SPLITALGO")?;
    let (regions, algorithm) = match (regions, algorithm) {
        (None, None) => return Ok(None),
        (Some(regions), Some(algorithm)) => (regions, algorithm),
        (Some(_), None) => return Err(usage("NUMREGIONS needs SPLITALGO (e.g. 'HexStringSplit')")),
        (None, Some(_)) => return Err(usage("SPLITALGO needs NUMREGIONS, the number of regions")),
    };
    let regions = u32::try_from(regions)
        .map_err(|_| usage(format!("NUMREGIONS must be greater than 1, got {regions}")))?;
    let keys = SplitAlgorithm::named(&algorithm)
        .and_then(|a| a.split_keys(regions))
        .map_err(|e| usage(e.to_string()))?;
    Ok(Some(keys.into_iter().map(|k| k.to_vec()).collect()))
}
