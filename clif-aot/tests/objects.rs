//! The AOT backend: objects for this machine and for aarch64, and executables linked with
//! the runtime staticlib and a rider library, run as processes with leak checking.

use datalove_clif_aot::{build_executable, emit_object};
use datalove_ir::Program;

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

#[test]
fn the_shared_executable_cases_build_and_run() {
    datalove_test_support::check_executable_cases("aot", build_executable);
}
