//! The embedder's interface: an [`Engine`] (a backend and its settings) compiles a
//! program once into a [`Module`], which runs its `main` as many times as asked.
//!
//! In-process backends (interp, jit) compile on a thread of the module's own, started
//! once with the program stack ([`datalove_rt::PROGRAM_STACK_SIZE`]): the rider libraries
//! are loaded there, the program is compiled there, and every run is executed there with
//! a fresh runtime, so nothing of the compiled program ever crosses threads. Executable
//! backends (aot, c) link one executable into a temporary directory the module owns, and
//! start it once per run; the directory is removed when the module is dropped. To call
//! functions, or to run a program with host natives (closures of this process), aot and
//! c build the program once as a shared library with no runtime of its own
//! (`ProgramLibrary`) and run it on the module's thread exactly as the JIT's code.
//!
//! See `docs/embedding.md`.

use std::any::Any;
use std::ffi::c_void;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use datalove_front::{Compiled, MemoryLoader};
use datalove_ir::IrType;
use datalove_rt::{Outcome, OutputMode, Runtime, RuntimeOptions, EXIT_RUNTIME_ERROR};
use datalove_rti::{ErrorKind, RtHeader, TyDesc};
use datalove_toolchain::{RiderPlacement, Target};

use crate::cache::{Cache, CacheEvent};
use crate::call::{
    call_program, embed_native, with_call, CallProgram, CallState, Callable, Reader, EMBED_RIDER,
};
use crate::error::{parse_error_line, Error, RuntimeError};
use crate::host::{HostRider, HostRiders};
use crate::riders::{ProgramLoader, RiderPath};
use crate::run::RunOptions;
use crate::run::{
    executable_riders, link_executable, load_riders, Backend, BuildError, Unavailable,
};
use crate::value::{Params, Value};
use crate::CompileError;

/// Where a module's `debuglog` output goes: shared, so that an embedder keeps a handle
/// to read what it captured.
pub type Sink = Arc<Mutex<dyn Write + Send>>;

/// An output sink that keeps what is written, for an embedder to read back.
#[derive(Clone, Debug, Default)]
pub struct Capture(Arc<Mutex<Vec<u8>>>);

impl Capture {
    pub fn new() -> Capture {
        Capture::default()
    }

    /// Everything written since the last `take`, removed from the capture.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().expect("unpoisoned"))
    }

    /// Everything written since the last `take`, as text (bytes that are not UTF-8
    /// replaced).
    pub fn take_string(&self) -> String {
        String::from_utf8_lossy(&self.take()).into_owned()
    }
}

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("unpoisoned").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A backend and the settings every module it compiles runs with.
///
/// The settings a module runs with are the engine's when it was compiled.
#[derive(Clone)]
pub struct Engine {
    backend: Backend,
    settings: Settings,
    builds: Arc<AtomicUsize>,
}

/// The run settings a module keeps.
#[derive(Clone)]
struct Settings {
    depth_limit: Option<usize>,
    memory_limit: Option<usize>,
    shadow_stack_size: Option<usize>,
    check_leaks: bool,
    args: Vec<String>,
    module_dirs: Vec<PathBuf>,
    riders: RiderPath,
    /// How many of `riders`' directories the embedder named (they come first).
    rider_dirs_named: usize,
    /// Riders whose natives are the embedder's closures.
    hosts: HostRiders,
    /// Modules given as text, found before those on disk.
    module_texts: Vec<(String, String)>,
    output: Option<Sink>,
    /// Where aot and c executables are kept between loads (none: built each time).
    cache: Option<Cache>,
    /// What aot and c executables are built for and run on (`datalove run --target`;
    /// an engine the embedder makes is always for this machine).
    target: Target,
}

impl Engine {
    /// An engine for `backend` with the default settings: the call-depth limit and
    /// memory limit of the environment (`DATALOVE_DEPTH_LIMIT`, `DATALOVE_MEMORY_LIMIT`)
    /// or the runtime's defaults, leak checking as `DATALOVE_CHECK_LEAKS` says, riders
    /// from `DATALOVE_RIDER_PATH` and beside the executable, output to stdout.
    /// [`Error::Unavailable`] when the backend cannot run here.
    pub fn new(backend: Backend) -> Result<Engine, Error> {
        if let Some(reason) = backend.unavailable_reason() {
            return Err(Error::Unavailable(Unavailable { backend, reason }));
        }
        Ok(Engine::new_unchecked(backend))
    }

