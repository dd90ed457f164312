//! The built `libdlr_std.so` links nothing of the runtime: every runtime entry point is
//! reached through the table `rt` points at, so its undefined dynamic symbols are only
//! the C library's, libgcc's and the loader's (and weak ones). It defines every native
//! `rider.dli` declares and the ABI-version export.
//!
//! `cargo test` does not necessarily produce the cdylib, so this builds it with the
//! toolchain running the test (`CARGO`), for the target the test was built for, into a
//! target directory of its own, and finds the artifact from cargo's JSON messages.

use std::path::{Path, PathBuf};
use std::process::Command;

use datalove_test_support::run_to_success;

fn build_cdylib() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("std-cdylib");
    let output = run_to_success(
        Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "--message-format=json",
                "--manifest-path",
            ])
            .arg(&manifest)
            .args(["-p", "datalove-rider-std", "--lib", "--target-dir"])
            .arg(&target)
            .arg("--target")
            .arg(datalove_toolchain::Target::current().triple())
            .env_remove("CARGO_TARGET_DIR"),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    // A compiler-artifact message lists its files as JSON strings; the cdylib is the
    // one ending in `libdlr_std.so`.
    for line in stdout.lines() {
        if !line.contains("\"compiler-artifact\"") || !line.contains("\"cdylib\"") {
            continue;
        }
        for piece in line.split('"') {
            if piece.ends_with("/libdlr_std.so") {
                return PathBuf::from(piece);
            }
        }
    }
    panic!("no libdlr_std.so among cargo's artifacts:\n{stdout}");
}

fn nm(lib: &Path, which: &str) -> Vec<String> {
    let output = run_to_success(Command::new("nm").args(["-D", which]).arg(lib));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn cdylib_links_nothing_of_the_runtime() {
    if datalove_toolchain::unavailable_without_c_compiler(
        "building the std cdylib (the C compiler links it)",
    ) {
        return;
    }
    let lib = build_cdylib();

    let undefined = nm(&lib, "--undefined-only");
    assert!(!undefined.is_empty(), "a Rust cdylib needs at least libc");
    let mut offending = Vec::new();
    for line in &undefined {
        // `                 U memcpy@GLIBC_2.14` or `                 w __gmon_start__`
        let mut parts = line.split_whitespace();
        let (Some(kind), Some(symbol)) = (parts.next(), parts.next()) else {
            continue;
        };
        let lower = symbol.to_ascii_lowercase();
        if lower.contains("dtlv") || lower.contains("datalove") || lower.contains("dlr_") {
            offending.push(line.clone());
            continue;
        }
        if kind == "w" || kind == "v" {
            continue;
        }
        // A strong undefined symbol must come from the C library, libgcc or the loader,
        // which version their symbols.
        let system = ["@GLIBC_", "@GCC_", "@LD_", "@GLIBC_PRIVATE"]
            .iter()
            .any(|v| symbol.contains(v));
        if !system {
            offending.push(line.clone());
        }
    }
    assert!(
        offending.is_empty(),
        "libdlr_std.so needs symbols that are not the system's:\n{}",
        offending.join("\n")
    );

    let defined: Vec<String> = nm(&lib, "--defined-only")
        .iter()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_owned))
        .collect();
    let dli = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("rider.dli"))
        .expect("rider.dli");
    let iface =
        datalove_ir::dli::parse_dli("std", datalove_ir::FileId(0), &dli).expect("rider.dli parses");
    assert_eq!(iface.natives.len(), 83);
    for native in &iface.natives {
        let symbol = datalove_ir::native_symbol("std", &native.name);
        assert!(
            defined.contains(&symbol),
            "{symbol} is not exported by libdlr_std.so"
        );
    }
    assert!(defined.contains(&datalove_rti::rider_abi_symbol("std")));
    // Nothing else of the runtime's is exported either.
    for symbol in &defined {
        assert!(
            symbol.starts_with("dlr_std__") || *symbol == datalove_rti::rider_abi_symbol("std"),
            "libdlr_std.so exports {symbol}"
        );
    }
}
