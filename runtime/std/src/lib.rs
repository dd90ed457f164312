//! The `std` rider: strings, lists, math and conversions as natives.
//!
//! `rider.dli` beside this crate declares every native; `build.rs` derives each one's
//! Rust signature from it and the file included below holds the implementations here to
//! them (a disagreement is a build error naming the native), and exports the ABI version
//! this rider was built for (`datalove_rti::export_rider!(std)`, as
//! `dtlv_rider_abi_version_std`).
//!
//! Every native is defined with [`datalove_rti::natives!`], which runs its body inside
//! [`guard_failure`](datalove_rti::rider_helpers::guard_failure): a failure returns its
//! status with a message set through the runtime table, a panic becomes
//! `STATUS_PANICKED` with the panic's message, and nothing unwinds out. The runtime is
//! reached only through the table `rt` points at ([`datalove_rti::call`] and
//! [`datalove_rti::rider_helpers`]); the cdylib links nothing of the runtime.
//!
//! # Safety
//!
//! Every native has the one contract of the native-call ABI (`docs/abi.md`): `rt` is a
//! live runtime handle, every pointer is at a value (or, for a result, room for one) of
//! the type its descriptor describes, every descriptor is well formed, and no two
//! arguments are the same value where either is `mut` or `out`. It is not repeated on
//! each function.
#![allow(clippy::missing_safety_doc)]

use std::cmp::Ordering;
use std::ffi::c_void;
use std::mem::MaybeUninit;

use datalove_rti::call::{self, KeyedNative};
use datalove_rti::order::{float_order, Leaf, OrderPlan};
use datalove_rti::rider_helpers::{
    check, clone_value, compare_values, drop_value, expect_kind, expect_match, init_value,
    int_range, make_string, map_parts, new_string, option_of, option_payload, read_int, write_int,
    Failure, RuntimeBytes, ValuePtr,
};
use datalove_rti::rtdt::{self, AnyOut, AnyOwned, AnyRef, RtHandle};
use datalove_rti::status::STATUS_OUT_OF_BOUNDS;
use datalove_rti::{same_tydesc, ArithOp, ErrorKind, RtStatus, TyDesc, TyKind};
use num_bigint::{BigInt, BigUint, Sign};

include!(concat!(env!("OUT_DIR"), "/datalove_rider.rs"));

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn is_fixedint(kind: TyKind) -> bool {
    kind.is_integer() && kind != TyKind::Index
}

fn expect_fixedint(td: &TyDesc) -> Result<(), Failure> {
    if is_fixedint(td.kind) {
        Ok(())
    } else {
        Err(Failure::type_mismatch(format!(
            "expected a fixed-width integer, got {}",
            td.kind.name()
        )))
    }
}

fn expect_float(td: &TyDesc) -> Result<(), Failure> {
    if td.kind.is_float() {
        Ok(())
    } else {
        Err(Failure::type_mismatch(format!(
            "expected a float, got {}",
            td.kind.name()
        )))
    }
}

fn out_of_bounds(message: String) -> Failure {
    Failure::new(STATUS_OUT_OF_BOUNDS, message)
}

fn index_out_of_bounds(index: u64, len: usize) -> Failure {
    out_of_bounds(datalove_rti::status::bounds_detail(index, len as u64))
}

/// An `index` as a Rust position; one that does not fit is past the end of anything.
fn position(i: &rtdt::Index) -> usize {
    usize::try_from(i.0).unwrap_or(usize::MAX)
}

/// The element descriptor of a list descriptor.
///
/// # Safety
/// `td` must be a well-formed descriptor.
unsafe fn list_elem(td: &TyDesc) -> Result<&TyDesc, Failure> {
    expect_kind(td, TyKind::List)?;
    Ok(td.elem())
}

/// The mismatch of a native whose `T` the caller decides (`option_of`).
fn asked_for(t: String, slot: String) -> String {
    format!("asked for {t} but the result slot holds {slot}")
}

/// Writes `value` as the `?T` of `option_td` (`T` an integer type) at `out`: some of it,
/// or none.
///
/// # Safety
/// `rt` live; `option_td` well formed; `out` room for a value of it.
unsafe fn write_optional_int(
    rt: RtHandle,
    out: &AnyOut<'_>,
    option_td: &TyDesc,
    value: Option<i128>,
) -> Result<(), Failure> {
    let (payload_td, offset) = option_payload(option_td)?;
    match value {
        Some(v) => {
            write_int(&payload_slot(out, offset), payload_td, v)?;
            set_some(out);
        }
        None => write_none(rt, out, option_td),
    }
    Ok(())
}

/// A value handed over `in` whose descriptor must be `expected`'s type; a mismatched one
/// is destroyed (the native owns it) and refused.
///
/// # Safety
/// `rt` live, `value` an initialized `value_td` value the native owns.
unsafe fn expect_same(
    rt: RtHandle,
    value: &AnyOwned<'_>,
    value_td: &TyDesc,
    expected: &TyDesc,
) -> Result<(), Failure> {
    if same_tydesc(value_td, expected) {
        Ok(())
    } else {
        let message = format!(
            "a {} value where the list holds {}",
            value_td.type_name(),
            expected.type_name()
        );
        drop_value(rt, value, value_td);
        Err(Failure::type_mismatch(message))
    }
}

/// Writes `?T`'s none at `out`.
///
/// # Safety
/// `out` has room for an `option_td` value.
unsafe fn write_none(rt: RtHandle, out: &AnyOut<'_>, option_td: &TyDesc) {
    // The empty value of an option is none.
    init_value(rt, out, option_td);
}

/// The payload slot of `?T` at `out`, to fill before [`set_some`].
///
/// # Safety
/// `out` has room for an option value with its payload at `offset`.
unsafe fn payload_slot(out: &AnyOut<'_>, offset: usize) -> *mut u8 {
    out.as_ptr().add(offset)
}

/// Marks the option at `out` as holding its (already written) payload.
///
/// # Safety
/// `out` has room for an option value.
unsafe fn set_some(out: &AnyOut<'_>) {
    out.as_ptr().write(1);
}

/// Refuses a result slot whose type (`got`: the slot's, or its payload's) is not the one
/// the trailing descriptor `asked` names.
///
/// # Safety
/// The descriptors must be well formed.
unsafe fn expect_asked_for(asked: &TyDesc, got: &TyDesc, slot: &TyDesc) -> Result<(), Failure> {
    expect_match(asked, got, || {
        asked_for(asked.type_name(), slot.type_name())
    })
}

/// Writes `?T` at `out` (an `option_td` value): some of the payload `write` puts at its
/// slot (given the payload's descriptor), or none.
///
/// # Safety
/// `out` has room for an `option_td` value.
unsafe fn write_option<V>(
    rt: RtHandle,
    out: &AnyOut<'_>,
    option_td: &TyDesc,
    value: Option<V>,
    write: impl FnOnce(*mut u8, &TyDesc, V) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let (payload_td, offset) = option_payload(option_td)?;
    match value {
        Some(v) => {
            write(payload_slot(out, offset), payload_td, v)?;
            set_some(out);
        }
        None => write_none(rt, out, option_td),
    }
    Ok(())
}

/// Moves a `td` value from `src` to `dst` (values are owned trees: a move is a copy of
/// their bytes, after which `src` is not used again).
///
/// # Safety
/// `src` initialized, `dst` room for a `td` value, not overlapping.
unsafe fn move_value(src: &impl ValuePtr, dst: &impl ValuePtr, td: &TyDesc) {
    std::ptr::copy_nonoverlapping(src.value_ptr(), dst.value_ptr(), td.size);
}

/// Where element `i` of a list of `elem_td` is (valid until the list changes).
///
/// # Safety
/// `rt` live; `i < len`.
unsafe fn element(rt: RtHandle, xs: &rtdt::List, elem_td: &TyDesc, i: usize) -> *mut u8 {
    let p = call::dtlv_rti_list_at(rt, xs, elem_td, i);
    assert!(!p.is_null(), "element {i} of a list of length {}", xs.len());
    p.cast()
}

