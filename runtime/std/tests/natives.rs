//! The std natives called as a backend calls them, through their C-ABI functions, on a
//! real runtime (`datalove-rt`). Every test ends by checking nothing leaked.

use std::ffi::c_void;
use std::mem::MaybeUninit;

use datalove_rt::{Runtime, RuntimeOptions};
use datalove_rti::rider_helpers::{drop_string, format_value, new_string};
use datalove_rti::rtdt::{self, AnyOut, AnyOwned, AnyRef, RtHandle};
use datalove_rti::status::{STATUS_FAILED, STATUS_OK, STATUS_OUT_OF_BOUNDS, STATUS_TYPE_MISMATCH};
use datalove_rti::tydesc::{
    OwnedTyDesc, F32_TYDESC, F64_TYDESC, I32_TYDESC, I64_TYDESC, I8_TYDESC, INDEX_TYDESC,
    STRING_TYDESC, U64_TYDESC, U8_TYDESC, UNIT_TYDESC,
};
use datalove_rti::{call, TyDesc, TyKind};
use dlr_std::*;

static BOOL_TD: &TyDesc = &datalove_rti::tydesc::BOOL_TYDESC;

/// A runtime for one test; checks for leaks when dropped.
struct Rt {
    rt: Box<Runtime>,
}

impl Rt {
    fn new() -> Rt {
        Rt {
            rt: Runtime::new(RuntimeOptions::capturing()),
        }
    }

    fn h(&self) -> RtHandle {
        self.rt.rt_handle()
    }

    fn s(&self, text: &str) -> rtdt::String {
        unsafe { new_string(self.h(), text).unwrap() }
    }

    /// Takes a string result, frees it and returns its text.
    fn take(&self, out: MaybeUninit<rtdt::String>) -> String {
        unsafe {
            let s = out.assume_init();
            let text = s.as_str().to_owned();
            drop_string(self.h(), s);
            text
        }
    }

    /// The text of the string `native` writes at its argument (answering `STATUS_OK`); the
    /// string is freed.
    #[track_caller]
    fn text_of(&self, native: impl FnOnce(&mut MaybeUninit<rtdt::String>) -> u8) -> String {
        let mut out = MaybeUninit::uninit();
        assert_eq!(native(&mut out), STATUS_OK);
        self.take(out)
    }

    fn free(&self, s: rtdt::String) {
        unsafe { drop_string(self.h(), s) }
    }

    fn message(&self) -> String {
        unsafe { call::dtlv_rti_error_message(self.h()) }
    }

    /// A refused call: it returned `expected` (`status`), and the runtime's error message
    /// is `message`.
    fn assert_refused(&self, status: u8, expected: u8, message: &str) {
        assert_eq!(status, expected, "{message}");
        assert_eq!(self.message(), message);
    }

    fn list<E: Copy>(&self, elem_td: &TyDesc, values: &[E]) -> rtdt::List {
        unsafe {
            let mut out = MaybeUninit::uninit();
            assert_eq!(
                call::dtlv_rti_list_new(self.h(), elem_td, values.len(), &mut out),
                STATUS_OK
            );
            let mut list = out.assume_init();
            for v in values {
                let mut v = *v;
                let p: *mut E = &mut v;
                assert_eq!(
                    call::dtlv_rti_list_push(self.h(), &mut list, elem_td, p.cast()),
                    STATUS_OK
                );
            }
            list
        }
    }

    fn string_list(&self, values: &[&str]) -> rtdt::List {
        let mut list = self.list::<u8>(&STRING_TYDESC, &[]);
        for v in values {
            let mut s = self.s(v);
            let p: *mut rtdt::String = &mut s;
            unsafe {
                assert_eq!(
                    call::dtlv_rti_list_push(self.h(), &mut list, &STRING_TYDESC, p.cast()),
                    STATUS_OK
                );
            }
            // `s` was moved into the list.
        }
        list
    }

    fn elements<E: Copy>(&self, list: &rtdt::List, elem_td: &TyDesc) -> Vec<E> {
        (0..list.len())
            .map(|i| unsafe {
                call::dtlv_rti_list_at(self.h(), list, elem_td, i)
                    .cast::<E>()
                    .read()
            })
            .collect()
    }

    fn strings(&self, list: &rtdt::List) -> Vec<String> {
        (0..list.len())
            .map(|i| unsafe {
                let p = call::dtlv_rti_list_at(self.h(), list, &STRING_TYDESC, i);
                (*p.cast::<rtdt::String>()).as_str().to_owned()
            })
            .collect()
    }

