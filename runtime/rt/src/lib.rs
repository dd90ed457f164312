//! The datalove runtime: the implementation behind every [`datalove_rti::RtiTable`]
//! entry, built as an rlib (for in-process hosts: the interpreter and the JIT) and as a
//! staticlib (linked into every executable the AOT and C backends produce).
//!
//! # For hosts (Rust)
//!
//! ```no_run
//! use datalove_rt::{run_on_thread, Runtime, RuntimeOptions, PROGRAM_STACK_SIZE};
//! # fn run_program(_rt: *mut datalove_rti::RtHeader) {}
//! let code = run_on_thread(PROGRAM_STACK_SIZE, || {
//!     let rt = Runtime::new(RuntimeOptions::default()); // reads DATALOVE_CHECK_LEAKS
//!     // `Runtime::new` sets `stack_limit` for the thread it runs on.
//!     run_program(rt.handle());
//!     rt.finish().exit_code // flushes stdout, prints `error: ...` to stderr
//! });
//! std::process::exit(code);
//! ```
//!
//! [`Runtime::finish_report`] gives the same [`Outcome`] without printing, and
//! [`decide_outcome`] is the one function that maps an error and the allocation counts
//! to the stderr lines and exit code, for hosts and executables alike.
//!
//! # For executables (C ABI)
//!
//! `dtlv_rt_create`, `dtlv_rt_finish`, `dtlv_rt_destroy`, `dtlv_rt_run_main` and
//! `dtlv_rt_run_linked` (see [`capi`]). Riders are loaded with [`RiderLibrary`] by hosts,
//! and by executables at start from their own directory
//! ([`loader::link_beside_executable`]).

pub mod alloc;
pub mod args;
pub mod artifact;
pub mod bigints;
pub mod capi;
pub mod crash;
pub mod data;
pub mod errors;
pub mod exit;
pub mod lists;
pub mod loader;
pub mod maps;
pub mod natives;
pub mod output;
pub mod shadow;
pub mod stack;
pub mod state;
pub mod strings;
pub mod table;
pub mod tydescs;
pub mod values;

pub use errors::{RuntimeError, SourceLoc};
pub use exit::{decide_outcome, rider_problem, Outcome, EXIT_OK, EXIT_RUNTIME_ERROR};
pub use loader::{LoadError, RiderLibrary};
pub use output::OutputMode;
pub use stack::{run_on_thread, PROGRAM_STACK_SIZE, STACK_SAFETY_MARGIN};
pub use state::{
    Runtime, RuntimeOptions, CHECK_LEAKS_ENV, DEFAULT_DEPTH_LIMIT, DEFAULT_SHADOW_STACK_SIZE,
    DEPTH_LIMIT_ENV, MEMORY_LIMIT_ENV,
};
pub use table::TABLE;

pub use datalove_rti::{AllocStats, ErrorKind};
