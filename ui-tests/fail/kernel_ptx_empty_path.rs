//! An empty path is reported once, without reading the crate root as a file.
use chevron::kernel;

#[kernel(ptx = "")]
fn k(n: u32);

fn main() {}
