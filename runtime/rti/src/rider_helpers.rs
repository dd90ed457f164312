//! Helpers for writing natives in Rust.
//!
//! A native is an `unsafe extern "C-unwind" fn` returning an [`RtStatus`]. The pieces a
//! rider author reaches for:
//!
//! - **Failing and panicking** — [`guard`] runs the body under `catch_unwind` and turns
//!   `Err(message)` into `STATUS_FAILED` with the message set, and a panic into
//!   `STATUS_PANICKED` with `panicked: <panic message>` set. Nothing unwinds out: a
//!   panic that reached compiled (JIT) frames would abort the process. [`guard_as`]
//!   picks the failure status; [`guard_failure`] lets the body say status and message
//!   with a [`Failure`], which is what the helpers below return, so `?` works in it.
//!   [`check`] turns the status of a runtime entry into a `Result`.
//! - **Strings** — [`make_string`] / [`make_string_from_bytes`] write a new
//!   `rtdt::String` into a result slot; [`StringMut`] changes a `mut` string only
//!   through runtime entry points, so it stays UTF-8; `rtdt::String::as_str` reads one.
//! - **Scalars through descriptors** — [`read_int`] reads any integer kind (and
//!   `index`) as `i128`, [`write_int`] writes one with a range check; [`read_float`] /
//!   [`write_float`], [`read_bool`] / [`write_bool`], and [`read_scalar`] /
//!   [`write_scalar`] over the [`Scalar`] enum. They take any [`ValuePtr`]: the four
//!   `rtdt::Any*` pointers, or raw pointers.
//! - **Any value through its descriptor** — [`clone_value`], [`drop_value`],
//!   [`values_eq`], [`compare_values`], [`format_value`] (into a Rust `String`),
//!   [`debuglog`], [`init_value`] (the empty value), [`data_borrow`].
//! - **Descriptors** — [`expect_kind`], and the constants in [`crate::tydesc`]
//!   (`STRING_TYDESC`, `packed_tydesc(kind)`).
//!
//! A typical native:
//!
//! ```no_run
//! use std::mem::MaybeUninit;
//! use datalove_rti::rider_helpers::{guard_failure, make_string};
//! use datalove_rti::rtdt::{self, RtHandle};
//! use datalove_rti::{RtStatus, TyDesc};
//!
//! #[no_mangle]
//! pub unsafe extern "C-unwind" fn dlr_std__string_repeat(
//!     rt: RtHandle,
//!     s: &rtdt::String, _s_td: &TyDesc,
//!     n: &u32, _n_td: &TyDesc,
//!     out: &mut MaybeUninit<rtdt::String>, _out_td: &TyDesc,
//! ) -> RtStatus {
//!     guard_failure(rt, || {
//!         let text = s.as_str().repeat(*n as usize);
//!         make_string(rt, &text, out)
//!     })
//! }
//! ```

use std::any::Any;
use std::cell::Cell;
use std::cmp::Ordering;
use std::ffi::c_void;
use std::fmt;
use std::mem::MaybeUninit;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use crate::call;
use crate::rtdt::{self, AnyMut, AnyOut, AnyOwned, AnyRef, Data, RtHandle};
use crate::status::{
    status_name, RtStatus, STATUS_FAILED, STATUS_OK, STATUS_PANICKED, STATUS_TYPE_MISMATCH,
};
use crate::tydesc::{same_tydesc, TyDesc, TyKind, STRING_TYDESC};

// ---------------------------------------------------------------------------------------
// Failing and panicking
// ---------------------------------------------------------------------------------------

/// Why a native (or a helper it called) failed: the status to return and the message
/// the runtime error will carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub status: RtStatus,
    pub message: std::string::String,
}

