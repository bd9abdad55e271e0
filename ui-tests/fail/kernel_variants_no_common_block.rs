//! Two variants that fix different exact blocks: no launch fits both, and which one loads
//! depends on the GPU.
use chevron::kernel;

#[kernel(ptx = ["ui-tests/fixtures/variants_bounds_a.ptx", "ui-tests/fixtures/variants_bounds_b.ptx"])]
fn fixed(n: u32);

fn main() {}
