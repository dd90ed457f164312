//! The AOT backend: objects for this machine and for aarch64, and executables linked with
//! the runtime staticlib and a rider library, run as processes with leak checking.

use datalove_clif_aot::{build_executable, emit_object};
use datalove_ir::Program;
use datalove_test_support::Ran;

const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;

fn from_text(script: &str) -> Program {
    datalove_test_support::program_from_text(script)
}

fn e_machine(object: &[u8]) -> u16 {
    assert_eq!(&object[..4], b"\x7fELF", "an ELF object");
    u16::from_le_bytes([object[18], object[19]])
}

#[test]
fn objects_for_this_machine_and_for_aarch64() {
    let program = from_text(
        "fun sq(x: i64): i64\n  ret x * x\nend fun\nlet xs: [i64] = [sq(3)]\ndebuglog xs\n",
    );
    let arm = emit_object(&program, Some("aarch64-unknown-linux-gnu")).expect("aarch64 object");
    assert_eq!(e_machine(&arm), EM_AARCH64);
    if cfg!(target_arch = "x86_64") {
        let host = emit_object(&program, None).expect("host object");
        assert_eq!(e_machine(&host), EM_X86_64);
    }
}

fn build_and_run(name: &str, script: &str) -> Ran {
    datalove_test_support::build_and_run("aot", name, script, build_executable)
}

#[test]
fn an_executable_prints_and_exits_zero() {
    let ran = build_and_run(
        "ok",
        "import m.seven\nfun id<T>(x: T): T\n  ret x\nend fun\ndebuglog id(\"hello\")\ndebuglog id([seven()])\ndebuglog 2.5 * 4.0\n",
    );
    assert_eq!(ran.stdout, "hello\n[7]\n10.0\n");
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
    assert_eq!(ran.stderr, "error: overflow: u8 addition\n");
    assert_eq!(ran.exit, 101);
}

#[test]
fn an_executable_survives_deep_recursion() {
    let ran = build_and_run(
        "deep",
        "fun down<T>(x: T, n: u64): u64\n  ret down(x, n + 1) + 1\nend fun\ndebuglog down(\"s\", 0)\n",
    );
    assert_eq!(ran.stdout, "");
    assert_eq!(
        ran.stderr,
        "error: stack overflow: call depth limit of 1000000 reached\n"
    );
    assert_eq!(ran.exit, 101);
}
