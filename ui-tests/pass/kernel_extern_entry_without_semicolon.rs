//! An `.extern .entry` without its `;` does not hide the entries after it.
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_extern_no_semicolon.ptx")]
pub fn k(n: u32);

fn main() {
    assert_eq!(k::kernel().name(), "k");
}