impl Failure {
    pub fn new(status: RtStatus, message: impl Into<std::string::String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// `STATUS_FAILED` with `message`.
    pub fn failed(message: impl Into<std::string::String>) -> Failure {
        Failure::new(STATUS_FAILED, message)
    }

    /// `STATUS_TYPE_MISMATCH` with `message`.
    pub fn type_mismatch(message: impl Into<std::string::String>) -> Failure {
        Failure::new(STATUS_TYPE_MISMATCH, message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl From<std::string::String> for Failure {
    fn from(message: std::string::String) -> Failure {
        Failure::failed(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::failed(message)
    }
}

/// Lets `?` on a helper's `Result<_, Failure>` work inside a [`guard`] body (the
/// status becomes `STATUS_FAILED`; use [`guard_failure`] to keep it).
impl From<Failure> for std::string::String {
    fn from(failure: Failure) -> std::string::String {
        failure.message
    }
}

/// The result of a runtime entry as a `Result`: `Ok` for `STATUS_OK`, otherwise a
/// [`Failure`] with that status and the message the runtime set (or the status's name
/// when it set none).
///
/// # Safety
/// `rt` must be live.
pub unsafe fn check(rt: RtHandle, status: RtStatus) -> Result<(), Failure> {
    if status == STATUS_OK {
        return Ok(());
    }
    let mut message = call::dtlv_rti_error_message(rt);
    if message.is_empty() {
        message = status_name(status).to_owned();
    }
    Err(Failure::new(status, message))
}

thread_local! {
    /// How many guards are running on this thread: while any is, a panic is reported
    /// through the status, not printed by the panic hook.
    static GUARD_DEPTH: Cell<u32> = const { Cell::new(0) };
}

static QUIET_HOOK: Once = Once::new();

/// Installs (once per copy of this crate) a panic hook that stays silent for panics
/// inside a guard, so a panicking native prints only the runtime's one error line, and
/// defers to the hook it replaced for every other panic.
fn install_quiet_hook() {
    // Installed already: the usual case, one atomic load (`panicking` reads the thread's
    // panic count as well).
    if QUIET_HOOK.is_completed() || std::thread::panicking() {
        return;
    }
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if GUARD_DEPTH.with(|d| d.get()) == 0 {
                previous(info);
            }
        }));
    });
}

/// The text of a panic payload (`panic!("...")` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn Any + Send)) -> std::string::String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<std::string::String>() {
        s.clone()
    } else {
        "a panic with a payload that is not a string".to_owned()
    }
}

/// Runs `body`, catching any panic; the one place a native's outcome becomes a status.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn guard_failure(rt: RtHandle, body: impl FnOnce() -> Result<(), Failure>) -> RtStatus {
    install_quiet_hook();
    // One look-up of the thread's guard count (in a rider, a shared library, each costs
    // a call of `__tls_get_addr`): raised around the body, which cannot unwind past
    // `catch_unwind`, so it is always lowered again.
    let outcome = GUARD_DEPTH.with(|depth| {
        depth.set(depth.get() + 1);
        let outcome = panic::catch_unwind(AssertUnwindSafe(body));
        depth.set(depth.get().saturating_sub(1));
        outcome
    });
    match outcome {
        Ok(Ok(())) => STATUS_OK,
        Ok(Err(failure)) => {
            // A body that fails with the "ok" status would make the caller read an
            // unwritten result: report it as a plain failure instead.
            let status = if failure.status == STATUS_OK {
                STATUS_FAILED
            } else {
                failure.status
            };
            set_message_quietly(rt, &failure.message);
            status
        }
        Err(payload) => {
            let message = format!("panicked: {}", panic_message(&*payload));
            // Dropping the payload could itself panic; never let that escape.
            let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(payload)));
            set_message_quietly(rt, &message);
            STATUS_PANICKED
        }
    }
}

