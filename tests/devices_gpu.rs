//! A `DeviceSet` on the GPU, as many devices as the machine has (one H200: a set of one): the
//! same `#[kernel]` launched on every device and awaited together, results exact on each, one
//! module per context; configurations checked against every device's limits before anything
//! launches (the largest cooperative grid runs, one block more is refused on each device, as is
//! shared memory over the opt-in limit); NCCL communicators over the set (one rank per device)
//! summing exactly, or `Error::Unavailable` without libnccl. Run on a CUDA machine:
//! `cargo test --test devices_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::cudarc::nccl::{group_end, group_start, ReduceOp};
use chevron::{config, kernel, Cooperative, DeviceSet, Error, LaunchConfig};

#[path = "common/executor.rs"]
mod executor;

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "kernels/bigshared.ptx")]
fn bigshared(input: &CudaSlice<u32>, out: &mut CudaSlice<u32>, words: u32);

#[test]
#[ignore = "needs a CUDA GPU"]
fn one_kernel_on_every_device_awaited_together() -> TestResult {
    gpu::driver()?;
    let set = DeviceSet::all()?;
    let n = 1u32 << 20;
    let xs = set.map(|dev| {
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
        Ok(dev.stream().clone_htod(&x)?)
    })?;
    let mut ys = set.map(|dev| Ok(dev.stream().clone_htod(&vec![-1.0f32; n as usize])?))?;
    let cfg = config!(<<<n.div_ceil(256), 256>>>);
    set.check(|ctx| saxpy::kernel().function(ctx), &cfg)?;
    // a = 2 + the device's index: each device's result is its own.
    executor::block_on(set.launch(|dev| unsafe {
        let i = dev.index();
        saxpy::kernel().launch(dev.stream(), &cfg, (n, 2.0 + i as f32, &xs[i], &mut ys[i]))
    })?)?;
    for dev in &set {
        let i = dev.index();
        let a = 2.0 + i as f32;
        let y = dev.stream().clone_dtoh(&ys[i])?;
        for (j, v) in y.iter().enumerate() {
            assert_eq!(
                *v,
                a * (j % 1000) as f32 - 1.0,
                "device {}: y[{j}]",
                dev.ordinal()
            );
        }
        assert_eq!(
            chevron::__private::modules_loaded(dev.context(), "/kernels/saxpy.ptx"),
            1,
            "device {}",
            dev.ordinal()
        );
    }
    let functions = set.functions(|ctx| saxpy::kernel().function(ctx))?;
    println!(
        "saxpy on {} device(s) ({}), awaited together: results exact, one module per context, \
         functions {:?}",
        set.len(),
        set.iter()
            .map(|d| d.context().name().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", "),
        functions
            .iter()
            .map(|f| f.cu_function())
            .collect::<Vec<_>>()
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn configs_are_checked_against_every_devices_limits_before_launching() -> TestResult {
    gpu::driver()?;
    let set = DeviceSet::all()?;
    let block = 256u32;
    // The largest cooperative grid the smallest device allows.
    let most = set
        .iter()
        .map(|d| grid_rotate::kernel().max_cooperative_grid(d.context(), block, 0))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .min()
        .expect("a set has a device");
    let fits = LaunchConfig::new(most, block).with(Cooperative);
    set.check(|ctx| grid_rotate::kernel().function(ctx), &fits)?;
    // …and it runs on every device, with the grid barrier doing its work.
    let n = most * block;
    let input: Vec<i32> = (0..n as i32).collect();
    let ins = set.map(|d| Ok(d.stream().clone_htod(&input)?))?;
    let mut tmps = set.map(|d| Ok(d.stream().alloc_zeros::<i32>(n as usize)?))?;
    let mut outs = set.map(|d| Ok(d.stream().clone_htod(&vec![-7i32; n as usize])?))?;
    set.launch(|d| unsafe {
        let i = d.index();
        grid_rotate::kernel().launch(d.stream(), &fits, (&ins[i], &mut tmps[i], &mut outs[i], n))
    })?
    .wait()?;
    for d in &set {
        let out = d.stream().clone_dtoh(&outs[d.index()])?;
        for (t, v) in out.iter().enumerate() {
            assert_eq!(
                *v,
                input[(t + block as usize) % n as usize] * 3,
                "device {} [{t}]",
                d.ordinal()
            );
        }
    }
    // One block more: refused before anything launches, naming the device and the numbers.
    let over = LaunchConfig::new(most + 1, block).with(Cooperative);
    match set.check(|ctx| grid_rotate::kernel().function(ctx), &over) {
        Err(Error::OnDevice { device, source }) => {
            println!("refused on device {device}: {source}");
            match *source {
                Error::CooperativeTooLarge {
                    requested,
                    co_resident,
                    ..
                } => {
                    assert_eq!(requested, u64::from(most) + 1);
                    assert_eq!(co_resident, u64::from(most));
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    // Shared memory over the opt-in limit of every device.
    let optin = set
        .iter()
        .map(|d| {
            d.context().attribute(
                chevron::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let too_much = LaunchConfig::new(1, 256).shared(*optin.iter().max().unwrap() as u32 + 4);
    match set.check(|ctx| bigshared::kernel().function(ctx), &too_much) {
        Err(e @ Error::OnDevice { .. }) => {
            let Error::OnDevice { source, .. } = &e else {
                unreachable!()
            };
            assert!(
                matches!(**source, Error::SharedMemoryTooLarge { .. }),
                "{e}"
            );
            println!("{e}");
        }
        other => panic!("{other:?}"),
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_set_names_each_device_once() -> TestResult {
    gpu::driver()?;
    match DeviceSet::new([0, 0]) {
        Err(e @ Error::Unavailable { .. }) => {
            assert!(e.to_string().contains("device 0 is listed twice"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    match DeviceSet::new([]) {
        Err(Error::Unavailable { .. }) => {}
        other => panic!("{other:?}"),
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn nccl_all_reduce_over_the_set() -> TestResult {
    gpu::driver()?;
    let set = DeviceSet::all()?;
    let comms = match set.nccl() {
        Ok(comms) => comms,
        Err(e @ Error::Unavailable { .. }) => {
            assert!(!chevron::nccl_present());
            println!("SKIPPED nccl_all_reduce_over_the_set: {e}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    assert_eq!(comms.len(), set.len());
    let n = 1 << 16;
    // Rank r holds r + 1 + i/n: the sum over ranks is known exactly.
    let mut bufs = set.map(|d| {
        let v: Vec<f32> = (0..n)
            .map(|i| (d.index() + 1) as f32 + i as f32 / n as f32)
            .collect();
        Ok(d.stream().clone_htod(&v)?)
    })?;
    // One thread drives every rank: the collectives go in one group.
    let mut all_reduce = || -> Result<(), Error> {
        group_start()?;
        for (comm, buf) in comms.iter().zip(bufs.iter_mut()) {
            comm.all_reduce_in_place(buf, &ReduceOp::Sum)?;
        }
        group_end()?;
        Ok(())
    };
    all_reduce()?;
    executor::block_on(set.completion())?;
    let ranks = set.len();
    let base = (ranks * (ranks + 1) / 2) as f32;
    for d in &set {
        let got = d.stream().clone_dtoh(&bufs[d.index()])?;
        for (i, v) in got.iter().enumerate() {
            let want = base + ranks as f32 * (i as f32 / n as f32);
            assert!(
                (v - want).abs() <= 1e-5 * want,
                "device {} [{i}]: {v} vs {want}",
                d.ordinal()
            );
        }
    }
    println!(
        "NCCL all-reduce over {ranks} rank(s) ({} floats each): sums exact",
        n
    );
    Ok(())
}
