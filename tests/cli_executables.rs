//! Executables a user can ship (`datalove build`): the riders they need are copied beside
//! them and found there at start, wherever the directory is moved; a rider of another ABI
//! version, a missing rider or a missing native is `error: rider: ...` with exit 101
//! before the program starts; rider paths with colons and spaces work on every backend;
//! and `build --target` makes an executable for another architecture that runs under
//! that target's runner (qemu).

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{assert_ended, datalove, text, BACKENDS, EXECUTABLE_BACKENDS};
use datalove::Target;
use datalove_test_support::build_c_rider;
use datalove_test_support::riders::{cargo_command, run_cargo, BuildDirs};

/// A fresh scratch directory for test `name`, its path holding a space and a colon.
fn scratch(name: &str) -> PathBuf {
    datalove_test_support::fresh_dir(
        datalove_test_support::scratch_root()
            .join("cli-exe")
            .join(format!("{name} x:y")),
    )
}

/// Runs an executable built for this machine, through its runner if it has one.
fn run_executable(exe: &Path) -> Output {
    Target::current()
        .command(exe)
        .expect("a way to run the executable")
        .env("DATALOVE_CHECK_LEAKS", "1")
        .output()
        .expect("the executable starts")
}

const W_DLI: &str = "native fun w_add(a: i32, b: i32): i32\n";

/// The C rider `w`: `w_add(a, b)` is `a + b` (an `i32`), exporting `abi_version` as its
/// ABI version; built into `dir` with its interface beside it.
fn build_rider(dir: &Path, abi_version: u32, with_native: bool) {
    let native = if with_native {
        "uint8_t dlr_w__w_add(void *rt, int32_t *a, const dtlv_tydesc_t *ta, int32_t *b,\n\
         const dtlv_tydesc_t *tb, int32_t *out, const dtlv_tydesc_t *to) {\n\
         (void)rt; (void)ta; (void)tb; (void)to;\n  *out = *a + *b;\n  return 1;\n}\n"
    } else {
        ""
    };
    let source = format!(
        "#include <stdint.h>\n#include \"datalove_rti.h\"\n\
         uint32_t dtlv_rider_abi_version_w(void) {{ return {abi_version}; }}\n{native}"
    );
    build_c_rider(dir, "w", &source);
    std::fs::write(dir.join("w.dli"), W_DLI).expect("w.dli");
}

/// Scratch directory `name` holding the program ([`write_program`]) and, in its
/// subdirectory `riders`, the rider `w`: `(dir, riders, program)`. `None` without a C
/// compiler to build the rider, which is said on stderr.
fn with_rider(name: &str, riders: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
    if datalove_toolchain::unavailable_without_c_compiler("the C rider w") {
        return None;
    }
    let dir = scratch(name);
    let riders = dir.join(riders);
    build_rider(&riders, datalove_rti::ABI_VERSION, true);
    let program = write_program(&dir);
    Some((dir, riders, program))
}

/// A program using the `std` rider (through the strings module) and the rider `w`.
fn write_program(dir: &Path) -> PathBuf {
    common::program_with_module(
        dir,
        "wrap.dfm",
        "require rider w\nimport w.w_add\nfun add(a: i32, b: i32): i32\n  ret w_add(a, b)\nend fun\n",
        "import wrap.add\nimport strings.upper\ndebuglog add(40, 2)\ndebuglog upper(ref \"shipped\")\n",
    )
}

const EXPECTED: &str = "42\nSHIPPED\n";

/// The program ran to the end, printing [`EXPECTED`] and nothing on stderr.
fn assert_printed_expected(out: &Output, backend: &str) {
    assert_ended(out, backend, 0, EXPECTED, "");
}

/// `datalove run --check-leaks --backend B PROGRAM --rider-path R...`.
fn run_with_riders(backend: &str, program: &Path, riders: &[&Path]) -> Output {
    let mut command = datalove();
    command
        .args(["run", "--check-leaks", "--backend", backend])
        .arg(program);
    for dir in riders {
        command.arg("--rider-path").arg(dir);
    }
    command.output().expect("datalove runs")
}

/// `datalove build --backend B PROGRAM -o OUT --rider-path RIDERS`.
fn build(backend: &str, program: &Path, out: &Path, riders: &Path) {
    build_with(
        backend,
        program,
        out,
        &["--rider-path".as_ref(), riders.as_os_str()],
    );
}