    fn drop_list(&self, mut list: rtdt::List, list_td: &TyDesc) {
        let p: *mut rtdt::List = &mut list;
        unsafe { call::dtlv_rti_drop(self.h(), p.cast(), list_td) }
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert_eq!(self.rt.alloc_stats().live, 0, "the test leaked");
        }
    }
}

fn any_ref<T>(v: &T) -> AnyRef<'_> {
    unsafe { AnyRef::from_raw((v as *const T).cast_mut().cast()) }
}

fn any_owned<T>(v: &mut T) -> AnyOwned<'_> {
    unsafe { AnyOwned::from_raw((v as *mut T).cast()) }
}

fn any_out<T>(v: &mut MaybeUninit<T>) -> AnyOut<'_> {
    unsafe { AnyOut::from_raw(v.as_mut_ptr().cast()) }
}

fn ix(i: u64) -> rtdt::Index {
    rtdt::Index(i)
}

/// Calls `native` with `value` handed over (the runtime owns or destroys it) and a unit
/// result slot: `place` and `push`.
fn hand_over<T>(value: T, native: impl FnOnce(AnyOwned<'_>, &mut MaybeUninit<()>) -> u8) -> u8 {
    let mut value = std::mem::ManuallyDrop::new(value);
    let mut done = MaybeUninit::uninit();
    native(any_owned(&mut *value), &mut done)
}

/// `dlr_std__list_set` or `dlr_std__list_insert`: each moves a value into a list at an
/// index.
type Placing = unsafe extern "C-unwind" fn(
    RtHandle,
    &mut rtdt::List,
    &TyDesc,
    &rtdt::Index,
    &TyDesc,
    AnyOwned<'_>,
    &TyDesc,
    &mut MaybeUninit<()>,
    &TyDesc,
) -> u8;

/// Calls `native` to move `value` (of type `td`) into `xs` (of type `list_td`) at `i`,
/// handing the value over (the runtime owns or destroys it).
unsafe fn place<T>(
    t: &Rt,
    native: Placing,
    xs: &mut rtdt::List,
    list_td: &TyDesc,
    i: u64,
    value: T,
    td: &TyDesc,
) -> u8 {
    hand_over(value, |value, done| {
        native(
            t.h(),
            xs,
            list_td,
            &ix(i),
            &INDEX_TYDESC,
            value,
            td,
            done,
            &UNIT_TYDESC,
        )
    })
}

/// Calls `dlr_std__list_push` to move `value` (of type `td`) onto `xs` (of type
/// `list_td`), handing the value over.
unsafe fn push<T>(t: &Rt, xs: &mut rtdt::List, list_td: &TyDesc, value: T, td: &TyDesc) -> u8 {
    hand_over(value, |value, done| {
        dlr_std__list_push(t.h(), xs, list_td, value, td, done, &UNIT_TYDESC)
    })
}

/// Calls `dlr_std__list_remove` to move element `i` (of type `td`) out of `xs`: the
/// status and the result slot.
unsafe fn remove<T>(
    t: &Rt,
    xs: &mut rtdt::List,
    list_td: &TyDesc,
    i: u64,
    td: &TyDesc,
) -> (u8, MaybeUninit<T>) {
    let mut removed = MaybeUninit::uninit();
    let status = dlr_std__list_remove(
        t.h(),
        xs,
        list_td,
        &ix(i),
        &INDEX_TYDESC,
        any_out(&mut removed),
        td,
    );
    (status, removed)
}

/// `dlr_std__min` or `dlr_std__max`: each keeps one of two owned values.
type Pick = unsafe extern "C-unwind" fn(
    RtHandle,
    AnyOwned<'_>,
    &TyDesc,
    AnyOwned<'_>,
    &TyDesc,
    AnyOut<'_>,
    &TyDesc,
) -> u8;

/// Calls `native` on `a` and `b` (both of type `td`, as is the result), handing both
/// over: the status and the result slot.
unsafe fn pick<T>(t: &Rt, native: Pick, a: T, b: T, td: &TyDesc) -> (u8, MaybeUninit<T>) {
    let (mut a, mut b) = (
        std::mem::ManuallyDrop::new(a),
        std::mem::ManuallyDrop::new(b),
    );
    let mut out = MaybeUninit::uninit();
    let status = native(
        t.h(),
        any_owned(&mut *a),
        td,
        any_owned(&mut *b),
        td,
        any_out(&mut out),
        td,
    );
    (status, out)
}

/// Calls `dlr_std__abs` on `x` (of type `td`, as is the result): the status and the
/// result slot.
unsafe fn abs<T>(t: &Rt, mut x: T, td: &TyDesc) -> (u8, MaybeUninit<T>) {
    let mut out = MaybeUninit::uninit();
    let status = dlr_std__abs(t.h(), any_owned(&mut x), td, any_out(&mut out), td);
    (status, out)
}

/// An option result slot: (tag, payload bytes at the descriptor's offset).
#[repr(C, align(8))]
struct OptSlot([u8; 64]);

impl OptSlot {
    fn new() -> OptSlot {
        OptSlot([0xAA; 64])
    }
    fn out(&mut self) -> AnyOut<'_> {
        unsafe { AnyOut::from_raw(self.0.as_mut_ptr()) }
    }
    /// The option `native` writes at its argument (answering `STATUS_OK`), of type `opt`.
    #[track_caller]
    fn returned<T: Copy>(opt: &TyDesc, native: impl FnOnce(AnyOut<'_>) -> u8) -> Option<T> {
        let mut slot = OptSlot::new();
        assert_eq!(native(slot.out()), STATUS_OK);
        slot.get(opt)
    }
    fn get<T: Copy>(&self, td: &TyDesc) -> Option<T> {
        match self.0[0] {
            0 => None,
            1 => Some(unsafe {
                self.0
                    .as_ptr()
                    .add(td.payload_offset)
                    .cast::<T>()
                    .read_unaligned()
            }),
            tag => panic!("option tag {tag}"),
        }
    }
}

fn option_of(kind: TyKind) -> OwnedTyDesc {
    OwnedTyDesc::option(OwnedTyDesc::scalar(kind))
}

fn list_of(kind: TyKind) -> OwnedTyDesc {
    OwnedTyDesc::list(OwnedTyDesc::scalar(kind))
}

// ---------------------------------------------------------------------------------------

#[test]
fn fixedint_zero_uses_the_trailing_descriptor() {
    let t = Rt::new();
    unsafe {
        let mut out = MaybeUninit::<i64>::new(-1);
        let st = dlr_std__fixedint_zero(t.h(), any_out(&mut out), &I64_TYDESC, &I64_TYDESC);
        assert_eq!(st, STATUS_OK);
        assert_eq!(out.assume_init(), 0);
        let mut out = MaybeUninit::<u8>::new(7);
        assert_eq!(
            dlr_std__fixedint_zero(t.h(), any_out(&mut out), &U8_TYDESC, &U8_TYDESC),
            STATUS_OK
        );
        assert_eq!(out.assume_init(), 0);
        let mut out = MaybeUninit::<f64>::uninit();
        t.assert_refused(
            dlr_std__fixedint_zero(t.h(), any_out(&mut out), &F64_TYDESC, &F64_TYDESC),
            STATUS_TYPE_MISMATCH,
            "expected a fixed-width integer, got f64",
        );
    }
}

#[test]
fn strings() {
    let t = Rt::new();
    let st_td = &STRING_TYDESC;
    unsafe {
        let a = t.s("héllo");
        let b = t.s(", world");
        let mut len = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__string_len(t.h(), &a, st_td, &mut len, &INDEX_TYDESC),
            STATUS_OK
        );
        assert_eq!(len.assume_init(), ix(6));

        // Byte 2 of "héllo" is the second byte of `é` (0xC3 0xA9); byte 6 is past the end.
        let (idx, u8_td) = (&INDEX_TYDESC, &U8_TYDESC);
        let mut byte = MaybeUninit::<u8>::uninit();
        assert_eq!(
            dlr_std__string_byte_at(t.h(), &a, st_td, &ix(2), idx, &mut byte, u8_td),
            STATUS_OK
        );
        assert_eq!(byte.assume_init(), 0xA9);
        t.assert_refused(
            dlr_std__string_byte_at(t.h(), &a, st_td, &ix(6), idx, &mut byte, u8_td),
            STATUS_OUT_OF_BOUNDS,
            "index 6 out of bounds for length 6",
        );
        t.assert_refused(
            dlr_std__string_byte_at(t.h(), &a, st_td, &ix(u64::MAX), idx, &mut byte, u8_td),
            STATUS_OUT_OF_BOUNDS,
            &format!("index {} out of bounds for length 6", u64::MAX),
        );

        assert_eq!(
            t.text_of(|out| dlr_std__string_concat(t.h(), &a, st_td, &b, st_td, out, st_td)),
            "héllo, world"
        );

        let (idx, s) = (&INDEX_TYDESC, st_td);
        assert_eq!(
            t.text_of(|out| dlr_std__string_slice(t.h(), &a, s, &ix(3), idx, &ix(6), idx, out, s)),
            "llo"
        );
        let mut out = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__string_slice(t.h(), &a, s, &ix(2), idx, &ix(9), idx, &mut out, s),
            STATUS_OUT_OF_BOUNDS
        );
        assert_eq!(
            t.message(),
            "slice 2..9 out of bounds for string of length 6"
        );
        assert_eq!(
            dlr_std__string_slice(t.h(), &a, s, &ix(2), idx, &ix(6), idx, &mut out, s),
            STATUS_OUT_OF_BOUNDS
        );
        assert_eq!(
            t.message(),
            "slice 2..6: byte 2 is not on a character boundary"
        );
        t.assert_refused(
            dlr_std__string_slice(t.h(), &a, s, &ix(4), idx, &ix(3), idx, &mut out, s),
            STATUS_OUT_OF_BOUNDS,
            "slice 4..3 starts after it ends",
        );

        let opt = option_of(TyKind::Index);
        let needle = t.s("llo");
        let find = |needle: &rtdt::String| {
            OptSlot::returned::<u64>(&opt, |out| {
                dlr_std__string_find(t.h(), &a, s, needle, s, out, &opt)
            })
        };
        assert_eq!(find(&needle), Some(3));
        assert_eq!(find(&b), None);

        let mut found = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__string_contains(t.h(), &a, s, &needle, s, &mut found, BOOL_TD),
            STATUS_OK
        );
        assert!(found.assume_init());
        assert_eq!(
            dlr_std__string_contains(t.h(), &needle, s, &a, s, &mut found, BOOL_TD),
            STATUS_OK
        );
        assert!(!found.assume_init());

        let street = t.s("Straße");
        assert_eq!(
            t.text_of(|out| dlr_std__string_to_upper(t.h(), &street, s, out, s)),
            "STRASSE"
        );
        assert_eq!(
            t.text_of(|out| dlr_std__string_to_lower(t.h(), &street, s, out, s)),
            "straße"
        );

        for s in [a, b, needle, street] {
            t.free(s);
        }
    }
}

