//! CPU tests of the attribute model: raw ids and value fields per kind, builder semantics, the
//! placement table as data, and run-time validation of limits.

use chevron_cuda_rules::kinds::{Position, ValueForm};
use chevron_cuda_runtime::*;
use cudarc::driver::sys::{self, CUlaunchAttributeID as Id};

fn only_attr(cfg: &LaunchConfig<'_>) -> sys::CUlaunchAttribute {
    let attrs = cfg.launch_attributes();
    assert_eq!(attrs.len(), 1, "expected exactly one launch attribute");
    attrs[0]
}

fn raw<A: LaunchAttribute>(attr: A) -> (Id, sys::CUlaunchAttributeValue)
where
    A::Since: Reached<A>,
{
    let a = only_attr(&LaunchConfig::new(1, 1).with(attr));
    (a.id, a.value)
}

#[test]
fn flags_map_to_their_ids_and_fields() {
    let (id, v) = raw(Cooperative);
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
    assert_eq!(unsafe { v.cooperative }, 1);

    let (id, v) = raw(ProgrammaticSerialization);
    assert_eq!(
        id,
        Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    );
    assert_eq!(unsafe { v.programmaticStreamSerializationAllowed }, 1);

    let (id, v) = raw(DeviceUpdatable);
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE);
    assert_eq!(unsafe { v.deviceUpdatableKernelNode.deviceUpdatable }, 1);
    assert!(unsafe { v.deviceUpdatableKernelNode.devNode }.is_null());

    let (id, v) = raw(NvlinkCentric);
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING);
    assert_eq!(unsafe { v.nvlinkUtilCentricScheduling }, 1);
}

#[test]
fn enums_map_to_the_driver_constants() {
    use sys::CUclusterSchedulingPolicy as C;
    use sys::CUlaunchMemSyncDomain as D;
    use sys::CUsynchronizationPolicy as P;
    for (policy, expect) in [
        (SyncPolicy::Auto, P::CU_SYNC_POLICY_AUTO),
        (SyncPolicy::Spin, P::CU_SYNC_POLICY_SPIN),
        (SyncPolicy::Yield, P::CU_SYNC_POLICY_YIELD),
        (SyncPolicy::BlockingSync, P::CU_SYNC_POLICY_BLOCKING_SYNC),
    ] {
        let cfg = LaunchConfig::new(1, 1).with_stream(policy);
        let (id, v) = cfg.stream_attributes()[0];
        assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY);
        assert_eq!(unsafe { v.syncPolicy }, expect);
        assert_eq!(SyncPolicy::from_stream_value(&v), Some(policy));
    }
    for (pref, expect) in [
        (
            ClusterScheduling::Default,
            C::CU_CLUSTER_SCHEDULING_POLICY_DEFAULT,
        ),
        (
            ClusterScheduling::Spread,
            C::CU_CLUSTER_SCHEDULING_POLICY_SPREAD,
        ),
        (
            ClusterScheduling::LoadBalancing,
            C::CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING,
        ),
    ] {
        let (id, v) = raw(pref);
        assert_eq!(
            id,
            Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
        );
        assert_eq!(unsafe { v.clusterSchedulingPolicyPreference }, expect);
    }
    for (domain, expect) in [
        (MemSyncDomain::Default, D::CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT),
        (MemSyncDomain::Remote, D::CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE),
    ] {
        let (id, v) = raw(domain);
        assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN);
        assert_eq!(unsafe { v.memSyncDomain }, expect);
        assert_eq!(MemSyncDomain::from_stream_value(&v), Some(domain));
    }
}

#[test]
fn values_map_to_their_fields() {
    let (id, v) = raw(ClusterDim::new(2, 3, 4));
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    let c = unsafe { v.clusterDim };
    assert_eq!((c.x, c.y, c.z), (2, 3, 4));

    let (id, v) = raw(PreferredClusterDim::from_dim((4, 3)));
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION);
    let c = unsafe { v.preferredClusterDim };
    assert_eq!((c.x, c.y, c.z), (4, 3, 1));

    let (id, v) = raw(Priority(-3));
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_PRIORITY);
    assert_eq!(unsafe { v.priority }, -3);
    assert_eq!(Priority::from_stream_value(&v), Some(Priority(-3)));

    let map = MemSyncDomainMap {
        default: 1,
        remote: 3,
    };
    let (id, v) = raw(map);
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP);
    let m = unsafe { v.memSyncDomainMap };
    assert_eq!((m.default_, m.remote), (1, 3));
    assert_eq!(MemSyncDomainMap::from_stream_value(&v), Some(map));

    let (id, v) = raw(SharedCarveout::percent(75));
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    assert_eq!(unsafe { v.sharedMemCarveout }, 75);

    let window = AccessPolicyWindow::new(0xdead_b000, 4096)
        .hit_ratio(0.25)
        .props(AccessProperty::Persisting, AccessProperty::Normal);
    let (id, v) = raw(window);
    assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
    let w = unsafe { v.accessPolicyWindow };
    assert_eq!(w.base_ptr as usize, 0xdead_b000);
    assert_eq!(w.num_bytes, 4096);
    assert_eq!(w.hitRatio, 0.25);
    assert_eq!(
        w.hitProp,
        sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING
    );
    assert_eq!(w.missProp, sys::CUaccessProperty::CU_ACCESS_PROPERTY_NORMAL);
    assert_eq!(AccessPolicyWindow::from_stream_value(&v), Some(window));
}

