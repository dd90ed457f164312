//! The `std` map natives the runtime provides (`datalove_rt::natives`, table version
//! 6): which symbols it links in place of the rider's, and that each keeps the rider's
//! terms: results, none for a missing key, the `key not found` error, type mismatches in
//! the rider's words, and moves (a refused pair is dropped). The fixture checks on drop
//! that nothing is live.

mod common;

use std::ffi::c_void;
use std::mem::{ManuallyDrop, MaybeUninit};

use common::{mut_ptr, ptr, scalar, Fixture};
use datalove_rti::call::{self, KeyedNative};
use datalove_rti::rtdt::{self, Map};
use datalove_rti::status::{STATUS_FAILED, STATUS_OK, STATUS_TYPE_MISMATCH};
use datalove_rti::tydesc::OwnedTyDesc;
use datalove_rti::{TyDesc, TyKind};

fn empty() -> Map {
    unsafe { Map::from_raw(std::ptr::null_mut()) }
}

/// `map_insert` of a string key and an i64 value through the runtime's native.
fn insert(fx: &Fixture, m: &mut Map, td: &TyDesc, key: &str, value: i64) -> u8 {
    let (key_td, value_td, unit) = (
        OwnedTyDesc::string(),
        scalar(TyKind::I64),
        scalar(TyKind::Unit),
    );
    let mut key = ManuallyDrop::new(fx.string(key));
    let mut value = value;
    unsafe {
        call::dtlv_rti_std_map_insert(
            fx.h(),
            m,
            td,
            mut_ptr(&mut *key),
            &*key_td,
            mut_ptr(&mut value),
            &*value_td,
            std::ptr::null_mut(),
            &*unit,
        )
    }
}

/// A keyed native of `key` into an option slot of `out_td`: its status and the slot.
fn keyed(
    fx: &Fixture,
    which: KeyedNative,
    m: &mut Map,
    td: &TyDesc,
    key: &str,
    out_td: &TyDesc,
) -> (u8, [u64; 2]) {
    let key = fx.string(key);
    let key_td = OwnedTyDesc::string();
    let mut out = [u64::MAX; 2];
    let status = unsafe {
        call::dtlv_rti_std_map_keyed(
            fx.h(),
            which,
            m,
            td,
            ptr(&key),
            &*key_td,
            out.as_mut_ptr().cast::<c_void>(),
            out_td,
        )
    };
    fx.drop_value(key, &key_td);
    (status, out)
}

#[test]
fn the_runtime_provides_the_std_map_natives_and_no_others() {
    for function in [
        "map_len",
        "map_insert",
        "map_get",
        "map_at",
        "map_remove",
        "map_contains",
    ] {
        let symbol = datalove_rti::native_symbol("std", function);
        assert!(
            datalove_rt::natives::provided("std", &symbol).is_some(),
            "{symbol}"
        );
        assert!(
            datalove_rt::natives::provided("probe", &symbol).is_none(),
            "{symbol}"
        );
    }
    for function in ["map_new", "map_entries", "string_split", "list_sort"] {
        let symbol = datalove_rti::native_symbol("std", function);
        assert!(
            datalove_rt::natives::provided("std", &symbol).is_none(),
            "{symbol}"
        );
    }
}

#[test]
fn get_at_remove_and_contains_answer_as_the_rider_did() {
    let fx = Fixture::new();
    let td = OwnedTyDesc::map(OwnedTyDesc::string(), scalar(TyKind::I64));
    let optional = OwnedTyDesc::option(scalar(TyKind::I64));
    let offset = optional.payload_offset / 8;
    let mut m = empty();
    for (k, v) in [("pear", 3), ("apple", 1), ("fig", 2), ("apple", 7)] {
        assert_eq!(insert(&fx, &mut m, &td, k, v), STATUS_OK);
    }
    let mut len = 0u64;
    let index = scalar(TyKind::Index);
    let status = unsafe { call::dtlv_rti_std_map_len(fx.h(), &m, &*td, &mut len, &*index) };
    assert_eq!((status, len), (STATUS_OK, 3));

    let (status, out) = keyed(&fx, KeyedNative::Get, &mut m, &td, "apple", &optional);
    assert_eq!((status, out[0] & 0xff, out[offset]), (STATUS_OK, 1, 7));
    let (status, out) = keyed(&fx, KeyedNative::Get, &mut m, &td, "kiwi", &optional);
    assert_eq!((status, out[0] & 0xff), (STATUS_OK, 0), "none");

    let boolean = scalar(TyKind::Bool);
    let (status, out) = keyed(&fx, KeyedNative::Contains, &mut m, &td, "fig", &boolean);
    assert_eq!((status, out[0] & 0xff), (STATUS_OK, 1));
    let (status, out) = keyed(&fx, KeyedNative::Contains, &mut m, &td, "kiwi", &boolean);
    assert_eq!((status, out[0] & 0xff), (STATUS_OK, 0));

    let i64_td = scalar(TyKind::I64);
    let (status, out) = keyed(&fx, KeyedNative::At, &mut m, &td, "pear", &i64_td);
    assert_eq!((status, out[0]), (STATUS_OK, 3));
    let (status, _) = keyed(&fx, KeyedNative::At, &mut m, &td, "kiwi", &i64_td);
    fx.assert_refused(status, STATUS_FAILED, "key not found: kiwi");
    fx.assert_error("key not found: kiwi");

    let (status, out) = keyed(&fx, KeyedNative::Remove, &mut m, &td, "fig", &optional);
    assert_eq!((status, out[0] & 0xff, out[offset]), (STATUS_OK, 1, 2));
    let (status, out) = keyed(&fx, KeyedNative::Remove, &mut m, &td, "fig", &optional);
    assert_eq!((status, out[0] & 0xff), (STATUS_OK, 0), "gone");
    assert_eq!(fx.format(ptr(&m), &td), r#"{"apple": 7, "pear": 3}"#);
    fx.drop_value(m, &td);
}

#[test]
fn a_mismatched_descriptor_is_refused_in_the_riders_words_and_a_refused_pair_dropped() {
    let fx = Fixture::new();
    let td = OwnedTyDesc::map(scalar(TyKind::I64), scalar(TyKind::I64));
    let mut m = empty();
    // A string key for a map of i64 keys: the key moved in is dropped (the fixture's
    // leak check sees it).
    let status = insert(&fx, &mut m, &td, "pear", 1);
    fx.assert_refused(
        status,
        STATUS_TYPE_MISMATCH,
        "a (string, i64) entry for a map[i64, i64]",
    );
    let optional = OwnedTyDesc::option(scalar(TyKind::I64));
    let (status, _) = keyed(&fx, KeyedNative::Get, &mut m, &td, "pear", &optional);
    fx.assert_refused(
        status,
        STATUS_TYPE_MISMATCH,
        "a string key for a map[i64, i64]",
    );
    let string_td = OwnedTyDesc::string();
    let mut out = MaybeUninit::<rtdt::String>::uninit();
    let status = unsafe {
        call::dtlv_rti_std_map_len(
            fx.h(),
            &m,
            &*string_td,
            out.as_mut_ptr().cast(),
            &*string_td,
        )
    };
    fx.assert_refused(
        status,
        STATUS_TYPE_MISMATCH,
        "expected a map value, got string",
    );
    fx.drop_value(m, &td);
}
