//! A parameter list without its `(` is an error, not zero parameters.
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_missing_paren.ptx")]
fn k(n: u32);

fn main() {}
