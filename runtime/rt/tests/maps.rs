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

/// A small deterministic generator (xorshift), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Checks `m` against `model`: the length, every entry in order through `map_entry_at`
/// (walked in order, then at scattered indices), the formatted text, and a lookup of
/// every key.
fn assert_same_as(
    fx: &Fixture,
    m: &Map,
    td: &TyDesc,
    model: &std::collections::BTreeMap<String, String>,
) {
    assert_eq!(unsafe { call::dtlv_rti_map_len(fx.h(), m) }, model.len());
    let read = |i: usize| unsafe {
        let entry = call::dtlv_rti_map_entry_at(fx.h(), m, td, i);
        assert!(!entry.is_null(), "entry {i} of {}", model.len());
        let entry = entry.cast::<rtdt::String>();
        (
            (*entry).as_str().to_owned(),
            (*entry.add(1)).as_str().to_owned(),
        )
    };
    let expected: Vec<(String, String)> =
        model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let walked: Vec<(String, String)> = (0..model.len()).map(read).collect();
    assert_eq!(walked, expected);
    for i in (0..model.len()).rev().step_by(7) {
        assert_eq!(read(i), expected[i], "entry {i} read out of order");
    }
    assert!(unsafe { call::dtlv_rti_map_entry_at(fx.h(), m, td, model.len()) }.is_null());
    let text: Vec<String> = expected
        .iter()
        .map(|(k, v)| format!("{k:?}: {v:?}"))
        .collect();
    assert_eq!(fx.format(ptr(m), td), format!("{{{}}}", text.join(", ")));
    for (k, v) in model {
        let key = fx.string(k);
        let found = unsafe { call::dtlv_rti_map_find(fx.h(), m, td, ptr(&key)) };
        assert!(!found.is_null(), "{k} is found");
        assert_eq!(unsafe { (*found.cast::<rtdt::String>()).as_str() }, v);
        fx.drop_value(key, &STRING_TYDESC);
    }
}

#[test]
fn thousands_of_inserts_replacements_and_removes_agree_with_an_ordered_model() {
    let fx = Fixture::new();
    let td = string_map();
    let mut m = empty();
    let mut model = std::collections::BTreeMap::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Grows to about 2,000 keys (four levels of nodes), then shrinks to none: every
    // split, rotation and merge, at every level, on the way.
    for step in 0..12_000u32 {
        let key = format!("k{:04}", rng.next() % 2_500);
        let grow = step < 6_000;
        let insert_now = if grow {
            !rng.next().is_multiple_of(4)
        } else {
            rng.next().is_multiple_of(4)
        };
        if insert_now {
            let value = format!("v{step}");
            insert(&fx, &mut m, &td, &key, &value);
            model.insert(key, value);
        } else {
            let k = fx.string(&key);
            let (status, out) = remove(&fx, &mut m, &td, &k);
            match model.remove(&key) {
                Some(v) => {
                    assert_eq!(status, STATUS_OK, "removing {key}");
                    let value = unsafe { out.assume_init() };
                    assert_eq!(value.as_str(), v);
                    fx.drop_value(value, &STRING_TYDESC);
                }
                None => fx.assert_refused(status, STATUS_NOT_FOUND, "key not found"),
            }
            fx.drop_value(k, &STRING_TYDESC);
        }
        if step % 1_500 == 0 || step == 5_999 {
            assert_same_as(&fx, &m, &td, &model);
        }
    }
    // Empty it whatever is left, in key order and then some missing keys.
    let left: Vec<String> = model.keys().cloned().collect();
    for key in left {
        let k = fx.string(&key);
        let (status, out) = remove(&fx, &mut m, &td, &k);
        assert_eq!(status, STATUS_OK);
        fx.drop_value(unsafe { out.assume_init() }, &STRING_TYDESC);
        fx.drop_value(k, &STRING_TYDESC);
    }
    assert!(
        m.raw().is_null(),
        "a map emptied by removes is the empty map again"
    );
    assert_eq!(fx.live(), 0, "and owns nothing");
}

#[test]
fn a_large_map_clones_compares_and_drops_whole() {
    let fx = Fixture::new();
    let td = string_map();
    let mut a = empty();
    let mut model = std::collections::BTreeMap::new();
    for i in (0..3_000u32).map(|i| (i * 7_919) % 3_000) {
        let (key, value) = (format!("{i:05}"), format!("{}", i * 2));
        insert(&fx, &mut a, &td, &key, &value);
        model.insert(key, value);
    }
    assert_same_as(&fx, &a, &td, &model);
    let mut b = MaybeUninit::<Map>::uninit();
    assert_eq!(
        unsafe { call::dtlv_rti_clone(fx.h(), ptr(&a), &td, b.as_mut_ptr().cast()) },
        STATUS_OK
    );
    let mut b = unsafe { b.assume_init() };
    assert_same_as(&fx, &b, &td, &model);
    assert!(unsafe { call::dtlv_rti_eq(fx.h(), ptr(&a), ptr(&b), &td) });
    // The last entry's value made larger: b is after a.
    insert(&fx, &mut b, &td, "02999", "z");
    assert_eq!(
        unsafe { call::dtlv_rti_cmp(fx.h(), ptr(&a), ptr(&b), &td) },
        std::cmp::Ordering::Less
    );
    fx.drop_all([a, b], &td);
    assert_eq!(fx.live(), 0);
}

#[test]
fn integer_keys_in_a_scattered_order_come_out_sorted() {
    let fx = Fixture::new();
    let td = OwnedTyDesc::map(scalar(TyKind::I64), scalar(TyKind::I64));
    let mut m = empty();
    let n: i64 = 20_000;
    for i in 0..n {
        let (mut key, mut value) = ((i * 7_919) % n - n / 2, i);
        let status = unsafe {
            call::dtlv_rti_map_insert(fx.h(), &mut m, &td, mut_ptr(&mut key), mut_ptr(&mut value))
        };
        assert_eq!(status, STATUS_OK);
    }
    assert_eq!(unsafe { call::dtlv_rti_map_len(fx.h(), &m) }, n as usize);
    for i in 0..n as usize {
        let entry = unsafe { call::dtlv_rti_map_entry_at(fx.h(), &m, &td, i) }.cast::<i64>();
        assert_eq!(unsafe { *entry }, i as i64 - n / 2);
    }
    fx.drop_value(m, &td);
    assert_eq!(fx.live(), 0);
}
