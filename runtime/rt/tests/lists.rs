//! Every list entry, with its failure paths; refused moves destroy the value.

mod common;

use std::ffi::c_void;
use std::mem::MaybeUninit;

use common::{list_of, mut_ptr, scalar, Fixture};
use datalove_rti::call;
use datalove_rti::rtdt::{self, List, RtHandle};
use datalove_rti::status::{RtStatus, STATUS_EMPTY, STATUS_OK, STATUS_OUT_OF_BOUNDS};
use datalove_rti::tydesc::{OwnedTyDesc, STRING_TYDESC};
use datalove_rti::{TyDesc, TyKind};

fn strings(fx: &Fixture, texts: &[&str]) -> List {
    let values: Vec<rtdt::String> = texts.iter().map(|t| fx.string(t)).collect();
    list_of(fx, &STRING_TYDESC, values)
}

fn texts(fx: &Fixture, list: &List) -> Vec<String> {
    (0..list.len())
        .map(|i| unsafe {
            let p = call::dtlv_rti_list_at(fx.h(), list, &STRING_TYDESC, i);
            (*p.cast::<rtdt::String>()).as_str().to_owned()
        })
        .collect()
}

/// `list_set` or `list_insert`: each moves a value into a list at an index.
type Placing = unsafe fn(RtHandle, &mut List, &TyDesc, usize, *mut c_void) -> RtStatus;

/// Moves the string `value` into `list` at `index` with `entry`, handing it over (the
/// runtime owns or destroys it).
fn place(
    fx: &Fixture,
    entry: Placing,
    list: &mut List,
    index: usize,
    value: rtdt::String,
) -> RtStatus {
    let mut value = std::mem::ManuallyDrop::new(value);
    unsafe { entry(fx.h(), list, &STRING_TYDESC, index, mut_ptr(&mut *value)) }
}

fn drop_list(fx: &Fixture, list: List) {
    let td = OwnedTyDesc::list(OwnedTyDesc::string());
    fx.drop_value(list, &td);
}

#[test]
fn list_new_len_and_push() {
    let fx = Fixture::new();
    let u32_td = scalar(TyKind::U32);
    let mut out = MaybeUninit::uninit();
    assert_eq!(
        unsafe { call::dtlv_rti_list_new(fx.h(), &u32_td, 3, &mut out) },
        STATUS_OK
    );
    let mut list = unsafe { out.assume_init() };
    assert_eq!(fx.live(), 1, "capacity 3 allocates once");
    assert_eq!(unsafe { call::dtlv_rti_list_len(fx.h(), &list) }, 0);
    for i in 0..100u32 {
        let mut v = i * 2;
        assert_eq!(
            unsafe { call::dtlv_rti_list_push(fx.h(), &mut list, &u32_td, mut_ptr(&mut v)) },
            STATUS_OK
        );
    }
    assert_eq!(unsafe { call::dtlv_rti_list_len(fx.h(), &list) }, 100);
    assert_eq!(
        fx.live(),
        1,
        "growing reallocates, it does not add allocations"
    );
    let at = unsafe { call::dtlv_rti_list_at(fx.h(), &list, &u32_td, 99) };
    assert_eq!(unsafe { *at.cast::<u32>() }, 198);
    fx.drop_value(list, &OwnedTyDesc::list(scalar(TyKind::U32)));
    // An empty list with no capacity owns nothing.
    let mut out = MaybeUninit::uninit();
    unsafe { call::dtlv_rti_list_new(fx.h(), &u32_td, 0, &mut out) };
    assert_eq!(fx.live(), 0);
}

#[test]
fn list_pop_moves_out_the_last_and_refuses_an_empty_list() {
    let fx = Fixture::new();
    let mut list = strings(&fx, &["a", "b"]);
    let mut pop = |out: &mut MaybeUninit<rtdt::String>| unsafe {
        call::dtlv_rti_list_pop(fx.h(), &mut list, &STRING_TYDESC, out.as_mut_ptr().cast())
    };
    assert_eq!(fx.text_of(&mut pop), "b");
    let mut out = MaybeUninit::uninit();
    pop(&mut out);
    fx.drop_value(unsafe { out.assume_init_read() }, &STRING_TYDESC);
    fx.assert_refused(pop(&mut out), STATUS_EMPTY, "pop from an empty list");
    drop_list(&fx, list);
}

