//! `RtiTable`: every runtime entry point, reached through the table `rt` points at.
//!
//! A rider links nothing from the runtime and the host exports nothing, so this table
//! is the only way in. It starts with `abi_version` and `struct_size`; a rider checks
//! both before it uses an entry (see [`crate::call::table`]). New entries are only ever
//! appended, and appending one raises `struct_size`, not `abi_version`; changing or
//! removing one raises `abi_version`.
//!
//! Conventions: `rt` is the runtime handle; `td`, `*_td` are descriptors; a `*mut
//! c_void` named `value` handed to an entry that moves it in is the runtime's afterwards
//! whatever the status (a refused move destroys it); `out` is written only on
//! `STATUS_OK`. The contract of every entry is tabled in `docs/abi.md`.

use std::ffi::c_void;

use crate::header::RtHeader;
use crate::rtdt::{Data, List, String};
use crate::status::RtStatus;
use crate::tydesc::TyDesc;

/// The ABI this crate describes. A rider built for another is refused at load.
pub const ABI_VERSION: u32 = 1;

pub type Rt = *mut RtHeader;
pub type Td = *const TyDesc;

/// Allocation counts, as `dtlv_rti_alloc_stats` reports them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Allocations made and not yet freed.
    pub live: usize,
    /// Allocations made since the runtime was created.
    pub total: usize,
    /// Bytes in live allocations.
    pub live_bytes: usize,
}

#[repr(C)]
pub struct RtiTable {
    pub abi_version: u32,
    pub struct_size: usize,

    // ---- entry points that need no runtime state (no `rt`) ----
    /// Writes the empty value of `td` at `out`: 0, false, "", [], none, a tuple of empty
    /// fields, a data holding unit. Allocates nothing.
    pub init: unsafe extern "C" fn(out: *mut c_void, td: Td),
    /// Lends the value a data holds: `*out_ptr` at it and `*out_td` its descriptor. A
    /// packed scalar is unpacked into the caller's 8 bytes at `scratch`, and the
    /// descriptor is the runtime's constant for its kind.
    pub data_borrow: unsafe extern "C" fn(
        data: *const Data,
        scratch: *mut u64,
        out_ptr: *mut *const c_void,
        out_td: *mut Td,
    ),
    pub field_offset: unsafe extern "C" fn(tuple_td: Td, field: usize) -> usize,
    pub field_tydesc: unsafe extern "C" fn(tuple_td: Td, field: usize) -> Td,
    pub payload_offset: unsafe extern "C" fn(option_td: Td) -> usize,
    pub payload_tydesc: unsafe extern "C" fn(option_td: Td) -> Td,

    // ---- strings ----
    /// Makes a string of `len` bytes. Refuses bytes that are not UTF-8
    /// (`STATUS_INVALID_UTF8`, message set). An interior NUL is kept.
    pub string_from_bytes:
        unsafe extern "C" fn(rt: Rt, bytes: *const u8, len: usize, out: *mut String) -> RtStatus,
    pub string_len: unsafe extern "C" fn(rt: Rt, s: *const String) -> usize,
    /// The string's bytes (valid until the string is changed or dropped); `*out_len` gets
    /// the length. Never null, even for the empty string.
    pub string_bytes:
        unsafe extern "C" fn(rt: Rt, s: *const String, out_len: *mut usize) -> *const u8,
    /// Appends bytes, refusing non-UTF-8 (the string is then unchanged).
    pub string_push:
        unsafe extern "C" fn(rt: Rt, s: *mut String, bytes: *const u8, len: usize) -> RtStatus,
    pub string_concat: unsafe extern "C" fn(
        rt: Rt,
        a: *const String,
        b: *const String,
        out: *mut String,
    ) -> RtStatus,
    /// Bytes `start..end`; `STATUS_OUT_OF_BOUNDS` past the end, or off a character boundary.
    pub string_slice: unsafe extern "C" fn(
        rt: Rt,
        s: *const String,
        start: usize,
        end: usize,
        out: *mut String,
    ) -> RtStatus,
    /// 1 if equal, 0 if not.
    pub string_eq: unsafe extern "C" fn(rt: Rt, a: *const String, b: *const String) -> u8,
    /// -1, 0 or 1: byte order, which for UTF-8 is code point order.
    pub string_cmp: unsafe extern "C" fn(rt: Rt, a: *const String, b: *const String) -> i32,

