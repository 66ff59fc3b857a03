//! Builds one block's raw bytes.

use crate::util::coding::{put_u32_le, put_varint};

/// A restart point is also started once this many bytes follow the last one, so a seek
/// never scans linearly over more than about this much: with large values a scan over 16
/// entries would touch many cache lines for little prefix sharing. (A writer choice only:
/// readers follow whatever restart array a block has.)
pub const RESTART_BYTES: usize = 1024;

/// Accumulates sorted entries into one block.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    restart_interval: usize,
    since_restart: usize,
    last_key: Vec<u8>,
    entries: usize,
}

impl BlockBuilder {
    /// A builder that starts a restart point every `restart_interval` entries (1 = no prefix
    /// sharing at all).
    pub fn new(restart_interval: usize) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: Vec::new(),
            restart_interval: restart_interval.max(1),
            since_restart: 0,
            last_key: Vec::new(),
            entries: 0,
        }
    }

    /// Appends an entry. The caller guarantees `key` sorts after the previous key.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let bytes_since_restart = self
            .restarts
            .last()
            .map_or(0, |&r| self.buf.len() - r as usize);
        let shared = if self.since_restart == 0
            || self.since_restart >= self.restart_interval
            || bytes_since_restart >= RESTART_BYTES
        {
            self.restarts.push(self.buf.len() as u32);
            self.since_restart = 0;
            0
        } else {
            common_prefix_len(&self.last_key, key)
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(&key[shared..]);
        self.since_restart += 1;
        self.entries += 1;
    }

    /// Size of the block if it were finished now.
    pub fn estimated_size(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// True when no entry was added since the last `finish`.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The last key added.
    pub fn last_key(&self) -> &[u8] {
        &self.last_key
    }

    /// Returns the finished block and resets the builder for the next one.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.buf);
        for &r in &self.restarts {
            put_u32_le(&mut out, r);
        }
        put_u32_le(&mut out, self.restarts.len() as u32);
        self.restarts.clear();
        self.since_restart = 0;
        self.last_key.clear();
        self.entries = 0;
        out
    }
}

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
