//! Runtime errors: the message a failing native sets, the error a program raises, and
//! the one place every error's words are chosen.
//!
//! The first error raised wins: while one is recorded (until a host takes it), later
//! ones are ignored, though each still sets `abandoning`. Raising flushes buffered
//! output first, so what the program printed comes out before the error line.
//!
//! Every detail is made one line by [`one_line`] exactly once, when it is raised, so a
//! native's message with a newline, a NUL or bytes that are not UTF-8 still prints as
//! one visible line on every backend.
//!
//! Details (after `error: <kind>: `):
//!
//! | raised by | detail |
//! |---|---|
//! | `native_failed` | `<rider>.<function>: <message>` (the status's name when no message was set) |
//! | `raise_arith` overflow / division by zero | `<type> <operation>`: `i32 addition`, `u8 multiplication`, `i64 division`, `i64 remainder`, `i32 shift left` |
//! | `raise_arith` of a conversion | `<from> to <to> conversion`: `f64 to i32 conversion` (just `conversion to <to>` when the source is not given) |
//! | `raise_bounds` | `index 5 out of bounds for length 3` |
//! | `raise_stack_overflow` at the call-depth limit | `call depth limit of N reached` |
//! | `raise_stack_overflow` with depth left | `out of stack space` (the native stack, or the interpreter's frame memory) |
//! | out of memory (ends the program) | `cannot allocate N bytes (M bytes live)` |
//! | output failed (stdout closed) | `stdout is closed` (or the system's reason) |
//! | a fatal signal (ends the program) | `SIGSEGV in <rider>.<function>` / `SIGSEGV at 0x...` |
//! | `shadow_push` when full | `limit of 8388608 bytes reached` |
//! | `raise` | the detail given |

use std::cell::RefCell;
use std::fmt;

pub use datalove_rti::site::{SourceLoc, CHAIN_SHOWN};
use datalove_rti::status::{status_name, ArithOp, ErrorKind, RtStatus};
use datalove_rti::table::Rt;
use datalove_rti::TyKind;

use crate::state::Runtime;

/// A runtime error: `error: <kind>: <detail>[ at FILE:LINE:COL]` is what the CLI and
/// executables print, followed by one `  called from FILE:LINE:COL` line per call the
/// error propagated through ([`RuntimeError::report_lines`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub kind: ErrorKind,
    pub detail: String,
    /// The source location of the failing instruction, when the program carries
    /// locations (programs built with the IR builder have none). Errors with no
    /// instruction (out of memory, a leak, a fatal signal) have none.
    pub location: Option<SourceLoc>,
    /// The calls the error propagated through, innermost first: the first
    /// [`CHAIN_SHOWN`] of them.
    pub calls: Vec<SourceLoc>,
    /// How many more calls it propagated through (counted, not kept; saturating).
    pub more_calls: u32,
}

impl RuntimeError {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> RuntimeError {
        RuntimeError {
            kind,
            detail: detail.into(),
            location: None,
            calls: Vec::new(),
            more_calls: 0,
        }
    }

    /// With `location` as the failing instruction's.
    pub fn at(mut self, location: SourceLoc) -> RuntimeError {
        self.location = Some(location);
        self
    }

    /// Records a site the error passed: the first is the failing instruction's location,
    /// each later one a call it propagated through (the first [`CHAIN_SHOWN`] kept, the
    /// rest counted). `site` is `FILE:LINE:COL`; anything else is ignored.
    pub fn add_site(&mut self, site: &[u8]) {
        let Some((file, line, col)) = std::str::from_utf8(site).ok().and_then(SourceLoc::fields)
        else {
            return;
        };
        if self.location.is_none() {
            self.location = Some(SourceLoc::new(file, line, col));
        } else if self.calls.len() < CHAIN_SHOWN {
            self.calls.push(SourceLoc::new(file, line, col));
        } else {
            self.more_calls = self.more_calls.saturating_add(1);
        }
    }

