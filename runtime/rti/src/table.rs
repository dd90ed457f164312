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
use crate::rtdt::{BigInt, Data, List, Map, String};
use crate::status::RtStatus;
use crate::tydesc::TyDesc;

/// The ABI this crate describes. A rider built for another is refused at load.
pub const ABI_VERSION: u32 = 1;

/// The table version: which entries exist. It rises each time entries are appended
/// (`struct_size` grows with it) while `abi_version` stays: a rider built against an
/// earlier table version checks only that the table is at least as long as it knew, so
/// it still loads and runs. Version 1 ends at `error_at`; version 2 adds the map entries and `bigint_from_limbs`;
/// version 3 adds `tydesc_enum`; version 4 adds `string_part`; version 5 adds
/// `string_split`; version 6 adds the std rider's map natives (`std_map_len` ..
/// `std_map_contains`); version 7 adds `string_parts`.
pub const TABLE_VERSION: u32 = 7;

/// `struct_size` of each table version, oldest first (`TABLE_SIZES[v - 1]`).
pub const TABLE_SIZES: [usize; TABLE_VERSION as usize] = [
    std::mem::offset_of!(RtiTable, error_at) + std::mem::size_of::<usize>(),
    std::mem::offset_of!(RtiTable, bigint_from_limbs) + std::mem::size_of::<usize>(),
    std::mem::offset_of!(RtiTable, tydesc_enum) + std::mem::size_of::<usize>(),
    std::mem::offset_of!(RtiTable, string_part) + std::mem::size_of::<usize>(),
    std::mem::offset_of!(RtiTable, string_split) + std::mem::size_of::<usize>(),
    std::mem::offset_of!(RtiTable, std_map_contains) + std::mem::size_of::<usize>(),
    std::mem::size_of::<RtiTable>(),
];

/// The table version a table of `struct_size` bytes provides (0 when it is shorter than
/// version 1's).
pub fn table_version_of(struct_size: usize) -> u32 {
    TABLE_SIZES
        .iter()
        .take_while(|size| **size <= struct_size)
        .count() as u32
}

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

/// The word classes a runtime entry's parameters and result are made of, as compiled
/// code passes them: a pointer-sized word (pointers, `usize`), a byte (`u8`, the status),
/// a 32-bit or a 64-bit integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Word {
    Pointer,
    Byte,
    Int32,
    Int64,
}

/// The [`Word`] a Rust parameter or result type of an entry is passed as.
pub trait AbiWord {
    const WORD: Word;
}

impl<T: ?Sized> AbiWord for *const T {
    const WORD: Word = Word::Pointer;
}
impl<T: ?Sized> AbiWord for *mut T {
    const WORD: Word = Word::Pointer;
}
impl AbiWord for usize {
    const WORD: Word = Word::Pointer;
}
impl AbiWord for u8 {
    const WORD: Word = Word::Byte;
}
impl AbiWord for u32 {
    const WORD: Word = Word::Int32;
}
impl AbiWord for i32 {
    const WORD: Word = Word::Int32;
}
impl AbiWord for u64 {
    const WORD: Word = Word::Int64;
}

/// Declares every runtime entry ONCE and derives from that one list the `RtiTable`
/// struct and [`Entry`], which tells each backend an entry's name, offset and shape.
/// Adding an entry is one line here (appended: see the module doc) plus its
/// implementation in `datalove_rt::table::TABLE`; the C header is checked against this
/// list by `runtime/rt/tests/c_header.rs`.
macro_rules! rti_table {
    ($( $(#[$doc:meta])* $variant:ident $name:ident ( $($arg:ident : $aty:ty),* ) $(-> $ret:ty)? ; )*) => {
        #[repr(C)]
        pub struct RtiTable {
            pub abi_version: u32,
            pub struct_size: usize,
            $( $(#[$doc])* pub $name: unsafe extern "C" fn($($arg: $aty),*) $(-> $ret)?, )*
        }

        /// One runtime entry: what compiled code needs to call it through the table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Entry {
            $($variant,)*
        }

        impl Entry {
            /// Every entry, in table order.
            pub const ALL: &'static [Entry] = &[$(Entry::$variant,)*];

            /// The entry's field name in `RtiTable` (and, after `dtlv_rti_`, its C
            /// wrapper's).
            pub fn name(self) -> &'static str {
                match self {
                    $(Entry::$variant => stringify!($name),)*
                }
            }

            /// The entry's byte offset in the table.
            pub fn offset(self) -> usize {
                match self {
                    $(Entry::$variant => std::mem::offset_of!(RtiTable, $name),)*
                }
            }

            /// Its parameters: name and word class.
            pub fn params(self) -> &'static [(&'static str, Word)] {
                match self {
                    $(Entry::$variant => &[$((stringify!($arg), <$aty as AbiWord>::WORD),)*],)*
                }
            }

            /// Its result's word class, if it returns one.
            pub fn result(self) -> Option<Word> {
                match self {
                    $(Entry::$variant => rti_table!(@result $($ret)?),)*
                }
            }
        }
    };
    (@result) => { None };
    (@result $ret:ty) => { Some(<$ret as AbiWord>::WORD) };
}