#[test]
fn conversions_to_string() {
    let t = Rt::new();
    let s = &STRING_TYDESC;
    unsafe {
        assert_eq!(
            t.text_of(|out| dlr_std__int_to_string(t.h(), any_ref(&-128i8), &I8_TYDESC, out, s)),
            "-128"
        );
        assert_eq!(
            t.text_of(|out| dlr_std__int_to_string(t.h(), any_ref(&u64::MAX), &U64_TYDESC, out, s)),
            "18446744073709551615"
        );
        let mut out = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__int_to_string(t.h(), any_ref(&1.0f64), &F64_TYDESC, &mut out, s),
            STATUS_TYPE_MISMATCH
        );

        // Floats are formatted by the runtime, exactly as debuglog prints them.
        for v in [1.5f64, 0.1, -0.0, 1e300, f64::NAN, f64::INFINITY, 3.0] {
            let text =
                t.text_of(|out| dlr_std__float_to_string(t.h(), any_ref(&v), &F64_TYDESC, out, s));
            let expected = format_value(t.h(), &any_ref(&v), &F64_TYDESC).unwrap();
            assert_eq!(text, expected, "{v}");
        }
        let v = 0.1f32;
        let text =
            t.text_of(|out| dlr_std__float_to_string(t.h(), any_ref(&v), &F32_TYDESC, out, s));
        let expected = format_value(t.h(), &any_ref(&v), &F32_TYDESC).unwrap();
        assert_eq!(text, expected);
        let mut out = MaybeUninit::uninit();
        t.assert_refused(
            dlr_std__float_to_string(t.h(), any_ref(&1u8), &U8_TYDESC, &mut out, s),
            STATUS_TYPE_MISMATCH,
            "expected a float, got u8",
        );
    }
}