    // ---- lists ----
    pub list_new:
        unsafe extern "C" fn(rt: Rt, elem_td: Td, capacity: usize, out: *mut List) -> RtStatus,
    pub list_len: unsafe extern "C" fn(rt: Rt, list: *const List) -> usize,
    /// Moves `*value` onto the end.
    pub list_push:
        unsafe extern "C" fn(rt: Rt, list: *mut List, elem_td: Td, value: *mut c_void) -> RtStatus,
    /// Moves the last element to `out`; `STATUS_EMPTY` when there is none.
    pub list_pop:
        unsafe extern "C" fn(rt: Rt, list: *mut List, elem_td: Td, out: *mut c_void) -> RtStatus,
    /// Clones element `index` to `out`; `STATUS_OUT_OF_BOUNDS` past the end.
    pub list_get: unsafe extern "C" fn(
        rt: Rt,
        list: *const List,
        elem_td: Td,
        index: usize,
        out: *mut c_void,
    ) -> RtStatus,
    /// Lends element `index` in place (valid until the list is changed); null past the end.
    pub list_at:
        unsafe extern "C" fn(rt: Rt, list: *const List, elem_td: Td, index: usize) -> *mut c_void,
    /// Moves `*value` into element `index`, dropping the old one. Past the end the value
    /// is destroyed and `STATUS_OUT_OF_BOUNDS` returned.
    pub list_set: unsafe extern "C" fn(
        rt: Rt,
        list: *mut List,
        elem_td: Td,
        index: usize,
        value: *mut c_void,
    ) -> RtStatus,
    /// Moves `*value` in before element `index` (`index == len` appends). Past that the
    /// value is destroyed and `STATUS_OUT_OF_BOUNDS` returned.
    pub list_insert: unsafe extern "C" fn(
        rt: Rt,
        list: *mut List,
        elem_td: Td,
        index: usize,
        value: *mut c_void,
    ) -> RtStatus,
    /// Moves element `index` out to `out`, closing the gap.
    pub list_remove: unsafe extern "C" fn(
        rt: Rt,
        list: *mut List,
        elem_td: Td,
        index: usize,
        out: *mut c_void,
    ) -> RtStatus,

    // ---- data ----
    /// Moves `*value` (of type `td`) into a new data. `td` must outlive the data: every
    /// descriptor the compiler emits or the runtime hands out lives as long as the program.
    pub data_make:
        unsafe extern "C" fn(rt: Rt, value: *mut c_void, td: Td, out: *mut Data) -> RtStatus,
    /// The spelling of the held value's type.
    pub data_type_name:
        unsafe extern "C" fn(rt: Rt, data: *const Data, out: *mut String) -> RtStatus,
    /// The spelling of a descriptor's type.
    pub type_name: unsafe extern "C" fn(rt: Rt, td: Td, out: *mut String) -> RtStatus,

    // ---- any value, by descriptor ----
    /// Deep copy of `*src` into `dst`.
    pub clone:
        unsafe extern "C" fn(rt: Rt, src: *const c_void, td: Td, dst: *mut c_void) -> RtStatus,
    /// Frees what `*value` owns; the bytes at `value` are then uninitialized.
    pub drop: unsafe extern "C" fn(rt: Rt, value: *mut c_void, td: Td),
    /// 1 if equal, 0 if not.
    pub eq: unsafe extern "C" fn(rt: Rt, a: *const c_void, b: *const c_void, td: Td) -> u8,
    /// -1, 0 or 1. Floats order by IEEE total order with NaN after everything.
    pub cmp: unsafe extern "C" fn(rt: Rt, a: *const c_void, b: *const c_void, td: Td) -> i32,
    /// The text `debuglog` prints for the value.
    pub format:
        unsafe extern "C" fn(rt: Rt, value: *const c_void, td: Td, out: *mut String) -> RtStatus,
    /// Prints the formatted value and a newline to the program's output.
    pub debuglog: unsafe extern "C" fn(rt: Rt, value: *const c_void, td: Td),