impl Entry {
    /// Whether the entry takes the runtime handle first (entries that need no runtime
    /// state do not, and C reaches them through the table directly).
    pub fn takes_rt(self) -> bool {
        self.params().first().is_some_and(|(name, _)| *name == "rt")
    }
}

rti_table! {
    // ---- entry points that need no runtime state (no `rt`) ----
    /// Writes the empty value of `td` at `out`: 0, false, "", [], none, a tuple of empty
    /// fields, a data holding unit. Allocates nothing.
    Init init(out: *mut c_void, td: Td);
    /// Lends the value a data holds: `*out_ptr` at it and `*out_td` its descriptor. A
    /// packed scalar is unpacked into the caller's 8 bytes at `scratch`, and the
    /// descriptor is the runtime's constant for its kind.
    DataBorrow data_borrow(data: *const Data, scratch: *mut u64, out_ptr: *mut *const c_void, out_td: *mut Td);
    FieldOffset field_offset(tuple_td: Td, field: usize) -> usize;
    FieldTydesc field_tydesc(tuple_td: Td, field: usize) -> Td;
    PayloadOffset payload_offset(option_td: Td) -> usize;
    PayloadTydesc payload_tydesc(option_td: Td) -> Td;

    // ---- strings ----
    /// Makes a string of `len` bytes. Refuses bytes that are not UTF-8
    /// (`STATUS_INVALID_UTF8`, message set). An interior NUL is kept.
    StringFromBytes string_from_bytes(rt: Rt, bytes: *const u8, len: usize, out: *mut String) -> RtStatus;
    StringLen string_len(rt: Rt, s: *const String) -> usize;
    /// The string's bytes (valid until the string is changed or dropped); `*out_len` gets
    /// the length. Never null, even for the empty string.
    StringBytes string_bytes(rt: Rt, s: *const String, out_len: *mut usize) -> *const u8;
    /// Appends bytes, refusing non-UTF-8 (the string is then unchanged).
    StringPush string_push(rt: Rt, s: *mut String, bytes: *const u8, len: usize) -> RtStatus;
    StringConcat string_concat(rt: Rt, a: *const String, b: *const String, out: *mut String) -> RtStatus;
    /// Bytes `start..end`; `STATUS_OUT_OF_BOUNDS` past the end, for `start > end` or off
    /// a character boundary (message set: `slice 2..9 out of bounds for string of length
    /// 3`, `slice 0..1: byte 1 is not on a character boundary`).
    StringSlice string_slice(rt: Rt, s: *const String, start: usize, end: usize, out: *mut String) -> RtStatus;
    /// 1 if equal, 0 if not.
    StringEq string_eq(rt: Rt, a: *const String, b: *const String) -> u8;
    /// -1, 0 or 1: byte order, which for UTF-8 is code point order.
    StringCmp string_cmp(rt: Rt, a: *const String, b: *const String) -> i32;

    // ---- lists ----
    ListNew list_new(rt: Rt, elem_td: Td, capacity: usize, out: *mut List) -> RtStatus;
    ListLen list_len(rt: Rt, list: *const List) -> usize;
    /// Moves `*value` onto the end.
    ListPush list_push(rt: Rt, list: *mut List, elem_td: Td, value: *mut c_void) -> RtStatus;
    /// Moves the last element to `out`; `STATUS_EMPTY` when there is none.
    ListPop list_pop(rt: Rt, list: *mut List, elem_td: Td, out: *mut c_void) -> RtStatus;
    /// Clones element `index` to `out`; `STATUS_OUT_OF_BOUNDS` past the end.
    ListGet list_get(rt: Rt, list: *const List, elem_td: Td, index: usize, out: *mut c_void) -> RtStatus;
    /// Lends element `index` in place (valid until the list is changed); null past the end.
    ListAt list_at(rt: Rt, list: *const List, elem_td: Td, index: usize) -> *mut c_void;
    /// Moves `*value` into element `index`, dropping the old one. Past the end the value
    /// is destroyed and `STATUS_OUT_OF_BOUNDS` returned.
    ListSet list_set(rt: Rt, list: *mut List, elem_td: Td, index: usize, value: *mut c_void) -> RtStatus;
    /// Moves `*value` in before element `index` (`index == len` appends). Past that the
    /// value is destroyed and `STATUS_OUT_OF_BOUNDS` returned.
    ListInsert list_insert(rt: Rt, list: *mut List, elem_td: Td, index: usize, value: *mut c_void) -> RtStatus;
    /// Moves element `index` out to `out`, closing the gap.
    ListRemove list_remove(rt: Rt, list: *mut List, elem_td: Td, index: usize, out: *mut c_void) -> RtStatus;

    // ---- data ----
    /// Moves `*value` (of type `td`) into a new data. `td` must outlive the data: every
    /// descriptor the compiler emits or the runtime hands out lives as long as the program.
    DataMake data_make(rt: Rt, value: *mut c_void, td: Td, out: *mut Data) -> RtStatus;
    /// The spelling of the held value's type.
    DataTypeName data_type_name(rt: Rt, data: *const Data, out: *mut String) -> RtStatus;
    /// The spelling of a descriptor's type.
    TypeName type_name(rt: Rt, td: Td, out: *mut String) -> RtStatus;

    // ---- any value, by descriptor ----
    /// Deep copy of `*src` into `dst`.
    Clone clone(rt: Rt, src: *const c_void, td: Td, dst: *mut c_void) -> RtStatus;
    /// Frees what `*value` owns; the bytes at `value` are then uninitialized.
    Drop drop(rt: Rt, value: *mut c_void, td: Td);
    /// 1 if equal, 0 if not.
    Eq eq(rt: Rt, a: *const c_void, b: *const c_void, td: Td) -> u8;
    /// -1, 0 or 1. Floats order by IEEE total order with NaN after everything.
    Cmp cmp(rt: Rt, a: *const c_void, b: *const c_void, td: Td) -> i32;
    /// The text `debuglog` prints for the value.
    Format format(rt: Rt, value: *const c_void, td: Td, out: *mut String) -> RtStatus;
    /// Prints the formatted value and a newline to the program's output.
    Debuglog debuglog(rt: Rt, value: *const c_void, td: Td);

    // ---- errors ----
    /// A failing native explains itself: the message the runtime error will carry.
    ErrorSet error_set(rt: Rt, message: *const u8, len: usize);
    /// The last message set (valid until the next `error_set`); `*out_len` gets its length.
    ErrorMessage error_message(rt: Rt, out_len: *mut usize) -> *const u8;
    /// Compiled code reports that native `rider.function` returned `status`: records the
    /// runtime error (with the message the native set) and sets `abandoning`.
    NativeFailed native_failed(rt: Rt, rider: *const u8, rider_len: usize, function: *const u8, function_len: usize, status: RtStatus);
    /// Records a runtime error of `kind` (an `ErrorKind`) with a detail and sets `abandoning`.
    /// An empty detail (`len == 0`, `detail` may be null) takes the runtime's standard
    /// detail for the kind (`expected some, found none` for `UnwrapNone`): compiled code names
    /// the error, the runtime words it.
    Raise raise(rt: Rt, kind: u32, detail: *const u8, len: usize);
    /// Records an arithmetic error: `kind` (overflow, division by zero, invalid cast),
    /// `op` (an `ArithOp`), `ty` (the `TyKind` computed in). Sets `abandoning`. For
    /// `ArithOp::Cast`, `ty` is `to | from << 8` (target kind in the low byte, source
    /// kind in the next; a source of 0 means not given), so the detail can read
    /// `f64 to i32 conversion`.
    RaiseArith raise_arith(rt: Rt, kind: u32, op: u32, ty: u32);
    /// Records `index out of bounds` for `index` in a list of `len`. Sets `abandoning`.
    RaiseBounds raise_bounds(rt: Rt, index: u64, len: u64);
    /// Records `stack overflow`. Sets `abandoning`.
    RaiseStackOverflow raise_stack_overflow(rt: Rt);

    // ---- shadow stack ----
    /// Reserves `size` bytes at `align` on the shadow stack; null (and `shadow stack
    /// exhausted` raised) when it is full.
    ShadowPush shadow_push(rt: Rt, size: usize, align: usize) -> *mut u8;
    /// Releases everything reserved since `mark` (a former `shadow_top`).
    ShadowPop shadow_pop(rt: Rt, mark: *mut u8);

    // ---- descriptors made at run time (interned; live until the runtime is destroyed) ----
    TydescList tydesc_list(rt: Rt, elem: Td) -> Td;
    TydescOption tydesc_option(rt: Rt, payload: Td) -> Td;
    TydescTuple tydesc_tuple(rt: Rt, fields: *const Td, count: usize) -> Td;

    // ---- memory ----
    /// Counted allocation for riders that need a buffer of their own.
    Alloc alloc(rt: Rt, size: usize, align: usize) -> *mut u8;
    Free free(rt: Rt, ptr: *mut u8, size: usize, align: usize);
    AllocStats alloc_stats(rt: Rt, out: *mut AllocStats);

    // ---- the program ----
    /// The program's arguments as a new `[string]` at `out`: what follows `--` on
    /// `datalove run FILE -- ARGS`, an executable's command line after its name, or what
    /// a host put in `RuntimeOptions::args`. Never fails.
    ProgramArgs program_args(rt: Rt, out: *mut List) -> RtStatus;
    /// A new list of `len` elements of `elem_td` at `out`, each a clone of `*value`,
    /// which is moved in (the runtime's whatever the status; `len` 0 destroys it). A list
    /// too large for the address space is refused (`STATUS_FAILED`, message set, `out`
    /// unwritten).
    ListFilled list_filled(rt: Rt, elem_td: Td, len: usize, value: *mut c_void, out: *mut List) -> RtStatus;
    /// Compiled code and the interpreter report where the error being abandoned for
    /// passed: `site[..len]` is a location `FILE:LINE:COL` (`datalove_rti::site`). Called
    /// on an instruction's failure path only, before its abandon block: the first site
    /// after an error is raised is the failing instruction's location, each later one a
    /// call the error propagated through (kept as the chain of calls). Ignored when no
    /// error is recorded.
    ErrorAt error_at(rt: Rt, site: *const u8, len: usize);

    // ---- maps (table version 2) ----
    /// The descriptor of `map[key, value]` (its `elem` the entry tuple `(key, value)`).
    TydescMap tydesc_map(rt: Rt, key: Td, value: Td) -> Td;
    /// The number of entries.
    MapLen map_len(rt: Rt, map: *const Map) -> usize;
    /// Moves `*key` and `*value` in. A key already present keeps its entry: the old value
    /// is dropped and replaced, the new key dropped. A refused move destroys both.
    MapInsert map_insert(rt: Rt, map: *mut Map, map_td: Td, key: *mut c_void, value: *mut c_void) -> RtStatus;
    /// Lends the value at `*key` in place (valid until the map is changed); null when the
    /// key is not there.
    MapFind map_find(rt: Rt, map: *const Map, map_td: Td, key: *const c_void) -> *mut c_void;
    /// Moves the value at `*key` out to `out` and drops the entry's key;
    /// `STATUS_NOT_FOUND` (nothing written) when the key is not there.
    MapRemove map_remove(rt: Rt, map: *mut Map, map_td: Td, key: *const c_void, out: *mut c_void) -> RtStatus;
    /// Lends entry `index` in key order (an entry tuple: key, then value at the map
    /// descriptor's second field offset); null past the end.
    MapEntryAt map_entry_at(rt: Rt, map: *const Map, map_td: Td, index: usize) -> *mut c_void;
    // ---- bigints (issue 16) ----
    BigintFromLimbs bigint_from_limbs(rt: Rt, negative: u8, limbs: *const u64, len: usize, out: *mut BigInt) -> RtStatus;
    // ---- enums (table version 3) ----
    /// The descriptor of an enum whose variants' payloads (tuple descriptors, in
    /// declaration order) are `payloads[..count]` and whose `names` are
    /// `names[..names_len]` (the enum's name, then each variant's, each followed by a
    /// NUL byte): what generic code builds for an enum whose payloads mention a type
    /// parameter. Interned: the names are copied.
    TydescEnum tydesc_enum(rt: Rt, names: *const u8, names_len: usize, payloads: *const Td, count: usize) -> Td;
    // ---- strings, for compiled code (table version 4) ----
    /// Bytes `start..end` of `*s` into `out` (the IR's `str_slice`): with `view` 0 a
    /// string of their own; with `view` 1 a head over `s`'s own bytes that owns nothing
    /// (`cap` 0), valid while `s` is unchanged. Past the end, for `start > end` or off a
    /// character boundary the error is raised (`index out of bounds`, the detail as
    /// `string_slice`'s message), `out` is unwritten and the status
    /// `STATUS_OUT_OF_BOUNDS`.
    StringPart string_part(rt: Rt, s: *const String, start: usize, end: usize, view: u8, out: *mut String) -> RtStatus;
    // ---- strings (table version 5) ----
    /// The pieces of `*s` as a new `[string]` at `out`: between the matches of `*sep`,
    /// or, when `sep` is null, the non-empty pieces between runs of Unicode whitespace.
    /// The list is made at its length and each piece copied once (no check: a piece of
    /// UTF-8 cut at a match of UTF-8, or at whitespace, is UTF-8). An empty `*sep` is
    /// refused: `STATUS_EMPTY` (message `the separator is empty`), `out` unwritten.
    StringSplit string_split(rt: Rt, s: *const String, sep: *const String, out: *mut List) -> RtStatus;
    // ---- the std rider's map natives (table version 6) ----
    /// The `std` natives `map_len`, `map_insert`, `map_get`, `map_at`, `map_remove` and
    /// `map_contains` as the runtime does them, each with its native signature
    /// (`docs/abi.md` §3: the value, then its descriptor, for each parameter; then the
    /// result slot and its descriptor): the rider's exports are these entries, and a
    /// program's calls are linked to them directly (`docs/abi.md`, "Natives the runtime
    /// provides"). Failures, messages and moves are the rider's.
    StdMapLen std_map_len(rt: Rt, m: *const Map, m_td: Td, out: *mut u64, out_td: Td) -> RtStatus;
    StdMapInsert std_map_insert(rt: Rt, m: *mut Map, m_td: Td, key: *mut c_void, key_td: Td, value: *mut c_void, value_td: Td, out: *mut c_void, out_td: Td) -> RtStatus;
    StdMapGet std_map_get(rt: Rt, m: *const Map, m_td: Td, key: *const c_void, key_td: Td, out: *mut c_void, out_td: Td) -> RtStatus;
    StdMapAt std_map_at(rt: Rt, m: *const Map, m_td: Td, key: *const c_void, key_td: Td, out: *mut c_void, out_td: Td) -> RtStatus;
    StdMapRemove std_map_remove(rt: Rt, m: *mut Map, m_td: Td, key: *const c_void, key_td: Td, out: *mut c_void, out_td: Td) -> RtStatus;
    StdMapContains std_map_contains(rt: Rt, m: *const Map, m_td: Td, key: *const c_void, key_td: Td, out: *mut u8, out_td: Td) -> RtStatus;
    // ---- strings for compiled code (table version 7) ----
    /// The pieces of `*s` as `string_split` cuts them, as a new `[string]` at `out` whose
    /// elements own nothing: each a head over `*s`'s bytes (`cap` 0; an empty piece is
    /// the empty string), valid while `*s` is neither changed nor dropped (the IR's
    /// `str_parts`, which the verifier holds to that). An empty `*sep` gives one piece,
    /// the whole of `*s`. Never fails.
    StringParts string_parts(rt: Rt, s: *const String, sep: *const String, out: *mut List);
}
