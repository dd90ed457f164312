//! End to end: programs emitted as C, compiled and linked with the runtime staticlib and
//! a rider library, run as processes with leak checking. The outcome (stdout, the
//! `error: <kind>: <detail>` line, exit code) is the runtime's, as on every backend.

mod common;

use std::path::Path;
use std::process::Command;

use datalove_cbackend::{build_executable, emit_c, LinkInputs};
use datalove_ir::front::{compile, MemoryLoader};
use datalove_ir::Program;

const TEST_DLI: &str = "native fun t_fail(): i32\nnative fun t_seven(): i32\n";
const TEST_MODULE: &str = "require rider t\nimport t.t_fail\nimport t.t_seven\n\
fun fail(): i32\n  ret t_fail()\nend fun\nfun seven(): i32\n  ret t_seven()\nend fun\n";

/// The test rider `t`, in C against the ABI header.
const TEST_RIDER_C: &str = r#"
#include "datalove_rti.h"
uint8_t dlr_t__t_fail(void *rt, int32_t *out, const dtlv_tydesc_t *td) {
    (void)out; (void)td;
    dtlv_rti_error_set(rt, (const uint8_t *)"no luck", 7);
    return 0;
}
uint8_t dlr_t__t_seven(void *rt, int32_t *out, const dtlv_tydesc_t *td) {
    (void)rt; (void)td;
    *out = 7;
    return 1;
}
"#;

fn from_text(script: &str) -> Program {
    let loader = MemoryLoader::new()
        .with_rider("t", TEST_DLI)
        .with_module("m", TEST_MODULE);
    match compile(&loader, "main.dfs", script) {
        Ok(c) => c.program,
        Err(failed) => panic!("{}", failed.render()),
    }
}

/// Builds `libdlr_t.so` into `dir`.
fn build_test_rider(dir: &Path) {
    common::write_headers(dir);
    let source = dir.join("t.c");
    std::fs::write(&source, TEST_RIDER_C).expect("write t.c");
    let status = Command::new(datalove_cbackend::compile::compiler())
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(dir.join("libdlr_t.so"))
        .arg(&source)
        .arg(format!("-I{}", dir.display()))
        .status()
        .expect("run cc");
    assert!(status.success(), "the test rider compiles");
}

struct Ran {
    stdout: String,
    stderr: String,
    exit: i32,
}

fn build_and_run(name: &str, script: &str) -> Ran {
    let dir = common::scratch(name);
    build_test_rider(&dir);
    let program = from_text(script);
    let runtime =
        datalove_rt::artifact::staticlib_for_current_exe().expect("the runtime staticlib");
    let inputs = LinkInputs {
        runtime,
        riders: vec![("t".into(), dir.clone())],
    };
    let exe = dir.join("program");
    if let Err(e) = build_executable(&program, &inputs, &exe) {
        panic!("builds: {e}");
    }
    let output = Command::new(&exe)
        .env("DATALOVE_CHECK_LEAKS", "1")
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    Ran {
        stdout: String::from_utf8(output.stdout).expect("UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8"),
        exit: output.status.code().expect("exited, not killed"),
    }
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
