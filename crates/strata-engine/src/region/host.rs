//! The owner of a region, as the region sees it. A region never starts work beyond itself:
//! it tells its host what it needs or what changed, and the host decides what follows. The
//! engine hosts every region of a process on one shared WAL (`engine/host.rs`); a cluster
//! node will host regions whose WAL and files live elsewhere, behind the same trait.

/// What a region tells its owner. Calls are hints: they never fail, may come from any
/// thread (writers, flushes, compactions), and a host may ignore or coalesce them.
pub trait RegionHost: Send + Sync {
    /// The region's memstores passed the flush size, or the process's memstores are past
    /// the point where flushing should start: it asks to be flushed.
    fn flush_wanted(&self, region: u64);

    /// The region has too many files for its writers: it asks to be compacted.
    fn compaction_wanted(&self, region: u64);

    /// A writer of the region is waiting because every memstore together is over the
    /// memory limit: some region, not necessarily this one, should flush.
    fn memory_pressure(&self, region: u64);

    /// The region finished a flush: every edit of it with a sequence id up to `seq` is in
    /// its files, so the WAL no longer needs them for this region.
    fn flushed(&self, region: u64, seq: u64);

    /// The region no longer reads any file of the regions it was split or merged from.
    fn references_dropped(&self, region: u64);
}
