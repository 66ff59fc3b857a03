//! Sessions, as far as a read-only server with no watches and no ephemeral nodes needs
//! them: an id and password a client can resume on a new connection, and expiry.
//!
//! As in ZooKeeper, a session outlives its connection by its timeout: a client that lost
//! its connection and comes back in time resumes the session; one that comes back later,
//! or whose connection went silent past the timeout (the server closed it), is told its
//! session expired. The table is bounded: entries of ended sessions are dropped once
//! their timeout passed, and a new session beyond the limit is refused.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_runtime::clock::Clock;

/// The password length ZooKeeper's clients expect.
pub const PASSWD_LEN: usize = 16;

/// A session a connection may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionGrant {
    pub id: i64,
    pub passwd: [u8; PASSWD_LEN],
}

/// The outcome of a connect request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    New(SessionGrant),
    Resumed(SessionGrant),
    /// Unknown id, wrong password, or ended more than its timeout ago.
    Expired,
    /// The table is full of live sessions.
    Full,
}

#[derive(Debug)]
struct Session {
    timeout: Duration,
    /// Connections using the session now (a client that moved may briefly hold two).
    attached: u32,
    /// When its last connection ended, while none is attached.
    detached_at: Option<Instant>,
}

#[derive(Debug)]
struct Table {
    sessions: HashMap<i64, Session>,
    next_id: i64,
}

/// Every session of one facade.
#[derive(Debug)]
pub struct SessionTable {
    clock: Arc<dyn Clock>,
    secret: u64,
    max_sessions: usize,
    table: Mutex<Table>,
}

impl SessionTable {
    /// Ids start from `server_id` in the top byte and the clock's wall time below it, as
    /// ZooKeeper makes them, so a restarted server does not hand out its old ids again.
    pub fn new(
        clock: Arc<dyn Clock>,
        server_id: u8,
        secret: u64,
        max_sessions: usize,
    ) -> SessionTable {
        let millis = clock.now_millis().max(0) as u64 & 0xff_ffff_ffff;
        let first = (u64::from(server_id) << 56 | millis << 16) as i64;
        SessionTable {
            clock,
            secret,
            max_sessions,
            table: Mutex::new(Table {
                sessions: HashMap::new(),
                next_id: first.wrapping_add(1),
            }),
        }
    }

    /// Opens a new session (`requested_id` 0) or resumes one, attaching a connection.
    pub fn open(&self, requested_id: i64, passwd: &[u8], timeout: Duration) -> Opened {
        let now = self.clock.now();
        let mut table = self.table.lock();
        table.sessions.retain(|_, s| !ended_before(s, now));
        if requested_id != 0 {
            return self.resume(&mut table, requested_id, passwd, timeout);
        }
        if table.sessions.len() >= self.max_sessions {
            return Opened::Full;
        }
        let id = fresh_id(&mut table);
        table.sessions.insert(
            id,
            Session {
                timeout,
                attached: 1,
                detached_at: None,
            },
        );
        Opened::New(self.grant(id))
    }

    fn resume(&self, table: &mut Table, id: i64, passwd: &[u8], timeout: Duration) -> Opened {
        if passwd != self.passwd(id) {
            return Opened::Expired;
        }
        let Some(session) = table.sessions.get_mut(&id) else {
            return Opened::Expired;
        };
        session.timeout = timeout;
        session.attached += 1;
        session.detached_at = None;
        Opened::Resumed(self.grant(id))
    }

    /// A connection of session `id` ended without closing it: the session stays for its
    /// timeout, so the client can resume it elsewhere or here.
    pub fn detach(&self, id: i64) {
        let now = self.clock.now();
        let mut table = self.table.lock();
        if let Some(session) = table.sessions.get_mut(&id) {
            session.attached = session.attached.saturating_sub(1);
            if session.attached == 0 {
                session.detached_at = Some(now);
            }
        }
    }

    /// The session is over: closed by its client, or silent past its timeout.
    pub fn end(&self, id: i64) {
        self.table.lock().sessions.remove(&id);
    }

    /// How many sessions the table holds (live or within their timeout).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.table.lock().sessions.len()
    }

    fn grant(&self, id: i64) -> SessionGrant {
        SessionGrant {
            id,
            passwd: self.passwd(id),
        }
    }

    /// The session's password, derived from its id and the server's secret so that it
    /// needs no storage. This guards nothing secret (every znode is world-readable); it
    /// only keeps a guessed id from resuming someone else's session.
    fn passwd(&self, id: i64) -> [u8; PASSWD_LEN] {
        let seed = id as u64 ^ self.secret;
        let mut out = [0u8; PASSWD_LEN];
        out[..8].copy_from_slice(&mix(seed).to_be_bytes());
        out[8..].copy_from_slice(&mix(seed ^ 0x9e37_79b9_7f4a_7c15).to_be_bytes());
        out
    }
}