#[test]
fn unset_stream_values_decode_to_none() {
    // The driver reports a fresh stream's sync policy as -1.
    let mut pad = [0; 64];
    pad[..4].copy_from_slice(&[-1; 4]);
    let v = sys::CUstreamAttrValue { pad };
    assert_eq!(SyncPolicy::from_stream_value(&v), None);
    let zero = sys::CUstreamAttrValue { pad: [0; 64] };
    assert_eq!(AccessPolicyWindow::from_stream_value(&zero), None);
}

#[test]
fn with_replaces_a_kind_already_present() {
    let cfg = LaunchConfig::new(8, 32)
        .with(Priority(1))
        .with(Cooperative)
        .with(Priority(2))
        .with(ClusterDim::new(2, 1, 1))
        .with(ClusterDim::new(4, 1, 1));
    let ids: Vec<_> = cfg.launch_attributes().iter().map(|a| a.id).collect();
    assert_eq!(
        ids,
        [
            Id::CU_LAUNCH_ATTRIBUTE_PRIORITY,
            Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
            Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        ]
    );
    assert_eq!(unsafe { cfg.launch_attributes()[0].value.priority }, 2);
    assert_eq!(cfg.cluster(), Some(Dim3::new(4, 1, 1)));

    let cfg = cfg
        .with_stream(SyncPolicy::Spin)
        .with_stream(Priority(5))
        .with_stream(SyncPolicy::Yield);
    let stream: Vec<_> = cfg.stream_attributes().iter().map(|a| a.0).collect();
    assert_eq!(
        stream,
        [
            Id::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY,
            Id::CU_LAUNCH_ATTRIBUTE_PRIORITY
        ]
    );
    assert_eq!(
        SyncPolicy::from_stream_value(&cfg.stream_attributes()[0].1),
        Some(SyncPolicy::Yield)
    );
    // The same kind in both places is two different things: the launch keeps its own.
    assert_eq!(unsafe { cfg.launch_attributes()[0].value.priority }, 2);
}

