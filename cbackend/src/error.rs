//! What can go wrong between a program and its executable.

#[derive(Debug, thiserror::Error)]
pub enum CError {
    /// The IR broke an invariant (a bug in whatever built it).
    #[error("the program does not verify:\n{0}")]
    Unverified(String),
    /// Writing a file or starting a tool failed.
    #[error("{0}")]
    Io(String),
    /// The C compiler (or linker) refused: the command it ran and its stderr.
    #[error("the C compiler failed: `{command}`\n{stderr}")]
    Compile { command: String, stderr: String },
}
