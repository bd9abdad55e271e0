//! The host work of one launch, without a driver: what `launch!` and the runtime do before
//! `cuLaunchKernelEx`, run on fake device pointers. Shared by `benches/host_cost.rs`, which
//! times it, and `tests/host_cost.rs`, which checks its results and that it allocates nothing.
//!
//! The typed launches are real `launch!` expansions: `launch!` calls
//! `<KERNEL>::kernel().launch(stream, &config, (args…,))` (and checks a literal launch against
//! `<KERNEL as TypedKernel>::INFO` at compile time), and [`saxpy_host`] provides those: its
//! `TypedKernel` impl is `saxpy`'s, and its `kernel()` gives a [`HostSaxpy`] (its stream is
//! `&()`) whose `launch` has the body of `chevron::Typed::launch` for `saxpy`, step by step,
//! minus what needs a driver: the config's check with the kernel's rules folded at compile time
//! (`Kernel::__check_config`, what `Kernel::__check` does after the function lookup), one slot
//! per argument (what the parameter types' `KernelParam` slots make: `ArgSlot::value` for
//! numbers, `ArgSlot::device` for buffers, with cudarc's guard) and its pointer, the parameter
//! array, and the driver's `CUlaunchConfig`. So the config is built exactly as `launch!` builds
//! it. The `dyn` launch is written out as `launch!(dyn …)` expands, with `ArgSlot::device`
//! standing for cudarc's `device_ptr`.
//!
//! What is left out costs, on the GPU path: the function lookup (an atomic load and a compare),
//! the guards (two atomic loads each while cudarc tracks nothing) and the context check (a
//! thread-local compare and cudarc's recorded-error swap). `scripts/host_cost_callgrind.sh`
//! counts the instructions of whole launches, those included, against a stand-in driver;
//! `examples/launch_overhead.rs` times them with the real one.

#![allow(dead_code)] // The bench and the test each use part of it.

use core::ffi::c_void;
use std::hint::black_box;

use chevron::__private::{check_arg_sizes, ArgSlot, ArgSlots, ArgStorage, LaunchRules};
use chevron::cudarc::driver::{CudaSlice, SyncOnDrop};
use chevron::{config, kernel, launch, sys, Error, Kernel, KernelName, LaunchConfig, TypedKernel};

#[kernel(ptx = "kernels/saxpy.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// `saxpy`'s kernel, as `#[kernel]` declares it (its module is never loaded here).
pub static SAXPY: Kernel = Kernel::ptx(
    "saxpy",
    "saxpy",
    concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/saxpy.ptx"),
    include_str!("../../kernels/saxpy.ptx"),
);

/// `saxpy` for `launch!` without a driver: see the module's doc.
#[allow(non_camel_case_types)]
pub struct saxpy_host {}

/// What `launch!` checks a literal launch against: the real kernel's rules and parameter types.
impl TypedKernel for saxpy_host {
    const INFO: chevron::KernelInfo = <saxpy as TypedKernel>::INFO;
    type Args<'r, 'v>
        = (u32, f32, u64, u64)
    where
        'v: 'r;
    type Scalars<'v> = (u32, f32);
    type Ordered<'r> = chevron::NoElementType;
    type Buffers = [bool; 4];
    const BUFFERS: [bool; 4] = [false, false, true, true];
    type Literal = <saxpy as TypedKernel>::Literal;
}

impl saxpy_host {
    /// What `launch!` calls first, as `saxpy::kernel()`.
    #[inline]
    pub fn kernel() -> &'static HostSaxpy {
        &HostSaxpy
    }
}

/// `saxpy_host::kernel()`: `launch!` calls its `launch` as `Typed::launch`.
pub struct HostSaxpy;

impl HostSaxpy {
    /// The host part of `saxpy::kernel().launch`, with device pointers for the buffers; the
    /// stream is `&()`, standing for a `&CudaStream`. Inlined always, as `Typed::launch` is: the
    /// argument tuple is never passed through memory to a call.
    ///
    /// # Safety
    /// Nothing is launched; `unsafe` as the real one, which `launch!` calls in the caller's
    /// `unsafe` block.
    #[inline(always)]
    pub unsafe fn launch(
        &self,
        _stream: &(),
        config: &LaunchConfig<'_>,
        (n, a, x, y): (u32, f32, u64, u64),
    ) -> Result<Launched, Error> {
        SAXPY.__check_config(
            const { LaunchRules::of(&<saxpy as TypedKernel>::INFO) },
            config,
        )?;
        let (arg_0, arg_1) = (n, a);
        let slot_0 = ArgSlot::value(&arg_0);
        let param_0 = slot_0.param();
        let slot_1 = ArgSlot::value(&arg_1);
        let param_1 = slot_1.param();
        let slot_2 = ArgSlot::device(x, SyncOnDrop::Record(None));
        let param_2 = slot_2.param();
        let slot_3 = ArgSlot::device(y, SyncOnDrop::Record(None));
        let param_3 = slot_3.param();
        let params: [*mut c_void; 4] = [param_0, param_1, param_2, param_3];
        let raw = config.__driver_config(core::ptr::null_mut());
        // SAFETY: the parameters are `saxpy`'s, and alive.
        Ok(unsafe { Launched::read(&raw, &params) })
    }
}

