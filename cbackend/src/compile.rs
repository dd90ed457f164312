//! Invoking the system C compiler (`$CC`, default `cc`): the emitted C and the two
//! headers it includes are written to a build directory beside the executable, then
//! compiled and linked in one command with the ONE runtime staticlib and the rider
//! libraries, exactly as the AOT backend links (`-L<dir> -ldlr_<rider>
//! -Wl,-rpath,<dir>`, `-lpthread -ldl -lm`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::CError;

/// What an executable links besides its C.
#[derive(Clone, Debug)]
pub struct LinkInputs {
    /// The runtime staticlib (`libdatalove_rt.a`, found by
    /// `datalove_rt::artifact::staticlib_for_current_exe`).
    pub runtime: PathBuf,
    /// Each rider the program requires and the directory holding `libdlr_<rider>.so`.
    pub riders: Vec<(String, PathBuf)>,
}

/// The flags every program is compiled with. `-fwrapv -fno-strict-aliasing` are a belt
/// (the emitted C does not rely on either); no sibling calls, so that recursion always
/// grows the stack and meets the prologue's stack check, as on every backend; no
/// contraction of `a * b + c`, so that floats round as the interpreter's do.
pub const C_FLAGS: &[&str] = &[
    "-std=gnu11",
    "-O2",
    "-fwrapv",
    "-fno-strict-aliasing",
    "-fno-optimize-sibling-calls",
    "-ffp-contract=off",
];

/// The C compiler: `$CC`, or `cc`.
pub fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string())
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
    let dir = PathBuf::from(format!("{}.cbuild", out.display()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CError::Io(format!("cannot create {}: {e}", dir.display())))?;
    let c_file = dir.join("program.c");
    write(&c_file, source)?;
    write(&dir.join(crate::RTI_HEADER_NAME), crate::RTI_HEADER)?;
    write(&dir.join(crate::HELPERS_HEADER_NAME), crate::HELPERS_HEADER)?;

    let cc = compiler();
    let mut command = Command::new(&cc);
    command
        .args(C_FLAGS)
        .arg(format!("-I{}", dir.display()))
        .arg("-o")
        .arg(out)
        .arg(&c_file)
        .arg(&inputs.runtime);
    for (rider, rider_dir) in &inputs.riders {
        command
            .arg(format!("-L{}", rider_dir.display()))
            .arg(format!("-ldlr_{rider}"))
            .arg(format!("-Wl,-rpath,{}", rider_dir.display()));
    }
    command.args(["-lpthread", "-ldl", "-lm"]);
    let shown = format!("{command:?}").replace('"', "");
    let output = command
        .output()
        .map_err(|e| CError::Io(format!("cannot run the C compiler `{cc}`: {e}")))?;
    if !output.status.success() {
        return Err(CError::Compile {
            command: shown,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
