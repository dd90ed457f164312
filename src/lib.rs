//! datalove: one typed program representation, four interchangeable backends, one
//! native-call ABI.
//!
//! # Embedding
//!
//! An [`Engine`] is a backend and the settings programs run with; it compiles a program
//! (a file, a string, or IR built with [`ir::builder`]) once into a [`Module`], which
//! runs its `main` and calls its functions as many times as asked. Every failure is an
//! [`Error`] value: compile, refusal, rider, link, runtime (kind and detail), signature.
//! `docs/embedding.md` puts this side by side with Wasmtime and cranelift-jit.
//!
//! Compile a string and call `fib(20)` on a backend chosen at run time:
//!
//! ```
//! use datalove::{Backend, Capture, Engine, Error};
//!
//! let source = "fun fib(n: u64): u64\n  if n < 2\n    ret n\n  end if\n  ret fib(n - 1) + fib(n - 2)\nend fun\ndebuglog fib(20)\n";
//! let name = std::env::var("BACKEND").unwrap_or_else(|_| "jit".into());
//! let backend = Backend::from_name(&name).expect("interp, jit, aot or c");
//! let output = Capture::new();
//! let engine = match Engine::new(backend) {
//!     Ok(engine) => engine.output(output.clone()),
//!     // aot and c need a C compiler.
//!     Err(Error::Unavailable(why)) => return eprintln!("{}", why.reason),
//!     Err(e) => panic!("{e}"),
//! };
//! let module = engine.compile_str("fib.dfs", source).unwrap();
//! module.run().unwrap(); // main, as often as wanted
//! assert_eq!(output.take_string(), "6765\n");
//! // Functions are called on every backend (aot and c: through the program built once
//! // as a shared library, loaded in-process); the signature is checked first.
//! let fib = module.func::<(u64,), u64>("fib").unwrap();
//! assert_eq!(fib.call((20,)).unwrap(), 6765);
//! assert!(matches!(module.func::<(i64,), i64>("fib"), Err(Error::Signature(_))));
//! ```
//!
//! A Rust closure as a native, and an overflow caught as a value:
//!
//! ```
//! use datalove::{Backend, Engine, Error, ErrorKind, HostRider, SourceLoc};
//!
//! let rider = HostRider::new("host", "native fun scale(x: u8): u8\n")
//!     .unwrap()
//!     .func("scale", |x: u8| x.checked_mul(3).ok_or_else(|| "too big".to_string()))
//!     .unwrap();
//! let engine = Engine::new(Backend::Interp)
//!     .unwrap()
//!     .module_source("hostmod", "require rider host\nimport host.scale as s\nfun scale(x: u8): u8\n  ret s(x)\nend fun\n")
//!     .host_rider(rider)
//!     .unwrap();
//! let module = engine
//!     .compile_str("prog.dfs", "import hostmod.scale\nfun bump(x: u8): u8\n  ret scale(x) + 200\nend fun\n")
//!     .unwrap();
//! let bump = module.func::<(u8,), u8>("bump").unwrap();
//! assert_eq!(bump.call((10,)).unwrap(), 230);
//! match bump.call((20,)) {
//!     Err(Error::Runtime(e)) => {
//!         assert_eq!(e.kind, ErrorKind::Overflow);
//!         // Where: the addition in `bump`, line 3, column 7 of `prog.dfs`.
//!         assert_eq!(e.location, Some(SourceLoc::new("prog.dfs", 3, 7)));
//!         assert_eq!(e.to_string(), "overflow: u8 addition at prog.dfs:3:7");
//!     }
//!     other => panic!("{other:?}"),
//! }
//! match bump.call((100,)) {
//!     Err(Error::Runtime(e)) => {
//!         assert!(e.to_string().starts_with("native failure: host.scale: too big at "));
//!         // The native call is in the module; the chain names the call in `bump`.
//!         assert_eq!(e.calls.first(), Some(&SourceLoc::new("prog.dfs", 3, 7)));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! # Running a compiled program once
//!
//! [`compile_file`] and [`run`] are what the CLI uses: a source file (with the built-in
//! standard modules, the `std` rider's interface and any module and rider directories
//! the caller names) compiled, then run on a backend (an engine and a module made for
//! the one run), or on all of them side by side:
//!
//! ```
//! use datalove::{Backend, Options, RunOptions};
//!
//! let dir = std::env::temp_dir().join(format!("datalove-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("square.dfs");
//! std::fs::write(&path, "fun square(x: i64): i64\n  ret x * x\nend fun\ndebuglog square(12)\n").unwrap();
//!
//! let options = Options::from_env();
//! let compiled = datalove::compile_file(&path, &options).unwrap();
//! let run = RunOptions {
//!     riders: options.rider_path(),
//!     check_leaks: true,
//!     capture: true,
//!     ..RunOptions::default()
//! };
//! // The in-process backends; `Backend::Aot` and `Backend::C` link an executable with
//! // the runtime staticlib found beside the `datalove` binary, and run it.
//! for backend in [Backend::Interp, Backend::Jit] {
//!     let result = datalove::run(&compiled, backend, &run).unwrap();
//!     assert_eq!(result.stdout, b"144\n");
//!     assert_eq!(result.outcome.exit_code, 0);
//! }
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

