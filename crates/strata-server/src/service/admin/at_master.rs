//! The shell's cluster administration (`ClusterAdmin`) on a server that is not master:
//! every call is sent to the master (`remote/admin.rs`).

use std::sync::Arc;

use crate::error::{Result, ServiceError};
use crate::registry::ClusterAdmin;
use crate::remote::{not_master, send_to_master, AdminReply, AdminRequest, MasterLink};

/// The shell's cluster administration on a server that is not master: each call is
/// carried out by the master.
#[derive(Debug)]
pub(super) struct AdminAtMaster(pub(super) Arc<dyn MasterLink>);

impl AdminAtMaster {
    fn send(&self, request: AdminRequest) -> Result<AdminReply> {
        send_to_master(&*self.0, &request).unwrap_or_else(|| {
            Err(ServiceError::InvalidArgument(
                "this server became master while the request was on its way; send it again".into(),
            ))
        })
    }
}

impl ClusterAdmin for AdminAtMaster {
    fn move_region(&self, region: u64, target: Option<&str>) -> Result<String> {
        let target = target.map(str::to_string);
        self.send(AdminRequest::MoveRegion { region, target })?
            .text()
    }

    fn balance(&self) -> Result<usize> {
        let moved = self.send(AdminRequest::Balance)?.number()?;
        Ok(usize::try_from(moved).unwrap_or(usize::MAX))
    }

    fn set_balancer(&self, on: bool) -> Result<bool> {
        self.send(AdminRequest::SetBalancer(on))?.flag()
    }

    fn balancer_enabled(&self) -> Result<bool> {
        self.send(AdminRequest::BalancerEnabled)?.flag()
    }

    fn decommission(&self, server: &str, on: bool) -> Result<usize> {
        let server = server.to_string();
        let moved = self
            .send(AdminRequest::Decommission { server, on })?
            .number()?;
        Ok(usize::try_from(moved).unwrap_or(usize::MAX))
    }

    fn decommissioned(&self) -> Result<Vec<String>> {
        self.send(AdminRequest::ListDecommissioned)?.texts()
    }

    fn unassign(&self, region: u64) -> Result<()> {
        self.send(AdminRequest::Unassign(region))?.done()
    }

    fn assign(&self, region: u64) -> Result<String> {
        self.send(AdminRequest::Assign(region))?.text()
    }

    fn take_region(&self, _region: u64) -> Result<()> {
        // Splits and merges are sent to the master whole; only the master takes regions.
        Err(not_master())
    }
}
