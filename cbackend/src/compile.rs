//! Invoking the target's C compiler: the emitted C and the two headers it includes are
//! written to a build directory beside the executable, then compiled and linked in one
//! command with the ONE runtime staticlib, by the same link command the AOT backend uses
//! (`datalove_toolchain::link`), which places the riders beside the executable.

use std::path::{Path, PathBuf};

use crate::error::CError;

pub use datalove_toolchain::LinkInputs;

/// The flags every program is compiled with. `-fwrapv -fno-strict-aliasing` are a belt
/// (the emitted C does not rely on either); no sibling calls, so that recursion always
/// grows the stack and meets the prologue's stack check, as on every backend; no
/// contraction of `a * b + c`, so that floats round as the interpreter's do; no
/// `errno` from <math.h>'s functions (nothing reads it), so that `sqrt` is one
/// instruction.
pub const C_FLAGS: &[&str] = &[
    "-std=gnu11",
    "-O2",
    "-fwrapv",
    "-fno-strict-aliasing",
    "-fno-optimize-sibling-calls",
    "-ffp-contract=off",
    "-fno-math-errno",
];

/// The current target's C compiler (decided in `datalove_toolchain`: `CC_<triple>`,
/// `$CC`, or `cc`).
pub fn compiler() -> datalove_toolchain::CCompiler {
    datalove_toolchain::CCompiler::from_env()
}

fn write(path: &Path, text: &str) -> Result<(), CError> {
    std::fs::write(path, text)
        .map_err(|e| CError::Io(format!("cannot write {}: {e}", path.display())))
}

/// Compiles `source` and links it into `out`. The build directory (`<out>.cbuild/`) is
/// removed afterwards, and kept when the compiler fails, so that the C can be read.
pub fn compile_and_link(source: &str, inputs: &LinkInputs, out: &Path) -> Result<(), CError> {
    if !inputs.runtime.is_file() {
        return Err(CError::Io(format!(
            "the runtime staticlib {} is missing (build the `datalove-rt` crate)",
            inputs.runtime.display()
        )));
    }
    build_in_dir(source, out, |flags| {
        datalove_toolchain::link(flags, inputs, out)
    })
}

/// Compiles `source` (a program emitted as a library) into the shared library `out`
/// for `target` (`datalove_toolchain::link_library`: no runtime linked).
pub fn compile_library(
    source: &str,
    target: &datalove_toolchain::Target,
    out: &Path,
) -> Result<(), CError> {
    build_in_dir(source, out, |flags| {
        datalove_toolchain::link_library(flags, target, out)
    })
}

/// Writes `source` and the headers to `<out>.cbuild/` and runs `link` with the flags and
/// the C file; the directory is removed afterwards, and kept when the compiler fails.
fn build_in_dir(
    source: &str,
    out: &Path,
    link: impl FnOnce(&[std::ffi::OsString]) -> Result<(), datalove_toolchain::LinkError>,
) -> Result<(), CError> {
    let dir = PathBuf::from(format!("{}.cbuild", out.display()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CError::Io(format!("cannot create {}: {e}", dir.display())))?;
    let c_file = dir.join("program.c");
    write(&c_file, source)?;
    write(&dir.join(crate::RTI_HEADER_NAME), crate::RTI_HEADER)?;
    write(&dir.join(crate::HELPERS_HEADER_NAME), crate::HELPERS_HEADER)?;

    let mut flags: Vec<std::ffi::OsString> = C_FLAGS.iter().map(Into::into).collect();
    flags.push(format!("-I{}", dir.display()).into());
    flags.push(c_file.into());
    link(&flags).map_err(|e| match e {
        datalove_toolchain::LinkError::Io(m) => CError::Io(m),
        datalove_toolchain::LinkError::Failed { command, stderr } => {
            CError::Compile { command, stderr }
        }
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
