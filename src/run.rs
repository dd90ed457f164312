//! Running a compiled program on a backend, and on all of them side by side.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use datalove_front::{Compiled, Failed};
use datalove_rt::{Outcome, RiderLibrary, EXIT_RUNTIME_ERROR};
use datalove_toolchain::{RiderPlacement, Target};

use crate::riders::RiderPath;
use crate::{Engine, Error};

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
    /// A probe that succeeded is remembered in the compilation cache (when the
    /// environment has one), for this C compiler file: a cached `run` then starts no
    /// compiler at all.
    pub fn unavailable_reason(self) -> Option<String> {
        self.unavailable_reason_for(&Target::current())
    }

    /// Why this backend cannot run programs built for `target` here, if it cannot:
    /// interp and jit run in this process, so only on its own target; aot and c need
    /// the target's C compiler (and run the executable through its runner).
    pub fn unavailable_reason_for(self, target: &Target) -> Option<String> {
        match self {
            Backend::Interp | Backend::Jit if target.is_current() => None,
            Backend::Interp | Backend::Jit => Some(format!(
                "it runs programs in this process, so only for this machine's target ({}), not {}: aot and c build for another",
                Target::current().triple(),
                target.triple()
            )),
            Backend::Aot | Backend::C => {
                if !target.is_current() {
                    // What only another target can lack: a way to start its programs and
                    // a runtime built for it.
                    if let Err(why) = target.runner() {
                        return Some(why);
                    }
                    if let Err(why) = staticlib_for(target) {
                        return Some(why);
                    }
                }
                // A remembered probe holds the linker flags it chose.
                let marker = crate::Cache::from_env().map(|c| c.probe_marker(target));
                if let Some(flags) = marker.as_ref().and_then(|m| std::fs::read_to_string(m).ok()) {
                    let flags = flags.split_whitespace().map(str::to_string).collect();
                    datalove_toolchain::remember_probe(target, flags);
                    return None;
                }
                let reason = datalove_toolchain::probe_target(target).err();
                if let (None, Some(marker)) = (&reason, marker) {
                    let flags = datalove_toolchain::link_flags(target).join(" ");
                    crate::cache::remember(&marker, &flags);
                }
                reason
            }
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
    /// Where aot and c keep their executables between runs (`Cache::from_env()` for
    /// the CLI's default); `None` builds each time.
    pub cache: Option<crate::Cache>,
    /// The target aot and c build the executable for and run it on, through its runner
    /// (`qemu-aarch64` for aarch64 on x86-64; `None`: this machine's). interp and jit
    /// run only on this machine's target.
    pub target: Option<Target>,
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
    /// What the compilation cache did (aot and c with a cache).
    pub cache_event: Option<crate::CacheEvent>,
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

/// Runs `compiled` on `backend` once: an [`Engine`] with `options`' settings compiles it
/// into a module (building the executable of aot and c) and runs it. A refusal, a rider
/// problem or a failed build is the outcome the CLI prints for it.
pub fn run(
    compiled: &Compiled,
    backend: Backend,
    options: &RunOptions,
) -> Result<RunResult, Unavailable> {
    let start = Instant::now();
    let engine = match Engine::for_run(backend, options) {
        Ok(engine) => engine,
        Err(Error::Unavailable(unavailable)) => return Err(unavailable),
        Err(e) => unreachable!("an engine is refused only when unavailable: {e}"),
    };
    let copy = Compiled {
        program: compiled.program.clone(),
        sources: compiled.sources.clone(),
        riders: compiled.riders.clone(),
    };
    let (stdout, outcome, compile_elapsed, cache_event) = match engine.load(copy) {
        Ok(module) => {
            let (stdout, outcome) = module.execute(options.capture, &options.args);
            (
                stdout,
                outcome,
                Some(module.compile_elapsed()),
                module.cache_event(),
            )
        }
        Err(e) => (Vec::new(), load_failure(backend, e), None, None),
    };
    Ok(RunResult {
        backend,
        stdout,
        outcome,
        elapsed: start.elapsed(),
        compile_elapsed,
        cache_event,
    })
}

/// The compilation cache's key for `compiled` built by `backend` for `target` with the
/// rider libraries `found`: everything that decides the executable. The IR after the
/// passes (locations included, which error lines print), the source files read, the
/// declarations of each rider interface, each rider library's path, length and modification time, the
/// backend and target, the C compiler's words, the linker flags the probe chose
/// (`datalove_toolchain::link_flags`) and the file it runs, the runtime
/// staticlib linked, and the running program itself (the code generators are part of
/// it), with datalove's version.
pub(crate) fn cache_key(
    compiled: &Compiled,
    backend: Backend,
    found: &[(String, PathBuf)],
    target: &Target,
) -> String {
    let mut key = crate::CacheKey::new();
    key.part(backend.name()).part(target.triple());
    key.part(datalove_ir::print::print_program(&compiled.program));
    for (_, file) in compiled.sources.files() {
        key.part(&file.name).part(&file.text);
    }
    // Each rider interface as declared, for the ones that are no file (the built-in
    // `std`'s, a host rider's); a `.dli` file is among the sources above.
    for rider in &compiled.riders {
        key.part(&rider.rider).part(format!("{:?}", rider.natives));
    }
    for (rider, library) in found {
        key.part(rider).file(library);
    }
    let compiler = target.c_compiler();
    key.part(compiler.name())
        .part(datalove_toolchain::link_flags(target).join(" "));
    if let Some(program) = datalove_toolchain::find_program(&compiler.program) {
        key.file(&program);
    }
    if let Ok(staticlib) = staticlib_for(target) {
        key.file(&staticlib);
    }
    if let Ok(exe) = std::env::current_exe() {
        key.file(&exe);
    }
    key.finish()
}

/// The compilation cache's key for the shared library `build_library` makes of
/// `compiled` (the embedding API's aot and c modules that call host closures, and every
/// module's call program): [`cache_key`]'s parts with no rider library (the library links
/// none), and what it is.
pub(crate) fn library_cache_key(compiled: &Compiled, backend: Backend, target: &Target) -> String {
    let mut key = crate::CacheKey::new();
    key.part("shared library")
        .part(cache_key(compiled, backend, &[], target));
    key.finish()
}

/// The outcome of a program that could not be loaded: its diagnostics (exit 2) when
/// refused, one `error: rider: ...` line for a rider problem, else one
/// `error: <backend>: ...` line (exit 101).
fn load_failure(backend: Backend, error: Error) -> Outcome {
    match error {
        Error::Refused(failed) => refused(&failed),
        Error::Rider(message) => rider_problem(&message),
        e => Outcome {
            exit_code: EXIT_RUNTIME_ERROR,
            stderr_lines: vec![format!(
                "error: {}: {}",
                backend.name(),
                match e {
                    Error::Link(m) | Error::Unsupported(m) => m,
                    e => e.to_string(),
                }
            )],
            error: None,
        },
    }
}

/// Loads every rider the program requires, each from the directory its interface came
/// from (`RiderPath::library`).
pub(crate) fn load_riders<'a>(
    names: impl IntoIterator<Item = &'a String>,
    riders: &RiderPath,
) -> Result<HashMap<String, RiderLibrary>, String> {
    let mut libraries = HashMap::new();
    for name in names {
        let path = riders.library(name)?;
        let library = RiderLibrary::load_path(name, &path).map_err(|e| e.to_string())?;
        libraries.insert(name.clone(), library);
    }
    Ok(libraries)
}

/// The rider libraries an executable of `target` needs beside it, each checked as far as
/// this machine can: for its own target, loaded as the interpreter loads them (ABI
/// version) and every native's symbol looked up; for another target, a library of that
/// target's machine (the executable checks the rest at start).
pub(crate) fn executable_riders(
    compiled: &Compiled,
    riders: &RiderPath,
    target: &Target,
) -> Result<Vec<(String, PathBuf)>, String> {
    if target.is_current() {
        let libraries = load_riders(&compiled.program.riders, riders)?;
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
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Refused before anything was built (a module, IR the verifier refuses, a backend
    /// that cannot take the program): diagnostics, exit 2.
    #[error("{}", .0.render().trim_end())]
    Refused(Failed),
    /// A rider the program requires cannot be found or loaded.
    #[error("rider: {0}")]
    Rider(String),
    /// The toolchain or the filesystem failed.
    #[error("{0}")]
    Failed(String),
    /// The output is one of the build's inputs (the program's source, a module, a rider's
    /// interface or library, the runtime): nothing was written.
    #[error(
        "the output {} is {}, which the build reads: refusing to write over it",
        output.display(),
        input.display()
    )]
    WouldOverwrite {
        output: std::path::PathBuf,
        input: std::path::PathBuf,
    },
    /// The output is where a rider's library is copied beside the executable (`-o
    /// dir/libdlr_std.so` of a program that uses `std`): the copy would replace the
    /// executable, so nothing was written.
    #[error(
        "the output {} is where the rider `{rider}`'s library {} is placed beside the executable: refusing to build it there (name the executable otherwise)",
        output.display(),
        library.display()
    )]
    OutputIsRiderCopy {
        output: std::path::PathBuf,
        rider: String,
        library: std::path::PathBuf,
    },
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

