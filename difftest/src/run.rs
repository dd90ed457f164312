//! The differential runner: one program on every available backend with the leak check
//! on, the outcomes compared (stdout, the error line, the exit code), and what a
//! disagreement (or a crash, a leak, a program the front end refuses) looks like.
//!
//! Programs run through the `datalove` CLI, one process per backend, exactly as the
//! conformance suite runs its cases: a backend that crashes or hangs is an outcome
//! (killed by a signal, timed out), not the end of the run. [`InProcess`] runs the
//! in-process backends without a process, for fuzzing.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use datalove_test_support::process;

use crate::program::TestProgram;

/// The backends, in the order the reducer prefers as representatives (cheapest first).
pub const BACKENDS: [&str; 4] = ["interp", "jit", "aot", "c"];

pub const EXIT_OK: i32 = 0;
pub const EXIT_COMPILE_ERROR: i32 = 2;
pub const EXIT_RUNTIME_ERROR: i32 = 101;
/// What `datalove run --backend B` exits with when B cannot run here.
pub const EXIT_UNAVAILABLE: i32 = 3;

/// How one backend's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code; `None` when killed by a signal or for taking too long.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    /// The non-blank lines on stderr (a timeout or signal adds one saying so).
    pub stderr_lines: Vec<String>,
}

impl Outcome {
    /// The lines of `stdout`.
    pub fn stdout_lines(&self) -> Vec<&[u8]> {
        output_lines(&self.stdout)
    }

    /// A coarse class of the ending: `ok`, `error:<kind>`, `compile`, `malformed`
    /// (anything that is not one of the outcomes of DESIGN section 7: a panic, a
    /// signal, a timeout, several error lines; lines after the error line other than its
    /// chain of calls).
    pub fn class(&self) -> String {
        match (self.code, self.stderr_lines.as_slice()) {
            (Some(EXIT_OK), []) => "ok".into(),
            // The error line, then only its chain of calls (`  called from ...`).
            (Some(EXIT_RUNTIME_ERROR), [line, chain @ ..])
                if line.starts_with("error: ")
                    && chain.iter().all(|l| {
                        l.starts_with("  called from ") || l.starts_with("  ... and ")
                    }) =>
            {
                let kind = line["error: ".len()..].split(':').next().unwrap_or("");
                format!("error:{kind}")
            }
            (Some(EXIT_COMPILE_ERROR), _) => "compile".into(),
            _ => "malformed".into(),
        }
    }

    /// Whether the run ended in a way no correct program run ends: a leak, a rider that
    /// could not be loaded (the runner provides every rider a program needs), or
    /// anything [`Outcome::class`] calls malformed.
    pub fn is_broken(&self) -> bool {
        let class = self.class();
        class == "malformed" || class == "error:leak" || class == "error:rider"
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Some(c) => writeln!(f, "  exit {c}")?,
            None => writeln!(f, "  killed")?,
        }
        let lines = self.stdout_lines();
        let shown = lines.len().min(40);
        for line in &lines[..shown] {
            writeln!(f, "  | {}", String::from_utf8_lossy(line))?;
        }
        if lines.len() > shown {
            writeln!(f, "  | ... ({} more lines)", lines.len() - shown)?;
        }
        for line in &self.stderr_lines {
            writeln!(f, "  stderr: {line}")?;
        }
        Ok(())
    }
}

/// The lines of some output, without their newlines.
pub fn output_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

/// Runs programs on backends.
pub trait Runner: Sync {
    /// The backends this runner runs (after any found unavailable).
    fn backends(&self) -> Vec<&'static str>;
    /// Runs `program` on `backend`.
    fn run(&self, program: &TestProgram, backend: &str) -> Outcome;
}

