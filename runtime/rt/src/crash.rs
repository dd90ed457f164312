//! Fatal signals: a native that crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) is
//! reported as one line and the program ends with 101, instead of the process dying
//! silently with what it printed lost.
//!
//! A runtime made with `catch_crashes` (the default) installs, once per process, a
//! handler for those signals that runs on an alternate signal stack (so a native that
//! overflowed its own stack is reported too), and marks itself the current runtime of
//! its thread. The handler then
//!
//! 1. writes out what the current runtime's program printed and had not flushed yet;
//! 2. names the native: the symbol containing the faulting address, or else the first
//!    frame of the interrupted stack that belongs to a native (`abort()` faults inside
//!    libc, called from the native), read back through [`native_of_symbol`];
//! 3. prints `error: native crashed: SIGSEGV in <rider>.<function>` (or `error:
//!    crashed: SIGSEGV at 0x...` when no native is on the stack, which is our bug) and
//!    leaves with `_exit(101)`.
//!
//! Nothing is dropped or checked for leaks after a crash: the process state is not
//! trusted any more. The same handler serves in-process hosts (interp, jit) and
//! executables (aot, c), so the line is the same on every backend.
//!
//! The install also ignores SIGPIPE, so that a write to a closed stdout is an error the
//! runtime reports (`error: output failed: stdout is closed`) in executables as in the
//! CLI, where Rust's start-up already ignores it.

use std::cell::Cell;
use std::ffi::{c_int, c_void, CStr};
use std::sync::Once;

use datalove_rti::{native_of_symbol, ErrorKind};

use crate::state::Runtime;

thread_local! {
    /// The runtime whose program runs on this thread (null: none).
    static CURRENT: Cell<*const Runtime> = const { Cell::new(std::ptr::null()) };
}

/// The signals reported as crashes.
const FATAL: [c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

/// Bytes of alternate signal stack for the handler.
const ALT_STACK_SIZE: usize = 256 * 1024;

static INSTALL: Once = Once::new();

/// Installs the handlers (once per process) and gives the calling thread an alternate
/// signal stack if it has none; `runtime` becomes this thread's current runtime.
pub(crate) fn enter(runtime: *const Runtime) {
    INSTALL.call_once(install_handlers);
    ensure_alt_stack();
    CURRENT.with(|c| c.set(runtime));
}

/// `runtime` is no longer this thread's current runtime.
pub(crate) fn leave(runtime: *const Runtime) {
    CURRENT.with(|c| {
        if c.get() == runtime {
            c.set(std::ptr::null());
        }
    });
}

fn install_handlers() {
    // `backtrace` loads the unwinder on first use, which allocates: do it now, not in
    // the handler.
    let mut frames = [std::ptr::null_mut::<c_void>(); 4];
    // SAFETY: `frames` has room for 4 addresses; the handler is a valid
    // `sa_sigaction`, and the sigaction structs are zeroed then filled.
    unsafe {
        libc::backtrace(frames.as_mut_ptr(), frames.len() as c_int);
        for signal in FATAL {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal_signal as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

thread_local! {
    /// This thread's alternate signal stack, when we made it (kept for the thread's life).
    static ALT_STACK: Cell<bool> = const { Cell::new(false) };
}

fn ensure_alt_stack() {
    if ALT_STACK.with(Cell::get) {
        return;
    }
    // SAFETY: reading the current alternate stack, then installing a leaked buffer of
    // ALT_STACK_SIZE bytes that lives as long as the process.
    unsafe {
        let mut current: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(std::ptr::null(), &mut current) == 0
            && current.ss_flags & libc::SS_DISABLE == 0
            && current.ss_size >= ALT_STACK_SIZE / 4
        {
            ALT_STACK.with(|a| a.set(true));
            return;
        }
        let memory = Box::leak(vec![0u8; ALT_STACK_SIZE].into_boxed_slice());
        let stack = libc::stack_t {
            ss_sp: memory.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT_STACK_SIZE,
        };
        libc::sigaltstack(&stack, std::ptr::null_mut());
    }
    ALT_STACK.with(|a| a.set(true));
}

/// Writes all of `bytes` to stderr with `write(2)` (no lock, no allocation).
pub fn write_stderr(bytes: &[u8]) {
    write_fd(2, bytes);
}

fn write_fd(fd: c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid buffer of its length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Ends the process with `code` after an error nothing can unwind from.
pub fn exit_now(code: i32) -> ! {
    std::process::exit(code)
}

/// The name of a fatal signal.
pub fn signal_name(signal: c_int) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGABRT => "SIGABRT",
        _ => "a fatal signal",
    }
}

/// glibc's `RTLD_DL_SYMENT`: `dladdr1` also returns the symbol's table entry.
const RTLD_DL_SYMENT: c_int = 1;

/// The native whose code contains `address`, as `rider.function`, from the dynamic
/// symbol table. The symbol's size is checked: the nearest exported symbol below an
/// address in some unexported helper is not the native running.
fn native_at(address: usize, out: &mut FixedText) -> bool {
    // SAFETY: dladdr1 only reads the loader's tables; the strings and the symbol entry
    // it returns live as long as the library.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let mut entry: *mut c_void = std::ptr::null_mut();
        if address == 0
            || libc::dladdr1(
                address as *const c_void,
                &mut info,
                &mut entry,
                RTLD_DL_SYMENT,
            ) == 0
        {
            return false;
        }
        if info.dli_sname.is_null() || entry.is_null() {
            return false;
        }
        let size = (*(entry as *const libc::Elf64_Sym)).st_size as usize;
        let start = info.dli_saddr as usize;
        if address < start || address >= start.saturating_add(size) {
            return false;
        }
        let Ok(symbol) = CStr::from_ptr(info.dli_sname).to_str() else {
            return false;
        };
        match native_of_symbol(symbol) {
            Some((rider, function)) => {
                out.push(rider.as_bytes());
                out.push(b".");
                out.push(function.as_bytes());
                true
            }
            None => false,
        }
    }
}

/// The interrupted program counter, from the signal's context.
///
/// # Safety
/// `context` is the `ucontext_t` the kernel passed to the handler.
unsafe fn interrupted_pc(context: *mut c_void) -> usize {
    if context.is_null() {
        return 0;
    }
    let uc = context as *const libc::ucontext_t;
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        (*uc).uc_mcontext.gregs[libc::REG_RIP as usize] as usize
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    {
        (*uc).uc_mcontext.pc as usize
    }
    #[cfg(not(any(
        all(target_os = "linux", target_arch = "x86_64"),
        all(target_os = "linux", target_arch = "aarch64")
    )))]
    {
        let _ = uc;
        0
    }
}

