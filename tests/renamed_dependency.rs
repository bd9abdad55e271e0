//! chevron under another dependency name (`gpu = { package = "chevron-cuda" }`, as the
//! README's name note invites): `#[kernel]`, `launch!` and `config!` expand to paths that
//! resolve. Probe crates are built against this workspace (see `common/probe.rs`): one renaming
//! the dependency in its own `[dependencies]`, one inheriting the renamed dependency from its
//! workspace, and one reaching chevron through a re-export with `#[kernel(crate = "…")]`.

#[path = "common/probe.rs"]
mod probe;

use probe::Probe;

/// Every macro, used as a user of a renamed dependency writes them: through the new name, and
/// imported. The functions are compiled (type-checked, code generated), never run.
const SOURCE: &str = r#"//! Renamed-dependency probe.
use gpu::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use gpu::{config, kernel, launch};

/// y = a·x + y
#[gpu::kernel(ptx = "k.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// The same entry, through the imported attribute.
#[kernel(ptx = "k.ptx", name = "saxpy")]
pub fn saxpy_again(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

pub fn run(
    s: &CudaStream,
    f: &CudaFunction,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), gpu::Error> {
    let cfg = config!(<<<4, 256, shared = 0, stream(sync = Spin)>>>);
    unsafe { launch!(saxpy<<<4, 256, s, priority = 0>>>(1024, 2.0, x, &mut *y)) }?;
    unsafe { launch!(saxpy_again<<<config = cfg, s>>>(1024, 2.0, x, &mut *y)) }?;
    unsafe { gpu::launch!(dyn f<<<4, 256, s>>>(&1024u32, &2.0f32, x, &mut *y)) }?;
    unsafe { saxpy::kernel().launch(s, &gpu::config!(<<<4, 256>>>), (1024, 2.0, x, y)) }
}
"#;

/// Builds a probe named `name` with `dependencies` and `workspace_table` (see
/// [`Probe::with_dependencies`]) whose `src/lib.rs` is `source`; it must build.
fn build_probe(name: &str, dependencies: &str, workspace_table: &str, source: &str) {
    let ptx =
        std::fs::read_to_string(probe::workspace().join("kernels/saxpy.ptx")).expect("saxpy.ptx");
    let probe = Probe::with_dependencies(
        name,
        dependencies,
        workspace_table,
        &[("src/lib.rs", source), ("k.ptx", &ptx)],
    );
    let out = probe.build(&[]);
    assert!(
        out.status.success(),
        "the probe in {} does not build:\n{}",
        probe.dir.display(),
        probe::text(&out)
    );
}

#[test]
fn every_macro_works_under_a_renamed_dependency() {
    let ws = probe::workspace().display().to_string();
    build_probe(
        "renamed-probe",
        &format!("gpu = {{ package = \"chevron-cuda\", path = {ws:?} }}"),
        "",
        SOURCE,
    );
}

#[test]
fn a_renamed_workspace_dependency_is_found_in_the_workspace() {
    let ws = probe::workspace().display().to_string();
    build_probe(
        "renamed-workspace-probe",
        "gpu = { workspace = true }",
        &format!("[workspace.dependencies]\ngpu = {{ package = \"chevron-cuda\", path = {ws:?} }}"),
        SOURCE,
    );
}

#[test]
fn the_crate_option_reaches_chevron_through_a_reexport() {
    // The kernel names chevron through `crate::gpu_again`, a re-export, as a crate depending
    // on chevron only through another crate's re-export would.
    let source = format!(
        "{}\npub mod again {{ pub use gpu as chevron_again; }}\n\n\
         #[gpu::kernel(ptx = \"k.ptx\", name = \"saxpy\", crate = \"crate::again::chevron_again\")]\n\
         pub fn saxpy_reexported(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);\n",
        SOURCE
    );
    let ws = probe::workspace().display().to_string();
    build_probe(
        "reexport-probe",
        &format!("gpu = {{ package = \"chevron-cuda\", path = {ws:?} }}"),
        "",
        &source,
    );
}
