//! clone/drop/eq/cmp/format/debuglog by descriptor, data, init and the layout queries.

mod common;

use std::cmp::Ordering;
use std::ffi::c_void;
use std::mem::MaybeUninit;

use common::{list_of, mut_ptr, ptr, scalar, Fixture};
use datalove_rti::call;
use datalove_rti::rtdt::{self, Data, List};
use datalove_rti::status::STATUS_OK;
use datalove_rti::tydesc::{OwnedTyDesc, DATA_TYDESC, STRING_TYDESC};
use datalove_rti::{packed_tydesc, same_tydesc, TyDesc, TyKind};

/// An 8-aligned buffer for a value of `td`.
fn buf(td: &TyDesc) -> Vec<u64> {
    vec![0u64; td.size.div_ceil(8).max(1)]
}

fn bptr(b: &mut [u64]) -> *mut u8 {
    b.as_mut_ptr().cast()
}

fn make_data<T>(fx: &Fixture, value: T, td: &TyDesc) -> Data {
    let mut value = std::mem::ManuallyDrop::new(value);
    let mut out = MaybeUninit::uninit();
    let status =
        unsafe { call::dtlv_rti_data_make(fx.h(), (&mut *value as *mut T).cast(), td, &mut out) };
    assert_eq!(status, STATUS_OK);
    unsafe { out.assume_init() }
}

fn borrow(fx: &Fixture, d: &Data, scratch: &mut u64) -> (*const c_void, *const TyDesc) {
    let mut p: *const c_void = std::ptr::null();
    let mut td: *const TyDesc = std::ptr::null();
    unsafe { (call::table(fx.h()).data_borrow)(d, scratch, &mut p, &mut td) };
    (p, td)
}

#[test]
fn data_of_a_scalar_is_packed_and_borrows_into_scratch() {
    let fx = Fixture::new();
    let u16_td = scalar(TyKind::U16);
    let d = make_data(&fx, 0xbeefu16, &u16_td);
    assert_eq!(fx.live(), 0, "a packed scalar allocates nothing");
    let mut scratch = 0u64;
    let (p, td) = borrow(&fx, &d, &mut scratch);
    assert_eq!(p, (&scratch as *const u64).cast());
    assert_eq!(unsafe { *p.cast::<u16>() }, 0xbeef);
    assert!(std::ptr::eq(td, packed_tydesc(TyKind::U16).unwrap()));
    assert!(unsafe { same_tydesc(&*td, &u16_td) });
    // Every scalar kind packs.
    let f = make_data(&fx, -2.5f64, &scalar(TyKind::F64));
    let (p, _) = borrow(&fx, &f, &mut scratch);
    assert_eq!(unsafe { *p.cast::<f64>() }, -2.5);
    let u = make_data(&fx, (), &scalar(TyKind::Unit));
    assert_eq!(fx.format(ptr(&u), &DATA_TYDESC), "()");
    fx.drop_all([d, f, u], &DATA_TYDESC);
}

