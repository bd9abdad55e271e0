//! Where `libcudadevrt.a` is looked for: `CHEVRON_CUDADEVRT` comes before every toolkit. One test
//! in its own binary, since the answer is cached for the process.

use chevron_cuda_runtime::{cudadevrt, CUDADEVRT_VAR};

#[test]
fn the_variable_names_the_library_before_any_toolkit() {
    let dir = std::env::temp_dir().join(format!("chevron-cudadevrt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("libcudadevrt.a");
    std::fs::write(&file, b"!<arch>\n").unwrap();
    // SAFETY: the only thread of this test binary that reads the environment.
    unsafe { std::env::set_var(CUDADEVRT_VAR, &file) };
    let found = cudadevrt();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.unwrap(), file);
}
