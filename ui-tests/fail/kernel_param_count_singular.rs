//! One parameter is "1 parameter".
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_many_entries.ptx")]
fn k0(n: u32);

fn main() {}
