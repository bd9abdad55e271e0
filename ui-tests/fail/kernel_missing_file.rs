use chevron::kernel;

#[kernel(ptx = "kernels/no_such_file.ptx")]
fn saxpy(n: u32);

fn main() {}