#[test]
fn parsing() {
    let t = Rt::new();
    let s = &STRING_TYDESC;
    unsafe {
        let cases: [(&str, TyKind, Option<i128>); 6] = [
            ("255", TyKind::U8, Some(255)),
            ("256", TyKind::U8, None),
            ("-7", TyKind::I32, Some(-7)),
            ("seven", TyKind::I32, None),
            ("", TyKind::I64, None),
            ("-9223372036854775808", TyKind::I64, Some(i64::MIN as i128)),
        ];
        for (text, kind, expected) in cases {
            let opt = option_of(kind);
            let t_td = OwnedTyDesc::scalar(kind);
            let text_s = t.s(text);
            let mut slot = OptSlot::new();
            assert_eq!(
                dlr_std__parse_int(t.h(), &text_s, s, slot.out(), &opt, &t_td),
                STATUS_OK
            );
            let got = match kind {
                TyKind::U8 => slot.get::<u8>(&opt).map(i128::from),
                TyKind::I32 => slot.get::<i32>(&opt).map(i128::from),
                _ => slot.get::<i64>(&opt).map(i128::from),
            };
            assert_eq!(got, expected, "{text:?} as {kind:?}");
            t.free(text_s);
        }

        // `dlr_std__parse_float` of `text` as `t_td`, into a fresh slot of type `opt`.
        let parse_float = |text: &rtdt::String, opt: &TyDesc, t_td: &TyDesc| {
            let mut slot = OptSlot::new();
            let status = dlr_std__parse_float(t.h(), text, s, slot.out(), opt, t_td);
            (status, slot)
        };
        let opt = option_of(TyKind::F64);
        let text = t.s("2.5e3");
        let (status, slot) = parse_float(&text, &opt, &F64_TYDESC);
        assert_eq!(status, STATUS_OK);
        assert_eq!(slot.get::<f64>(&opt), Some(2500.0));
        let opt32 = option_of(TyKind::F32);
        let (status, slot) = parse_float(&text, &opt32, &F32_TYDESC);
        assert_eq!(status, STATUS_OK);
        assert_eq!(slot.get::<f32>(&opt32), Some(2500.0));
        t.free(text);
        let bad = t.s("2.5.3");
        let (status, slot) = parse_float(&bad, &opt, &F64_TYDESC);
        assert_eq!(status, STATUS_OK);
        assert_eq!(slot.get::<f64>(&opt), None);
        // A trailing descriptor that disagrees with the result slot is refused.
        assert_eq!(parse_float(&bad, &opt, &F32_TYDESC).0, STATUS_TYPE_MISMATCH);
        t.free(bad);
    }
}