#[test]
fn list_get_clones_and_refuses_past_the_end() {
    let fx = Fixture::new();
    let list = strings(&fx, &["x", "y", "z"]);
    let live = fx.live();
    let mut out = MaybeUninit::<rtdt::String>::uninit();
    unsafe {
        assert_eq!(
            call::dtlv_rti_list_get(fx.h(), &list, &STRING_TYDESC, 1, out.as_mut_ptr().cast()),
            STATUS_OK
        );
        let y = out.assume_init_read();
        assert_eq!(y.as_str(), "y");
        assert_eq!(fx.live(), live + 1, "a get clones");
        fx.drop_value(y, &STRING_TYDESC);
        fx.assert_refused(
            call::dtlv_rti_list_get(fx.h(), &list, &STRING_TYDESC, 3, out.as_mut_ptr().cast()),
            STATUS_OUT_OF_BOUNDS,
            "index 3 out of bounds for length 3",
        );
    }
    assert_eq!(texts(&fx, &list), ["x", "y", "z"]);
    drop_list(&fx, list);
}

#[test]
fn list_at_lends_in_place_and_is_null_past_the_end() {
    let fx = Fixture::new();
    let list = strings(&fx, &["p"]);
    unsafe {
        let p = call::dtlv_rti_list_at(fx.h(), &list, &STRING_TYDESC, 0);
        assert!(!p.is_null());
        assert_eq!((*p.cast::<rtdt::String>()).as_str(), "p");
        assert!(call::dtlv_rti_list_at(fx.h(), &list, &STRING_TYDESC, 1).is_null());
    }
    drop_list(&fx, list);
}

#[test]
fn list_set_replaces_and_a_refused_set_destroys_the_value() {
    let fx = Fixture::new();
    let mut list = strings(&fx, &["a", "b"]);
    assert_eq!(
        place(&fx, call::dtlv_rti_list_set, &mut list, 1, fx.string("B")),
        STATUS_OK
    );
    assert_eq!(texts(&fx, &list), ["a", "B"]);
    assert_eq!(fx.live(), 3, "the old element was dropped");

    let lost = fx.string("lost");
    assert_eq!(fx.live(), 4);
    fx.assert_refused(
        place(&fx, call::dtlv_rti_list_set, &mut list, 5, lost),
        STATUS_OUT_OF_BOUNDS,
        "index 5 out of bounds for length 2",
    );
    assert_eq!(fx.live(), 3, "the refused value was destroyed");
    drop_list(&fx, list);
}

#[test]
fn list_insert_shifts_appends_at_len_and_destroys_a_refused_value() {
    let fx = Fixture::new();
    let mut list = strings(&fx, &["a", "c"]);
    let insert: Placing = call::dtlv_rti_list_insert;
    assert_eq!(place(&fx, insert, &mut list, 1, fx.string("b")), STATUS_OK);
    assert_eq!(place(&fx, insert, &mut list, 3, fx.string("d")), STATUS_OK);
    assert_eq!(place(&fx, insert, &mut list, 0, fx.string("_")), STATUS_OK);
    assert_eq!(texts(&fx, &list), ["_", "a", "b", "c", "d"]);
    let live = fx.live();
    fx.assert_refused(
        place(&fx, insert, &mut list, 7, fx.string("far")),
        STATUS_OUT_OF_BOUNDS,
        "index 7 out of bounds for length 5",
    );
    assert_eq!(fx.live(), live, "the refused value was destroyed");
    drop_list(&fx, list);
}

#[test]
fn a_refused_push_into_a_bad_index_returns_live_allocations_to_zero() {
    let fx = Fixture::new();
    let mut out = MaybeUninit::uninit();
    unsafe { call::dtlv_rti_list_new(fx.h(), &STRING_TYDESC, 0, &mut out) };
    let mut list = unsafe { out.assume_init() };
    let doomed = fx.string("doomed");
    assert_eq!(fx.live(), 1);
    let status = place(&fx, call::dtlv_rti_list_insert, &mut list, 1, doomed);
    assert_eq!(status, STATUS_OUT_OF_BOUNDS);
    assert_eq!(fx.live(), 0);
    drop_list(&fx, list);
}

