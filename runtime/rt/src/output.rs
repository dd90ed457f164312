//! Where `debuglog` output goes: the process's stdout, buffered, or a buffer a test
//! reads back.
//!
//! Buffered stdout output is written out when it grows past [`FLUSH_AT`], at every line
//! end when stdout is a terminal (so a long run shows its output as it goes), before the
//! runtime reports an error, when a run finishes, when the runtime is dropped, and by the
//! crash handler before it reports a crashed native. So what a program printed is never
//! lost, and always comes out before its error line.
//!
//! A write that fails (stdout closed: a pipe whose reader went away, as in `| head -1`;
//! a full disk) ends the program at once with `error: output failed: stdout is closed`
//! (or the system's reason) and exit 101, like out of memory: a program whose output
//! nobody reads has nothing left to do, and one printing in a loop must not spin on.
//! This is the one behaviour of every backend (executables ignore SIGPIPE to get it,
//! see `crash`).

use std::cell::{Cell, RefCell};
use std::io::Write;

/// Buffered stdout output is written out once it holds this many bytes.
pub const FLUSH_AT: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputMode {
    /// The process's stdout, buffered.
    Stdout,
    /// A buffer, read with `Runtime::take_output`.
    Capture,
}

pub(crate) struct Output {
    mode: OutputMode,
    buffer: RefCell<Vec<u8>>,
    /// Flush at every line end (stdout is a terminal).
    line_buffered: bool,
    /// A write failed: everything after is discarded.
    failed: Cell<bool>,
}

/// Why writing the output failed, as the detail of an `output failed` error (the CLI's
/// `run --backend all` words its report's failed write with it too).
pub fn output_failure_detail(error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        "stdout is closed".to_owned()
    } else {
        format!("cannot write to stdout: {error}")
    }
}

impl Output {
    pub(crate) fn new(mode: OutputMode) -> Output {
        // SAFETY: isatty only inspects the descriptor.
        let line_buffered = mode == OutputMode::Stdout && unsafe { libc::isatty(1) == 1 };
        Output {
            mode,
            buffer: RefCell::new(Vec::new()),
            line_buffered,
            failed: Cell::new(false),
        }
    }

    /// Appends one line (the text and a newline). `Err` when writing out failed (the
    /// first time only: after that, output is discarded).
    pub(crate) fn write_line(&self, text: &[u8]) -> Result<(), std::io::Error> {
        if self.failed.get() {
            return Ok(());
        }
        let full = {
            let mut buffer = self.buffer.borrow_mut();
            buffer.extend_from_slice(text);
            buffer.push(b'\n');
            self.line_buffered || buffer.len() >= FLUSH_AT
        };
        if full {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the buffer out (stdout mode). `Err` the first time a write fails.
    pub(crate) fn flush(&self) -> Result<(), std::io::Error> {
        if self.mode != OutputMode::Stdout || self.failed.get() {
            return Ok(());
        }
        let bytes = std::mem::take(&mut *self.buffer.borrow_mut());
        if bytes.is_empty() {
            return Ok(());
        }
        let mut stdout = std::io::stdout().lock();
        let result = stdout.write_all(&bytes).and_then(|()| stdout.flush());
        if result.is_err() {
            self.failed.set(true);
        }
        result
    }

    pub(crate) fn take_captured(&self) -> Vec<u8> {
        if self.mode != OutputMode::Capture {
            return Vec::new();
        }
        std::mem::take(&mut *self.buffer.borrow_mut())
    }

    /// Hands what is buffered (in either mode) to `write`, without allocating or
    /// locking: for the crash handler, which then ends the process.
    pub(crate) fn write_out_raw(&self, write: impl FnOnce(&[u8])) {
        if let Ok(buffer) = self.buffer.try_borrow() {
            if !self.failed.get() {
                write(&buffer);
            }
        }
    }
}