    /// An engine for `backend`, whether or not it can run here.
    fn new_unchecked(backend: Backend) -> Engine {
        Engine {
            backend,
            settings: Settings {
                depth_limit: None,
                memory_limit: None,
                shadow_stack_size: None,
                check_leaks: datalove_rt::state::check_leaks_from_env(),
                args: Vec::new(),
                module_dirs: Vec::new(),
                riders: RiderPath::new(&[]),
                rider_dirs_named: 0,
                hosts: HostRiders::default(),
                module_texts: Vec::new(),
                output: None,
                cache: None,
                target: Target::current(),
            },
            builds: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The engine for the backend named `name` (`interp`, `jit`, `aot`, `c`).
    pub fn from_name(name: &str) -> Result<Engine, Error> {
        let backend = Backend::from_name(name).ok_or_else(|| {
            Error::Unsupported(format!(
                "no backend is named `{name}` (interp, jit, aot, c)"
            ))
        })?;
        Engine::new(backend)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// How many program-function calls may be active at once; one more is `stack
    /// overflow: call depth limit of N reached`.
    pub fn depth_limit(mut self, limit: usize) -> Engine {
        self.settings.depth_limit = Some(limit);
        self
    }

    /// The most bytes a program may hold allocated; past it is `out of memory`.
    pub fn memory_limit(mut self, bytes: usize) -> Engine {
        self.settings.memory_limit = Some(bytes);
        self
    }

    /// Bytes of shadow stack (values whose size is known only at run time) for the
    /// in-process backends; executables keep the runtime's default
    /// ([`datalove_rt::DEFAULT_SHADOW_STACK_SIZE`]).
    pub fn shadow_stack_size(mut self, bytes: usize) -> Engine {
        self.settings.shadow_stack_size = Some(bytes);
        self
    }

    /// Whether a run that ends with allocations still live is a runtime error
    /// ([`ErrorKind::Leak`]).
    pub fn check_leaks(mut self, on: bool) -> Engine {
        self.settings.check_leaks = on;
        self
    }

    /// The program's arguments (`env.args()`).
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<String>>) -> Engine {
        self.settings.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// A directory searched for riders, before `DATALOVE_RIDER_PATH` and the
    /// executable's directory.
    pub fn rider_dir(mut self, dir: impl Into<PathBuf>) -> Engine {
        let settings = &mut self.settings;
        settings
            .riders
            .dirs
            .insert(settings.rider_dirs_named, dir.into());
        settings.rider_dirs_named += 1;
        self
    }

    /// A directory searched for `NAME.dfm` modules.
    pub fn module_dir(mut self, dir: impl Into<PathBuf>) -> Engine {
        self.settings.module_dirs.push(dir.into());
        self
    }

    /// A module given as text: `import NAME.f` finds it before any `NAME.dfm` file.
    pub fn module_source(mut self, name: &str, text: &str) -> Engine {
        self.settings
            .module_texts
            .push((name.to_string(), text.to_string()));
        self
    }

    /// A rider whose natives are Rust closures ([`HostRider`]), on every backend (aot
    /// and c load such a program in-process as a shared library). [`Error::Rider`] when
    /// one of its natives has no closure.
    pub fn host_rider(mut self, rider: HostRider) -> Result<Engine, Error> {
        rider.check_complete()?;
        self.settings.hosts.0.retain(|r| r.name() != rider.name());
        // A trampoline finds its closure by type: two riders may not share one.
        let others: Vec<_> = self
            .settings
            .hosts
            .0
            .iter()
            .flat_map(|r| r.closure_types())
            .collect();
        if rider.closure_types().any(|t| others.contains(&t)) {
            return Err(Error::Signature(format!(
                "host rider `{}` registers a closure of a type another host rider registered: \
                 each native needs a closure of its own type",
                rider.name()
            )));
        }
        self.settings.hosts.0.push(rider);
        Ok(self)
    }

    /// Where `debuglog` output goes (the process's stdout unless set). A run's output is
    /// written to the sink when the run ends, before its result is returned.
    pub fn output(mut self, sink: impl Write + Send + 'static) -> Engine {
        self.settings.output = Some(Arc::new(Mutex::new(sink)));
        self
    }

    /// How many executables and shared libraries (aot, c) this engine and its clones
    /// have built: one per module compiled, whatever the number of runs, and one more
    /// for a module whose functions are called (its call program's library), whatever
    /// the number of calls.
    pub fn executables_built(&self) -> usize {
        self.builds.load(Ordering::Relaxed)
    }

    /// Compiles the file `path` (a `.dfs` script) into a module.
    pub fn compile_file(&self, path: impl AsRef<Path>) -> Result<Module, Error> {
        let path = path.as_ref();
        let compiled =
            crate::compile_file_with(path, &self.loader(path)).map_err(Error::Compile)?;
        self.load(compiled)
    }

    /// The front end's loader for the root file `root`.
    fn loader(&self, root: &Path) -> ProgramLoader {
        let settings = &self.settings;
        let mut given = MemoryLoader {
            library: false,
            ..MemoryLoader::new()
        };
        for (name, text) in &settings.module_texts {
            given = given.with_module(name, text);
        }
        for rider in &settings.hosts.0 {
            given = given.with_rider(rider.name(), rider.interface_text());
        }
        ProgramLoader::new(root, settings.module_dirs.clone(), settings.riders.clone())
            .with_given(given)
    }

    /// The engine `datalove::run` runs with: `options`' settings, output captured or not
    /// as they say (the caller takes it from [`Module::execute`]).
    pub(crate) fn for_run(backend: Backend, options: &RunOptions) -> Result<Engine, Error> {
        let target = options.target.clone().unwrap_or_else(Target::current);
        if let Some(reason) = backend.unavailable_reason_for(&target) {
            return Err(Error::Unavailable(Unavailable { backend, reason }));
        }
        let mut engine = Engine::new_unchecked(backend);
        let settings = &mut engine.settings;
        settings.target = target;
        settings.riders = options.riders.clone();
        settings.check_leaks |= options.check_leaks;
        settings.depth_limit = options.depth_limit;
        settings.memory_limit = options.memory_limit;
        settings.args = options.args.clone();
        settings.cache = options.cache.clone();
        Ok(engine)
    }

    /// Keeps the aot and c executables this engine builds in `cache` (or, with `None`,
    /// in a temporary directory each module removes), so that loading an unchanged
    /// program again starts its executable without compiling. Off unless asked for;
    /// `Cache::from_env()` gives the one `datalove run` uses.
    pub fn cache(mut self, cache: Option<Cache>) -> Engine {
        self.settings.cache = cache;
        self
    }

    /// Compiles program text; `name` is the file name diagnostics and locations show
    /// (modules it imports are found in the module directories and the built-in
    /// library).
    pub fn compile_str(&self, name: &str, text: &str) -> Result<Module, Error> {
        let compiled = datalove_front::compile(&self.loader(Path::new(name)), name, text)
            .map_err(|failed| Error::Compile(CompileError::Diagnostics(failed)))?;
        self.load(compiled)
    }

    /// Loads a program built with the IR builder ([`crate::ir::builder`]); its entry is
    /// what [`Module::run`] runs.
    /// Its source files (`ProgramBuilder::add_source`) are what diagnostics show; a
    /// program without any is shown as `<ir>`.
    pub fn compile_program(&self, program: crate::ir::Program) -> Result<Module, Error> {
        let mut sources = crate::ir::Sources::new();
        for file in &program.files {
            sources.add(file.name.clone(), file.text.clone());
        }
        if program.files.is_empty() {
            sources.add("<ir>", "");
        }
        self.load(Compiled {
            program,
            sources,
            riders: Vec::new(),
        })
    }

    /// Loads a program compiled by the front end: admits it, then loads its riders and
    /// compiles it (interp, jit) or builds its executable (aot, c).
    pub fn load(&self, compiled: Compiled) -> Result<Module, Error> {
        let start = Instant::now();
        datalove_front::admit(&compiled).map_err(Error::Refused)?;
        let compiled = Arc::new(compiled);
        let riders = self.settings.riders.clone();
        let hosts = &self.settings.hosts;
        let cache = self.settings.cache.clone();
        let mut load_event = None;
        let loaded = match self.backend {
            Backend::Interp | Backend::Jit => Loaded::InProcess(
                Worker::start(
                    self.backend,
                    compiled.clone(),
                    riders,
                    hosts.clone(),
                    false,
                    None,
                )?
                .0,
            ),
            Backend::Aot | Backend::C => {
                let with_hosts = compiled.program.riders.iter().any(|r| hosts.is_host(r));
                let (loaded, event) = if with_hosts {
                    // Closures of this process: the program is built as a shared
                    // library and run in-process (see `Prepared::Library`).
                    let (worker, event) = Worker::start(
                        self.backend,
                        compiled.clone(),
                        riders,
                        hosts.clone(),
                        false,
                        cache,
                    )?;
                    (Loaded::InProcess(worker), event)
                } else {
                    let artifact = Artifact::build(
                        &compiled,
                        self.backend,
                        &riders,
                        self.settings.cache.as_ref(),
                        &self.settings.target,
                    )?;
                    let event = artifact.cached;
                    (Loaded::Executable(artifact), event)
                };
                load_event = event;
                // What the cache had was not built.
                if event != Some(CacheEvent::Hit) {
                    self.builds.fetch_add(1, Ordering::Relaxed);
                }
                loaded
            }
        };
        Ok(Module {
            backend: self.backend,
            compiled,
            settings: self.settings.clone(),
            loaded,
            load_event,
            calls: OnceLock::new(),
            compile_elapsed: start.elapsed(),
            builds: self.builds.clone(),
        })
    }
}

/// A program compiled by an [`Engine`], ready to run many times.
pub struct Module {
    backend: Backend,
    compiled: Arc<Compiled>,
    settings: Settings,
    loaded: Loaded,
    /// What the compilation cache did for the executable or shared library (aot, c).
    load_event: Option<CacheEvent>,
    /// The call program, made the first time a function is looked up.
    calls: OnceLock<Result<Calls, Error>>,
    compile_elapsed: Duration,
    /// The engine's count of builds (aot, c), which the call program's library adds to.
    builds: Arc<AtomicUsize>,
}

/// A module's call program, compiled.
struct Calls {
    worker: Worker,
    callable: Vec<Callable>,
    refused: Vec<(String, String)>,
}

enum Loaded {
    InProcess(Worker),
    Executable(Artifact),
}

impl Module {
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The compiled program.
    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    /// How long compiling took: lowering (interp), code generation (jit), or building
    /// the executable (aot, c).
    pub fn compile_elapsed(&self) -> Duration {
        self.compile_elapsed
    }

    /// The temporary directory holding an aot or c module's executable (removed when
    /// the module is dropped); `None` for the in-process backends, and for an aot or c
    /// module loaded as a shared library (host riders), whose directory its thread owns.
    pub fn artifact_dir(&self) -> Option<&Path> {
        match &self.loaded {
            Loaded::Executable(artifact) => artifact.exe.parent(),
            Loaded::InProcess(_) => None,
        }
    }

    /// What the compilation cache did for this module's executable, or (aot and c with
    /// host riders) its shared library: `None` when none was asked (interp and jit, or
    /// an engine without a cache). The call program's library is cached too, unreported.
    pub fn cache_event(&self) -> Option<CacheEvent> {
        self.load_event
    }

    /// Runs the program's entry once, with a fresh runtime. Its output goes to the
    /// engine's sink; a runtime error (or a leak, when checked) is [`Error::Runtime`].
    pub fn run(&self) -> Result<(), Error> {
        let capture = self.settings.output.is_some();
        let (stdout, outcome) = self.execute(capture, &self.settings.args);
        self.deliver(&stdout)?;
        outcome_result(outcome)
    }

    /// Runs the entry once: its output (captured, or written to stdout) and outcome.
    pub(crate) fn execute(&self, capture: bool, args: &[String]) -> (Vec<u8>, Outcome) {
        match &self.loaded {
            Loaded::InProcess(worker) => worker.run(self.runtime_options(capture, args)),
            Loaded::Executable(artifact) => {
                artifact.run(self.backend, &self.settings, capture, args)
            }
        }
    }

    /// The options of an in-process run's runtime.
    fn runtime_options(&self, capture: bool, args: &[String]) -> RuntimeOptions {
        let mut options = RuntimeOptions::default();
        let settings = &self.settings;
        options.check_leaks = settings.check_leaks;
        if let Some(limit) = settings.depth_limit {
            options.depth_limit = limit;
        }
        if let Some(limit) = settings.memory_limit {
            options.memory_limit = Some(limit);
        }
        if let Some(bytes) = settings.shadow_stack_size {
            options.shadow_stack_size = bytes;
        }
        if capture {
            options.output = OutputMode::Capture;
        }
        options.args = args.to_vec();
        options
    }

    /// Writes a run's output to the sink, if there is one.
    fn deliver(&self, stdout: &[u8]) -> Result<(), Error> {
        let Some(sink) = &self.settings.output else {
            return Ok(());
        };
        let mut sink = sink.lock().expect("unpoisoned");
        sink.write_all(stdout)
            .and_then(|()| sink.flush())
            .map_err(|e| {
                Error::Runtime(RuntimeError::new(
                    ErrorKind::Output,
                    format!("cannot write to the output sink: {e}"),
                ))
            })
    }

    /// The function `name`, called with arguments `P` (a tuple: `(u64,)`, `(String,
    /// Vec<i32>)`, `()`) and returning `R`. [`Error::Signature`] when there is no such
    /// function, it cannot be called from the host (generic, a `mut` or `out`
    /// parameter, `data`), or its signature is not the one `P` and `R` describe.
    ///
    /// The first lookup compiles the module's call program (see `src/call.rs`); later
    /// ones reuse it. On aot and c that is a shared library built once and loaded into
    /// this process ([`Error::Link`] when the toolchain fails).
    pub fn func<P: Params, R: Value>(&self, name: &str) -> Result<Func<'_, P, R>, Error> {
        let calls = self.calls()?;
        let Some(index) = calls.callable.iter().position(|c| c.name == name) else {
            if let Some((_, why)) = calls.refused.iter().find(|(n, _)| n == name) {
                return Err(Error::Signature(format!(
                    "`{name}` cannot be called from the host: {why}"
                )));
            }
            return Err(Error::Signature(format!(
                "the program has no function `{name}`"
            )));
        };
        let callable = &calls.callable[index];
        let (params, result) = (P::ir_types(), R::ir_type());
        if params != callable.params || result != callable.result {
            return Err(Error::Signature(format!(
                "`{name}` is {}, but the Rust types say {}",
                signature(&callable.params, &callable.result),
                signature(&params, &result)
            )));
        }
        Ok(Func {
            module: self,
            index,
            signature: std::marker::PhantomData,
        })
    }

    fn calls(&self) -> Result<&Calls, Error> {
        let calls = self.calls.get_or_init(|| {
            let CallProgram {
                program,
                callable,
                refused,
            } = call_program(&self.compiled.program);
            let compiled = Compiled {
                program,
                sources: self.compiled.sources.clone(),
                riders: self.compiled.riders.clone(),
            };
            let (worker, event) = Worker::start(
                self.backend,
                Arc::new(compiled),
                self.settings.riders.clone(),
                self.settings.hosts.clone(),
                true,
                self.settings.cache.clone(),
            )?;
            if matches!(self.backend, Backend::Aot | Backend::C) && event != Some(CacheEvent::Hit) {
                // The call program's shared library, built once (unless the cache had it).
                self.builds.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Calls {
                worker,
                callable,
                refused,
            })
        });
        // The failure, again for every lookup: the same kind where it carries only text.
        calls.as_ref().map_err(|e| match e {
            Error::Rider(m) => Error::Rider(m.clone()),
            Error::Link(m) => Error::Link(m.clone()),
            e => Error::Unsupported(e.to_string()),
        })
    }
}

/// `fun(u64, string): [i32]`.
pub(crate) fn signature(params: &[IrType], result: &IrType) -> String {
    let params: Vec<String> = params.iter().map(ToString::to_string).collect();
    format!("fun({}): {result}", params.join(", "))
}

/// A function of a [`Module`], checked to take `P` and return `R`.
pub struct Func<'m, P, R> {
    module: &'m Module,
    index: usize,
    signature: std::marker::PhantomData<fn(P) -> R>,
}

impl<P: Params, R: Value> Func<'_, P, R> {
    /// Calls the function with a fresh runtime: its result, or the runtime error it
    /// raised. What it printed goes to the engine's sink.
    pub fn call(&self, args: P) -> Result<R, Error> {
        let module = self.module;
        let calls = module.calls()?;
        let capture = module.settings.output.is_some();
        let options = module.runtime_options(capture, &module.settings.args);
        let reader: Option<Reader> = (R::ir_type() != IrType::Unit).then(|| {
            Box::new(|td: &TyDesc, at: *const u8| {
                // SAFETY: the dispatcher hands over a value of the function's result
                // type, checked to be `R`'s at lookup, with its descriptor.
                Box::new(unsafe { R::read(td, at) }) as Box<dyn Any + Send>
            }) as Reader
        });
        let state = CallState {
            selected: self.index as u64,
            args: args.into_writers().into_iter().map(Some).collect(),
            reader,
            result: None,
        };
        let (stdout, outcome, result) = calls.worker.call(options, state);
        module.deliver(&stdout)?;
        outcome_result(outcome)?;
        let result = result.unwrap_or_else(|| Box::new(()));
        Ok(*result
            .downcast::<R>()
            .expect("the result is of the type checked at lookup"))
    }
}

