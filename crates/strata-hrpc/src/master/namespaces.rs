//! Namespaces: create, delete, describe, list. Strata keeps no namespace configuration, so
//! a descriptor has a name only (and ModifyNamespace has nothing to change).

use bytes::Bytes;

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;

/// Runs one change.
pub fn change(ctx: &Context, call: &Call) -> Result<(), RemoteException> {
    match call.method.as_str() {
        "CreateNamespace" => {
            let request: pb::CreateNamespaceRequest = call.param()?;
            let name = name(&request.namespace_descriptor.name)?;
            Ok(ctx.service.create_namespace(&name)?)
        }
        "DeleteNamespace" => {
            let request: pb::NamespaceNameRequest = call.param()?;
            Ok(ctx.service.drop_namespace(&request.namespace_name)?)
        }
        "ModifyNamespace" => {
            let request: pb::CreateNamespaceRequest = call.param()?;
            let name = name(&request.namespace_descriptor.name)?;
            if !ctx.service.list_namespaces().contains(&name) {
                return Err(strata_server::ServiceError::NamespaceNotFound(name).into());
            }
            Ok(())
        }
        other => Err(RemoteException::invalid(format!(
            "unknown namespace change {other}"
        ))),
    }
}

fn name(bytes: &Bytes) -> Result<String, RemoteException> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| RemoteException::invalid("a namespace name must be UTF-8"))
}

fn descriptor(name: &str) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: Bytes::copy_from_slice(name.as_bytes()),
        configuration: Vec::new(),
    }
}

/// Serves the listings.
pub fn read(ctx: &Context, call: &Call) -> CallResult {
    let mut namespaces = ctx.service.list_namespaces();
    namespaces.sort();
    match call.method.as_str() {
        "GetNamespaceDescriptor" => {
            let request: pb::NamespaceNameRequest = call.param()?;
            if !namespaces.contains(&request.namespace_name) {
                return Err(
                    strata_server::ServiceError::NamespaceNotFound(request.namespace_name).into(),
                );
            }
            Ok(Reply::message(&pb::GetNamespaceDescriptorResponse {
                namespace_descriptor: descriptor(&request.namespace_name),
            }))
        }
        "ListNamespaceDescriptors" => Ok(Reply::message(&pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: namespaces.iter().map(|n| descriptor(n)).collect(),
        })),
        _ => Ok(Reply::message(&pb::ListNamespacesResponse {
            namespace_name: namespaces,
        })),
    }
}
