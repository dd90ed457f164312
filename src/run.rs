//! Running a compiled program on a backend, and on all of them side by side.

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use datalove_front::{Compiled, Failed};
use datalove_ir::native::NativeResolver;
use datalove_rt::{Outcome, OutputMode, RiderLibrary, Runtime, RuntimeOptions, EXIT_RUNTIME_ERROR};
use datalove_rti::RtHeader;
use datalove_toolchain::{RiderPlacement, Target};

use crate::riders::RiderPath;

/// The four backends. Each either runs a program or says why it is unavailable here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    /// The interpreter: fast start, the reference the others are held to.
    Interp,
    /// Cranelift, compiled in-process.
    Jit,
    /// Cranelift, an object file linked into an executable.
    Aot,
    /// C, compiled by the system C compiler into an executable.
    C,
}

impl Backend {
    pub const ALL: [Backend; 4] = [Backend::Interp, Backend::Jit, Backend::Aot, Backend::C];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::Jit => "jit",
            Backend::Aot => "aot",
            Backend::C => "c",
        }
    }

    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// `None` when the backend can run programs here; otherwise why not. aot and c need
    /// a working C compiler (`datalove_toolchain::probe`, run once per process).
    pub fn unavailable_reason(self) -> Option<String> {
        match self {
            Backend::Interp | Backend::Jit => None,
            Backend::Aot | Backend::C => datalove_toolchain::probe().err(),
        }
    }
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub riders: RiderPath,
    /// Report allocations still live at the end as a runtime error (also on with
    /// `DATALOVE_CHECK_LEAKS=1`).
    pub check_leaks: bool,
    /// Keep `debuglog` output in the result instead of writing it to stdout.
    pub capture: bool,
    /// The call-depth limit (default `DATALOVE_DEPTH_LIMIT`, else
    /// [`datalove_rt::DEFAULT_DEPTH_LIMIT`]).
    pub depth_limit: Option<usize>,
    /// The most bytes the program may hold allocated (default `DATALOVE_MEMORY_LIMIT`,
    /// else none).
    pub memory_limit: Option<usize>,
    /// The program's arguments (`env.args()`); an executable gets them on its command line.
    pub args: Vec<String>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub backend: Backend,
    /// `debuglog` output, when captured.
    pub stdout: Vec<u8>,
    /// The lines for stderr (`error: <kind>: <detail>`), exit code and error.
    pub outcome: Outcome,
    pub elapsed: Duration,
    /// The part of `elapsed` spent compiling before the program started: the
    /// interpreter's lowering, the JIT's code generation, linking the aot or c
    /// executable. `None` when it did not get that far.
    pub compile_elapsed: Option<Duration>,
}

/// Why a backend could not run a program at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    pub backend: Backend,
    pub reason: String,
}

/// The outcome of a rider problem found before the program could start (a missing
/// library or symbol, another ABI version): one `error: rider: ...` line, exit 101, on
/// every backend.
pub fn rider_problem(message: &str) -> Outcome {
    datalove_rt::rider_problem(message)
}

/// The outcome of a program refused before it could start (a module, IR the verifier
/// refuses, a backend that cannot take it): its diagnostics, exit 2, the same on every
/// backend.
pub fn refused(failed: &Failed) -> Outcome {
    Outcome {
        exit_code: crate::EXIT_REFUSED,
        stderr_lines: failed.render().lines().map(str::to_string).collect(),
        error: None,
    }
}

/// Runs `compiled` on `backend`.
pub fn run(
    compiled: &Compiled,
    backend: Backend,
    options: &RunOptions,
) -> Result<RunResult, Unavailable> {
    if let Some(reason) = backend.unavailable_reason() {
        return Err(Unavailable { backend, reason });
    }
    let start = Instant::now();
    // One admission for every backend, before any of them is asked.
    if let Err(failed) = datalove_front::admit(compiled) {
        return Ok(RunResult {
            backend,
            stdout: Vec::new(),
            outcome: refused(&failed),
            elapsed: start.elapsed(),
            compile_elapsed: None,
        });
    }
    let mut compile_elapsed = None;
    let (stdout, outcome) = match backend {
        Backend::Interp => run_interp(compiled, options, &mut compile_elapsed),
        Backend::Jit => run_jit(compiled, options, &mut compile_elapsed),
        Backend::Aot => run_executable(compiled, options, Backend::Aot, &mut compile_elapsed),
        Backend::C => run_executable(compiled, options, Backend::C, &mut compile_elapsed),
    };
    Ok(RunResult {
        backend,
        stdout,
        outcome,
        elapsed: start.elapsed(),
        compile_elapsed,
    })
}

