//! Wrappers that reach the runtime's entry points through the table `rt` points at.
//!
//! A rider links nothing from the runtime, so it cannot call an entry point by name:
//! `call::dtlv_rti_string_len(rt, s)` reads the table off `rt` (checking its version,
//! see [`table`]) and calls through it, passing `rt` on as the first argument.
//!
//! There is one wrapper per table entry that takes `rt`, named `dtlv_rti_<entry>`, in
//! the table's order. The wrappers take Rust references where the argument has a Rust
//! type (`&rtdt::String`, `&mut rtdt::List`, `&TyDesc`, `&mut MaybeUninit<rtdt::String>`
//! for a result) and raw `*const c_void` / `*mut c_void` for a value at a descriptor
//! (pass `any.as_ptr().cast()` for an `rtdt::AnyRef`/`AnyMut`/`AnyOwned`/`AnyOut`).
//! Answers are Rust-shaped: `bool` for the `u8` of an equality, [`Ordering`] for the
//! `-1/0/1` of a comparison, a slice for the bytes of a string.
//!
//! Entry points that need no runtime state take no `rt` and have **no** wrapper here:
//! `init`, `data_borrow`, `field_offset`, `field_tydesc`, `payload_offset` and
//! `payload_tydesc`. Reach them through the table directly,
//! `(datalove_rti::call::table(rt).init)(out, td)`, or use the friendlier forms in
//! [`crate::rider_helpers`] (`init_value`, `data_borrow`).
//!
//! Every wrapper is `unsafe`: the caller promises that `rt` is a live runtime handle and
//! that every pointer is what the entry's contract (in [`RtiTable`] and `docs/abi.md`)
//! asks for.

use std::cmp::Ordering;
use std::ffi::c_void;
use std::mem::MaybeUninit;

use crate::header::RtHeader;
use crate::rtdt::{BigInt, Data, List, Map, RtHandle, String};
use crate::status::{ArithOp, ErrorKind, RtStatus};
use crate::table::{AllocStats, RtiTable, Td, ABI_VERSION};
use crate::tydesc::{TyDesc, TyKind};

/// The table behind `rt`, checked: its ABI version is this crate's and it is at least as
/// long as this crate's `RtiTable`. A table that fails either check is a runtime bug or a
/// rider loaded into the wrong host; both are refused loudly (a panic, which a rider's
/// [`crate::rider_helpers::guard`] turns into `STATUS_PANICKED`).
///
/// # Safety
/// `rt` must be a live runtime handle.
pub unsafe fn table<'a>(rt: RtHandle) -> &'a RtiTable {
    match try_table(rt) {
        Ok(table) => table,
        Err(message) => panic!("{message}"),
    }
}

/// [`table`] without the panic: the refusal's message instead.
///
/// # Safety
/// `rt` must be a live runtime handle.
pub unsafe fn try_table<'a>(rt: RtHandle) -> Result<&'a RtiTable, std::string::String> {
    let header: &RtHeader = &*rt.as_ptr();
    let table = &*header.table;
    if table.abi_version == ABI_VERSION && table.struct_size >= std::mem::size_of::<RtiTable>() {
        Ok(table)
    } else {
        Err(format!(
            "datalove runtime table has ABI {} (size {}); this rider was built for ABI {} (size {})",
            table.abi_version,
            table.struct_size,
            ABI_VERSION,
            std::mem::size_of::<RtiTable>()
        ))
    }
}