#[test]
fn lists_of_scalars() {
    let t = Rt::new();
    let list_td = list_of(TyKind::I32);
    let e = &I32_TYDESC;
    let idx = &INDEX_TYDESC;
    let unit = &UNIT_TYDESC;
    unsafe {
        let mut xs = t.list(e, &[10i32, 20, 30]);
        let mut len = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__list_len(t.h(), &xs, &list_td, &mut len, idx),
            STATUS_OK
        );
        assert_eq!(len.assume_init(), ix(3));

        let mut got = MaybeUninit::<i32>::uninit();
        assert_eq!(
            dlr_std__list_get(t.h(), &xs, &list_td, &ix(1), idx, any_out(&mut got), e),
            STATUS_OK
        );
        assert_eq!(got.assume_init(), 20);
        t.assert_refused(
            dlr_std__list_get(t.h(), &xs, &list_td, &ix(7), idx, any_out(&mut got), e),
            STATUS_OUT_OF_BOUNDS,
            "index 7 out of bounds for length 3",
        );

        let mut done = MaybeUninit::uninit();
        assert_eq!(push(&t, &mut xs, &list_td, 40i32, e), STATUS_OK);
        assert_eq!(
            place(&t, dlr_std__list_set, &mut xs, &list_td, 0, 5i32, e),
            STATUS_OK
        );
        t.assert_refused(
            place(&t, dlr_std__list_set, &mut xs, &list_td, 4, 6i32, e),
            STATUS_OUT_OF_BOUNDS,
            "index 4 out of bounds for length 4",
        );
        assert_eq!(
            place(&t, dlr_std__list_insert, &mut xs, &list_td, 1, 15i32, e),
            STATUS_OK
        );
        t.assert_refused(
            place(&t, dlr_std__list_insert, &mut xs, &list_td, 9, 99i32, e),
            STATUS_OUT_OF_BOUNDS,
            "insertion index 9 out of bounds for length 5",
        );
        assert_eq!(t.elements::<i32>(&xs, e), [5, 15, 20, 30, 40]);

        let (status, removed) = remove::<i32>(&t, &mut xs, &list_td, 2, e);
        assert_eq!(status, STATUS_OK);
        assert_eq!(removed.assume_init(), 20);
        t.assert_refused(
            remove::<i32>(&t, &mut xs, &list_td, 4, e).0,
            STATUS_OUT_OF_BOUNDS,
            "index 4 out of bounds for length 4",
        );

        assert_eq!(
            dlr_std__list_reverse(t.h(), &mut xs, &list_td, &mut done, unit),
            STATUS_OK
        );
        assert_eq!(t.elements::<i32>(&xs, e), [40, 30, 15, 5]);

        push(&t, &mut xs, &list_td, -3i32, e);
        assert_eq!(
            dlr_std__list_sort(t.h(), &mut xs, &list_td, &mut done, unit),
            STATUS_OK
        );
        assert_eq!(t.elements::<i32>(&xs, e), [-3, 5, 15, 30, 40]);

        let opt = option_of(TyKind::I32);
        let pop = |xs: &mut rtdt::List| {
            OptSlot::returned::<i32>(&opt, |out| {
                dlr_std__list_pop(t.h(), xs, &list_td, out, &opt)
            })
        };
        assert_eq!(pop(&mut xs), Some(40));
        assert_eq!(xs.len(), 4);

        let mut empty = t.list::<i32>(e, &[]);
        assert_eq!(pop(&mut empty), None);

        // A value of another type than the list's is refused.
        t.assert_refused(
            push(&t, &mut xs, &list_td, 1u8, &U8_TYDESC),
            STATUS_TYPE_MISMATCH,
            "a u8 value where the list holds i32",
        );

        t.drop_list(xs, &list_td);
        t.drop_list(empty, &list_td);
    }
}