    /// The lines the CLI and executables print for it: `error: <Display>`, then
    /// `  called from FILE:LINE:COL` for each call kept, then `  ... and N more calls`
    /// when some were only counted.
    pub fn report_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("error: {self}")];
        lines.extend(self.calls.iter().map(|c| format!("{CALLED_FROM}{c}")));
        if self.more_calls > 0 {
            lines.push(format!("{MORE_CALLS}{} more calls", self.more_calls));
        }
        lines
    }

    /// The error [`report_lines`](Self::report_lines) printed, read back from those lines
    /// (an executable's stderr): the first line that starts `error: ` and names a kind,
    /// and the chain lines after it. `None` when there is no such line.
    pub fn parse_report(lines: &[String]) -> Option<RuntimeError> {
        let start = lines.iter().position(|l| {
            l.strip_prefix("error: ")
                .and_then(|rest| rest.split_once(": "))
                .is_some_and(|(kind, _)| ErrorKind::from_name(kind).is_some())
        })?;
        let rest = &lines[start]["error: ".len()..];
        let (kind, detail) = rest.split_once(": ")?;
        let mut error = RuntimeError::new(ErrorKind::from_name(kind)?, detail);
        if let Some((detail, site)) = detail.rsplit_once(LOCATION_SEPARATOR) {
            if let Some(loc) = SourceLoc::parse(site) {
                error.detail = detail.to_string();
                error.location = Some(loc);
            }
        }
        for line in &lines[start + 1..] {
            if let Some(loc) = line.strip_prefix(CALLED_FROM).and_then(SourceLoc::parse) {
                error.calls.push(loc);
            } else if let Some(n) = line
                .strip_prefix(MORE_CALLS)
                .and_then(|r| r.strip_suffix(" more calls"))
                .and_then(|n| n.parse().ok())
            {
                error.more_calls = n;
            } else {
                break;
            }
        }
        Some(error)
    }
}

/// Between the detail and the location on the error line.
const LOCATION_SEPARATOR: &str = " at ";
const CALLED_FROM: &str = "  called from ";
const MORE_CALLS: &str = "  ... and ";

