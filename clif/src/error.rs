//! Why a program could not be lowered to CLIF or compiled.

use std::fmt;

#[derive(Debug, thiserror::Error)]
pub enum ClifError {
    /// The program did not pass the IR verifier (the backends take verified IR only).
    #[error("the program is not valid IR: {0}")]
    Unverified(String),
    /// Cranelift refused a function or a data object (a lowering bug, reported with the
    /// function's name).
    #[error("cranelift refused `{function}`: {message}")]
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
