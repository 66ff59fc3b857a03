//! `strata cluster status --etcd URL --cluster NAME`: a cluster's servers, master and
//! regions, read from etcd (no server needs to be up).

use clap::Subcommand;
use strata_cluster::ClusterStatus;

/// Cluster tools.
#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Show the servers, the master, and every region with its owner and epoch.
    Status {
        /// etcd endpoints, comma-separated.
        #[arg(long)]
        etcd: String,
        /// The cluster's name.
        #[arg(long)]
        cluster: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a cluster tool.
pub fn run(command: ClusterCommand) -> Result<(), String> {
    match command {
        ClusterCommand::Status {
            etcd,
            cluster,
            json,
        } => {
            let status = ClusterStatus::read(&etcd, &cluster).map_err(|e| e.to_string())?;
            if json {
                let text = serde_json::to_string_pretty(&status).map_err(|e| e.to_string())?;
                println!("{text}");
            } else {
                print!("{}", status.render());
            }
            Ok(())
        }
    }
}