/// Links the executable `out` of `backend` (aot or c) for `target` with the runtime
/// staticlib built for it, and places the riders beside it.
pub(crate) fn link_executable(
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
    build_artifact(
        compiled,
        backend,
        "executables",
        || datalove_clif_aot::build_executable(&compiled.program, &inputs, out),
        || datalove_cbackend::build_executable(&compiled.program, &inputs, out),
    )
}

/// Builds `compiled` for `backend` (aot, c) as the shared library `out` for `target`
/// (`datalove_toolchain::link_library`): no runtime and no rider linked, for a host
/// process that loads it and fills its native slots (`Engine`'s in-process aot and c).
pub(crate) fn build_library(
    compiled: &Compiled,
    backend: Backend,
    out: &Path,
    target: &Target,
) -> Result<(), BuildError> {
    build_artifact(
        compiled,
        backend,
        "libraries",
        || datalove_clif_aot::build_library(&compiled.program, target, out),
        || datalove_cbackend::build_library(&compiled.program, target, out),
    )
}

/// Runs the aot or the c build of `compiled` (`what`: what it builds, for the message
/// of another backend) and decides, once for executables and libraries, which of its
/// failures refuse the program (`B001`: the backend cannot lower it, or the C compiler
/// rejects the emitted C) and which are the toolchain's or the filesystem's.
fn build_artifact(
    compiled: &Compiled,
    backend: Backend,
    what: &str,
    aot: impl FnOnce() -> Result<(), datalove_clif_aot::AotError>,
    c: impl FnOnce() -> Result<(), datalove_cbackend::CError>,
) -> Result<(), BuildError> {
    let refused =
        |e: &dyn std::fmt::Display| BuildError::Refused(backend_refused(compiled, backend, e));
    match backend {
        Backend::Aot => aot().map_err(|e| match e {
            datalove_clif_aot::AotError::Lower(_) => refused(&e),
            e => BuildError::Failed(e.to_string()),
        }),
        Backend::C => c().map_err(|e| match e {
            datalove_cbackend::CError::Unverified(_)
            | datalove_cbackend::CError::Compile { .. } => refused(&e),
            e => BuildError::Failed(e.to_string()),
        }),
        other => Err(BuildError::Failed(format!(
            "backend `{}` does not build {what}",
            other.name()
        ))),
    }
}