/// Loads every rider the program requires, each from the directory its interface came
/// from (`RiderPath::library`).
fn load_riders(
    compiled: &Compiled,
    riders: &RiderPath,
) -> Result<HashMap<String, RiderLibrary>, String> {
    let mut libraries = HashMap::new();
    for name in &compiled.program.riders {
        let path = riders.library(name)?;
        let library = RiderLibrary::load_path(name, &path).map_err(|e| e.to_string())?;
        libraries.insert(name.clone(), library);
    }
    Ok(libraries)
}

/// The in-process backends' run: load the riders, compile with every native resolved
/// from them, run on a thread with the program stack and a fresh runtime, then free the
/// compiled program before the riders are unloaded. `compile_elapsed` gets the time
/// from the start to the compiled program.
fn run_in_process<P>(
    compiled: &Compiled,
    options: &RunOptions,
    compile_elapsed: &mut Option<Duration>,
    compile: impl FnOnce(&mut NativeResolver<'_>) -> Result<P, Outcome> + Send,
    execute: impl FnOnce(&P, *mut RtHeader) + Send,
) -> (Vec<u8>, Outcome) {
    let start = Instant::now();
    datalove_rt::run_on_thread(datalove_rt::PROGRAM_STACK_SIZE, || {
        let libraries = match load_riders(compiled, &options.riders) {
            Ok(l) => l,
            Err(message) => return (Vec::new(), rider_problem(&message)),
        };
        let mut resolve = |ctx: &datalove_ir::NativeContext| -> Result<*const c_void, String> {
            let library = libraries
                .get(ctx.rider())
                .ok_or_else(|| format!("rider `{}` is not loaded", ctx.rider()))?;
            library.symbol(ctx.symbol()).map_err(|e| e.to_string())
        };
        let program = match compile(&mut resolve) {
            Ok(p) => p,
            Err(outcome) => return (Vec::new(), outcome),
        };
        *compile_elapsed = Some(start.elapsed());
        // Made on this thread, so its stack limit is this thread's.
        let runtime = Runtime::new(runtime_options(options));
        execute(&program, runtime.handle());
        let outcome = runtime.finish_report(options.check_leaks);
        let stdout = runtime.take_output();
        drop(runtime);
        drop(program);
        drop(libraries);
        (stdout, outcome)
    })
}

fn run_interp(
    compiled: &Compiled,
    options: &RunOptions,
    compile_elapsed: &mut Option<Duration>,
) -> (Vec<u8>, Outcome) {
    run_in_process(
        compiled,
        options,
        compile_elapsed,
        |resolve| {
            datalove_interp::compile(&compiled.program, resolve).map_err(|e| match e {
                datalove_interp::InterpError::Native(m) => rider_problem(&m),
                e => backend_refused(compiled, Backend::Interp, e),
            })
        },
        // SAFETY: the runtime is live and this thread's; the riders stay loaded until after.
        |interpreter, rt| unsafe { interpreter.run(rt, datalove_interp::DEFAULT_ARENA_BYTES) },
    )
}

fn run_jit(
    compiled: &Compiled,
    options: &RunOptions,
    compile_elapsed: &mut Option<Duration>,
) -> (Vec<u8>, Outcome) {
    run_in_process(
        compiled,
        options,
        compile_elapsed,
        |resolve| {
            datalove_clif_jit::compile(&compiled.program, resolve).map_err(|e| match e {
                datalove_clif_jit::JitError::Native(m) => rider_problem(&m),
                e => backend_refused(compiled, Backend::Jit, e),
            })
        },
        // SAFETY: as for the interpreter; the JIT's memory is freed before the riders go.
        |program, rt| unsafe { program.run(rt) },
    )
}

/// `backend` could not compile `compiled` after admitting it: `B001`, as [`refused`].
fn backend_refused(compiled: &Compiled, backend: Backend, why: impl std::fmt::Display) -> Outcome {
    let failed = datalove_front::backend_refusal(compiled, backend.name(), &why.to_string());
    refused(&failed)
}

fn runtime_options(options: &RunOptions) -> RuntimeOptions {
    let mut runtime_options = RuntimeOptions::default();
    runtime_options.check_leaks |= options.check_leaks;
    if let Some(limit) = options.depth_limit {
        runtime_options.depth_limit = limit;
    }
    if let Some(limit) = options.memory_limit {
        runtime_options.memory_limit = Some(limit);
    }
    if options.capture {
        runtime_options.output = OutputMode::Capture;
    }
    runtime_options.args = options.args.clone();
    runtime_options
}

/// The rider libraries an executable of `target` needs beside it, each checked as far as
/// this machine can: for its own target, loaded as the interpreter loads them (ABI
/// version) and every native's symbol looked up; for another target, a library of that
/// target's machine (the executable checks the rest at start).
fn executable_riders(
    compiled: &Compiled,
    riders: &RiderPath,
    target: &Target,
) -> Result<Vec<(String, PathBuf)>, String> {
    if target.is_current() {
        let libraries = load_riders(compiled, riders)?;
        for native in compiled.program.native_calls() {
            let library = libraries
                .get(native.rider())
                .ok_or_else(|| format!("rider `{}` is not loaded", native.rider()))?;
            library.symbol(native.symbol()).map_err(|e| e.to_string())?;
        }
        let mut found: Vec<(String, PathBuf)> = libraries
            .values()
            .map(|l| (l.rider().to_string(), l.path().to_path_buf()))
            .collect();
        found.sort();
        return Ok(found);
    }
    let mut found = Vec::new();
    for name in &compiled.program.riders {
        let library = riders.library(name)?;
        let foreign = datalove_toolchain::elf_machine(&library)
            .filter(|machine| Some(*machine) != target.elf_machine());
        if let Some(machine) = foreign {
            return Err(format!(
                "rider `{name}`: {} is a library for {}, not for {target}",
                library.display(),
                datalove_toolchain::machine_name(machine)
            ));
        }
        found.push((name.clone(), library));
    }
    Ok(found)
}

/// Why no executable was made.
#[derive(Debug)]
pub enum BuildError {
    /// Refused before anything was built (a module, IR the verifier refuses, a backend
    /// that cannot take the program): diagnostics, exit 2.
    Refused(Failed),
    /// A rider the program requires cannot be found or loaded.
    Rider(String),
    /// The toolchain or the filesystem failed.
    Failed(String),
    /// The output is one of the build's inputs (the program's source, a module, a rider's
    /// interface or library, the runtime): nothing was written.
    WouldOverwrite {
        output: std::path::PathBuf,
        input: std::path::PathBuf,
    },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Refused(failed) => f.write_str(failed.render().trim_end()),
            BuildError::Rider(m) => write!(f, "rider: {m}"),
            BuildError::Failed(m) => f.write_str(m),
            BuildError::WouldOverwrite { output, input } => write!(
                f,
                "the output {} is {}, which the build reads: refusing to write over it",
                output.display(),
                input.display()
            ),
        }
    }
}

