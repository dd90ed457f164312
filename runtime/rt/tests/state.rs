//! Errors, the shadow stack, interned descriptors and counted allocation.

mod common;

use common::{scalar, Fixture};
use datalove_rt::errors::{arith_detail, cast_ty};
use datalove_rt::{ErrorKind, RuntimeError};
use datalove_rti::call;
use datalove_rti::status::{ArithOp, STATUS_EMPTY, STATUS_FAILED, STATUS_PANICKED};
use datalove_rti::tydesc::OwnedTyDesc;
use datalove_rti::{same_tydesc, AllocStats, TyKind};

// ---- errors ----

#[test]
fn error_set_and_error_message_round_trip() {
    let fx = Fixture::new();
    unsafe {
        assert_eq!(call::dtlv_rti_error_message(fx.h()), "");
        call::dtlv_rti_error_set(fx.h(), "bad thing");
        assert_eq!(call::dtlv_rti_error_message(fx.h()), "bad thing");
        call::dtlv_rti_error_set(fx.h(), "worse");
        assert_eq!(call::dtlv_rti_error_message(fx.h()), "worse");
        let mut len = 0usize;
        let p = (call::table(fx.h()).error_message)(fx.rt.handle(), &mut len);
        assert_eq!(std::slice::from_raw_parts(p, len), b"worse");
        // Setting a message raises nothing.
        assert!(!fx.rt.abandoning());
    }
    assert_eq!(fx.rt.error(), None);
}

#[test]
fn native_failed_carries_the_message_clears_it_and_abandons() {
    let fx = Fixture::new();
    unsafe {
        call::dtlv_rti_error_set(fx.h(), "no such file");
        call::dtlv_rti_native_failed(fx.h(), "std", "read_file", STATUS_FAILED);
        assert_eq!(
            call::dtlv_rti_error_message(fx.h()),
            "",
            "the message was cleared"
        );
    }
    assert!(fx.rt.abandoning());
    let error = fx.rt.take_error().unwrap();
    assert_eq!(error.kind, ErrorKind::NativeFailure);
    assert_eq!(error.detail, "std.read_file: no such file");
    assert_eq!(
        error.to_string(),
        "native failure: std.read_file: no such file"
    );
    assert!(!fx.rt.abandoning(), "taking the error resets the runtime");
}

#[test]
fn native_failed_without_a_message_names_the_status() {
    let fx = Fixture::new();
    unsafe { call::dtlv_rti_native_failed(fx.h(), "r", "f", STATUS_EMPTY) };
    fx.assert_error("native failure: r.f: empty");
    unsafe { call::dtlv_rti_native_failed(fx.h(), "r", "g", 77) };
    fx.assert_error("native failure: r.g: unknown failure status");
    unsafe { call::dtlv_rti_native_failed(fx.h(), "r", "h", STATUS_PANICKED) };
    assert_eq!(fx.rt.take_error().unwrap().detail, "r.h: panicked");
}

#[test]
fn the_first_error_wins() {
    let fx = Fixture::new();
    unsafe {
        call::dtlv_rti_raise_bounds(fx.h(), 5, 3);
        call::dtlv_rti_raise_stack_overflow(fx.h());
        call::dtlv_rti_error_set(fx.h(), "later");
        call::dtlv_rti_native_failed(fx.h(), "std", "f", STATUS_FAILED);
    }
    assert!(fx.rt.abandoning());
    let error = fx.rt.take_error().unwrap();
    assert_eq!(
        error.to_string(),
        "index out of bounds: index 5 out of bounds for length 3"
    );
    assert_eq!(fx.rt.take_error(), None);
    // After taking, a new error is recorded again.
    unsafe { call::dtlv_rti_raise_stack_overflow(fx.h()) };
    fx.assert_error("stack overflow: out of stack space");
}

#[test]
fn raise_records_kind_and_detail() {
    let fx = Fixture::new();
    unsafe { call::dtlv_rti_raise(fx.h(), ErrorKind::UnwrapNone, "unwrap of ?i32") };
    assert_eq!(
        fx.rt.take_error(),
        Some(RuntimeError::new(ErrorKind::UnwrapNone, "unwrap of ?i32"))
    );
    // An unknown kind is still an error, never ignored.
    unsafe { (call::table(fx.h()).raise)(fx.rt.handle(), 999, b"x".as_ptr(), 1) };
    fx.assert_error("native failure: unknown error kind 999: x");
}