#[test]
fn data_of_a_list_is_boxed_and_borrows_the_box() {
    let fx = Fixture::new();
    let list_td = OwnedTyDesc::list(OwnedTyDesc::string());
    let list = list_of(&fx, &STRING_TYDESC, vec![fx.string("a"), fx.string("b")]);
    let live = fx.live();
    let d = make_data(&fx, list, &list_td);
    assert_eq!(fx.live(), live + 1, "the box is one allocation");
    let mut scratch = 0u64;
    let (p, td) = borrow(&fx, &d, &mut scratch);
    assert_ne!(p, (&scratch as *const u64).cast());
    assert!(unsafe { same_tydesc(&*td, &list_td) });
    let borrowed = unsafe { &*p.cast::<List>() };
    assert_eq!(borrowed.len(), 2);
    assert_eq!(fx.format(ptr(&d), &DATA_TYDESC), r#"["a", "b"]"#);

    let name = fx.text_of(|out| unsafe { call::dtlv_rti_data_type_name(fx.h(), &d, out) });
    assert_eq!(name, "[string]");

    // A clone of a boxed data is a deep copy.
    let mut copy = MaybeUninit::<Data>::uninit();
    unsafe { call::dtlv_rti_clone(fx.h(), ptr(&d), &DATA_TYDESC, copy.as_mut_ptr().cast()) };
    let copy = unsafe { copy.assume_init() };
    assert_eq!(fx.live(), 2 * (live + 1));
    assert!(unsafe { call::dtlv_rti_eq(fx.h(), ptr(&d), ptr(&copy), &DATA_TYDESC) });
    fx.drop_all([copy, d], &DATA_TYDESC);
}

#[test]
fn data_of_a_string_prints_raw_at_top_level_and_quoted_when_nested() {
    let fx = Fixture::new();
    let d = make_data(&fx, fx.string("hi"), &STRING_TYDESC);
    assert_eq!(fx.format(ptr(&d), &DATA_TYDESC), "hi");
    let list = list_of(
        &fx,
        &DATA_TYDESC,
        vec![d, make_data(&fx, 7i32, &scalar(TyKind::I32))],
    );
    let td = OwnedTyDesc::list(OwnedTyDesc::data());
    assert_eq!(fx.format(ptr(&list), &td), r#"["hi", 7]"#);
    fx.drop_value(list, &td);
}

#[test]
fn type_name_spells_every_kind() {
    let fx = Fixture::new();
    let td = OwnedTyDesc::tuple(vec![
        OwnedTyDesc::list(OwnedTyDesc::option(scalar(TyKind::U8))),
        OwnedTyDesc::tuple(vec![scalar(TyKind::Index)]),
        OwnedTyDesc::data(),
        OwnedTyDesc::string(),
        scalar(TyKind::F32),
    ]);
    let name = fx.text_of(|out| unsafe { call::dtlv_rti_type_name(fx.h(), &td, out) });
    assert_eq!(name, "([?u8], (index,), data, string, f32)");
}

#[test]
fn init_writes_the_empty_value_of_every_kind() {
    let fx = Fixture::new();
    let td = OwnedTyDesc::tuple(vec![
        scalar(TyKind::I64),
        OwnedTyDesc::string(),
        OwnedTyDesc::list(scalar(TyKind::U8)),
        OwnedTyDesc::option(OwnedTyDesc::string()),
        OwnedTyDesc::data(),
        scalar(TyKind::Bool),
        scalar(TyKind::F64),
    ]);
    let mut b = vec![0xa5a5_a5a5_a5a5_a5a5u64; td.size.div_ceil(8)];
    unsafe { (call::table(fx.h()).init)(bptr(&mut b).cast(), &*td) };
    assert_eq!(fx.live(), 0, "init allocates nothing");
    assert_eq!(
        fx.format(bptr(&mut b).cast(), &td),
        r#"(0, "", [], none, (), false, 0.0)"#
    );
    // The data field holds unit, with the unit constant.
    let data_off = unsafe { (call::table(fx.h()).field_offset)(&*td, 4) };
    let d = unsafe { &*bptr(&mut b).add(data_off).cast::<Data>() };
    assert!(std::ptr::eq(
        d.raw_parts().0,
        packed_tydesc(TyKind::Unit).unwrap()
    ));
    fx.drop_at(bptr(&mut b), &td);
}

#[test]
fn field_and_payload_queries_read_the_descriptor() {
    let fx = Fixture::new();
    let t = unsafe { call::table(fx.h()) };
    let tuple = OwnedTyDesc::tuple(vec![scalar(TyKind::U8), scalar(TyKind::U64)]);
    let opt = OwnedTyDesc::option(scalar(TyKind::U32));
    unsafe {
        assert_eq!((t.field_offset)(&*tuple, 0), 0);
        assert_eq!((t.field_offset)(&*tuple, 1), 8);
        assert_eq!((t.field_offset)(&*tuple, 2), usize::MAX);
        assert_eq!((t.field_offset)(&*opt, 0), usize::MAX);
        assert_eq!((*(t.field_tydesc)(&*tuple, 1)).kind, TyKind::U64);
        assert!((t.field_tydesc)(&*tuple, 2).is_null());
        assert_eq!((t.payload_offset)(&*opt), 4);
        assert_eq!((t.payload_offset)(&*tuple), usize::MAX);
        assert_eq!((*(t.payload_tydesc)(&*opt)).kind, TyKind::U32);
        assert!((t.payload_tydesc)(&*tuple).is_null());
    }
}

/// `(?string, data)` values in a list: the nested value every test below works on.
fn nested(fx: &Fixture) -> (OwnedTyDesc, List, OwnedTyDesc) {
    let pair = OwnedTyDesc::tuple(vec![
        OwnedTyDesc::option(OwnedTyDesc::string()),
        OwnedTyDesc::data(),
    ]);
    let opt_off = unsafe { pair.fields()[0].offset };
    let data_off = unsafe { pair.fields()[1].offset };
    let payload_off = unsafe { (*pair.fields()[0].desc).payload_offset };
    let mut elems = Vec::new();
    for (text, n) in [(Some("a\"b\\c\n\t\0"), 3u8), (None, 4u8)] {
        let mut b = buf(&pair);
        let p = bptr(&mut b);
        unsafe {
            if let Some(text) = text {
                *p.add(opt_off) = 1;
                p.add(opt_off + payload_off)
                    .cast::<rtdt::String>()
                    .write(fx.string(text));
            }
            p.add(data_off)
                .cast::<Data>()
                .write(make_data(fx, n, &scalar(TyKind::U8)));
        }
        elems.push(b);
    }
    let mut out = MaybeUninit::uninit();
    unsafe { call::dtlv_rti_list_new(fx.h(), &pair, 0, &mut out) };
    let mut list = unsafe { out.assume_init() };
    for mut b in elems {
        unsafe { call::dtlv_rti_list_push(fx.h(), &mut list, &pair, bptr(&mut b).cast()) };
    }
    let list_td = OwnedTyDesc::list(OwnedTyDesc::tuple(vec![
        OwnedTyDesc::option(OwnedTyDesc::string()),
        OwnedTyDesc::data(),
    ]));
    (pair, list, list_td)
}

#[test]
fn format_of_nested_values_quotes_and_escapes_strings() {
    let fx = Fixture::new();
    let (_pair, list, list_td) = nested(&fx);
    assert_eq!(
        fx.format(ptr(&list), &list_td),
        r#"[(some("a\"b\\c\n\t\0"), 3), (none, 4)]"#
    );
    fx.drop_value(list, &list_td);
}

#[test]
fn clone_of_nested_values_is_deep_and_equal() {
    let fx = Fixture::new();
    let (_pair, list, list_td) = nested(&fx);
    let live = fx.live();
    let mut copy = MaybeUninit::<List>::uninit();
    let status =
        unsafe { call::dtlv_rti_clone(fx.h(), ptr(&list), &list_td, copy.as_mut_ptr().cast()) };
    assert_eq!(status, STATUS_OK);
    let copy = unsafe { copy.assume_init() };
    assert_eq!(fx.live(), 2 * live, "every allocation was copied");
    assert_ne!(copy.raw_parts().0, list.raw_parts().0);
    unsafe {
        assert!(call::dtlv_rti_eq(fx.h(), ptr(&list), ptr(&copy), &list_td));
        assert_eq!(
            call::dtlv_rti_cmp(fx.h(), ptr(&list), ptr(&copy), &list_td),
            Ordering::Equal
        );
    }
    assert_eq!(
        fx.format(ptr(&copy), &list_td),
        fx.format(ptr(&list), &list_td)
    );
    fx.drop_value(copy, &list_td);
    assert_eq!(fx.live(), live);
    fx.drop_value(list, &list_td);
}

#[test]
fn cmp_orders_lists_options_tuples_and_data() {
    let fx = Fixture::new();
    let (pair, list, list_td) = nested(&fx);
    let cmp = |a: *const c_void, b: *const c_void, td: &TyDesc| unsafe {
        call::dtlv_rti_cmp(fx.h(), a, b, td)
    };
    // Elements: (some(..), 3) > (none, 4) since none < some.
    let e0 = unsafe { call::dtlv_rti_list_at(fx.h(), &list, &pair, 0) };
    let e1 = unsafe { call::dtlv_rti_list_at(fx.h(), &list, &pair, 1) };
    assert_eq!(cmp(e0, e1, &pair), Ordering::Greater);
    assert_eq!(cmp(e1, e0, &pair), Ordering::Less);
    assert!(!unsafe { call::dtlv_rti_eq(fx.h(), e0, e1, &pair) });

    // Lists: lexicographic, a prefix first.
    let u8_td = scalar(TyKind::U8);
    let l12 = list_of(&fx, &u8_td, vec![1u8, 2]);
    let l13 = list_of(&fx, &u8_td, vec![1u8, 3]);
    let l1 = list_of(&fx, &u8_td, vec![1u8]);
    let lt = OwnedTyDesc::list(scalar(TyKind::U8));
    assert_eq!(cmp(ptr(&l12), ptr(&l13), &lt), Ordering::Less);
    assert_eq!(cmp(ptr(&l1), ptr(&l12), &lt), Ordering::Less);
    assert_eq!(cmp(ptr(&l13), ptr(&l12), &lt), Ordering::Greater);

    // Data: by type name first, then value.
    let di = make_data(&fx, 5i32, &scalar(TyKind::I32));
    let du = make_data(&fx, 1u8, &scalar(TyKind::U8));
    let du2 = make_data(&fx, 2u8, &scalar(TyKind::U8));
    assert_eq!(
        cmp(ptr(&di), ptr(&du), &DATA_TYDESC),
        Ordering::Less,
        "i32 < u8"
    );
    assert_eq!(cmp(ptr(&du), ptr(&du2), &DATA_TYDESC), Ordering::Less);
    assert!(!unsafe { call::dtlv_rti_eq(fx.h(), ptr(&di), ptr(&du), &DATA_TYDESC) });

    // Signed integers order as signed.
    let (a, b) = (-1i8, 1i8);
    assert_eq!(cmp(ptr(&a), ptr(&b), &scalar(TyKind::I8)), Ordering::Less);
    assert_eq!(
        unsafe {
            (call::table(fx.h()).cmp)(fx.rt.handle(), ptr(&b), ptr(&a), &*scalar(TyKind::I8))
        },
        1
    );

    fx.drop_all([l12, l13, l1], &lt);
    fx.drop_all([di, du, du2], &DATA_TYDESC);
    fx.drop_value(list, &list_td);
}

#[test]
fn floats_order_totally_with_every_nan_last_and_equal() {
    let fx = Fixture::new();
    let f64_td = scalar(TyKind::F64);
    let f32_td = scalar(TyKind::F32);
    let cmp = |a: f64, b: f64| unsafe { call::dtlv_rti_cmp(fx.h(), ptr(&a), ptr(&b), &f64_td) };
    assert_eq!(cmp(1.0, 2.0), Ordering::Less);
    assert_eq!(cmp(f64::INFINITY, f64::NAN), Ordering::Less);
    assert_eq!(cmp(f64::NAN, f64::NEG_INFINITY), Ordering::Greater);
    assert_eq!(
        cmp(-f64::NAN, f64::NEG_INFINITY),
        Ordering::Greater,
        "a negative NaN too"
    );
    assert_eq!(cmp(f64::NAN, -f64::NAN), Ordering::Equal);
    assert_eq!(cmp(-0.0, 0.0), Ordering::Less, "total order");
    let (n1, n2) = (f64::NAN, f64::NAN);
    assert!(unsafe { call::dtlv_rti_eq(fx.h(), ptr(&n1), ptr(&n2), &f64_td) });
    let (a, b) = (f32::NAN, 3.0f32);
    assert_eq!(
        unsafe { call::dtlv_rti_cmp(fx.h(), ptr(&a), ptr(&b), &f32_td) },
        Ordering::Greater
    );
}

#[test]
fn scalars_format_by_the_rules() {
    let fx = Fixture::new();
    let f = |v: f64| fx.format(ptr(&v), &scalar(TyKind::F64));
    assert_eq!(f(1.0), "1.0");
    assert_eq!(f(0.1), "0.1");
    assert_eq!(f(1e300), "1e300");
    assert_eq!(f(f64::INFINITY), "inf");
    assert_eq!(f(f64::NEG_INFINITY), "-inf");
    assert_eq!(f(f64::NAN), "NaN");
    assert_eq!(f(-0.0), "-0.0");
    let v = 0.1f32;
    assert_eq!(fx.format(ptr(&v), &scalar(TyKind::F32)), "0.1");
    let v = 16777216.0f32;
    assert_eq!(fx.format(ptr(&v), &scalar(TyKind::F32)), "16777216.0");
    let v = i64::MIN;
    assert_eq!(
        fx.format(ptr(&v), &scalar(TyKind::I64)),
        "-9223372036854775808"
    );
    let v = u64::MAX;
    assert_eq!(
        fx.format(ptr(&v), &scalar(TyKind::Index)),
        "18446744073709551615"
    );
    let v = 200u8;
    assert_eq!(fx.format(ptr(&v), &scalar(TyKind::U8)), "200");
    let v = true;
    assert_eq!(fx.format(ptr(&v), &scalar(TyKind::Bool)), "true");
    assert_eq!(fx.format(ptr(&()), &scalar(TyKind::Unit)), "()");
    // Tuples: one field gets a comma, none is ().
    let one = OwnedTyDesc::tuple(vec![scalar(TyKind::I32)]);
    let v = 1i32;
    assert_eq!(fx.format(ptr(&v), &one), "(1,)");
    let none = OwnedTyDesc::tuple(vec![]);
    assert_eq!(fx.format(ptr(&()), &none), "()");
    let two = OwnedTyDesc::tuple(vec![scalar(TyKind::I32), OwnedTyDesc::string()]);
    let mut b = buf(&two);
    unsafe {
        bptr(&mut b).cast::<i32>().write(1);
        bptr(&mut b)
            .add(two.fields()[1].offset)
            .cast::<rtdt::String>()
            .write(fx.string("a"));
    }
    assert_eq!(fx.format(bptr(&mut b).cast(), &two), r#"(1, "a")"#);
    fx.drop_at(bptr(&mut b), &two);
    // Options of scalars.
    let opt = OwnedTyDesc::option(scalar(TyKind::I32));
    let mut b = buf(&opt);
    assert_eq!(fx.format(bptr(&mut b).cast(), &opt), "none");
    unsafe {
        *bptr(&mut b) = 1;
        bptr(&mut b).add(opt.payload_offset).cast::<i32>().write(3);
    }
    assert_eq!(fx.format(bptr(&mut b).cast(), &opt), "some(3)");
}

#[test]
fn debuglog_prints_a_line_to_the_output() {
    let fx = Fixture::new();
    let s = fx.string("raw \"text\"\0!");
    let n = 42u32;
    unsafe {
        call::dtlv_rti_debuglog(fx.h(), ptr(&s), &STRING_TYDESC);
        call::dtlv_rti_debuglog(fx.h(), ptr(&n), &scalar(TyKind::U32));
    }
    let l = list_of(&fx, &STRING_TYDESC, vec![fx.string("q")]);
    let lt = OwnedTyDesc::list(OwnedTyDesc::string());
    unsafe { call::dtlv_rti_debuglog(fx.h(), ptr(&l), &lt) };
    assert_eq!(fx.rt.take_output(), b"raw \"text\"\0!\n42\n[\"q\"]\n");
    assert_eq!(fx.rt.take_output(), b"", "taking empties the buffer");
    fx.drop_value(s, &STRING_TYDESC);
    fx.drop_value(l, &lt);
}

#[test]
fn drop_of_copy_values_and_of_a_none_does_nothing() {
    let fx = Fixture::new();
    let opt = OwnedTyDesc::option(OwnedTyDesc::string());
    let mut b = buf(&opt);
    unsafe { call::dtlv_rti_drop(fx.h(), bptr(&mut b).cast(), &opt) };
    let mut n = 5u64;
    unsafe { call::dtlv_rti_drop(fx.h(), mut_ptr(&mut n), &scalar(TyKind::U64)) };
    assert_eq!(n, 5);
}

/// A record: laid out, cloned, dropped, compared and formatted as the tuple of its
/// fields, with its name and field names from its descriptor, and interned with them.
#[test]
fn records_format_with_their_names_and_compare_as_tuples() {
    let fx = Fixture::new();
    let record = OwnedTyDesc::record(
        "Item",
        &["count", "name"],
        vec![scalar(TyKind::U32), OwnedTyDesc::string()],
    );
    let tuple = OwnedTyDesc::tuple(vec![scalar(TyKind::U32), OwnedTyDesc::string()]);
    assert_eq!(record.kind, TyKind::Record);
    assert_eq!((record.size, record.align), (tuple.size, tuple.align));
    assert_eq!(unsafe { record.record_names() }, ["Item", "count", "name"]);
    assert!(!unsafe { same_tydesc(&record, &tuple) });
    let other = OwnedTyDesc::record(
        "Other",
        &["count", "name"],
        vec![scalar(TyKind::U32), OwnedTyDesc::string()],
    );
    assert!(
        !unsafe { same_tydesc(&record, &other) },
        "names tell records apart"
    );

    let make = |count: u32, name: &str| {
        let mut b = buf(&record);
        let fields = unsafe { record.fields() };
        unsafe {
            bptr(&mut b)
                .add(fields[0].offset)
                .cast::<u32>()
                .write(count);
            let s = fx.string(name);
            bptr(&mut b)
                .add(fields[1].offset)
                .cast::<rtdt::String>()
                .write(s);
        }
        b
    };
    let mut a = make(3, "pear");
    let mut b = make(3, "plum");
    assert_eq!(
        fx.format(bptr(&mut a).cast(), &record),
        "Item { count: 3, name: \"pear\" }"
    );
    let cmp =
        unsafe { call::dtlv_rti_cmp(fx.h(), bptr(&mut a).cast(), bptr(&mut b).cast(), &record) };
    assert_eq!(cmp, Ordering::Less);
    let name = fx.text_of(|out| unsafe { call::dtlv_rti_type_name(fx.h(), &record, out) });
    assert_eq!(name, "Item");

    // A list of records, interned at run time, keeps the names.
    let list_td = unsafe { call::dtlv_rti_tydesc_list(fx.h(), &record) };
    let elem = unsafe { list_td.elem() };
    assert_eq!(elem.kind, TyKind::Record);
    assert_eq!(unsafe { elem.record_names() }, ["Item", "count", "name"]);

    let mut copy = buf(&record);
    let status = unsafe {
        call::dtlv_rti_clone(fx.h(), bptr(&mut a).cast(), &record, bptr(&mut copy).cast())
    };
    assert_eq!(status, STATUS_OK);
    assert_eq!(
        fx.format(bptr(&mut copy).cast(), &record),
        "Item { count: 3, name: \"pear\" }"
    );
    for mut v in [a, b, copy] {
        fx.drop_at(bptr(&mut v), &record);
    }
}

/// An enum: a `u32` tag at 0, every payload at one offset; cloned, dropped and formatted
/// by the variant its tag names, compared by tag then payload, interned with its names.
#[test]
fn enums_follow_their_tag() {
    let fx = Fixture::new();
    let e = OwnedTyDesc::enumeration(
        "Shape",
        &["Empty", "Circle", "Named"],
        vec![
            OwnedTyDesc::tuple(vec![]),
            OwnedTyDesc::tuple(vec![scalar(TyKind::F64)]),
            OwnedTyDesc::tuple(vec![scalar(TyKind::U8), OwnedTyDesc::string()]),
        ],
    );
    assert_eq!(e.kind, TyKind::Enum);
    assert_eq!((e.size, e.align, e.payload_offset), (40, 8, 8));
    assert!(!e.is_copy());
    assert_eq!(
        unsafe { e.record_names() },
        ["Shape", "Empty", "Circle", "Named"]
    );
    let make = |tag: u32, fill: &dyn Fn(*mut u8)| {
        let mut b = buf(&e);
        unsafe {
            bptr(&mut b).cast::<u32>().write(tag);
            fill(bptr(&mut b).add(e.payload_offset));
        }
        b
    };
    let named = |n: u8, s: &str| {
        let s = fx.string(s);
        let fields_td = unsafe { &*e.fields()[2].desc };
        let fields = unsafe { fields_td.fields() };
        let (o0, o1) = (fields[0].offset, fields[1].offset);
        make(2, &move |p| unsafe {
            p.add(o0).write(n);
            p.add(o1).cast::<rtdt::String>().write(std::ptr::read(&s));
        })
    };
    let mut empty = make(0, &|_| {});
    let mut circle = make(1, &|p| unsafe { p.cast::<f64>().write(1.5) });
    let mut a = named(7, "pear");
    let mut b = named(7, "plum");
    assert_eq!(fx.format(bptr(&mut empty).cast(), &e), "Empty");
    assert_eq!(fx.format(bptr(&mut circle).cast(), &e), "Circle(1.5)");
    assert_eq!(fx.format(bptr(&mut a).cast(), &e), "Named(7, \"pear\")");
    let cmp = |x: &mut Vec<u64>, y: &mut Vec<u64>| unsafe {
        call::dtlv_rti_cmp(fx.h(), bptr(x).cast(), bptr(y).cast(), &e)
    };
    assert_eq!(cmp(&mut empty, &mut circle), Ordering::Less, "by tag first");
    assert_eq!(cmp(&mut a, &mut b), Ordering::Less, "then by payload");
    assert_eq!(cmp(&mut b, &mut circle), Ordering::Greater);
    let name = fx.text_of(|out| unsafe { call::dtlv_rti_type_name(fx.h(), &e, out) });
    assert_eq!(name, "Shape");
    let list_td = unsafe { call::dtlv_rti_tydesc_list(fx.h(), &e) };
    let elem = unsafe { list_td.elem() };
    assert!(unsafe { same_tydesc(elem, &e) });
    let mut copy = buf(&e);
    let status =
        unsafe { call::dtlv_rti_clone(fx.h(), bptr(&mut a).cast(), &e, bptr(&mut copy).cast()) };
    assert_eq!(status, STATUS_OK);
    assert_eq!(fx.format(bptr(&mut copy).cast(), &e), "Named(7, \"pear\")");
    for mut v in [empty, circle, a, b, copy] {
        fx.drop_at(bptr(&mut v), &e);
    }
}
