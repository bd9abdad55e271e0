//! An entry name must be a PTX identifier.
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_entry_named_42.ptx")]
fn k(n: u32);

fn main() {}
