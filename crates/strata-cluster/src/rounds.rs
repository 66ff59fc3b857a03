//! [`ChangeWatch`]: how a loop that follows the cluster waits between its rounds: until
//! any key of the cluster changes (one etcd watch, started again whenever it ended) or
//! [`ROUND`] passes, then a moment more for the burst of changes to settle. The follower
//! (every server) and the master's rounds each keep one.

use std::time::Duration;

use strata_coord::kv::WatchReceiver;

use crate::node::ClusterNode;

/// The longest pause between rounds.
pub const ROUND: Duration = Duration::from_millis(200);

/// How long a change may be followed by others before a round reads them all.
const SETTLE: Duration = Duration::from_millis(5);

/// A loop's watch on the cluster's keys.
#[derive(Default)]
pub struct ChangeWatch {
    watch: Option<WatchReceiver>,
}

impl ChangeWatch {
    /// Waits for a change (or [`ROUND`]). Returns false only when the watch was running
    /// before the wait, is still healthy and saw nothing: the cluster's keys are as the
    /// last round read them.
    pub fn wait(&mut self, node: &ClusterNode) -> bool {
        let clock = &node.clock;
        let started_now = self.watch.is_none();
        if started_now {
            self.watch = node.coord.watch_cluster().ok();
        }
        let Some(receiver) = self.watch.as_ref() else {
            clock.sleep(ROUND);
            return true;
        };
        match receiver.next_timeout(ROUND) {
            Some(Ok(_)) => {
                clock.sleep(SETTLE);
                while let Some(event) = receiver.try_next() {
                    if event.is_err() {
                        self.watch = None;
                        break;
                    }
                }
                true
            }
            Some(Err(_)) => {
                self.watch = None;
                true
            }
            None => started_now,
        }
    }
}
