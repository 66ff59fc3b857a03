//! Region sizes, for Bigtable's SampleRowKeys (which answers from the real region
//! boundaries, as Bigtable answers from its tablets).

use crate::directory::TableDirectory;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::{RegionWork, RowSpan};
use crate::table::{RegionInfo, RegionLocation};

/// The regions of `table` in key order, each with the bytes of its SSTables and memstores
/// (a region served elsewhere is measured by its owner).
pub(crate) fn region_sizes(
    directory: &TableDirectory,
    table: &TableName,
) -> Result<Vec<(RegionInfo, u64)>> {
    let state = directory.table(table)?;
    let mut sizes = Vec::with_capacity(state.regions.len());
    for open in &state.regions {
        sizes.push(match &open.location {
            RegionLocation::Here(region) => region.size_bytes(),
            RegionLocation::Peer(_) => {
                let span = RowSpan {
                    start: open.entry.start_key.clone(),
                    end: open.entry.end_key.clone(),
                };
                let measure = || {
                    directory
                        .maintenance()
                        .on_region(table, &span, RegionWork::Measure)
                };
                crate::remote::until_served(measure)?
            }
        });
    }
    Ok(state.region_infos().into_iter().zip(sizes).collect())
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use strata_engine::{Cell, Durability, FamilyOptions};

    use super::*;
    use crate::{Service, ServiceOptions};

    #[test]
    fn sizes_follow_the_data_written_to_each_region() {
        let dir = tempfile::tempdir().unwrap();
        let svc = Service::open(ServiceOptions::new(dir.path())).unwrap();
        let table = TableName::parse("t").unwrap();
        let splits = vec![Bytes::from_static(b"m")];
        svc.admin()
            .create_table(&table, vec![FamilyOptions::new("cf")], splits)
            .unwrap();
        let cell = Cell::put("z", "cf", "q", 1, vec![7u8; 10_000]);
        svc.rows()
            .mutate(&table, vec![cell], Durability::SyncWal)
            .unwrap();
        let sizes = svc.admin().region_sizes(&table).unwrap();
        assert_eq!(sizes.len(), 2);
        assert_eq!(sizes[1].0.start_key, Bytes::from_static(b"m"));
        assert!(sizes[1].1 >= 10_000, "second region holds the value");
        assert!(sizes[0].1 < sizes[1].1);
    }
}
