//! The AOT backend: objects for this machine and for aarch64, and executables linked with
//! the runtime staticlib and a rider library, run as processes with leak checking.

use std::path::{Path, PathBuf};
use std::process::Command;

use datalove_clif_aot::{build_executable, emit_object, LinkInputs};
use datalove_ir::front::{compile, MemoryLoader};
use datalove_ir::Program;

const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;

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

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("datalove-aot-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Builds `libdlr_t.so` into `dir`.
fn build_test_rider(dir: &Path) {
    let source = dir.join("t.c");
    std::fs::write(&source, TEST_RIDER_C).expect("write t.c");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(dir.join("libdlr_t.so"))
        .arg(&source)
        .arg(format!("-I{}", include.display()))
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
    let dir = scratch(name);
    build_test_rider(&dir);
    let program = from_text(script);
    let runtime =
        datalove_rt::artifact::staticlib_for_current_exe().expect("the runtime staticlib");
    let inputs = LinkInputs {
        runtime,
        riders: vec![("t".into(), dir.clone())],
    };
    let exe = dir.join("program");
    build_executable(&program, &inputs, &exe).expect("links");
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
