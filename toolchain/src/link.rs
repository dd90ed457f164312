//! The one link command of every executable, and the riders placed beside it.
//!
//! An executable links the program's object or C, the ONE runtime staticlib and the
//! system libraries the runtime needs (`-lpthread -ldl -lm`). It links no rider: at
//! start its runtime loads each rider from the executable's own directory and checks its
//! ABI version and every native (`dtlv_rt_run_linked`), so the riders are placed there:
//! copied (`datalove build`, an executable to ship) or symbolic links to where they were
//! found (`datalove run`, a temporary executable).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::compiler::CCompiler;
use crate::target::Target;

/// How the riders get beside the executable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RiderPlacement {
    /// Copied: the directory holds everything the executable needs.
    #[default]
    Copy,
    /// Symbolic links to the libraries where they were found.
    Symlink,
}

/// What an executable links, and the riders placed beside it.
#[derive(Clone, Debug)]
pub struct LinkInputs {
    /// The target the executable is for (its C compiler).
    pub target: Target,
    /// The runtime staticlib (`libdatalove_rt.a`) built for `target`.
    pub runtime: PathBuf,
    /// Each rider the program requires and its library file (`libdlr_<rider>.so`).
    pub riders: Vec<(String, PathBuf)>,
    pub placement: RiderPlacement,
}

/// A link that failed: the command as run and what the compiler printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Something to read or write, or the compiler, was missing.
    #[error("{0}")]
    Io(String),
    /// The compiler ran and failed.
    #[error("the C compiler failed: {command}\n{stderr}")]
    Failed { command: String, stderr: String },
}

/// Runs `inputs.target`'s C compiler on `flags_and_inputs` (objects, C files, and the
/// flags before them) and links `out` with the runtime staticlib, then `-lpthread -ldl
/// -lm`; then places the riders beside `out`.
pub fn link(
    flags_and_inputs: &[OsString],
    inputs: &LinkInputs,
    out: &Path,
) -> Result<(), LinkError> {
    if !inputs.runtime.is_file() {
        return Err(LinkError::Io(format!(
            "the runtime staticlib {} is missing (build the `datalove-rt` crate)",
            inputs.runtime.display()
        )));
    }
    let compiler: CCompiler = inputs.target.c_compiler();
    with_linker(&inputs.target, |linker| {
        let mut command = compiler.command();
        command
            .args(linker)
            .args(flags_and_inputs)
            .arg("-o")
            .arg(out)
            .arg(&inputs.runtime)
            .args(["-lpthread", "-ldl", "-lm"]);
        run_compiler(command, &compiler)
    })?;
    place_riders(&inputs.riders, inputs.placement, out).map_err(LinkError::Io)
}

/// Runs `link` with the linker flags the probe chose for `target`
/// ([`crate::link_flags`]); if that fails with some, once more with the compiler's own
/// linker, whose failure is the one reported.
fn with_linker(
    target: &Target,
    mut link: impl FnMut(&[String]) -> Result<(), LinkError>,
) -> Result<(), LinkError> {
    let flags = crate::link_flags(target);
    match link(&flags) {
        Err(LinkError::Failed { .. }) if !flags.is_empty() => link(&[]),
        done => done,
    }
}

/// What a program built as a shared library exports (aot and c, for an embedder that
/// loads it in-process): its entry, `void ENTRY(void *rt)`; its rider manifest,
/// `const uint8_t *MANIFEST(void)`; and its native slots, `void **SLOTS(void)`, which
/// the loader fills before the entry runs (as `dtlv_rt_run_linked` does for an
/// executable).
pub const LIBRARY_ENTRY_SYMBOL: &str = "dtlv_program_entry";
pub const LIBRARY_MANIFEST_SYMBOL: &str = "dtlv_program_manifest";
pub const LIBRARY_SLOTS_SYMBOL: &str = "dtlv_program_slots";

/// Runs `target`'s C compiler on `flags_and_inputs` and links the shared library `out`
/// (`-shared -fPIC`, then `-lm`). It links NO runtime: compiled code reaches the runtime
/// only through the table `rt` points at, so the library runs with the runtime of the
/// process that loads it, and no native: the loader fills its native slots.
pub fn link_library(
    flags_and_inputs: &[OsString],
    target: &Target,
    out: &Path,
) -> Result<(), LinkError> {
    let compiler: CCompiler = target.c_compiler();
    with_linker(target, |linker| {
        let mut command = compiler.command();
        command
            .args(linker)
            .args(["-shared", "-fPIC"])
            .args(flags_and_inputs)
            .arg("-o")
            .arg(out)
            .arg("-lm");
        run_compiler(command, &compiler)
    })
}

