// `pixels(Pixel*, int)`: chevron has no Rust type for a pointer to the struct `Pixel`.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["pixels"])]
mod k {}

fn main() {}