/// A line built without allocating (the handler must not).
struct FixedText {
    bytes: [u8; 512],
    len: usize,
}

impl FixedText {
    fn push(&mut self, more: &[u8]) {
        let n = more.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&more[..n]);
        self.len += n;
    }

    fn push_hex(&mut self, value: usize) {
        let mut digits = [0u8; 16];
        let mut v = value;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b"0123456789abcdef"[v & 15];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        self.push(b"0x");
        self.push(&digits[i..]);
    }

    fn push_decimal(&mut self, value: usize) {
        let mut digits = [0u8; 20];
        let mut v = value;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// What the process's allocator does when the system refuses it memory
/// ([`crate::alloc::ExitOnOutOfMemory`]): the runtime's one line for it, `error: out of
/// memory: cannot allocate N bytes (M bytes live)` (the live bytes when a program runs on
/// this thread), after what the program printed, then exit 101, as an allocation the
/// runtime counts ends (`crate::alloc`). Nothing here allocates or takes a lock, and
/// `_exit` runs no exit handler (any of which could allocate again); a second refusal
/// while the first is reported only exits.
pub(crate) fn allocation_refused(size: usize) -> ! {
    static REFUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !REFUSED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        let runtime = CURRENT.with(Cell::get);
        let mut line = FixedText {
            bytes: [0; 512],
            len: 0,
        };
        line.push(b"error: ");
        line.push(ErrorKind::OutOfMemory.name().as_bytes());
        line.push(b": cannot allocate ");
        line.push_decimal(size);
        line.push(b" bytes");
        if !runtime.is_null() {
            // SAFETY: as in `on_fatal_signal`: the current runtime lives until it leaves,
            // and its buffer is read only when no borrow of it is in progress.
            unsafe {
                (*runtime).output.write_out_raw(|bytes| write_fd(1, bytes));
                line.push(b" (");
                line.push_decimal((*runtime).counts.live_bytes());
                line.push(b" bytes live)");
            }
        }
        line.push(b"\n");
        write_fd(2, line.as_bytes());
    }
    // SAFETY: `_exit` ends the process; nothing after it runs.
    unsafe { libc::_exit(crate::exit::EXIT_RUNTIME_ERROR) }
}

extern "C" fn on_fatal_signal(signal: c_int, _info: *mut libc::siginfo_t, context: *mut c_void) {
    // 1. What the program printed.
    let runtime = CURRENT.with(Cell::get);
    if !runtime.is_null() {
        // SAFETY: the current runtime lives until it leaves (its Drop); the output
        // buffer is read only if no borrow of it is in progress.
        unsafe { (*runtime).output.write_out_raw(|bytes| write_fd(1, bytes)) };
    }
    // 2. Which native.
    let mut native = FixedText {
        bytes: [0; 512],
        len: 0,
    };
    // SAFETY: `context` is the kernel's.
    let pc = unsafe { interrupted_pc(context) };
    let mut found = native_at(pc, &mut native);
    if !found {
        let mut frames = [std::ptr::null_mut::<c_void>(); 64];
        // SAFETY: room for 64 addresses.
        let n = unsafe { libc::backtrace(frames.as_mut_ptr(), frames.len() as c_int) };
        for &frame in &frames[..n.max(0) as usize] {
            // A return address points after the call: look one byte back.
            if native_at((frame as usize).saturating_sub(1), &mut native) {
                found = true;
                break;
            }
        }
    }
    // 3. The line.
    let mut line = FixedText {
        bytes: [0; 512],
        len: 0,
    };
    if found {
        line.push(b"error: ");
        line.push(ErrorKind::NativeCrash.name().as_bytes());
        line.push(b": ");
        line.push(signal_name(signal).as_bytes());
        line.push(b" in ");
        line.push(native.as_bytes());
    } else {
        line.push(b"error: ");
        line.push(ErrorKind::Crash.name().as_bytes());
        line.push(b": ");
        line.push(signal_name(signal).as_bytes());
        line.push(b" at ");
        line.push_hex(pc);
    }
    line.push(b"\n");
    write_fd(2, line.as_bytes());
    // SAFETY: ends the process without running anything else.
    unsafe { libc::_exit(crate::exit::EXIT_RUNTIME_ERROR) }
}
