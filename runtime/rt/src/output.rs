//! Where `debuglog` output goes: the process's stdout, buffered, or a buffer a test
//! reads back. Buffered output is flushed when it grows past [`FLUSH_AT`], before the
//! runtime reports an error, when a run finishes and when the runtime is dropped.

use std::cell::RefCell;
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
}

impl Output {
    pub(crate) fn new(mode: OutputMode) -> Output {
        Output {
            mode,
            buffer: RefCell::new(Vec::new()),
        }
    }

    /// Appends one line (the text and a newline).
    pub(crate) fn write_line(&self, text: &[u8]) {
        let full = {
            let mut buffer = self.buffer.borrow_mut();
            buffer.extend_from_slice(text);
            buffer.push(b'\n');
            buffer.len() >= FLUSH_AT
        };
        if full {
            self.flush();
        }
    }

    pub(crate) fn flush(&self) {
        if self.mode != OutputMode::Stdout {
            return;
        }
        let bytes = std::mem::take(&mut *self.buffer.borrow_mut());
        if bytes.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (a pipe whose reader went away) loses the output; there is
        // nowhere better to say so.
        let _ = stdout.write_all(&bytes);
        let _ = stdout.flush();
    }

    pub(crate) fn take_captured(&self) -> Vec<u8> {
        if self.mode != OutputMode::Capture {
            return Vec::new();
        }
        std::mem::take(&mut *self.buffer.borrow_mut())
    }
}