/// Declares wrappers that pass their arguments on to a table entry as they are (a
/// reference where the entry takes a pointer), each argument marked `=> as_mut_ptr` as
/// the `MaybeUninit`'s pointer, and answer what the entry answers.
macro_rules! forward {
    ($(
        $(#[$attr:meta])*
        fn $name:ident => $entry:ident($($arg:ident: $ty:ty $(=> $conv:ident)?),* $(,)?)
            $(-> $ret:ty)?;
    )*) => {$(
        $(#[$attr])*
        pub unsafe fn $name(rt: RtHandle, $($arg: $ty),*) $(-> $ret)? {
            (table(rt).$entry)(rt.as_ptr(), $($arg $(.$conv())?),*)
        }
    )*};
}

fn ordering(c: i32) -> Ordering {
    c.cmp(&0)
}

// ---- strings ----

/// Makes a string of `bytes`; `STATUS_INVALID_UTF8` (message set, `out` unwritten) when
/// they are not UTF-8. An interior NUL is kept.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_string_from_bytes(
    rt: RtHandle,
    bytes: &[u8],
    out: &mut MaybeUninit<String>,
) -> RtStatus {
    (table(rt).string_from_bytes)(rt.as_ptr(), bytes.as_ptr(), bytes.len(), out.as_mut_ptr())
}

forward! {
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_string_len => string_len(s: &String) -> usize;
}

/// The string's bytes, valid while `s` is neither changed nor dropped.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_string_bytes(rt: RtHandle, s: &String) -> &[u8] {
    let mut len = 0usize;
    let ptr = (table(rt).string_bytes)(rt.as_ptr(), s, &mut len);
    if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, len)
    }
}

/// Appends `bytes`; refuses non-UTF-8 (`STATUS_INVALID_UTF8`, `s` unchanged).
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_string_push(rt: RtHandle, s: &mut String, bytes: &[u8]) -> RtStatus {
    (table(rt).string_push)(rt.as_ptr(), s, bytes.as_ptr(), bytes.len())
}

forward! {
    /// `a` followed by `b`, into a new string at `out`.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_string_concat => string_concat(
        a: &String,
        b: &String,
        out: &mut MaybeUninit<String> => as_mut_ptr,
    ) -> RtStatus;

    /// Bytes `start..end` into a new string; `STATUS_OUT_OF_BOUNDS` past the end, for
    /// `start > end`, or off a character boundary.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_string_slice => string_slice(
        s: &String,
        start: usize,
        end: usize,
        out: &mut MaybeUninit<String> => as_mut_ptr,
    ) -> RtStatus;

    /// Bytes `start..end` as a new string (`view` 0) or a head over `s`'s bytes that
    /// owns nothing (`view` 1); a refused slice raises the error (table version 4).
    ///
    /// # Safety
    /// `rt` must be live; a view must not outlive a change of `s`.
    fn dtlv_rti_string_part => string_part(
        s: &String,
        start: usize,
        end: usize,
        view: u8,
        out: &mut MaybeUninit<String> => as_mut_ptr,
    ) -> RtStatus;
}

/// The pieces of `s` as a new `[string]` at `out` (table version 5): between the
/// matches of `sep`, or with `sep` `None` the non-empty pieces between runs of Unicode
/// whitespace. An empty `sep` is refused (`STATUS_EMPTY`, `out` unwritten).
///
/// # Safety
/// `rt` must be live; `out` room for a list.
pub unsafe fn dtlv_rti_string_split(
    rt: RtHandle,
    s: &String,
    sep: Option<&String>,
    out: &mut MaybeUninit<List>,
) -> RtStatus {
    let sep = sep.map_or(std::ptr::null(), |sep| sep as *const String);
    (table(rt).string_split)(rt.as_ptr(), s, sep, out.as_mut_ptr())
}

/// `string_parts` (table version 7): the pieces of `s` as [`dtlv_rti_string_split`]
/// cuts them (an empty `sep`: one piece, the whole of `s`), each a head over `s`'s bytes
/// that owns nothing.
///
/// # Safety
/// `rt` must be live; `out` room for a list; `s` neither changed nor dropped while the
/// list is read.
pub unsafe fn dtlv_rti_string_parts(
    rt: RtHandle,
    s: &String,
    sep: Option<&String>,
    out: &mut MaybeUninit<List>,
) {
    let sep = sep.map_or(std::ptr::null(), |sep| sep as *const String);
    (table(rt).string_parts)(rt.as_ptr(), s, sep, out.as_mut_ptr())
}

/// The runtime's `std` native `map_len` (table version 6; `datalove_rt::natives`).
///
/// # Safety
/// `rt` must be live; the native ABI's terms for the rest (each value of its
/// descriptor's type, `out` room for the result).
pub unsafe fn dtlv_rti_std_map_len(
    rt: RtHandle,
    m: *const Map,
    m_td: Td,
    out: *mut u64,
    out_td: Td,
) -> RtStatus {
    (table(rt).std_map_len)(rt.as_ptr(), m, m_td, out, out_td)
}

