//! Finding this runtime's staticlib (`libdatalove_rt.a`), which AOT and C executables
//! link, in a cargo target directory, for the running executable's own target or for
//! another one.
//!
//! The directories of a target ([`target_dirs`]): for the running executable's own
//! target, its directory (a cargo profile directory such as `target/debug`) and `deps/`
//! (or, for a test binary in `deps/` or an example in `examples/`, the directory above);
//! for another target, that
//! target's profile directory in the same cargo target directory
//! (`target/aarch64-unknown-linux-gnu/debug`, what `cargo build --target
//! aarch64-unknown-linux-gnu` fills) and its `deps/`, then a directory named after the
//! triple beside the executable (`<dir of datalove>/aarch64-unknown-linux-gnu/`, for an
//! installation).
//!
//! `cargo build -p datalove-rt` puts it at `target/<profile>/libdatalove_rt.a`; when the
//! runtime is only built as a dependency (as `cargo test --workspace` does), cargo puts
//! it at `target/<profile>/deps/libdatalove_rt-<hash>.a`. Both are looked for; among
//! hashed copies the most recently built wins, since a stale one from an older build may
//! linger.

use std::path::{Path, PathBuf};

/// The file name of the staticlib.
pub const STATICLIB_NAME: &str = "libdatalove_rt.a";

/// The staticlib in a profile directory (`target/debug`) or its `deps/`, if any.
pub fn find_staticlib(profile_dir: &Path) -> Option<PathBuf> {
    let plain = profile_dir.join(STATICLIB_NAME);
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    let mut consider = |path: PathBuf| {
        if let Ok(modified) = path.metadata().and_then(|m| m.modified()) {
            if best.as_ref().is_none_or(|(t, _)| modified > *t) {
                best = Some((modified, path));
            }
        }
    };
    if plain.is_file() {
        consider(plain);
    }
    if let Ok(entries) = std::fs::read_dir(profile_dir.join("deps")) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("libdatalove_rt-") && name.ends_with(".a") {
                consider(entry.path());
            }
        }
    }
    best.map(|(_, p)| p)
}

/// Where the current build of library `file` found in `dir` is: `dir`, or its `deps/`
/// when cargo left a newer copy there. Cargo copies a library up from `deps/` into the
/// profile directory only when that package itself was asked for; building something
/// that merely depends on it (`cargo test`, `cargo run -p datalove-benches`) refreshes
/// `deps/` alone, so the profile directory's copy can be an old one.
pub fn newest_build_dir(dir: &Path, file: &str) -> PathBuf {
    let modified = |d: &Path| d.join(file).metadata().and_then(|m| m.modified()).ok();
    let deps = dir.join("deps");
    match (modified(dir), modified(&deps)) {
        (Some(here), Some(there)) if there > here => deps,
        _ => dir.to_path_buf(),
    }
}

/// The staticlib for the running executable's own target. `Err` names every place
/// looked in.
pub fn staticlib_for_current_exe() -> Result<PathBuf, String> {
    staticlib_for_target(None)
}

/// The staticlib for `other_target` (a Rust triple; `None`: the running executable's
/// own target), found in [`target_dirs`]. `Err` names every place looked in and what to
/// build.
pub fn staticlib_for_target(other_target: Option<&str>) -> Result<PathBuf, String> {
    let dirs = target_dirs(other_target)?;
    for dir in &dirs {
        if let Some(found) = find_staticlib(dir) {
            return Ok(found);
        }
    }
    let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    // The profile this executable was built in, which the staticlib must match.
    let profile = dirs
        .first()
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str())
        .map(|n| match n {
            "debug" | "deps" | "examples" => String::new(),
            "release" => " --release".to_string(),
            other => format!(" --profile {other}"),
        })
        .unwrap_or_default();
    let build = match other_target {
        None => format!("cargo build -p datalove-rt{profile}"),
        Some(triple) => format!("cargo build -p datalove-rt --target {triple}{profile}"),
    };
    Err(format!(
        "the runtime staticlib {STATICLIB_NAME} is not in {} (or their deps/); build it with `{build}`",
        looked.join(", ")
    ))
}

/// The directories holding the runtime staticlib and riders for `other_target` (a Rust
/// triple; `None`: the running executable's own target), in the order searched. See the
/// module's documentation.
pub fn target_dirs(other_target: Option<&str>) -> Result<Vec<PathBuf>, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate the running executable: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("/")).to_path_buf();
    let profile_dir = if dir.ends_with("deps") || dir.ends_with("examples") {
        dir.parent().unwrap_or(&dir).to_path_buf()
    } else {
        dir.clone()
    };
    let Some(triple) = other_target else {
        let mut dirs = vec![dir.clone()];
        if profile_dir != dir {
            dirs.push(profile_dir);
        } else {
            dirs.push(dir.join("deps"));
        }
        return Ok(dirs);
    };
    let mut dirs = Vec::new();
    if let (Some(profile), Some((root, _))) =
        (profile_dir.file_name(), cargo_target_dir(&profile_dir))
    {
        let cross = root.join(triple).join(profile);
        dirs.push(cross.clone());
        dirs.push(cross.join("deps"));
    }
    dirs.push(dir.join(triple));
    Ok(dirs)
}

/// The cargo target directory a profile directory is in, and the triple of a `--target`
/// build: `(target, None)` for `target/debug`, `(target, Some(triple))` for
/// `target/<triple>/debug`. `None` for a directory with no parent.
pub fn cargo_target_dir(profile_dir: &Path) -> Option<(PathBuf, Option<String>)> {
    let up = profile_dir.parent()?;
    Some(match up.file_name().and_then(|n| n.to_str()) {
        Some(name) if looks_like_triple(name) => (
            up.parent().unwrap_or(up).to_path_buf(),
            Some(name.to_string()),
        ),
        _ => (up.to_path_buf(), None),
    })
}

/// Whether a directory name is a target triple (`x86_64-unknown-linux-gnu`), as cargo
/// names the directory of a `--target` build.
fn looks_like_triple(name: &str) -> bool {
    name.split('-').count() >= 3
        && ["-linux-", "-apple-", "-windows-", "-freebsd"]
            .iter()
            .any(|os| name.contains(os))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    /// Writes `path`, last modified at `at`.
    fn write_at(path: &Path, at: SystemTime) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "lib").unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    #[test]
    fn the_newer_of_a_profile_directory_and_its_deps_is_the_current_build() {
        let dir = std::env::temp_dir().join(format!("datalove-artifact-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let old = SystemTime::now() - Duration::from_secs(3600);
        let file = "libdlr_x.so";
        // Only in the profile directory: it.
        write_at(&dir.join(file), old);
        assert_eq!(newest_build_dir(&dir, file), dir);
        // A newer copy in deps/ (a build of a dependent): deps/.
        write_at(&dir.join("deps").join(file), SystemTime::now());
        assert_eq!(newest_build_dir(&dir, file), dir.join("deps"));
        // The profile directory's copy the newer (the package built itself): it.
        write_at(&dir.join(file), SystemTime::now() + Duration::from_secs(60));
        assert_eq!(newest_build_dir(&dir, file), dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
