//! Status codes a native (and a fallible table entry) returns, and the runtime-error kinds
//! every backend reports with the same words.

/// What a native returns: 1 is ok, anything else a failure (and nothing was written to
/// `result_out`).
pub type RtStatus = u8;

pub const STATUS_OK: RtStatus = 1;
/// A failure the native explained with `dtlv_rti_error_set` (or none at all).
pub const STATUS_FAILED: RtStatus = 0;
/// An index or range past the end of a string or list.
pub const STATUS_OUT_OF_BOUNDS: RtStatus = 2;
/// Bytes that are not UTF-8 where a string was to be made.
pub const STATUS_INVALID_UTF8: RtStatus = 3;
/// A descriptor that does not fit the operation (a pop from a list of another type, ...).
pub const STATUS_TYPE_MISMATCH: RtStatus = 4;
/// The native panicked; the message is the panic's.
pub const STATUS_PANICKED: RtStatus = 5;
/// An empty list popped, a none unwrapped.
pub const STATUS_EMPTY: RtStatus = 6;
/// A key a map does not have (`map_remove`).
pub const STATUS_NOT_FOUND: RtStatus = 7;

/// A short description of a status, for messages when a native set none.
pub fn status_name(status: RtStatus) -> &'static str {
    match status {
        STATUS_OK => "ok",
        STATUS_FAILED => "failed",
        STATUS_OUT_OF_BOUNDS => "out of bounds",
        STATUS_INVALID_UTF8 => "invalid UTF-8",
        STATUS_TYPE_MISMATCH => "type mismatch",
        STATUS_PANICKED => "panicked",
        STATUS_EMPTY => "empty",
        STATUS_NOT_FOUND => "not found",
        _ => "unknown failure status",
    }
}

abi_enum! {
    /// The kind of a runtime error: the `<kind>` of `error: <kind>: <detail>`.
    /// Its `name` is the words printed after `error: `.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum ErrorKind {
        /// A native returned a failure status.
        NativeFailure = 1 => "native failure",
        /// Checked integer arithmetic or a checked cast left the type's range.
        Overflow = 2 => "overflow",
        DivisionByZero = 3 => "division by zero",
        IndexOutOfBounds = 4 => "index out of bounds",
        StackOverflow = 5 => "stack overflow",
        ShadowStackExhausted = 6 => "shadow stack exhausted",
        /// A float that is NaN or out of range converted to an integer.
        InvalidCast = 7 => "invalid cast",
        /// `unwrap` of a none.
        UnwrapNone = 8 => "unwrap of none",
        /// The program ended with allocations still live (reported only when leak checking
        /// is on; never raised by compiled code).
        Leak = 9 => "leak",
        /// An allocation the system (or the runtime's memory limit) refused. The program
        /// ends at once: nothing after it runs, so nothing is dropped.
        OutOfMemory = 10 => "out of memory",
        /// Writing the program's output failed (stdout closed, disk full).
        Output = 11 => "output failed",
        /// A native died by a fatal signal (SIGSEGV, SIGABRT, ...), reported by the host's or
        /// the executable's signal handler; the program ends at once.
        NativeCrash = 12 => "native crashed",
        /// A fatal signal outside any native (a bug of ours): reported the same way.
        Crash = 13 => "crashed",
        /// Not an error: the program asked to end (`io.exit`), with the exit code as the
        /// detail. It unwinds like an error (every frame drops what it holds), then the run
        /// ends with that code and prints nothing.
        Exit = 14 => "exit",
        /// A map asked for a key it does not have (`maps.at`); the detail names the key.
        KeyNotFound = 15 => "key not found",
    }
}

abi_enum! {
    /// The operation an arithmetic error came from (`dtlv_rti_raise_arith`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum ArithOp {
        Add = 0 => "addition",
        Sub = 1 => "subtraction",
        Mul = 2 => "multiplication",
        Div = 3 => "division",
        Rem = 4 => "remainder",
        Neg = 5 => "negation",
        Shl = 6 => "shift left",
        Shr = 7 => "shift right",
        Cast = 8 => "conversion",
    }
}

/// The detail of an index past the end of a list or a string (`raise_bounds`, and a
/// native that reports the same failure): `index 5 out of bounds for length 3`. The one
/// spelling the runtime and every rider that uses these helpers print.
pub fn bounds_detail(index: u64, len: u64) -> String {
    format!("index {index} out of bounds for length {len}")
}

/// The `ty` argument of `raise_arith` for a conversion (`ArithOp::Cast`) from `from` to
/// `to`: the target kind in the low byte, the source kind in the next. Every backend
/// encodes a conversion error through this one function.
pub fn cast_ty(from: crate::TyKind, to: crate::TyKind) -> u32 {
    (to as u32) | ((from as u32) << 8)
}