/// `backend`'s refusal of `compiled` (the program is fine, the backend cannot take it),
/// saying `why`.
pub(crate) fn backend_refused(
    compiled: &Compiled,
    backend: Backend,
    why: &dyn std::fmt::Display,
) -> Failed {
    datalove_front::backend_refusal(compiled, backend.name(), &why.to_string())
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
    let found = prepare_build(compiled, riders, out, target)?;
    link_executable(compiled, backend, found, out, target, RiderPlacement::Copy)
}

/// What every `build` checks before it links: the program admitted, the target's C
/// compiler working, the riders found (returned), and `out` none of the files the build
/// reads: the sources and interfaces the front end read (the built-in ones have no
/// file), the rider libraries and the runtime it links.
fn prepare_build(
    compiled: &Compiled,
    riders: &RiderPath,
    out: &Path,
    target: &Target,
) -> Result<Vec<(String, PathBuf)>, BuildError> {
    datalove_front::admit(compiled).map_err(BuildError::Refused)?;
    datalove_toolchain::probe_target(target).map_err(BuildError::Failed)?;
    let found = executable_riders(compiled, riders, target).map_err(BuildError::Rider)?;
    let sources = compiled
        .sources
        .files()
        .map(|(_, f)| PathBuf::from(&f.name));
    let libraries = found.iter().map(|(_, library)| library.clone());
    refuse_overwrite(
        out,
        sources.chain(libraries).chain(staticlib_for(target).ok()),
    )?;
    if let Some((rider, library)) = found
        .iter()
        .find(|(_, library)| datalove_toolchain::is_rider_destination(out, library))
    {
        return Err(BuildError::OutputIsRiderCopy {
            output: out.to_path_buf(),
            rider: rider.clone(),
            library: library.clone(),
        });
    }
    Ok(found)
}

/// As [`build_executable_for`], through the compilation cache when there is one: the
/// executable is built into the cache (or found there), then copied to `out` with its
/// riders beside it. What the cache did, if it was asked.
pub fn build_executable_cached(
    compiled: &Compiled,
    backend: Backend,
    riders: &RiderPath,
    out: &Path,
    target: &Target,
    cache: Option<&crate::Cache>,
) -> Result<Option<crate::CacheEvent>, BuildError> {
    let Some(cache) = cache else {
        return build_executable_for(compiled, backend, riders, out, target).map(|()| None);
    };
    let found = prepare_build(compiled, riders, out, target)?;
    let key = cache_key(compiled, backend, &found, target);
    let (program, event) = cache.fetch_or_build(
        &key,
        |exe| {
            link_executable(
                compiled,
                backend,
                found.clone(),
                exe,
                target,
                RiderPlacement::Symlink,
            )
        },
        BuildError::Failed,
    )?;
    let copied = std::fs::copy(&program, out)
        .map_err(|e| {
            format!(
                "cannot copy {} to {}: {e}",
                program.display(),
                out.display()
            )
        })
        .and_then(|_| datalove_toolchain::place_riders(&found, RiderPlacement::Copy, out));
    copied.map_err(BuildError::Failed)?;
    Ok(Some(event))
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
