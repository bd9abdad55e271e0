// An `extern "C"` kernel's PTX has only widths: `#[kernels]` asks for its Rust signature.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["c_scale"])]
mod k {}

fn main() {}
