//! [`Admin`]'s calls on regions: sizes and status, snapshots, flushes and compactions,
//! splits and merges.

use strata_access::{AdminOp, Target};

use super::Admin;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::AdminRequest;
use crate::status::TableStatus;
use crate::table::RegionInfo;
use crate::table_changes::SplitAt;

impl Admin {
    /// The table's regions.
    pub fn table_regions(&self, name: &TableName) -> Result<Vec<RegionInfo>> {
        self.directory.table_regions(name)
    }

    /// The table's regions in key order, each with the bytes of its SSTables and memstores.
    pub fn region_sizes(&self, table: &TableName) -> Result<Vec<(RegionInfo, u64)>> {
        crate::region_sizes::region_sizes(&self.directory, table)
    }

    /// Every table with its regions (user tables and system ones), sorted by name.
    pub fn table_status(&self) -> Vec<TableStatus> {
        TableStatus::of_all(&self.directory)
    }

    /// One table with its regions; `None` if there is no such table.
    pub fn one_table_status(&self, name: &TableName) -> Option<TableStatus> {
        TableStatus::of(&self.directory, name)
    }

    /// Takes snapshot `snapshot` of a table (HBase's `snapshot`). Standalone only.
    pub fn snapshot_table(&self, name: &TableName, snapshot: &str) -> Result<()> {
        self.require_table(AdminOp::Snapshot, name)?;
        self.directory.snapshots().take(name, snapshot)
    }

    /// Every snapshot (HBase's `list_snapshots`).
    pub fn list_snapshots(&self) -> Result<Vec<crate::SnapshotInfo>> {
        self.directory.snapshots().list()
    }

    /// Deletes a snapshot; tables cloned or restored from it keep their data.
    pub fn delete_snapshot(&self, snapshot: &str) -> Result<()> {
        self.require(AdminOp::DeleteSnapshot, Target::Cluster)?;
        self.directory.snapshots().delete(snapshot)
    }

    /// Creates table `name` from a snapshot (HBase's `clone_snapshot`).
    pub fn clone_snapshot(&self, snapshot: &str, name: &TableName) -> Result<()> {
        self.require(AdminOp::CloneSnapshot, Target::Namespace(&name.namespace))?;
        self.directory.snapshots().clone_to(snapshot, name)?;
        self.grant_owner(name)
    }

    /// Puts a disabled table back as the snapshot recorded it (HBase's `restore_snapshot`).
    pub fn restore_snapshot(&self, snapshot: &str) -> Result<()> {
        // The snapshot names its table; the check needs the table's name.
        let table = self.snapshot_table_name(snapshot)?;
        self.require_table(AdminOp::RestoreSnapshot, &table)?;
        self.directory.snapshots().restore(snapshot)
    }

    /// Flushes every region of the table.
    pub fn flush_table(&self, name: &TableName) -> Result<()> {
        self.require_table(AdminOp::Flush, name)?;
        self.directory.maintenance().flush_table(name)
    }

    /// Compacts every region of the table (after a flush, for a major compaction).
    pub fn compact_table(&self, name: &TableName, major: bool) -> Result<()> {
        self.require_table(AdminOp::Compact, name)?;
        self.directory.maintenance().compact_table(name, major)
    }

    /// The size past which a region of a table with `regions` regions splits.
    pub fn split_threshold(&self, regions: usize) -> u64 {
        self.splitter.threshold(regions)
    }

    /// Splits a region in two; returns the daughters' ids.
    pub fn split_region(&self, table: &TableName, at: SplitAt) -> Result<(u64, u64)> {
        self.require_table(AdminOp::Split, table)?;
        let request = || AdminRequest::SplitRegion {
            table: table.clone(),
            at: at.clone(),
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.pair();
        }
        self.bring_here(table, &at)?;
        self.splitter.split(table, at)
    }

    /// Cluster mode: brings the region `at` names to this server (the master) first, since
    /// regions split where the catalog is written.
    fn bring_here(&self, table: &TableName, at: &SplitAt) -> Result<()> {
        let Ok(admin) = self.cluster_admin() else {
            return Ok(());
        };
        let (id, here) = self.directory.region_changes().locate_split(table, at)?;
        if !here {
            admin.take_region(id)?;
        }
        Ok(())
    }

    /// Merges two adjacent regions into one; returns its id.
    pub fn merge_regions(&self, table: &TableName, a: u64, b: u64) -> Result<u64> {
        self.require_table(AdminOp::MergeRegions, table)?;
        let request = || AdminRequest::MergeRegions {
            table: table.clone(),
            a,
            b,
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.number();
        }
        self.bring_here(table, &SplitAt::Region(a))?;
        self.bring_here(table, &SplitAt::Region(b))?;
        self.splitter.merge(table, a, b)
    }
}