fn ended_before(session: &Session, now: Instant) -> bool {
    session
        .detached_at
        .is_some_and(|at| now.saturating_duration_since(at) >= session.timeout)
}

/// The next id, never 0 (0 asks for a new session) and never one in use.
fn fresh_id(table: &mut Table) -> i64 {
    loop {
        let id = table.next_id;
        table.next_id = id.wrapping_add(1);
        if id != 0 && !table.sessions.contains_key(&id) {
            return id;
        }
    }
}

/// splitmix64's finaliser: a fixed, well-spread mapping of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_runtime::clock::ManualClock;

    const TIMEOUT: Duration = Duration::from_secs(10);

    fn table(clock: &Arc<ManualClock>, max: usize) -> SessionTable {
        SessionTable::new(Arc::clone(clock) as Arc<dyn Clock>, 1, 42, max)
    }

    fn advance(clock: &ManualClock, by: Duration) {
        clock.advance(by.as_millis() as i64);
    }

    fn new_session(t: &SessionTable) -> SessionGrant {
        match t.open(0, &[0; 16], TIMEOUT) {
            Opened::New(grant) => grant,
            other => panic!("expected a new session, got {other:?}"),
        }
    }

    #[test]
    fn new_sessions_get_distinct_non_zero_ids_with_the_server_id_on_top() {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let t = table(&clock, 10);
        let a = new_session(&t);
        let b = new_session(&t);
        assert_ne!(a.id, b.id);
        assert_ne!(a.id, 0);
        assert_eq!((a.id as u64) >> 56, 1);
        assert_ne!(a.passwd, b.passwd);
    }

    #[test]
    fn a_session_resumes_within_its_timeout_with_its_password() {
        let clock = Arc::new(ManualClock::new(0));
        let t = table(&clock, 10);
        let s = new_session(&t);
        t.detach(s.id);
        advance(&clock, TIMEOUT - Duration::from_millis(1));
        assert_eq!(t.open(s.id, &s.passwd, TIMEOUT), Opened::Resumed(s));
    }

    #[test]
    fn a_wrong_password_or_unknown_id_is_expired() {
        let clock = Arc::new(ManualClock::new(0));
        let t = table(&clock, 10);
        let s = new_session(&t);
        assert_eq!(t.open(s.id, &[0; 16], TIMEOUT), Opened::Expired);
        assert_eq!(t.open(s.id + 1000, &s.passwd, TIMEOUT), Opened::Expired);
    }

    #[test]
    fn a_session_detached_past_its_timeout_is_expired_and_dropped() {
        let clock = Arc::new(ManualClock::new(0));
        let t = table(&clock, 10);
        let s = new_session(&t);
        t.detach(s.id);
        advance(&clock, TIMEOUT);
        assert_eq!(t.open(s.id, &s.passwd, TIMEOUT), Opened::Expired);
        assert_eq!(t.len(), 0);
    }

    #[test]
    fn an_ended_session_cannot_be_resumed() {
        let clock = Arc::new(ManualClock::new(0));
        let t = table(&clock, 10);
        let s = new_session(&t);
        t.end(s.id);
        assert_eq!(t.open(s.id, &s.passwd, TIMEOUT), Opened::Expired);
    }

    #[test]
    fn an_attached_session_never_expires_by_time() {
        let clock = Arc::new(ManualClock::new(0));
        let t = table(&clock, 10);
        let s = new_session(&t);
        advance(&clock, TIMEOUT * 100);
        assert_eq!(t.open(s.id, &s.passwd, TIMEOUT), Opened::Resumed(s));
    }

    #[test]
    fn the_table_is_bounded_and_frees_room_as_sessions_lapse() {
        let clock = Arc::new(ManualClock::new(0));
        let t = table(&clock, 2);
        let a = new_session(&t);
        new_session(&t);
        assert_eq!(t.open(0, &[], TIMEOUT), Opened::Full);
        t.detach(a.id);
        advance(&clock, TIMEOUT);
        new_session(&t);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn passwords_depend_on_the_secret() {
        let clock = Arc::new(ManualClock::new(0));
        let one = SessionTable::new(Arc::clone(&clock) as Arc<dyn Clock>, 1, 1, 10);
        let two = SessionTable::new(Arc::clone(&clock) as Arc<dyn Clock>, 1, 2, 10);
        assert_ne!(one.passwd(5), two.passwd(5));
        assert_eq!(one.passwd(5), one.passwd(5));
    }
}
