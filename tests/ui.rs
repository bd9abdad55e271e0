#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/fail/*.rs");
    t.pass("ui-tests/pass/*.rs");
}
