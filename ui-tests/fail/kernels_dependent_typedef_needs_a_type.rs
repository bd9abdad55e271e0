// `bias4<float>(vec4<float>::Type*, int)`: the symbol spells the typedef, not `float4`.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["bias4"])]
mod k {}

fn main() {}
