//! Only regular files are read: a directory, or a device that would never end.
use chevron::kernel;

#[kernel(ptx = "kernels")]
fn in_a_directory(n: u32);

#[kernel(ptx = "/dev/zero")]
fn endless(n: u32);

fn main() {}