/// Defines natives in the native-call ABI's shape, each body run inside
/// [`guard_failure`], so a rider writes only what its natives do:
///
/// ```no_run
/// use std::mem::MaybeUninit;
/// use datalove_rti::rider_helpers::write_int;
/// use datalove_rti::rtdt::{self, AnyOut};
///
/// datalove_rti::natives! {
///     /// The length in bytes.
///     fn dlr_std__string_len(
///         rt,
///         s: &rtdt::String, _s_td,
///         result_out: &mut MaybeUninit<rtdt::Index>, _result_td,
///     ) {
///         result_out.write(rtdt::Index(s.len() as u64));
///         Ok(())
///     }
///
///     /// `0` of the integer type `T`, named by a trailing descriptor.
///     fn dlr_std__zero(rt, result_out: AnyOut<'_>, result_td; _t_td) {
///         write_int(&result_out, result_td, 0)
///     }
/// }
/// ```
///
/// Each one becomes `#[no_mangle] pub unsafe extern "C-unwind" fn` taking the handle,
/// every parameter followed by its descriptor (`&TyDesc`), the result slot and its
/// descriptor, then the trailing descriptors named after `;`, and returning the
/// [`RtStatus`] of `guard_failure(rt, move || body)`.
#[macro_export]
macro_rules! natives {
    ($(
        $(#[$attr:meta])*
        fn $name:ident(
            $rt:ident
            $(, $arg:ident: $ty:ty, $td:ident)*
            $(; $($trailing:ident),+)?
            $(,)?
        ) $body:block
    )*) => {$(
        $(#[$attr])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C-unwind" fn $name(
            $rt: $crate::rtdt::RtHandle,
            $($arg: $ty, $td: &$crate::TyDesc,)*
            $($($trailing: &$crate::TyDesc,)+)?
        ) -> $crate::RtStatus {
            $crate::rider_helpers::guard_failure($rt, move || $body)
        }
    )*};
}

/// Sets the error message without any chance of unwinding: a table that is refused
/// (another ABI) gets no message, and the status alone tells the failure.
unsafe fn set_message_quietly(rt: RtHandle, message: &str) {
    if let Ok(table) = call::try_table(rt) {
        (table.error_set)(rt.as_ptr(), message.as_ptr(), message.len());
    }
}

/// Runs `body` under `catch_unwind`: `Ok` is `STATUS_OK`; `Err(message)` sets the
/// runtime's error message and returns `STATUS_FAILED`; a panic sets `panicked: <panic
/// message>` and returns `STATUS_PANICKED`. Nothing ever unwinds out.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn guard(
    rt: RtHandle,
    body: impl FnOnce() -> Result<(), std::string::String>,
) -> RtStatus {
    guard_as(rt, STATUS_FAILED, body)
}

/// As [`guard`], returning `status` (not `STATUS_FAILED`) when the body fails.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn guard_as(
    rt: RtHandle,
    status: RtStatus,
    body: impl FnOnce() -> Result<(), std::string::String>,
) -> RtStatus {
    guard_failure(rt, || {
        body().map_err(|message| Failure::new(status, message))
    })
}

// ---------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------

/// Writes a new runtime string holding `text` into `out`.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn make_string(
    rt: RtHandle,
    text: &str,
    out: &mut MaybeUninit<rtdt::String>,
) -> Result<(), Failure> {
    make_string_from_bytes(rt, text.as_bytes(), out)
}

/// Writes a new runtime string of `bytes` into `out`; refused (`STATUS_INVALID_UTF8`)
/// when they are not UTF-8.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn make_string_from_bytes(
    rt: RtHandle,
    bytes: &[u8],
    out: &mut MaybeUninit<rtdt::String>,
) -> Result<(), Failure> {
    check(rt, call::dtlv_rti_string_from_bytes(rt, bytes, out))
}

/// Bytes a native builds in the runtime's own memory (the table's `alloc`), to become a
/// string: each growth is counted against the program's memory limit, and one the limit
/// or the system refuses ends the program with the runtime's `out of memory` line
/// (`docs/running.md`), as the program's own allocations do; nothing is held in the
/// rider's memory on the way (`read_file` of an endless file fails at the limit). Grown
/// by doubling; what is not made a string is freed when the buffer is dropped.
pub struct RuntimeBytes {
    rt: RtHandle,
    ptr: *mut u8,
    len: usize,
    cap: usize,
}

impl RuntimeBytes {
    pub fn new(rt: RtHandle) -> RuntimeBytes {
        RuntimeBytes {
            rt,
            ptr: std::ptr::null_mut(),
            len: 0,
            cap: 0,
        }
    }

    /// Room for `more` bytes past the length; `Err` only for a size no buffer can have.
    ///
    /// # Safety
    /// The buffer's runtime is live.
    pub unsafe fn reserve(&mut self, more: usize) -> Result<(), Failure> {
        let needed = self
            .len
            .checked_add(more)
            .filter(|&n| n <= crate::layout::MAX_BUFFER_BYTES)
            .ok_or_else(|| {
                Failure::failed(format!(
                    "a string of {} and {more} more bytes does not fit in memory",
                    self.len
                ))
            })?;
        if needed <= self.cap {
            return Ok(());
        }
        let cap = needed
            .max(self.cap.saturating_mul(2))
            .clamp(64, crate::layout::MAX_BUFFER_BYTES);
        // A refused allocation never returns (the runtime ends the program).
        let grown = call::dtlv_rti_alloc(self.rt, cap, 1);
        if self.len > 0 {
            std::ptr::copy_nonoverlapping(self.ptr, grown, self.len);
        }
        self.release();
        self.ptr = grown;
        self.cap = cap;
        Ok(())
    }

