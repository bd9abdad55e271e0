//! User names equal to the expansion's own (locals; the names it calls: `kernel`, `launch`, the
//! literal check's `refusal_literal` and `raise`; imported items) neither capture nor are
//! captured by the generated code.
#![allow(dead_code, non_snake_case, clippy::all)]

use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::{config, launch};

mod other {
    pub fn launch() -> u32 {
        7
    }
    pub fn kernel() -> u32 {
        8
    }
    pub fn raise() -> u32 {
        9
    }
    pub fn refusal_literal() -> u32 {
        10
    }
}
use other::{kernel, launch, raise, refusal_literal};

/// Methods named like the builder's and the launcher's, on every type.
trait Everything {
    fn kernel() -> u32
    where
        Self: Sized,
    {
        0
    }
    fn launch(&self, _: u32) -> u32 {
        0
    }
    fn with(self, _: u32) -> Self
    where
        Self: Sized,
    {
        self
    }
    fn set(&mut self, _: usize, _: u32) {}
    fn param(&self) -> u32 {
        0
    }
    fn into_dim(self) -> u32
    where
        Self: Sized,
    {
        0
    }
}
impl<T> Everything for T {}

#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(
    s: &CudaStream,
    f: &CudaFunction,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    let __chevron_config = 1u32;
    let __chevron_stream = 2u32;
    let __chevron_grid = 3u32;
    let __chevron_block = 4u32;
    let __chevron_shared = 5u32;
    let __chevron_func = 6u32;
    let __chevron_arg = 7u32;
    let __chevron_slots = 8u32;
    let __chevron_v0 = 9u32;
    let __chevron_priority = 10i32;
    let __chevron_refusal = 11u32;
    let stream = s;
    unsafe {
        launch!(saxpy<<<__chevron_grid, __chevron_block * 64, stream,
            shared = __chevron_shared, priority = __chevron_priority>>>(
            n + __chevron_config + __chevron_stream + launch() + kernel() + __chevron_refusal,
            2.0, x, y))
    }?;
    // Literal grid and block: the launch rules' check (`refusal_literal`, `raise`) is generated.
    unsafe {
        launch!(saxpy<<<4, 64, stream>>>(raise() + refusal_literal() + __chevron_refusal, 2.0, x, y))
    }?;
    unsafe {
        chevron::launch!(dyn f<<<__chevron_grid, __chevron_block, stream,
            priority = __chevron_priority>>>(&__chevron_v0, &__chevron_arg, &__chevron_slots,
            &__chevron_func, x, &mut *y))
    }?;
    let cfg = config!(<<<__chevron_grid, __chevron_block, shared = __chevron_shared>>>);
    unsafe { chevron::launch!(saxpy<<<config = cfg, stream>>>(__chevron_config, 1.0, x, y)) }
}

fn main() {
    let __chevron_grid = 3u32;
    let cfg = config!(<<<__chevron_grid, 32, priority = 1>>>);
    assert_eq!(cfg.grid().x, 3);
    // The user's own names still mean what they meant.
    assert_eq!(launch() + kernel() + raise() + refusal_literal(), 34);
    assert_eq!(<u8 as Everything>::kernel(), 0);
    assert_eq!(__chevron_grid.into_dim(), 0);
}
