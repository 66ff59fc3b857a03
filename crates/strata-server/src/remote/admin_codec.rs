//! The bytes of an [`AdminRequest`] and an [`AdminReply`] as the internal RPC carries them
//! (`strata.peer.v1.Peer/Admin`). A version byte, a tag byte naming the call, then its
//! fields as varints and length-prefixed bytes; families are encoded exactly as in a
//! catalog table record, at that record's current version. Layout: docs/format.md,
//! "Internal RPC". Malformed bytes are an `InvalidArgument` naming what is wrong.

use bytes::Bytes;
use strata_engine::codec::{put_len_prefixed, put_varint, Decoder};

use super::admin::{AdminReply, AdminRequest};
use crate::catalog::codec::{
    durability_code, durability_of_code, get_family, get_metadata, put_family, put_metadata,
    RECORD_VERSION,
};
use crate::catalog::{
    decode_grants, decode_namespace, encode_grants, encode_namespace, NamespaceConfig,
};
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::table_changes::{AlterOp, SplitAt};

/// The version written and the only one read. Version 2: families at catalog record
/// version 6 (with their metadata), the table's metadata after a create's durability, and
/// alter code 4 (set the table's metadata). Version 3: a namespace's configuration after
/// its name in tag 1, tag 18 (modify a namespace) and tag 19 (is the balancer on).
const ADMIN_VERSION: u8 = 3;

fn put_text(buf: &mut Vec<u8>, text: &str) {
    put_len_prefixed(buf, text.as_bytes());
}

fn put_table(buf: &mut Vec<u8>, table: &TableName) {
    put_text(buf, &table.to_string());
}

/// Encodes an administration request.
pub fn encode_request(request: &AdminRequest) -> Vec<u8> {
    let mut buf = vec![ADMIN_VERSION];
    match request {
        AdminRequest::CreateNamespace(ns, config) => {
            buf.push(1);
            put_text(&mut buf, ns);
            put_len_prefixed(&mut buf, &encode_namespace(config));
        }
        AdminRequest::ModifyNamespace(ns, config) => {
            buf.push(18);
            put_text(&mut buf, ns);
            put_len_prefixed(&mut buf, &encode_namespace(config));
        }
        AdminRequest::DropNamespace(ns) => {
            buf.push(2);
            put_text(&mut buf, ns);
        }
        AdminRequest::Grant { grant, merge } => {
            buf.push(20);
            put_len_prefixed(&mut buf, &encode_grants(std::slice::from_ref(grant)));
            buf.push(u8::from(*merge));
        }
        AdminRequest::Revoke(grant) => {
            buf.push(21);
            put_len_prefixed(&mut buf, &encode_grants(std::slice::from_ref(grant)));
        }
        AdminRequest::CreateTable {
            name,
            families,
            split_keys,
            durability,
            metadata,
        } => {
            buf.push(3);
            put_table(&mut buf, name);
            put_varint(&mut buf, families.len() as u64);
            families.iter().for_each(|f| put_family(&mut buf, f));
            put_varint(&mut buf, split_keys.len() as u64);
            split_keys
                .iter()
                .for_each(|k| put_len_prefixed(&mut buf, k));
            buf.push(durability_code(*durability));
            put_metadata(&mut buf, metadata);
        }
        AdminRequest::DeleteTable(name) => table_call(&mut buf, 4, name),
        AdminRequest::EnableTable(name) => table_call(&mut buf, 5, name),
        AdminRequest::DisableTable(name) => table_call(&mut buf, 6, name),
        AdminRequest::AlterTable(name, op) => {
            table_call(&mut buf, 7, name);
            put_alter(&mut buf, op);
        }
        AdminRequest::TruncateTable {
            name,
            preserve_splits,
        } => {
            table_call(&mut buf, 8, name);
            buf.push(u8::from(*preserve_splits));
        }
        AdminRequest::SplitRegion { table, at } => {
            table_call(&mut buf, 9, table);
            match at {
                SplitAt::Region(id) => {
                    buf.push(0);
                    put_varint(&mut buf, *id);
                }
                SplitAt::Key(key) => {
                    buf.push(1);
                    put_len_prefixed(&mut buf, key);
                }
            }
        }
        AdminRequest::MergeRegions { table, a, b } => {
            table_call(&mut buf, 10, table);
            put_varint(&mut buf, *a);
            put_varint(&mut buf, *b);
        }
        AdminRequest::MoveRegion { region, target } => {
            buf.push(11);
            put_varint(&mut buf, *region);
            put_optional_text(&mut buf, target.as_deref());
        }
        AdminRequest::Balance => buf.push(12),
        AdminRequest::SetBalancer(on) => buf.extend([13, u8::from(*on)]),
        AdminRequest::BalancerEnabled => buf.push(19),
        AdminRequest::Decommission { server, on } => {
            buf.push(14);
            put_text(&mut buf, server);
            buf.push(u8::from(*on));
        }
        AdminRequest::ListDecommissioned => buf.push(15),
        AdminRequest::Assign(region) => {
            buf.push(16);
            put_varint(&mut buf, *region);
        }
        AdminRequest::Unassign(region) => {
            buf.push(17);
            put_varint(&mut buf, *region);
        }
    }
    buf
}