    /// Appends `bytes`.
    ///
    /// # Safety
    /// The buffer's runtime is live.
    pub unsafe fn extend(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.reserve(bytes.len())?;
        if !bytes.is_empty() {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(self.len), bytes.len());
            self.len += bytes.len();
        }
        Ok(())
    }

    /// At most `most` bytes of the room past the length, zeroed (write into them, then
    /// [`Self::advance`]).
    pub fn spare(&mut self, most: usize) -> &mut [u8] {
        let n = (self.cap - self.len).min(most);
        if n == 0 {
            return &mut [];
        }
        // SAFETY: `ptr` is a buffer of `cap` bytes, the first `len` of them written, and
        // `len + n <= cap`.
        unsafe {
            let rest = self.ptr.add(self.len);
            std::ptr::write_bytes(rest, 0, n);
            std::slice::from_raw_parts_mut(rest, n)
        }
    }

    /// Counts `n` more bytes of the spare room as written.
    pub fn advance(&mut self, n: usize) {
        assert!(n <= self.cap - self.len, "advanced past the buffer");
        self.len += n;
    }

    pub fn as_bytes(&self) -> &[u8] {
        if self.len == 0 {
            &[]
        } else {
            // SAFETY: the first `len` bytes of the buffer are written.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }

    /// The bytes as a runtime string when they are UTF-8 (the buffer is the string's,
    /// no copy); else the failure `WHAT is not UTF-8 (byte N)`.
    pub fn into_string(mut self, what: &str) -> Result<rtdt::String, Failure> {
        if let Err(e) = std::str::from_utf8(self.as_bytes()) {
            return Err(Failure::failed(format!(
                "{what} is not UTF-8 (byte {})",
                e.valid_up_to()
            )));
        }
        let (ptr, len, cap) = (self.ptr, self.len, self.cap);
        self.ptr = std::ptr::null_mut();
        self.cap = 0;
        // SAFETY: a buffer of `cap` bytes the runtime allocated, its first `len` UTF-8.
        Ok(unsafe { rtdt::String::from_raw_parts(ptr, len, cap) })
    }

    fn release(&mut self) {
        if self.cap > 0 {
            // SAFETY: `ptr` is the runtime's allocation of `cap` bytes at align 1.
            unsafe { call::dtlv_rti_free(self.rt, self.ptr, self.cap, 1) };
        }
        self.ptr = std::ptr::null_mut();
        self.cap = 0;
    }
}

impl Drop for RuntimeBytes {
    fn drop(&mut self) {
        self.release();
    }
}

/// A new runtime string holding `text`, by value (drop it with [`drop_string`] or move
/// it somewhere that owns it).
///
/// # Safety
/// `rt` must be live.
pub unsafe fn new_string(rt: RtHandle, text: &str) -> Result<rtdt::String, Failure> {
    let mut out = MaybeUninit::uninit();
    make_string(rt, text, &mut out)?;
    Ok(out.assume_init())
}

/// Frees a runtime string that was moved out of a slot.
///
/// # Safety
/// `rt` must be live; `s` must be a string of this runtime.
pub unsafe fn drop_string(rt: RtHandle, s: rtdt::String) {
    let mut s = std::mem::ManuallyDrop::new(s);
    call::dtlv_rti_drop(rt, (&mut *s as *mut rtdt::String).cast(), &STRING_TYDESC);
}

/// A `mut` string, changed only through the runtime's entry points so that it stays
/// UTF-8 and its buffer stays the runtime's (and counted).
pub struct StringMut<'a> {
    rt: RtHandle,
    s: &'a mut rtdt::String,
}

