//! Grids, blocks and `shared` may be `usize`, `u64` or `i32` (what `len()`, `size_of` and
//! unsuffixed integers give); a value outside `u32` is refused when the config is validated,
//! which every launch does first.
use chevron::{config, Dim3};

fn main() {
    let data = vec![0f32; 10_000];
    let cfg = config!(<<<data.len().div_ceil(256), 256, shared = core::mem::size_of::<f32>() * 256>>>);
    assert_eq!(cfg.grid(), Dim3::new(40, 1, 1));
    assert_eq!(cfg.shared_bytes(), 1024);
    assert_eq!(cfg.validate(), Ok(()));

    let (rows, cols): (u64, i32) = (3, 4);
    let cfg = config!(<<<(rows, cols, 2u32), (32 as usize, 8)>>>);
    assert_eq!(cfg.grid(), Dim3::new(3, 4, 2));
    assert_eq!(cfg.block(), Dim3::new(32, 8, 1));
    assert_eq!(cfg.validate(), Ok(()));

    // An unsuffixed integer variable falls back to `i32`, which is accepted.
    let n = 1 << 20;
    let cfg = config!(<<<n / 256, 256>>>);
    assert_eq!(cfg.grid(), Dim3::new(4096, 1, 1));

    let huge = usize::MAX;
    let err = config!(<<<huge, 256>>>).validate().unwrap_err().to_string();
    assert_eq!(err, "grid x is 18446744073709551615, which does not fit in `u32`");
    let minus = -2i32;
    let err = config!(<<<1, (32, minus)>>>).validate().unwrap_err().to_string();
    assert_eq!(err, "block y is -2: it is negative");
    let bytes = u64::MAX;
    let err = config!(<<<1, 1, shared = bytes>>>).validate().unwrap_err().to_string();
    assert_eq!(err, "shared is 18446744073709551615, which does not fit in `u32`");
    // In range but over a limit: the usual check.
    let wide = 2048usize;
    let err = config!(<<<1, wide>>>).validate().unwrap_err().to_string();
    assert_eq!(err, "block x is 2048; the limit is 1024");
}