/// Refuses an output that is one of `inputs`.
fn refuse_overwrite(
    out: &std::path::Path,
    inputs: impl IntoIterator<Item = std::path::PathBuf>,
) -> Result<(), BuildError> {
    match inputs
        .into_iter()
        .find(|input| datalove_toolchain::same_file(out, input))
    {
        Some(input) => Err(BuildError::WouldOverwrite {
            output: out.to_path_buf(),
            input,
        }),
        None => Ok(()),
    }
}

impl std::error::Error for BuildError {}

/// Links the executable `out` of `backend` (aot or c) for `target` with the runtime
/// staticlib built for it, and places the riders beside it.
fn link_executable(
    compiled: &Compiled,
    backend: Backend,
    riders: Vec<(String, PathBuf)>,
    out: &Path,
    target: &Target,
    placement: RiderPlacement,
) -> Result<(), BuildError> {
    let runtime = staticlib_for(target).map_err(BuildError::Failed)?;
    let inputs = datalove_toolchain::LinkInputs {
        target: target.clone(),
        runtime,
        riders,
        placement,
    };
    let refused = |why: String| {
        BuildError::Refused(datalove_front::backend_refusal(
            compiled,
            backend.name(),
            &why,
        ))
    };
    match backend {
        Backend::Aot => datalove_clif_aot::build_executable(&compiled.program, &inputs, out)
            .map_err(|e| match e {
                datalove_clif_aot::AotError::Lower(_) => refused(e.to_string()),
                e => BuildError::Failed(e.to_string()),
            }),
        Backend::C => datalove_cbackend::build_executable(&compiled.program, &inputs, out).map_err(
            |e| match e {
                datalove_cbackend::CError::Unverified(_)
                | datalove_cbackend::CError::Compile { .. } => refused(e.to_string()),
                e => BuildError::Failed(e.to_string()),
            },
        ),
        other => Err(BuildError::Failed(format!(
            "backend `{}` does not build executables",
            other.name()
        ))),
    }
}

