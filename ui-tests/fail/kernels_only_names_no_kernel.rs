// `only` and `skip` name kernels of the file; a misspelled one lists them.
#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["plain", "plian"], skip = ["afine"])]
mod k {}

fn main() {}
