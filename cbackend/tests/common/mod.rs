//! Shared by the tests: scratch directories and the C compiler with the backend's headers.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn scratch(name: &str) -> PathBuf {
    datalove_test_support::scratch_dir(&format!("c-test-{name}"))
}

/// Writes the two headers the emitted C includes into `dir`.
pub fn write_headers(dir: &Path) {
    std::fs::write(
        dir.join(datalove_cbackend::RTI_HEADER_NAME),
        datalove_cbackend::RTI_HEADER,
    )
    .expect("write the ABI header");
    std::fs::write(
        dir.join(datalove_cbackend::HELPERS_HEADER_NAME),
        datalove_cbackend::HELPERS_HEADER,
    )
    .expect("write the helpers header");
}

/// Compiles `source` (with the headers beside it) into an executable and runs it; its stdout.
pub fn compile_and_run(dir: &Path, source: &str) -> String {
    write_headers(dir);
    let c = dir.join("t.c");
    std::fs::write(&c, source).expect("write the C");
    let exe = dir.join("t");
    datalove_test_support::run_to_success(
        datalove_cbackend::compiler()
            .command()
            .args(datalove_cbackend::C_FLAGS)
            .arg(format!("-I{}", dir.display()))
            .arg("-o")
            .arg(&exe)
            .arg(&c)
            .arg("-lm"),
    );
    let run = datalove_test_support::run_command(&exe)
        .output()
        .expect("run the program");
    assert!(run.status.success(), "the program exits 0");
    String::from_utf8(run.stdout).expect("UTF-8")
}
