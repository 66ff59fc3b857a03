//! MasterService's access-control calls (HBase 2.6 moved them there from the coprocessor
//! endpoint): `Grant`, `Revoke`, `GetUserPermissions` and `HasUserPermissions`, over the
//! service's grants. HBase's `Admin.grant`, `AccessControlClient` and its shell's
//! `grant`, `revoke` and `user_permission` reach these.

use bytes::Bytes;
use strata_access::{Action, Actions, Grant, Scope, Subject, TableScope};

use super::schema::{table_name, table_name_proto};
use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::pb::permission::{Action as PbAction, Type as PbType};

/// Serves one of the four calls.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let admin = ctx.service.admin();
    match call.method.as_str() {
        "Grant" => {
            let request: pb::GrantRequest = call.param()?;
            let grant = grant_of(&request.user_permission)?;
            admin.grant(grant, request.merge_existing_permissions())?;
            Ok(Reply::message(&pb::GrantResponse {}))
        }
        "Revoke" => {
            let request: pb::RevokeRequest = call.param()?;
            let grant = grant_of(&request.user_permission)?;
            admin.revoke(&grant.subject, &grant.scope, grant.actions)?;
            Ok(Reply::message(&pb::RevokeResponse {}))
        }
        "GetUserPermissions" => {
            let request: pb::GetUserPermissionsRequest = call.param()?;
            let user = request.user_name.as_deref().map(subject_of).transpose()?;
            let scope = listing_scope(&request)?;
            let grants = admin.user_permissions(&scope)?;
            let listed = grants
                .iter()
                .filter(|g| user.as_ref().is_none_or(|u| &g.subject == u))
                .map(user_permission_of)
                .collect();
            Ok(Reply::message(&pb::GetUserPermissionsResponse {
                user_permission: listed,
            }))
        }
        "HasUserPermissions" => has_user_permissions(ctx, call),
        other => Err(RemoteException::invalid(format!(
            "unknown permission call {other}"
        ))),
    }
}

/// HBase answers whether the user (the caller when none is named) holds each permission.
fn has_user_permissions(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::HasUserPermissionsRequest = call.param()?;
    let caller = strata_server::access::current();
    let user = match request.user_name.as_deref() {
        Some(name) if !name.is_empty() => text(name, "user name")?,
        _ => caller.name().to_string(),
    };
    if user != caller.name() {
        // Asking about someone else is an administrator's question (global ADMIN).
        ctx.service.access().require_admin(
            strata_access::AdminOp::GetUserPermissions,
            strata_access::Target::Cluster,
        )?;
    }
    let who = strata_access::Identity::user(&user);
    let rules = ctx.service.access().rules();
    let superuser = ctx
        .service
        .access()
        .config()
        .superusers
        .contains(&Subject::User(user.clone()));
    let answers = request
        .permission
        .iter()
        .map(|p| {
            let (scope, actions) = permission_of(p)?;
            let holds = |a| {
                rules
                    .require(&who, "hasUserPermissions", &scope, &[a])
                    .is_ok()
            };
            Ok(superuser || actions.iter().all(holds))
        })
        .collect::<Result<Vec<bool>, RemoteException>>()?;
    Ok(Reply::message(&pb::HasUserPermissionsResponse {
        has_user_permission: answers,
    }))
}

fn listing_scope(request: &pb::GetUserPermissionsRequest) -> Result<Scope, RemoteException> {
    Ok(match request.r#type() {
        PbType::Global => Scope::Global,
        PbType::Namespace => {
            let ns = request.namespace_name.as_deref().unwrap_or_default();
            Scope::Namespace(text(ns, "namespace")?)
        }
        PbType::Table => {
            let name = request
                .table_name
                .as_ref()
                .ok_or_else(|| RemoteException::invalid("a table listing names no table"))?;
            let mut table = table_scope(name)?;
            table.family = request
                .column_family
                .as_ref()
                .filter(|f| !f.is_empty())
                .map(|f| f.to_vec());
            table.qualifier = request
                .column_qualifier
                .as_ref()
                .filter(|q| !q.is_empty())
                .map(|q| q.to_vec());
            Scope::Table(table)
        }
    })
}

fn grant_of(user_permission: &pb::UserPermission) -> Result<Grant, RemoteException> {
    let subject = subject_of(&user_permission.user)?;
    let (scope, actions) = permission_of(&user_permission.permission)?;
    Ok(Grant {
        subject,
        scope,
        actions,
    })
}