#[test]
fn lists_of_strings_move_and_destroy_their_values() {
    let t = Rt::new();
    let list_td = OwnedTyDesc::list(OwnedTyDesc::string());
    let s = &STRING_TYDESC;
    let idx = &INDEX_TYDESC;
    let unit = &UNIT_TYDESC;
    unsafe {
        let mut xs = t.string_list(&["pear", "apple", "fig", "banana"]);
        let mut done = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__list_sort(t.h(), &mut xs, &list_td, &mut done, unit),
            STATUS_OK
        );
        assert_eq!(t.strings(&xs), ["apple", "banana", "fig", "pear"]);
        assert_eq!(
            dlr_std__list_reverse(t.h(), &mut xs, &list_td, &mut done, unit),
            STATUS_OK
        );
        assert_eq!(t.strings(&xs), ["pear", "fig", "banana", "apple"]);

        // A refused set destroys the value: nothing leaks (checked when `t` drops).
        assert_eq!(
            place(&t, dlr_std__list_set, &mut xs, &list_td, 10, t.s("lost"), s),
            STATUS_OUT_OF_BOUNDS
        );
        // `v` was handed over: the runtime owns (or destroyed) it.
        assert_eq!(
            place(&t, dlr_std__list_set, &mut xs, &list_td, 0, t.s("kiwi"), s),
            STATUS_OK
        );
        // `v` was handed over: the runtime owns (or destroyed) it.

        // get clones: the list keeps its element.
        let mut got = MaybeUninit::<rtdt::String>::uninit();
        assert_eq!(
            dlr_std__list_get(t.h(), &xs, &list_td, &ix(0), idx, any_out(&mut got), s),
            STATUS_OK
        );
        assert_eq!(t.take(got), "kiwi");
        let (status, removed) = remove(&t, &mut xs, &list_td, 1, s);
        assert_eq!(status, STATUS_OK);
        assert_eq!(t.take(removed), "fig");
        assert_eq!(t.strings(&xs), ["kiwi", "banana", "apple"]);
        t.drop_list(xs, &list_td);
    }
}

