//! Lists in messages are capped: the first names, then how many more.
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_many_entries.ptx")]
fn not_there();

#[kernel(ptx = "ui-tests/fixtures/kernel_many_params.ptx")]
fn wide();

fn main() {}