#[test]
fn raise_arith_words_each_error() {
    let fx = Fixture::new();
    let cases = [
        (
            ErrorKind::Overflow,
            ArithOp::Add,
            TyKind::I32 as u32,
            "overflow: i32 addition",
        ),
        (
            ErrorKind::Overflow,
            ArithOp::Mul,
            TyKind::U8 as u32,
            "overflow: u8 multiplication",
        ),
        (
            ErrorKind::Overflow,
            ArithOp::Neg,
            TyKind::I64 as u32,
            "overflow: i64 negation",
        ),
        (
            ErrorKind::Overflow,
            ArithOp::Shl,
            TyKind::U32 as u32,
            "overflow: u32 shift left",
        ),
        (
            ErrorKind::DivisionByZero,
            ArithOp::Div,
            TyKind::I32 as u32,
            "division by zero: i32 division",
        ),
        (
            ErrorKind::DivisionByZero,
            ArithOp::Rem,
            TyKind::U64 as u32,
            "division by zero: u64 remainder",
        ),
        (
            ErrorKind::InvalidCast,
            ArithOp::Cast,
            cast_ty(TyKind::F64, TyKind::I32),
            "invalid cast: f64 to i32 conversion",
        ),
        (
            ErrorKind::Overflow,
            ArithOp::Cast,
            cast_ty(TyKind::I64, TyKind::U8),
            "overflow: i64 to u8 conversion",
        ),
        (
            ErrorKind::InvalidCast,
            ArithOp::Cast,
            TyKind::U16 as u32,
            "invalid cast: conversion to u16",
        ),
    ];
    for (kind, op, ty, text) in cases {
        unsafe { (call::table(fx.h()).raise_arith)(fx.rt.handle(), kind as u32, op as u32, ty) };
        fx.assert_error(text);
    }
    unsafe { call::dtlv_rti_raise_arith(fx.h(), ErrorKind::Overflow, ArithOp::Sub, TyKind::I16) };
    assert_eq!(fx.rt.take_error().unwrap().detail, "i16 subtraction");
    assert_eq!(arith_detail(99, TyKind::I8 as u32), "i8 unknown operation");
}

#[test]
fn a_runtime_error_displays_kind_then_detail_and_error_peeks() {
    let fx = Fixture::new();
    let e = RuntimeError::new(ErrorKind::DivisionByZero, "i32 division");
    assert_eq!(format!("{e}"), "division by zero: i32 division");
    unsafe { call::dtlv_rti_raise_stack_overflow(fx.h()) };
    assert_eq!(fx.rt.error().unwrap().kind, ErrorKind::StackOverflow);
    assert!(fx.rt.error().is_some(), "error() leaves it in place");
    fx.rt.take_error();
}

// ---- shadow stack ----

#[test]
fn shadow_push_reserves_aligned_and_pop_releases_to_a_mark() {
    let fx = Fixture::with_shadow(1024);
    let header = fx.rt.handle();
    unsafe {
        let base = (*header).shadow_top;
        assert_eq!((*header).shadow_limit as usize - base as usize, 1024);
        let a = call::dtlv_rti_shadow_push(fx.h(), 3, 1);
        assert_eq!(a, base);
        let mark = (*header).shadow_top;
        assert_eq!(mark as usize, base as usize + 3);
        let b = call::dtlv_rti_shadow_push(fx.h(), 16, 8);
        assert_eq!(b as usize % 8, 0);
        assert_eq!(b as usize, base as usize + 8);
        b.write_bytes(0xee, 16);
        assert_eq!(fx.rt.shadow_used(), 24);
        call::dtlv_rti_shadow_pop(fx.h(), mark);
        assert_eq!((*header).shadow_top, mark);
        call::dtlv_rti_shadow_pop(fx.h(), base);
        assert_eq!(fx.rt.shadow_used(), 0);
        // A zero-size push is fine.
        assert!(!call::dtlv_rti_shadow_push(fx.h(), 0, 1).is_null());
    }
    assert_eq!(fx.live(), 0, "the shadow stack is not a program allocation");
    assert!(!fx.rt.abandoning());
}