#[test]
fn math() {
    let t = Rt::new();
    let f = &F64_TYDESC;
    type Unary =
        unsafe extern "C-unwind" fn(RtHandle, &f64, &TyDesc, &mut MaybeUninit<f64>, &TyDesc) -> u8;
    let cases: [(Unary, f64, f64); 9] = [
        (dlr_std__sqrt, 16.0, 4.0),
        (dlr_std__sin, 0.0, 0.0),
        (dlr_std__cos, 0.0, 1.0),
        (dlr_std__exp, 0.0, 1.0),
        (dlr_std__ln, 1.0, 0.0),
        (dlr_std__floor, -1.5, -2.0),
        (dlr_std__ceil, -1.5, -1.0),
        (dlr_std__fabs, -2.25, 2.25),
        (dlr_std__fabs, 2.25, 2.25),
    ];
    unsafe {
        for (native, x, expected) in cases {
            let mut out = MaybeUninit::uninit();
            assert_eq!(native(t.h(), &x, f, &mut out, f), STATUS_OK);
            assert_eq!(out.assume_init(), expected);
        }
        let mut out = MaybeUninit::uninit();
        assert_eq!(
            dlr_std__pow(t.h(), &2.0, f, &10.0, f, &mut out, f),
            STATUS_OK
        );
        assert_eq!(out.assume_init(), 1024.0);
        let mut out = MaybeUninit::uninit();
        dlr_std__sqrt(t.h(), &-1.0, f, &mut out, f);
        assert!(out.assume_init().is_nan());
    }
}

#[test]
fn abs_fails_for_the_minimum() {
    let t = Rt::new();
    unsafe {
        let (status, out) = abs(&t, -5i32, &I32_TYDESC);
        assert_eq!(status, STATUS_OK);
        assert_eq!(out.assume_init(), 5);
        let (status, out) = abs(&t, 200u8, &U8_TYDESC);
        assert_eq!(status, STATUS_OK);
        assert_eq!(out.assume_init(), 200);
        t.assert_refused(
            abs(&t, i8::MIN, &I8_TYDESC).0,
            STATUS_FAILED,
            "abs of -128 overflows i8",
        );
    }
}

#[test]
fn min_and_max_keep_one_and_destroy_the_other() {
    let t = Rt::new();
    let s = &STRING_TYDESC;
    unsafe {
        let (a, b) = (3i64, -4i64);
        let e = &I64_TYDESC;
        let (status, out) = pick(&t, dlr_std__min, a, b, e);
        assert_eq!(status, STATUS_OK);
        assert_eq!(out.assume_init(), -4);
        let (status, out) = pick(&t, dlr_std__max, a, b, e);
        assert_eq!(status, STATUS_OK);
        assert_eq!(out.assume_init(), 3);

        let picks: [(Pick, &str); 2] = [(dlr_std__min, "apple"), (dlr_std__max, "pear")];
        for (native, expected) in picks {
            let (status, out) = pick(&t, native, t.s("pear"), t.s("apple"), s);
            assert_eq!(status, STATUS_OK);
            // Both arguments were handed over; the loser was destroyed (no leak).
            assert_eq!(t.take(out), expected);
        }
    }
}

#[test]
fn describe_spells_the_type() {
    let t = Rt::new();
    let s = &STRING_TYDESC;
    unsafe {
        let list_td = list_of(TyKind::U8);
        let xs = t.list(&U8_TYDESC, &[1u8, 2]);
        assert_eq!(
            t.text_of(|out| dlr_std__describe(t.h(), any_ref(&xs), &list_td, out, s)),
            "[u8]"
        );
        t.drop_list(xs, &list_td);

        let tuple = OwnedTyDesc::option(OwnedTyDesc::tuple(vec![
            OwnedTyDesc::scalar(TyKind::I32),
            OwnedTyDesc::string(),
        ]));
        let dummy = [0u64; 8];
        assert_eq!(
            t.text_of(|out| dlr_std__describe(t.h(), any_ref(&dummy), &tuple, out, s)),
            "?(i32, string)"
        );
    }
}

#[test]
fn abi_version_is_exported() {
    extern "C" {
        fn dtlv_rider_abi_version_std() -> u32;
    }
    assert_eq!(
        unsafe { dtlv_rider_abi_version_std() },
        datalove_rti::ABI_VERSION
    );
    assert_eq!(
        datalove_rti::rider_abi_symbol("std"),
        "dtlv_rider_abi_version_std"
    );
}