    // ---- errors ----
    /// A failing native explains itself: the message the runtime error will carry.
    pub error_set: unsafe extern "C" fn(rt: Rt, message: *const u8, len: usize),
    /// The last message set (valid until the next `error_set`); `*out_len` gets its length.
    pub error_message: unsafe extern "C" fn(rt: Rt, out_len: *mut usize) -> *const u8,
    /// Compiled code reports that native `rider.function` returned `status`: records the
    /// runtime error (with the message the native set) and sets `abandoning`.
    pub native_failed: unsafe extern "C" fn(
        rt: Rt,
        rider: *const u8,
        rider_len: usize,
        function: *const u8,
        function_len: usize,
        status: RtStatus,
    ),
    /// Records a runtime error of `kind` (an `ErrorKind`) with a detail and sets `abandoning`.
    /// An empty detail (`len == 0`, `detail` may be null) takes the runtime's standard
    /// detail for the kind (`expected some, found none` for `UnwrapNone`): compiled code names
    /// the error, the runtime words it.
    pub raise: unsafe extern "C" fn(rt: Rt, kind: u32, detail: *const u8, len: usize),
    /// Records an arithmetic error: `kind` (overflow, division by zero, invalid cast),
    /// `op` (an `ArithOp`), `ty` (the `TyKind` computed in). Sets `abandoning`. For
    /// `ArithOp::Cast`, `ty` is `to | from << 8` (target kind in the low byte, source
    /// kind in the next; a source of 0 means not given), so the detail can read
    /// `f64 to i32 conversion`.
    pub raise_arith: unsafe extern "C" fn(rt: Rt, kind: u32, op: u32, ty: u32),
    /// Records `index out of bounds` for `index` in a list of `len`. Sets `abandoning`.
    pub raise_bounds: unsafe extern "C" fn(rt: Rt, index: u64, len: u64),
    /// Records `stack overflow`. Sets `abandoning`.
    pub raise_stack_overflow: unsafe extern "C" fn(rt: Rt),

    // ---- shadow stack ----
    /// Reserves `size` bytes at `align` on the shadow stack; null (and `shadow stack
    /// exhausted` raised) when it is full.
    pub shadow_push: unsafe extern "C" fn(rt: Rt, size: usize, align: usize) -> *mut u8,
    /// Releases everything reserved since `mark` (a former `shadow_top`).
    pub shadow_pop: unsafe extern "C" fn(rt: Rt, mark: *mut u8),

    // ---- descriptors made at run time (interned; live until the runtime is destroyed) ----
    pub tydesc_list: unsafe extern "C" fn(rt: Rt, elem: Td) -> Td,
    pub tydesc_option: unsafe extern "C" fn(rt: Rt, payload: Td) -> Td,
    pub tydesc_tuple: unsafe extern "C" fn(rt: Rt, fields: *const Td, count: usize) -> Td,

    // ---- memory ----
    /// Counted allocation for riders that need a buffer of their own.
    pub alloc: unsafe extern "C" fn(rt: Rt, size: usize, align: usize) -> *mut u8,
    pub free: unsafe extern "C" fn(rt: Rt, ptr: *mut u8, size: usize, align: usize),
    pub alloc_stats: unsafe extern "C" fn(rt: Rt, out: *mut AllocStats),

    // ---- the program ----
    /// The program's arguments as a new `[string]` at `out`: what follows `--` on
    /// `datalove run FILE -- ARGS`, an executable's command line after its name, or what
    /// a host put in `RuntimeOptions::args`. Never fails.
    pub program_args: unsafe extern "C" fn(rt: Rt, out: *mut List) -> RtStatus,
    /// A new list of `len` elements of `elem_td` at `out`, each a clone of `*value`,
    /// which is moved in (the runtime's whatever the status; `len` 0 destroys it). A list
    /// too large for the address space is refused (`STATUS_FAILED`, message set, `out`
    /// unwritten).
    pub list_filled: unsafe extern "C" fn(
        rt: Rt,
        elem_td: Td,
        len: usize,
        value: *mut c_void,
        out: *mut List,
    ) -> RtStatus,
}