impl<'a> StringMut<'a> {
    /// # Safety
    /// `rt` must be live and `s` a string of that runtime.
    pub unsafe fn new(rt: RtHandle, s: &'a mut rtdt::String) -> StringMut<'a> {
        StringMut { rt, s }
    }

    pub fn as_str(&self) -> &str {
        self.s.as_str()
    }

    pub fn len(&self) -> usize {
        self.s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// Appends `text`.
    pub fn push_str(&mut self, text: &str) -> Result<(), Failure> {
        // SAFETY: `new`'s promise.
        unsafe {
            check(
                self.rt,
                call::dtlv_rti_string_push(self.rt, self.s, text.as_bytes()),
            )
        }
    }

    pub fn push_char(&mut self, c: char) -> Result<(), Failure> {
        let mut buf = [0u8; 4];
        self.push_str(c.encode_utf8(&mut buf))
    }

    /// Appends `bytes`, refused (`STATUS_INVALID_UTF8`, string unchanged) when they
    /// are not UTF-8.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        // SAFETY: `new`'s promise.
        unsafe { check(self.rt, call::dtlv_rti_string_push(self.rt, self.s, bytes)) }
    }

    /// Replaces the contents with `text` (a new string; the old one is freed).
    pub fn replace(&mut self, text: &str) -> Result<(), Failure> {
        // SAFETY: `new`'s promise.
        let new = unsafe { new_string(self.rt, text)? };
        self.set(new);
        Ok(())
    }

    /// Empties the string, freeing its buffer.
    pub fn clear(&mut self) {
        self.set(rtdt::String::EMPTY);
    }

    /// Keeps the first `len` bytes; refused (`STATUS_OUT_OF_BOUNDS`) past the end or
    /// off a character boundary.
    pub fn truncate(&mut self, len: usize) -> Result<(), Failure> {
        let mut out = MaybeUninit::uninit();
        // SAFETY: `new`'s promise.
        unsafe {
            check(
                self.rt,
                call::dtlv_rti_string_slice(self.rt, self.s, 0, len, &mut out),
            )?;
            self.set(out.assume_init());
        }
        Ok(())
    }

    /// Replaces the contents with `new`, which this string owns afterwards; the old
    /// contents are freed.
    pub fn set(&mut self, new: rtdt::String) {
        let old = std::mem::replace(self.s, new);
        // SAFETY: `old` was this runtime's string, now moved out.
        unsafe { drop_string(self.rt, old) }
    }
}

// ---------------------------------------------------------------------------------------
// Values through descriptors
// ---------------------------------------------------------------------------------------

/// Anything that points at a value read or written through a descriptor: the four
/// `rtdt::Any*` pointers and raw pointers.
pub trait ValuePtr {
    fn value_ptr(&self) -> *mut u8;
}

macro_rules! value_ptr_any {
    ($($t:ident),*) => {
        $(impl ValuePtr for $t<'_> {
            fn value_ptr(&self) -> *mut u8 {
                self.as_ptr()
            }
        })*
    };
}
value_ptr_any!(AnyRef, AnyMut, AnyOwned, AnyOut);

impl ValuePtr for *mut u8 {
    fn value_ptr(&self) -> *mut u8 {
        *self
    }
}

impl ValuePtr for *const u8 {
    fn value_ptr(&self) -> *mut u8 {
        self.cast_mut()
    }
}

impl ValuePtr for *mut c_void {
    fn value_ptr(&self) -> *mut u8 {
        self.cast()
    }
}

impl ValuePtr for *const c_void {
    fn value_ptr(&self) -> *mut u8 {
        self.cast_mut().cast()
    }
}

/// `Ok` when `td` is of `kind`, else a type-mismatch [`Failure`] naming both.
#[inline]
pub fn expect_kind(td: &TyDesc, kind: TyKind) -> Result<(), Failure> {
    if td.kind == kind {
        Ok(())
    } else {
        Err(Failure::type_mismatch(format!(
            "expected a {} value, got {}",
            kind.name(),
            td.kind.name()
        )))
    }
}

// ---------------------------------------------------------------------------------------
// Descriptor checks (the std rider's natives and the runtime's own, `datalove_rt::natives`)
// ---------------------------------------------------------------------------------------

/// The payload descriptor and offset of an option descriptor.
///
/// # Safety
/// `td` must be a well-formed descriptor.
#[inline]
pub unsafe fn option_payload(td: &TyDesc) -> Result<(&TyDesc, usize), Failure> {
    expect_kind(td, TyKind::Option)?;
    Ok((td.elem(), td.payload_offset))
}

