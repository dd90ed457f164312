//! End to end: programs emitted as C, compiled and linked with the runtime staticlib and
//! a rider library, run as processes with leak checking. The outcome (stdout, the
//! `error: <kind>: <detail>` line, exit code) is the runtime's, as on every backend.

mod common;

use datalove_cbackend::{build_executable, emit_c};
use datalove_ir::Program;

#[test]
fn the_shared_executable_cases_build_and_run() {
    datalove_test_support::check_executable_cases("c", build_executable);
}

fn from_text(script: &str) -> Program {
    datalove_test_support::program_from_text(script)
}

#[test]
fn emitted_c_carries_each_ir_instruction_as_a_comment() {
    // `a * 3` can overflow (nothing bounds `a` from above), so it stays checked.
    let program =
        from_text("var a: i32 = 2\nloop while a > 0\n  set a = a * 3\nend loop\ndebuglog a\n");
    let c = emit_c(&program).expect("emits");
    for inst in ["= const i32 2", "= mul", "else abandon", "debuglog"] {
        assert!(
            c.lines()
                .any(|l| l.trim_start().starts_with("/*") && l.contains(inst)),
            "a comment with `{inst}` in:\n{c}"
        );
    }
    // The sections, in their one order.
    let order = [
        "---- includes",
        "---- static descriptors",
        "---- natives",
        "---- function prototypes",
        "---- functions",
        "---- main",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|s| c.find(s).unwrap_or_else(|| panic!("section {s}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    assert!(c.contains("__builtin_mul_overflow"));
    assert!(c.contains("dtlv_rt_run_linked("));
}
