//! The CI smoke mode: every benchmark program at its check size on every backend (and
//! every peer whose tool is installed), output checked against the known output,
//! nothing timed. A missing peer is reported unavailable, never failed.

use std::process::Command;

#[test]
fn every_program_prints_the_expected_output_on_every_backend() {
    if datalove_toolchain::unavailable_without_c_compiler(
        "the C baseline and the aot and c backends",
    ) {
        return;
    }
    let out_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("benches-smoke");
    let output = Command::new(env!("CARGO_BIN_EXE_datalove-benches"))
        .arg("smoke")
        .arg("--out")
        .arg(&out_dir)
        .env_remove("DATALOVE_RIDER_PATH")
        .env_remove("DATALOVE_CHECK_LEAKS")
        .output()
        .expect("the harness runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "smoke failed:\n{stdout}\n{stderr}");
    // Every benchmark is in the matrix, and datalove's four backends ran each one.
    for b in datalove_benches::programs::BENCHMARKS {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(b.name))
            .unwrap_or_else(|| panic!("no row for {}:\n{stdout}", b.name));
        let cells: Vec<&str> = row.split_whitespace().collect();
        // name, C -O2, interp, jit, aot, c, ...
        assert_eq!(&cells[1..6], ["ok"; 5], "{}: {row}\n{stdout}", b.name);
    }
}

#[test]
fn exec_reports_its_phases_and_passes_the_arguments() {
    let program = datalove_benches::programs::find("fib").unwrap().file("dfs");
    let output = Command::new(env!("CARGO_BIN_EXE_datalove-benches"))
        .args(["exec", "run", "--backend", "jit"])
        .arg(&program)
        .args(["--", "10"])
        .output()
        .expect("the harness runs");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "55\n");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let phases = stderr
        .lines()
        .find_map(datalove_benches::measure::Phases::parse)
        .unwrap_or_else(|| panic!("no phases line: {stderr}"));
    assert!(phases.front_ms > 0.0);
    assert!(phases.compile_ms.is_some_and(|c| c > 0.0), "{stderr}");
}
