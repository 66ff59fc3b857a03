//! Grants, revokes and listings of HBase's permissions: Thrift1's own `grant` and `revoke`
//! (table or namespace scope, as HBase's Thrift server has them) and Strata's extensions,
//! which reach every scope (global, namespace, table, family, qualifier) for `strata shell`.

use pilota::FastStr;
use strata_access::{Actions, Grant, Scope, Subject, TableScope};
use strata_server::Service;

use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::{
    TAccessControlEntity, TPermissionScope, TStrataPermission, Text,
};
use crate::ops::table_name;

/// HBase's Thrift1 `grant`: the actions replace what the user held at the scope.
pub fn grant_entity(service: &Service, entity: &TAccessControlEntity) -> CallResult<bool> {
    let grant = grant_of_entity(entity)?;
    service.admin().grant(grant, false).map_err(from_service)?;
    Ok(true)
}

/// HBase's Thrift1 `revoke`.
pub fn revoke_entity(service: &Service, entity: &TAccessControlEntity) -> CallResult<bool> {
    let grant = grant_of_entity(entity)?;
    service
        .admin()
        .revoke(&grant.subject, &grant.scope, grant.actions)
        .map_err(from_service)?;
    Ok(true)
}

fn grant_of_entity(entity: &TAccessControlEntity) -> CallResult<Grant> {
    let subject = subject(&entity.username)?;
    let scope = match entity.scope {
        TPermissionScope::TABLE => {
            let name = entity
                .table_name
                .as_ref()
                .ok_or_else(|| Failure::illegal("a TABLE grant names no tableName"))?;
            let name = table_name(name)?;
            Scope::Table(TableScope::table(&name.namespace, &name.name))
        }
        TPermissionScope::NAMESPACE => {
            let ns = entity
                .ns_name
                .as_ref()
                .ok_or_else(|| Failure::illegal("a NAMESPACE grant names no nsName"))?;
            Scope::Namespace(ns.to_string())
        }
        other => {
            return Err(Failure::illegal(format!(
                "unknown permission scope {other:?}"
            )))
        }
    };
    let actions = Actions::parse(&entity.actions).map_err(|e| Failure::illegal(e.to_string()))?;
    Ok(Grant {
        subject,
        scope,
        actions,
    })
}

/// Strata's `strataGrant`.
pub fn grant(service: &Service, permission: &TStrataPermission, merge: bool) -> CallResult<()> {
    let grant = grant_of(permission, true)?;
    service.admin().grant(grant, merge).map_err(from_service)
}

/// Strata's `strataRevoke`: no actions revokes them all.
pub fn revoke(service: &Service, permission: &TStrataPermission) -> CallResult<()> {
    let grant = grant_of(permission, false)?;
    service
        .admin()
        .revoke(&grant.subject, &grant.scope, grant.actions)
        .map_err(from_service)
}

/// Strata's `strataUserPermissions`: the grants HBase lists at the scope given (global
/// when none), of the user given (every user when none).
pub fn user_permissions(
    service: &Service,
    scope: &TStrataPermission,
) -> CallResult<Vec<TStrataPermission>> {
    let asked = scope_of(scope)?;
    let user = scope.user.as_deref().map(subject).transpose()?;
    let grants = service
        .admin()
        .user_permissions(&asked)
        .map_err(from_service)?;
    Ok(grants
        .into_iter()
        .filter(|g| user.as_ref().is_none_or(|u| &g.subject == u))
        .map(|g| to_thrift(&g))
        .collect())
}

fn grant_of(permission: &TStrataPermission, actions_needed: bool) -> CallResult<Grant> {
    let user = permission
        .user
        .as_deref()
        .ok_or_else(|| Failure::illegal("a permission names no user"))?;
    let actions = match permission.actions.as_deref() {
        Some(letters) if !letters.is_empty() => {
            Actions::parse(letters).map_err(|e| Failure::illegal(e.to_string()))?
        }
        _ if actions_needed => {
            return Err(Failure::illegal(
                "a grant names no permissions (letters of RWXCA)",
            ))
        }
        _ => Actions::NONE,
    };
    Ok(Grant {
        subject: subject(user)?,
        scope: scope_of(permission)?,
        actions,
    })
}

fn scope_of(permission: &TStrataPermission) -> CallResult<Scope> {
    let non_empty = |b: &Option<Text>| b.as_ref().filter(|b| !b.0.is_empty()).map(|b| b.0.to_vec());
    match (&permission.table_name, &permission.namespace_name) {
        (Some(table), _) if !table.0.is_empty() => {
            let name = table_name(&table.0)?;
            let mut scope = TableScope::table(&name.namespace, &name.name);
            scope.family = non_empty(&permission.family);
            scope.qualifier = non_empty(&permission.qualifier);
            if scope.family.is_none() && scope.qualifier.is_some() {
                return Err(Failure::illegal("a qualifier permission needs its family"));
            }
            Ok(Scope::Table(scope))
        }
        (_, Some(ns)) if !ns.is_empty() => Ok(Scope::Namespace(ns.to_string())),
        _ => Ok(Scope::Global),
    }
}

fn subject(name: &str) -> CallResult<Subject> {
    Subject::parse(name)
        .ok_or_else(|| Failure::illegal(format!("{name:?} is not a user or @group")))
}

fn to_thrift(grant: &Grant) -> TStrataPermission {
    let mut permission = TStrataPermission {
        user: Some(FastStr::from(grant.subject.to_string())),
        actions: Some(FastStr::from(grant.actions.to_string())),
        ..Default::default()
    };
    match &grant.scope {
        Scope::Global => {}
        Scope::Namespace(ns) => permission.namespace_name = Some(FastStr::from(ns.clone())),
        Scope::Table(t) => {
            let name = strata_server::TableName {
                namespace: t.namespace.clone(),
                name: t.table.clone(),
            };
            permission.table_name = Some(Text(pilota::Bytes::from(name.to_string().into_bytes())));
            permission.family = t.family.clone().map(|f| Text(pilota::Bytes::from(f)));
            permission.qualifier = t.qualifier.clone().map(|q| Text(pilota::Bytes::from(q)));
        }
    }
    permission
}
