//! A PTX declaration's `kernel()` without a GPU: each declaration has one kernel for the life of
//! the process (the runtime's table, by the declaration's type), the same from every thread and
//! every call, and two declarations of one entry have one each. CPU only: nothing is loaded
//! until a launch or a query in a CUDA context.

use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_again(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[test]
fn each_declaration_has_one_kernel_for_the_process() {
    let address = |k: &'static chevron::Typed<saxpy>| k as *const _ as usize;
    let again = |k: &'static chevron::Typed<saxpy_again>| k as *const _ as usize;
    // First calls from 8 threads at once, then more from this one.
    let seen: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| (address(saxpy::kernel()), again(saxpy_again::kernel()))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (a, b) = (address(saxpy::kernel()), again(saxpy_again::kernel()));
    assert!(
        seen.iter().all(|&s| s == (a, b)),
        "{seen:x?} against {a:x}, {b:x}"
    );
    assert_ne!(a, b, "two declarations share a kernel");
    // Each is its own declaration's: its name, the entry it names.
    let text = format!("{:?}", saxpy_again::kernel());
    assert!(
        text.contains("\"saxpy_again\"") && text.contains("Some(\"saxpy\")"),
        "{text}"
    );
    let text = format!("{:?}", saxpy::kernel());
    assert!(
        text.contains("name: \"saxpy\"") && !text.contains("saxpy_again"),
        "{text}"
    );
}
