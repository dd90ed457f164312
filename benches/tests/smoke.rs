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
    // Every benchmark is in the matrix, and datalove's four backends and its reference
    // (C, or Rust std for the collection programs) ran each one. The matrix is a name in
    // 16 characters, then one cell of 14 per version, right-aligned (labels have
    // spaces, so it is cut by position).
    let cells = |line: &str| -> Vec<String> {
        let chars: Vec<char> = line.chars().collect();
        let mut cells = vec![chars[..16.min(chars.len())].iter().collect::<String>()];
        cells.extend(
            chars
                .get(16..)
                .unwrap_or_default()
                .chunks(14)
                .map(|c| c.iter().collect()),
        );
        cells
            .iter()
            .map(|c: &String| c.trim().to_string())
            .collect()
    };
    let header = cells(stdout.lines().next().unwrap_or_default());
    let column = |label: &str| {
        header
            .iter()
            .position(|h| h == label)
            .unwrap_or_else(|| panic!("no column {label}:\n{stdout}"))
    };
    for b in datalove_benches::programs::BENCHMARKS {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(b.name))
            .unwrap_or_else(|| panic!("no row for {}:\n{stdout}", b.name));
        let row = cells(row);
        for v in ["interp", "jit", "aot", "c"] {
            assert_eq!(row[column(v)], "ok", "{} on {v}:\n{stdout}", b.name);
        }
        let reference = &row[column(b.reference().label())];
        // rustc comes with cargo, but a missing one is n/a, never a failure.
        let fine: &[&str] = match b.reference() {
            datalove_benches::versions::Version::RustStd => &["ok", "n/a"],
            _ => &["ok"],
        };
        assert!(
            fine.contains(&reference.as_str()),
            "{}: its reference printed {reference}:\n{stdout}",
            b.name
        );
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