/// Sorts the `len` elements of `elem_td` at `base` stably by the runtime's order. The
/// order is decided once for the element type ([`OrderPlan`]): integers and strings
/// sort as Rust slices of them (unstably, since two of them that are equal are the same
/// bytes), floats stably by the float order, flat tuples and records by their fields
/// without the runtime; only other types ask the runtime (`cmp`) per comparison.
///
/// # Safety
/// `base` the start of `len >= 2` initialized elements of `elem_td` (size > 0), aligned.
unsafe fn sort_elements(rt: RtHandle, base: *mut u8, len: usize, elem_td: &TyDesc) {
    unsafe fn slice<'a, T>(base: *mut u8, len: usize) -> &'a mut [T] {
        std::slice::from_raw_parts_mut(base.cast::<T>(), len)
    }
    let plan = OrderPlan::of(elem_td);
    if let OrderPlan::Leaf(leaf) = plan {
        match leaf {
            Leaf::Unit => {}
            Leaf::U8 => slice::<u8>(base, len).sort_unstable(),
            Leaf::U16 => slice::<u16>(base, len).sort_unstable(),
            Leaf::U32 => slice::<u32>(base, len).sort_unstable(),
            Leaf::U64 => slice::<u64>(base, len).sort_unstable(),
            Leaf::I8 => slice::<i8>(base, len).sort_unstable(),
            Leaf::I16 => slice::<i16>(base, len).sort_unstable(),
            Leaf::I32 => slice::<i32>(base, len).sort_unstable(),
            Leaf::I64 => slice::<i64>(base, len).sort_unstable(),
            Leaf::F32 => {
                slice::<f32>(base, len).sort_by(|a, b| float_order(f64::from(*a), f64::from(*b)))
            }
            Leaf::F64 => slice::<f64>(base, len).sort_by(|a, b| float_order(*a, *b)),
            Leaf::String => slice::<rtdt::String>(base, len)
                .sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes())),
        }
        return;
    }
    let size = elem_td.size;
    let mut order: Vec<*const u8> = (0..len).map(|i| base.add(i * size).cast_const()).collect();
    order.sort_by(|&a, &b| match plan.compare(a, b) {
        Some(o) => o,
        None => compare_values(rt, &a, &b, elem_td),
    });
    // Permute through a scratch copy: every element's bytes move exactly once.
    let mut scratch = vec![0u8; len * size];
    for (to, &from) in order.iter().enumerate() {
        std::ptr::copy_nonoverlapping(from, scratch.as_mut_ptr().add(to * size), size);
    }
    std::ptr::copy_nonoverlapping(scratch.as_ptr(), base, len * size);
}

// ---------------------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// `0` of the fixed-width integer type the call site asks for (its trailing descriptor).
    fn dlr_std__fixedint_zero(rt, result_out: AnyOut<'_>, result_td; t_td) {
        expect_fixedint(t_td)?;
        expect_asked_for(t_td, result_td, result_td)?;
        write_int(&result_out, result_td, 0)
    }
}

// ---------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// The length in bytes.
    fn dlr_std__string_len(
        rt,
        s: &rtdt::String, _s_td,
        result_out: &mut MaybeUninit<rtdt::Index>, _result_td,
    ) {
        result_out.write(rtdt::Index(s.len() as u64));
        Ok(())
    }

    /// Byte `i` of `s`; fails past the end, as an element read of a list does.
    fn dlr_std__string_byte_at(
        rt,
        s: &rtdt::String, _s_td,
        i: &rtdt::Index, _i_td,
        result_out: &mut MaybeUninit<u8>, _result_td,
    ) {
        let bytes = s.as_bytes();
        let Some(byte) = bytes.get(position(i)) else {
            return Err(index_out_of_bounds(i.0, bytes.len()));
        };
        result_out.write(*byte);
        Ok(())
    }

    fn dlr_std__string_concat(
        rt,
        a: &rtdt::String, _a_td,
        b: &rtdt::String, _b_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        check(rt, call::dtlv_rti_string_concat(rt, a, b, result_out))
    }

    /// Bytes `start..end`; fails past the end, for `start > end`, or off a char boundary
    /// (the runtime's checks and words: `string_slice`).
    fn dlr_std__string_slice(
        rt,
        s: &rtdt::String, _s_td,
        start: &rtdt::Index, _start_td,
        end: &rtdt::Index, _end_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        // An index past `usize` is past the end of any string: the runtime's message
        // names it as given.
        let (a, b) = (start.0 as usize, end.0 as usize);
        check(rt, call::dtlv_rti_string_slice(rt, s, a, b, result_out))
    }

    /// The byte offset of the first occurrence of `needle`, or none.
    fn dlr_std__string_find(
        rt,
        s: &rtdt::String, _s_td,
        needle: &rtdt::String, _needle_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        expect_kind(option_payload(result_td)?.0, TyKind::Index)?;
        let at = s.as_str().find(needle.as_str()).map(|at| at as i128);
        write_optional_int(rt, &result_out, result_td, at)
    }
}

