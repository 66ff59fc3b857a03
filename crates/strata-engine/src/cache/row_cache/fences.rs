//! Write fences: how the row cache never keeps an answer a write has made stale.
//!
//! Rows hash to shards; each shard counts the writes in flight on its rows and a
//! generation that every write moves on. A write enters its rows' shards before it touches
//! a memstore and leaves them once it is visible, dropping the rows' cached answers as it
//! leaves. A read may use or fill the cache only while its row's shard has no write in
//! flight: it takes a ticket (the generation) before it reads, and its answer goes in only
//! if, under the shard's lock, no write is in flight and the generation is still the
//! ticket's. So an answer is cached only when no write of its row began between the
//! read's start and the insert, and one cached before a write is dropped before that
//! write is acknowledged; a hit during a write is impossible (the read bypasses the cache).

use std::hash::{BuildHasher, Hash};

use parking_lot::Mutex;

use super::answer::RowKey;

/// Shards of the fences: enough that a write in flight rarely keeps a hot row out of the
/// cache because another row shares its shard.
const SHARDS: usize = 1024;

#[derive(Debug, Default)]
struct Shard {
    writers: u32,
    generation: u64,
}

/// Proof that a read started while no write of its row was in flight.
#[derive(Debug, Clone, Copy)]
pub struct ReadTicket {
    shard: usize,
    generation: u64,
}

pub struct Fences {
    shards: Box<[Mutex<Shard>]>,
    hasher: std::hash::RandomState,
}

impl Fences {
    pub fn new() -> Fences {
        Fences {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            hasher: std::hash::RandomState::new(),
        }
    }

    /// The shard of `key`.
    pub fn shard_of(&self, key: &RowKey) -> usize {
        let mut hasher = self.hasher.build_hasher();
        key.hash(&mut hasher);
        (std::hash::Hasher::finish(&hasher) % SHARDS as u64) as usize
    }

    fn shard(&self, index: usize) -> &Mutex<Shard> {
        // `index` comes from `shard_of`, always below SHARDS.
        &self.shards[index % SHARDS]
    }

    /// A ticket for a read of `key`, or `None` while a write of a row of its shard is in
    /// flight (the read must then neither use nor fill the cache).
    pub fn start_read(&self, key: &RowKey) -> Option<ReadTicket> {
        let shard = self.shard_of(key);
        let state = self.shard(shard).lock();
        (state.writers == 0).then_some(ReadTicket {
            shard,
            generation: state.generation,
        })
    }

    /// Runs `insert` under the shard's lock if no write began since `ticket` was taken;
    /// returns whether it ran.
    pub fn if_unwritten(&self, ticket: ReadTicket, insert: impl FnOnce()) -> bool {
        let state = self.shard(ticket.shard).lock();
        let unwritten = state.writers == 0 && state.generation == ticket.generation;
        if unwritten {
            insert();
        }
        unwritten
    }

    /// A write of a row of `shard` begins.
    pub fn enter(&self, shard: usize) {
        let mut state = self.shard(shard).lock();
        state.writers += 1;
        state.generation += 1;
    }

    /// A write of a row of `shard` is visible (or abandoned): `forget` drops the row's
    /// answers under the shard's lock, so no read can slip a stale one in meanwhile.
    pub fn leave(&self, shard: usize, forget: impl FnOnce()) {
        let mut state = self.shard(shard).lock();
        forget();
        state.generation += 1;
        state.writers = state.writers.saturating_sub(1);
    }
}
