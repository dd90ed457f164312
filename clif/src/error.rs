//! Why a program could not be lowered to CLIF or compiled.

use std::fmt;

#[derive(Debug)]
pub enum ClifError {
    /// The program did not pass the IR verifier (the backends take verified IR only).
    Unverified(String),
    /// Cranelift refused a function or a data object (a lowering bug, reported with the
    /// function's name).
    Module { function: String, message: String },
}

impl ClifError {
    pub(crate) fn module(function: &str, error: impl fmt::Display) -> ClifError {
        ClifError::Module {
            function: function.to_string(),
            message: error.to_string(),
        }
    }
}

impl fmt::Display for ClifError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClifError::Unverified(m) => write!(f, "the program is not valid IR: {m}"),
            ClifError::Module { function, message } => {
                write!(f, "cranelift refused `{function}`: {message}")
            }
        }
    }
}

impl std::error::Error for ClifError {}