/// Builds the AOT executable `out` from `compiled`, linking the riders it requires from
/// `riders` and the runtime staticlib found beside the running executable.
pub fn build_aot(compiled: &Compiled, riders: &RiderPath, out: &Path) -> Result<(), BuildError> {
    build_executable(compiled, Backend::Aot, riders, out)
}

/// The runtime staticlib built for `target`.
fn staticlib_for(target: &Target) -> Result<PathBuf, String> {
    let other = (!target.is_current()).then(|| target.triple());
    datalove_rt::artifact::staticlib_for_target(other)
}

/// Builds the executable `out` of `backend` (aot or c) from `compiled` for this machine,
/// with the riders it requires (found in `riders`) copied beside it. The program is
/// admitted first, as for [`run`].
pub fn build_executable(
    compiled: &Compiled,
    backend: Backend,
    riders: &RiderPath,
    out: &Path,
) -> Result<(), BuildError> {
    build_executable_for(compiled, backend, riders, out, &Target::current())
}

/// Builds the executable `out` of `backend` (aot or c) from `compiled` for `target`:
/// the target's object or C, compiled and linked by the target's C compiler with the
/// runtime staticlib built for the target, and the riders it requires (found in
/// `riders`, which should be [`RiderPath::for_target`]'s) copied beside it. The program
/// is admitted first, as for [`run`].
pub fn build_executable_for(
    compiled: &Compiled,
    backend: Backend,
    riders: &RiderPath,
    out: &Path,
    target: &Target,
) -> Result<(), BuildError> {
    datalove_front::admit(compiled).map_err(BuildError::Refused)?;
    datalove_toolchain::probe_target(target).map_err(BuildError::Failed)?;
    let found = executable_riders(compiled, riders, target).map_err(BuildError::Rider)?;
    // Every file the build reads: the sources and interfaces the front end read (the
    // built-in ones have no file), the rider libraries and the runtime it links.
    let sources = compiled
        .sources
        .files()
        .map(|(_, f)| PathBuf::from(&f.name));
    let libraries = found.iter().map(|(_, library)| library.clone());
    refuse_overwrite(
        out,
        sources.chain(libraries).chain(staticlib_for(target).ok()),
    )?;
    link_executable(compiled, backend, found, out, target, RiderPlacement::Copy)
}

