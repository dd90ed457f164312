//! Why the interpreter could not take a program.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpError {
    /// The program did not pass the verifier (the interpreter runs verified IR only).
    Unverified(String),
    /// A native's implementation could not be found (the message names rider and symbol).
    Native(String),
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::Unverified(m) => write!(f, "the program is not valid IR: {m}"),
            InterpError::Native(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for InterpError {}
