//! The runtime state `rt` points at: an [`RtHeader`] first, then what only the runtime
//! reads.

use std::cell::UnsafeCell;

use datalove_rti::rtdt::RtHandle;
use datalove_rti::{AllocStats, RtHeader};

use crate::alloc::Counts;
use crate::errors::{ErrorState, RuntimeError};
use crate::exit::{decide_outcome, Outcome};
use crate::output::{Output, OutputMode};
use crate::shadow::ShadowRegion;
use crate::tydescs::Interner;

/// The environment variable that turns leak checking on when set to `1`.
pub const CHECK_LEAKS_ENV: &str = "DATALOVE_CHECK_LEAKS";

/// The default size of the shadow stack: 8 MiB.
pub const DEFAULT_SHADOW_STACK_SIZE: usize = 8 << 20;

/// Whether `DATALOVE_CHECK_LEAKS=1` is set.
pub fn check_leaks_from_env() -> bool {
    std::env::var_os(CHECK_LEAKS_ENV).is_some_and(|v| v == "1")
}

/// How to make a runtime.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// Report allocations still live when the program ends, as a runtime error. The
    /// default is whether `DATALOVE_CHECK_LEAKS=1` is set.
    pub check_leaks: bool,
    /// Bytes of shadow stack (values whose size is known only at run time).
    pub shadow_stack_size: usize,
    /// Where `debuglog` output goes: the process's stdout (buffered) or a buffer.
    pub output: OutputMode,
    /// How many program-function calls may be active at once ([`DEFAULT_DEPTH_LIMIT`],
    /// or `DATALOVE_DEPTH_LIMIT`). One more is `stack overflow: call depth limit of N
    /// reached` on every backend.
    pub depth_limit: usize,
    /// The most bytes the program may hold allocated at once (`None`: as much as the
    /// system gives; `DATALOVE_MEMORY_LIMIT`). Past it is `out of memory`, as when the
    /// system refuses.
    pub memory_limit: Option<usize>,
    /// Report a native that dies by a fatal signal as one error line (see
    /// [`crate::crash`]); on by default.
    pub catch_crashes: bool,
    /// The program's arguments (`program_args`); none by default. Executables pass their
    /// command line (`crate::args::process_args`).
    pub args: Vec<String>,
}

/// The call-depth limit unless set: a million calls of a small function, which the
/// program stack ([`crate::PROGRAM_STACK_SIZE`]) holds on every backend.
pub const DEFAULT_DEPTH_LIMIT: usize = 1_000_000;

/// The environment variable that sets the call-depth limit.
pub const DEPTH_LIMIT_ENV: &str = "DATALOVE_DEPTH_LIMIT";

/// The environment variable that sets the memory limit, in bytes.
pub const MEMORY_LIMIT_ENV: &str = "DATALOVE_MEMORY_LIMIT";

