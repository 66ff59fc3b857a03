//! The region directory, ownership and manifest pointers: every write compares the
//! region's epoch (its record's mod revision), so at most one of two racing writers to
//! the same region (a move and a split, a commit and an epoch bump) can win.

use crate::coordinator::{Epoch, Incarnation, KvCoordinator, Leadership, Owner, Region};
use crate::error::{Error, Result};
use crate::keys::{check_name, RegionId};
use crate::kv::{Compare, KeyValue, MetaKv, Op, Txn};
use crate::lease::Lease;
use crate::records::{
    decode, encode, ManifestPointer, OwnerRecord, RegionRecord, RegionState, FORMAT_VERSION,
};
use crate::session::put;

impl<K: MetaKv> KvCoordinator<K> {
    fn decode_region(&self, kv: &KeyValue) -> Result<Region> {
        Ok(Region {
            id: self.keys.region_id_of(&kv.key)?,
            record: decode(&kv.key, &kv.value)?,
            epoch: kv.mod_revision,
        })
    }

    /// One region of the directory.
    pub fn region(&self, id: RegionId) -> Result<Option<Region>> {
        self.kv
            .get(&self.keys.region(id))?
            .map(|kv| self.decode_region(&kv))
            .transpose()
    }

    /// The whole directory.
    pub fn regions(&self) -> Result<Vec<Region>> {
        let (kvs, _) = self.kv.range_prefix(&self.keys.regions())?;
        kvs.iter().map(|kv| self.decode_region(kv)).collect()
    }

    /// Adds a new region (the id must be unused).
    pub fn create_region(
        &self,
        master: &Leadership,
        id: RegionId,
        record: &RegionRecord,
    ) -> Result<Epoch> {
        let key = self.keys.region(id);
        let txn = Txn {
            compares: vec![Compare::absent(&key)],
            ops: vec![put(&key, encode(record)?, None)],
        };
        self.master_txn(master, txn, || format!("region {id} already exists"))
    }

    /// Moves the region to `owner` (or offline) if it is still at `epoch`.
    pub fn assign_region(
        &self,
        master: &Leadership,
        id: RegionId,
        epoch: Epoch,
        owner: Option<&str>,
    ) -> Result<Epoch> {
        let state = match owner {
            Some(_) => RegionState::Open,
            None => RegionState::Offline,
        };
        self.set_region_state(master, id, epoch, owner, state)
    }

    /// Closes the region (HBase's `unassign`) if it is still at `epoch`: no owner, and the
    /// master does not assign it again by itself.
    pub fn close_region(&self, master: &Leadership, id: RegionId, epoch: Epoch) -> Result<Epoch> {
        self.set_region_state(master, id, epoch, None, RegionState::Closed)
    }

    fn set_region_state(
        &self,
        master: &Leadership,
        id: RegionId,
        epoch: Epoch,
        owner: Option<&str>,
        state: RegionState,
    ) -> Result<Epoch> {
        let key = self.keys.region(id);
        let current = self
            .region(id)?
            .ok_or_else(|| Error::NotFound(format!("region {id} ({key})")))?;
        if current.record.state == RegionState::Retired {
            return Err(Error::Fenced(format!(
                "region {id} is retired (split or merged)"
            )));
        }
        let mut record = current.record;
        record.owner = owner.map(str::to_owned);
        record.state = state;
        let txn = Txn {
            compares: vec![Compare::mod_revision(&key, epoch)],
            ops: vec![
                put(&key, encode(&record)?, None),
                Op::Delete {
                    key: self.keys.owner(id),
                },
            ],
        };
        self.master_txn(master, txn, || {
            format!("region {id} moved past epoch {epoch}")
        })
    }

    /// Writes `/own/<rid>` under the server's lease if the region is still at `epoch`.
    pub fn claim_region(
        &self,
        lease: &Lease,
        sid: &str,
        incarnation: Incarnation,
        id: RegionId,
        epoch: Epoch,
    ) -> Result<()> {
        self.put_claim(lease, sid, incarnation, id, epoch, false)
    }

