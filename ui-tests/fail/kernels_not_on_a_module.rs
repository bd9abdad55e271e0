// `#[kernels]` fills a module.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx")]
fn k() {}

fn main() {}
