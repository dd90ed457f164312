//! The text front end: datalove source to IR.
//!
//! ```text
//! text ─ lexer ─ parser ─▶ AST ─ resolve ─▶ files, riders, signatures
//!      ─ typeck ─▶ typed tree ─ ownership ─▶ checked tree ─ lower ─▶ Program
//! ```
//!
//! Each pass reports what it finds and the next runs only when nothing is wrong, so one
//! run reports the mistakes of a pass without noise from the passes after it. The
//! grammar, the rules and every diagnostic code are in `docs/language.md`.
//!
//! ```
//! use datalove_front::{compile, MemoryLoader};
//!
//! let loader = MemoryLoader::new()
//!     .with_rider("num", "native fun twice(x: u32): u32\n")
//!     .with_module("num", "require rider num\nimport num.twice as t\nfun twice(x: u32): u32\n  ret t(x)\nend fun\n");
//! let compiled = compile(&loader, "main.dfs", "import num.twice\ndebuglog twice(21)\n").unwrap();
//! datalove_ir::verify::verify_program(&compiled.program).unwrap();
//! assert!(datalove_ir::print::print_program(&compiled.program).contains("call_native"));
//!
//! let failed = compile(&loader, "bad.dfs", "debuglog nope\n").unwrap_err();
//! assert!(failed.render().contains("error[N001]"));
//! ```

pub mod admit;
pub mod ast;
pub mod explain;
pub mod format;
pub mod hir;
pub mod lexer;
pub mod loader;
pub mod lower;
pub mod ownership;
pub mod parser;
pub mod resolve;
pub mod suggest;
pub mod typeck;

pub use admit::{admit, backend_refusal};
pub use loader::{
    library_module, read_file, FsLoader, Loaded, Loader, MemoryLoader, LIBRARY, STD_RIDER_DLI,
};

use datalove_ir::diag::{Diagnostic, Sources};
use datalove_ir::native::RiderInterface;
use datalove_ir::program::Program;

/// `help:` lines: a note that says what to write.
pub(crate) trait Help {
    fn with_help(self, help: impl Into<String>) -> Self;
}

impl Help for Diagnostic {
    fn with_help(self, help: impl Into<String>) -> Diagnostic {
        self.with_note(format!("help: {}", help.into()))
    }
}

/// A compiled program, with the sources and rider interfaces it was compiled from.
#[derive(Debug)]
pub struct Compiled {
    pub program: Program,
    pub sources: Sources,
    pub riders: Vec<RiderInterface>,
}

/// A compilation that failed: its diagnostics, and the sources to render them against.
#[derive(Debug)]
pub struct Failed {
    pub sources: Sources,
    pub diagnostics: Vec<Diagnostic>,
}

impl Failed {
    /// The diagnostics as `datalove check` prints them.
    pub fn render(&self) -> String {
        self.sources.render(&self.diagnostics)
    }

    /// As [`Failed::render`]; with `color`, styled with ANSI escapes for a terminal.
    pub fn render_styled(&self, color: bool) -> String {
        self.sources.render_styled(&self.diagnostics, color)
    }
}

/// Compiles the file `root_path` whose contents are `root_bytes`, as [`compile`] does; a
/// file that is not UTF-8 is `S012` at its first bad byte.
pub fn compile_bytes(
    loader: &dyn Loader,
    root_path: &str,
    root_bytes: Vec<u8>,
) -> Result<Compiled, Failed> {
    let mut sources = Sources::new();
    let mut diagnostics = Vec::new();
    match resolve::decode(&mut sources, root_path, root_bytes, &mut diagnostics) {
        Ok(text) => compile(loader, root_path, &text),
        Err(_) => Err(Failed {
            sources,
            diagnostics,
        }),
    }
}

/// The stack the front end runs on. Its recursion is bounded by the nesting limit
/// (`parser::MAX_DEPTH`), but how many bytes a level takes depends on the target and the
/// build (an unoptimized aarch64 build needs about 3 MiB at the limit): so the passes run
/// on a thread of their own with this much stack reserved (pages are committed only as
/// they are touched), whatever thread the embedder calls from.
pub const FRONT_STACK_BYTES: usize = 64 << 20;

/// Compiles the file `root_path` (a `.dfs` script or a `.dfm` module) whose text is
/// `root_text`, finding what it imports through `loader`.
///
/// The passes run on a thread with [`FRONT_STACK_BYTES`] of stack, so a program at the
/// nesting limit compiles from any thread; where no thread can be started (a tight
/// address-space limit), they run on the caller's.
pub fn compile(loader: &dyn Loader, root_path: &str, root_text: &str) -> Result<Compiled, Failed> {
    compile_with(loader, root_path, root_text, IrPasses::All)
}

/// Which IR passes [`compile_with`] runs on the lowered program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrPasses {
    /// All of them (`datalove_ir::passes::optimize`), as [`compile`] does.
    All,
    /// None: the IR as lowered from the source, for testing the passes against it (every
    /// outcome must be the same) and for reading what lowering alone produces.
    None,
}

/// [`compile`], running the IR passes `passes` names.
pub fn compile_with(
    loader: &dyn Loader,
    root_path: &str,
    root_text: &str,
    passes: IrPasses,
) -> Result<Compiled, Failed> {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("datalove-front".into())
            .stack_size(FRONT_STACK_BYTES)
            .spawn_scoped(scope, || compile_here(loader, root_path, root_text, passes));
        match spawned {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => compile_here(loader, root_path, root_text, passes),
        }
    })
}

/// [`compile`] on the calling thread.
fn compile_here(
    loader: &dyn Loader,
    root_path: &str,
    root_text: &str,
    passes: IrPasses,
) -> Result<Compiled, Failed> {
    let mut sources = Sources::new();
    let mut diagnostics = Vec::new();
    let fail = |sources, diagnostics| {
        Err(Failed {
            sources,
            diagnostics,
        })
    };

    let resolved = resolve::resolve(loader, &mut sources, root_path, root_text, &mut diagnostics);
    if !diagnostics.is_empty() {
        return fail(sources, diagnostics);
    }
    let mut checked = typeck::check(&resolved, &mut diagnostics);
    if !diagnostics.is_empty() {
        typeck::note_declarations(&sources, &mut diagnostics);
        return fail(sources, diagnostics);
    }
    ownership::check(&mut checked, &mut diagnostics);
    if !diagnostics.is_empty() {
        return fail(sources, diagnostics);
    }
    let mut program = lower::lower(&checked, &resolved.riders, &sources);
    if passes == IrPasses::All {
        datalove_ir::passes::optimize(&mut program);
    }
    Ok(Compiled {
        program,
        sources,
        riders: resolved.riders,
    })
}