/// Keeps `c_void` and the raw-pointer forms honest: a native reached through a C
/// function pointer of the ABI's shape behaves the same.
#[test]
fn callable_through_the_c_shape() {
    let t = Rt::new();
    type CShape = unsafe extern "C-unwind" fn(
        *mut c_void,
        *mut c_void,
        *const TyDesc,
        *mut c_void,
        *const TyDesc,
    ) -> u8;
    let f: CShape =
        unsafe { std::mem::transmute::<usize, CShape>(dlr_std__string_len as *const () as usize) };
    let s = t.s("four");
    let mut len = MaybeUninit::<u64>::uninit();
    let st = unsafe {
        f(
            t.h().as_ptr().cast(),
            (&s as *const rtdt::String).cast_mut().cast(),
            &STRING_TYDESC,
            len.as_mut_ptr().cast(),
            &INDEX_TYDESC,
        )
    };
    assert_eq!(st, STATUS_OK);
    assert_eq!(unsafe { len.assume_init() }, 4);
    t.free(s);
}

/// Sorts a list in place through the native.
fn sort_list(t: &Rt, xs: &mut rtdt::List, list_td: &TyDesc) {
    let mut done = MaybeUninit::uninit();
    let status = unsafe { dlr_std__list_sort(t.h(), xs, list_td, &mut done, &UNIT_TYDESC) };
    assert_eq!(status, STATUS_OK);
}

#[test]
fn sort_orders_every_kind_by_the_runtimes_order_and_keeps_equal_floats_in_place() {
    let t = Rt::new();
    // Integers, both signs and the extremes.
    let i64_list = OwnedTyDesc::list(OwnedTyDesc::scalar(TyKind::I64));
    let values: Vec<i64> = (0..5_000i64)
        .map(|i| (i * 7_919 % 5_003 - 2_500) * 1_000_003)
        .chain([i64::MIN, i64::MAX, 0])
        .collect();
    let mut xs = t.list(&I64_TYDESC, &values);
    sort_list(&t, &mut xs, &i64_list);
    let mut expected = values.clone();
    expected.sort();
    assert_eq!(t.elements::<i64>(&xs, &I64_TYDESC), expected);
    t.drop_list(xs, &i64_list);

    // Floats: -0.0 before 0.0, every NaN equal and last, kept in the order given (the
    // sign bit tells the two NaNs apart): a stable sort.
    let f64_list = OwnedTyDesc::list(OwnedTyDesc::scalar(TyKind::F64));
    let (nan, neg_nan) = (f64::NAN, -f64::NAN);
    let values = [
        neg_nan,
        1.5,
        0.0,
        nan,
        f64::NEG_INFINITY,
        -0.0,
        f64::INFINITY,
        -2.0,
    ];
    let mut xs = t.list(&F64_TYDESC, &values);
    sort_list(&t, &mut xs, &f64_list);
    let bits: Vec<u64> = t
        .elements::<f64>(&xs, &F64_TYDESC)
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let expected = [
        f64::NEG_INFINITY,
        -2.0,
        -0.0,
        0.0,
        1.5,
        f64::INFINITY,
        neg_nan,
        nan,
    ];
    assert_eq!(bits, expected.map(f64::to_bits));
    t.drop_list(xs, &f64_list);

    // A tuple with a list in it is ordered by the runtime's walk (no flat plan): by
    // the u8, then the list lexicographically; equal ones keep their order.
    let inner = OwnedTyDesc::list(OwnedTyDesc::scalar(TyKind::U8));
    let tuple = OwnedTyDesc::tuple(vec![OwnedTyDesc::scalar(TyKind::U8), inner]);
    let list_td = OwnedTyDesc::list(tuple);
    let elem_td = unsafe { list_td.elem() };
    let mut xs = t.list::<u8>(elem_td, &[]);
    for (tag, bytes) in [
        (2u8, &[1u8][..]),
        (1, &[2, 0]),
        (1, &[2]),
        (0, &[]),
        (1, &[1, 9]),
    ] {
        #[repr(C)]
        struct Pair {
            tag: u8,
            bytes: rtdt::List,
        }
        let mut pair = Pair {
            tag,
            bytes: t.list(&U8_TYDESC, bytes),
        };
        let p: *mut Pair = &mut pair;
        // The pair's list is moved into `xs` (`rtdt::List` has no `Drop`).
        let status = unsafe { call::dtlv_rti_list_push(t.h(), &mut xs, elem_td, p.cast()) };
        assert_eq!(status, STATUS_OK);
    }
    sort_list(&t, &mut xs, &list_td);
    let shown = unsafe { format_value(t.h(), &any_ref(&xs), &list_td) }.unwrap();
    assert_eq!(
        shown,
        "[(0, []), (1, [1, 9]), (1, [2]), (1, [2, 0]), (2, [1])]"
    );
    t.drop_list(xs, &list_td);
}