/// Runs each backend as `datalove run --backend B` in a fresh directory.
pub struct Cli {
    pub datalove: PathBuf,
    pub riders_dir: PathBuf,
    pub work_dir: PathBuf,
    pub timeout: Duration,
    pub backends: Vec<&'static str>,
    /// Under an emulator: the host's own CLI and the target's triple, with which aot and
    /// c build natively (`datalove run --target`) and only the executable runs under the
    /// emulator, as the conformance runner does (docs/testing.md, "Under an emulator").
    pub host_cli: Option<(PathBuf, String)>,
}

static RUNS: AtomicU64 = AtomicU64::new(0);

impl Cli {
    /// A runner over every backend the CLI can run here (each asked once).
    pub fn new(datalove: PathBuf, riders_dir: PathBuf, work_dir: PathBuf) -> Cli {
        Cli::with_host_cli(datalove, riders_dir, work_dir, None)
    }

    /// [`Cli::new`], building aot and c with `host_cli` (the host's CLI and the target's
    /// triple) when given.
    pub fn with_host_cli(
        datalove: PathBuf,
        riders_dir: PathBuf,
        work_dir: PathBuf,
        host_cli: Option<(PathBuf, String)>,
    ) -> Cli {
        let mut cli = Cli {
            datalove,
            riders_dir,
            work_dir,
            timeout: Duration::from_secs(60),
            backends: BACKENDS.to_vec(),
            host_cli,
        };
        let probe = TestProgram {
            script: "debuglog 1\n".into(),
            files: Vec::new(),
        };
        cli.backends = BACKENDS
            .into_iter()
            .filter(|b| cli.run(&probe, b).code != Some(EXIT_UNAVAILABLE))
            .collect();
        cli
    }
}

impl Runner for Cli {
    fn backends(&self) -> Vec<&'static str> {
        self.backends.clone()
    }

    fn run(&self, program: &TestProgram, backend: &str) -> Outcome {
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let dir = self
            .work_dir
            .join(format!("{}-{n}-{backend}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let outcome = match program.write_to(&dir) {
            Err(e) => Outcome {
                code: None,
                stdout: Vec::new(),
                stderr_lines: vec![format!("difftest: cannot write {}: {e}", dir.display())],
            },
            // Through the target's runner, if it has one (docs/running.md, "Targets").
            Ok(script) => match self.command(backend) {
                Err(e) => Outcome {
                    code: None,
                    stdout: Vec::new(),
                    stderr_lines: vec![format!("difftest: {e}")],
                },
                Ok((mut command, target)) => {
                    command
                        .arg("run")
                        .arg(&script)
                        .args(target.map(|t| ["--target", t]).into_iter().flatten())
                        .arg("--backend")
                        .arg(backend)
                        .arg("--rider-path")
                        .arg(&dir)
                        .arg("--rider-path")
                        .arg(&self.riders_dir)
                        .current_dir(&dir)
                        .env("DATALOVE_CHECK_LEAKS", "1")
                        // Each program is written to a directory of its own (named by the
                        // process and a count), which its locations name: no key of the
                        // compilation cache would ever come again.
                        .env("DATALOVE_CACHE", "off")
                        .env_remove("DATALOVE_RIDER_PATH")
                        .env_remove("RUST_BACKTRACE");
                    let mut outcome = run_with_timeout(command, self.timeout);
                    // Messages that name the run's own directory (a rider not found)
                    // name a different one on each backend.
                    let shown = dir.display().to_string();
                    for line in &mut outcome.stderr_lines {
                        *line = line.replace(&shown, "<dir>");
                    }
                    outcome
                }
            },
        };
        let _ = std::fs::remove_dir_all(&dir);
        outcome
    }
}

impl Cli {
    /// The CLI `backend` runs through: the host's with `--target` for aot and c under an
    /// emulator, else this target's through its runner.
    /// The second part is the `--target` to give `run`, if any.
    fn command(&self, backend: &str) -> Result<(Command, Option<&str>), String> {
        match &self.host_cli {
            Some((cli, triple)) if backend == "aot" || backend == "c" => {
                Ok((Command::new(cli), Some(triple)))
            }
            _ => Ok((datalove::Target::current().command(&self.datalove)?, None)),
        }
    }
}