/// Exactly `<kind>: <detail>`, then ` at FILE:LINE:COL` when the location is known.
impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.detail)?;
        if let Some(loc) = &self.location {
            write!(f, "{LOCATION_SEPARATOR}{loc}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}

#[derive(Default)]
pub(crate) struct ErrorState {
    pub(crate) error: RefCell<Option<RuntimeError>>,
    /// The message a native (or a refusing entry) set last.
    pub(crate) message: RefCell<Vec<u8>>,
}

/// The detail of an arithmetic error. For [`ArithOp::Cast`] `ty` is `to | from << 8`:
/// the target kind in the low byte, the source kind in the next ([`cast_ty`]). A source
/// of 0 (`unit`, which is never converted) means the source is not given.
pub fn arith_detail(op: u32, ty: u32) -> String {
    let op_name = ArithOp::from_u32(op).map_or("unknown operation", ArithOp::name);
    let kind_name = |k: u32| TyKind::from_u32(k).map_or("?", TyKind::name);
    if op == ArithOp::Cast as u32 {
        let to = kind_name(ty & 0xff);
        match (ty >> 8) & 0xff {
            0 => format!("{op_name} to {to}"),
            from => format!("{} to {to} {op_name}", kind_name(from)),
        }
    } else {
        format!("{} {op_name}", kind_name(ty))
    }
}

pub use datalove_rti::status::{bounds_detail, cast_ty};

/// The detail of a stack overflow with call depth left: the native stack (or the
/// interpreter's frame memory) ran out first, as frames of several hundred KiB do.
pub const STACK_OVERFLOW_DETAIL: &str = "out of stack space";

/// The detail of a stack overflow at the call-depth limit.
pub fn depth_limit_detail(limit: usize) -> String {
    format!("call depth limit of {limit} reached")
}

/// `bytes` as one line of text: printable characters as they are; `\\`, `\n`, `\r`,
/// `\t` and `\0` for a backslash, newline, carriage return, tab and NUL; `\u{XX}` for
/// any other control character (C0, DEL, C1) and the Unicode line and paragraph
/// separators; `\xHH` for each byte that is not part of valid UTF-8. The escaping is
/// visible and unambiguous, and the same wherever an error line is printed.
pub fn one_line(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\0' => out.push_str("\\0"),
                c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

pub const UNWRAP_NONE_DETAIL: &str = "expected some, found none";

/// The detail `raise` gives an error of `kind` raised with an empty detail, so that
/// compiled code names the error and the runtime words it.
pub fn standard_detail(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::UnwrapNone => UNWRAP_NONE_DETAIL,
        ErrorKind::StackOverflow => STACK_OVERFLOW_DETAIL,
        other => other.name(),
    }
}

pub fn shadow_detail(capacity: usize) -> String {
    format!("limit of {capacity} bytes reached")
}

pub fn native_failure_detail(rider: &str, function: &str, message: &str) -> String {
    format!("{rider}.{function}: {message}")
}

impl Runtime {
    /// Records `kind: detail` unless an error is already recorded, and sets
    /// `abandoning` either way. The detail is made [`one_line`].
    pub fn raise(&self, kind: ErrorKind, detail: impl AsRef<[u8]>) {
        self.flush_output();
        {
            let mut error = self.errors.error.borrow_mut();
            if error.is_none() {
                *error = Some(RuntimeError::new(kind, one_line(detail.as_ref())));
            }
        }
        self.set_abandoning(true);
    }

    /// Ends the program at once for an error nothing can unwind from (out of memory):
    /// flushes what it printed, prints `error: <kind>: <detail>` and exits with 101.
    pub fn die(&self, kind: ErrorKind, detail: &str) -> ! {
        self.flush_output();
        let line = format!("error: {}: {}\n", kind.name(), one_line(detail.as_bytes()));
        crate::crash::write_stderr(line.as_bytes());
        crate::crash::exit_now(crate::exit::EXIT_RUNTIME_ERROR)
    }

    /// Raises `stack overflow`: at the call-depth limit when no depth is left, otherwise
    /// out of stack space.
    pub fn raise_stack_overflow(&self) {
        // SAFETY: the header is live; compiled code is not writing it during this call.
        let depth_left = unsafe { (*self.header_ptr()).depth_left };
        if depth_left == 0 {
            self.raise(
                ErrorKind::StackOverflow,
                depth_limit_detail(self.options.depth_limit),
            );
        } else {
            self.raise(ErrorKind::StackOverflow, STACK_OVERFLOW_DETAIL);
        }
    }

    /// Records that the error being abandoned for passed `site` (`FILE:LINE:COL`): the
    /// failing instruction's location first, then each call it propagated through
    /// ([`RuntimeError::add_site`]). Nothing when no error is recorded.
    pub fn error_at(&self, site: &[u8]) {
        if let Some(error) = self.errors.error.borrow_mut().as_mut() {
            error.add_site(site);
        }
    }

    /// Sets the message a failing native's error will carry.
    pub fn set_message(&self, message: impl AsRef<[u8]>) {
        let mut slot = self.errors.message.borrow_mut();
        slot.clear();
        slot.extend_from_slice(message.as_ref());
    }

    /// The message last set, lossily as text.
    pub fn message(&self) -> String {
        String::from_utf8_lossy(&self.errors.message.borrow()).into_owned()
    }

    /// What `native_failed` does: a native-failure error with the message the native
    /// set (or the status's name), the message cleared.
    pub fn native_failed(&self, rider: &str, function: &str, status: RtStatus) {
        let message = std::mem::take(&mut *self.errors.message.borrow_mut());
        let mut detail = format!("{rider}.{function}: ").into_bytes();
        if message.is_empty() {
            detail.extend_from_slice(status_name(status).as_bytes());
        } else {
            detail.extend_from_slice(&message);
        }
        self.raise(ErrorKind::NativeFailure, detail);
    }
}

unsafe fn text<'a>(ptr: *const u8, len: usize) -> std::borrow::Cow<'a, str> {
    String::from_utf8_lossy(bytes(ptr, len))
}

unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    std::slice::from_raw_parts(ptr, len)
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn error_set(rt: Rt, message: *const u8, len: usize) {
    let rt = Runtime::from_handle(rt);
    if message.is_null() || len == 0 {
        rt.set_message([]);
    } else {
        rt.set_message(std::slice::from_raw_parts(message, len));
    }
}

pub(crate) unsafe extern "C" fn error_message(rt: Rt, out_len: *mut usize) -> *const u8 {
    let rt = Runtime::from_handle(rt);
    let message = rt.errors.message.borrow();
    if !out_len.is_null() {
        *out_len = message.len();
    }
    if message.is_empty() {
        crate::strings::EMPTY_BYTES.as_ptr()
    } else {
        message.as_ptr()
    }
}

pub(crate) unsafe extern "C" fn native_failed(
    rt: Rt,
    rider: *const u8,
    rider_len: usize,
    function: *const u8,
    function_len: usize,
    status: RtStatus,
) {
    Runtime::from_handle(rt).native_failed(
        &text(rider, rider_len),
        &text(function, function_len),
        status,
    );
}

pub(crate) unsafe extern "C" fn raise(rt: Rt, kind: u32, detail: *const u8, len: usize) {
    let rt = Runtime::from_handle(rt);
    let detail = match ErrorKind::from_u32(kind) {
        Some(kind) if len == 0 => standard_detail(kind).as_bytes(),
        _ => bytes(detail, len),
    };
    match ErrorKind::from_u32(kind) {
        Some(kind) => rt.raise(kind, detail),
        None => {
            let mut all = format!("unknown error kind {kind}: ").into_bytes();
            all.extend_from_slice(detail);
            rt.raise(ErrorKind::NativeFailure, all)
        }
    }
}

pub(crate) unsafe extern "C" fn raise_arith(rt: Rt, kind: u32, op: u32, ty: u32) {
    let rt = Runtime::from_handle(rt);
    let kind = ErrorKind::from_u32(kind).unwrap_or(ErrorKind::Overflow);
    rt.raise(kind, arith_detail(op, ty));
}

pub(crate) unsafe extern "C" fn raise_bounds(rt: Rt, index: u64, len: u64) {
    Runtime::from_handle(rt).raise(ErrorKind::IndexOutOfBounds, bounds_detail(index, len));
}

pub(crate) unsafe extern "C" fn raise_stack_overflow(rt: Rt) {
    Runtime::from_handle(rt).raise_stack_overflow();
}

pub(crate) unsafe extern "C" fn error_at(rt: Rt, site: *const u8, len: usize) {
    Runtime::from_handle(rt).error_at(bytes(site, len));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_site_is_the_location_later_ones_the_chain_capped() {
        let mut e = RuntimeError::new(ErrorKind::StackOverflow, "call depth limit of 3 reached");
        e.add_site(b"not a site");
        assert_eq!(e.location, None);
        for _ in 0..CHAIN_SHOWN + 6 {
            e.add_site(b"p.dfs:3:9");
            e.add_site(b"");
        }
        assert_eq!(e.location, Some(SourceLoc::new("p.dfs", 3, 9)));
        assert_eq!(e.calls.len(), CHAIN_SHOWN);
        assert_eq!(e.more_calls, 5);
        let lines = e.report_lines();
        assert_eq!(
            lines[0],
            "error: stack overflow: call depth limit of 3 reached at p.dfs:3:9"
        );
        assert_eq!(lines[1], "  called from p.dfs:3:9");
        assert_eq!(lines.last().unwrap(), "  ... and 5 more calls");
        assert_eq!(lines.len(), 1 + CHAIN_SHOWN + 1);
        assert_eq!(RuntimeError::parse_report(&lines), Some(e));
    }

    #[test]
    fn an_error_without_location_prints_and_parses_as_before() {
        let e = RuntimeError::new(ErrorKind::NativeFailure, "probe.fail: broke at a:b");
        assert_eq!(
            e.report_lines(),
            vec!["error: native failure: probe.fail: broke at a:b"]
        );
        assert_eq!(RuntimeError::parse_report(&e.report_lines()), Some(e));
        let lines = vec![
            "noise".to_string(),
            "error: leak: 1 allocation still live".into(),
        ];
        let leak = RuntimeError::parse_report(&lines).expect("a report");
        assert_eq!((leak.kind, leak.location), (ErrorKind::Leak, None));
    }
}