fn table_call(buf: &mut Vec<u8>, tag: u8, table: &TableName) {
    buf.push(tag);
    put_table(buf, table);
}

fn put_optional_text(buf: &mut Vec<u8>, text: Option<&str>) {
    match text {
        None => buf.push(0),
        Some(text) => {
            buf.push(1);
            put_text(buf, text);
        }
    }
}

fn put_alter(buf: &mut Vec<u8>, op: &AlterOp) {
    match op {
        AlterOp::AddFamily(f) => {
            buf.push(0);
            put_family(buf, f);
        }
        AlterOp::ModifyFamily(f) => {
            buf.push(1);
            put_family(buf, f);
        }
        AlterOp::DeleteFamily(name) => {
            buf.push(2);
            put_len_prefixed(buf, name);
        }
        AlterOp::SetDurability(d) => buf.extend([3, durability_code(*d)]),
        AlterOp::SetMetadata(metadata) => {
            buf.push(4);
            put_metadata(buf, metadata);
        }
    }
}

/// Decodes an administration request.
pub fn decode_request(bytes: &[u8]) -> Result<AdminRequest> {
    let mut d = Decoder::new(bytes);
    if d.u8() != Some(ADMIN_VERSION) {
        return Err(malformed("unknown version"));
    }
    let request = request_fields(&mut d).ok_or_else(|| malformed("truncated or invalid"))??;
    if !d.is_empty() {
        return Err(malformed("trailing bytes"));
    }
    Ok(request)
}

/// `None`: the bytes end early or hold an invalid code; `Some(Err)`: a bad table name.
fn request_fields(d: &mut Decoder) -> Option<Result<AdminRequest>> {
    let tag = d.u8()?;
    let request = match tag {
        1 => AdminRequest::CreateNamespace(text(d)?, namespace_config(d)?),
        18 => AdminRequest::ModifyNamespace(text(d)?, namespace_config(d)?),
        2 => AdminRequest::DropNamespace(text(d)?),
        3 => {
            let name = match table(d)? {
                Ok(name) => name,
                Err(e) => return Some(Err(e)),
            };
            let count = d.varint()?;
            let families = (0..count.min(1 << 16))
                .map(|_| get_family(d, RECORD_VERSION))
                .collect::<Option<Vec<_>>>()?;
            let count = d.varint()?;
            let split_keys = (0..count.min(1 << 20))
                .map(|_| d.len_prefixed().map(Bytes::copy_from_slice))
                .collect::<Option<Vec<_>>>()?;
            let durability = durability_of_code(d.u8()?)?;
            AdminRequest::CreateTable {
                name,
                families,
                split_keys,
                durability,
                metadata: get_metadata(d)?,
            }
        }
        4..=10 => return table_request(d, tag),
        11 => AdminRequest::MoveRegion {
            region: d.varint()?,
            target: optional_text(d)?,
        },
        12 => AdminRequest::Balance,
        13 => AdminRequest::SetBalancer(d.u8()? != 0),
        19 => AdminRequest::BalancerEnabled,
        14 => AdminRequest::Decommission {
            server: text(d)?,
            on: d.u8()? != 0,
        },
        15 => AdminRequest::ListDecommissioned,
        16 => AdminRequest::Assign(d.varint()?),
        17 => AdminRequest::Unassign(d.varint()?),
        20 => AdminRequest::Grant {
            grant: one_grant(d)?,
            merge: flag(d)?,
        },
        21 => AdminRequest::Revoke(one_grant(d)?),
        _ => return None,
    };
    Some(Ok(request))
}

