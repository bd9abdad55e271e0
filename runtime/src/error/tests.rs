use super::*;
use cudarc::driver::sys::cudaError_enum as E;

#[test]
fn sticky_codes_are_the_faults_of_a_kernel() {
    assert!(is_sticky(E::CUDA_ERROR_LAUNCH_FAILED));
    assert!(is_sticky(E::CUDA_ERROR_ILLEGAL_ADDRESS));
    assert!(!is_sticky(E::CUDA_ERROR_INVALID_VALUE));
    assert!(!is_sticky(E::CUDA_ERROR_INVALID_CLUSTER_SIZE));
    assert!(!is_sticky(E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE));
}

#[test]
fn debug_is_the_sentence_and_alternate_debug_the_structure() {
    let e = Error::NoDriver;
    assert_eq!(format!("{e:?}"), e.to_string());
    assert!(format!("{e:?}").starts_with("no CUDA driver on this machine"));
    assert_eq!(format!("{e:#?}"), "NoDriver");
    let e = Error::KernelConstraint {
        kernel: KernelName(Some("k")),
        message: "m".into(),
    };
    assert_eq!(
        format!("{e:?}"),
        "launch does not fit the kernel for `k`: m"
    );
    assert_eq!(
        format!("{e:#?}"),
        "KernelConstraint {\n    kernel: KernelName(\n        Some(\n            \"k\",\n        ),\n    ),\n    message: \"m\",\n}"
    );
}
