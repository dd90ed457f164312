//! The system C toolchain the aot and c backends build executables with, decided in ONE
//! place: which compiler (`$CC`, else `cc`), whether it works here (a probe, run once
//! per process, behind `Backend::unavailable_reason`), and the one link command (the
//! program's object or C, the ONE runtime staticlib, each rider library with its
//! run-time search path, and the system libraries the runtime needs).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The C compiler: the words of `$CC` (a program and its leading arguments, as `make`
/// reads it), or `cc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CCompiler {
    pub program: String,
    pub args: Vec<String>,
}

impl CCompiler {
    /// `$CC` if set and not blank, else `cc`.
    pub fn from_env() -> CCompiler {
        let words: Vec<String> = std::env::var("CC")
            .ok()
            .map(|cc| cc.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        match words.split_first() {
            Some((program, args)) => CCompiler {
                program: program.clone(),
                args: args.to_vec(),
            },
            None => CCompiler {
                program: "cc".to_string(),
                args: Vec::new(),
            },
        }
    }

    /// A command running the compiler with its leading arguments.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command
    }

    /// How it is named in messages.
    pub fn name(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Whether the C compiler works here: it compiles and links a one-line C program.
/// `Err` says why not (not found, or what it printed). Probed once per process.
pub fn probe() -> Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED.get_or_init(probe_now).clone()
}

fn probe_now() -> Result<(), String> {
    let compiler = CCompiler::from_env();
    let dir = std::env::temp_dir().join(format!("datalove-cc-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let source = dir.join("probe.c");
    let result = (|| {
        std::fs::write(&source, "int main(void) { return 0; }\n")
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        let output = compiler
            .command()
            .arg("-o")
            .arg(dir.join("probe"))
            .arg(&source)
            .output()
            .map_err(|e| format!("no C compiler: `{}` cannot run: {e}", compiler.name()))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "the C compiler `{}` cannot build a program: {}",
                compiler.name(),
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// What an executable links besides its object or C.
#[derive(Clone, Debug)]
pub struct LinkInputs {
    /// The runtime staticlib (`libdatalove_rt.a`, found by
    /// `datalove_rt::artifact::staticlib_for_current_exe`).
    pub runtime: PathBuf,
    /// Each rider the program requires and the directory holding `libdlr_<rider>.so`.
    pub riders: Vec<(String, PathBuf)>,
}

/// A link that failed: the command as run and what the compiler printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Something to read or write, or the compiler, was missing.
    Io(String),
    /// The compiler ran and failed.
    Failed { command: String, stderr: String },
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Io(message) => f.write_str(message),
            LinkError::Failed { command, stderr } => {
                write!(f, "the C compiler failed: {command}\n{stderr}")
            }
        }
    }
}

impl std::error::Error for LinkError {}

/// Runs the C compiler on `inputs` (objects, C files, and the flags before them) and
/// links `out` with the runtime staticlib and the riders: `-L<dir> -ldlr_<rider>
/// -Wl,-rpath,<dir>` for each, then `-lpthread -ldl -lm`.
pub fn link(
    compiler: &CCompiler,
    flags_and_inputs: &[std::ffi::OsString],
    inputs: &LinkInputs,
    out: &Path,
) -> Result<(), LinkError> {
    if !inputs.runtime.is_file() {
        return Err(LinkError::Io(format!(
            "the runtime staticlib {} is missing (build the `datalove-rt` crate)",
            inputs.runtime.display()
        )));
    }
    let mut command = compiler.command();
    command
        .args(flags_and_inputs)
        .arg("-o")
        .arg(out)
        .arg(&inputs.runtime);
    for (rider, dir) in &inputs.riders {
        command
            .arg(format!("-L{}", dir.display()))
            .arg(format!("-ldlr_{rider}"))
            .arg(format!("-Wl,-rpath,{}", dir.display()));
    }
    command.args(["-lpthread", "-ldl", "-lm"]);
    let shown = format!("{command:?}").replace('"', "");
    let output = command.output().map_err(|e| {
        LinkError::Io(format!(
            "cannot run the C compiler `{}`: {e}",
            compiler.name()
        ))
    })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(LinkError::Failed {
            command: shown,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiler_words_come_from_cc() {
        // One test reads and sets CC, so no other test races it.
        let saved = std::env::var_os("CC");
        std::env::set_var("CC", "ccache  gcc -m64");
        assert_eq!(
            CCompiler::from_env(),
            CCompiler {
                program: "ccache".into(),
                args: vec!["gcc".into(), "-m64".into()]
            }
        );
        std::env::set_var("CC", "  ");
        assert_eq!(CCompiler::from_env().program, "cc");
        match saved {
            Some(v) => std::env::set_var("CC", v),
            None => std::env::remove_var("CC"),
        }
    }

    #[test]
    fn a_missing_runtime_is_named() {
        let inputs = LinkInputs {
            runtime: PathBuf::from("/nonexistent/libdatalove_rt.a"),
            riders: Vec::new(),
        };
        let error = link(&CCompiler::from_env(), &[], &inputs, Path::new("/tmp/x")).unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/libdatalove_rt.a"),
            "{error}"
        );
    }
}
