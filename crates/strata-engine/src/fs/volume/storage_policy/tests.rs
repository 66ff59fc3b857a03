use super::*;

#[test]
fn built_in_policies_keep_hbase_placement() {
    use FileCategory::*;
    assert_eq!(
        StoragePolicy::AllSsd.preferred(Compaction),
        StorageType::Ssd
    );
    assert_eq!(StoragePolicy::OneSsd.preferred(Flush), StorageType::Ssd);
    assert_eq!(
        StoragePolicy::OneSsd.preferred(Compaction),
        StorageType::Hdd
    );
    assert_eq!(StoragePolicy::Warm.preferred(Flush), StorageType::Ssd);
    assert_eq!(StoragePolicy::Warm.preferred(Wal), StorageType::Hdd);
    assert_eq!(StoragePolicy::LazyPersist.preferred(Wal), StorageType::Ram);
    assert_eq!(StoragePolicy::default(), StoragePolicy::Hot);
    assert_eq!(
        "one_ssd".parse::<StoragePolicy>().unwrap(),
        StoragePolicy::OneSsd
    );
}

#[test]
fn a_defined_policy_places_over_defined_types() {
    let nvme = StorageType::define("policy_test_nvme", false).unwrap();
    let types = PolicyTypes {
        wal: vec![nvme, StorageType::Ssd],
        flush: vec![nvme],
        compaction: vec![StorageType::Hdd],
        archive: Vec::new(),
    };
    let fast = StoragePolicy::define("POLICY_TEST_FAST", types.clone()).unwrap();
    assert_eq!(fast.preferred(FileCategory::Wal), nvme);
    assert_eq!(
        fast.storage_types(FileCategory::Wal),
        &[nvme, StorageType::Ssd]
    );
    assert_eq!(fast.preferred(FileCategory::Archive), StorageType::Hdd);
    assert_eq!("policy_test_fast".parse::<StoragePolicy>().unwrap(), fast);
    assert_eq!(
        StoragePolicy::define("POLICY_TEST_FAST", types).unwrap(),
        fast
    );
    let other = PolicyTypes {
        wal: vec![StorageType::Ssd],
        flush: vec![StorageType::Ssd],
        compaction: vec![StorageType::Ssd],
        archive: Vec::new(),
    };
    assert!(StoragePolicy::define("POLICY_TEST_FAST", other).is_err());
}

#[test]
fn bad_definitions_are_refused() {
    let one = vec![StorageType::Ssd];
    let types = |wal: Vec<StorageType>| PolicyTypes {
        wal,
        flush: one.clone(),
        compaction: one.clone(),
        archive: Vec::new(),
    };
    assert!(
        StoragePolicy::define("HOT", types(one.clone())).is_err(),
        "built in"
    );
    assert!(StoragePolicy::define("lower", types(one.clone())).is_err());
    assert!(StoragePolicy::define("", types(one.clone())).is_err());
    assert!(StoragePolicy::define("POLICY_TEST_EMPTY", types(Vec::new())).is_err());
    assert!("POLICY_TEST_NEVER".parse::<StoragePolicy>().is_err());
}

#[test]
fn a_recorded_name_not_defined_here_is_kept_and_places_like_hot() {
    let kept = StoragePolicy::named("POLICY_TEST_GONE").unwrap();
    assert_eq!(kept.name(), "POLICY_TEST_GONE");
    assert_eq!(
        kept.storage_types(FileCategory::Flush),
        StoragePolicy::Hot.storage_types(FileCategory::Flush)
    );
    // Still not a policy a user may set.
    assert!("POLICY_TEST_GONE".parse::<StoragePolicy>().is_err());
    assert_eq!(StoragePolicy::named("WARM").unwrap(), StoragePolicy::Warm);
}