fn run_with_timeout(command: Command, timeout: Duration) -> Outcome {
    let captured = match process::run_with_timeout(command, timeout) {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                code: None,
                stdout: Vec::new(),
                stderr_lines: vec![format!("difftest: cannot run the CLI: {e}")],
            }
        }
    };
    let mut stderr_lines: Vec<String> = String::from_utf8_lossy(&captured.stderr)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let code = if captured.timed_out {
        stderr_lines.push(format!("difftest: timed out after {} s", timeout.as_secs()));
        None
    } else {
        use std::os::unix::process::ExitStatusExt;
        if captured.status.code().is_none() {
            stderr_lines.push(format!(
                "difftest: killed by signal {}",
                captured.status.signal().unwrap_or(0)
            ));
        }
        captured.status.code()
    };
    Outcome {
        code,
        stdout: captured.stdout,
        stderr_lines,
    }
}

/// The most a program run in process may hold allocated: 1 GiB. Past it the program
/// ends with `out of memory`, the same with and without the IR passes, instead of
/// growing until the system kills the whole test, seed and all.
pub const IN_PROCESS_MEMORY_LIMIT: usize = 1 << 30;

/// Runs the in-process backends (interpreter and JIT) through the facade, with the
/// riders found in `riders`; for fuzzing, where a crash is the fuzzer's to catch.
pub struct InProcess {
    pub riders: datalove::RiderPath,
    pub backends: Vec<&'static str>,
    /// The IR passes the programs are compiled with (all, as the CLI does; none to test
    /// the passes against the IR as lowered).
    pub passes: datalove_front::IrPasses,
}

impl Runner for InProcess {
    fn backends(&self) -> Vec<&'static str> {
        self.backends.clone()
    }

    fn run(&self, program: &TestProgram, backend: &str) -> Outcome {
        let compiled = match program.compile_with(self.passes) {
            Ok(c) => c,
            Err(failed) => {
                return Outcome {
                    code: Some(EXIT_COMPILE_ERROR),
                    stdout: Vec::new(),
                    stderr_lines: failed.render().lines().map(str::to_string).collect(),
                }
            }
        };
        let backend = datalove::Backend::from_name(backend).expect("a backend name");
        let options = datalove::RunOptions {
            riders: self.riders.clone(),
            check_leaks: true,
            capture: true,
            memory_limit: Some(IN_PROCESS_MEMORY_LIMIT),
            ..datalove::RunOptions::default()
        };
        match datalove::run(&compiled, backend, &options) {
            Ok(result) => Outcome {
                code: Some(result.outcome.exit_code),
                stdout: result.stdout,
                stderr_lines: result.outcome.stderr_lines,
            },
            Err(u) => Outcome {
                code: Some(EXIT_UNAVAILABLE),
                stdout: Vec::new(),
                stderr_lines: vec![format!(
                    "error: backend {} is unavailable: {}",
                    backend.name(),
                    u.reason
                )],
            },
        }
    }
}