/// The runtime's `std` native `map_insert` (key and value moved in).
///
/// # Safety
/// As [`dtlv_rti_std_map_len`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn dtlv_rti_std_map_insert(
    rt: RtHandle,
    m: *mut Map,
    m_td: Td,
    key: *mut c_void,
    key_td: Td,
    value: *mut c_void,
    value_td: Td,
    out: *mut c_void,
    out_td: Td,
) -> RtStatus {
    (table(rt).std_map_insert)(
        rt.as_ptr(),
        m,
        m_td,
        key,
        key_td,
        value,
        value_td,
        out,
        out_td,
    )
}

/// The runtime's `std` natives that take a map and a `ref` key and write a result:
/// `map_get`, `map_at`, `map_remove` (its map changed) and `map_contains`, by their
/// table entry's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyedNative {
    Get,
    At,
    Remove,
    Contains,
}

/// Calls the runtime's keyed `std` native `which`.
///
/// # Safety
/// As [`dtlv_rti_std_map_len`]; `m` may be changed only for `Remove`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn dtlv_rti_std_map_keyed(
    rt: RtHandle,
    which: KeyedNative,
    m: *mut Map,
    m_td: Td,
    key: *const c_void,
    key_td: Td,
    out: *mut c_void,
    out_td: Td,
) -> RtStatus {
    let t = table(rt);
    let rt = rt.as_ptr();
    match which {
        KeyedNative::Get => (t.std_map_get)(rt, m, m_td, key, key_td, out, out_td),
        KeyedNative::At => (t.std_map_at)(rt, m, m_td, key, key_td, out, out_td),
        KeyedNative::Remove => (t.std_map_remove)(rt, m, m_td, key, key_td, out, out_td),
        KeyedNative::Contains => (t.std_map_contains)(rt, m, m_td, key, key_td, out.cast(), out_td),
    }
}

/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_string_eq(rt: RtHandle, a: &String, b: &String) -> bool {
    (table(rt).string_eq)(rt.as_ptr(), a, b) != 0
}

/// Byte order, which for UTF-8 is code point order.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_string_cmp(rt: RtHandle, a: &String, b: &String) -> Ordering {
    ordering((table(rt).string_cmp)(rt.as_ptr(), a, b))
}

// ---- lists ----

forward! {
    /// An empty list of `elem_td` with room for `capacity` elements.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_list_new => list_new(
        elem_td: &TyDesc,
        capacity: usize,
        out: &mut MaybeUninit<List> => as_mut_ptr,
    ) -> RtStatus;

    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_list_len => list_len(list: &List) -> usize;

    /// Moves the value at `value` onto the end. The value is the runtime's afterwards
    /// whatever the status.
    ///
    /// # Safety
    /// `rt` must be live; `value` must hold an initialized `elem_td` value.
    fn dtlv_rti_list_push => list_push(
        list: &mut List,
        elem_td: &TyDesc,
        value: *mut c_void,
    ) -> RtStatus;

    /// Moves the last element to `out`; `STATUS_EMPTY` when there is none.
    ///
    /// # Safety
    /// `rt` must be live; `out` must have room for an `elem_td` value.
    fn dtlv_rti_list_pop => list_pop(
        list: &mut List,
        elem_td: &TyDesc,
        out: *mut c_void,
    ) -> RtStatus;

    /// Clones element `index` to `out`; `STATUS_OUT_OF_BOUNDS` past the end.
    ///
    /// # Safety
    /// `rt` must be live; `out` must have room for an `elem_td` value.
    fn dtlv_rti_list_get => list_get(
        list: &List,
        elem_td: &TyDesc,
        index: usize,
        out: *mut c_void,
    ) -> RtStatus;

    /// Element `index` in place (valid until the list is changed or dropped); null past
    /// the end.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_list_at => list_at(list: &List, elem_td: &TyDesc, index: usize) -> *mut c_void;

    /// Moves `value` into element `index`, dropping the old one; past the end the value
    /// is destroyed and `STATUS_OUT_OF_BOUNDS` returned.
    ///
    /// # Safety
    /// `rt` must be live; `value` must hold an initialized `elem_td` value.
    fn dtlv_rti_list_set => list_set(
        list: &mut List,
        elem_td: &TyDesc,
        index: usize,
        value: *mut c_void,
    ) -> RtStatus;

    /// Moves `value` in before element `index` (`index == len` appends); past that the
    /// value is destroyed and `STATUS_OUT_OF_BOUNDS` returned.
    ///
    /// # Safety
    /// `rt` must be live; `value` must hold an initialized `elem_td` value.
    fn dtlv_rti_list_insert => list_insert(
        list: &mut List,
        elem_td: &TyDesc,
        index: usize,
        value: *mut c_void,
    ) -> RtStatus;

    /// Moves element `index` out to `out`, closing the gap; `STATUS_OUT_OF_BOUNDS` past
    /// the end.
    ///
    /// # Safety
    /// `rt` must be live; `out` must have room for an `elem_td` value.
    fn dtlv_rti_list_remove => list_remove(
        list: &mut List,
        elem_td: &TyDesc,
        index: usize,
        out: *mut c_void,
    ) -> RtStatus;
}