/// Natives of one string that make their result from its text `$text` (`$result`, written
/// by `$write`: `string_result`, `write_string_list`).
macro_rules! from_text {
    ($result:ty, $write:ident: $($(#[$doc:meta])* $name:ident = |$text:ident| $make:expr;)*) => {
        datalove_rti::natives! {$(
            $(#[$doc])*
            fn $name(rt, s: &rtdt::String, _s_td, result_out: &mut MaybeUninit<$result>, result_td) {
                let $text = s.as_str();
                $write(rt, $make, result_out, result_td)
            }
        )*}
    };
}

/// Writes `text` as a string result.
///
/// # Safety
/// `rt` live; `out` room for a string.
unsafe fn string_result(
    rt: RtHandle,
    text: impl AsRef<str>,
    out: &mut MaybeUninit<rtdt::String>,
    _string_td: &TyDesc,
) -> Result<(), Failure> {
    make_string(rt, text.as_ref(), out)
}

/// Natives from two strings to whether `$holds` of their texts `$a`, `$b`.
macro_rules! string_test {
    ($($(#[$doc:meta])* $name:ident = |$a:ident, $b:ident| $holds:expr;)*) => {
        datalove_rti::natives! {$(
            $(#[$doc])*
            fn $name(rt, s: &rtdt::String, _s_td, t: &rtdt::String, _t_td, result_out: &mut MaybeUninit<bool>, _result_td) {
                let ($a, $b) = (s.as_str(), t.as_str());
                result_out.write($holds);
                Ok(())
            }
        )*}
    };
}

from_text! { rtdt::String, string_result:
    /// Upper case, by Unicode's full case mapping (`ß` becomes `SS`).
    dlr_std__string_to_upper = |s| s.to_uppercase();
    /// Lower case, by Unicode's full case mapping.
    dlr_std__string_to_lower = |s| s.to_lowercase();
}

string_test! {
    dlr_std__string_contains = |s, needle| s.contains(needle);
}

// ---------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// Decimal, with a `-` for a negative value.
    fn dlr_std__int_to_string(
        rt,
        value: AnyRef<'_>, value_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        expect_fixedint(value_td)?;
        let v = read_int(&value, value_td)?;
        make_string(rt, &v.to_string(), result_out)
    }

    /// The runtime's float format, the one `debuglog` uses, so every backend agrees.
    fn dlr_std__float_to_string(
        rt,
        value: AnyRef<'_>, value_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        expect_float(value_td)?;
        check(
            rt,
            call::dtlv_rti_format(rt, value.as_ptr().cast::<c_void>(), value_td, result_out),
        )
    }
}

/// The most digits `float_to_string_fixed` writes after the point: every `f64` (and so
/// every `f32`) has an exact decimal expansion at most this long.
pub const MAX_FIXED_DIGITS: u32 = 1074;

/// `value` with exactly `digits` digits after the point, rounded to nearest from the
/// exact binary value (ties to even), as C's `printf("%.*f")` does; `NaN`, `inf` and
/// `-inf` are spelled as the runtime's format spells them. `None` past
/// [`MAX_FIXED_DIGITS`].
pub fn fixed_text(value: f64, digits: u32) -> Option<std::string::String> {
    if digits > MAX_FIXED_DIGITS {
        return None;
    }
    Some(if value.is_finite() {
        format!("{value:.*}", digits as usize)
    } else {
        format!("{value:?}")
    })
}

datalove_rti::natives! {
    /// `value` with `digits` digits after the point (see [`fixed_text`]).
    fn dlr_std__float_to_string_fixed(
        rt,
        value: AnyOwned<'_>, value_td,
        digits: &u32, _digits_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        expect_float(value_td)?;
        // An f32 widens to f64 exactly, so its expansion is the f32's own.
        let v = match value_td.kind {
            TyKind::F32 => f64::from(value.as_ptr().cast::<f32>().read_unaligned()),
            _ => value.as_ptr().cast::<f64>().read_unaligned(),
        };
        let text = fixed_text(v, *digits).ok_or_else(|| {
            Failure::failed(format!(
                "{} digits after the point asked for; at most {MAX_FIXED_DIGITS}",
                digits
            ))
        })?;
        make_string(rt, &text, result_out)
    }
}

/// The integer `s` spells in decimal (an optional `+` or `-`, then digits, nothing
/// else), or none when it spells none or one out of `T`'s range.
pub fn parse_int_text(text: &str, kind: TyKind) -> Option<i128> {
    let (lo, hi) = int_range(kind)?;
    let v: i128 = text.parse().ok()?;
    (lo..=hi).contains(&v).then_some(v)
}

datalove_rti::natives! {
    /// `T` is undetermined: the call site's trailing descriptor says which integer to parse.
    fn dlr_std__parse_int(
        rt,
        s: &rtdt::String, _s_td,
        result_out: AnyOut<'_>, result_td
        ; t_td
    ) {
        expect_fixedint(t_td)?;
        option_of(result_td, t_td, asked_for)?;
        write_optional_int(rt, &result_out, result_td, parse_int_text(s.as_str(), t_td.kind))
    }

    /// The float `s` spells (Rust's syntax: `1.5`, `-2e10`, `inf`, `NaN`), or none.
    fn dlr_std__parse_float(
        rt,
        s: &rtdt::String, _s_td,
        result_out: AnyOut<'_>, result_td
        ; t_td
    ) {
        expect_float(t_td)?;
        let offset = option_of(result_td, t_td, asked_for)?;
        let slot = payload_slot(&result_out, offset);
        let text = s.as_str();
        // Parse at the target width, so an f32 is rounded once.
        let parsed = match t_td.kind {
            TyKind::F32 => text
                .parse::<f32>()
                .ok()
                .map(|v| slot.cast::<f32>().write_unaligned(v)),
            _ => text
                .parse::<f64>()
                .ok()
                .map(|v| slot.cast::<f64>().write_unaligned(v)),
        };
        match parsed {
            Some(()) => set_some(&result_out),
            None => write_none(rt, &result_out, result_td),
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------

/// `i` as a position of an element of `xs`; fails past the end.
fn within(xs: &rtdt::List, i: &rtdt::Index) -> Result<usize, Failure> {
    if i.0 >= xs.len() as u64 {
        return Err(index_out_of_bounds(i.0, xs.len()));
    }
    Ok(position(i))
}

/// Moves `value` into `xs` at `i` through the runtime's `entry` (`list_set`,
/// `list_insert`): past where it may go, the runtime destroys the value and the failure is
/// `beyond(len)`.
///
/// # Safety
/// `rt` live; `xs` a list of `xs_td`; `value` an initialized value of `value_td` the
/// native owns.
#[allow(clippy::too_many_arguments)]
unsafe fn move_in(
    rt: RtHandle,
    xs: &mut rtdt::List,
    xs_td: &TyDesc,
    i: &rtdt::Index,
    value: AnyOwned<'_>,
    value_td: &TyDesc,
    entry: unsafe fn(RtHandle, &mut rtdt::List, &TyDesc, usize, *mut c_void) -> RtStatus,
    beyond: impl FnOnce(usize) -> Failure,
) -> Result<(), Failure> {
    let elem_td = list_elem(xs_td)?;
    expect_same(rt, &value, value_td, elem_td)?;
    let len = xs.len();
    let status = entry(rt, xs, elem_td, position(i), value.as_ptr().cast());
    if status == STATUS_OUT_OF_BOUNDS {
        return Err(beyond(len));
    }
    check(rt, status)
}

datalove_rti::natives! {
    fn dlr_std__list_len(
        rt,
        xs: &rtdt::List, _xs_td,
        result_out: &mut MaybeUninit<rtdt::Index>, _result_td,
    ) {
        result_out.write(rtdt::Index(call::dtlv_rti_list_len(rt, xs) as u64));
        Ok(())
    }

    /// Moves `value` onto the end.
    fn dlr_std__list_push(
        rt,
        xs: &mut rtdt::List, xs_td,
        value: AnyOwned<'_>, value_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        let elem_td = list_elem(xs_td)?;
        expect_same(rt, &value, value_td, elem_td)?;
        check(
            rt,
            call::dtlv_rti_list_push(rt, xs, elem_td, value.as_ptr().cast()),
        )
    }

    /// Moves the last element out, or none for an empty list.
    fn dlr_std__list_pop(
        rt,
        xs: &mut rtdt::List, xs_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        let elem_td = list_elem(xs_td)?;
        let offset = option_of(result_td, elem_td, |elem, slot| {
            format!("popping a {elem} into a {slot} slot")
        })?;
        if xs.is_empty() {
            write_none(rt, &result_out, result_td);
            return Ok(());
        }
        let slot = payload_slot(&result_out, offset);
        check(rt, call::dtlv_rti_list_pop(rt, xs, elem_td, slot.cast()))?;
        set_some(&result_out);
        Ok(())
    }

    /// A clone of element `i`; fails past the end.
    fn dlr_std__list_get(
        rt,
        xs: &rtdt::List, xs_td,
        i: &rtdt::Index, _i_td,
        result_out: AnyOut<'_>, _result_td,
    ) {
        let (elem_td, at) = (list_elem(xs_td)?, within(xs, i)?);
        check(rt, call::dtlv_rti_list_get(rt, xs, elem_td, at, result_out.as_ptr().cast()))
    }

    /// Moves `value` into element `i`, dropping the old one; past the end the value is
    /// destroyed (by the runtime) and the call fails.
    fn dlr_std__list_set(
        rt,
        xs: &mut rtdt::List, xs_td,
        i: &rtdt::Index, _i_td,
        value: AnyOwned<'_>, value_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        move_in(rt, xs, xs_td, i, value, value_td, call::dtlv_rti_list_set, |len| {
            index_out_of_bounds(i.0, len)
        })
    }

    /// Moves `value` in before element `i` (`i` = length appends); past that the value is
    /// destroyed (by the runtime) and the call fails.
    fn dlr_std__list_insert(
        rt,
        xs: &mut rtdt::List, xs_td,
        i: &rtdt::Index, _i_td,
        value: AnyOwned<'_>, value_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        move_in(rt, xs, xs_td, i, value, value_td, call::dtlv_rti_list_insert, |len| {
            out_of_bounds(format!("insertion index {} out of bounds for length {len}", i.0))
        })
    }

    /// Moves element `i` out, closing the gap; fails past the end.
    fn dlr_std__list_remove(
        rt,
        xs: &mut rtdt::List, xs_td,
        i: &rtdt::Index, _i_td,
        result_out: AnyOut<'_>, _result_td,
    ) {
        let (elem_td, at) = (list_elem(xs_td)?, within(xs, i)?);
        check(rt, call::dtlv_rti_list_remove(rt, xs, elem_td, at, result_out.as_ptr().cast()))
    }

    /// Reverses in place.
    fn dlr_std__list_reverse(
        rt,
        xs: &mut rtdt::List, xs_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        let elem_td = list_elem(xs_td)?;
        let len = xs.len();
        if elem_td.size == 0 {
            return Ok(());
        }
        for i in 0..len / 2 {
            let a = element(rt, xs, elem_td, i);
            let b = element(rt, xs, elem_td, len - 1 - i);
            std::ptr::swap_nonoverlapping(a, b, elem_td.size);
        }
        Ok(())
    }

    /// Sorts in place, stably, by the runtime's order (`cmp`), so every backend sorts
    /// alike (see [`sort_elements`]).
    fn dlr_std__list_sort(
        rt,
        xs: &mut rtdt::List, xs_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        let elem_td = list_elem(xs_td)?;
        let len = xs.len();
        let size = elem_td.size;
        if len < 2 || size == 0 {
            return Ok(());
        }
        sort_elements(rt, element(rt, xs, elem_td, 0), len, elem_td);
        Ok(())
    }

    /// A list of `n` clones of `value` (which becomes the last element).
    fn dlr_std__list_filled(
        rt,
        n: &rtdt::Index, _n_td,
        value: AnyOwned<'_>, value_td,
        result_out: &mut MaybeUninit<rtdt::List>, result_td,
    ) {
        let elem_td = match list_elem(result_td) {
            Ok(td) => td,
            Err(failure) => {
                drop_value(rt, &value, value_td);
                return Err(failure);
            }
        };
        expect_same(rt, &value, value_td, elem_td)?;
        let Ok(len) = usize::try_from(n.0) else {
            drop_value(rt, &value, value_td);
            return Err(Failure::failed(format!(
                "a list of {} elements does not fit in memory",
                n.0
            )));
        };
        check(
            rt,
            call::dtlv_rti_list_filled(rt, elem_td, len, value.as_ptr().cast(), result_out),
        )
    }
}

// ---------------------------------------------------------------------------------------
// Maps
// ---------------------------------------------------------------------------------------

/// A keyed map native of the runtime's ([`call::dtlv_rti_std_map_keyed`]).
///
/// # Safety
/// The native ABI's terms; `m` changed only by `KeyedNative::Remove`.
#[allow(clippy::too_many_arguments)]
unsafe fn map_keyed(
    rt: RtHandle,
    which: KeyedNative,
    m: *mut rtdt::Map,
    m_td: &TyDesc,
    key: *const u8,
    key_td: &TyDesc,
    out: *mut u8,
    out_td: &TyDesc,
) -> Result<(), Failure> {
    let (key, out) = (key.cast(), out.cast());
    check(
        rt,
        call::dtlv_rti_std_map_keyed(rt, which, m, m_td, key, key_td, out, out_td),
    )
}

/// Room for one value of any type, aligned for every type (at most 8).
fn scratch(td: &TyDesc) -> Vec<u64> {
    vec![0u64; td.size.div_ceil(8).max(1)]
}

/// Pushes one element per item onto the new list at `out` (of `list_td`, its elements
/// `elem_td`): `write` puts the item's element at the slot it is handed, and the list
/// takes it from there. On a failure the part built is destroyed and `out` is left
/// uninitialized.
///
/// # Safety
/// `rt` live; `out` an initialized list of `list_td`; `write`, when it succeeds, leaves an
/// initialized `elem_td` value at the slot.
unsafe fn push_each<T>(
    rt: RtHandle,
    out: &mut MaybeUninit<rtdt::List>,
    list_td: &TyDesc,
    elem_td: &TyDesc,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(T, *mut u8) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut slot = scratch(elem_td);
    let dst = slot.as_mut_ptr().cast::<u8>();
    for item in items {
        let pushed = write(item, dst).and_then(|()| {
            check(
                rt,
                call::dtlv_rti_list_push(rt, out.assume_init_mut(), elem_td, dst.cast()),
            )
        });
        if let Err(failure) = pushed {
            call::dtlv_rti_drop(rt, out.as_mut_ptr().cast(), list_td);
            return Err(failure);
        }
    }
    Ok(())
}

/// Which part of each entry `map_keys`, `map_values` and `map_entries` list.
#[derive(Clone, Copy)]
enum EntryPart {
    Key,
    Value,
    Whole,
}

/// A new list at `out` (of `list_td`) holding a clone of `part` of each entry of `m`, in
/// key order. On a failure the part built is destroyed.
///
/// # Safety
/// `rt` live; `m` a `m_td` map; `out` room for a list.
unsafe fn map_parts_list(
    rt: RtHandle,
    m: &rtdt::Map,
    m_td: &TyDesc,
    part: EntryPart,
    out: &mut MaybeUninit<rtdt::List>,
    list_td: &TyDesc,
) -> Result<(), Failure> {
    map_parts(m_td)?;
    let entry_td = m_td.elem();
    let (part_td, offset) = match part {
        EntryPart::Key => (&*entry_td.fields()[0].desc, entry_td.fields()[0].offset),
        EntryPart::Value => (&*entry_td.fields()[1].desc, entry_td.fields()[1].offset),
        EntryPart::Whole => (entry_td, 0),
    };
    expect_list_of(list_td, part_td)?;
    let elem_td = list_elem(list_td)?;
    let len = call::dtlv_rti_map_len(rt, m);
    check(rt, call::dtlv_rti_list_new(rt, elem_td, len, out))?;
    push_each(rt, out, list_td, elem_td, 0..len, |i, dst| {
        let entry = call::dtlv_rti_map_entry_at(rt, m, m_td, i).cast::<u8>();
        assert!(!entry.is_null(), "entry {i} of a map of {len}");
        clone_value(rt, &entry.add(offset), elem_td, &dst)
    })
}

macro_rules! map_lists {
    ($($(#[$doc:meta])* $name:ident = $part:ident;)*) => {
        datalove_rti::natives! {$(
            $(#[$doc])*
            fn $name(
                rt,
                m: &rtdt::Map, m_td,
                result_out: &mut MaybeUninit<rtdt::List>, result_td,
            ) {
                map_parts_list(rt, m, m_td, EntryPart::$part, result_out, result_td)
            }
        )*}
    };
}

map_lists! {
    /// Clones of the keys, in order.
    dlr_std__map_keys = Key;
    /// Clones of the values, in key order.
    dlr_std__map_values = Value;
    /// Clones of the entries as `(key, value)` tuples, in key order.
    dlr_std__map_entries = Whole;
}

/// Checks that a list result holds the map's `part` (key, value or whole entry).
///
/// # Safety
/// Both descriptors well formed.
unsafe fn expect_list_of(list_td: &TyDesc, part: &TyDesc) -> Result<(), Failure> {
    let elem_td = list_elem(list_td)?;
    expect_match(elem_td, part, || {
        format!(
            "a list of {} where {} was asked for",
            part.type_name(),
            list_td.type_name()
        )
    })
}

datalove_rti::natives! {
    /// The empty map of the type the call site asks for.
    fn dlr_std__map_new(
        rt,
        result_out: &mut MaybeUninit<rtdt::Map>, result_td;
        k_td, v_td
    ) {
        let (key, value) = map_parts(result_td)?;
        if !same_tydesc(key, k_td) || !same_tydesc(value, v_td) {
            return Err(Failure::type_mismatch(format!(
                "asked for map[{}, {}] but the result slot holds {}",
                k_td.type_name(),
                v_td.type_name(),
                result_td.type_name()
            )));
        }
        result_out.write(rtdt::Map::from_raw(std::ptr::null_mut()));
        Ok(())
    }

    // The map natives below are the runtime's (`datalove_rt::natives`, table version
    // 6): a program's calls are linked to the runtime's functions directly, and these
    // exports reach the same through the table, so the two never differ.

    /// The number of entries.
    fn dlr_std__map_len(
        rt,
        m: &rtdt::Map, m_td,
        result_out: &mut MaybeUninit<rtdt::Index>, result_td,
    ) {
        let out = result_out.as_mut_ptr().cast::<u64>();
        check(rt, call::dtlv_rti_std_map_len(rt, m, m_td, out, result_td))
    }

    /// Moves `key` and `value` in; an existing key's old value is dropped and replaced.
    fn dlr_std__map_insert(
        rt,
        m: &mut rtdt::Map, m_td,
        key: AnyOwned<'_>, key_td,
        value: AnyOwned<'_>, value_td,
        result_out: &mut MaybeUninit<()>, result_td,
    ) {
        check(
            rt,
            call::dtlv_rti_std_map_insert(
                rt,
                m,
                m_td,
                key.as_ptr().cast(),
                key_td,
                value.as_ptr().cast(),
                value_td,
                result_out.as_mut_ptr().cast(),
                result_td,
            ),
        )
    }

    /// A clone of the value at `key`, or none.
    fn dlr_std__map_get(
        rt,
        m: &rtdt::Map, m_td,
        key: AnyRef<'_>, key_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        map_keyed(rt, KeyedNative::Get, (m as *const rtdt::Map).cast_mut(), m_td, key.as_ptr(), key_td, result_out.as_ptr(), result_td)
    }

    /// A clone of the value at `key`; a missing key is the runtime error `key not found`
    /// (its detail the key as `debuglog` writes it).
    fn dlr_std__map_at(
        rt,
        m: &rtdt::Map, m_td,
        key: AnyRef<'_>, key_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        map_keyed(rt, KeyedNative::At, (m as *const rtdt::Map).cast_mut(), m_td, key.as_ptr(), key_td, result_out.as_ptr(), result_td)
    }

    /// Moves the value at `key` out (dropping the entry's key), or none.
    fn dlr_std__map_remove(
        rt,
        m: &mut rtdt::Map, m_td,
        key: AnyRef<'_>, key_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        map_keyed(rt, KeyedNative::Remove, m, m_td, key.as_ptr(), key_td, result_out.as_ptr(), result_td)
    }

    /// Whether the map has `key`.
    fn dlr_std__map_contains(
        rt,
        m: &rtdt::Map, m_td,
        key: AnyRef<'_>, key_td,
        result_out: &mut MaybeUninit<bool>, result_td,
    ) {
        let out = result_out.as_mut_ptr().cast();
        map_keyed(rt, KeyedNative::Contains, (m as *const rtdt::Map).cast_mut(), m_td, key.as_ptr(), key_td, out, result_td)
    }

    /// A map of the `(key, value)` tuples of a list it takes; a later duplicate key wins.
    fn dlr_std__map_from_entries(
        rt,
        entries: &mut rtdt::List, entries_td,
        result_out: &mut MaybeUninit<rtdt::Map>, result_td,
    ) {
        let fits = map_parts(result_td).and_then(|_| expect_list_of(entries_td, result_td.elem()));
        if let Err(failure) = fits {
            call::dtlv_rti_drop(rt, (entries as *mut rtdt::List).cast(), entries_td);
            return Err(failure);
        }
        let entry_td = result_td.elem();
        let (key, value) = (&entry_td.fields()[0], &entry_td.fields()[1]);
        let mut map = rtdt::Map::from_raw(std::ptr::null_mut());
        let mut slot = scratch(entry_td);
        let at = slot.as_mut_ptr().cast::<u8>();
        // Taken from the end, so the first of a key met is its last in the list: it is
        // kept, and an earlier one is dropped.
        while !entries.is_empty() {
            check(rt, call::dtlv_rti_list_pop(rt, entries, entry_td, at.cast()))?;
            if call::dtlv_rti_map_find(rt, &map, result_td, at.cast()).is_null() {
                let status = call::dtlv_rti_map_insert(
                    rt,
                    &mut map,
                    result_td,
                    at.add(key.offset).cast(),
                    at.add(value.offset).cast(),
                );
                check(rt, status)?;
            } else {
                drop_value(rt, &at, entry_td);
            }
        }
        call::dtlv_rti_drop(rt, (entries as *mut rtdt::List).cast(), entries_td);
        result_out.write(map);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Math
// ---------------------------------------------------------------------------------------

macro_rules! unary_f64 {
    ($($(#[$doc:meta])* $name:ident = $f:expr;)*) => {
        datalove_rti::natives! {$(
            $(#[$doc])*
            fn $name(rt, x: &f64, _x_td, result_out: &mut MaybeUninit<f64>, _result_td) {
                let f: fn(f64) -> f64 = $f;
                result_out.write(f(*x));
                Ok(())
            }
        )*}
    };
}

unary_f64! {
    /// The square root (NaN for a negative argument).
    dlr_std__sqrt = f64::sqrt;
    dlr_std__sin = f64::sin;
    dlr_std__cos = f64::cos;
    dlr_std__exp = f64::exp;
    /// The natural logarithm (NaN for a negative argument, -inf for 0).
    dlr_std__ln = f64::ln;
    dlr_std__floor = f64::floor;
    dlr_std__ceil = f64::ceil;
    /// The absolute value.
    dlr_std__fabs = f64::abs;
}

datalove_rti::natives! {
    /// `x` to the power `y`.
    fn dlr_std__pow(
        rt,
        x: &f64, _x_td,
        y: &f64, _y_td,
        result_out: &mut MaybeUninit<f64>, _result_td,
    ) {
        result_out.write(x.powf(*y));
        Ok(())
    }

    /// The absolute value; fails for the minimum signed value, whose has none in its type.
    fn dlr_std__abs(rt, x: AnyOwned<'_>, x_td, result_out: AnyOut<'_>, result_td) {
        expect_fixedint(x_td)?;
        let v = read_int(&x, x_td)?;
        let (lo, _) = int_range(x_td.kind).unwrap_or((0, 0));
        if x_td.kind.is_signed() && v == lo {
            return Err(Failure::failed(format!(
                "abs of {v} overflows {}",
                x_td.kind.name()
            )));
        }
        write_int(&result_out, result_td, v.abs())
    }
}

/// Keeps one of two owned values (`pick_first` decides from their order), moving it to
/// `out`, and destroys the other.
///
/// # Safety
/// `rt` live; `a` and `b` initialized values of `a_td`/`b_td` the native owns; `out`
/// room for a `result_td` value.
#[allow(clippy::too_many_arguments)]
unsafe fn keep_one(
    rt: RtHandle,
    a: AnyOwned<'_>,
    a_td: &TyDesc,
    b: AnyOwned<'_>,
    b_td: &TyDesc,
    out: AnyOut<'_>,
    result_td: &TyDesc,
    pick_first: fn(Ordering) -> bool,
) -> Result<(), Failure> {
    if !same_tydesc(a_td, b_td) || !same_tydesc(a_td, result_td) {
        let message = format!(
            "comparing a {} with a {} into a {}",
            a_td.type_name(),
            b_td.type_name(),
            result_td.type_name()
        );
        drop_value(rt, &a, a_td);
        drop_value(rt, &b, b_td);
        return Err(Failure::type_mismatch(message));
    }
    if pick_first(compare_values(rt, &a, &b, a_td)) {
        move_value(&a, &out, a_td);
        drop_value(rt, &b, b_td);
    } else {
        move_value(&b, &out, b_td);
        drop_value(rt, &a, a_td);
    }
    Ok(())
}

/// Natives that keep one of two owned values: the first when `$pick_first` holds of their
/// order.
macro_rules! keep_one {
    ($($(#[$doc:meta])* $name:ident = $pick_first:expr;)*) => {
        datalove_rti::natives! {$(
            $(#[$doc])*
            fn $name(rt, a: AnyOwned<'_>, a_td, b: AnyOwned<'_>, b_td, result_out: AnyOut<'_>, result_td) {
                keep_one(rt, a, a_td, b, b_td, result_out, result_td, $pick_first)
            }
        )*}
    };
}

keep_one! {
    /// The smaller by the runtime's order (`a` on a tie); the other is destroyed.
    dlr_std__min = |o| o != Ordering::Greater;
    /// The larger by the runtime's order (`b` on a tie); the other is destroyed.
    dlr_std__max = |o| o == Ordering::Greater;
}

// ---------------------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// The program's arguments, as the runtime holds them.
    fn dlr_std__program_args(rt, result_out: &mut MaybeUninit<rtdt::List>, _result_td) {
        check(rt, call::dtlv_rti_program_args(rt, result_out))
    }
}

// ---------------------------------------------------------------------------------------
// Reflection
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// The value's type as text, as the runtime spells it: `u8`, `[string]`, `?(i32, f64)`.
    fn dlr_std__describe(
        rt,
        _value: AnyRef<'_>, value_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        check(rt, call::dtlv_rti_type_name(rt, value_td, result_out))
    }
}

// ---------------------------------------------------------------------------------------
// Strings: splitting, joining, trimming, replacing (issue 17)
// ---------------------------------------------------------------------------------------

/// Writes a new list of `list_td` (a `[string]`) holding `pieces` at `out`. On a failure
/// the part already built is destroyed and `out` is left uninitialized.
///
/// # Safety
/// `rt` live; `list_td` well formed; `out` room for a list.
unsafe fn write_string_list<'p>(
    rt: RtHandle,
    pieces: impl IntoIterator<Item = &'p str>,
    out: &mut MaybeUninit<rtdt::List>,
    list_td: &TyDesc,
) -> Result<(), Failure> {
    let elem_td = list_elem(list_td)?;
    expect_kind(elem_td, TyKind::String)?;
    check(rt, call::dtlv_rti_list_new(rt, elem_td, 0, out))?;
    push_each(rt, out, list_td, elem_td, pieces, |piece, dst| {
        dst.cast::<rtdt::String>().write(new_string(rt, piece)?);
        Ok(())
    })
}

datalove_rti::natives! {
    /// The pieces between the matches of `sep`; an empty separator is refused (it would
    /// match between every two characters).
    fn dlr_std__string_split(
        rt,
        s: &rtdt::String, _s_td,
        sep: &rtdt::String, _sep_td,
        result_out: &mut MaybeUninit<rtdt::List>, result_td,
    ) {
        if sep.is_empty() {
            return Err(Failure::failed("the separator is empty"));
        }
        split_result(rt, s, Some(sep), result_out, result_td)
    }

    /// The words: the non-empty pieces between runs of Unicode whitespace.
    fn dlr_std__string_split_whitespace(
        rt,
        s: &rtdt::String, _s_td,
        result_out: &mut MaybeUninit<rtdt::List>, result_td,
    ) {
        split_result(rt, s, None, result_out, result_td)
    }
}

/// The pieces of `s` (between the matches of `sep`, or between runs of whitespace) as a
/// `[string]` at `out`, made by the runtime's `string_split`: the list at its length,
/// each piece copied once.
///
/// # Safety
/// `rt` live; `out` room for a list.
unsafe fn split_result(
    rt: RtHandle,
    s: &rtdt::String,
    sep: Option<&rtdt::String>,
    out: &mut MaybeUninit<rtdt::List>,
    list_td: &TyDesc,
) -> Result<(), Failure> {
    expect_kind(list_elem(list_td)?, TyKind::String)?;
    check(rt, call::dtlv_rti_string_split(rt, s, sep, out))
}

from_text! { rtdt::List, write_string_list:
    /// Each character as a string of its own.
    dlr_std__string_chars = |s| s.char_indices().map(|(at, c)| &s[at..at + c.len_utf8()]);
}

datalove_rti::natives! {
    /// The parts with `sep` between each two.
    fn dlr_std__string_join(
        rt,
        parts: &rtdt::List, parts_td,
        sep: &rtdt::String, _sep_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let elem_td = list_elem(parts_td)?;
        expect_kind(elem_td, TyKind::String)?;
        let mut text = std::string::String::new();
        for i in 0..parts.len() {
            if i > 0 {
                text.push_str(sep.as_str());
            }
            let part = &*element(rt, parts, elem_td, i).cast::<rtdt::String>();
            text.push_str(part.as_str());
        }
        make_string(rt, &text, result_out)
    }
}

from_text! { rtdt::String, string_result:
    /// Without Unicode whitespace at either end.
    dlr_std__string_trim = |s| s.trim();
    /// Without Unicode whitespace at the start.
    dlr_std__string_trim_start = |s| s.trim_start();
    /// Without Unicode whitespace at the end.
    dlr_std__string_trim_end = |s| s.trim_end();
}

string_test! {
    dlr_std__string_starts_with = |s, prefix| s.starts_with(prefix);
    dlr_std__string_ends_with = |s, suffix| s.ends_with(suffix);
}

datalove_rti::natives! {
    /// Every match of `from`, left to right without overlaps, replaced by `to`; an empty
    /// `from` is refused.
    fn dlr_std__string_replace(
        rt,
        s: &rtdt::String, _s_td,
        from: &rtdt::String, _from_td,
        to: &rtdt::String, _to_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        if from.is_empty() {
            return Err(Failure::failed("the text to replace is empty"));
        }
        make_string(
            rt,
            &s.as_str().replace(from.as_str(), to.as_str()),
            result_out,
        )
    }
}

datalove_rti::natives! {
    /// `n` copies of `s` end to end; fails, without allocating, when they cannot fit.
    fn dlr_std__string_repeat(
        rt,
        s: &rtdt::String, _s_td,
        n: &rtdt::Index, _n_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let text = s.as_str();
        let total = usize::try_from(n.0)
            .ok()
            .and_then(|n| n.checked_mul(text.len()))
            .filter(|&total| total <= datalove_rti::layout::MAX_BUFFER_BYTES);
        let Some(total) = total else {
            return Err(Failure::failed(format!(
                "{} copies of a string of {} bytes do not fit in memory",
                n.0,
                text.len()
            )));
        };
        // In the runtime's memory, all of it asked for first: a result past the memory
        // limit (or the system's) ends the program with the runtime's `out of memory`
        // line before any byte is written.
        let mut repeated = RuntimeBytes::new(rt);
        repeated.reserve(total)?;
        for _ in 0..n.0.min(total as u64) {
            repeated.extend(text.as_bytes())?;
        }
        result_out.write(repeated.into_string("the repeated string")?);
        Ok(())
    }
}

datalove_rti::natives! {
    /// The UTF-8 bytes.
    fn dlr_std__string_bytes(
        rt,
        s: &rtdt::String, _s_td,
        result_out: &mut MaybeUninit<rtdt::List>, result_td,
    ) {
        let elem_td = list_elem(result_td)?;
        expect_kind(elem_td, TyKind::U8)?;
        let bytes = s.as_str().as_bytes();
        check(
            rt,
            call::dtlv_rti_list_new(rt, elem_td, bytes.len(), result_out),
        )?;
        push_each(rt, result_out, result_td, elem_td, bytes, |&b, dst| {
            dst.write(b);
            Ok(())
        })
    }
}

// ---------------------------------------------------------------------------------------
// Input and output (issue 17)
// ---------------------------------------------------------------------------------------

/// The system's reason for an I/O failure, without Rust's ` (os error N)` suffix, so an
/// error line reads `... "data.txt": No such file or directory`.
fn io_reason(error: &std::io::Error) -> std::string::String {
    let text = error.to_string();
    match text.find(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

/// `bytes` as text; `what` names where they came from in the failure.
fn utf8_text(bytes: Vec<u8>, what: &str) -> Result<std::string::String, Failure> {
    std::string::String::from_utf8(bytes).map_err(|e| {
        Failure::failed(format!(
            "{what} is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

datalove_rti::natives! {
    /// The rest of standard input.
    fn dlr_std__read_stdin(
        rt,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let text = read_all(rt, &mut std::io::stdin().lock(), "stdin")
            .map_err(|e| e.unwrap_or_else(|e| Failure::failed(format!("cannot read stdin: {}", io_reason(&e)))))?;
        result_out.write(text);
        Ok(())
    }
}

datalove_rti::natives! {
    /// The next line of standard input without its `\n` (or `\r\n`); none at the end of
    /// input. A last line without a newline is a line.
    fn dlr_std__read_line(
        rt,
        result_out: AnyOut<'_>, result_td,
    ) {
        use std::io::BufRead;
        let mut bytes = Vec::new();
        let read = std::io::stdin()
            .lock()
            .read_until(b'\n', &mut bytes)
            .map_err(|e| Failure::failed(format!("cannot read stdin: {}", io_reason(&e))))?;
        if read == 0 {
            return write_optional_string(rt, &result_out, result_td, None);
        }
        if bytes.ends_with(b"\n") {
            bytes.pop();
            if bytes.ends_with(b"\r") {
                bytes.pop();
            }
        }
        let text = utf8_text(bytes, "a line of stdin")?;
        write_optional_string(rt, &result_out, result_td, Some(&text))
    }
}

datalove_rti::natives! {
    /// The whole file at `path` (relative to the working directory), as text.
    fn dlr_std__read_file(
        rt,
        path: &rtdt::String, _path_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        result_out.write(read_to_runtime(rt, path.as_str())?);
        Ok(())
    }
}

datalove_rti::natives! {
    /// The file's text, or none when it cannot be read (missing, unreadable, not UTF-8).
    fn dlr_std__try_read_file(
        rt,
        path: &rtdt::String, _path_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        let (payload_td, offset) = option_payload(result_td)?;
        expect_kind(payload_td, TyKind::String)?;
        match read_to_runtime(rt, path.as_str()) {
            Ok(text) => {
                payload_slot(&result_out, offset).cast::<rtdt::String>().write(text);
                set_some(&result_out);
            }
            Err(_) => write_none(rt, &result_out, result_td),
        }
        Ok(())
    }
}

datalove_rti::natives! {
    /// Creates or replaces the file at `path` with `text`.
    fn dlr_std__write_file(
        rt,
        path: &rtdt::String, _path_td,
        text: &rtdt::String, _text_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        write_text(path.as_str(), text.as_str())
    }
}

datalove_rti::natives! {
    /// Writes the file as `write_file` does; none when written, else why it was not.
    fn dlr_std__try_write_file(
        rt,
        path: &rtdt::String, _path_td,
        text: &rtdt::String, _text_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        let failed = write_text(path.as_str(), text.as_str()).err();
        write_optional_string(rt, &result_out, result_td, failed.as_ref().map(|f| f.message.as_str()))
    }
}

/// The text of the file at `path`; a failure names the path and the reason.
/// Everything `reader` gives, read into the runtime's memory ([`RuntimeBytes`]: an
/// endless source fails at the memory limit, or the system's, with the runtime's `out of
/// memory` line), as a string when it is UTF-8 (`WHAT is not UTF-8` else). `Err(Err(e))`:
/// the read failed.
///
/// # Safety
/// `rt` live.
unsafe fn read_all(
    rt: RtHandle,
    reader: &mut impl std::io::Read,
    what: &str,
) -> Result<rtdt::String, Result<Failure, std::io::Error>> {
    /// The most read at once.
    const CHUNK: usize = 1 << 16;
    let mut bytes = RuntimeBytes::new(rt);
    loop {
        bytes.reserve(CHUNK).map_err(Ok)?;
        match reader.read(bytes.spare(CHUNK)) {
            Ok(0) => break,
            Ok(n) => bytes.advance(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Err(e)),
        }
    }
    bytes.into_string(what).map_err(Ok)
}

/// The text of the file at `path` in the runtime's memory ([`read_all`]); a failure
/// names the path.
///
/// # Safety
/// `rt` live.
unsafe fn read_to_runtime(rt: RtHandle, path: &str) -> Result<rtdt::String, Failure> {
    let why =
        |e: std::io::Error| Failure::failed(format!("cannot read {path:?}: {}", io_reason(&e)));
    let mut file = std::fs::File::open(path).map_err(why)?;
    read_all(rt, &mut file, &format!("{path:?}")).map_err(|e| e.unwrap_or_else(why))
}

/// Creates or replaces the file at `path` with `text`; a failure names the path.
fn write_text(path: &str, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text.as_bytes())
        .map_err(|e| Failure::failed(format!("cannot write {path:?}: {}", io_reason(&e))))
}

/// Writes `text` as an `?string` at `out`: some of it, or none.
///
/// # Safety
/// `rt` live; `out` room for a value of `option_td`.
unsafe fn write_optional_string(
    rt: RtHandle,
    out: &AnyOut<'_>,
    option_td: &TyDesc,
    text: Option<&str>,
) -> Result<(), Failure> {
    let (payload_td, offset) = option_payload(option_td)?;
    expect_kind(payload_td, TyKind::String)?;
    let Some(text) = text else {
        write_none(rt, out, option_td);
        return Ok(());
    };
    let slot = payload_slot(out, offset).cast::<MaybeUninit<rtdt::String>>();
    make_string(rt, text, &mut *slot)?;
    set_some(out);
    Ok(())
}

datalove_rti::natives! {
    /// Writes `text` to stderr as it is, unbuffered (stdout, where `debuglog` goes, is
    /// buffered: the two interleave in the order written only when stdout is flushed).
    fn dlr_std__write_stderr(
        rt,
        text: &rtdt::String, _text_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        use std::io::Write;
        std::io::stderr()
            .write_all(text.as_str().as_bytes())
            .map_err(|e| Failure::failed(format!("cannot write to stderr: {}", io_reason(&e))))
    }
}

datalove_rti::natives! {
    /// Ends the program with exit code `code`: raises the runtime's `exit` (which, like an
    /// error, unwinds every frame, dropping what it holds; nothing is printed) and fails so
    /// that the caller starts unwinding.
    fn dlr_std__exit_program(
        rt,
        code: &u8, _code_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        call::dtlv_rti_raise(rt, ErrorKind::Exit, &code.to_string());
        Err(Failure::failed(format!(
            "the program asked to exit with {code}"
        )))
    }
}

datalove_rti::natives! {
    /// The value as text, as `debuglog` writes it (the runtime's one formatter): what
    /// `format`'s `{}` writes for a value that is not a number or a string.
    fn dlr_std__format_value(
        rt,
        value: AnyRef<'_>, value_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        check(
            rt,
            call::dtlv_rti_format(rt, value.as_ptr().cast::<c_void>(), value_td, result_out),
        )
    }
}

// ---------------------------------------------------------------------------------------
// Bigints (issue 16)
// ---------------------------------------------------------------------------------------

/// A runtime bigint as `num-bigint` computes with it. The runtime keeps every bigint in
/// one form (`datalove_rti::layout`), so its limbs are read as they are.
fn to_num(b: &rtdt::BigInt) -> BigInt {
    let digits: Vec<u32> = b
        .limbs()
        .iter()
        .flat_map(|&limb| [limb as u32, (limb >> 32) as u32])
        .collect();
    let sign = if b.is_negative() {
        Sign::Minus
    } else {
        Sign::Plus
    };
    BigInt::from_biguint(sign, BigUint::new(digits))
}

/// Writes a new runtime bigint of the value `n` into `out`.
///
/// # Safety
/// `rt` must be live.
unsafe fn make_bigint(
    rt: RtHandle,
    n: &BigInt,
    out: &mut MaybeUninit<rtdt::BigInt>,
) -> Result<(), Failure> {
    let (sign, limbs) = n.to_u64_digits();
    check(
        rt,
        call::dtlv_rti_bigint_from_limbs(rt, sign == Sign::Minus, &limbs, out),
    )
}

/// Whether `text` is an integer as `bigint_parse` reads one: an optional `+` or `-`, then
/// one or more ASCII digits, nothing else.
pub fn is_bigint_text(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `a / b` or `a % b` (`op`), refusing a zero `b` with the runtime's `division by zero`
/// error (`bigint division`, `bigint remainder`), as fixed-width arithmetic does.
///
/// # Safety
/// `rt` must be live.
unsafe fn bigint_divide(
    rt: RtHandle,
    a: &rtdt::BigInt,
    b: &rtdt::BigInt,
    op: ArithOp,
    out: &mut MaybeUninit<rtdt::BigInt>,
) -> Result<(), Failure> {
    if b.is_zero() {
        call::dtlv_rti_raise_arith(rt, ErrorKind::DivisionByZero, op, TyKind::BigInt);
        return Err(Failure::failed(format!("bigint {}", op.name())));
    }
    let (a, b) = (to_num(a), to_num(b));
    let n = if op == ArithOp::Div { a / b } else { a % b };
    make_bigint(rt, &n, out)
}

datalove_rti::natives! {
    fn dlr_std__bigint_from_int(
        rt,
        value: AnyOwned<'_>, value_td,
        result_out: &mut MaybeUninit<rtdt::BigInt>, _result_td,
    ) {
        expect_fixedint(value_td)?;
        make_bigint(rt, &BigInt::from(read_int(&value, value_td)?), result_out)
    }

    /// `T` is undetermined: the call site's trailing descriptor names the integer. A value
    /// outside `T` is the runtime's `overflow` error `bigint to T conversion`, as a
    /// narrowing `as` is.
    fn dlr_std__bigint_to_int(
        rt,
        b: &rtdt::BigInt, _b_td,
        result_out: AnyOut<'_>, result_td
        ; t_td
    ) {
        expect_fixedint(t_td)?;
        expect_asked_for(t_td, result_td, result_td)?;
        let (lo, hi) = int_range(t_td.kind).unwrap_or((0, 0));
        match i128::try_from(to_num(b)) {
            Ok(v) if (lo..=hi).contains(&v) => write_int(&result_out, result_td, v),
            _ => {
                call::dtlv_rti_raise_cast(rt, ErrorKind::Overflow, TyKind::BigInt, t_td.kind);
                Err(Failure::failed(format!(
                    "bigint to {} conversion",
                    t_td.kind.name()
                )))
            }
        }
    }

    fn dlr_std__bigint_parse(
        rt,
        s: &rtdt::String, _s_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        let text = s.as_str();
        let parsed = is_bigint_text(text).then(|| text.parse::<BigInt>().ok()).flatten();
        write_option(rt, &result_out, result_td, parsed, |slot, payload_td, n| {
            expect_kind(payload_td, TyKind::BigInt)?;
            make_bigint(rt, &n, &mut *slot.cast::<MaybeUninit<rtdt::BigInt>>())
        })
    }

    /// The runtime's format (decimal), the one `debuglog` uses.
    fn dlr_std__bigint_to_string(
        rt,
        b: &rtdt::BigInt, b_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let value = (b as *const rtdt::BigInt).cast::<c_void>();
        check(rt, call::dtlv_rti_format(rt, value, b_td, result_out))
    }

}

/// Natives of two bigints read by reference and a new bigint: `fn name(rt, a, b, out)`.
macro_rules! bigint_binary {
    ($($(#[$doc:meta])* fn $name:ident($rt:ident, $a:ident, $b:ident, $out:ident) $body:block)*) => {
        datalove_rti::natives! {$(
            $(#[$doc])*
            fn $name(
                $rt,
                $a: &rtdt::BigInt, _a_td,
                $b: &rtdt::BigInt, _b_td,
                $out: &mut MaybeUninit<rtdt::BigInt>, _result_td,
            ) $body
        )*}
    };
}

bigint_binary! {
    fn dlr_std__bigint_add(rt, a, b, out) {
        make_bigint(rt, &(to_num(a) + to_num(b)), out)
    }

    fn dlr_std__bigint_sub(rt, a, b, out) {
        make_bigint(rt, &(to_num(a) - to_num(b)), out)
    }

    fn dlr_std__bigint_mul(rt, a, b, out) {
        make_bigint(rt, &(to_num(a) * to_num(b)), out)
    }

    /// Rounds toward zero, as fixed-width division does.
    fn dlr_std__bigint_div(rt, a, b, out) {
        bigint_divide(rt, a, b, ArithOp::Div, out)
    }

    /// Takes the sign of `a`, as fixed-width remainder does.
    fn dlr_std__bigint_rem(rt, a, b, out) {
        bigint_divide(rt, a, b, ArithOp::Rem, out)
    }
}

datalove_rti::natives! {
    fn dlr_std__bigint_neg(
        rt,
        a: &rtdt::BigInt, _a_td,
        result_out: &mut MaybeUninit<rtdt::BigInt>, _result_td,
    ) {
        make_bigint(rt, &-to_num(a), result_out)
    }

    fn dlr_std__bigint_abs(
        rt,
        a: &rtdt::BigInt, _a_td,
        result_out: &mut MaybeUninit<rtdt::BigInt>, _result_td,
    ) {
        make_bigint(rt, &BigInt::from(to_num(a).into_parts().1), result_out)
    }

    fn dlr_std__bigint_pow(
        rt,
        a: &rtdt::BigInt, _a_td,
        exponent: &u32, _exponent_td,
        result_out: &mut MaybeUninit<rtdt::BigInt>, _result_td,
    ) {
        make_bigint(rt, &to_num(a).pow(*exponent), result_out)
    }

    /// The runtime's order, as `<` and `==` on two bigints compare them.
    fn dlr_std__bigint_cmp(
        rt,
        a: &rtdt::BigInt, a_td,
        b: &rtdt::BigInt, _b_td,
        result_out: &mut MaybeUninit<i32>, _result_td,
    ) {
        let (a, b) = (
            (a as *const rtdt::BigInt).cast::<c_void>(),
            (b as *const rtdt::BigInt).cast::<c_void>(),
        );
        result_out.write(call::dtlv_rti_cmp(rt, a, b, a_td) as i32);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigint_text_is_a_sign_and_digits() {
        for good in ["0", "-0", "+12", "123456789012345678901234567890"] {
            assert!(is_bigint_text(good), "{good}");
        }
        for bad in ["", "-", "+-1", "1_000", " 1", "1 ", "0x10", "1e3", "١"] {
            assert!(!is_bigint_text(bad), "{bad}");
        }
    }

    #[test]
    fn parse_int_text_respects_ranges() {
        assert_eq!(parse_int_text("42", TyKind::U8), Some(42));
        assert_eq!(parse_int_text("+42", TyKind::I8), Some(42));
        assert_eq!(parse_int_text("-128", TyKind::I8), Some(-128));
        assert_eq!(parse_int_text("-129", TyKind::I8), None);
        assert_eq!(parse_int_text("256", TyKind::U8), None);
        assert_eq!(parse_int_text("-1", TyKind::U64), None);
        assert_eq!(
            parse_int_text("18446744073709551615", TyKind::U64),
            Some(u64::MAX as i128)
        );
        assert_eq!(parse_int_text("", TyKind::I32), None);
        assert_eq!(parse_int_text(" 1", TyKind::I32), None);
        assert_eq!(parse_int_text("1_000", TyKind::I32), None);
        assert_eq!(parse_int_text("0x10", TyKind::I32), None);
        assert_eq!(parse_int_text("1", TyKind::F64), None);
    }

    #[test]
    fn fixed_text_rounds_like_printf() {
        assert_eq!(fixed_text(-0.169075164, 9).as_deref(), Some("-0.169075164"));
        assert_eq!(fixed_text(1.0, 0).as_deref(), Some("1"));
        assert_eq!(fixed_text(2.5, 0).as_deref(), Some("2"));
        assert_eq!(fixed_text(0.125, 2).as_deref(), Some("0.12"));
        assert_eq!(fixed_text(0.375, 2).as_deref(), Some("0.38"));
        assert_eq!(
            fixed_text(1e21, 1).as_deref(),
            Some("1000000000000000000000.0")
        );
        assert_eq!(fixed_text(-0.0, 3).as_deref(), Some("-0.000"));
        assert_eq!(fixed_text(f64::NAN, 3).as_deref(), Some("NaN"));
        assert_eq!(fixed_text(f64::NEG_INFINITY, 3).as_deref(), Some("-inf"));
        assert_eq!(fixed_text(5e-324, 1074).map(|t| t.len()), Some(1076));
        assert_eq!(fixed_text(1.0, 1075), None);
    }

    #[test]
    fn io_failures_read_as_one_clean_line() {
        let missing = std::fs::read("/nonexistent/datalove/file").unwrap_err();
        assert_eq!(io_reason(&missing), "No such file or directory");
        let custom = std::io::Error::other("closed (for now)");
        assert_eq!(io_reason(&custom), "closed (for now)");
        assert_eq!(utf8_text(b"ok".to_vec(), "x").ok().as_deref(), Some("ok"));
        let failure = utf8_text(b"ab\xffc".to_vec(), "\"bad.txt\"").unwrap_err();
        assert_eq!(failure.message, "\"bad.txt\" is not UTF-8 (byte 2)");
    }

    #[test]
    fn fixedint_excludes_index() {
        assert!(is_fixedint(TyKind::U8));
        assert!(is_fixedint(TyKind::I64));
        assert!(!is_fixedint(TyKind::Index));
        assert!(!is_fixedint(TyKind::F32));
    }
}
