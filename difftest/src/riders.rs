//! Preparing what the runner needs: the `datalove` CLI, the `std` and `probe` riders
//! (built by cargo into the caller's target directory and profile, for the caller's
//! target), and the C rider `cprobe` (compiled with the target's C compiler), gathered
//! with their interfaces in one rider directory per profile,
//! `<target>/difftest/<profile>/riders/` (for a `--target` build,
//! `<target>/difftest/<triple>/<profile>/riders/`).
//!
//! Every file goes in by an atomic rename, so a run that is using the riders (a long run,
//! an executable that loads them) keeps the files it opened while another process
//! prepares them again: rewriting a shared library in place under a running program
//! kills it with SIGBUS.
//!
//! The conformance runner (`tests/conformance.rs`) prepares the same riders for its
//! cases in `<target>/conformance/riders/`; this is the same recipe for a crate that
//! cannot reach a test file's code.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("difftest/ is inside the repository")
        .to_path_buf()
}

/// What the runner runs with.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The `datalove` CLI.
    pub datalove: PathBuf,
    /// `libdlr_probe.so`, `probe.dli`, `libdlr_cprobe.so`, `cprobe.dli`.
    pub riders_dir: PathBuf,
    /// A scratch directory for runs.
    pub work_dir: PathBuf,
}

/// The target directory, profile directory and cargo profile of the running executable
/// (`<target>/<profile>/<exe>` or `<target>/<profile>/deps/<exe>`; `<target>/<triple>/...`
/// for a `--target` build), and the triple of a `--target` build.
pub fn build_dirs() -> (PathBuf, PathBuf, String, Option<String>) {
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
    (target_dir, profile_dir, profile, triple)
}

/// Where difftest keeps its riders, scratch runs and findings for the running
/// executable's profile (and target): `<target>/difftest/[<triple>/]<profile>/`.
pub fn data_dir() -> PathBuf {
    let (target_dir, profile_dir, _, triple) = build_dirs();
    let profile = profile_dir
        .file_name()
        .map_or("debug".into(), |n| n.to_string_lossy().into_owned());
    let root = target_dir.join("difftest");
    match triple {
        Some(triple) => root.join(triple).join(profile),
        None => root.join(profile),
    }
}

/// Builds the CLI and the riders for the running executable's target directory and
/// profile, and gathers the riders.
pub fn prepare() -> Result<Prepared, String> {
    let (target_dir, profile_dir, profile, triple) = build_dirs();
    cargo_build(&target_dir, &profile, triple.as_deref())?;
    let root = data_dir();
    let riders_dir = root.join("riders");
    let work_dir = root.join("work");
    for dir in [&riders_dir, &work_dir] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // `std` too, for runners in processes whose own directory has no riders (the fuzz
    // targets).
    for lib in ["libdlr_probe.so", "libdlr_std.so"] {
        copy(&profile_dir.join(lib), &riders_dir.join(lib))?;
    }
    let repo = repo_root();
    copy(
        &repo.join("conformance/riders/probe/rider.dli"),
        &riders_dir.join("probe.dli"),
    )?;
    build_c_rider(&riders_dir)?;
    Ok(Prepared {
        datalove: profile_dir.join("datalove"),
        riders_dir,
        work_dir,
    })
}

/// `cargo build -p datalove -p datalove-rider-std -p datalove-probe-rider`, for
/// `triple` when the caller was built with `--target`.
fn cargo_build(target_dir: &Path, profile: &str, triple: Option<&str>) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(repo_root())
        .args([
            "build",
            "--quiet",
            "-p",
            "datalove",
            "-p",
            "datalove-rider-std",
            "-p",
            "datalove-probe-rider",
        ])
        .arg("--profile")
        .arg(profile)
        .arg("--target-dir")
        .arg(target_dir)
        .stdin(Stdio::null());
    if let Some(triple) = triple {
        command.arg("--target").arg(triple);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "building the CLI and riders failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
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
fn copy(from: &Path, to: &Path) -> Result<(), String> {
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
fn build_c_rider(riders_dir: &Path) -> Result<(), String> {
    let repo = repo_root();
    let source_dir = repo.join("conformance/riders/cprobe");
    let library = riders_dir.join("libdlr_cprobe.so");
    let linked = staging(&library);
    let compiler = datalove::Target::current().c_compiler();
    let output = compiler
        .command()
        .args([
            "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
        ])
        .arg("-I")
        .arg(repo.join("runtime/include"))
        .arg(source_dir.join("cprobe.c"))
        .arg("-o")
        .arg(&linked)
        .output()
        .map_err(|e| format!("cannot run the C compiler `{}`: {e}", compiler.name()))?;
    if !output.status.success() {
        return Err(format!(
            "compiling {} failed:\n{}",
            library.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    // In by a rename: a program that loaded the old library keeps it.
    std::fs::rename(&linked, &library)
        .map_err(|e| format!("cannot move {} into place: {e}", library.display()))?;
    copy(
        &source_dir.join("rider.dli"),
        &riders_dir.join("cprobe.dli"),
    )
}