/// A run's outcome as a result: `Ok` for exit 0, else the error it reported.
fn outcome_result(outcome: Outcome) -> Result<(), Error> {
    if outcome.exit_code == crate::EXIT_OK {
        return Ok(());
    }
    if let Some(error) = outcome.error {
        return Err(Error::Runtime(error));
    }
    match parse_error_line(&outcome.stderr_lines) {
        Some(Ok(error)) => Err(Error::Runtime(error)),
        Some(Err(rider)) => Err(Error::Rider(rider)),
        None => Err(Error::Runtime(RuntimeError::new(
            ErrorKind::Crash,
            format!(
                "exit code {}: {}",
                outcome.exit_code,
                outcome.stderr_lines.join(" / ")
            ),
        ))),
    }
}

/// What a module's thread is asked to do.
enum Job {
    Run {
        options: RuntimeOptions,
        reply: mpsc::Sender<(Vec<u8>, Outcome)>,
    },
    /// A run of the call program's dispatcher with `state` as the call in progress.
    Call {
        options: RuntimeOptions,
        state: CallState,
        reply: mpsc::Sender<CallAnswer>,
    },
}

/// A call's output, outcome and the result the program handed over.
type CallAnswer = (Vec<u8>, Outcome, Option<Box<dyn Any + Send>>);

