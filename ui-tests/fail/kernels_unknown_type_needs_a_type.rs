// `half2_scale(__half2*, int)`: chevron has no Rust type for `__half2`.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["half2_scale"])]
mod k {}

fn main() {}
