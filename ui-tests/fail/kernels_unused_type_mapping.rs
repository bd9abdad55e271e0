// A `types(…)` entry no parameter has is a misspelling.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["plain"], types("Afine" = u64))]
mod k {}

fn main() {}