#[test]
fn shadow_stack_exhaustion_raises_and_returns_null() {
    let fx = Fixture::with_shadow(64);
    unsafe {
        assert!(!call::dtlv_rti_shadow_push(fx.h(), 60, 1).is_null());
        let top = (*fx.rt.handle()).shadow_top;
        assert!(call::dtlv_rti_shadow_push(fx.h(), 8, 1).is_null());
        assert_eq!(
            (*fx.rt.handle()).shadow_top,
            top,
            "a refused push reserves nothing"
        );
    }
    assert!(fx.rt.abandoning());
    fx.assert_error("shadow stack exhausted: limit of 64 bytes reached");
    unsafe {
        assert!(
            call::dtlv_rti_shadow_push(fx.h(), 1, 3).is_null(),
            "alignment 3 is refused"
        );
        fx.rt.take_error();
        assert!(call::dtlv_rti_shadow_push(fx.h(), usize::MAX, 1).is_null());
    }
    assert_eq!(
        fx.rt.take_error().unwrap().kind,
        ErrorKind::ShadowStackExhausted
    );
}

#[test]
fn shadow_stack_defaults_to_8_mib() {
    let fx = Fixture::new();
    unsafe {
        let h = fx.rt.handle();
        assert_eq!(
            (*h).shadow_limit as usize - (*h).shadow_top as usize,
            8 << 20
        );
    }
}

// ---- interned descriptors ----

#[test]
fn interning_gives_one_structurally_equal_descriptor_per_type() {
    let fx = Fixture::new();
    let u8_td = scalar(TyKind::U8);
    let other_u8 = scalar(TyKind::U8);
    unsafe {
        let l1 = call::dtlv_rti_tydesc_list(fx.h(), &u8_td);
        let l2 = call::dtlv_rti_tydesc_list(fx.h(), &other_u8);
        assert!(std::ptr::eq(l1, l2), "interned: the same descriptor");
        assert!(same_tydesc(l1, &OwnedTyDesc::list(scalar(TyKind::U8))));

        let s = OwnedTyDesc::string();
        let o = call::dtlv_rti_tydesc_option(fx.h(), &s);
        let emitted_o = OwnedTyDesc::option(OwnedTyDesc::string());
        assert!(same_tydesc(o, &emitted_o));
        assert!(std::ptr::eq(
            o,
            call::dtlv_rti_tydesc_option(fx.h(), emitted_o.elem())
        ));
        assert_eq!(o.payload_offset, 8);
        assert!(!o.is_copy());

        let t = call::dtlv_rti_tydesc_tuple(fx.h(), &[l1, o, &scalar(TyKind::U16)]);
        let emitted_t = OwnedTyDesc::tuple(vec![
            OwnedTyDesc::list(scalar(TyKind::U8)),
            OwnedTyDesc::option(OwnedTyDesc::string()),
            scalar(TyKind::U16),
        ]);
        assert!(same_tydesc(t, &emitted_t));
        // Asking with a structurally equal but separately built descriptor gives the
        // same interned one.
        let t2 = call::dtlv_rti_tydesc_tuple(
            fx.h(),
            &[
                &*OwnedTyDesc::list(scalar(TyKind::U8)),
                &*OwnedTyDesc::option(OwnedTyDesc::string()),
                &*scalar(TyKind::U16),
            ],
        );
        assert!(std::ptr::eq(t, t2));
        assert_eq!(t.type_name(), "([u8], ?string, u16)");

        let copy_pair =
            call::dtlv_rti_tydesc_tuple(fx.h(), &[&*scalar(TyKind::I32), &*scalar(TyKind::F64)]);
        assert!(copy_pair.is_copy());
        assert_eq!((copy_pair.size, copy_pair.align), (16, 8));

        let empty = call::dtlv_rti_tydesc_tuple(fx.h(), &[]);
        assert_eq!((empty.size, empty.field_count), (0, 0));
        assert!(same_tydesc(empty, &OwnedTyDesc::tuple(vec![])));
        assert!(std::ptr::eq(
            empty,
            call::dtlv_rti_tydesc_tuple(fx.h(), &[])
        ));
    }
    assert_eq!(
        fx.live(),
        0,
        "interned descriptors are not program allocations"
    );
}