/// The thread an in-process module's program lives on.
struct Worker {
    jobs: Option<Mutex<mpsc::Sender<Job>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A compiled program of an in-process backend.
enum Prepared {
    Interp(datalove_interp::Interpreter),
    Jit(Box<datalove_clif_jit::JitProgram>),
    /// An aot or c program built as a shared library and loaded into this process.
    Library(ProgramLibrary),
}

/// An aot or c program built as a shared library (`run::build_library`), loaded, its
/// native slots filled by this process: the host's closures, the call program's `embed`
/// natives, or the riders' symbols, the same addresses interp and jit call. It links no
/// runtime: its code reaches this process's runtime through the table `rt` points at.
struct ProgramLibrary {
    entry: unsafe extern "C" fn(*mut RtHeader),
    /// Dropped before the directory that holds its file.
    _library: datalove_rt::RiderLibrary,
    _dir: BuildDir,
    /// What the compilation cache did, when there is one.
    cached: Option<CacheEvent>,
}

impl ProgramLibrary {
    fn build(
        backend: Backend,
        compiled: &Compiled,
        resolve: &mut datalove_ir::native::NativeResolver<'_>,
        cache: Option<&Cache>,
    ) -> Result<ProgramLibrary, Error> {
        use datalove_toolchain::{
            LIBRARY_ENTRY_SYMBOL, LIBRARY_MANIFEST_SYMBOL, LIBRARY_SLOTS_SYMBOL,
        };
        let dir = BuildDir::new(backend)?;
        let path = dir.0.join("libprogram.so");
        let target = Target::current();
        let build = |out: &Path| {
            crate::run::build_library(compiled, backend, out, &target).map_err(build_error)
        };
        let cached = match cache {
            Some(cache) => {
                let key = crate::run::library_cache_key(compiled, backend, &target);
                let (stored, event) = cache.fetch_or_build(&key, build, Error::Link)?;
                // A copy of its own: the dynamic loader shares one loaded library among
                // all loads of one file, and each module fills its own native slots.
                std::fs::copy(&stored, &path)
                    .map_err(|e| Error::Link(format!("cannot copy {}: {e}", stored.display())))?;
                Some(event)
            }
            None => {
                build(&path)?;
                None
            }
        };
        let library = datalove_rt::RiderLibrary::load_program("the program", &path)
            .map_err(|e| Error::Link(e.to_string()))?;
        let symbol = |name: &str| library.symbol(name).map_err(|e| Error::Link(e.to_string()));
        let (entry, manifest, slots) = (
            symbol(LIBRARY_ENTRY_SYMBOL)?,
            symbol(LIBRARY_MANIFEST_SYMBOL)?,
            symbol(LIBRARY_SLOTS_SYMBOL)?,
        );
        // SAFETY: the library's exports have these C signatures (`datalove_toolchain::
        // LIBRARY_*_SYMBOL`); the manifest is complete and the slots have room for one
        // address per native symbol it names.
        unsafe {
            let entry =
                std::mem::transmute::<*const c_void, unsafe extern "C" fn(*mut RtHeader)>(entry);
            let manifest =
                std::mem::transmute::<*const c_void, extern "C" fn() -> *const u8>(manifest)();
            let slots = std::mem::transmute::<*const c_void, extern "C" fn() -> *mut *const c_void>(
                slots,
            )();
            // The slots are numbered as the lowering numbered them: from the reachable
            // program, checked against the manifest the library carries.
            let reached = datalove_ir::lowering::reachable_program(&compiled.program);
            let links = datalove_ir::lowering::NativeLinks::of(&reached);
            let carried = datalove_rti::RiderManifest::read(manifest).map_err(Error::Link)?;
            if &carried != links.manifest() {
                return Err(Error::Link(
                    "the library's rider manifest is not the program's".into(),
                ));
            }
            for native in reached.native_calls() {
                let address = resolve(native).map_err(Error::Rider)?;
                *slots.add(links.slot(native.symbol())) = address;
            }
            Ok(ProgramLibrary {
                entry,
                _library: library,
                _dir: dir,
                cached,
            })
        }
    }
}

impl Prepared {
    fn compile(
        backend: Backend,
        compiled: &Compiled,
        resolve: &mut datalove_ir::native::NativeResolver<'_>,
        cache: Option<&Cache>,
    ) -> Result<Prepared, Error> {
        let refused = |e: &dyn std::fmt::Display| {
            Error::Refused(crate::run::backend_refused(compiled, backend, e))
        };
        match backend {
            Backend::Interp => datalove_interp::compile(&compiled.program, resolve)
                .map(Prepared::Interp)
                .map_err(|e| match e {
                    datalove_interp::InterpError::Native(m) => Error::Rider(m),
                    e => refused(&e),
                }),
            Backend::Jit => datalove_clif_jit::compile(&compiled.program, resolve)
                .map(|program| Prepared::Jit(Box::new(program)))
                .map_err(|e| match e {
                    datalove_clif_jit::JitError::Native(m) => Error::Rider(m),
                    e => refused(&e),
                }),
            Backend::Aot | Backend::C => {
                ProgramLibrary::build(backend, compiled, resolve, cache).map(Prepared::Library)
            }
        }
    }

