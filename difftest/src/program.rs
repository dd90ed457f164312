//! A program to run: a script and the files written beside it, and its two spellings on
//! disk: a directory to run it in, and a conformance case (`docs/testing.md`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use datalove_front::{compile_with, Compiled, Failed, IrPasses, MemoryLoader};

use crate::gen::catalog::{CPROBE_DLI, PROBE_DLI};

/// The script's file name when written out.
pub const SCRIPT_NAME: &str = "program.dfs";

/// A script and the modules (or other files) it needs beside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TestProgram {
    pub script: String,
    /// `(file name, text)`: `pr.dfm`, or whatever a case embeds.
    pub files: Vec<(String, String)>,
}

impl TestProgram {
    /// Writes the script (as [`SCRIPT_NAME`]) and its files into `dir`; returns the
    /// script's path.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        for (name, text) in &self.files {
            std::fs::write(dir.join(name), text)?;
        }
        let path = dir.join(SCRIPT_NAME);
        std::fs::write(&path, &self.script)?;
        Ok(path)
    }

    /// Compiles the program in memory: its modules from `files`, the probe riders'
    /// interfaces built in, the standard library, and any `.dli` file it embeds
    /// (which shadows a built-in interface of the same rider).
    pub fn compile(&self) -> Result<Compiled, Failed> {
        self.compile_with(IrPasses::All)
    }

    /// [`TestProgram::compile`], running the IR passes `passes` names.
    pub fn compile_with(&self, passes: IrPasses) -> Result<Compiled, Failed> {
        let mut loader = MemoryLoader::new();
        for (name, text) in &self.files {
            if let Some(module) = name.strip_suffix(".dfm") {
                loader = loader.with_module(module, text);
            } else if let Some(rider) = name.strip_suffix(".dli") {
                loader = loader.with_rider(rider, text);
            }
        }
        compile_with(&builtin_riders(loader), SCRIPT_NAME, &self.script, passes)
    }

    /// The number of non-blank lines of the script.
    pub fn lines(&self) -> usize {
        self.script.lines().filter(|l| !l.trim().is_empty()).count()
    }

    /// Reads a conformance case (or any script in its format): the program with its
    /// expectations left in as comments, and the embedded files.
    pub fn from_case(text: &str) -> TestProgram {
        let mut script = String::new();
        let mut files: Vec<(String, String)> = Vec::new();
        for part in parts(text) {
            match part {
                Part::Program(line) => script.push_str(line),
                Part::Open(header) => {
                    let name = header
                        .strip_prefix("module ")
                        .or_else(|| header.strip_prefix("file "))
                        .unwrap_or(header)
                        .trim();
                    files.push((name.to_string(), String::new()));
                }
                Part::Embedded(line) => {
                    let (_, body) = files.last_mut().expect("a file is open");
                    body.push_str(line);
                    body.push('\n');
                }
                Part::Close => {}
            }
            script.push('\n');
        }
        TestProgram { script, files }
    }

    /// The program as a conformance case: `header` (comment lines), the script, each
    /// file embedded, then the expectations of `expected` and the excuses
    /// (`(backend, "xfail" | "skip", reason)`).
    pub fn to_case(
        &self,
        header: &str,
        expected: &crate::run::Outcome,
        excuses: &[(String, &str, String)],
    ) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        out.push_str(self.script.trim_end());
        out.push_str("\n\n");
        for (name, text) in &self.files {
            let kind = if name.ends_with(".dfm") {
                "module"
            } else {
                "file"
            };
            let _ = writeln!(out, "#= {kind} {name}");
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("#= end\n\n");
        }
        for (backend, kind, reason) in excuses {
            let _ = writeln!(out, "#~ {kind} {backend}: {reason}");
        }
        if !excuses.is_empty() {
            out.push('\n');
        }
        for line in crate::run::output_lines(&expected.stdout) {
            out.push_str(&expectation_line(line));
            out.push('\n');
        }
        if expected.code == Some(crate::run::EXIT_RUNTIME_ERROR) {
            for line in &expected.stderr_lines {
                let _ = writeln!(out, "#! {line}");
            }
        }
        out
    }
}

/// `loader` with the interfaces of the `std`, `probe` and `cprobe` riders added (after
/// its own, which come first and so may shadow them).
pub fn builtin_riders(loader: MemoryLoader) -> MemoryLoader {
    loader
        .with_rider("std", datalove::STD_RIDER_DLI)
        .with_rider("probe", PROBE_DLI)
        .with_rider("cprobe", CPROBE_DLI)
}

pub use datalove_test_support::case_text::expectation_line;
use datalove_test_support::case_text::{parts, Part};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_reads_back() {
        let p = TestProgram {
            script: "import pr.probe_args0\ndebuglog probe_args0()\n".into(),
            files: vec![("pr.dfm".into(), "require rider probe\n".into())],
        };
        let outcome = crate::run::Outcome {
            code: Some(0),
            stdout: b"hi \n".to_vec(),
            stderr_lines: Vec::new(),
        };
        let case = p.to_case("found by the generator", &outcome, &[]);
        assert!(case.contains("#>e hi\\x20\n"), "{case}");
        let back = TestProgram::from_case(&case);
        assert_eq!(back.files, p.files);
        assert!(back.script.contains("debuglog probe_args0()"));
    }
}
