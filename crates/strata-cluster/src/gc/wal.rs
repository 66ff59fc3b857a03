//! Which objects of a WAL stream may go, by its record in etcd (`/wal/<stream>`):
//! - `replayed`: every object (the fence too). Its edits were replayed and flushed by the
//!   regions' new owners, and no recovery reads it again;
//! - `live` with `first_live_id` N: the objects below N (they hold only flushed edits, and
//!   a recovery starts at N), but never the stream's newest object: a fencer creates its
//!   fence at the newest id + 1, so with the newest gone it could land below the writer's
//!   next id and fence nothing;
//! - no record: nothing (its server has published nothing yet, or died before it did).
//!
//! Objects go in ascending id order and a stream's deletion stops at the first object
//! that may not go yet, so a stream never has a hole: a reader refuses a stream whose ids
//! are not contiguous.

use strata_coord::StreamRecord;

/// The ids of `stream`'s objects below which everything may go, given its record and its
/// newest object id (`None`: the stream has no object). `None`: nothing may go.
pub fn deletable_below(record: Option<&StreamRecord>, newest: Option<u64>) -> Option<u64> {
    let record = record?;
    let newest = newest?;
    match record.state.as_str() {
        "replayed" => Some(newest.saturating_add(1)),
        "live" => Some(record.first_live_id?.min(newest)),
        // A state this build does not know: leave the stream alone.
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(state: &str, first_live_id: Option<u64>) -> StreamRecord {
        StreamRecord {
            v: strata_coord::records::FORMAT_VERSION,
            state: state.into(),
            first_live_id,
        }
    }

    #[test]
    fn the_newest_object_of_a_live_stream_always_stays() {
        assert_eq!(
            deletable_below(Some(&record("live", Some(5))), Some(9)),
            Some(5)
        );
        assert_eq!(
            deletable_below(Some(&record("live", Some(12))), Some(9)),
            Some(9)
        );
        assert_eq!(deletable_below(Some(&record("live", None)), Some(9)), None);
        assert_eq!(
            deletable_below(Some(&record("replayed", None)), Some(9)),
            Some(10)
        );
        assert_eq!(deletable_below(None, Some(9)), None);
        assert_eq!(deletable_below(Some(&record("replayed", None)), None), None);
        assert_eq!(
            deletable_below(Some(&record("sealed?", Some(3))), Some(9)),
            None
        );
    }
}
