//! Why the interpreter could not take a program.

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// The program did not pass the verifier (the interpreter runs verified IR only).
    #[error("the program is not valid IR: {0}")]
    Unverified(String),
    /// A native's implementation could not be found (the message names rider and symbol).
    #[error("{0}")]
    Native(String),
}
