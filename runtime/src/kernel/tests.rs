use super::*;
use crate::config::bit;
use crate::ptx::{Expected, ParamSig};
use chevron_cuda_rules::fit::{self, KernelInfo};
use chevron_cuda_rules::param::{Class, Num, ParamForm};

const fn sig(name: &'static str, ty: &'static str, form: ParamForm) -> ParamSig {
    ParamSig::new(name, ty, form, false)
}

const HISTOGRAM: &[ParamSig] = &[
    sig("bins", "&mut CudaSlice<u32>", ParamForm::buffer(4, true)),
    sig("data", "&CudaView<'_, u8>", ParamForm::buffer(1, false)),
    sig("len", "u32", ParamForm::of(Expected::Int(32))),
];

// What NVRTC makes of kernels/histogram.cu (entry and parameters as nvcc writes them).
const HISTOGRAM_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry histogram(\n\t.param .u64 histogram_param_0,\n\
    \t.param .u64 histogram_param_1,\n\t.param .u32 histogram_param_2\n)\n{\n\tret;\n}\n";

#[test]
fn nvrtc_output_is_checked_against_the_declaration() {
    static OK: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", HISTOGRAM);
    assert_eq!(
        OK.check_nvrtc_output(HISTOGRAM_PTX, None).unwrap(),
        "histogram"
    );

    const WRONG: &[ParamSig] = &[HISTOGRAM[0], HISTOGRAM[1]];
    static SHORT: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", WRONG);
    match SHORT.check_nvrtc_output(HISTOGRAM_PTX, None) {
        Err(Error::Signature { kernel, message }) => {
            assert_eq!(kernel, KernelName(Some("histogram")));
            assert!(
                message.contains("has 3 parameters, the declaration 2"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }

    const FLOAT: &[ParamSig] = &[
        HISTOGRAM[0],
        HISTOGRAM[1],
        sig("len", "f32", ParamForm::of(Expected::Float(32))),
    ];
    static FLOATY: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", FLOAT);
    let err = FLOATY.check_nvrtc_output(HISTOGRAM_PTX, None).unwrap_err();
    assert!(
        err.to_string().contains("`len: f32` is a 32-bit float"),
        "{err}"
    );

    // A C++ kernel: its types from the symbol, with the compile-time rule's words; it stores
    // through its `float*`.
    const CPP_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry _Z10offset_addPffj(\n\t.param .u64 p0,\n\t.param .f32 p1,\n\
        \t.param .u32 p2\n)\n{\n\tld.param.u64 %rd1, [p0];\n\tld.param.f32 %f1, [p1];\n\
        \tst.global.f32 [%rd1], %f1;\n\tret;\n}\n";
    // The same kernel, never storing through it: its `float*` may be read-only.
    const CPP_READS_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry _Z10offset_addPffj(\n\t.param .u64 p0,\n\t.param .f32 p1,\n\
        \t.param .u32 p2\n)\n{\n\tret;\n}\n";
    const F32: Class = Class::Num(Num::Float(32));
    const READ_ONLY: &[ParamSig] = &[
        sig(
            "y",
            "&CudaSlice<f32>",
            ParamForm::buffer(4, false).with_class(F32),
        ),
        sig(
            "v",
            "f32",
            ParamForm::of(Expected::Float(32)).with_class(F32),
        ),
        sig("n", "u32", ParamForm::of(Expected::Int(32))),
    ];
    static CPP: Kernel = Kernel::cuda("offset_add", None, "/k/t.cu", "", READ_ONLY);
    let err = CPP
        .check_nvrtc_output(CPP_PTX, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`y: &CudaSlice<f32>` is read-only (`&`), but the kernel takes `float*`"),
        "{err}"
    );
    assert!(
        err.contains("and writes through it (NVRTC's PTX of /k/t.cu"),
        "{err}"
    );
    assert_eq!(
        CPP.check_nvrtc_output(CPP_READS_PTX, None).unwrap(),
        "_Z10offset_addPffj"
    );
    const OPTED: &[ParamSig] = &[
        ParamSig::new("y", "&CudaSlice<f32>", READ_ONLY[0].form, true),
        READ_ONLY[1],
        READ_ONLY[2],
    ];
    static CPP_OPTED: Kernel = Kernel::cuda("offset_add", None, "/k/t.cu", "", OPTED);
    assert_eq!(
        CPP_OPTED.check_nvrtc_output(CPP_PTX, None).unwrap(),
        "_Z10offset_addPffj"
    );

    static MISSING: Kernel = Kernel::cuda("hist", None, "/k/histogram.cu", "", HISTOGRAM);
    let err = MISSING.check_nvrtc_output(HISTOGRAM_PTX, None).unwrap_err();
    assert!(
        err.to_string().contains("its kernels are: `histogram`"),
        "{err}"
    );
}

#[test]
fn an_entry_missing_from_its_module_lists_the_kernels() {
    use cudarc::driver::sys::cudaError_enum as E;
    use cudarc::driver::DriverError;
    static K: Kernel = Kernel::ptx("histogrm", "histogrm", "/k/histogram.ptx", HISTOGRAM_PTX);
    let v = PtxVariant::new("/k/histogram.ptx", HISTOGRAM_PTX);
    let e = K.missing("histogrm", Some(&v), DriverError(E::CUDA_ERROR_NOT_FOUND));
    assert!(
        matches!(
            e,
            Error::MissingKernel {
                kernel: KernelName(Some("histogrm")),
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "no kernel `histogrm` in `/k/histogram.ptx`; its kernels are: `histogram` \
         (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND); declare the kernel with the name of \
         one of its `.entry` lines"
    );
    // Another failure of the same call stays the driver's error.
    let e = K.missing(
        "histogrm",
        Some(&v),
        DriverError(E::CUDA_ERROR_INVALID_CONTEXT),
    );
    assert!(
        matches!(
            e,
            Error::Driver {
                call: "cuModuleGetFunction",
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn missing_nvrtc_is_a_typed_error() {
    use crate::nvrtc::{compile_cuda, nvrtc_present};
    let r = compile_cuda(
        "k.cu",
        "extern \"C\" __global__ void k() {}",
        (9, 0),
        KernelName(Some("k")),
    );
    match r {
        Err(Error::NoNvrtc { kernel }) => {
            assert!(!nvrtc_present());
            assert_eq!(kernel, KernelName(Some("k")));
        }
        Ok(ptx) => assert!(nvrtc_present() && ptx.contains(".entry k")),
        Err(other) => panic!("{other}"),
    }
    let nul = compile_cuda("k.cu", "a\0b", (9, 0), KernelName(None));
    assert!(matches!(nul, Err(Error::Compile { .. })));
}

/// The quick compares a typed launch makes (`__check_config`, with the rules folded by
/// `LaunchRules::of`) give what every rule one by one gives (`check_launch`): the same
/// verdict and the same error, for kernels with each kind of rule and launches that keep or
/// break them.
#[test]
fn folded_rules_agree_with_every_rule() {
    use crate::config::attr::{ClusterDim, Cooperative, ProgrammaticSerialization};
    use crate::config::dim::Dim3;
    use crate::config::LaunchConfig;
    use chevron_cuda_rules::fit::{read_info, CooperativeUse};
    const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry plain() { ret; }\n\
        .visible .entry waits() { griddepcontrol.wait; ret; }\n\
        .visible .entry syncs() { mov.u32 %r1, %envreg1;\n\
          atom.add.release.gpu.u32 %r2, [%rd1], 1; ret; }\n\
        .visible .entry req() .reqntid 64, 1, 1 { ret; }\n\
        .visible .entry one() .reqntid 1, 1, 1 { ret; }\n\
        .visible .entry max() .maxntid 128, 1, 1 { ret; }\n\
        .visible .entry cl() .reqnctapercluster 2, 1, 1 { ret; }\n\
        .visible .entry expl() .explicitcluster { ret; }\n\
        .visible .entry rank() .maxclusterrank 2 { ret; }\n";
    static K: Kernel = Kernel::ptx("k", "k", "/k/k.ptx", PTX);
    let entries = ptx::parse_entries(PTX).expect("parses");
    let mut infos: Vec<&'static KernelInfo> = vec![&KernelInfo::UNKNOWN];
    for entry in &entries {
        for (reads, cooperative) in [
            (false, CooperativeUse::ByPtx),
            (true, CooperativeUse::Optional),
            (false, CooperativeUse::CoResident),
        ] {
            let info = read_info(entry, &entry.name, "k.ptx", reads, cooperative).leak();
            infos.push(Box::leak(Box::new(info)));
        }
    }
    let mut configs = Vec::new();
    for block in [
        Dim3::new(64, 1, 1),
        Dim3::new(256, 1, 1),
        Dim3::new(8, 8, 1),
    ] {
        for grid in [1u32, 2, 3, 4, 6] {
            // The block given, then the kernel's own (`_`), which only `.reqntid` kernels have.
            for base in [
                LaunchConfig::new(grid, block),
                LaunchConfig::kernel_block(grid),
            ] {
                for cluster in [
                    None,
                    Some(ClusterDim::new(2, 1, 1)),
                    Some(ClusterDim::new(4, 1, 1)),
                ] {
                    for (cooperative, serialized) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let mut c = base;
                        if let Some(cl) = cluster {
                            c = c.with(cl);
                        }
                        c = c.with_flag(Cooperative, cooperative);
                        c = c.with_flag(ProgrammaticSerialization, serialized);
                        configs.push(c);
                    }
                }
            }
        }
    }
    configs.push(LaunchConfig::new(1, 2048));
    let (mut passed, mut refused) = (0, 0);
    for info in infos {
        let rules = LaunchRules::of(info);
        for config in &configs {
            let quick = K.__check_config(rules, config).map_err(|e| e.to_string());
            let each = K.check_launch(info, config).map_err(|e| e.to_string());
            assert_eq!(quick, each, "{config:?} against {info:?}");
            match quick {
                Ok(()) => passed += 1,
                Err(_) => refused += 1,
            }
        }
    }
    // Both verdicts are exercised, many times.
    assert!(
        passed > 500 && refused > 500,
        "{passed} passed, {refused} refused"
    );
    // Each flag rule becomes a kind to refuse or to require, from the rules themselves.
    let never_waits = entries.iter().position(|e| e.name == "plain").unwrap();
    let info = read_info(
        &entries[never_waits],
        "plain",
        "k.ptx",
        false,
        CooperativeUse::ByPtx,
    );
    let rules = LaunchRules::of(Box::leak(Box::new(info.leak())));
    let bit_of = |id: u32| bit(id);
    assert!(rules.quick);
    assert_eq!(
        rules.refused,
        bit_of(<Cooperative as crate::config::attr::Attribute>::KIND.id)
            | bit_of(<ProgrammaticSerialization as crate::config::attr::Attribute>::KIND.id)
    );
    assert_eq!(rules.required, 0);
}

/// A CUDA C kernel's rules come from NVRTC's output at run time: the typed launch's check
/// reads them there once read, as `check_launch` does.
#[test]
fn nvrtc_rules_are_checked_like_the_declared_ones() {
    use crate::config::attr::Cooperative;
    use crate::config::LaunchConfig;
    const BOUNDED: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry histogram(\n\t.param .u64 histogram_param_0,\n\
        \t.param .u64 histogram_param_1,\n\t.param .u32 histogram_param_2\n)\n\
        .maxntid 128, 1, 1\n{\n\tret;\n}\n";
    static K: Kernel = Kernel::cuda("histogram", None, "/k/histogram.cu", "", HISTOGRAM);
    let declared = KernelInfo::UNKNOWN;
    let rules = LaunchRules::of(&KernelInfo::UNKNOWN);
    let configs = [
        LaunchConfig::new(4, 128),
        LaunchConfig::new(4, 256),
        LaunchConfig::new(4, 128).with(Cooperative),
        LaunchConfig::new(0, 128),
    ];
    let verdicts = || -> Vec<(Result<(), String>, Result<(), String>)> {
        configs
            .iter()
            .map(|c| {
                (
                    K.__check_config(rules, c).map_err(|e| e.to_string()),
                    K.check_launch(&declared, c).map_err(|e| e.to_string()),
                )
            })
            .collect()
    };
    // Before NVRTC's output is read: the limits only.
    for (quick, each) in verdicts() {
        assert_eq!(quick, each);
    }
    assert_eq!(
        verdicts().iter().filter(|(q, _)| q.is_err()).count(),
        1,
        "only the zero grid"
    );
    K.check_nvrtc_output(BOUNDED, None)
        .expect("matches the declaration");
    let after = verdicts();
    for (quick, each) in &after {
        assert_eq!(quick, each);
    }
    assert!(after[0].0.is_ok());
    assert!(
        after[1]
            .0
            .as_ref()
            .unwrap_err()
            .contains(".maxntid 128, 1, 1"),
        "{:?}",
        after[1]
    );
    assert!(after[2].0.as_ref().unwrap_err().contains("`cooperative`"));
    assert!(after[3].0.is_err());
}

#[test]
fn invalid_extents_are_reported_before_any_kernel_rule() {
    use crate::config::dim::Dim3;
    use crate::config::dim::Extent;
    use crate::config::LaunchConfig;
    use chevron_cuda_rules::fit::read_info;
    use chevron_cuda_rules::limits::Violation;
    // Compiled-in clusters of 2 and `.reqntid 64`: the kernel rules that a placeholder grid
    // or block of (1, 1, 1) would break.
    const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k() .reqntid 64, 1, 1 .reqnctapercluster 2, 1, 1 { ret; }\n";
    static K: Kernel = Kernel::ptx("k", "k", "/k/k.ptx", PTX);
    let entries = ptx::parse_entries(PTX).expect("parses");
    let info = read_info(&entries[0], "k", "k.ptx", false, fit::CooperativeUse::ByPtx).leak();
    let dim = |x: Result<u32, crate::config::dim::ExtentError>| x.map(|x| Dim3::new(x, 1, 1));
    let grid = LaunchConfig::__from_extents(dim(u64::MAX.extent()), dim(64u32.extent()));
    match K.check_launch(&info, &grid) {
        Err(Error::InvalidConfig { kernel, violation }) => {
            assert_eq!(kernel, KernelName(Some("k")));
            assert_eq!(
                violation,
                Violation::NotU32 {
                    what: "grid",
                    axis: None,
                    value: i128::from(u64::MAX)
                }
            );
            assert_eq!(
                violation.to_string(),
                "grid is 18446744073709551615, which does not fit in `u32`"
            );
        }
        other => panic!("{other:?}"),
    }
    let block = LaunchConfig::__from_extents(dim(2u32.extent()), dim((-128i32).extent()));
    match K.check_launch(&info, &block) {
        Err(Error::InvalidConfig { violation, .. }) => {
            assert_eq!(violation.to_string(), "block is -128: it is negative")
        }
        other => panic!("{other:?}"),
    }
    // Valid extents meet the kernel's rules, which name the launch's real values.
    let odd = LaunchConfig::new(3u32, 64u32);
    match K.check_launch(&info, &odd) {
        Err(Error::KernelConstraint { message, .. }) => {
            assert!(
                message.ends_with("(this launch: grid (3, 1, 1))"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(K
        .check_launch(&info, &LaunchConfig::new(4u32, 64u32))
        .is_ok());
}

/// `ptx = [...]`: a launch is checked against the rules of the variant loaded in its context
/// (`#[kernel]` gives each variant its own, within what the declaration promises), not the
/// first file's. Here the sm_90 variant of kernels/variants/grid_rotate.cu syncs the grid and
/// bounds its block at 256 threads, the sm_75 one does neither.
#[test]
fn the_loaded_variants_rules_are_checked() {
    use crate::{Cooperative, LaunchConfig};
    use chevron_cuda_rules::fit::{combine, read_info, CooperativeUse, InfoText};
    const SM75: &str = include_str!("../../../kernels/variants/grid_rotate_sm75.ptx");
    const SM90: &str = include_str!("../../../kernels/variants/grid_rotate_sm90.ptx");
    let info = |file: &str, text: &str| -> InfoText {
        let entries = ptx::parse_entries(text).expect("parses");
        read_info(
            &entries[0],
            "grid_rotate",
            file,
            false,
            CooperativeUse::ByPtx,
        )
    };
    let (a, b) = (info("sm75.ptx", SM75), info("sm90.ptx", SM90));
    let combined = combine(&[("sm75.ptx", &a), ("sm90.ptx", &b)]).expect("combines");
    let leak = |i: InfoText| -> &'static KernelInfo { Box::leak(Box::new(i.leak())) };
    let own_a = leak(a.within(&combined));
    let own_b = leak(b.within(&combined));
    let declared = LaunchRules::of(leak(combined));
    static VARIANTS: OnceLock<[PtxVariant; 2]> = OnceLock::new();
    let variants = VARIANTS.get_or_init(|| {
        [
            PtxVariant {
                path: "/k/sm75.ptx",
                text: SM75,
                info: own_a,
            },
            PtxVariant {
                path: "/k/sm90.ptx",
                text: SM90,
                info: own_b,
            },
        ]
    });
    let k: &'static Kernel = Box::leak(Box::new(Kernel::ptx_variants(
        "grid_rotate",
        "grid_rotate",
        variants,
    )));
    let check = |variant: usize, config: &LaunchConfig<'_>| {
        k.__check_config(k.rules_of_variant(variant, declared), config)
            .map_err(|e| e.to_string())
    };
    let plain = LaunchConfig::new(4, 256);
    let cooperative = LaunchConfig::new(4, 256).with(Cooperative);
    let wide = LaunchConfig::new(2, 512).with(Cooperative);
    // Where the sm_90 variant loaded: its grid barrier needs `cooperative`, its bound holds.
    let err = check(1, &plain).expect_err("needs cooperative");
    assert!(err.contains("sm90.ptx"), "{err}");
    assert!(check(1, &cooperative).is_ok());
    let err = check(1, &wide).expect_err("over 256 threads");
    assert!(err.contains(".maxntid 256, 1, 1"), "{err}");
    // Where the sm_75 one loaded: no bound; `cooperative` is not refused (the declaration's
    // launches need it for the sm_90 variant), nor needed.
    assert!(check(0, &wide).is_ok(), "{:?}", check(0, &wide));
    assert!(check(0, &cooperative).is_ok());
    assert!(check(0, &plain).is_ok());
    // The first file's rules alone (what was checked before) would have passed the plain
    // launch on the sm_90 variant.
    let first_only = LaunchRules::of(leak(info("sm75.ptx", SM75)));
    assert!(k.__check_config(first_only, &plain).is_ok());
}

/// A config in the kernel's own block shape against the kernel's rules at run time: a
/// `__block_size__` kernel (`.reqntid`, `.blocksareclusters`) takes it whatever its grid, which
/// counts clusters; a kernel without `.reqntid` refuses it with `Error::KernelConstraint`, whose
/// message names the entry and says what the launch held. The `(1, 1, 1)` the driver receives
/// is no block the `.reqntid` rule looks at.
#[test]
fn kernel_block_configs_are_checked_against_reqntid() {
    use crate::config::LaunchConfig;
    use chevron_cuda_rules::fit::read_info;
    const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry sized() .blocksareclusters .reqntid 32, 4, 1 .reqnctapercluster 2, 1, 1 \
        { ret; }\n\
        .visible .entry bounded() .maxntid 128, 1, 1 { ret; }\n";
    static K: Kernel = Kernel::ptx("k", "k", "/k/k.ptx", PTX);
    let entries = ptx::parse_entries(PTX).expect("parses");
    let info = |i: usize| {
        let e = &entries[i];
        read_info(e, &e.name, "k.ptx", false, fit::CooperativeUse::ByPtx).leak()
    };
    let (sized, bounded) = (info(0), info(1));
    for grid in [1u32, 3, 7] {
        let cfg = LaunchConfig::kernel_block(grid);
        assert!(K.check_launch(&sized, &cfg).is_ok(), "grid {grid}");
        let err = K.check_launch(&bounded, &cfg).expect_err("no `.reqntid`");
        let text = err.to_string();
        assert!(matches!(err, Error::KernelConstraint { .. }), "{err:?}");
        assert!(
            text.contains("kernel `bounded` has no compiled-in block dimensions")
                && text.ends_with("(this launch: the kernel's own block shape (`_`))"),
            "{text}"
        );
    }
    // The block written out is checked as before: (1, 1, 1) breaks `.reqntid 32, 4, 1`.
    let one = LaunchConfig::new(3u32, 1u32);
    assert!(K.check_launch(&sized, &one).is_err());
    assert!(K.check_launch(&bounded, &one).is_ok());
}