/// `datalove build --backend B PROGRAM -o OUT MORE...`, which must succeed.
fn build_with(backend: &str, program: &Path, out: &Path, more: &[&OsStr]) {
    let built = datalove()
        .args(["build", "--backend", backend])
        .arg(program)
        .arg("-o")
        .arg(out)
        .args(more)
        .output()
        .expect("datalove runs");
    assert_eq!(
        built.status.code(),
        Some(0),
        "{backend}: {}",
        text(&built.stderr)
    );
}

#[test]
fn an_executable_moved_with_its_riders_beside_it_runs() {
    for backend in EXECUTABLE_BACKENDS {
        let Some((dir, riders, program)) = with_rider(&format!("moved {backend}"), "riders") else {
            return;
        };
        let built = dir.join("built");
        std::fs::create_dir_all(&built).expect("dir");
        build(backend, &program, &built.join("prog"), &riders);
        // `build` put every rider the program needs beside the executable.
        for rider in ["libdlr_w.so", "libdlr_std.so"] {
            assert!(built.join(rider).is_file(), "{backend}: {rider} beside it");
        }
        // Moved to another directory, the rider directory gone: it still runs.
        let moved = dir.join("elsewhere: moved");
        std::fs::rename(&built, &moved).expect("move the directory");
        std::fs::remove_dir_all(&riders).expect("remove the riders");
        let out = run_executable(&moved.join("prog"));
        assert_printed_expected(&out, backend);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn an_executable_whose_rider_is_another_abi_version_refuses_to_start() {
    let other_version = datalove_rti::ABI_VERSION + 1;
    for backend in EXECUTABLE_BACKENDS {
        let Some((dir, riders, program)) = with_rider(&format!("abi {backend}"), "riders") else {
            return;
        };
        let exe = dir.join("prog");
        build(backend, &program, &exe, &riders);
        let beside = dir.join("libdlr_w.so");

        // Nothing runs: one rider error line, exit 101.
        let refuses = |why: String| {
            let out = run_executable(&exe);
            assert_ended(&out, backend, 101, "", &format!("error: rider: {why}\n"));
        };

        // Replaced by a rider built for another ABI version.
        let foreign = dir.join("foreign");
        build_rider(&foreign, other_version, true);
        std::fs::copy(foreign.join("libdlr_w.so"), &beside).expect("replace the rider");
        refuses(format!(
            "rider `w` ({}) was built for datalove ABI version {other_version}, but this \
             runtime is ABI version {}; rebuild the rider",
            beside.display(),
            datalove_rti::ABI_VERSION
        ));

        // Replaced by one without the native the program calls.
        let lacking = dir.join("lacking");
        build_rider(&lacking, datalove_rti::ABI_VERSION, false);
        std::fs::copy(lacking.join("libdlr_w.so"), &beside).expect("replace the rider");
        refuses(format!(
            "symbol dlr_w__w_add not found in {}",
            beside.display()
        ));

        // Gone.
        std::fs::remove_file(&beside).expect("remove the rider");
        refuses(format!(
            "rider `w` not found: no libdlr_w.so in {}",
            dir.display()
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_rider_path_with_colons_and_spaces_works_on_every_backend() {
    let Some((dir, riders, program)) = with_rider("path", "my riders: the C ones") else {
        return;
    };
    for backend in BACKENDS {
        let out = run_with_riders(backend, &program, &[&riders]);
        assert_printed_expected(&out, backend);
    }
    for backend in EXECUTABLE_BACKENDS {
        let out_dir = dir.join(format!("out: {backend} here"));
        std::fs::create_dir_all(&out_dir).expect("dir");
        let exe = out_dir.join("the program");
        build(backend, &program, &exe, &riders);
        let out = run_executable(&exe);
        assert_printed_expected(&out, backend);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_interface_and_the_library_come_from_the_same_directory() {
    // The first directory has the library only, the second the interface only: the
    // rider is the second directory, which has no library.
    let Some((dir, library_only, program)) = with_rider("one rule", "library only") else {
        return;
    };
    std::fs::remove_file(library_only.join("w.dli")).expect("remove w.dli");
    let interface_only = dir.join("interface only");
    std::fs::create_dir_all(&interface_only).expect("dir");
    std::fs::write(interface_only.join("w.dli"), W_DLI).expect("w.dli");
    for backend in BACKENDS {
        let out = run_with_riders(backend, &program, &[&library_only, &interface_only]);
        assert_eq!(out.status.code(), Some(101), "{backend}");
        assert_eq!(
            text(&out.stderr),
            format!(
                "error: rider: rider `w` not found: no libdlr_w.so in {}, beside its interface {}\n",
                interface_only.display(),
                interface_only.join("w.dli").display()
            ),
            "{backend}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The other of x86-64 and aarch64.
fn other_target() -> Target {
    let triple = if Target::current().arch() == "aarch64" {
        "x86_64-unknown-linux-gnu"
    } else {
        "aarch64-unknown-linux-gnu"
    };
    Target::from_triple(triple).expect("a supported target")
}

/// The cargo target directory and profile `datalove` was built in (`target`, `dev`), so
/// that what is built for another target lands where `datalove build --target` looks:
/// `target/<triple>/<profile>`.
fn cargo_layout() -> (PathBuf, String) {
    let profile_dir = Path::new(env!("CARGO_BIN_EXE_datalove"))
        .parent()
        .expect("the CLI's directory");
    let (root, _) =
        datalove_rt::artifact::cargo_target_dir(profile_dir).expect("a target directory");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_string(),
        Some(other) => other.to_string(),
    };
    (root, profile)
}

/// Builds the runtime staticlib and the `std` rider for `target` with cargo, as a user
/// would before `datalove build --target`. `Err`: why that is not possible here.
fn build_runtime_for(target: &Target) -> Result<(), String> {
    let (target_dir, profile) = cargo_layout();
    let dirs = BuildDirs {
        target_dir,
        profile_dir: PathBuf::new(),
        profile,
        triple: Some(target.triple().to_string()),
    };
    let mut command = cargo_command(&dirs, &["datalove-rt", "datalove-rider-std"]);
    // The cross C compiler links the rider's cdylib unless a linker is configured.
    let linker = format!(
        "CARGO_TARGET_{}_LINKER",
        target.triple().to_uppercase().replace('-', "_")
    );
    if std::env::var_os(&linker).is_none() {
        command.env(&linker, &target.c_compiler().program);
    }
    run_cargo(
        command,
        &format!("the runtime for {target} (is the rustup target installed?)"),
    )
}

#[test]
fn build_for_another_target_makes_an_executable_that_runs_under_its_runner() {
    let target = other_target();
    let available = datalove_toolchain::probe_target(&target)
        .and_then(|_| target.runner().map(|_| ()))
        .and_then(|_| build_runtime_for(&target));
    if let Err(why) = available {
        eprintln!("unavailable: building for {target} here: {why}");
        return;
    }
    let dir = scratch("cross");
    let program = dir.join("main.dfs");
    std::fs::write(
        &program,
        "import strings.upper\nfun sq(x: i64): i64\n  ret x * x\nend fun\n\
         debuglog sq(12)\ndebuglog upper(ref \"far away\")\n",
    )
    .expect("program");
    for backend in EXECUTABLE_BACKENDS {
        let exe = dir.join(format!("prog-{backend}"));
        build_with(
            backend,
            &program,
            &exe,
            &["--target".as_ref(), target.triple().as_ref()],
        );
        assert_eq!(
            datalove_toolchain::elf_machine(&exe),
            target.elf_machine(),
            "{backend}: an executable for {target}"
        );
        assert_eq!(
            datalove_toolchain::elf_machine(&dir.join("libdlr_std.so")),
            target.elf_machine(),
            "{backend}: the std rider for {target} beside it"
        );
        let out = target
            .command(&exe)
            .expect("a runner")
            .env("DATALOVE_CHECK_LEAKS", "1")
            .output()
            .expect("the runner starts");
        assert_eq!(
            (out.status.code(), text(&out.stdout), text(&out.stderr)),
            (Some(0), "144\nFAR AWAY\n".to_string(), String::new()),
            "{backend} under {:?}",
            target.runner()
        );
    }
    // `emit clif` for the target too; an unknown target is refused.
    let clif = datalove()
        .args(["emit", "clif", "--target", target.triple()])
        .arg(&program)
        .output()
        .expect("datalove runs");
    assert_eq!(clif.status.code(), Some(0), "{}", text(&clif.stderr));
    assert!(text(&clif.stdout).contains("function"));
    let refused = datalove()
        .args(["build", "--target", "mips-unknown-linux-gnu"])
        .arg(&program)
        .arg("-o")
        .arg(dir.join("never"))
        .output()
        .expect("datalove runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("unsupported target `mips-unknown-linux-gnu`"),
        "{}",
        text(&refused.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