    fn run_entry(&self, rt: *mut RtHeader) {
        // SAFETY: `rt` is a live runtime made on this thread (so its stack limit is this
        // thread's), and the riders the natives were resolved from stay loaded until the
        // program is dropped (`Worker::start`).
        unsafe {
            match self {
                Prepared::Interp(interpreter) => {
                    interpreter.run(rt, datalove_interp::DEFAULT_ARENA_BYTES)
                }
                Prepared::Jit(program) => program.run(rt),
                Prepared::Library(library) => (library.entry)(rt),
            }
        }
    }
}

impl Worker {
    /// Starts the module's thread: it loads the riders and compiles the program, then
    /// runs it whenever asked, until the module is dropped.
    /// With `host_embed`, the natives of the `embed` rider are the host's
    /// (`src/call.rs`).
    fn start(
        backend: Backend,
        compiled: Arc<Compiled>,
        riders: RiderPath,
        hosts: HostRiders,
        host_embed: bool,
        cache: Option<Cache>,
    ) -> Result<(Worker, Option<CacheEvent>), Error> {
        let (jobs, receive_jobs) = mpsc::channel::<Job>();
        // What the compilation cache did for an aot or c shared library, once compiled.
        let (ready, is_ready) = mpsc::channel::<Result<Option<CacheEvent>, Error>>();
        // Shared, so that a spawn that fails leaves it for the next try.
        let body = Arc::new(Mutex::new(Some(move || {
            hosts.install_on_this_thread();
            let loaded = compiled.program.riders.iter().filter(|r| !hosts.is_host(r));
            let libraries = match load_riders(loaded, &riders) {
                Ok(l) => l,
                Err(message) => {
                    let _ = ready.send(Err(Error::Rider(message)));
                    return;
                }
            };
            let mut resolve = |ctx: &datalove_ir::NativeContext| -> Result<*const c_void, String> {
                if host_embed && ctx.rider() == EMBED_RIDER {
                    return embed_native(ctx);
                }
                if let Some(found) = hosts.resolve(ctx) {
                    return found;
                }
                let library = libraries
                    .get(ctx.rider())
                    .ok_or_else(|| format!("rider `{}` is not loaded", ctx.rider()))?;
                library.native(ctx.symbol()).map_err(|e| e.to_string())
            };
            let program = match Prepared::compile(backend, &compiled, &mut resolve, cache.as_ref())
            {
                Ok(p) => p,
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            };
            let event = match &program {
                Prepared::Library(library) => library.cached,
                _ => None,
            };
            let _ = ready.send(Ok(event));
            for job in receive_jobs {
                match job {
                    Job::Run { options, reply } => {
                        let check_leaks = options.check_leaks;
                        // Made on this thread, so its stack limit is this thread's.
                        let runtime = Runtime::new(options);
                        program.run_entry(runtime.handle());
                        let outcome = runtime.finish_report(check_leaks);
                        let stdout = runtime.take_output();
                        drop(runtime);
                        let _ = reply.send((stdout, outcome));
                    }
                    Job::Call {
                        options,
                        state,
                        reply,
                    } => {
                        let check_leaks = options.check_leaks;
                        let runtime = Runtime::new(options);
                        let result = with_call(state, || program.run_entry(runtime.handle()));
                        let outcome = runtime.finish_report(check_leaks);
                        let stdout = runtime.take_output();
                        drop(runtime);
                        let _ = reply.send((stdout, outcome, result));
                    }
                }
            }
            // The compiled program goes before the libraries its natives are in.
            drop(program);
            drop(libraries);
        })));
        let mut size = datalove_rt::PROGRAM_STACK_SIZE;
        let thread = loop {
            let spawned = std::thread::Builder::new()
                .name(format!("datalove-{}", backend.name()))
                .stack_size(size)
                .spawn({
                    let body = body.clone();
                    move || {
                        let body = body.lock().expect("unpoisoned").take();
                        body.expect("started once")()
                    }
                });
            match spawned {
                Ok(handle) => break handle,
                Err(e) if size / 2 < datalove_rt::stack::MIN_PROGRAM_STACK_SIZE => {
                    return Err(Error::Unsupported(format!(
                        "cannot start the program thread with a {size}-byte stack: {e}"
                    )))
                }
                Err(_) => size /= 2,
            }
        };
        let worker = Worker {
            jobs: Some(Mutex::new(jobs)),
            thread: Some(thread),
        };
        match is_ready.recv() {
            Ok(Ok(event)) => Ok((worker, event)),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(Error::Unsupported(
                "the program thread ended while compiling".into(),
            )),
        }
    }

