//! [`Coordinator`] for [`KvCoordinator`]: each method forwards to the inherent method of
//! the same name (in `session.rs`, `directory.rs`, `election.rs`), so code holding the
//! concrete type (tests) and code holding `dyn Coordinator` (the server) run the same path.

use std::sync::Arc;

use crate::coordinator::{
    Campaign, Coordinator, Epoch, Incarnation, KvCoordinator, Leadership, LiveServer, MasterInfo,
    MembershipWatch, Owner, Region,
};
use crate::error::Result;
use crate::keys::RegionId;
use crate::kv::{MetaKv, WatchReceiver};
use crate::lease::Lease;
use crate::records::{ManifestPointer, RegionRecord};

type Kc<K> = KvCoordinator<K>;

impl<K: MetaKv> Coordinator for KvCoordinator<K> {
    fn grant_lease(&self) -> Result<Arc<Lease>> {
        Kc::grant_lease(self)
    }
    fn keep_alive(&self, lease: &Lease) -> Result<()> {
        Kc::keep_alive(self, lease)
    }
    fn revoke(&self, lease: &Lease) -> Result<()> {
        Kc::revoke(self, lease)
    }
    fn register_server(&self, lease: &Lease, sid: &str, addr: &str) -> Result<Incarnation> {
        Kc::register_server(self, lease, sid, addr)
    }
    fn live_servers(&self) -> Result<Vec<LiveServer>> {
        Kc::live_servers(self)
    }
    fn watch_servers(&self) -> Result<(Vec<LiveServer>, MembershipWatch)> {
        Kc::watch_servers(self)
    }
    fn create_region(
        &self,
        master: &Leadership,
        id: RegionId,
        record: &RegionRecord,
    ) -> Result<Epoch> {
        Kc::create_region(self, master, id, record)
    }
    fn assign_region(
        &self,
        master: &Leadership,
        id: RegionId,
        epoch: Epoch,
        owner: Option<&str>,
    ) -> Result<Epoch> {
        Kc::assign_region(self, master, id, epoch, owner)
    }
    fn region(&self, id: RegionId) -> Result<Option<Region>> {
        Kc::region(self, id)
    }
    fn regions(&self) -> Result<Vec<Region>> {
        Kc::regions(self)
    }
    fn claim_region(
        &self,
        lease: &Lease,
        sid: &str,
        incarnation: Incarnation,
        id: RegionId,
        epoch: Epoch,
    ) -> Result<()> {
        Kc::claim_region(self, lease, sid, incarnation, id, epoch)
    }
    fn owner(&self, id: RegionId) -> Result<Option<Owner>> {
        Kc::owner(self, id)
    }
    fn commit_manifest(
        &self,
        lease: &Lease,
        id: RegionId,
        epoch: Epoch,
        family: &str,
        manifest: u64,
    ) -> Result<()> {
        Kc::commit_manifest(self, lease, id, epoch, family, manifest)
    }
    fn manifest(&self, id: RegionId, family: &str) -> Result<Option<ManifestPointer>> {
        Kc::manifest(self, id, family)
    }
    fn commit_split(
        &self,
        lease: &Lease,
        parent: RegionId,
        epoch: Epoch,
        daughters: [(RegionId, RegionRecord); 2],
    ) -> Result<Epoch> {
        Kc::commit_split(self, lease, parent, epoch, daughters)
    }
    fn commit_merge(
        &self,
        lease: &Lease,
        parents: [(RegionId, Epoch); 2],
        merged: (RegionId, RegionRecord),
    ) -> Result<Epoch> {
        Kc::commit_merge(self, lease, parents, merged)
    }
    fn retire_stream(&self, master: &Leadership, stream: &str) -> Result<()> {
        Kc::retire_stream(self, master, stream)
    }
    fn retired_streams(&self) -> Result<Vec<String>> {
        Kc::retired_streams(self)
    }
    fn publish_stream_progress(
        &self,
        master: &Leadership,
        stream: &str,
        first_live_id: u64,
    ) -> Result<()> {
        Kc::publish_stream_progress(self, master, stream, first_live_id)
    }
    fn stream_records(&self) -> Result<Vec<(String, crate::records::StreamRecord)>> {
        Kc::stream_records(self)
    }
    fn campaign(&self, lease: &Arc<Lease>, sid: &str, addr: &str) -> Result<Campaign> {
        Kc::campaign(self, lease, sid, addr)
    }
    fn resign(&self, master: &Leadership) -> Result<()> {
        Kc::resign(self, master)
    }
    fn observe_master(&self) -> Result<(Option<MasterInfo>, WatchReceiver)> {
        Kc::observe_master(self)
    }
}