#[test]
fn a_descriptor_at_an_address_asked_before_but_now_of_another_type_is_not_recalled() {
    // The constructors remember what they made by the addresses they were given; a
    // temporary descriptor rewritten in place (as a rider's stack slot is reused) must
    // still get the descriptor of what it now describes.
    let fx = Fixture::new();
    unsafe {
        // A scalar's or a string's descriptor points at nothing: its bytes stand alone.
        let mut asked: datalove_rti::TyDesc = std::ptr::read(&*scalar(TyKind::U8));
        let at: *mut datalove_rti::TyDesc = &mut asked;
        let l_u8 = call::dtlv_rti_tydesc_list(fx.h(), &*at);
        let o_u8 = call::dtlv_rti_tydesc_option(fx.h(), &*at);
        let m_u8 = call::dtlv_rti_tydesc_map(fx.h(), &*at, &*at);
        assert_eq!(
            (l_u8.type_name(), o_u8.type_name(), m_u8.type_name()),
            ("[u8]".into(), "?u8".into(), "map[u8, u8]".into())
        );
        // Asked again from the same address: the same descriptors.
        assert!(std::ptr::eq(l_u8, call::dtlv_rti_tydesc_list(fx.h(), &*at)));
        assert!(std::ptr::eq(
            m_u8,
            call::dtlv_rti_tydesc_map(fx.h(), &*at, &*at)
        ));
        // The same address now describes a string.
        std::ptr::write(at, std::ptr::read(&*OwnedTyDesc::string()));
        let l = call::dtlv_rti_tydesc_list(fx.h(), &*at);
        let o = call::dtlv_rti_tydesc_option(fx.h(), &*at);
        let m = call::dtlv_rti_tydesc_map(fx.h(), &*at, &*at);
        assert_eq!(
            (l.type_name(), o.type_name(), m.type_name()),
            (
                "[string]".into(),
                "?string".into(),
                "map[string, string]".into()
            )
        );
        assert!(!o.is_copy());
        assert!(std::ptr::eq(
            l,
            call::dtlv_rti_tydesc_list(fx.h(), &OwnedTyDesc::string())
        ));
    }
}

// ---- counted allocation ----

#[test]
fn alloc_free_and_alloc_stats_count() {
    let fx = Fixture::new();
    unsafe {
        assert_eq!(call::dtlv_rti_alloc_stats(fx.h()), AllocStats::default());
        let p = call::dtlv_rti_alloc(fx.h(), 100, 16);
        assert!(!p.is_null());
        assert_eq!(p as usize % 16, 0);
        p.write_bytes(1, 100);
        let q = call::dtlv_rti_alloc(fx.h(), 8, 8);
        assert_eq!(
            call::dtlv_rti_alloc_stats(fx.h()),
            AllocStats {
                live: 2,
                total: 2,
                live_bytes: 108
            }
        );
        call::dtlv_rti_free(fx.h(), p, 100, 16);
        call::dtlv_rti_free(fx.h(), q, 8, 8);
        assert_eq!(
            call::dtlv_rti_alloc_stats(fx.h()),
            AllocStats {
                live: 0,
                total: 2,
                live_bytes: 0
            }
        );
        // Zero bytes is no allocation; a bad alignment is refused.
        let z = call::dtlv_rti_alloc(fx.h(), 0, 8);
        assert!(!z.is_null());
        assert_eq!(call::dtlv_rti_alloc_stats(fx.h()).total, 2);
        call::dtlv_rti_free(fx.h(), z, 0, 8);
        assert!(call::dtlv_rti_alloc(fx.h(), 8, 3).is_null());
    }
    assert_eq!(fx.rt.leak_report(), None);
    let s = fx.string("abc");
    assert_eq!(
        fx.rt.leak_report().as_deref(),
        Some("1 allocation still live (3 bytes)")
    );
    fx.drop_value(s, &datalove_rti::tydesc::STRING_TYDESC);
}

// ---- one line, the depth limit ----

#[test]
fn every_detail_is_one_line_with_visible_escapes() {
    use datalove_rt::errors::one_line;
    assert_eq!(
        one_line(b"plain text, \xc3\xa9t\xc3\xa9"),
        "plain text, été"
    );
    assert_eq!(one_line(b"a\nb\rc\td\0e\\f"), "a\\nb\\rc\\td\\0e\\\\f");
    assert_eq!(one_line(b"esc \x1b del \x7f"), "esc \\u{1b} del \\u{7f}");
    assert_eq!(
        one_line("nel \u{85} ls \u{2028}".as_bytes()),
        "nel \\u{85} ls \\u{2028}"
    );
    assert_eq!(
        one_line(b"bad \xff\xfe and \xc3("),
        "bad \\xff\\xfe and \\xc3("
    );
    for bytes in [&b"x\ny"[..], b"\r\n", b"\xff\n\x00"] {
        assert!(!one_line(bytes).contains(['\n', '\r', '\0']));
    }
}

#[test]
fn a_native_message_is_escaped_once_when_it_is_raised() {
    let fx = Fixture::new();
    unsafe {
        let message = b"two\nlines \xff";
        (call::table(fx.h()).error_set)(fx.rt.handle(), message.as_ptr(), message.len());
        fx.rt.native_failed("r", "f", STATUS_FAILED);
    }
    let error = fx.rt.take_error().unwrap();
    assert_eq!(error.to_string(), "native failure: r.f: two\\nlines \\xff");
}

