//! The walk-throughs of `docs/riders.md`, done as a reader would: the C rider
//! `examples/riders/cgreet` compiled against its generated header with the system C
//! compiler, the Rust rider `examples/riders/wordtools` built with cargo (and
//! datalove-rider-build), each placed in a rider directory beside its interface and
//! called by its example program through `datalove run` on the interpreter and the C
//! backend. Where there is no working C compiler the tests that need one say so and pass.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::text;
use datalove_test_support::{fresh_dir, run_to_success};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    fresh_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("rider-examples")
            .join(name),
    )
}

fn datalove(args: &[&str]) -> Output {
    common::datalove_output(args)
}

fn c_compiler_works() -> bool {
    match datalove_toolchain::probe() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("unavailable: no working C compiler here ({why})");
            false
        }
    }
}

/// Puts the example's `rider.dli` beside its library in `riders` (as `<rider>.dli`), then
/// runs its `program` on every backend ([`run_everywhere`]).
fn install_interface_and_run(
    source: &Path,
    riders: &Path,
    rider: &str,
    program: &str,
    stdout: &str,
    error: &str,
) {
    std::fs::copy(
        source.join("rider.dli"),
        riders.join(format!("{rider}.dli")),
    )
    .unwrap();
    run_everywhere(riders, &source.join(program), stdout, error);
}

/// Runs `program` with the riders in `riders` on the interpreter and the C backend,
/// with the leak check on, and checks what it prints and its closing runtime error.
fn run_everywhere(riders: &Path, program: &Path, stdout: &str, error: &str) {
    let mut backends = vec!["interp"];
    if c_compiler_works() {
        backends.push("c");
    }
    for backend in backends {
        let out = datalove(&[
            "run",
            "--check-leaks",
            "--backend",
            backend,
            "--rider-path",
            riders.to_str().unwrap(),
            program.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(text(&out.stdout), stdout, "{backend}: {stderr}");
        assert_eq!(out.status.code(), Some(101), "{backend}: {stderr}");
        assert!(stderr.contains(error), "{backend}: {stderr}");
        // One error line (then the calls it was made from), no leak line.
        let errors = stderr.lines().filter(|l| l.starts_with("error: ")).count();
        assert_eq!(errors, 1, "{backend}: {stderr}");
    }
}

#[test]
fn c_rider_header_is_current() {
    let dir = repo().join("examples/riders/cgreet");
    let out = datalove(&["rider-header", dir.join("rider.dli").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let committed = std::fs::read_to_string(dir.join("dlr_cgreet.h")).unwrap();
    assert!(
        text(&out.stdout) == committed,
        "examples/riders/cgreet/dlr_cgreet.h is not what its rider.dli declares; regenerate it \
         with `datalove rider-header rider.dli -o dlr_cgreet.h`"
    );
}

#[test]
fn rider_header_reports_a_bad_dli() {
    let dir = scratch("bad-dli");
    let dli = dir.join("broken.dli");
    std::fs::write(&dli, "native fun f(x: strng)\n").unwrap();
    let out = datalove(&["rider-header", dli.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error[L003]: unknown type `strng`"),
        "{stderr}"
    );
    assert!(stderr.contains("broken.dli:1:17"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn c_rider_walkthrough() {
    if !c_compiler_works() {
        return;
    }
    let source = repo().join("examples/riders/cgreet");
    let riders = scratch("cgreet");
    let compiler = datalove::Target::current().c_compiler();
    run_to_success(
        compiler
            .command()
            .args([
                "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
            ])
            .arg("-I")
            .arg(repo().join("runtime/include"))
            .arg(source.join("cgreet.c"))
            .arg("-o")
            .arg(riders.join("libdlr_cgreet.so")),
    );
    install_interface_and_run(
        &source,
        &riders,
        "cgreet",
        "greet.dfs",
        "hip hip hip \n42\n",
        "error: native failure: cgreet.add_checked: the sum does not fit in an i32",
    );
}

#[test]
fn rust_rider_walkthrough() {
    if datalove_toolchain::unavailable_without_c_compiler(
        "building the Rust rider wordtools (the C compiler links it)",
    ) {
        return;
    }
    let source = repo().join("examples/riders/wordtools");
    let target = datalove::Target::current();
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rider-examples-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run_to_success(
        Command::new(cargo)
            .args(["build", "--quiet", "--manifest-path"])
            .arg(source.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir)
            .args(["--target", target.triple()])
            .env_remove("CARGO_TARGET_DIR"),
    );
    let riders = scratch("wordtools");
    std::fs::copy(
        target_dir
            .join(target.triple())
            .join("debug/libdlr_wordtools.so"),
        riders.join("libdlr_wordtools.so"),
    )
    .unwrap();
    install_interface_and_run(
        &source,
        &riders,
        "wordtools",
        "count.dfs",
        "4\nbrown\n",
        "error: native failure: wordtools.nth_word: no word 9 in a text of 4 words",
    );
}