/// What a launch would hand the driver, read back: the config and the parameter values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launched {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    /// The ids of the attribute array `cuLaunchKernelEx` would get.
    pub attrs: [u32; 4],
    pub n_attrs: u32,
    pub n: u32,
    pub a: f32,
    pub x: u64,
    pub y: u64,
}

impl Launched {
    /// # Safety
    /// `raw`'s attribute array is alive; `params` point at a `u32`, an `f32` and two `u64`.
    #[inline]
    unsafe fn read(raw: &sys::CUlaunchConfig, params: &[*mut c_void; 4]) -> Self {
        let mut attrs = [0u32; 4];
        for (i, a) in attrs.iter_mut().enumerate().take(raw.numAttrs as usize) {
            // SAFETY: `numAttrs` entries are alive.
            *a = unsafe { (*raw.attrs.add(i)).id } as u32;
        }
        // SAFETY: the caller's promise.
        unsafe {
            Self {
                grid: [raw.gridDimX, raw.gridDimY, raw.gridDimZ],
                block: [raw.blockDimX, raw.blockDimY, raw.blockDimZ],
                shared: raw.sharedMemBytes,
                attrs,
                n_attrs: raw.numAttrs,
                n: *(params[0] as *const u32),
                a: *(params[1] as *const f32),
                x: *(params[2] as *const u64),
                y: *(params[3] as *const u64),
            }
        }
    }
}

/// The inputs of one launch, read through `black_box` so that nothing is folded at compile time.
#[derive(Clone, Copy)]
pub struct Inputs {
    pub grid: u32,
    pub block: u32,
    pub n: u32,
    pub a: f32,
    pub x: u64,
    pub y: u64,
}

impl Inputs {
    pub const DEFAULT: Inputs = Inputs {
        grid: 4,
        block: 256,
        n: 1024,
        a: 2.5,
        x: 0x7f00_0000_1000,
        y: 0x7f00_0000_2000,
    };

    #[inline(always)]
    fn get() -> Self {
        black_box(Self::DEFAULT)
    }
}

/// `cuFuncGetParamInfo`'s sizes for `saxpy`.
pub const SAXPY_SIZES: [u32; 4] = [4, 4, 8, 8];

/// One step of the host work: a name and one launch's worth of it.
pub struct Step {
    pub name: &'static str,
    pub run: fn() -> Result<Launched, Error>,
}

/// `launch!(saxpy<<<grid, block, s>>>(…))`.
#[inline(never)]
pub fn typed() -> Result<Launched, Error> {
    let i = Inputs::get();
    unsafe { launch!(saxpy_host<<<i.grid, i.block, &()>>>(i.n, i.a, i.x, i.y)) }
}

/// `launch!(saxpy<<<grid, block, s, priority = 0, mem_sync_domain = Default>>>(…))`.
#[inline(never)]
pub fn typed_two_attributes() -> Result<Launched, Error> {
    let i = Inputs::get();
    unsafe {
        launch!(saxpy_host<<<i.grid, i.block, &(), priority = 0, mem_sync_domain = Default>>>(
            i.n, i.a, i.x, i.y))
    }
}

/// `launch!(saxpy<<<grid, block, s, stream(sync = Spin)>>>(…))`: the stream attribute is only
/// stored here (`cuStreamSetAttribute` is the driver's part).
#[inline(never)]
pub fn typed_stream_attribute() -> Result<Launched, Error> {
    let i = Inputs::get();
    unsafe {
        launch!(saxpy_host<<<i.grid, i.block, &(), stream(sync = Spin)>>>(i.n, i.a, i.x, i.y))
    }
}

/// `launch!(saxpy<<<config = cfg, s>>>(…))` with a config built once.
#[inline(never)]
pub fn typed_prebuilt(cfg: &LaunchConfig<'_>) -> Result<Launched, Error> {
    let i = Inputs::get();
    unsafe { launch!(saxpy_host<<<config = cfg, &()>>>(i.n, i.a, i.x, i.y)) }
}