/// Something wrong with one program.
#[derive(Clone, Debug)]
pub enum Finding {
    /// The generator's program does not compile: the generator's bug or the front end's.
    Refused { diagnostics: String },
    /// The front end lowered it to IR the verifier refuses.
    Unverified { errors: String },
    /// The backends do not agree.
    Divergence {
        outcomes: Vec<(&'static str, Outcome)>,
    },
    /// They agree, but on an ending no correct run has (a leak, a panic, a signal).
    Broken {
        outcomes: Vec<(&'static str, Outcome)>,
    },
}

impl Finding {
    /// What must stay the same while the reducer shrinks the program: the kind of
    /// finding, and for runs, which backends end alike and each one's class of ending.
    pub fn signature(&self) -> String {
        match self {
            Finding::Refused { diagnostics } => {
                let first = diagnostics
                    .lines()
                    .find(|l| l.starts_with("error["))
                    .unwrap_or("")
                    .split(']')
                    .next()
                    .unwrap_or("");
                format!("refused {first}")
            }
            Finding::Unverified { .. } => "unverified".into(),
            Finding::Divergence { outcomes } | Finding::Broken { outcomes } => {
                let kind = if matches!(self, Finding::Divergence { .. }) {
                    "divergence"
                } else {
                    "broken"
                };
                let mut text = format!("{kind}:");
                for (i, (b, o)) in outcomes.iter().enumerate() {
                    let group = outcomes.iter().position(|(_, p)| p == o).unwrap_or(i);
                    text.push_str(&format!(" {b}={}/{}", group, o.class()));
                }
                text
            }
        }
    }

    /// The backends the reducer needs to see the finding again: one per group of
    /// backends that ended alike (for a broken ending, the cheapest one).
    pub fn representatives(&self) -> Vec<&'static str> {
        match self {
            Finding::Divergence { outcomes } => {
                let mut reps: Vec<(&'static str, &Outcome)> = Vec::new();
                for (b, o) in outcomes {
                    if !reps.iter().any(|(_, r)| *r == o) {
                        reps.push((b, o));
                    }
                }
                reps.into_iter().map(|(b, _)| b).collect()
            }
            Finding::Broken { outcomes } => outcomes.first().map(|(b, _)| *b).into_iter().collect(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Refused { diagnostics } => {
                writeln!(f, "the program does not compile:\n{diagnostics}")
            }
            Finding::Unverified { errors } => {
                writeln!(
                    f,
                    "the front end lowered it to IR the verifier refuses:\n{errors}"
                )
            }
            Finding::Divergence { outcomes } | Finding::Broken { outcomes } => {
                if matches!(self, Finding::Divergence { .. }) {
                    writeln!(f, "the backends disagree:")?;
                } else {
                    writeln!(f, "the backends agree on an ending no correct run has:")?;
                }
                for (b, o) in outcomes {
                    writeln!(f, "== {b}")?;
                    write!(f, "{o}")?;
                }
                Ok(())
            }
        }
    }
}

/// What one program did.
#[derive(Clone, Debug)]
pub enum Check {
    /// Every backend ended the same, and correctly.
    Agree(Outcome),
    Found(Finding),
}

/// Compiles `program` (front end and verifier, in process), then runs it on
/// `backends` (all of the runner's when `None`) and compares.
pub fn check(
    runner: &dyn Runner,
    program: &TestProgram,
    backends: Option<&[&'static str]>,
) -> Check {
    match program.compile() {
        Err(failed) => {
            return Check::Found(Finding::Refused {
                diagnostics: failed.render(),
            })
        }
        Ok(compiled) => {
            if let Err(errors) = datalove_ir::verify::verify_program(&compiled.program) {
                let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                return Check::Found(Finding::Unverified {
                    errors: errors.join("\n"),
                });
            }
        }
    }
    let backends = backends.map_or_else(|| runner.backends(), <[_]>::to_vec);
    let outcomes: Vec<(&'static str, Outcome)> = backends
        .iter()
        .map(|b| (*b, runner.run(program, b)))
        .collect();
    let agree = outcomes.windows(2).all(|w| w[0].1 == w[1].1);
    if !agree {
        return Check::Found(Finding::Divergence { outcomes });
    }
    if outcomes.iter().any(|(_, o)| o.is_broken()) {
        return Check::Found(Finding::Broken { outcomes });
    }
    match outcomes.into_iter().next() {
        Some((_, o)) => Check::Agree(o),
        None => Check::Agree(Outcome {
            code: Some(EXIT_OK),
            stdout: Vec::new(),
            stderr_lines: Vec::new(),
        }),
    }
}

/// A temporary directory under the system's, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> std::io::Result<TempDir> {
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("difftest-{label}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
