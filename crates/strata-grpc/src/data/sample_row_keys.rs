//! SampleRowKeys: the table's real region boundaries with cumulative sizes, ending with the
//! empty key (the table's end), as Bigtable answers from its tablets.

use std::sync::Arc;

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use strata_server::{RegionInfo, Service};
use tonic::Status;

use crate::blocking::blocking;

pub async fn sample_row_keys(
    service: Arc<Service>,
    request: pb::SampleRowKeysRequest,
) -> Result<Vec<pb::SampleRowKeysResponse>, Status> {
    let table = crate::names::table_of("table_name", &request.table_name)?;
    let regions = blocking(move || service.admin().region_sizes(&table)).await?;
    Ok(samples(&regions))
}

/// One sample per region: its end key (empty for the last) and the bytes up to there.
fn samples(regions: &[(RegionInfo, u64)]) -> Vec<pb::SampleRowKeysResponse> {
    let mut offset: i64 = 0;
    regions
        .iter()
        .map(|(region, size)| {
            offset = offset.saturating_add(i64::try_from(*size).unwrap_or(i64::MAX));
            pb::SampleRowKeysResponse {
                row_key: region.end_key.clone(),
                offset_bytes: offset,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn region(start: &'static str, end: &'static str) -> RegionInfo {
        RegionInfo {
            id: 1,
            start_key: Bytes::from_static(start.as_bytes()),
            end_key: Bytes::from_static(end.as_bytes()),
            name: String::new(),
            served_by: strata_server::table::ServedBy::ThisServer,
        }
    }

    #[test]
    fn offsets_accumulate_and_the_last_key_is_empty() {
        let got = samples(&[
            (region("", "g"), 100),
            (region("g", "p"), 0),
            (region("p", ""), 50),
        ]);
        let pairs: Vec<(&[u8], i64)> = got
            .iter()
            .map(|s| (s.row_key.as_ref(), s.offset_bytes))
            .collect();
        assert_eq!(pairs, vec![(&b"g"[..], 100), (b"p", 100), (b"", 150)]);
    }
}