/// The payload offset of the `?T` result slot of `result_td`, whose `T` must be `t_td`'s
/// type; else the type mismatch `mismatch(T's name, the slot's)` words.
///
/// # Safety
/// Both descriptors well formed.
#[inline]
pub unsafe fn option_of(
    result_td: &TyDesc,
    t_td: &TyDesc,
    mismatch: fn(std::string::String, std::string::String) -> std::string::String,
) -> Result<usize, Failure> {
    let (payload_td, offset) = option_payload(result_td)?;
    expect_match(payload_td, t_td, || {
        mismatch(t_td.type_name(), result_td.type_name())
    })?;
    Ok(offset)
}

/// `Ok` when `a` and `b` describe the same type; else the type mismatch `message` words.
///
/// # Safety
/// Both descriptors well formed.
#[inline]
pub unsafe fn expect_match(
    a: &TyDesc,
    b: &TyDesc,
    message: impl FnOnce() -> std::string::String,
) -> Result<(), Failure> {
    if same_tydesc(a, b) {
        Ok(())
    } else {
        Err(Failure::type_mismatch(message()))
    }
}

/// The key and value descriptors of a map descriptor.
///
/// # Safety
/// `td` must be a well-formed descriptor.
#[inline]
pub unsafe fn map_parts(td: &TyDesc) -> Result<(&TyDesc, &TyDesc), Failure> {
    expect_kind(td, TyKind::Map)?;
    Ok(td.map_parts())
}

/// A key handed over `ref` must be of the map's key type.
///
/// # Safety
/// Both descriptors well formed.
#[inline]
pub unsafe fn expect_key(key_td: &TyDesc, map_td: &TyDesc) -> Result<(), Failure> {
    let (map_key, _) = map_parts(map_td)?;
    expect_match(key_td, map_key, || {
        format!("a {} key for a {}", key_td.type_name(), map_td.type_name())
    })
}

/// For a native that takes a `ref` key and gives `?V` (`map_get`, `map_remove`): checks
/// the key against the map and the result slot's `V` against its values; the value
/// descriptor and the payload's offset in the slot.
///
/// # Safety
/// The descriptors well formed.
#[inline]
pub unsafe fn key_and_optional_value<'m>(
    key_td: &TyDesc,
    m_td: &'m TyDesc,
    result_td: &TyDesc,
) -> Result<(&'m TyDesc, usize), Failure> {
    expect_key(key_td, m_td)?;
    let (_, value_td) = map_parts(m_td)?;
    let offset = option_of(result_td, value_td, |value, slot| {
        format!("a {value} value into a {slot} slot")
    })?;
    Ok((value_td, offset))
}

/// A scalar value, whatever its width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Unit,
    Bool(bool),
    /// Any integer kind and `index`.
    Int(i128),
    /// `f32` (widened) or `f64`.
    Float(f64),
}

/// The range of an integer kind, as `i128` ([`TyKind::int_range`]).
pub fn int_range(kind: TyKind) -> Option<(i128, i128)> {
    kind.int_range()
}

/// Reads an integer of any fixed-width kind (or `index`) as `i128`.
///
/// # Safety
/// `value` must point at an initialized value of `td`.
pub unsafe fn read_int(value: &impl ValuePtr, td: &TyDesc) -> Result<i128, Failure> {
    let p = value.value_ptr();
    Ok(match td.kind {
        TyKind::U8 => p.read() as i128,
        TyKind::U16 => p.cast::<u16>().read_unaligned() as i128,
        TyKind::U32 => p.cast::<u32>().read_unaligned() as i128,
        TyKind::U64 | TyKind::Index => p.cast::<u64>().read_unaligned() as i128,
        TyKind::I8 => p.cast::<i8>().read() as i128,
        TyKind::I16 => p.cast::<i16>().read_unaligned() as i128,
        TyKind::I32 => p.cast::<i32>().read_unaligned() as i128,
        TyKind::I64 => p.cast::<i64>().read_unaligned() as i128,
        other => {
            return Err(Failure::type_mismatch(format!(
                "expected an integer value, got {}",
                other.name()
            )))
        }
    })
}

