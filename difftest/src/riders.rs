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
//! The recipe is `datalove_test_support::riders`, which the conformance runner
//! (`tests/conformance.rs`) follows too for its cases in `<target>/conformance/riders/`.

use std::path::PathBuf;

pub use datalove_test_support::riders::repo_root;
use datalove_test_support::riders::{
    build_c_rider, build_cli_and_riders, build_dirs, build_host_cli, copy,
};

/// What the runner runs with.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The `datalove` CLI.
    pub datalove: PathBuf,
    /// `libdlr_probe.so`, `probe.dli`, `libdlr_cprobe.so`, `cprobe.dli`.
    pub riders_dir: PathBuf,
    /// A scratch directory for runs.
    pub work_dir: PathBuf,
    /// Under an emulator, the host's CLI and the target's triple ([`crate::run::Cli`]'s
    /// `host_cli`); `None` natively, or when the host's CLI could not be built (then aot
    /// and c run through the emulated CLI, as before).
    pub host_cli: Option<(PathBuf, String)>,
}

/// Where difftest keeps its riders, scratch runs and findings for the running
/// executable's profile (and target): `<target>/difftest/[<triple>/]<profile>/`.
pub fn data_dir() -> PathBuf {
    let dirs = build_dirs();
    let profile = dirs
        .profile_dir
        .file_name()
        .map_or("debug".into(), |n| n.to_string_lossy().into_owned());
    let root = dirs.target_dir.join("difftest");
    match dirs.triple {
        Some(triple) => root.join(triple).join(profile),
        None => root.join(profile),
    }
}

/// Builds the CLI and the riders for the running executable's target directory and
/// profile, and gathers the riders.
pub fn prepare() -> Result<Prepared, String> {
    let dirs = build_dirs();
    build_cli_and_riders(&dirs)?;
    let root = data_dir();
    let riders_dir = root.join("riders");
    let work_dir = root.join("work");
    for dir in [&riders_dir, &work_dir] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // `std` too, for runners in processes whose own directory has no riders (the fuzz
    // targets).
    for lib in ["libdlr_probe.so", "libdlr_std.so"] {
        copy(&dirs.profile_dir.join(lib), &riders_dir.join(lib))?;
    }
    copy(
        &repo_root().join("conformance/riders/probe/rider.dli"),
        &riders_dir.join("probe.dli"),
    )?;
    build_c_rider(&riders_dir)?;
    let host_cli = match (build_host_cli(&dirs), &dirs.triple) {
        (Some(Ok(cli)), Some(triple)) => Some((cli, triple.clone())),
        (Some(Err(e)), _) => {
            eprintln!("difftest: aot and c run through the emulated CLI: {e}");
            None
        }
        _ => None,
    };
    Ok(Prepared {
        datalove: dirs.profile_dir.join("datalove"),
        riders_dir,
        work_dir,
        host_cli,
    })
}
