// `affine(float*, Affine, int)`: a struct by value needs the user's `#[repr(C)]` type.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["affine"])]
mod k {}

fn main() {}
