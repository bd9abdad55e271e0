use chevron::kernel;

#[kernel]
fn saxpy(n: u32);

fn main() {}