#[test]
fn flags_can_be_switched_off_and_kinds_removed() {
    let cfg = LaunchConfig::new(1, 1)
        .with(Cooperative)
        .with(Priority(1))
        .with_flag(Cooperative, false);
    assert!(!cfg.has::<Cooperative>());
    assert!(cfg.has::<Priority>());
    let cfg = cfg
        .with_flag(ProgrammaticSerialization, true)
        .without::<Priority>();
    let ids: Vec<_> = cfg.launch_attributes().iter().map(|a| a.id).collect();
    assert_eq!(
        ids,
        [Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
    );
}

#[test]
fn every_kind_fits_at_once() {
    // The sample of every kind this build has (from the table, through each type's `sample`),
    // in every position a config holds. The event kinds need a GPU context to create an event;
    // the GPU tests cover them.
    let samples = Samples {
        event: None,
        window: (0x1000, 256),
    };
    let cfg = samples.fill(LaunchConfig::new(8, 32));
    let expected = |position: Position| -> Vec<u32> {
        KINDS
            .iter()
            .filter(|k| k.accepts(position) && k.form != ValueForm::Event)
            .map(|k| k.id)
            .collect()
    };
    let launch: Vec<u32> = cfg
        .launch_attributes()
        .iter()
        .map(|a| a.id as u32)
        .collect();
    let stream: Vec<u32> = cfg.stream_attributes().iter().map(|a| a.0 as u32).collect();
    assert_eq!(launch, expected(Position::Launch));
    assert_eq!(stream, expected(Position::Stream));
    let events = KINDS
        .iter()
        .filter(|k| k.accepts(Position::Launch) && k.form == ValueForm::Event)
        .count();
    assert_eq!(launch.len(), MAX_LAUNCH_ATTRIBUTES - events);
    assert_eq!(stream.len(), MAX_STREAM_ATTRIBUTES);
    // Each entry holds its sample's value.
    let pad = |v: &sys::CUlaunchAttributeValue| unsafe { v.pad };
    for a in cfg.launch_attributes() {
        let sample = samples.value(a.id as u32).expect("a sample");
        assert_eq!(pad(&a.value), pad(&sample), "{:?}", a.id);
    }
    assert_eq!(cfg.grid(), Dim3::new(8, 1, 1));
    assert_eq!(cfg.block(), Dim3::new(32, 1, 1));
    assert!(cfg.validate().is_ok(), "{:?}", cfg.validate());
}

#[test]
fn the_table_as_data_matches_the_types() {
    fn row<A: Attribute>() -> &'static KindInfo
    where
        A::Since: Reached<A>,
    {
        let k = kind_info(A::ID).expect("kind in KINDS");
        assert_eq!((k.key, k.cuda_name), (A::KEY, A::CUDA_NAME));
        assert_eq!(A::KIND, k);
        k
    }
    let sync = row::<SyncPolicy>();
    assert_eq!(sync.type_name, "SyncPolicy");
    assert!(!sync.accepts(Position::Launch) && sync.accepts(Position::Stream));
    let cooperative = row::<Cooperative>();
    assert!(cooperative.accepts(Position::Launch) && !cooperative.accepts(Position::Stream));
    let priority = row::<Priority>();
    assert!(Position::ALL.iter().all(|p| priority.accepts(*p)));
    assert_eq!(
        row::<ProgrammaticEvent<'_>>().cuda_name,
        "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT"
    );
    // The rows of this build's CUDA version (the default, 13.0, unless a feature says otherwise).
    let in_version: Vec<_> = chevron_cuda_rules::kinds::KINDS
        .iter()
        .filter(|k| k.in_version(CUDA_VERSION))
        .collect();
    assert_eq!(KINDS.iter().collect::<Vec<_>>(), in_version);
    for k in KINDS {
        assert_eq!(kind_info(raw_id(k.id).expect("an id")), Some(k));
    }
    let count = |p: Position| KINDS.iter().filter(|k| k.accepts(p)).count();
    assert_eq!(MAX_LAUNCH_ATTRIBUTES, count(Position::Launch));
    assert_eq!(MAX_STREAM_ATTRIBUTES, count(Position::Stream));
    const { assert!(MAX_STREAM_ATTRIBUTES > 0 && MAX_LAUNCH_ATTRIBUTES > MAX_STREAM_ATTRIBUTES) };
    let mut keys: Vec<_> = KINDS.iter().map(|k| k.key).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), KINDS.len(), "keys are unique");
}

#[test]
fn validate_reports_limits_with_numbers() {
    // The same violations, in the same words, as `launch!` reports for literals.
    let err = |cfg: LaunchConfig<'_>| cfg.validate().unwrap_err().to_string();
    assert_eq!(
        err(LaunchConfig::new(1, (32, 0, 1))),
        "block y is 0; every extent is at least 1"
    );
    assert_eq!(
        err(LaunchConfig::new(1, 1025)),
        "block x is 1025; the limit is 1024"
    );
    assert_eq!(
        err(LaunchConfig::new(1, (1, 1, 65))),
        "block z is 65; the limit is 64"
    );
    assert_eq!(
        err(LaunchConfig::new(1, (64, 32))),
        "block (64, 32, 1) has 2048 threads; the limit is 1024 per block"
    );
    assert!(err(LaunchConfig::new((1, 65536), 32)).contains("65535"));
    assert!(err(LaunchConfig::new(0, 32)).starts_with("grid x is 0"));
    let msg = err(LaunchConfig::new(6, 32).with(ClusterDim::new(4, 1, 1)));
    assert_eq!(
        msg,
        "cluster x = 4 does not divide grid x = 6: the grid must be a whole number of clusters"
    );
    let v = LaunchConfig::new(8, 32)
        .with(PreferredClusterDim::new(4, 1, 1))
        .validate();
    assert_eq!(v, Err(Violation::PreferredWithoutCluster));
    let msg = err(LaunchConfig::new(8, 32)
        .with(ClusterDim::new(2, 1, 1))
        .with(PreferredClusterDim::new(3, 1, 1)));
    assert!(msg.contains("multiple"), "{msg}");
    let msg = err(LaunchConfig::new(8, 32).with(SharedCarveout::percent(101)));
    assert!(msg.contains("101"), "{msg}");
    // Clusters over 8 blocks need the opt-in; over 16 never pass.
    let c16 = LaunchConfig::new(32, 32).with(ClusterDim::new(16, 1, 1));
    assert!(matches!(
        c16.validate(),
        Err(Violation::ClusterNotPortable { blocks: 16, .. })
    ));
    assert!(c16.non_portable_cluster().validate().is_ok());
    let c32 = LaunchConfig::new(32, 32)
        .with(ClusterDim::new(32, 1, 1))
        .non_portable_cluster();
    assert!(matches!(
        c32.validate(),
        Err(Violation::ClusterTooLarge { blocks: 32, .. })
    ));
    // Extents whose product overflows 64 bits are still a violation, not a wrap.
    let huge = LaunchConfig::new((2147483648u32, 4, 4), 1)
        .with(ClusterDim::new(2147483648, 2147483648, 4))
        .non_portable_cluster();
    assert!(huge.validate().is_err());
    // Limits hold exactly at the edge.
    assert!(LaunchConfig::new((1, 65535, 65535), (1024, 1, 1))
        .validate()
        .is_ok());
    assert!(LaunchConfig::new(8, (8, 8, 16))
        .with(ClusterDim::new(8, 1, 1))
        .with(SharedCarveout::percent(100))
        .validate()
        .is_ok());
}

