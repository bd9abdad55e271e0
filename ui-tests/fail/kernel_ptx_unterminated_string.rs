//! An unterminated string is an error at its line, not a file without kernels.
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_unterminated_string.ptx")]
fn k(n: u32);

fn main() {}
