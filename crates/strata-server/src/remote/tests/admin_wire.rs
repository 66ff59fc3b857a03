//! Every administration request and reply survives the wire encoding, and damaged bytes
//! are refused with an error, never a panic.

use strata_engine::fs::StoragePolicy;
use strata_engine::SchemaMetadata;

use super::*;
use crate::durability::WriteDurability;
use crate::table_changes::AlterOp;
use crate::table_changes::SplitAt;

fn metadata() -> SchemaMetadata {
    let mut m = SchemaMetadata::default();
    m.attributes
        .insert(Bytes::from("SPLIT_POLICY"), Bytes::from_static(b"a.B\xff"));
    m.configuration.insert("k".into(), "v".into());
    m
}

fn every_request() -> Vec<AdminRequest> {
    let name = TableName::parse("ns:t").unwrap();
    let mut family = FamilyOptions::new("cf");
    family.max_versions = 7;
    family.ttl_seconds = Some(60);
    family.storage_policy = Some(StoragePolicy::AllSsd);
    family.metadata = metadata();
    vec![
        AdminRequest::CreateNamespace("ns".into(), Default::default()),
        AdminRequest::CreateNamespace(
            "ns".into(),
            [(
                "hbase.namespace.quota.maxtables".to_string(),
                "5".to_string(),
            )]
            .into(),
        ),
        AdminRequest::ModifyNamespace("ns".into(), [("k".to_string(), String::new())].into()),
        AdminRequest::DropNamespace("ns".into()),
        AdminRequest::CreateTable {
            name: name.clone(),
            families: vec![family.clone(), FamilyOptions::new("b")],
            split_keys: vec![Bytes::from("a"), Bytes::from_static(b"\x00\xff")],
            durability: WriteDurability::AsyncWal,
            metadata: metadata(),
        },
        AdminRequest::DeleteTable(name.clone()),
        AdminRequest::EnableTable(name.clone()),
        AdminRequest::DisableTable(name.clone()),
        AdminRequest::AlterTable(name.clone(), AlterOp::AddFamily(family.clone())),
        AdminRequest::AlterTable(name.clone(), AlterOp::ModifyFamily(family)),
        AdminRequest::AlterTable(name.clone(), AlterOp::DeleteFamily(Bytes::from("cf"))),
        AdminRequest::AlterTable(
            name.clone(),
            AlterOp::SetDurability(WriteDurability::FsyncWal),
        ),
        AdminRequest::AlterTable(name.clone(), AlterOp::SetMetadata(metadata())),
        AdminRequest::TruncateTable {
            name: name.clone(),
            preserve_splits: true,
        },
        AdminRequest::SplitRegion {
            table: name.clone(),
            at: SplitAt::Region(12),
        },
        AdminRequest::SplitRegion {
            table: name.clone(),
            at: SplitAt::Key(Bytes::from("row")),
        },
        AdminRequest::MergeRegions {
            table: name,
            a: 3,
            b: u64::MAX,
        },
        AdminRequest::MoveRegion {
            region: 9,
            target: Some("s1".into()),
        },
        AdminRequest::MoveRegion {
            region: 9,
            target: None,
        },
        AdminRequest::Balance,
        AdminRequest::SetBalancer(true),
        AdminRequest::Decommission {
            server: "s3".into(),
            on: false,
        },
        AdminRequest::ListDecommissioned,
        AdminRequest::Assign(4),
        AdminRequest::Unassign(u64::MAX),
    ]
}

#[test]
fn every_request_round_trips() {
    for request in every_request() {
        let bytes = admin_codec::encode_request(&request);
        assert_eq!(admin_codec::decode_request(&bytes).unwrap(), request);
    }
}

#[test]
fn every_reply_round_trips() {
    let replies = [
        AdminReply::Done,
        AdminReply::Number(u64::MAX),
        AdminReply::Pair(1, 2),
        AdminReply::Flag(true),
        AdminReply::Text("s1".into()),
        AdminReply::Texts(vec!["a".into(), String::new()]),
    ];
    for reply in replies {
        let bytes = admin_codec::encode_reply(&reply);
        assert_eq!(admin_codec::decode_reply(&bytes).unwrap(), reply);
    }
}

#[test]
fn cut_or_extended_requests_are_refused() {
    for request in every_request() {
        let bytes = admin_codec::encode_request(&request);
        for cut in 0..bytes.len() {
            assert!(
                admin_codec::decode_request(&bytes[..cut]).is_err(),
                "{request:?} cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(admin_codec::decode_request(&longer).is_err());
        for version in [2, 4] {
            let mut other_version = bytes.clone();
            other_version[0] = version;
            assert!(admin_codec::decode_request(&other_version).is_err());
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if let Some(first) = bytes.first_mut() {
            *first = 1; // the version, so the decoder goes past it
        }
        let _ = admin_codec::decode_request(&bytes);
        let _ = admin_codec::decode_reply(&bytes);
    }
}