#[test]
fn list_remove_moves_out_and_closes_the_gap() {
    let fx = Fixture::new();
    let mut list = strings(&fx, &["a", "b", "c"]);
    let remove = |list: &mut List, index: usize, out: &mut MaybeUninit<rtdt::String>| unsafe {
        call::dtlv_rti_list_remove(fx.h(), list, &STRING_TYDESC, index, out.as_mut_ptr().cast())
    };
    assert_eq!(fx.text_of(|out| remove(&mut list, 0, out)), "a");
    assert_eq!(texts(&fx, &list), ["b", "c"]);
    let mut out = MaybeUninit::uninit();
    fx.assert_refused(
        remove(&mut list, 2, &mut out),
        STATUS_OUT_OF_BOUNDS,
        "index 2 out of bounds for length 2",
    );
    drop_list(&fx, list);
}

#[test]
fn lists_of_zero_sized_elements_need_no_buffer() {
    let fx = Fixture::new();
    let unit = scalar(TyKind::Unit);
    let mut out = MaybeUninit::uninit();
    unsafe { call::dtlv_rti_list_new(fx.h(), &unit, 10, &mut out) };
    let mut list = unsafe { out.assume_init() };
    let mut v = ();
    unsafe {
        for _ in 0..3 {
            call::dtlv_rti_list_push(fx.h(), &mut list, &unit, mut_ptr(&mut v));
        }
        assert_eq!(call::dtlv_rti_list_len(fx.h(), &list), 3);
        assert!(!call::dtlv_rti_list_at(fx.h(), &list, &unit, 2).is_null());
        call::dtlv_rti_list_insert(fx.h(), &mut list, &unit, 0, mut_ptr(&mut v));
        call::dtlv_rti_list_remove(fx.h(), &mut list, &unit, 0, mut_ptr(&mut v));
        call::dtlv_rti_list_pop(fx.h(), &mut list, &unit, mut_ptr(&mut v));
        assert_eq!(call::dtlv_rti_list_len(fx.h(), &list), 2);
    }
    assert_eq!(fx.live(), 0);
    let list_td = OwnedTyDesc::list(scalar(TyKind::Unit));
    assert_eq!(fx.format(common::ptr(&list), &list_td), "[(), ()]");
    fx.drop_value(list, &list_td);
}

#[test]
fn list_filled_clones_the_value_and_refuses_what_cannot_fit() {
    let fx = Fixture::new();
    // Copy elements: one buffer, every element the value.
    let u16_td = scalar(TyKind::U16);
    let mut value: u16 = 0xBEEF;
    let mut out = MaybeUninit::uninit();
    let status =
        unsafe { call::dtlv_rti_list_filled(fx.h(), &u16_td, 1000, mut_ptr(&mut value), &mut out) };
    assert_eq!(status, STATUS_OK);
    let list = unsafe { out.assume_init() };
    assert_eq!(list.len(), 1000);
    let (ptr, _, _) = list.raw_parts();
    let elements = unsafe { std::slice::from_raw_parts(ptr.cast::<u16>(), 1000) };
    assert!(elements.iter().all(|&e| e == 0xBEEF));
    fx.drop_value(list, &OwnedTyDesc::list(scalar(TyKind::U16)));

    // Owned elements: independent clones, the value itself the last.
    let mut s = fx.string("abc");
    let mut out = MaybeUninit::uninit();
    let status =
        unsafe { call::dtlv_rti_list_filled(fx.h(), &STRING_TYDESC, 3, mut_ptr(&mut s), &mut out) };
    assert_eq!(status, STATUS_OK);
    let list = unsafe { out.assume_init() };
    assert_eq!(texts(&fx, &list), ["abc", "abc", "abc"]);
    assert_eq!(fx.live(), 4, "three string buffers and the list's");
    drop_list(&fx, list);

    // Length 0 destroys the value; too large refuses and destroys it too.
    for len in [0, usize::MAX / 2] {
        let mut s = fx.string("gone");
        let mut out = MaybeUninit::uninit();
        let status = unsafe {
            call::dtlv_rti_list_filled(fx.h(), &STRING_TYDESC, len, mut_ptr(&mut s), &mut out)
        };
        if len == 0 {
            assert_eq!(status, STATUS_OK);
            let list = unsafe { out.assume_init() };
            assert_eq!(list.len(), 0);
            drop_list(&fx, list);
        } else {
            assert_eq!(status, datalove_rti::status::STATUS_FAILED);
            assert!(unsafe { call::dtlv_rti_error_message(fx.h()) }.contains("does not fit"));
        }
        assert_eq!(fx.live(), 0);
    }
}