    fn run(&self, options: RuntimeOptions) -> (Vec<u8>, Outcome) {
        let (reply, answer) = mpsc::channel();
        self.send(Job::Run { options, reply }, answer)
            .unwrap_or_else(|outcome| (Vec::new(), outcome))
    }

    fn call(&self, options: RuntimeOptions, state: CallState) -> CallAnswer {
        let (reply, answer) = mpsc::channel();
        self.send(
            Job::Call {
                options,
                state,
                reply,
            },
            answer,
        )
        .unwrap_or_else(|outcome| (Vec::new(), outcome, None))
    }

    /// Hands `job` to the thread and waits for its answer; the outcome of a thread that
    /// ended (a bug of ours) when there is none.
    fn send<T>(&self, job: Job, answer: mpsc::Receiver<T>) -> Result<T, Outcome> {
        let jobs = self.jobs.as_ref().expect("live until dropped");
        let sent = jobs.lock().expect("unpoisoned").send(job);
        sent.ok().and_then(|()| answer.recv().ok()).ok_or_else(|| {
            let detail = "the program thread ended";
            Outcome {
                exit_code: EXIT_RUNTIME_ERROR,
                stderr_lines: vec![format!("error: crashed: {detail}")],
                error: Some(RuntimeError::new(ErrorKind::Crash, detail)),
            }
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the queue ends the thread's loop.
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A temporary directory a module's build goes to, removed with it: `BACKEND-N` in this
/// process's build folder ([`build_root`]).
struct BuildDir(PathBuf);

impl BuildDir {
    fn new(backend: Backend) -> Result<BuildDir, Error> {
        static BUILDS: AtomicUsize = AtomicUsize::new(0);
        let root = build_root()
            .map_err(|e| Error::Link(format!("cannot create the build folder: {e}")))?;
        let dir = root.join(format!(
            "{}-{}",
            backend.name(),
            BUILDS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::Link(format!("cannot create {}: {e}", dir.display())))?;
        Ok(BuildDir(dir))
    }
}

/// What this process's build folder is called in the temporary directory, before its
/// pid.
pub const BUILD_ROOT_PREFIX: &str = "datalove-builds-";

static BUILD_ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// This process's build folder, `$TMPDIR/datalove-builds-PID`, made on first use (the
/// folders of processes that no longer run removed first: a killed `datalove run`
/// leaves its own behind) and removed when the process exits.
fn build_root() -> std::io::Result<&'static Path> {
    if let Some(root) = BUILD_ROOT.get() {
        return Ok(root);
    }
    let root = datalove_toolchain::process_dir(&std::env::temp_dir(), BUILD_ROOT_PREFIX)?;
    if BUILD_ROOT.set(root).is_ok() {
        // SAFETY: `remove_build_root_at_exit` is an `extern "C" fn()` that reads a set
        // `OnceLock` and removes files; it may run at any exit.
        unsafe { libc::atexit(remove_build_root_at_exit) };
    }
    Ok(BUILD_ROOT.get().expect("set above"))
}

extern "C" fn remove_build_root_at_exit() {
    remove_build_root();
}

/// Removes this process's build folder and every build in it, if it made one: what the
/// CLI does when it is interrupted (`SIGINT`, `SIGTERM`, `SIGHUP`) before it dies of the
/// signal, as exiting does.
pub fn remove_build_root() {
    if let Some(root) = BUILD_ROOT.get() {
        let _ = std::fs::remove_dir_all(root);
    }
}

impl Drop for BuildDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A build's failure as the embedder's error.
fn build_error(e: BuildError) -> Error {
    match e {
        BuildError::Refused(failed) => Error::Refused(failed),
        BuildError::Rider(m) => Error::Rider(m),
        e @ (BuildError::Failed(_)
        | BuildError::WouldOverwrite { .. }
        | BuildError::OutputIsRiderCopy { .. }) => Error::Link(e.to_string()),
    }
}

/// An executable built once for a module: in a directory removed with it, or in the
/// compilation cache, which keeps it.
struct Artifact {
    /// The temporary directory of an executable not kept in the cache.
    _dir: Option<BuildDir>,
    exe: PathBuf,
    /// What the cache did, when there is one.
    cached: Option<CacheEvent>,
}

impl Artifact {
    fn build(
        compiled: &Compiled,
        backend: Backend,
        riders: &RiderPath,
        cache: Option<&Cache>,
        target: &Target,
    ) -> Result<Artifact, Error> {
        let target = target.clone();
        let found = executable_riders(compiled, riders, &target).map_err(Error::Rider)?;
        // A temporary executable: its riders are links to where they were found.
        let link = |exe: &Path| {
            link_executable(
                compiled,
                backend,
                found.clone(),
                exe,
                &target,
                RiderPlacement::Symlink,
            )
            .map_err(build_error)
        };
        if let Some(cache) = cache {
            let key = crate::run::cache_key(compiled, backend, &found, &target);
            let (exe, event) = cache.fetch_or_build(&key, link, Error::Link)?;
            return Ok(Artifact {
                _dir: None,
                exe,
                cached: Some(event),
            });
        }
        // Made now, so that the directory goes whatever happens next.
        let dir = BuildDir::new(backend)?;
        let exe = dir.0.join("program");
        link(&exe)?;
        Ok(Artifact {
            _dir: Some(dir),
            exe,
            cached: None,
        })
    }

    /// Starts the executable once, through the target's runner, with the settings in its
    /// environment.
    fn run(
        &self,
        backend: Backend,
        settings: &Settings,
        capture: bool,
        args: &[String],
    ) -> (Vec<u8>, Outcome) {
        use std::process::Stdio;
        let exe = &self.exe;
        let failed = |why: String| {
            (
                Vec::new(),
                Outcome {
                    exit_code: EXIT_RUNTIME_ERROR,
                    stderr_lines: vec![format!("error: {}: {why}", backend.name())],
                    error: None,
                },
            )
        };
        // Through the target's runner, if it has one (under qemu-user, a program cannot
        // start another of its own architecture directly).
        let mut command = match settings.target.command(exe) {
            Ok(c) => c,
            Err(e) => return failed(format!("cannot run {}: {e}", exe.display())),
        };
        command.args(args);
        // The executable's runtime reads its settings from the environment.
        command.env(
            datalove_rt::CHECK_LEAKS_ENV,
            if settings.check_leaks { "1" } else { "0" },
        );
        if let Some(limit) = settings.depth_limit {
            command.env(datalove_rt::DEPTH_LIMIT_ENV, limit.to_string());
        }
        if let Some(limit) = settings.memory_limit {
            command.env(datalove_rt::MEMORY_LIMIT_ENV, limit.to_string());
        }
        // The program reads the host's stdin as the in-process backends do (`io`); a
        // capturing host gives it none.
        command
            .stdin(if capture {
                Stdio::null()
            } else {
                Stdio::inherit()
            })
            .stdout(if capture {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .stderr(Stdio::piped());
        ends_with_this_process(&mut command);
        let output = match command.output() {
            Ok(o) => o,
            Err(e) => return failed(format!("cannot run {}: {e}", exe.display())),
        };
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
                    "error: {}: the executable was killed by signal {signal}",
                    backend.name()
                ));
                EXIT_RUNTIME_ERROR
            }
        };
        (
            output.stdout,
            Outcome {
                exit_code,
                stderr_lines,
                error: None,
            },
        )
    }
}

/// Has the process `command` starts killed when this one ends, however it ends: a
/// harness that kills `datalove run` on a timeout must not leave the executable it
/// started running (still holding the output pipes the harness waits on).
fn ends_with_this_process(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `getpid` before the fork; between fork and exec only `prctl`,
        // `getppid` and `_exit`, which are async-signal-safe.
        unsafe {
            let parent = libc::getpid();
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // This process may have ended before the request took effect.
                if libc::getppid() != parent {
                    libc::_exit(137);
                }
                Ok(())
            });
        }
    }
}