pub mod cache;
mod call;
pub mod engine;
pub mod error;
pub mod host;
pub mod riders;
pub mod run;
#[doc(hidden)]
pub mod trials;
pub mod value;

use std::fmt;
use std::path::{Path, PathBuf};

pub use datalove_front as front;
use datalove_front::{Compiled, Failed};
pub use datalove_ir as ir;

pub use cache::{Cache, CacheEvent, CacheKey};
pub use datalove_rti::ErrorKind;
pub use datalove_toolchain::Target;
pub use engine::{Capture, Engine, Func, Module, Sink};
pub use error::{Error, RuntimeError, SourceLoc};
pub use host::{HostFn, HostRider};
pub use riders::{ProgramLoader, RiderPath, RiderPlace, STD_DLI as STD_RIDER_DLI};
pub use run::{run, run_all, Backend, BuildError, Comparison, RunOptions, RunResult, Unavailable};
pub use value::{Params, Value};

/// The exit code of a program that ran to its end.
pub const EXIT_OK: i32 = 0;
/// The exit code of a refusal before anything ran: a usage error (an unknown option or
/// backend name), a compile error, a program no backend may run (`F008` a module, `V001`
/// IR the verifier refuses, `B001` a backend that cannot take it), or a build whose
/// output would overwrite one of its inputs. Diagnostics say which, on stderr.
pub const EXIT_REFUSED: i32 = 2;
/// The exit code when the backend asked for cannot run here (`error: backend ... is
/// unavailable: ...`).
pub const EXIT_UNAVAILABLE: i32 = 3;
/// The exit code of a runtime error, and of a rider that cannot be loaded before the
/// program starts (one `error: <kind>: ...` line).
pub const EXIT_RUNTIME_ERROR: i32 = datalove_rt::EXIT_RUNTIME_ERROR;

/// Where to look for what a program names, beyond the root file's directory and the
/// built-in library.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Directories searched for `NAME.dfm` after the root file's own.
    pub module_dirs: Vec<PathBuf>,
    /// Directories searched for riders (`<rider>.dli` or `<rider>/rider.dli`, and
    /// `libdlr_<rider>.so`) before `DATALOVE_RIDER_PATH` and the executable's directory.
    pub rider_dirs: Vec<PathBuf>,
}

impl Options {
    /// The defaults: `DATALOVE_RIDER_PATH` and the executable's directory are searched
    /// for riders whatever `rider_dirs` holds.
    pub fn from_env() -> Options {
        Options::default()
    }

    /// The rider search path these options give.
    pub fn rider_path(&self) -> RiderPath {
        RiderPath::new(&self.rider_dirs)
    }

    /// The rider search path for building executables for `target`
    /// ([`RiderPath::for_target`]).
    pub fn rider_path_for(&self, target: &datalove_toolchain::Target) -> RiderPath {
        let other = (!target.is_current()).then(|| target.triple());
        RiderPath::for_target(&self.rider_dirs, other)
    }
}

/// The loader `compile_file` uses: the root's directory, `options`' directories, the
/// built-in library, the built-in `std` rider and the rider path.
pub fn loader(root: &Path, options: &Options) -> ProgramLoader {
    ProgramLoader::new(root, options.module_dirs.clone(), options.rider_path())
}

/// Why a file did not compile.
#[derive(Debug)]
pub enum CompileError {
    /// The file could not be read.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The program is wrong: diagnostics to show.
    Diagnostics(Failed),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Io { path, error } => {
                write!(f, "error: cannot read {}: {error}", path.display())
            }
            CompileError::Diagnostics(failed) => f.write_str(&failed.render()),
        }
    }
}

impl std::error::Error for CompileError {}

/// Reads and compiles `path` (a script or a module). What may run is decided after, by
/// [`admit`] (which [`run`] and [`run::build_executable`] call first).
pub fn compile_file(path: &Path, options: &Options) -> Result<Compiled, CompileError> {
    compile_file_with(path, &loader(path, options))
}

/// Reads and compiles `path`, finding what it imports through `loader`.
pub(crate) fn compile_file_with(
    path: &Path,
    loader: &ProgramLoader,
) -> Result<Compiled, CompileError> {
    let bytes = std::fs::read(path).map_err(|error| CompileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let name = path.display().to_string();
    datalove_front::compile_bytes(loader, &name, bytes).map_err(CompileError::Diagnostics)
}

/// Whether `compiled` may run on any backend: it has an entry (it is a script, not a
/// module: `F008`) and the verifier admits its IR (`V001`). The refusal is diagnostics
/// like a compile error's, the same whichever backend would have run it.
pub fn admit(compiled: &Compiled) -> Result<(), CompileError> {
    datalove_front::admit(compiled).map_err(CompileError::Diagnostics)
}