    /// Records that this server's claim of region `id` at `epoch` is open here now: what
    /// a dead owner left was replayed and flushed. The master retires a dead server's
    /// stream only once every region is serving, not merely claimed.
    pub fn mark_serving(
        &self,
        lease: &Lease,
        sid: &str,
        incarnation: Incarnation,
        id: RegionId,
        epoch: Epoch,
    ) -> Result<()> {
        self.put_claim(lease, sid, incarnation, id, epoch, true)
    }

    fn put_claim(
        &self,
        lease: &Lease,
        sid: &str,
        incarnation: Incarnation,
        id: RegionId,
        epoch: Epoch,
        serving: bool,
    ) -> Result<()> {
        let record = OwnerRecord {
            v: FORMAT_VERSION,
            sid: sid.to_owned(),
            incarnation,
            epoch,
            serving,
        };
        let txn = Txn {
            compares: vec![Compare::mod_revision(self.keys.region(id), epoch)],
            ops: vec![put(&self.keys.owner(id), encode(&record)?, Some(lease))],
        };
        self.owner_txn(lease, &txn, id, epoch).map(|_| ())
    }

    /// Deletes this server's `/own/<rid>` after it released the region for a move or a
    /// close, if the region is still at `epoch` (if not, the master's assignment deleted
    /// it already). A released region without a claim is one the master sees as
    /// unserved, so a move a dead master left half done is finished by the next.
    pub fn release_claim(&self, lease: &Lease, id: RegionId, epoch: Epoch) -> Result<()> {
        let txn = Txn {
            compares: vec![Compare::mod_revision(self.keys.region(id), epoch)],
            ops: vec![Op::Delete {
                key: self.keys.owner(id),
            }],
        };
        self.leased_txn(lease, &txn).map(|_| ())
    }

    /// Who serves the region now.
    pub fn owner(&self, id: RegionId) -> Result<Option<Owner>> {
        let Some(kv) = self.kv.get(&self.keys.owner(id))? else {
            return Ok(None);
        };
        let record: OwnerRecord = decode(&kv.key, &kv.value)?;
        Ok(Some(Owner {
            sid: record.sid,
            incarnation: record.incarnation,
            epoch: record.epoch,
            serving: record.serving,
        }))
    }

    /// Who serves each region now (every `/own/` key, one range read).
    pub fn owners(&self) -> Result<Vec<(RegionId, Owner)>> {
        let (kvs, _) = self.kv.range_prefix(&self.keys.owners())?;
        kvs.iter()
            .map(|kv| {
                let record: OwnerRecord = decode(&kv.key, &kv.value)?;
                let owner = Owner {
                    sid: record.sid,
                    incarnation: record.incarnation,
                    epoch: record.epoch,
                    serving: record.serving,
                };
                Ok((self.keys.region_id_of(&kv.key)?, owner))
            })
            .collect()
    }

    /// Advances (region, family)'s manifest pointer if the region is still at `epoch`.
    pub fn commit_manifest(
        &self,
        lease: &Lease,
        id: RegionId,
        epoch: Epoch,
        family: &str,
        manifest: u64,
    ) -> Result<()> {
        check_name("column family", family)?;
        let pointer = ManifestPointer {
            v: FORMAT_VERSION,
            manifest,
            epoch,
        };
        let txn = Txn {
            compares: vec![Compare::mod_revision(self.keys.region(id), epoch)],
            ops: vec![put(
                &self.keys.manifest(id, family),
                encode(&pointer)?,
                None,
            )],
        };
        self.owner_txn(lease, &txn, id, epoch).map(|_| ())
    }

