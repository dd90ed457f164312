//! End to end: programs emitted as C, compiled and linked with the runtime staticlib and
//! a rider library, run as processes with leak checking. The outcome (stdout, the
//! `error: <kind>: <detail>` line, exit code) is the runtime's, as on every backend.

mod common;

use datalove_cbackend::{build_executable, emit_c};
use datalove_ir::Program;
use datalove_test_support::Ran;

fn build_and_run(name: &str, script: &str) -> Ran {
    datalove_test_support::build_and_run("c", name, script, build_executable)
}

fn from_text(script: &str) -> Program {
    datalove_test_support::program_from_text(script)
}

#[test]
fn an_executable_prints_and_exits_zero() {
    let ran = build_and_run(
        "ok",
        "import m.seven\ndebuglog \"hello\"\ndebuglog [seven(), 8]\ndebuglog 2.5 * 4.0\ndebuglog 0.1 + 0.2\n",
    );
    assert_eq!(ran.stdout, "hello\n[7, 8]\n10.0\n0.30000000000000004\n");
    assert_eq!(ran.stderr, "");
    assert_eq!(ran.exit, 0);
}

#[test]
fn an_executable_reports_a_failing_native() {
    let ran = build_and_run(
        "fail",
        "import m.fail\nlet s = \"kept\" ++ \"!\"\ndebuglog 1\ndebuglog fail()\ndebuglog s\n",
    );
    assert_eq!(ran.stdout, "1\n");
    assert_eq!(ran.stderr, "error: native failure: t.t_fail: no luck\n");
    assert_eq!(ran.exit, 101);
}

#[test]
fn an_executable_reports_overflow() {
    let ran = build_and_run(
        "overflow",
        "let a: u8 = 200\nlet b: u8 = 100\ndebuglog a + b\n",
    );
    assert_eq!(ran.stdout, "");
    assert_eq!(ran.stderr, "error: overflow: u8 addition\n");
    assert_eq!(ran.exit, 101);
}

#[test]
fn deep_recursion_is_a_stack_overflow_error() {
    let ran = build_and_run(
        "deep",
        "fun down(n: u64, ref s: string): u64\n  let t = [s ++ \".\"]\n  ret down(n + 1, ref s) + len(t) as u64\nend fun\ndebuglog \"before\"\ndebuglog down(0, ref \"s\")\n",
    );
    assert_eq!(ran.stdout, "before\n");
    assert_eq!(
        ran.stderr,
        "error: stack overflow: call depth limit of 1000000 reached\n"
    );
    assert_eq!(ran.exit, 101);
}

#[test]
fn a_generic_function_runs_on_descriptors() {
    let ran = build_and_run(
        "generic",
        "fun first<T>(ref xs: [T]): ?T\n  if len(xs) == 0\n    ret none\n  end if\n  ret some(xs[0])\nend fun\n\
fun pair<T>(x: T): (T, [T])\n  let y = x\n  ret (y, [])\nend fun\n\
let words: [string] = [\"x\", \"y\"]\ndebuglog first(ref words)\nlet empty: [u8] = []\ndebuglog first(ref empty)\n\
debuglog pair(\"p\")\ndebuglog pair(3i64)\n",
    );
    assert_eq!(ran.stdout, "some(\"x\")\nnone\n(\"p\", [])\n(3, [])\n");
    assert_eq!(ran.stderr, "");
    assert_eq!(ran.exit, 0);
}

#[test]
fn emitted_c_carries_each_ir_instruction_as_a_comment() {
    let program = from_text("let a: i32 = 2\nlet b = a * 3\ndebuglog b\n");
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
        "---- native prototypes",
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
    assert!(c.contains("dtlv_rt_run_main("));
}
