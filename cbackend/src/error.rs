//! What can go wrong between a program and its executable.

use std::fmt;

#[derive(Debug)]
pub enum CError {
    /// The IR broke an invariant (a bug in whatever built it).
    Unverified(String),
    /// Writing a file or starting a tool failed.
    Io(String),
    /// The C compiler (or linker) refused: the command it ran and its stderr.
    Compile { command: String, stderr: String },
}

impl fmt::Display for CError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CError::Unverified(m) => write!(f, "the program does not verify:\n{m}"),
            CError::Io(m) => write!(f, "{m}"),
            CError::Compile { command, stderr } => {
                write!(f, "the C compiler failed: `{command}`\n{stderr}")
            }
        }
    }
}

impl std::error::Error for CError {}