/// `launch!(dyn f<<<grid, block, s>>>(&n, &a, &x, &mut y))`, as it expands: one slot per
/// argument, the check against the kernel's parameter sizes, the parameter array, the config.
#[inline(never)]
pub fn dynamic() -> Result<Launched, Error> {
    let i = Inputs::get();
    let config = LaunchConfig::__from_extents(
        chevron::__private::IntoDim::into_dim(i.grid),
        chevron::__private::IntoDim::into_dim(i.block),
    );
    let mut storage = ArgStorage::<4>::new();
    let mut slots = ArgSlots::new(&mut storage);
    slots.set(0, ArgSlot::value(&i.n));
    slots.set(1, ArgSlot::value(&i.a));
    slots.set(2, ArgSlot::device(i.x, SyncOnDrop::Record(None)));
    slots.set(3, ArgSlot::device(i.y, SyncOnDrop::Record(None)));
    // What `launch_args` does with them.
    check_arg_sizes(black_box(&SAXPY_SIZES), &slots)?;
    let params = slots.params();
    config
        .validate()
        .map_err(|violation| Error::InvalidConfig {
            kernel: KernelName(None),
            violation,
        })?;
    let raw = config.__driver_config(core::ptr::null_mut());
    // SAFETY: the slots hold the four parameters and outlive the read.
    Ok(unsafe { Launched::read(&raw, &params) })
}

/// The config of `launch!(saxpy<<<grid, block, s>>>)` alone, built in place as it expands.
#[inline(never)]
pub fn config_only() -> Result<Launched, Error> {
    let i = Inputs::get();
    let config = LaunchConfig::__from_extents(
        chevron::__private::IntoDim::into_dim(i.grid),
        chevron::__private::IntoDim::into_dim(i.block),
    );
    black_box(&config);
    Ok(black_box(Launched::of(&config)))
}

/// `config!(<<<grid, block, priority = 0, mem_sync_domain = Default>>>)`: a value, moved once
/// out of the block that builds it (a `launch!` builds its config in place instead).
#[inline(never)]
pub fn config_value_two_attributes() -> Result<Launched, Error> {
    let i = Inputs::get();
    let config = config!(<<<i.grid, i.block, priority = 0, mem_sync_domain = Default>>>);
    black_box(&config);
    Ok(black_box(Launched::of(&config)))
}

/// `LaunchConfig::validate` on a config with two attributes.
#[inline(never)]
pub fn validate_only() -> Result<Launched, Error> {
    let config: &LaunchConfig<'_> = black_box(&PREBUILT);
    config
        .validate()
        .map_err(|violation| Error::InvalidConfig {
            kernel: KernelName(None),
            violation,
        })?;
    Ok(Launched::of(config))
}

/// `Kernel::__check_config` with `saxpy`'s rules, as a typed launch checks its config.
#[inline(never)]
pub fn kernel_rules_only() -> Result<Launched, Error> {
    let config: &LaunchConfig<'_> = black_box(&PREBUILT);
    SAXPY.__check_config(
        const { LaunchRules::of(&<saxpy as TypedKernel>::INFO) },
        config,
    )?;
    Ok(Launched::of(config))
}

/// `Kernel::check_launch` against `saxpy`'s rules: every rule, one by one (the public check,
/// and what a launch falls back to when the quick compares do not settle it).
#[inline(never)]
pub fn kernel_rules_each() -> Result<Launched, Error> {
    let config: &LaunchConfig<'_> = black_box(&PREBUILT);
    SAXPY.check_launch(black_box(&<saxpy as TypedKernel>::INFO), config)?;
    Ok(Launched::of(config))
}

/// The config the prebuilt launches use: two attributes, built once.
pub static PREBUILT: std::sync::LazyLock<LaunchConfig<'static>> =
    std::sync::LazyLock::new(|| config!(<<<4, 256, priority = 0, mem_sync_domain = Default>>>));

impl Launched {
    /// A config's grid, block and attributes, without parameters.
    fn of(config: &LaunchConfig<'_>) -> Self {
        let mut attrs = [0u32; 4];
        for (a, attr) in attrs.iter_mut().zip(config.launch_attributes()) {
            *a = attr.id as u32;
        }
        let d = |d: chevron::Dim3| [d.x, d.y, d.z];
        Self {
            grid: d(config.grid()),
            block: d(config.block()),
            shared: config.shared_bytes(),
            attrs,
            n_attrs: config.launch_attributes().len() as u32,
            n: 0,
            a: 0.0,
            x: 0,
            y: 0,
        }
    }
}

/// Every step, whole launches first.
pub fn steps() -> Vec<Step> {
    vec![
        Step {
            name: "launch! typed",
            run: typed,
        },
        Step {
            name: "launch! typed + 2 attributes",
            run: typed_two_attributes,
        },
        Step {
            name: "launch! typed + stream(sync = Spin)",
            run: typed_stream_attribute,
        },
        Step {
            name: "launch! typed, prebuilt config",
            run: || typed_prebuilt(black_box(&PREBUILT)),
        },
        Step {
            name: "launch!(dyn f)",
            run: dynamic,
        },
        Step {
            name: "  config of launch!, in place",
            run: config_only,
        },
        Step {
            name: "  config! + 2 attributes, a value",
            run: config_value_two_attributes,
        },
        Step {
            name: "  LaunchConfig::validate",
            run: validate_only,
        },
        Step {
            name: "  Kernel::__check_config",
            run: kernel_rules_only,
        },
        Step {
            name: "  Kernel::check_launch (every rule)",
            run: kernel_rules_each,
        },
    ]
}