#[test]
fn a_stack_overflow_with_no_depth_left_names_the_depth_limit() {
    let fx = Fixture::new();
    let limit = fx.rt.options().depth_limit;
    assert_eq!(limit, datalove_rt::DEFAULT_DEPTH_LIMIT);
    unsafe {
        assert_eq!((*fx.rt.handle()).depth_left, limit);
        (*fx.rt.handle()).depth_left = 0;
        call::dtlv_rti_raise_stack_overflow(fx.h());
    }
    fx.assert_error("stack overflow: call depth limit of 1000000 reached");
    // Taking the error gives the next run the whole depth again.
    assert_eq!(unsafe { (*fx.rt.handle()).depth_left }, limit);
}

#[test]
fn small_blocks_of_every_size_are_disjoint_aligned_and_reused() {
    let fx = Fixture::new();
    // Every size across the pool's classes and past them, at the alignments a program
    // asks for: each block filled with its own byte, half given back in a scattered
    // order, as many taken again, and every live block still holding its byte.
    let mut live: Vec<(*mut u8, usize, usize, u8)> = Vec::new();
    let mut next_byte = 0u8;
    let mut take = |fx: &Fixture, size: usize, align: usize| unsafe {
        let p = call::dtlv_rti_alloc(fx.h(), size, align);
        assert!(!p.is_null());
        assert_eq!(p as usize % align, 0, "{size} bytes at {align}");
        next_byte = next_byte.wrapping_add(1);
        p.write_bytes(next_byte, size);
        (p, size, align, next_byte)
    };
    for round in 0..3 {
        for size in 1..=300 {
            for align in [1, 2, 4, 8, 16] {
                live.push(take(&fx, size, align));
            }
        }
        let mut kept = Vec::new();
        for (i, block) in live.drain(..).enumerate() {
            if (i * 7919 + round) % 2 == 0 {
                unsafe { call::dtlv_rti_free(fx.h(), block.0, block.1, block.2) };
            } else {
                kept.push(block);
            }
        }
        live = kept;
    }
    let mut spans: Vec<(usize, usize)> = live.iter().map(|b| (b.0 as usize, b.1)).collect();
    spans.sort();
    for pair in spans.windows(2) {
        assert!(
            pair[0].0 + pair[0].1 <= pair[1].0,
            "two live blocks overlap"
        );
    }
    for &(p, size, align, byte) in &live {
        let bytes = unsafe { std::slice::from_raw_parts(p, size) };
        assert!(
            bytes.iter().all(|&b| b == byte),
            "{size} bytes at {align} changed"
        );
    }
    let stats = unsafe { call::dtlv_rti_alloc_stats(fx.h()) };
    assert_eq!(stats.live, live.len());
    assert_eq!(stats.live_bytes, live.iter().map(|b| b.1).sum::<usize>());
    for &(p, size, align, _) in &live {
        unsafe { call::dtlv_rti_free(fx.h(), p, size, align) };
    }
    // A small block given back is the next one of its size class handed out.
    unsafe {
        let p = call::dtlv_rti_alloc(fx.h(), 20, 8);
        call::dtlv_rti_free(fx.h(), p, 20, 8);
        assert_eq!(call::dtlv_rti_alloc(fx.h(), 24, 1), p);
        call::dtlv_rti_free(fx.h(), p, 24, 1);
    }
    assert_eq!(fx.rt.leak_report(), None);
}

#[test]
fn a_string_grown_byte_by_byte_through_every_size_keeps_its_bytes() {
    let fx = Fixture::new();
    // Growth moves the bytes within a size class (no move), across classes, out of the
    // small blocks and then as the system grows a large one.
    let mut s = fx.string("");
    let mut expected = String::new();
    for i in 0..2000u32 {
        let c = char::from(b'a' + (i % 26) as u8);
        expected.push(c);
        let status =
            unsafe { call::dtlv_rti_string_push(fx.h(), &mut s, c.to_string().as_bytes()) };
        assert_eq!(status, datalove_rti::status::STATUS_OK);
        assert_eq!(
            unsafe { call::dtlv_rti_string_bytes(fx.h(), &s) },
            expected.as_bytes()
        );
    }
    assert_eq!(unsafe { call::dtlv_rti_alloc_stats(fx.h()) }.live, 1);
    fx.drop_value(s, &datalove_rti::tydesc::STRING_TYDESC);
    assert_eq!(fx.rt.leak_report(), None);
}
