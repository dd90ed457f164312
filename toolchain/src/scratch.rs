//! Folders of one process in the system's temporary directory (`$TMPDIR/PREFIXPID`):
//! where the aot and c backends build a module's executable and the tests keep their
//! files. A process removes its own folder when it ends; one that was killed cannot, so
//! each new process removes the folders of processes that no longer run before it makes
//! its own.

use std::path::{Path, PathBuf};

/// `base/PREFIXPID` for this process, made (what is already in it is kept), after the
/// folders `base/PREFIX<pid>` of processes that no longer run are removed
/// ([`remove_stale_dirs`]).
pub fn process_dir(base: &Path, prefix: &str) -> std::io::Result<PathBuf> {
    remove_stale_dirs(base, prefix);
    let dir = base.join(format!("{prefix}{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Removes the folders `base/PREFIX<pid>` whose process no longer runs (no
/// `/proc/<pid>`): left by a process that was killed, or that ended some other way
/// without removing its own.
pub fn remove_stale_dirs(base: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder whose process has ended is removed; this process's own stays, and so do
    /// folders of other names.
    #[test]
    fn stale_process_dirs_are_removed_and_live_ones_kept() {
        let base = std::env::temp_dir().join(format!("scratch-test-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        // Above any Linux pid_max, so no process has it.
        let stale = base.join("p-4000000000");
        std::fs::create_dir_all(stale.join("inside")).unwrap();
        let other = base.join("q-4000000000");
        std::fs::create_dir_all(&other).unwrap();
        let own = process_dir(&base, "p-").unwrap();
        assert!(!stale.exists(), "{} is left", stale.display());
        assert!(own.is_dir() && other.is_dir());
        assert_eq!(own, base.join(format!("p-{}", std::process::id())));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