// ---- data ----

forward! {
    /// Moves the `td` value at `value` into a new data at `out`. `td` must live as long as
    /// the data (every descriptor the compiler emits or the runtime hands out does).
    ///
    /// # Safety
    /// `rt` must be live; `value` must hold an initialized `td` value.
    fn dtlv_rti_data_make => data_make(
        value: *mut c_void,
        td: &TyDesc,
        out: &mut MaybeUninit<Data> => as_mut_ptr,
    ) -> RtStatus;

    /// The spelling of the type a data holds (`u8`, `[string]`), as a new string.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_data_type_name => data_type_name(
        data: &Data,
        out: &mut MaybeUninit<String> => as_mut_ptr,
    ) -> RtStatus;

    /// The spelling of a descriptor's type, as a new string.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_type_name => type_name(
        td: &TyDesc,
        out: &mut MaybeUninit<String> => as_mut_ptr,
    ) -> RtStatus;
}

// ---- any value, by descriptor ----

forward! {
    /// Deep copy of the `td` value at `src` into `dst`.
    ///
    /// # Safety
    /// `rt` must be live; `src` initialized, `dst` room for a `td` value.
    fn dtlv_rti_clone => clone(src: *const c_void, td: &TyDesc, dst: *mut c_void) -> RtStatus;

    /// Frees what the `td` value at `value` owns; the bytes are uninitialized afterwards.
    ///
    /// # Safety
    /// `rt` must be live; `value` must hold an initialized `td` value.
    fn dtlv_rti_drop => drop(value: *mut c_void, td: &TyDesc);
}

/// Structural equality of two `td` values.
///
/// # Safety
/// `rt` must be live; both initialized.
pub unsafe fn dtlv_rti_eq(rt: RtHandle, a: *const c_void, b: *const c_void, td: &TyDesc) -> bool {
    (table(rt).eq)(rt.as_ptr(), a, b, td) != 0
}

/// The runtime's order of two `td` values (see `docs/abi.md`).
///
/// # Safety
/// `rt` must be live; both initialized.
pub unsafe fn dtlv_rti_cmp(
    rt: RtHandle,
    a: *const c_void,
    b: *const c_void,
    td: &TyDesc,
) -> Ordering {
    ordering((table(rt).cmp)(rt.as_ptr(), a, b, td))
}

forward! {
    /// The text `debuglog` prints for the value, as a new string.
    ///
    /// # Safety
    /// `rt` must be live; `value` initialized.
    fn dtlv_rti_format => format(
        value: *const c_void,
        td: &TyDesc,
        out: &mut MaybeUninit<String> => as_mut_ptr,
    ) -> RtStatus;

    /// Prints the formatted value and a newline to the program's output.
    ///
    /// # Safety
    /// `rt` must be live; `value` initialized.
    fn dtlv_rti_debuglog => debuglog(value: *const c_void, td: &TyDesc);
}

// ---- errors ----

/// Sets the message the runtime error of a failing native will carry.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_error_set(rt: RtHandle, message: &str) {
    (table(rt).error_set)(rt.as_ptr(), message.as_ptr(), message.len())
}

/// A copy of the message last set (empty when none is), any non-UTF-8 byte replaced.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_error_message(rt: RtHandle) -> std::string::String {
    let mut len = 0usize;
    let ptr = (table(rt).error_message)(rt.as_ptr(), &mut len);
    if ptr.is_null() || len == 0 {
        return std::string::String::new();
    }
    std::string::String::from_utf8_lossy(std::slice::from_raw_parts(ptr, len)).into_owned()
}

