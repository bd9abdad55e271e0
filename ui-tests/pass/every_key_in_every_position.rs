//! Every key in every position it is allowed in, in both value forms where it has two, through
//! the typed form; compiled, never launched (no GPU on the test machine).
// `programmatic_event` on saxpy, which never triggers its dependents, warns; the key is the point.
#![allow(deprecated)]
use chevron::cudarc::driver::{CudaEvent, CudaSlice, CudaStream};
use chevron::{
    launch, AccessPolicyWindow, ClusterScheduling, MemSyncDomain, MemSyncDomainMap,
    ProgrammaticEvent, SyncPolicy,
};

/// y = a·x + y. The options allow `programmatic_serialization` and `cooperative` on a kernel
/// that neither waits for the previous one nor syncs the grid.
#[chevron::kernel(ptx = "kernels/saxpy.ptx", name = "saxpy", pdl = "no_upstream_reads", cooperative = "co_resident")]
fn saxpy_co(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// The same kernel for plain launches (a `co_resident` one is only launched with `cooperative`).
#[chevron::kernel(ptx = "kernels/saxpy.ptx", pdl = "no_upstream_reads")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[allow(dead_code)]
#[allow(clippy::too_many_arguments)]
fn every_key(
    s: &CudaStream,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    ev: &CudaEvent,
    window: AccessPolicyWindow,
    on: bool,
) -> Result<(), chevron::Error> {
    let map = MemSyncDomainMap { default: 0, remote: 1 };
    // Launch list: every launch key.
    unsafe {
        launch!(saxpy_co<<<n.div_ceil(256), 256, s,
            shared = 1024,
            access_policy_window = window,
            cooperative,
            cluster = 2,
            cluster_scheduling = Spread,
            preferred_cluster = (4, 1, 1),
            programmatic_serialization,
            programmatic_event = ev,
            priority = -1,
            mem_sync_domain_map = map,
            mem_sync_domain = Remote,
            completion_event = ev,
            device_updatable = on,
            shared_carveout = 50,
            nvlink_centric = true,
        >>>(n, 2.0, x, y))
    }?;
    // Stream: every stream key.
    unsafe {
        launch!(saxpy<<<(8, 1, 1), (128, 2), s, stream(
            sync = Spin,
            priority = 0,
            mem_sync_domain = Default,
            mem_sync_domain_map = map,
            access_policy_window = window,
        )>>>(n, 2.0, x, y))
    }?;
    // Expression forms of enum-valued keys, flags set from expressions, every variant.
    let policy = SyncPolicy::BlockingSync;
    unsafe {
        launch!(saxpy<<<1, 1, s, stream(sync = policy), stream(priority = -2),
            cluster_scheduling = ClusterScheduling::LoadBalancing,
            mem_sync_domain = MemSyncDomain::Default, cooperative = false,
            programmatic_event = ProgrammaticEvent { event: ev, trigger_at_block_start: true },
            cluster = chevron::Dim3::new(1, 1, 1), preferred_cluster = 1u32>>>(n, 2.0, x, y))
    }?;
    for (i, sync) in [SyncPolicy::Auto, SyncPolicy::Yield].into_iter().enumerate() {
        unsafe {
            launch!(saxpy<<<1, 1, s, stream(sync = sync, priority = i as i32),
                cluster_scheduling = Default>>>(n, 2.0, x, y))
        }?;
    }
    unsafe { launch!(saxpy<<<1, 1, s, stream(sync = Auto), stream(mem_sync_domain = Remote)>>>(n, 2.0, x, y)) }?;
    unsafe { launch!(saxpy<<<1, 1, s, stream(sync = Yield)>>>(n, 2.0, x, y)) }?;
    unsafe { launch!(saxpy<<<1, 1, s, stream(sync = BlockingSync)>>>(n, 2.0, x, y)) }
}

fn main() {}
