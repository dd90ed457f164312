//! The C-ABI face of the runtime, for executables (the AOT and C backends link the one
//! staticlib). A generated `main` is either
//!
//! ```c
//! int main(void) { return dtlv_rt_run_main(dtlv_program_main, 0); }
//! ```
//!
//! which runs the program on a thread with a [`PROGRAM_STACK_SIZE`] stack as the
//! interpreter does, or, to run on the main thread,
//!
//! ```c
//! int main(void) {
//!     void *rt = dtlv_rt_create();
//!     dtlv_program_main(rt);
//!     return dtlv_rt_finish(rt, 0);
//! }
//! ```
//!
//! An executable that calls natives starts with `dtlv_rt_run_linked` instead, which
//! first loads its riders from the executable's directory and fills the native slots its
//! code calls through (a rider problem is `error: rider: ...`, exit 101).
//!
//! Leak checking is on when `check_leaks` is nonzero or `DATALOVE_CHECK_LEAKS=1` is set.

use datalove_rti::RtHeader;

use crate::stack::{run_on_thread, PROGRAM_STACK_SIZE};
use crate::state::{Runtime, RuntimeOptions};

/// A new runtime with the default options (output to stdout, leak checking from the
/// environment) and the process's command line after its name as the program's
/// arguments, its stack limit set for the calling thread. Free it with `dtlv_rt_finish`
/// or `dtlv_rt_destroy`.
#[no_mangle]
pub extern "C" fn dtlv_rt_create() -> *mut RtHeader {
    let options = RuntimeOptions {
        args: crate::args::process_args(),
        ..RuntimeOptions::default()
    };
    Box::into_raw(Runtime::new(options)).cast()
}

/// Sets `rt`'s stack limit for the calling thread (when the program runs on a thread
/// other than the one that created the runtime).
///
/// # Safety
/// `rt` from `dtlv_rt_create`, not yet finished.
#[no_mangle]
pub unsafe extern "C" fn dtlv_rt_set_stack_limit(rt: *mut RtHeader) {
    Runtime::from_handle(rt).set_stack_limit_for_current_thread();
}

/// Ends the run: flushes output, prints `error: <kind>: <detail>` (and a leak line when
/// checked) to stderr, destroys the runtime and returns the process exit code (0, or
/// 101 after a runtime error or leak), decided by `decide_outcome`.
///
/// # Safety
/// `rt` from `dtlv_rt_create`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn dtlv_rt_finish(rt: *mut RtHeader, check_leaks: u8) -> i32 {
    let runtime = Box::from_raw(rt.cast::<Runtime>());
    let outcome = runtime.finish_report(check_leaks != 0);
    outcome.print_to_stderr();
    drop(runtime);
    outcome.exit_code
}

/// Destroys a runtime without reporting anything (output is still flushed).
///
/// # Safety
/// `rt` from `dtlv_rt_create`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn dtlv_rt_destroy(rt: *mut RtHeader) {
    drop(Box::from_raw(rt.cast::<Runtime>()));
}

/// Whether `rt` is abandoning for an error (1) or not (0).
///
/// # Safety
/// `rt` live.
#[no_mangle]
pub unsafe extern "C" fn dtlv_rt_abandoning(rt: *mut RtHeader) -> u8 {
    (*rt).abandoning
}

/// Creates a runtime on a new thread with a `stack_size`-byte stack (0: the program
/// stack every backend uses, 256 MiB), runs `entry(rt)` there, finishes as
/// `dtlv_rt_finish(rt, 0)` does and returns the exit code.
#[no_mangle]
pub extern "C" fn dtlv_rt_run_main(
    entry: unsafe extern "C" fn(rt: *mut RtHeader),
    stack_size: usize,
) -> i32 {
    let stack_size = if stack_size == 0 {
        PROGRAM_STACK_SIZE
    } else {
        stack_size
    };
    run_on_thread(stack_size, move || {
        let rt = dtlv_rt_create();
        // SAFETY: the runtime is live until `dtlv_rt_finish`; `entry` is the program.
        unsafe {
            entry(rt);
            dtlv_rt_finish(rt, 0)
        }
    })
}

/// What the generated `main` of an executable calls: loads every rider `manifest` names
/// from the executable's own directory, checks its ABI version, writes the address of
/// each native into its slot in `slots` (see `datalove_rti::links`), then runs the
/// program as [`dtlv_rt_run_main`] does. A rider problem (a library missing, of another
/// ABI version, a native missing) is one `error: rider: ...` line and exit 101, before
/// the program starts.
///
/// # Safety
/// `manifest` is a complete rider manifest and `slots` has room for one pointer per
/// native symbol it names.
#[no_mangle]
pub unsafe extern "C" fn dtlv_rt_run_linked(
    entry: unsafe extern "C" fn(rt: *mut RtHeader),
    stack_size: usize,
    manifest: *const u8,
    slots: *mut *const std::ffi::c_void,
) -> i32 {
    let libraries = match crate::loader::link_beside_executable(manifest, slots) {
        Ok(libraries) => libraries,
        Err(message) => {
            let outcome = crate::exit::rider_problem(&message);
            outcome.print_to_stderr();
            return outcome.exit_code;
        }
    };
    let code = dtlv_rt_run_main(entry, stack_size);
    drop(libraries);
    code
}