    /// Removes region `id` from the directory if it is still at `epoch`: the master's
    /// cleanup of a region no table lists any more (dropped, split or merged away, or
    /// created by a split that never committed). Its claim goes with it; its manifest
    /// pointers stay, so its id is never reused while its files exist.
    pub fn forget_region(&self, master: &Leadership, id: RegionId, epoch: Epoch) -> Result<()> {
        let txn = Txn {
            compares: vec![Compare::mod_revision(self.keys.region(id), epoch)],
            ops: vec![
                Op::Delete {
                    key: self.keys.region(id),
                },
                Op::Delete {
                    key: self.keys.owner(id),
                },
            ],
        };
        self.master_txn(master, txn, || {
            format!("region {id} changed since epoch {epoch}")
        })
        .map(|_| ())
    }

    /// The committed manifest of (region, family).
    pub fn manifest(&self, id: RegionId, family: &str) -> Result<Option<ManifestPointer>> {
        self.kv
            .get(&self.keys.manifest(id, family))?
            .map(|kv| decode(&kv.key, &kv.value))
            .transpose()
    }

    /// Parent retired and daughters created, in one transaction guarded by the parent's
    /// epoch; the daughters stay with the parent's owner.
    pub fn commit_split(
        &self,
        lease: &Lease,
        parent: RegionId,
        epoch: Epoch,
        daughters: [(RegionId, RegionRecord); 2],
    ) -> Result<Epoch> {
        let current = self.live_region(parent)?;
        let ids = daughters.iter().map(|(id, _)| *id).collect();
        let mut ops = self.retire_ops(parent, current.record.clone(), ids)?;
        let mut compares = vec![Compare::mod_revision(self.keys.region(parent), epoch)];
        for (id, mut record) in daughters {
            record.state = current.record.state;
            record.owner = current.record.owner.clone();
            compares.push(Compare::absent(self.keys.region(id)));
            ops.push(put(&self.keys.region(id), encode(&record)?, None));
        }
        self.owner_txn(lease, &Txn { compares, ops }, parent, epoch)
    }

    /// Both parents retired and the merged region created, guarded by both epochs.
    pub fn commit_merge(
        &self,
        lease: &Lease,
        parents: [(RegionId, Epoch); 2],
        merged: (RegionId, RegionRecord),
    ) -> Result<Epoch> {
        let (merged_id, mut record) = merged;
        let mut compares = vec![Compare::absent(self.keys.region(merged_id))];
        let mut ops = Vec::new();
        for (id, epoch) in parents {
            let current = self.live_region(id)?;
            record.state = current.record.state;
            record.owner = current.record.owner.clone();
            compares.push(Compare::mod_revision(self.keys.region(id), epoch));
            ops.extend(self.retire_ops(id, current.record, vec![merged_id])?);
        }
        ops.push(put(&self.keys.region(merged_id), encode(&record)?, None));
        let (first, epoch) = parents[0];
        self.owner_txn(lease, &Txn { compares, ops }, first, epoch)
    }

    fn live_region(&self, id: RegionId) -> Result<Region> {
        match self.region(id)? {
            Some(region) if region.record.state != RegionState::Retired => Ok(region),
            Some(_) => Err(Error::Fenced(format!("region {id} is already retired"))),
            None => Err(Error::NotFound(format!("region {id}"))),
        }
    }

    /// The writes that retire region `id` in favour of `successors`.
    fn retire_ops(
        &self,
        id: RegionId,
        mut record: RegionRecord,
        successors: Vec<RegionId>,
    ) -> Result<Vec<Op>> {
        record.state = RegionState::Retired;
        record.owner = None;
        record.successors = successors;
        Ok(vec![
            put(&self.keys.region(id), encode(&record)?, None),
            Op::Delete {
                key: self.keys.owner(id),
            },
        ])
    }

    /// A server's epoch-guarded write: sent only under a valid lease.
    fn owner_txn(&self, lease: &Lease, txn: &Txn, id: RegionId, epoch: Epoch) -> Result<Epoch> {
        let outcome = self.leased_txn(lease, txn)?;
        if outcome.succeeded {
            Ok(outcome.revision)
        } else {
            Err(Error::Fenced(format!(
                "region {id} is no longer at epoch {epoch} (moved, split or merged)"
            )))
        }
    }
}
