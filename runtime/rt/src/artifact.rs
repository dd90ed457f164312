//! Finding this runtime's staticlib (`libdatalove_rt.a`), which AOT and C executables
//! link, in a cargo target directory.
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

/// The staticlib for the running executable: its directory is a profile directory, or
/// `deps/` inside one (tests). `Err` names every place looked in.
pub fn staticlib_for_current_exe() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate the running executable: {e}"))?;
    let mut dirs = Vec::new();
    if let Some(dir) = exe.parent() {
        dirs.push(dir.to_path_buf());
        if dir.ends_with("deps") {
            if let Some(up) = dir.parent() {
                dirs.push(up.to_path_buf());
            }
        }
    }
    for dir in &dirs {
        if let Some(found) = find_staticlib(dir) {
            return Ok(found);
        }
    }
    let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(format!(
        "the runtime staticlib {STATICLIB_NAME} is not in {} (or their deps/); build it with `cargo build -p datalove-rt`",
        looked.join(", ")
    ))
}