/// A positive whole number from the environment variable `name`.
fn number_from_env(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

impl Default for RuntimeOptions {
    fn default() -> RuntimeOptions {
        RuntimeOptions {
            check_leaks: check_leaks_from_env(),
            shadow_stack_size: DEFAULT_SHADOW_STACK_SIZE,
            output: OutputMode::Stdout,
            depth_limit: number_from_env(DEPTH_LIMIT_ENV).unwrap_or(DEFAULT_DEPTH_LIMIT),
            memory_limit: number_from_env(MEMORY_LIMIT_ENV),
            catch_crashes: true,
            args: Vec::new(),
        }
    }
}

impl RuntimeOptions {
    /// The defaults with `debuglog` output captured (for tests).
    pub fn capturing() -> RuntimeOptions {
        RuntimeOptions {
            output: OutputMode::Capture,
            ..RuntimeOptions::default()
        }
    }
}

/// The runtime's state. `rt` is a pointer at it; it starts with the [`RtHeader`], which
/// compiled code reads and writes in place (hence the `UnsafeCell`). Everything after
/// the header is the runtime's own, behind interior mutability, since entry points
/// re-enter each other (a clone allocates, a refused move drops).
///
/// One runtime serves one program on one thread at a time; it may be moved to another
/// thread between runs (call [`Runtime::set_stack_limit_for_current_thread`] there).
#[repr(C)]
pub struct Runtime {
    header: UnsafeCell<RtHeader>,
    pub(crate) options: RuntimeOptions,
    pub(crate) counts: Counts,
    pub(crate) pool: crate::alloc::Pool,
    pub(crate) errors: ErrorState,
    pub(crate) output: Output,
    pub(crate) shadow: ShadowRegion,
    pub(crate) tydescs: Interner,
}

// SAFETY: the runtime owns everything its pointers reach (the table is a static), and
// it is used by one thread at a time: moving it between threads is sound, sharing is not
// (it is not `Sync`).
unsafe impl Send for Runtime {}

impl Runtime {
    /// A new runtime, its `stack_limit` set for the calling thread.
    pub fn new(options: RuntimeOptions) -> Box<Runtime> {
        let shadow = ShadowRegion::new(options.shadow_stack_size);
        let (shadow_top, shadow_limit) = shadow.bounds();
        let rt = Box::new(Runtime {
            header: UnsafeCell::new(RtHeader {
                table: &crate::table::TABLE,
                abandoning: 0,
                stack_limit: 0,
                shadow_top,
                shadow_limit,
                depth_left: options.depth_limit,
            }),
            output: Output::new(options.output),
            options,
            counts: Counts::default(),
            pool: crate::alloc::Pool::default(),
            errors: ErrorState::default(),
            shadow,
            tydescs: Interner::default(),
        });
        rt.set_stack_limit_for_current_thread();
        if rt.options.catch_crashes {
            crate::crash::enter(&*rt);
        }
        rt
    }

    /// The `rt` pointer compiled code and natives receive.
    pub fn handle(&self) -> *mut RtHeader {
        self.header.get()
    }

    /// The same, as the typed handle a Rust native receives.
    pub fn rt_handle(&self) -> RtHandle {
        // SAFETY: the header is live as long as `self`.
        unsafe { RtHandle::from_raw(self.handle()) }
    }

    /// The runtime behind a handle.
    ///
    /// # Safety
    /// `rt` must come from [`Runtime::handle`] of a live runtime.
    pub unsafe fn from_handle<'a>(rt: *mut RtHeader) -> &'a Runtime {
        &*(rt as *const Runtime)
    }

    pub(crate) fn header_ptr(&self) -> *mut RtHeader {
        self.header.get()
    }

    /// Whether the program is abandoning its calls for an error.
    pub fn abandoning(&self) -> bool {
        // SAFETY: the header is live; compiled code writes it only while it runs on
        // this thread, not during this read.
        unsafe { (*self.header_ptr()).abandoning != 0 }
    }

    pub(crate) fn set_abandoning(&self, on: bool) {
        // SAFETY: as for `abandoning`.
        unsafe { (*self.header_ptr()).abandoning = on as u8 }
    }

    /// The current `stack_limit` (lowest address the native stack may reach).
    pub fn stack_limit(&self) -> usize {
        // SAFETY: as for `abandoning`.
        unsafe { (*self.header_ptr()).stack_limit }
    }

    pub(crate) fn set_stack_limit(&self, limit: usize) {
        // SAFETY: as for `abandoning`.
        unsafe { (*self.header_ptr()).stack_limit = limit }
    }

    /// The options the runtime was made with.
    pub fn options(&self) -> &RuntimeOptions {
        &self.options
    }

    /// Allocation counts (program allocations only: interned descriptors and the shadow
    /// stack are the runtime's bookkeeping and are not counted).
    pub fn alloc_stats(&self) -> AllocStats {
        self.counts.stats()
    }

    /// `Some("N allocations still live (B bytes)")` when anything is still live.
    pub fn leak_report(&self) -> Option<String> {
        crate::exit::leak_detail(self.alloc_stats())
            .map(|detail| format!("{detail} ({} bytes)", self.alloc_stats().live_bytes))
    }

    /// The error raised, if any, left in place.
    pub fn error(&self) -> Option<RuntimeError> {
        self.errors.error.borrow().clone()
    }

    /// Takes the error raised, if any (flushing output first), and clears `abandoning`,
    /// so the runtime can run again.
    pub fn take_error(&self) -> Option<RuntimeError> {
        self.flush_output();
        let error = self.errors.error.borrow_mut().take();
        self.set_abandoning(false);
        // SAFETY: as for `abandoning`; a new run starts with the whole depth.
        unsafe { (*self.header_ptr()).depth_left = self.options.depth_limit };
        error
    }

    /// Flushes buffered `debuglog` output to stdout (nothing in capture mode). A write
    /// that fails ends the program (see [`crate::output`]).
    pub fn flush_output(&self) {
        if let Err(error) = self.output.flush() {
            self.output_failed(&error);
        }
    }

    /// Ends the program for output that could not be written.
    pub(crate) fn output_failed(&self, error: &std::io::Error) -> ! {
        self.die(
            datalove_rti::ErrorKind::Output,
            &crate::output::output_failure_detail(error),
        )
    }

    /// What `debuglog` printed so far, taken, in capture mode (empty in stdout mode).
    pub fn take_output(&self) -> Vec<u8> {
        self.output.take_captured()
    }

    /// Ends a run: flushes output, takes the error and decides the outcome with
    /// [`decide_outcome`] (leaks checked when the options or `check_leaks` say so).
    /// Prints nothing.
    pub fn finish_report(&self, check_leaks: bool) -> Outcome {
        let error = self.take_error();
        decide_outcome(
            error.as_ref(),
            self.alloc_stats(),
            check_leaks || self.options.check_leaks,
        )
    }

    /// [`Runtime::finish_report`], printing its lines to stderr. Returns the outcome
    /// (its `exit_code` is the process's).
    pub fn finish(&self) -> Outcome {
        let outcome = self.finish_report(false);
        outcome.print_to_stderr();
        outcome
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // Nowhere to report a failure from here; a run's end has flushed already.
        let _ = self.output.flush();
        if self.options.catch_crashes {
            crate::crash::leave(self);
        }
    }
}