fn flag(d: &mut Decoder) -> Option<bool> {
    match d.u8()? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

/// A grant or revoke's one grant, in the access-control record's encoding.
fn one_grant(d: &mut Decoder) -> Option<strata_access::Grant> {
    let mut grants = decode_grants(d.len_prefixed()?).ok()?;
    (grants.len() == 1).then(|| grants.pop()).flatten()
}

/// The calls on one table (tags 4 to 10).
fn table_request(d: &mut Decoder, tag: u8) -> Option<Result<AdminRequest>> {
    let name = match table(d)? {
        Ok(name) => name,
        Err(e) => return Some(Err(e)),
    };
    let request = match tag {
        4 => AdminRequest::DeleteTable(name),
        5 => AdminRequest::EnableTable(name),
        6 => AdminRequest::DisableTable(name),
        7 => AdminRequest::AlterTable(name, alter(d)?),
        8 => AdminRequest::TruncateTable {
            name,
            preserve_splits: d.u8()? != 0,
        },
        9 => {
            let at = match d.u8()? {
                0 => SplitAt::Region(d.varint()?),
                1 => SplitAt::Key(Bytes::copy_from_slice(d.len_prefixed()?)),
                _ => return None,
            };
            AdminRequest::SplitRegion { table: name, at }
        }
        10 => AdminRequest::MergeRegions {
            table: name,
            a: d.varint()?,
            b: d.varint()?,
        },
        _ => return None,
    };
    Some(Ok(request))
}

fn alter(d: &mut Decoder) -> Option<AlterOp> {
    Some(match d.u8()? {
        0 => AlterOp::AddFamily(get_family(d, RECORD_VERSION)?),
        1 => AlterOp::ModifyFamily(get_family(d, RECORD_VERSION)?),
        2 => AlterOp::DeleteFamily(Bytes::copy_from_slice(d.len_prefixed()?)),
        3 => AlterOp::SetDurability(durability_of_code(d.u8()?)?),
        4 => AlterOp::SetMetadata(get_metadata(d)?),
        _ => return None,
    })
}

fn text(d: &mut Decoder) -> Option<String> {
    String::from_utf8(d.len_prefixed()?.to_vec()).ok()
}

fn optional_text(d: &mut Decoder) -> Option<Option<String>> {
    match d.u8()? {
        0 => Some(None),
        1 => text(d).map(Some),
        _ => None,
    }
}

fn namespace_config(d: &mut Decoder) -> Option<NamespaceConfig> {
    decode_namespace(d.len_prefixed()?).ok()
}

fn table(d: &mut Decoder) -> Option<Result<TableName>> {
    Some(TableName::parse(&text(d)?))
}

/// Encodes an administration reply.
pub fn encode_reply(reply: &AdminReply) -> Vec<u8> {
    let mut buf = vec![ADMIN_VERSION];
    match reply {
        AdminReply::Done => buf.push(0),
        AdminReply::Number(n) => {
            buf.push(1);
            put_varint(&mut buf, *n);
        }
        AdminReply::Pair(a, b) => {
            buf.push(2);
            put_varint(&mut buf, *a);
            put_varint(&mut buf, *b);
        }
        AdminReply::Flag(f) => buf.extend([3, u8::from(*f)]),
        AdminReply::Text(t) => {
            buf.push(4);
            put_text(&mut buf, t);
        }
        AdminReply::Texts(texts) => {
            buf.push(5);
            put_varint(&mut buf, texts.len() as u64);
            texts.iter().for_each(|t| put_text(&mut buf, t));
        }
    }
    buf
}

/// Decodes an administration reply.
pub fn decode_reply(bytes: &[u8]) -> Result<AdminReply> {
    let mut d = Decoder::new(bytes);
    if d.u8() != Some(ADMIN_VERSION) {
        return Err(malformed("unknown reply version"));
    }
    let reply = reply_fields(&mut d).ok_or_else(|| malformed("truncated or invalid reply"))?;
    if !d.is_empty() {
        return Err(malformed("trailing bytes after the reply"));
    }
    Ok(reply)
}

fn reply_fields(d: &mut Decoder) -> Option<AdminReply> {
    Some(match d.u8()? {
        0 => AdminReply::Done,
        1 => AdminReply::Number(d.varint()?),
        2 => AdminReply::Pair(d.varint()?, d.varint()?),
        3 => AdminReply::Flag(d.u8()? != 0),
        4 => AdminReply::Text(text(d)?),
        5 => {
            let count = d.varint()?;
            let texts = (0..count.min(1 << 20))
                .map(|_| text(d))
                .collect::<Option<Vec<_>>>()?;
            AdminReply::Texts(texts)
        }
        _ => return None,
    })
}

fn malformed(what: &str) -> ServiceError {
    ServiceError::InvalidArgument(format!("malformed administration message: {what}"))
}