/// Runs `command`, a command of `compiler` ([`CCompiler::command`]); its stderr when it
/// fails.
pub fn run_compiler(
    mut command: std::process::Command,
    compiler: &CCompiler,
) -> Result<(), LinkError> {
    let shown = format!("{command:?}").replace('"', "");
    let output = command.output().map_err(|e| {
        LinkError::Io(format!(
            "cannot run the C compiler `{}`: {e}",
            compiler.name()
        ))
    })?;
    if !output.status.success() {
        return Err(LinkError::Failed {
            command: shown,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(())
}

/// The folder an executable's riders are placed in: its own (`.` for a bare name).
fn executable_dir(executable: &Path) -> PathBuf {
    match executable.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Where [`place_riders`] puts `library` for `executable`: beside it, under the library's
/// own file name (`None` for a path with no file name).
pub fn rider_destination(executable: &Path, library: &Path) -> Option<PathBuf> {
    Some(executable_dir(executable).join(library.file_name()?))
}

/// Whether `executable` is where [`place_riders`] would put `library`: the copy goes in
/// the executable's own folder, so this is whether the two have one file name (neither
/// need exist yet), and the copy would replace the executable.
pub fn is_rider_destination(executable: &Path, library: &Path) -> bool {
    library.file_name().is_some() && library.file_name() == executable.file_name()
}

/// Puts each rider library beside `executable` under its own file name, unless it is
/// already there.
pub fn place_riders(
    riders: &[(String, PathBuf)],
    placement: RiderPlacement,
    executable: &Path,
) -> Result<(), String> {
    let dir = executable_dir(executable);
    for (rider, library) in riders {
        let destination = rider_destination(executable, library)
            .ok_or_else(|| format!("rider `{rider}`: {} is no file", library.display()))?;
        let name = destination.file_name().expect("named by the library");
        if same_file(library, &destination) {
            continue;
        }
        let source = std::path::absolute(library)
            .map_err(|e| format!("rider `{rider}`: {}: {e}", library.display()))?;
        // Written under a temporary name, then renamed over the old one: a program
        // still running with the old library keeps it.
        let temporary = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let _ = std::fs::remove_file(&temporary);
        let placed = match placement {
            RiderPlacement::Copy => std::fs::copy(&source, &temporary).map(|_| ()),
            RiderPlacement::Symlink => std::os::unix::fs::symlink(&source, &temporary),
        };
        placed
            .and_then(|_| std::fs::rename(&temporary, &destination))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temporary);
                format!(
                    "rider `{rider}`: cannot place {} beside the executable as {}: {e}",
                    source.display(),
                    destination.display()
                )
            })?;
    }
    Ok(())
}

/// Whether `a` and `b` name one existing file (the same device and inode: a second path,
/// a symbolic or a hard link all count).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_runtime_is_named() {
        let inputs = LinkInputs {
            target: Target::current(),
            runtime: PathBuf::from("/nonexistent/libdatalove_rt.a"),
            riders: Vec::new(),
            placement: RiderPlacement::Copy,
        };
        let error = link(&[], &inputs, Path::new("/tmp/x")).unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/libdatalove_rt.a"),
            "{error}"
        );
    }

    #[test]
    fn riders_are_copied_or_linked_beside_the_executable() {
        let dir = std::env::temp_dir().join(format!(
            "datalove-toolchain-place-{}/a b:c",
            std::process::id()
        ));
        let from = dir.join("from");
        let to = dir.join("to");
        std::fs::create_dir_all(&from).unwrap();
        std::fs::create_dir_all(&to).unwrap();
        let library = from.join("libdlr_x.so");
        std::fs::write(&library, "one").unwrap();
        let riders = vec![("x".to_string(), library.clone())];
        place_riders(&riders, RiderPlacement::Copy, &to.join("program")).unwrap();
        std::fs::write(&library, "two").unwrap();
        assert_eq!(
            std::fs::read_to_string(to.join("libdlr_x.so")).unwrap(),
            "one"
        );
        place_riders(&riders, RiderPlacement::Symlink, &to.join("program")).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.join("libdlr_x.so")).unwrap(),
            "two"
        );
        // Already there: left alone.
        place_riders(&riders, RiderPlacement::Copy, &from.join("program")).unwrap();
        assert_eq!(std::fs::read_to_string(&library).unwrap(), "two");
        let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    }
}