/// Runs an executable backend (aot or c): builds into a temporary directory, runs the
/// executable, collects its outcome, removes the directory.
fn run_executable(
    compiled: &Compiled,
    options: &RunOptions,
    backend: Backend,
    compile_elapsed: &mut Option<Duration>,
) -> (Vec<u8>, Outcome) {
    let start = Instant::now();
    let name = backend.name();
    use std::process::Stdio;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "datalove-{name}-{}-{}",
        std::process::id(),
        BUILDS.fetch_add(1, Ordering::Relaxed)
    ));
    let target = Target::current();
    let riders = match executable_riders(compiled, &options.riders, &target) {
        Ok(r) => r,
        Err(message) => return (Vec::new(), rider_problem(&message)),
    };
    let outcome = (|| {
        std::fs::create_dir_all(&dir)
            .map_err(|e| BuildError::Failed(format!("cannot create {}: {e}", dir.display())))?;
        let exe = dir.join("program");
        // A temporary executable: its riders are links to where they were found.
        link_executable(
            compiled,
            backend,
            riders,
            &exe,
            &target,
            RiderPlacement::Symlink,
        )?;
        *compile_elapsed = Some(start.elapsed());
        // Through the target's runner, if it has one (under qemu-user, a program cannot
        // start another of its own architecture directly).
        let mut command = target
            .command(&exe)
            .map_err(|e| BuildError::Failed(format!("cannot run {}: {e}", exe.display())))?;
        command.args(&options.args);
        if options.check_leaks {
            command.env(datalove_rt::CHECK_LEAKS_ENV, "1");
        }
        // The executable's runtime reads its settings from the environment.
        if let Some(limit) = options.depth_limit {
            command.env(datalove_rt::DEPTH_LIMIT_ENV, limit.to_string());
        }
        if let Some(limit) = options.memory_limit {
            command.env(datalove_rt::MEMORY_LIMIT_ENV, limit.to_string());
        }
        // The program reads the host's stdin as the in-process backends do (`io`);
        // a capturing host gives it none.
        command
            .stdin(if options.capture {
                Stdio::null()
            } else {
                Stdio::inherit()
            })
            .stdout(if options.capture {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .stderr(Stdio::piped());
        let output = command
            .output()
            .map_err(|e| BuildError::Failed(format!("cannot run {}: {e}", exe.display())))?;
        let mut stderr_lines: Vec<String> = String::from_utf8_lossy(&output.stderr)
            .lines()
            .map(str::to_string)
            .collect();
        let exit_code = match output.status.code() {
            Some(code) => code,
            None => {
                use std::os::unix::process::ExitStatusExt;
                let signal = output.status.signal().unwrap_or(0);
                stderr_lines.push(format!(
                    "error: {name}: the executable was killed by signal {signal}"
                ));
                EXIT_RUNTIME_ERROR
            }
        };
        Ok::<_, BuildError>((
            output.stdout,
            Outcome {
                exit_code,
                stderr_lines,
                error: None,
            },
        ))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    outcome.unwrap_or_else(|e| {
        let outcome = match e {
            BuildError::Refused(failed) => refused(&failed),
            BuildError::Rider(message) => rider_problem(&message),
            e @ (BuildError::Failed(_) | BuildError::WouldOverwrite { .. }) => Outcome {
                exit_code: EXIT_RUNTIME_ERROR,
                stderr_lines: vec![format!("error: {name}: {e}")],
                error: None,
            },
        };
        (Vec::new(), outcome)
    })
}

/// Every backend's run of one program, and whether they agree.
pub struct Comparison {
    pub results: Vec<RunResult>,
    pub unavailable: Vec<Unavailable>,
}

impl Comparison {
    /// Whether every backend that ran printed the same, ended the same and exited the same.
    pub fn agree(&self) -> bool {
        self.results.windows(2).all(|w| {
            w[0].stdout == w[1].stdout
                && w[0].outcome.stderr_lines == w[1].outcome.stderr_lines
                && w[0].outcome.exit_code == w[1].outcome.exit_code
        })
    }
}

/// Runs `compiled` on every available backend, output captured.
pub fn run_all(compiled: &Compiled, options: &RunOptions) -> Comparison {
    let options = RunOptions {
        capture: true,
        ..options.clone()
    };
    let mut results = Vec::new();
    let mut unavailable = Vec::new();
    for backend in Backend::ALL {
        match run(compiled, backend, &options) {
            Ok(r) => results.push(r),
            Err(u) => unavailable.push(u),
        }
    }
    Comparison {
        results,
        unavailable,
    }
}
