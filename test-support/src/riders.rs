//! Preparing the test riders for the programs the conformance runner and difftest run:
//! where the running executable was built ([`BuildDirs`]), the `std` and `probe` riders
//! built by cargo into that target directory and profile ([`cargo_command`]), and the C
//! rider `cprobe` compiled with the target's C compiler ([`build_c_rider`]).
//!
//! Every file goes in by an atomic rename ([`copy`]), so a run that is using the riders
//! keeps the files it opened while another process prepares them again: rewriting a
//! shared library in place under a running program kills it with SIGBUS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support/ is inside the repository")
        .to_path_buf()
}

/// Where the running executable was built: `<target>/<profile dir>/[deps/]<exe>`, or
/// `<target>/<triple>/<profile dir>/...` for a `--target` build.
#[derive(Clone, Debug)]
pub struct BuildDirs {
    pub target_dir: PathBuf,
    pub profile_dir: PathBuf,
    /// The cargo profile (`dev` for `debug`).
    pub profile: String,
    /// The triple given to `--target`, when the executable was built with one.
    pub triple: Option<String>,
}

/// The [`BuildDirs`] of the running executable.
pub fn build_dirs() -> BuildDirs {
    let exe = std::env::current_exe().expect("the running executable's path");
    let mut profile_dir = exe.parent().expect("a directory").to_path_buf();
    if profile_dir.ends_with("deps") {
        profile_dir = profile_dir
            .parent()
            .expect("a profile directory")
            .to_path_buf();
    }
    let (root, triple) =
        datalove_rt::artifact::cargo_target_dir(&profile_dir).expect("a target directory");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|t| profile_dir.starts_with(t))
        .unwrap_or(root);
    let profile = match profile_dir.file_name().and_then(|s| s.to_str()) {
        Some("debug") | None => "dev".to_string(),
        Some(other) => other.to_string(),
    };
    BuildDirs {
        target_dir,
        profile_dir,
        profile,
        triple,
    }
}

/// `cargo build -p PACKAGE...` into `dirs`' target directory and profile, for its
/// `--target` when it has one (`dirs.profile_dir` is not read).
pub fn cargo_command(dirs: &BuildDirs, packages: &[&str]) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(repo_root()).args(["build", "--quiet"]);
    for package in packages {
        command.args(["-p", package]);
    }
    command
        .arg("--profile")
        .arg(&dirs.profile)
        .arg("--target-dir")
        .arg(&dirs.target_dir)
        .stdin(Stdio::null());
    if let Some(triple) = &dirs.triple {
        command.arg("--target").arg(triple);
    }
    command
}

/// Runs a [`cargo_command`]; `what` names what it builds in the error, which holds
/// cargo's messages.
pub fn run_cargo(mut command: Command, what: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "building {what} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// `cargo build -p datalove -p datalove-rider-std -p datalove-probe-rider`: the CLI and
/// the Rust riders, for the running executable's target directory, profile and target
/// ([`build_dirs`]). The CLI is named with the riders so that cargo resolves the riders'
/// features as for the tests that run the CLI: built alone they would differ, and each
/// build would replace the other's `libdlr_std.so`.
pub fn build_cli_and_riders(dirs: &BuildDirs) -> Result<(), String> {
    run_cargo(
        cargo_command(
            dirs,
            &["datalove", "datalove-rider-std", "datalove-probe-rider"],
        ),
        "the CLI and riders",
    )
}

/// A path beside `to` for writing before renaming over it, unique to this process.
fn staging(to: &Path) -> PathBuf {
    let name = to
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    to.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Copies `from` over `to` by a rename (`to` is replaced whole, never rewritten), unless
/// `to` already holds the same bytes.
pub fn copy(from: &Path, to: &Path) -> Result<(), String> {
    let fail =
        |e: std::io::Error| format!("cannot copy {} to {}: {e}", from.display(), to.display());
    let bytes = std::fs::read(from).map_err(fail)?;
    if std::fs::read(to).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let tmp = staging(to);
    std::fs::write(&tmp, &bytes).map_err(fail)?;
    std::fs::rename(&tmp, to).map_err(fail)
}

/// Compiles `conformance/riders/cprobe/cprobe.c` against the C header, with the target's
/// C compiler, into `libdlr_cprobe.so` in `riders_dir`, beside a copy of its `rider.dli`.
pub fn build_c_rider(riders_dir: &Path) -> Result<(), String> {
    let repo = repo_root();
    let source_dir = repo.join("conformance/riders/cprobe");
    let library = riders_dir.join("libdlr_cprobe.so");
    let linked = staging(&library);
    let compiler = datalove_toolchain::Target::current().c_compiler();
    let mut command = compiler.command();
    command
        .args([
            "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
        ])
        .arg("-I")
        .arg(repo.join("runtime/include"))
        .arg(source_dir.join("cprobe.c"))
        .arg("-o")
        .arg(&linked);
    datalove_toolchain::run_compiler(command, &compiler)
        .map_err(|e| format!("compiling {} failed: {e}", library.display()))?;
    // In by a rename: a program that loaded the old library keeps it.
    std::fs::rename(&linked, &library)
        .map_err(|e| format!("cannot move {} into place: {e}", library.display()))?;
    copy(
        &source_dir.join("rider.dli"),
        &riders_dir.join("cprobe.dli"),
    )
}

/// The CLI for the machine cargo runs on, when the running executable was built for
/// another target (`None` otherwise): built like [`build_cli_and_riders`] but without
/// `--target` (the same packages, so that a target directory the native tests used is
/// not rebuilt), into the same target directory and profile. A harness under an
/// emulator builds aot and c executables with it natively (`datalove run --target`),
/// running only the executables under the emulator.
pub fn build_host_cli(dirs: &BuildDirs) -> Option<Result<PathBuf, String>> {
    dirs.triple.as_ref()?;
    let host = BuildDirs {
        triple: None,
        ..dirs.clone()
    };
    let built = run_cargo(
        cargo_command(
            &host,
            &["datalove", "datalove-rider-std", "datalove-probe-rider"],
        ),
        "the host's CLI",
    );
    let profile_dir = match dirs.profile.as_str() {
        "dev" => "debug",
        other => other,
    };
    Some(built.map(|()| dirs.target_dir.join(profile_dir).join("datalove")))
}