/// Records that native `rider.function` returned `status` (a native-failure runtime
/// error with the message the native set) and sets `abandoning`.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_native_failed(rt: RtHandle, rider: &str, function: &str, status: RtStatus) {
    (table(rt).native_failed)(
        rt.as_ptr(),
        rider.as_ptr(),
        rider.len(),
        function.as_ptr(),
        function.len(),
        status,
    )
}

/// Records a runtime error of `kind` with `detail` and sets `abandoning`.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_raise(rt: RtHandle, kind: ErrorKind, detail: &str) {
    (table(rt).raise)(rt.as_ptr(), kind as u32, detail.as_ptr(), detail.len())
}

/// Records an arithmetic error (`kind` is overflow, division by zero or invalid cast)
/// of `op` computed in `ty`, and sets `abandoning`.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_raise_arith(rt: RtHandle, kind: ErrorKind, op: ArithOp, ty: TyKind) {
    (table(rt).raise_arith)(rt.as_ptr(), kind as u32, op as u32, ty as u32)
}

/// Records a failed conversion from `from` to `to` (`kind` is overflow or invalid cast):
/// `<from> to <to> conversion`, and sets `abandoning`.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_raise_cast(rt: RtHandle, kind: ErrorKind, from: TyKind, to: TyKind) {
    let ty = crate::status::cast_ty(from, to);
    (table(rt).raise_arith)(rt.as_ptr(), kind as u32, ArithOp::Cast as u32, ty)
}

forward! {
    /// Records `index <index> out of bounds for length <len>` and sets `abandoning`.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_raise_bounds => raise_bounds(index: u64, len: u64);

    /// Records `stack overflow` and sets `abandoning`.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_raise_stack_overflow => raise_stack_overflow();
}

// ---- shadow stack ----

forward! {
    /// Reserves `size` bytes at `align` on the shadow stack; null (and `shadow stack
    /// exhausted` raised) when it is full.
    ///
    /// # Safety
    /// `rt` must be live; `align` a power of two.
    fn dtlv_rti_shadow_push => shadow_push(size: usize, align: usize) -> *mut u8;

    /// Releases everything reserved since `mark` (a `shadow_top` read before).
    ///
    /// # Safety
    /// `rt` must be live; `mark` a former `shadow_top` of this runtime.
    fn dtlv_rti_shadow_pop => shadow_pop(mark: *mut u8);
}

// ---- descriptors made at run time ----

/// The interned descriptor of `[elem]`; lives as long as the runtime.
///
/// # Safety
/// `rt` must be live; the answer must not be used after the runtime is destroyed.
pub unsafe fn dtlv_rti_tydesc_list(rt: RtHandle, elem: &TyDesc) -> &'static TyDesc {
    &*(table(rt).tydesc_list)(rt.as_ptr(), elem)
}

/// The interned descriptor of `?payload`; lives as long as the runtime.
///
/// # Safety
/// As for [`dtlv_rti_tydesc_list`].
pub unsafe fn dtlv_rti_tydesc_option(rt: RtHandle, payload: &TyDesc) -> &'static TyDesc {
    &*(table(rt).tydesc_option)(rt.as_ptr(), payload)
}

/// The interned descriptor of the tuple of `fields`; lives as long as the runtime.
///
/// # Safety
/// As for [`dtlv_rti_tydesc_list`].
pub unsafe fn dtlv_rti_tydesc_tuple(rt: RtHandle, fields: &[&TyDesc]) -> &'static TyDesc {
    // `&TyDesc` and `*const TyDesc` have the same layout.
    &*(table(rt).tydesc_tuple)(rt.as_ptr(), fields.as_ptr().cast::<Td>(), fields.len())
}

// ---- memory ----

/// A counted allocation of `size` bytes at `align`; null when the system refuses.
///
/// # Safety
/// `rt` must be live; `align` a power of two.
pub unsafe fn dtlv_rti_alloc(rt: RtHandle, size: usize, align: usize) -> *mut u8 {
    (table(rt).alloc)(rt.as_ptr(), size, align)
}