/// Writes `v` as an integer of `td`'s kind; refused (`STATUS_FAILED`, `<v> does not fit
/// in <kind>`) when out of range, and nothing is written.
///
/// # Safety
/// `out` must have room for a value of `td`.
pub unsafe fn write_int(out: &impl ValuePtr, td: &TyDesc, v: i128) -> Result<(), Failure> {
    let Some((lo, hi)) = int_range(td.kind) else {
        return Err(Failure::type_mismatch(format!(
            "expected an integer value, got {}",
            td.kind.name()
        )));
    };
    if v < lo || v > hi {
        return Err(Failure::failed(format!(
            "{v} does not fit in {}",
            td.kind.name()
        )));
    }
    let p = out.value_ptr();
    match td.kind {
        TyKind::U8 => p.write(v as u8),
        TyKind::U16 => p.cast::<u16>().write_unaligned(v as u16),
        TyKind::U32 => p.cast::<u32>().write_unaligned(v as u32),
        TyKind::U64 | TyKind::Index => p.cast::<u64>().write_unaligned(v as u64),
        TyKind::I8 => p.cast::<i8>().write(v as i8),
        TyKind::I16 => p.cast::<i16>().write_unaligned(v as i16),
        TyKind::I32 => p.cast::<i32>().write_unaligned(v as i32),
        TyKind::I64 => p.cast::<i64>().write_unaligned(v as i64),
        _ => unreachable!("int_range covers the integer kinds"),
    }
    Ok(())
}

/// Reads an `f32` (widened exactly) or `f64`.
///
/// # Safety
/// `value` must point at an initialized value of `td`.
pub unsafe fn read_float(value: &impl ValuePtr, td: &TyDesc) -> Result<f64, Failure> {
    let p = value.value_ptr();
    match td.kind {
        TyKind::F32 => Ok(p.cast::<f32>().read_unaligned() as f64),
        TyKind::F64 => Ok(p.cast::<f64>().read_unaligned()),
        other => Err(Failure::type_mismatch(format!(
            "expected a float value, got {}",
            other.name()
        ))),
    }
}

/// Writes `v` as `td`'s float kind. Narrowing to `f32` rounds to nearest; a finite `v`
/// beyond `f32`'s range is refused (`<v> does not fit in f32`) rather than becoming
/// infinite. Infinities and NaN pass as themselves.
///
/// # Safety
/// `out` must have room for a value of `td`.
pub unsafe fn write_float(out: &impl ValuePtr, td: &TyDesc, v: f64) -> Result<(), Failure> {
    let p = out.value_ptr();
    match td.kind {
        TyKind::F32 => {
            let narrow = v as f32;
            if v.is_finite() && !narrow.is_finite() {
                return Err(Failure::failed(format!("{v:?} does not fit in f32")));
            }
            p.cast::<f32>().write_unaligned(narrow);
            Ok(())
        }
        TyKind::F64 => {
            p.cast::<f64>().write_unaligned(v);
            Ok(())
        }
        other => Err(Failure::type_mismatch(format!(
            "expected a float value, got {}",
            other.name()
        ))),
    }
}

/// Reads a `bool`.
///
/// # Safety
/// `value` must point at an initialized value of `td`.
pub unsafe fn read_bool(value: &impl ValuePtr, td: &TyDesc) -> Result<bool, Failure> {
    expect_kind(td, TyKind::Bool)?;
    Ok(value.value_ptr().read() != 0)
}

/// Writes a `bool` (as 0 or 1).
///
/// # Safety
/// `out` must have room for a value of `td`.
pub unsafe fn write_bool(out: &impl ValuePtr, td: &TyDesc, v: bool) -> Result<(), Failure> {
    expect_kind(td, TyKind::Bool)?;
    out.value_ptr().write(v as u8);
    Ok(())
}

/// Reads any scalar.
///
/// # Safety
/// `value` must point at an initialized value of `td`.
pub unsafe fn read_scalar(value: &impl ValuePtr, td: &TyDesc) -> Result<Scalar, Failure> {
    match td.kind {
        TyKind::Unit => Ok(Scalar::Unit),
        TyKind::Bool => read_bool(value, td).map(Scalar::Bool),
        TyKind::F32 | TyKind::F64 => read_float(value, td).map(Scalar::Float),
        k if k.is_integer() => read_int(value, td).map(Scalar::Int),
        other => Err(Failure::type_mismatch(format!(
            "expected a scalar value, got {}",
            other.name()
        ))),
    }
}

