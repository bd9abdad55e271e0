use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_bad.ptx")]
fn broken(n: u32);

fn main() {}
