//! Namespaces: create, modify, delete, describe, list. A descriptor's configuration is kept
//! as the client gave it; Strata itself reads none of it yet (quotas come with issue 29).

use bytes::Bytes;
use strata_server::catalog::NamespaceConfig;

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;

/// Runs one change.
pub fn change(ctx: &Context, call: &Call) -> Result<(), RemoteException> {
    match call.method.as_str() {
        "CreateNamespace" => {
            let request: pb::CreateNamespaceRequest = call.param()?;
            let descriptor = request.namespace_descriptor;
            let name = name(&descriptor.name)?;
            let config = configuration(descriptor.configuration);
            Ok(ctx.service.admin().create_namespace_with(&name, config)?)
        }
        "DeleteNamespace" => {
            let request: pb::NamespaceNameRequest = call.param()?;
            Ok(ctx
                .service
                .admin()
                .drop_namespace(&request.namespace_name)?)
        }
        "ModifyNamespace" => {
            let request: pb::CreateNamespaceRequest = call.param()?;
            let descriptor = request.namespace_descriptor;
            let name = name(&descriptor.name)?;
            let config = configuration(descriptor.configuration);
            Ok(ctx.service.admin().modify_namespace(&name, config)?)
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

/// The configuration pairs of a descriptor; a name given twice keeps its last value, as
/// HBase's descriptor builder does.
fn configuration(pairs: Vec<pb::NameStringPair>) -> NamespaceConfig {
    pairs.into_iter().map(|p| (p.name, p.value)).collect()
}

fn descriptor(ctx: &Context, name: &str) -> Result<pb::NamespaceDescriptor, RemoteException> {
    let config = ctx.service.admin().namespace_config(name)?;
    Ok(pb::NamespaceDescriptor {
        name: Bytes::copy_from_slice(name.as_bytes()),
        configuration: config
            .into_iter()
            .map(|(name, value)| pb::NameStringPair { name, value })
            .collect(),
    })
}

/// Serves the listings.
pub fn read(ctx: &Context, call: &Call) -> CallResult {
    let mut namespaces = ctx.service.admin().list_namespaces();
    namespaces.sort();
    match call.method.as_str() {
        "GetNamespaceDescriptor" => {
            let request: pb::NamespaceNameRequest = call.param()?;
            Ok(Reply::message(&pb::GetNamespaceDescriptorResponse {
                namespace_descriptor: descriptor(ctx, &request.namespace_name)?,
            }))
        }
        "ListNamespaceDescriptors" => Ok(Reply::message(&pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: namespaces
                .iter()
                .map(|n| descriptor(ctx, n))
                .collect::<Result<_, _>>()?,
        })),
        _ => Ok(Reply::message(&pb::ListNamespacesResponse {
            namespace_name: namespaces,
        })),
    }
}
