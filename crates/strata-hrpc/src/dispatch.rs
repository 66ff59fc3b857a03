//! From a connection's service and a call's method to its handler. The service is chosen
//! once per connection by its header, so one port is master and region server at once.

use crate::call::{Call, CallResult};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::{client, master, registry};

/// The services a connection header may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceName {
    Client,
    Master,
    ClientMeta,
    Admin,
}

impl ServiceName {
    pub fn parse(name: &str) -> Option<ServiceName> {
        Some(match name {
            "ClientService" => ServiceName::Client,
            "MasterService" => ServiceName::Master,
            "ClientMetaService" => ServiceName::ClientMeta,
            "AdminService" => ServiceName::Admin,
            _ => return None,
        })
    }
}

/// Runs one call.
pub fn dispatch(ctx: &Context, service: ServiceName, call: &Call) -> CallResult {
    match service {
        ServiceName::Client => match call.method.as_str() {
            "Get" => client::get::serve(ctx, call),
            "Mutate" => client::mutate::serve(ctx, call),
            "Scan" => client::scan::serve(ctx, call),
            "Multi" => client::multi::serve(ctx, call),
            other => Err(unsupported("ClientService", other)),
        },
        ServiceName::Master => master::serve(ctx, call),
        ServiceName::ClientMeta => registry::serve(ctx, call),
        ServiceName::Admin => Err(unsupported("AdminService", &call.method)),
    }
}

fn unsupported(service: &str, method: &str) -> RemoteException {
    RemoteException::invalid(format!("{service}.{method} is not supported by Strata"))
}
