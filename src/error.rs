//! The embedder's errors: one value per way a program can fail to compile, load, link or
//! run, so that a caller can tell them apart with a `match`.

use datalove_front::Failed;
use datalove_rti::ErrorKind;

pub use datalove_rt::{RuntimeError, SourceLoc};

use crate::run::Unavailable;
use crate::CompileError;

/// Why an [`Engine`](crate::Engine) or a [`Module`](crate::Module) could not do what it
/// was asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The backend cannot run programs on this machine (aot and c need a C compiler).
    #[error("backend {} is unavailable: {}", .0.backend.name(), .0.reason)]
    Unavailable(Unavailable),
    /// The program does not compile: unreadable file or diagnostics.
    #[error("{}", .0.to_string().trim_end())]
    Compile(CompileError),
    /// The program compiled but may not run: a module with no entry (`F008`), IR the
    /// verifier refuses (`V001`), or a backend that cannot take it (`B001`).
    #[error("{}", .0.render().trim_end())]
    Refused(Failed),
    /// A rider the program requires cannot be found or loaded, or lacks a native.
    #[error("rider: {0}")]
    Rider(String),
    /// The aot or c executable could not be built (the toolchain or the filesystem
    /// failed).
    #[error("link: {0}")]
    Link(String),
    /// The program ran and raised a runtime error (or, with leak checking on, ended with
    /// allocations still live: kind [`ErrorKind::Leak`]).
    #[error("{0}")]
    Runtime(RuntimeError),
    /// A function looked up by name does not exist, or its signature is not the one the
    /// caller's Rust types describe.
    #[error("signature: {0}")]
    Signature(String),
    /// What was asked for cannot be done here: no backend has that name, the program's
    /// thread cannot be started, or a module's calls are unusable after their setup
    /// failed (the text says which).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl Error {
    /// The runtime error's kind, if this is one.
    pub fn runtime_kind(&self) -> Option<ErrorKind> {
        match self {
            Error::Runtime(e) => Some(e.kind),
            _ => None,
        }
    }
}

/// The error an executable reported on stderr: its line `error: <kind>: <detail>[ at
/// FILE:LINE:COL]` and the chain lines after it (`RuntimeError::parse_report`, the
/// inverse of what `dtlv_rt_finish` prints), a rider problem (`error: rider: ...`), or
/// `None` when no line has that shape.
pub(crate) fn parse_error_line(lines: &[String]) -> Option<Result<RuntimeError, String>> {
    let rider = lines
        .iter()
        .position(|line| line.starts_with("error: rider: "));
    let runtime = RuntimeError::parse_report(lines);
    match (rider, runtime) {
        (Some(i), _) => Some(Err(lines[i]["error: rider: ".len()..].to_string())),
        (None, Some(error)) => Some(Ok(error)),
        (None, None) => None,
    }
}
