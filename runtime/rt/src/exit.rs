//! How a run ends: the ONE decision of what goes to stderr and what the exit code is,
//! shared by in-process hosts (`Runtime::finish`) and executables (`dtlv_rt_finish`).
//!
//! - No error and no leak (or leak checking off): nothing printed, exit [`EXIT_OK`] (0).
//! - A runtime error: `error: <kind>: <detail>` (then ` at FILE:LINE:COL` when its
//!   location is known, and a `  called from FILE:LINE:COL` line per call of its chain:
//!   `RuntimeError::report_lines`), exit [`EXIT_RUNTIME_ERROR`] (101).
//! - The program asked to end (`io.exit(code)`, an [`ErrorKind::Exit`]): nothing
//!   printed, exit `code`.
//! - Leak checking on and allocations still live: `error: leak: N allocations still
//!   live` (`1 allocation still live` for one), exit 101. After a runtime error the
//!   leak line follows the error line: error paths must leak nothing either.

use datalove_rti::{AllocStats, ErrorKind};

use crate::errors::RuntimeError;

pub const EXIT_OK: i32 = 0;
pub const EXIT_RUNTIME_ERROR: i32 = 101;

/// The end of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The process exit code.
    pub exit_code: i32,
    /// The lines for stderr, each without its newline (`error: <kind>: <detail>`).
    pub stderr_lines: Vec<String>,
    /// The runtime error, if one was raised.
    pub error: Option<RuntimeError>,
}

impl Outcome {
    /// The stderr lines, each followed by a newline.
    pub fn stderr_text(&self) -> String {
        self.stderr_lines.iter().map(|l| format!("{l}\n")).collect()
    }

    pub fn print_to_stderr(&self) {
        use std::io::Write;
        if self.stderr_lines.is_empty() {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(self.stderr_text().as_bytes());
        let _ = stderr.flush();
    }
}

/// The outcome of a rider problem found before the program could start (a library
/// missing or of another ABI version, a native missing): one `error: rider: <message>`
/// line, exit 101, in-process hosts and executables alike.
pub fn rider_problem(message: &str) -> Outcome {
    Outcome {
        exit_code: EXIT_RUNTIME_ERROR,
        stderr_lines: vec![format!(
            "error: rider: {}",
            crate::errors::one_line(message.as_bytes())
        )],
        error: None,
    }
}

/// `N allocations still live` when `stats` has any.
pub fn leak_detail(stats: AllocStats) -> Option<String> {
    match stats.live {
        0 => None,
        1 => Some("1 allocation still live".to_owned()),
        n => Some(format!("{n} allocations still live")),
    }
}

/// The leak as a runtime error, when there is one.
pub fn leak_error(stats: AllocStats) -> Option<RuntimeError> {
    leak_detail(stats).map(|detail| RuntimeError::new(ErrorKind::Leak, detail))
}

/// The exit code a program asked for (`io.exit`: an [`ErrorKind::Exit`] whose detail is
/// the code), or `None` for an error.
pub fn exit_request(error: &RuntimeError) -> Option<i32> {
    if error.kind == ErrorKind::Exit {
        error.detail.parse().ok()
    } else {
        None
    }
}

/// Decides a run's outcome from its error, its allocation counts and whether leaks are
/// checked.
pub fn decide_outcome(
    error: Option<&RuntimeError>,
    stats: AllocStats,
    check_leaks: bool,
) -> Outcome {
    let mut lines = Vec::new();
    let mut asked = None;
    if let Some(error) = error {
        match exit_request(error) {
            Some(code) => asked = Some(code),
            None => lines.extend(error.report_lines()),
        }
    }
    if check_leaks {
        if let Some(leak) = leak_error(stats) {
            lines.push(format!("error: {leak}"));
        }
    }
    Outcome {
        exit_code: if lines.is_empty() {
            asked.unwrap_or(EXIT_OK)
        } else {
            EXIT_RUNTIME_ERROR
        },
        stderr_lines: lines,
        error: error.cloned(),
    }
}
