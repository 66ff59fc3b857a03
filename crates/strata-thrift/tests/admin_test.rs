//! Table administration over Thrift, in all four transport/protocol combinations.

mod common;

use common::*;
use strata_thrift::gen::volo_gen::hbase::*;
use volo_thrift::MaybeException;

fn cd(name: &str) -> ColumnDescriptor {
    ColumnDescriptor {
        name: t(name),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transport_and_protocol_on_one_port() {
    let server = TestServer::start().await;
    for (i, (framed, compact)) in [(false, false), (false, true), (true, false), (true, true)]
        .into_iter()
        .enumerate()
    {
        let c = server.client(framed, compact);
        let name = format!("t{i}");
        // Descriptors carry bool fields: framed+compact used to die on them (see compact.rs).
        let r = c.create_table(t(&name), Some(vec![cd("cf:")])).await;
        assert!(
            matches!(r, Ok(MaybeException::Ok(()))),
            "framed={framed} compact={compact}"
        );
        let r = c.is_table_enabled(by(&name)).await;
        assert!(
            matches!(r, Ok(MaybeException::Ok(true))),
            "framed={framed} compact={compact}"
        );
        let MaybeException::Ok(names) = c.get_table_names().await.unwrap() else {
            panic!("getTableNames failed")
        };
        assert!(names.iter().any(|n| s(n) == name), "{framed} {compact}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_lifecycle_and_descriptors() {
    let server = TestServer::start().await;
    let c = server.client(false, false);
    let families = vec![
        cd("plain"),
        ColumnDescriptor {
            name: t("tuned:"),
            max_versions: Some(5),
            compression: Some("LZ4".into()),
            in_memory: Some(true),
            bloom_filter_type: Some("ROW".into()),
            block_cache_enabled: Some(true),
            time_to_live: Some(600),
            ..Default::default()
        },
    ];
    c.create_table(t("life"), Some(families.clone()))
        .await
        .unwrap();
    // A second create is AlreadyExists, and the connection still works afterwards.
    let again = c.create_table(t("life"), Some(families)).await.unwrap();
    assert!(matches!(
        again,
        MaybeException::Exception(HbaseCreateTableException::Exist(_))
    ));
    let MaybeException::Ok(d) = c.get_column_descriptors(t("life")).await.unwrap() else {
        panic!()
    };
    let plain = &d[&text("plain:")];
    assert_eq!(plain.max_versions, Some(3));
    assert_eq!(plain.compression.as_deref(), Some("NONE"));
    assert_eq!(plain.bloom_filter_type.as_deref(), Some("NONE"));
    assert_eq!(plain.block_cache_enabled, Some(false));
    assert_eq!(plain.time_to_live, Some(i32::MAX));
    let tuned = &d[&text("tuned:")];
    assert_eq!(tuned.max_versions, Some(5));
    assert_eq!(tuned.compression.as_deref(), Some("LZ4"));
    assert_eq!(tuned.in_memory, Some(true));
    assert_eq!(tuned.bloom_filter_type.as_deref(), Some("ROW"));
    assert_eq!(tuned.time_to_live, Some(600));

    let MaybeException::Ok(regions) = c.get_table_regions(t("life")).await.unwrap() else {
        panic!()
    };
    assert_eq!(regions.len(), 1);
    let MaybeException::Ok(none) = c.get_table_regions(t("missing")).await.unwrap() else {
        panic!()
    };
    assert!(none.is_empty());

    assert!(matches!(
        c.is_table_enabled(by("life")).await.unwrap(),
        MaybeException::Ok(true)
    ));
    // Deleting an enabled table fails with IOError.
    assert!(matches!(
        c.delete_table(t("life")).await.unwrap(),
        MaybeException::Exception(HbaseDeleteTableException::Io(_))
    ));
    c.disable_table(by("life")).await.unwrap();
    assert!(matches!(
        c.is_table_enabled(by("life")).await.unwrap(),
        MaybeException::Ok(false)
    ));
    c.enable_table(by("life")).await.unwrap();
    c.compact(by("life")).await.unwrap();
    assert!(matches!(
        c.major_compact(by("life")).await.unwrap(),
        MaybeException::Ok(())
    ));
    c.disable_table(by("life")).await.unwrap();
    assert!(matches!(
        c.delete_table(t("life")).await.unwrap(),
        MaybeException::Ok(())
    ));
    let MaybeException::Ok(names) = c.get_table_names().await.unwrap() else {
        panic!()
    };
    assert!(names.is_empty());
    // Missing tables are IOError.
    assert!(matches!(
        c.get_column_descriptors(t("life")).await.unwrap(),
        MaybeException::Exception(HbaseGetColumnDescriptorsException::Io(_))
    ));
    // Bad descriptors are IllegalArgument.
    let bad = ColumnDescriptor {
        compression: Some("LZO".into()),
        ..cd("cf")
    };
    assert!(matches!(
        c.create_table(t("bad"), Some(vec![bad])).await.unwrap(),
        MaybeException::Exception(HbaseCreateTableException::Ia(_))
    ));
}
