//! With CR-only line endings, errors still name the right line and quote only it.
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_cr_only.ptx")]
fn k(n: u32);

fn main() {}
