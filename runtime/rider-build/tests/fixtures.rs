//! Builds the fixture rider crates under `tests/fixtures/` with `cargo build`, as a rider
//! author would: one whose implementations agree with its `.dli` (builds), one whose
//! implementations disagree (a build error naming each native that disagrees), one whose
//! `.dli` has an error (the build script fails with the located diagnostic), one that
//! calls `export_rider!` while rider-build exports the ABI version too (the build script
//! fails naming the line and the fix, not a duplicate symbol).
//!
//! The fixtures are their own workspaces, built with the toolchain running this test
//! (`CARGO`), for the target this test was built for, into a target directory of their
//! own under this test's.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// `cargo build` of a fixture: (success, stderr). `None` without a C compiler, which
/// links every crate (said on stderr).
fn build(name: &str) -> Option<(bool, String)> {
    if datalove_toolchain::unavailable_without_c_compiler(&format!(
        "building the fixture {name} (the C compiler links it)"
    )) {
        return None;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rider-fixtures");
    let output = Command::new(cargo)
        .arg("build")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(fixture(name).join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .arg("--target")
        .arg(datalove_toolchain::Target::current().triple())
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Some((output.status.success(), stderr))
}

/// Builds a fixture that must fail, whose errors must say each of `says` and none of
/// `never`; nothing to check without a C compiler (see [`build`]).
fn build_fails_saying(name: &str, says: &[&str], never: &[&str]) {
    let Some((ok, stderr)) = build(name) else {
        return;
    };
    assert!(!ok, "the fixture {name} should not build:\n{stderr}");
    common::assert_says(&stderr, says, never);
}

#[test]
fn matching_rider_builds() {
    let Some((ok, stderr)) = build("matching_rider") else {
        return;
    };
    assert!(ok, "the matching fixture should build:\n{stderr}");
}

#[test]
fn mismatched_rider_fails_naming_the_natives() {
    // Each native that disagrees, the missing implementation by its symbol; the agreeing
    // native is not blamed.
    build_fails_saying(
        "mismatched_rider",
        &[
            "CHECK_bad_len",
            "CHECK_bad_result",
            "CHECK_missing_one",
            "mismatched types",
            "dlr_mismatched__missing_one",
        ],
        &["CHECK_good_one"],
    );
}

#[test]
fn bad_dli_fails_with_the_diagnostic() {
    build_fails_saying(
        "bad_dli_rider",
        &[
            "L003",
            "unknown type `strng`",
            "rider.dli:2:26",
            "did you mean `string`?",
        ],
        &[],
    );
}

#[test]
fn double_abi_export_fails_naming_the_fix() {
    // The call's line (not the commented one) is named, and the build stops before the
    // duplicate symbol.
    build_fails_saying(
        "double_export_rider",
        &[
            "src/lib.rs:13: `export_rider!` exports rider `double`'s ABI version",
            "export_abi_version(false)",
            "delete the `export_rider!` line",
        ],
        &["already defined"],
    );
}