/// Writes any scalar into a slot of `td`'s kind. An `Int` may go to an integer or
/// float slot (converted), a `Float` only to a float slot, a `Bool` to a bool, `Unit`
/// to unit.
///
/// # Safety
/// `out` must have room for a value of `td`.
pub unsafe fn write_scalar(out: &impl ValuePtr, td: &TyDesc, v: Scalar) -> Result<(), Failure> {
    match (v, td.kind) {
        (Scalar::Unit, TyKind::Unit) => Ok(()),
        (Scalar::Bool(b), _) => write_bool(out, td, b),
        (Scalar::Int(i), TyKind::F32 | TyKind::F64) => write_float(out, td, i as f64),
        (Scalar::Int(i), _) => write_int(out, td, i),
        (Scalar::Float(f), _) => write_float(out, td, f),
        (Scalar::Unit, other) => Err(Failure::type_mismatch(format!(
            "expected a unit slot, got {}",
            other.name()
        ))),
    }
}

/// Writes the empty value of `td` (0, false, "", [], none, ...) at `out`. Allocates
/// nothing, so needs no dropping if never filled.
///
/// # Safety
/// `rt` must be live; `out` must have room for a value of `td`.
pub unsafe fn init_value(rt: RtHandle, out: &impl ValuePtr, td: &TyDesc) {
    (call::table(rt).init)(out.value_ptr().cast(), td)
}

/// Lends what a data holds: a pointer at the value and its descriptor. A packed scalar
/// is unpacked into `scratch`, which must outlive the pointer's use.
///
/// # Safety
/// `rt` must be live; `data` a data of that runtime.
pub unsafe fn data_borrow<'a>(
    rt: RtHandle,
    data: &'a Data,
    scratch: &'a mut u64,
) -> (*const c_void, &'a TyDesc) {
    let mut ptr: *const c_void = std::ptr::null();
    let mut td: *const TyDesc = std::ptr::null();
    (call::table(rt).data_borrow)(data, scratch, &mut ptr, &mut td);
    (ptr, &*td)
}

/// Deep copy of the `td` value at `src` into `dst`.
///
/// # Safety
/// `rt` must be live; `src` initialized; `dst` room for a `td` value.
pub unsafe fn clone_value(
    rt: RtHandle,
    src: &impl ValuePtr,
    td: &TyDesc,
    dst: &impl ValuePtr,
) -> Result<(), Failure> {
    check(
        rt,
        call::dtlv_rti_clone(rt, src.value_ptr().cast(), td, dst.value_ptr().cast()),
    )
}

/// Frees what the `td` value at `value` owns (an `in` argument a native does not keep,
/// say). The bytes are uninitialized afterwards.
///
/// # Safety
/// `rt` must be live; `value` initialized and not used again.
pub unsafe fn drop_value(rt: RtHandle, value: &impl ValuePtr, td: &TyDesc) {
    call::dtlv_rti_drop(rt, value.value_ptr().cast(), td)
}

/// Structural equality of two `td` values.
///
/// # Safety
/// `rt` must be live; both initialized.
pub unsafe fn values_eq(rt: RtHandle, a: &impl ValuePtr, b: &impl ValuePtr, td: &TyDesc) -> bool {
    call::dtlv_rti_eq(rt, a.value_ptr().cast(), b.value_ptr().cast(), td)
}

/// The runtime's order of two `td` values.
///
/// # Safety
/// `rt` must be live; both initialized.
pub unsafe fn compare_values(
    rt: RtHandle,
    a: &impl ValuePtr,
    b: &impl ValuePtr,
    td: &TyDesc,
) -> Ordering {
    call::dtlv_rti_cmp(rt, a.value_ptr().cast(), b.value_ptr().cast(), td)
}

/// The text `debuglog` would print for the value, as a Rust string.
///
/// # Safety
/// `rt` must be live; `value` initialized.
pub unsafe fn format_value(
    rt: RtHandle,
    value: &impl ValuePtr,
    td: &TyDesc,
) -> Result<std::string::String, Failure> {
    let mut out = MaybeUninit::uninit();
    check(
        rt,
        call::dtlv_rti_format(rt, value.value_ptr().cast(), td, &mut out),
    )?;
    let s = out.assume_init();
    let text = s.as_str().to_owned();
    drop_string(rt, s);
    Ok(text)
}

/// Prints the value as `debuglog` does.
///
/// # Safety
/// `rt` must be live; `value` initialized.
pub unsafe fn debuglog(rt: RtHandle, value: &impl ValuePtr, td: &TyDesc) {
    call::dtlv_rti_debuglog(rt, value.value_ptr().cast(), td)
}
