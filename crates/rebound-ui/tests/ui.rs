//! Runs the compile-fail cases in `tests/ui/` and compares the compiler's messages with the
//! `.stderr` files beside them (`TRYBUILD=overwrite cargo test -p rebound-ui` rewrites them;
//! read the diff before committing).

#[test]
fn mistakes_in_hook_closures_are_named_at_the_setter() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
