//! Who is in the cluster, as the shell's `status` counts it: HBase reports the active
//! master, the backup masters, the live servers and the dead ones. In Strata every live
//! server campaigns for master, so each live server other than the master is a backup
//! master; a server is dead, as far as one server knows, while the region directory still
//! names it as the owner of a region though it is no longer live.

/// The members of a cluster as this server last saw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterMembers {
    /// Live servers' ids.
    pub live: Vec<String>,
    /// The master's id, if one is known.
    pub master: Option<String>,
    /// Servers known to be dead (owners of regions that are not live), by id.
    pub dead: Vec<String>,
}

/// HBase's `status` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerCounts {
    pub active_masters: usize,
    pub backup_masters: usize,
    pub servers: usize,
    pub dead: usize,
}

impl ServerCounts {
    /// A standalone server: its own master and only server.
    pub const STANDALONE: ServerCounts = ServerCounts {
        active_masters: 1,
        backup_masters: 0,
        servers: 1,
        dead: 0,
    };

    /// The counts of a cluster's members: a master counts as active only while it is
    /// live (its lease may have ended before the next election).
    pub fn of(members: &ClusterMembers) -> ServerCounts {
        let master_live = members
            .master
            .as_ref()
            .is_some_and(|m| members.live.contains(m));
        let active_masters = usize::from(master_live);
        ServerCounts {
            active_masters,
            backup_masters: members.live.len() - active_masters,
            servers: members.live.len(),
            dead: members.dead.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn every_live_server_but_the_master_is_a_backup() {
        let members = ClusterMembers {
            live: ids(&["s1", "s2", "s3"]),
            master: Some("s2".into()),
            dead: Vec::new(),
        };
        let counts = ServerCounts::of(&members);
        assert_eq!(
            counts,
            ServerCounts {
                active_masters: 1,
                backup_masters: 2,
                servers: 3,
                dead: 0
            }
        );
    }

    #[test]
    fn a_master_that_is_not_live_is_not_active_and_dead_servers_count() {
        let members = ClusterMembers {
            live: ids(&["s1", "s3"]),
            master: Some("s2".into()),
            dead: ids(&["s2"]),
        };
        let counts = ServerCounts::of(&members);
        assert_eq!((counts.active_masters, counts.backup_masters), (0, 2));
        assert_eq!((counts.servers, counts.dead), (2, 1));
        let nobody = ServerCounts::of(&ClusterMembers::default());
        assert_eq!(nobody.servers + nobody.active_masters, 0);
    }
}
