use chevron::{config, ClusterDim, Dim3, LaunchConfig, Violation};

fn main() {
    // 9 to 16 blocks per cluster with the opt-in, in the DSL and in the plain API.
    let cfg = config!(<<<32, 128, cluster = 16, non_portable_cluster>>>);
    assert!(cfg.allows_non_portable_cluster());
    assert_eq!(cfg.cluster(), Some(Dim3::new(16, 1, 1)));
    assert_eq!(cfg.validate(), Ok(()));

    let plain = LaunchConfig::new(32, 128).with(ClusterDim::new(16, 1, 1));
    assert!(matches!(
        plain.validate(),
        Err(Violation::ClusterNotPortable { blocks: 16, .. })
    ));
    assert_eq!(plain.non_portable_cluster().validate(), Ok(()));

    // A run-time cluster gets the same rule.
    let n = 16u32;
    let cfg = config!(<<<32, 128, cluster = n>>>);
    assert!(cfg.validate().unwrap_err().to_string().contains("non_portable_cluster"));
}