fn permission_of(permission: &pb::Permission) -> Result<(Scope, Actions), RemoteException> {
    let missing =
        |what: &str| RemoteException::invalid(format!("a {what} permission without its fields"));
    match permission.r#type() {
        PbType::Global => {
            let p = permission
                .global_permission
                .as_ref()
                .ok_or_else(|| missing("global"))?;
            Ok((Scope::Global, actions_of(&p.action)?))
        }
        PbType::Namespace => {
            let p = permission
                .namespace_permission
                .as_ref()
                .ok_or_else(|| missing("namespace"))?;
            let ns = text(p.namespace_name.as_deref().unwrap_or_default(), "namespace")?;
            Ok((Scope::Namespace(ns), actions_of(&p.action)?))
        }
        PbType::Table => {
            let p = permission
                .table_permission
                .as_ref()
                .ok_or_else(|| missing("table"))?;
            let name = p.table_name.as_ref().ok_or_else(|| missing("table"))?;
            let mut table = table_scope(name)?;
            table.family = p
                .family
                .as_ref()
                .filter(|f| !f.is_empty())
                .map(|f| f.to_vec());
            table.qualifier = p
                .qualifier
                .as_ref()
                .filter(|q| !q.is_empty())
                .map(|q| q.to_vec());
            if table.family.is_none() && table.qualifier.is_some() {
                return Err(RemoteException::invalid(
                    "a qualifier permission needs its family",
                ));
            }
            Ok((Scope::Table(table), actions_of(&p.action)?))
        }
    }
}

fn actions_of(codes: &[i32]) -> Result<Actions, RemoteException> {
    codes
        .iter()
        .map(|&code| match PbAction::try_from(code) {
            Ok(PbAction::Read) => Ok(Action::Read),
            Ok(PbAction::Write) => Ok(Action::Write),
            Ok(PbAction::Exec) => Ok(Action::Exec),
            Ok(PbAction::Create) => Ok(Action::Create),
            Ok(PbAction::Admin) => Ok(Action::Admin),
            Err(_) => Err(RemoteException::invalid(format!(
                "unknown permission action {code}"
            ))),
        })
        .collect()
}

fn action_codes(actions: Actions) -> Vec<i32> {
    actions
        .iter()
        .map(|a| match a {
            Action::Read => PbAction::Read,
            Action::Write => PbAction::Write,
            Action::Exec => PbAction::Exec,
            Action::Create => PbAction::Create,
            Action::Admin => PbAction::Admin,
        } as i32)
        .collect()
}

fn user_permission_of(grant: &Grant) -> pb::UserPermission {
    let actions = action_codes(grant.actions);
    let mut permission = pb::Permission::default();
    match &grant.scope {
        Scope::Global => {
            permission.set_type(PbType::Global);
            permission.global_permission = Some(pb::GlobalPermission { action: actions });
        }
        Scope::Namespace(ns) => {
            permission.set_type(PbType::Namespace);
            permission.namespace_permission = Some(pb::NamespacePermission {
                namespace_name: Some(Bytes::copy_from_slice(ns.as_bytes())),
                action: actions,
            });
        }
        Scope::Table(t) => {
            permission.set_type(PbType::Table);
            let name = strata_server::TableName {
                namespace: t.namespace.clone(),
                name: t.table.clone(),
            };
            permission.table_permission = Some(pb::TablePermission {
                table_name: Some(table_name_proto(&name)),
                family: t.family.as_deref().map(Bytes::copy_from_slice),
                qualifier: t.qualifier.as_deref().map(Bytes::copy_from_slice),
                action: actions,
            });
        }
    }
    pb::UserPermission {
        user: Bytes::copy_from_slice(grant.subject.to_string().as_bytes()),
        permission,
    }
}

fn table_scope(name: &pb::TableName) -> Result<TableScope, RemoteException> {
    let name = table_name(name)?;
    Ok(TableScope::table(&name.namespace, &name.name))
}

fn subject_of(user: &[u8]) -> Result<Subject, RemoteException> {
    Subject::parse(&text(user, "user name")?)
        .ok_or_else(|| RemoteException::invalid("a permission names no user"))
}

fn text(bytes: &[u8], what: &str) -> Result<String, RemoteException> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| RemoteException::invalid(format!("the {what} is not UTF-8")))
}