#[test]
fn describe_names_keys_and_cuda_names() {
    let cfg = LaunchConfig::new(1, 1)
        .with(Cooperative)
        .with_stream(SyncPolicy::Spin);
    assert_eq!(
        cfg.describe_attributes(),
        "cooperative (CU_LAUNCH_ATTRIBUTE_COOPERATIVE), \
         stream sync (CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)"
    );
    let dbg = format!("{cfg:?}");
    assert!(dbg.contains("cooperative") && dbg.contains("sync"), "{dbg}");
}

/// The CUDA 13.2 kinds encode the driver's enum values through the union's named fields.
#[cfg(feature = "cuda-13020")]
#[test]
fn cuda_13_2_kinds_map_to_the_driver_constants() {
    use sys::CUlaunchAttributePortableClusterMode as P;
    use sys::CUsharedMemoryMode as S;
    for (mode, expect) in [
        (
            PortableClusterSizeMode::Default,
            P::CU_LAUNCH_PORTABLE_CLUSTER_MODE_DEFAULT,
        ),
        (
            PortableClusterSizeMode::RequirePortable,
            P::CU_LAUNCH_PORTABLE_CLUSTER_MODE_REQUIRE_PORTABLE,
        ),
        (
            PortableClusterSizeMode::AllowNonPortable,
            P::CU_LAUNCH_PORTABLE_CLUSTER_MODE_ALLOW_NON_PORTABLE,
        ),
    ] {
        let (id, v) = raw(mode);
        assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE);
        assert_eq!(unsafe { v.portableClusterSizeMode }, expect);
    }
    for (mode, expect) in [
        (SharedMemoryMode::Default, S::CU_SHARED_MEMORY_MODE_DEFAULT),
        (
            SharedMemoryMode::RequirePortable,
            S::CU_SHARED_MEMORY_MODE_REQUIRE_PORTABLE,
        ),
        (
            SharedMemoryMode::AllowNonPortable,
            S::CU_SHARED_MEMORY_MODE_ALLOW_NON_PORTABLE,
        ),
    ] {
        let (id, v) = raw(mode);
        assert_eq!(id, Id::CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE);
        assert_eq!(unsafe { v.sharedMemoryMode }, expect);
    }
}

/// Values are written by offset; the union's named fields read them back the same.
#[test]
fn offset_encoding_matches_the_union_fields() {
    let (_, v) = raw(ClusterDim::new(3, 5, 7));
    let c = unsafe { v.clusterDim };
    assert_eq!((c.x, c.y, c.z), (3, 5, 7));
    let (_, v) = raw(Priority(-3));
    assert_eq!(unsafe { v.priority }, -3);
    let (_, v) = raw(MemSyncDomainMap {
        default: 1,
        remote: 2,
    });
    let m = unsafe { v.memSyncDomainMap };
    assert_eq!((m.default_, m.remote), (1, 2));
    let w = AccessPolicyWindow::new(0x1234_5000, 4096).hit_ratio(0.5);
    let (_, v) = raw(w);
    let a = unsafe { v.accessPolicyWindow };
    assert_eq!(a.base_ptr as usize, 0x1234_5000);
    assert_eq!(a.num_bytes, 4096);
    assert_eq!(a.hitRatio, 0.5);
    assert_eq!(
        a.hitProp,
        sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING
    );
    assert_eq!(
        a.missProp,
        sys::CUaccessProperty::CU_ACCESS_PROPERTY_STREAMING
    );
    let (_, v) = raw(SharedCarveout::percent(42));
    assert_eq!(unsafe { v.sharedMemCarveout }, 42);
    let (_, v) = raw(Cooperative);
    assert_eq!(unsafe { v.cooperative }, 1);
}