forward! {
    /// Frees what [`dtlv_rti_alloc`] returned, with the same `size` and `align`.
    ///
    /// # Safety
    /// `rt` must be live; `ptr` from `dtlv_rti_alloc(rt, size, align)`, not freed yet.
    fn dtlv_rti_free => free(ptr: *mut u8, size: usize, align: usize);
}

/// The runtime's allocation counts.
///
/// # Safety
/// `rt` must be live.
pub unsafe fn dtlv_rti_alloc_stats(rt: RtHandle) -> AllocStats {
    let mut stats = AllocStats::default();
    (table(rt).alloc_stats)(rt.as_ptr(), &mut stats);
    stats
}

// ---- the program ----

/// The program's arguments as a new `[string]` at `out`.
///
/// # Safety
/// `rt` live; `out` room for a list.
pub unsafe fn dtlv_rti_program_args(rt: RtHandle, out: &mut MaybeUninit<List>) -> RtStatus {
    (table(rt).program_args)(rt.as_ptr(), out.as_mut_ptr())
}

forward! {
    /// A new list of `len` clones of `*value` (moved in: the runtime's whatever the status).
    ///
    /// # Safety
    /// `rt` live; `value` an initialized `elem_td` value the caller gives up; `out` room for
    /// a list.
    fn dtlv_rti_list_filled => list_filled(
        elem_td: &TyDesc,
        len: usize,
        value: *mut c_void,
        out: &mut MaybeUninit<List> => as_mut_ptr,
    ) -> RtStatus;
}

// ---- maps (table version 2) ----

/// The interned descriptor of `map[key, value]`; lives as long as the runtime.
///
/// # Safety
/// As for [`dtlv_rti_tydesc_list`].
pub unsafe fn dtlv_rti_tydesc_map(rt: RtHandle, key: &TyDesc, value: &TyDesc) -> &'static TyDesc {
    &*(table(rt).tydesc_map)(rt.as_ptr(), key, value)
}

forward! {
    /// The number of entries.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_map_len => map_len(map: &Map) -> usize;

    /// Moves `key` and `value` in (an existing key's value is dropped and replaced, the
    /// new key dropped); a refused move destroys both.
    ///
    /// # Safety
    /// `rt` must be live; `key` and `value` must hold initialized values of the map
    /// descriptor's key and value types.
    fn dtlv_rti_map_insert => map_insert(
        map: &mut Map,
        map_td: &TyDesc,
        key: *mut c_void,
        value: *mut c_void,
    ) -> RtStatus;

    /// The value at `key` in place (valid until the map is changed or dropped); null
    /// when the key is not there.
    ///
    /// # Safety
    /// `rt` must be live; `key` must hold a value of the key type.
    fn dtlv_rti_map_find => map_find(map: &Map, map_td: &TyDesc, key: *const c_void) -> *mut c_void;

    /// Moves the value at `key` out to `out`, dropping the entry's key;
    /// `STATUS_NOT_FOUND` when it is not there.
    ///
    /// # Safety
    /// `rt` must be live; `out` must have room for a value of the value type.
    fn dtlv_rti_map_remove => map_remove(
        map: &mut Map,
        map_td: &TyDesc,
        key: *const c_void,
        out: *mut c_void,
    ) -> RtStatus;

    /// Entry `index` in key order, in place (a `(key, value)` tuple of the map
    /// descriptor's `elem`); null past the end.
    ///
    /// # Safety
    /// `rt` must be live.
    fn dtlv_rti_map_entry_at => map_entry_at(map: &Map, map_td: &TyDesc, index: usize) -> *mut c_void;
}

// ---- bigints ----

/// A new bigint at `out` of the magnitude `limbs` (least significant first; high zero
/// limbs are dropped) and sign `negative` (ignored for zero). Never fails.
///
/// # Safety
/// `rt` live; `out` room for a bigint.
pub unsafe fn dtlv_rti_bigint_from_limbs(
    rt: RtHandle,
    negative: bool,
    limbs: &[u64],
    out: &mut MaybeUninit<BigInt>,
) -> RtStatus {
    (table(rt).bigint_from_limbs)(
        rt.as_ptr(),
        negative as u8,
        limbs.as_ptr(),
        limbs.len(),
        out.as_mut_ptr(),
    )
}
