//! Compile-time behaviour of the macros: `ui-tests/fail/*.rs` must fail with the messages in the
//! matching `.stderr`; `ui-tests/pass/*.rs` must compile and run. Regenerate snapshots with
//! `TRYBUILD=overwrite cargo test --test ui`, then read every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/fail/*.rs");
    t.pass("ui-tests/pass/*.rs");
}
