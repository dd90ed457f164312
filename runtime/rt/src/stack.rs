//! The native stack limit. Before every call of a program function, every backend
//! compares the stack pointer, less the callee's frame (`Function::frame_bytes`), with
//! `stack_limit` and raises `stack overflow` below it, so deep recursion is a runtime
//! error, never a segfault, whatever the frame size: the check runs in the caller,
//! whose frame is known to fit, before the callee's frame is reserved. The limit is the
//! lowest address of the current thread's stack plus [`STACK_SAFETY_MARGIN`], which
//! leaves room for what the estimate leaves out (spills, saved registers) and for the
//! runtime's own frames (raising, formatting, a native) after the check has fired.
//!
//! The same test reads `depth_left` (see `RtHeader`), the call-depth limit that every
//! backend counts alike; the program stack is big enough that, for ordinary frames, the
//! depth limit fires first, so one program fails at the same depth everywhere.
//!
//! On Linux the stack is read with `pthread_getattr_np`, which also reports the main
//! thread's stack (from its rlimit and mappings). Elsewhere, or if that fails, the
//! limit is [`FALLBACK_STACK_SIZE`] below the current stack pointer, less the margin.
//!
//! A program should run on a thread with a big stack: [`run_on_thread`] with
//! [`PROGRAM_STACK_SIZE`], which every backend uses (the interpreter in-process,
//! executables through `dtlv_rt_run_main`), so that the depth at which recursion fails
//! is the same order everywhere.

use crate::state::Runtime;

/// Bytes kept free below the limit: 256 KiB.
pub const STACK_SAFETY_MARGIN: usize = 256 * 1024;

/// The stack a program runs on: 1 GiB (reserved, not committed, until used), room for
/// the default call-depth limit of a million calls with frames of up to about 1 KiB
/// (the interpreter's own native frame per call is under 500 bytes).
pub const PROGRAM_STACK_SIZE: usize = 1 << 30;

/// The smallest stack [`run_on_thread`] falls back to when the system refuses a bigger
/// one (an address-space limit, `ulimit -v`).
pub const MIN_PROGRAM_STACK_SIZE: usize = 16 << 20;

/// What is assumed to be left below the stack pointer when the stack cannot be read.
pub const FALLBACK_STACK_SIZE: usize = 1 << 20;

#[cfg(target_os = "linux")]
mod sys {
    use std::ffi::c_void;

    /// Room for a `pthread_attr_t` (56 bytes on x86-64 glibc, 64 on aarch64).
    #[repr(C, align(16))]
    pub struct PthreadAttr([u8; 128]);

    extern "C" {
        fn pthread_self() -> usize;
        fn pthread_getattr_np(thread: usize, attr: *mut PthreadAttr) -> i32;
        fn pthread_attr_getstack(
            attr: *const PthreadAttr,
            stackaddr: *mut *mut c_void,
            stacksize: *mut usize,
        ) -> i32;
        fn pthread_attr_destroy(attr: *mut PthreadAttr) -> i32;
    }

    /// `(lowest address, size)` of the calling thread's stack.
    pub fn current_stack() -> Option<(usize, usize)> {
        let mut attr = PthreadAttr([0; 128]);
        // SAFETY: `attr` is big enough for a pthread_attr_t; it is destroyed after a
        // successful getattr.
        unsafe {
            if pthread_getattr_np(pthread_self(), &mut attr) != 0 {
                return None;
            }
            let mut addr: *mut c_void = std::ptr::null_mut();
            let mut size = 0usize;
            let ok = pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
            pthread_attr_destroy(&mut attr);
            (ok && !addr.is_null() && size != 0).then_some((addr as usize, size))
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub fn current_stack() -> Option<(usize, usize)> {
        None
    }
}

/// An address in the current frame: the stack pointer, near enough.
#[inline(never)]
pub fn approximate_stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// `(lowest address, size)` of the calling thread's stack, when the system says.
pub fn current_thread_stack() -> Option<(usize, usize)> {
    sys::current_stack()
}

/// The `stack_limit` for the calling thread: its stack's lowest address plus the
/// margin (or a quarter of the stack, for a stack smaller than four margins).
pub fn stack_limit_for_current_thread() -> usize {
    let sp = approximate_stack_pointer();
    match current_thread_stack() {
        Some((low, size)) if sp > low && sp <= low + size => {
            let margin = STACK_SAFETY_MARGIN.min(size / 4);
            low + margin
        }
        _ => sp.saturating_sub(FALLBACK_STACK_SIZE) + STACK_SAFETY_MARGIN,
    }
}

impl Runtime {
    /// Sets `stack_limit` for the thread this is called on. `Runtime::new` does this for
    /// the thread it runs on; a host that runs the program on another thread calls it
    /// there first.
    pub fn set_stack_limit_for_current_thread(&self) {
        self.set_stack_limit(stack_limit_for_current_thread());
    }
}

/// Runs `f` on a new thread with a stack of `stack_size` bytes and returns what it
/// returns. When the system cannot give that much address space (`ulimit -v`), the
/// stack is halved until it can, down to [`MIN_PROGRAM_STACK_SIZE`]: deep recursion then
/// fails earlier, still as a clean `stack overflow`. A panic in `f` is resumed on the
/// calling thread.
pub fn run_on_thread<R: Send>(stack_size: usize, f: impl FnOnce() -> R + Send) -> R {
    // Shared by reference, so that a failed spawn leaves `f` for the next try.
    let f = std::sync::Mutex::new(Some(f));
    let f = &f;
    std::thread::scope(|scope| {
        let mut size = stack_size;
        let handle = loop {
            let spawned = std::thread::Builder::new()
                .name("datalove-program".to_owned())
                .stack_size(size)
                .spawn_scoped(scope, move || {
                    let f = f.lock().expect("unpoisoned").take().expect("run once");
                    f()
                });
            match spawned {
                Ok(handle) => break handle,
                Err(e) if size / 2 < MIN_PROGRAM_STACK_SIZE => {
                    panic!("cannot start the program thread with a {size}-byte stack: {e}")
                }
                Err(_) => size /= 2,
            }
        };
        match handle.join() {
            Ok(value) => value,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}
