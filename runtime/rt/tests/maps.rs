//! Every map entry: order, replacement, removal, the empty map, clone, compare, format
//! and the interned descriptor; the fixture checks on drop that nothing is live.

mod common;

use std::mem::{ManuallyDrop, MaybeUninit};

use common::{mut_ptr, ptr, scalar, Fixture};
use datalove_rti::call;
use datalove_rti::rtdt::{self, Map};
use datalove_rti::status::{RtStatus, STATUS_NOT_FOUND, STATUS_OK};
use datalove_rti::tydesc::{OwnedTyDesc, STRING_TYDESC};
use datalove_rti::{same_tydesc, TyDesc, TyKind};

fn empty() -> Map {
    unsafe { Map::from_raw(std::ptr::null_mut()) }
}

/// Moves `key` and `value` into `m` (the runtime owns both afterwards).
fn insert(fx: &Fixture, m: &mut Map, td: &TyDesc, key: &str, value: &str) {
    let mut key = ManuallyDrop::new(fx.string(key));
    let mut value = ManuallyDrop::new(fx.string(value));
    let status = unsafe {
        call::dtlv_rti_map_insert(fx.h(), m, td, mut_ptr(&mut *key), mut_ptr(&mut *value))
    };
    assert_eq!(status, STATUS_OK);
}

fn string_map() -> OwnedTyDesc {
    OwnedTyDesc::map(OwnedTyDesc::string(), OwnedTyDesc::string())
}

/// A map from string to string holding `entries` (inserted in order), and its descriptor.
fn string_map_of(fx: &Fixture, entries: &[(&str, &str)]) -> (OwnedTyDesc, Map) {
    let td = string_map();
    let mut m = empty();
    for (key, value) in entries {
        insert(fx, &mut m, &td, key, value);
    }
    (td, m)
}

/// Calls `map_remove` for `key`: the status, and the slot the value is moved out to.
fn remove(
    fx: &Fixture,
    m: &mut Map,
    td: &TyDesc,
    key: &rtdt::String,
) -> (RtStatus, MaybeUninit<rtdt::String>) {
    let mut out = MaybeUninit::<rtdt::String>::uninit();
    let status =
        unsafe { call::dtlv_rti_map_remove(fx.h(), m, td, ptr(key), out.as_mut_ptr().cast()) };
    (status, out)
}

#[test]
fn entries_stay_in_key_order_and_a_present_key_is_replaced() {
    let fx = Fixture::new();
    let td = string_map();
    let mut m = empty();
    assert_eq!(fx.live(), 0, "the empty map owns nothing");
    for (k, v) in [
        ("pear", "3"),
        ("apple", "1"),
        ("fig", "2"),
        ("apple", "one"),
    ] {
        insert(&fx, &mut m, &td, k, v);
    }
    assert_eq!(unsafe { call::dtlv_rti_map_len(fx.h(), &m) }, 3);
    assert_eq!(
        fx.format(ptr(&m), &td),
        r#"{"apple": "one", "fig": "2", "pear": "3"}"#
    );
    let key = fx.string("fig");
    let found = unsafe { call::dtlv_rti_map_find(fx.h(), &m, &td, ptr(&key)) };
    assert_eq!(unsafe { (*found.cast::<rtdt::String>()).as_str() }, "2");
    let absent = fx.string("kiwi");
    assert!(unsafe { call::dtlv_rti_map_find(fx.h(), &m, &td, ptr(&absent)) }.is_null());
    let entry = unsafe { call::dtlv_rti_map_entry_at(fx.h(), &m, &td, 2) };
    assert_eq!(unsafe { (*entry.cast::<rtdt::String>()).as_str() }, "pear");
    assert!(unsafe { call::dtlv_rti_map_entry_at(fx.h(), &m, &td, 3) }.is_null());
    fx.drop_all([key, absent], &STRING_TYDESC);
    fx.drop_value(m, &td);
}

#[test]
fn remove_moves_the_value_out_and_refuses_a_missing_key() {
    let fx = Fixture::new();
    let (td, mut m) = string_map_of(&fx, &[("a", "alpha"), ("b", "beta")]);
    let key = fx.string("a");
    let (status, out) = remove(&fx, &mut m, &td, &key);
    assert_eq!(status, STATUS_OK);
    let value = unsafe { out.assume_init() };
    assert_eq!(value.as_str(), "alpha");
    let (status, _) = remove(&fx, &mut m, &td, &key);
    fx.assert_refused(status, STATUS_NOT_FOUND, "key not found");
    assert_eq!(fx.format(ptr(&m), &td), r#"{"b": "beta"}"#);
    fx.drop_all([key, value], &STRING_TYDESC);
    fx.drop_value(m, &td);
}

#[test]
fn clone_is_deep_and_maps_compare_entry_by_entry() {
    let fx = Fixture::new();
    let (td, a) = string_map_of(&fx, &[("k", "v")]);
    let mut b = MaybeUninit::<Map>::uninit();
    assert_eq!(
        unsafe { call::dtlv_rti_clone(fx.h(), ptr(&a), &td, b.as_mut_ptr().cast()) },
        STATUS_OK
    );
    let mut b = unsafe { b.assume_init() };
    assert!(unsafe { call::dtlv_rti_eq(fx.h(), ptr(&a), ptr(&b), &td) });
    insert(&fx, &mut b, &td, "l", "w");
    assert!(!unsafe { call::dtlv_rti_eq(fx.h(), ptr(&a), ptr(&b), &td) });
    assert_eq!(
        unsafe { call::dtlv_rti_cmp(fx.h(), ptr(&a), ptr(&b), &td) },
        std::cmp::Ordering::Less,
        "a prefix first"
    );
    let e = empty();
    assert_eq!(
        unsafe { call::dtlv_rti_cmp(fx.h(), ptr(&e), ptr(&a), &td) },
        std::cmp::Ordering::Less
    );
    assert_eq!(fx.format(ptr(&e), &td), "{}");
    fx.drop_all([a, b, e], &td);
}

#[test]
fn the_interned_descriptor_is_the_entry_tuple_and_its_fields() {
    let fx = Fixture::new();
    let u8_td = scalar(TyKind::U8);
    let built = OwnedTyDesc::map(OwnedTyDesc::string(), scalar(TyKind::U8));
    let interned = unsafe { call::dtlv_rti_tydesc_map(fx.h(), &STRING_TYDESC, &u8_td) };
    assert!(unsafe { same_tydesc(interned, &built) });
    assert_eq!(
        (interned.kind, interned.size, interned.align),
        (TyKind::Map, 8, 8)
    );
    assert!(!interned.is_copy());
    let entry = unsafe { interned.elem() };
    assert_eq!(entry.kind, TyKind::Tuple);
    assert_eq!(interned.field_count, 2);
    let fields = unsafe { interned.fields() };
    assert_eq!((fields[0].offset, fields[1].offset), (0, 24));
    assert_eq!(unsafe { interned.type_name() }, "map[string, u8]");
    let again = unsafe { call::dtlv_rti_tydesc_map(fx.h(), &STRING_TYDESC, &u8_td) };
    assert!(std::ptr::eq(interned, again), "interned once");
}
