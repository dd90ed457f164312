//! `datalove_rti::rider_helpers` against the real runtime, as a rider uses them.

mod common;

use std::cmp::Ordering;
use std::mem::MaybeUninit;

use common::{list_of, mut_ptr, ptr, scalar, Fixture};
use datalove_rti::rider_helpers::*;
use datalove_rti::rtdt::{self, AnyOut, AnyRef, RtHandle};
use datalove_rti::status::*;
use datalove_rti::tydesc::{OwnedTyDesc, STRING_TYDESC};
use datalove_rti::{call, TyDesc, TyKind};

#[test]
fn guard_maps_ok_err_and_panic_to_statuses_and_messages() {
    let fx = Fixture::new();
    let rt = fx.h();
    unsafe {
        assert_eq!(guard(rt, || Ok(())), STATUS_OK);
        assert_eq!(guard(rt, || Err("nope".to_owned())), STATUS_FAILED);
        assert_eq!(call::dtlv_rti_error_message(rt), "nope");
        assert_eq!(guard(rt, || panic!("boom {}", 7)), STATUS_PANICKED);
        assert_eq!(call::dtlv_rti_error_message(rt), "panicked: boom 7");
        assert_eq!(guard(rt, || panic!("static")), STATUS_PANICKED);
        assert_eq!(call::dtlv_rti_error_message(rt), "panicked: static");
        assert_eq!(guard(rt, || std::panic::panic_any(17u32)), STATUS_PANICKED);
        assert_eq!(
            call::dtlv_rti_error_message(rt),
            "panicked: a panic with a payload that is not a string"
        );
        assert_eq!(
            guard_as(rt, STATUS_EMPTY, || Err("none left".into())),
            STATUS_EMPTY
        );
        assert_eq!(call::dtlv_rti_error_message(rt), "none left");
        assert_eq!(guard_as(rt, STATUS_EMPTY, || panic!("p")), STATUS_PANICKED);
        // A Failure keeps its status; a Failure claiming OK is still a failure.
        assert_eq!(
            guard_failure(rt, || Err(Failure::new(STATUS_TYPE_MISMATCH, "wrong"))),
            STATUS_TYPE_MISMATCH
        );
        assert_eq!(
            guard_failure(rt, || Err(Failure::new(STATUS_OK, "odd"))),
            STATUS_FAILED
        );
        assert_eq!(call::dtlv_rti_error_message(rt), "odd");
    }
    // The guard raised nothing by itself: reporting is compiled code's job.
    assert!(!fx.rt.abandoning());
}

#[test]
fn a_guarded_native_reports_through_native_failed() {
    // The whole path: a native fails, the caller sees the status and reports it.
    #[allow(non_snake_case)]
    unsafe extern "C-unwind" fn dlr_test__parse(
        rt: RtHandle,
        s: &rtdt::String,
        _s_td: &TyDesc,
        out: AnyOut<'_>,
        out_td: &TyDesc,
    ) -> RtStatus {
        guard_failure(rt, || {
            let n: i128 = s
                .as_str()
                .parse()
                .map_err(|e| Failure::failed(format!("cannot parse {:?}: {e}", s.as_str())))?;
            write_int(&out, out_td, n)
        })
    }
    let fx = Fixture::new();
    let i8_td = scalar(TyKind::I8);
    let mut out = 0i8;
    // Parses `text` into `out` (an i8): the status.
    let mut parse = |text: &str| unsafe {
        let s = fx.string(text);
        let status = dlr_test__parse(
            fx.h(),
            &s,
            &STRING_TYDESC,
            AnyOut::from_raw(mut_ptr(&mut out).cast()),
            &i8_td,
        );
        if status != STATUS_OK {
            call::dtlv_rti_native_failed(fx.h(), "test", "parse", status);
        }
        fx.drop_value(s, &STRING_TYDESC);
        status
    };
    assert_eq!(parse("-12"), STATUS_OK);
    assert_eq!(parse("300"), STATUS_FAILED);
    assert_eq!(out, -12, "written once, nothing written on failure");
    fx.assert_error("native failure: test.parse: 300 does not fit in i8");
}

#[test]
fn check_turns_a_runtime_status_into_a_failure_with_the_runtimes_message() {
    let fx = Fixture::new();
    unsafe {
        assert_eq!(check(fx.h(), STATUS_OK), Ok(()));
        let mut out = MaybeUninit::uninit();
        let status = call::dtlv_rti_string_from_bytes(fx.h(), b"\xff", &mut out);
        assert_eq!(
            check(fx.h(), status),
            Err(Failure::new(STATUS_INVALID_UTF8, "invalid UTF-8 at byte 0"))
        );
        call::dtlv_rti_error_set(fx.h(), "");
        assert_eq!(
            check(fx.h(), STATUS_EMPTY),
            Err(Failure::new(STATUS_EMPTY, "empty"))
        );
        // And `?` on it in a guard carries the runtime's status out.
        let status = guard_failure(fx.h(), || {
            let mut out = MaybeUninit::uninit();
            make_string_from_bytes(fx.h(), b"ok\xc3", &mut out)
        });
        fx.assert_refused(status, STATUS_INVALID_UTF8, "invalid UTF-8 at byte 2");
    }
}

#[test]
fn make_string_and_new_string_build_runtime_strings() {
    let fx = Fixture::new();
    unsafe {
        let mut out = MaybeUninit::uninit();
        make_string(fx.h(), "a\0b", &mut out).unwrap();
        let s = out.assume_init();
        assert_eq!(s.as_bytes(), b"a\0b");
        assert_eq!(fx.live(), 1);
        drop_string(fx.h(), s);
        let s = new_string(fx.h(), "").unwrap();
        assert!(s.is_empty());
        drop_string(fx.h(), s);
    }
}

#[test]
fn string_mut_changes_a_string_only_through_the_runtime() {
    let fx = Fixture::new();
    let mut s = fx.string("ab");
    unsafe {
        let mut m = StringMut::new(fx.h(), &mut s);
        m.push_str("cd").unwrap();
        m.push_char('é').unwrap();
        assert_eq!(m.as_str(), "abcdé");
        assert_eq!(m.len(), 6);
        assert_eq!(
            m.push_bytes(b"\xff"),
            Err(Failure::new(STATUS_INVALID_UTF8, "invalid UTF-8 at byte 0"))
        );
        assert_eq!(m.as_str(), "abcdé", "unchanged by a refused push");
        assert_eq!(
            m.truncate(5).unwrap_err().status,
            STATUS_OUT_OF_BOUNDS,
            "inside é"
        );
        assert_eq!(m.truncate(9).unwrap_err().status, STATUS_OUT_OF_BOUNDS);
        m.truncate(4).unwrap();
        assert_eq!(m.as_str(), "abcd");
        m.replace("new text").unwrap();
        assert_eq!(m.as_str(), "new text");
        m.clear();
        assert!(m.is_empty());
        m.push_bytes(b"x\0y").unwrap();
        assert_eq!(m.as_str(), "x\0y");
        let replacement = fx.string("moved in");
        m.set(replacement);
    }
    assert_eq!(s.as_str(), "moved in");
    assert_eq!(fx.live(), 1, "every old buffer was freed");
    fx.drop_value(s, &STRING_TYDESC);
}

#[test]
fn integers_read_and_write_through_descriptors_with_range_checks() {
    let kinds = [
        (TyKind::U8, 0i128, 255i128),
        (TyKind::U16, 0, 65535),
        (TyKind::U32, 0, u32::MAX as i128),
        (TyKind::U64, 0, u64::MAX as i128),
        (TyKind::Index, 0, u64::MAX as i128),
        (TyKind::I8, -128, 127),
        (TyKind::I16, -32768, 32767),
        (TyKind::I32, i32::MIN as i128, i32::MAX as i128),
        (TyKind::I64, i64::MIN as i128, i64::MAX as i128),
    ];
    for (kind, lo, hi) in kinds {
        let td = scalar(kind);
        let mut slot = [0u64; 1];
        let p = slot.as_mut_ptr().cast::<u8>();
        unsafe {
            for v in [lo, hi, 1] {
                write_int(&p, &td, v).unwrap();
                assert_eq!(read_int(&p, &td).unwrap(), v, "{kind:?}");
                assert_eq!(read_scalar(&p, &td).unwrap(), Scalar::Int(v));
            }
            let high = write_int(&p, &td, hi + 1).unwrap_err();
            assert_eq!(
                high.message,
                format!("{} does not fit in {}", hi + 1, kind.name())
            );
            assert_eq!(
                read_int(&p, &td).unwrap(),
                1,
                "nothing written when refused"
            );
            assert!(write_int(&p, &td, lo - 1).is_err());
        }
    }
    let f = scalar(TyKind::F64);
    let mut x = 1.5f64;
    unsafe {
        let err = read_int(&AnyRef::from_raw(mut_ptr(&mut x).cast()), &f).unwrap_err();
        assert_eq!(
            err,
            Failure::type_mismatch("expected an integer value, got f64")
        );
    }
}

#[test]
fn floats_bools_and_scalars_read_and_write() {
    let (f32_td, f64_td, bool_td, unit_td) = (
        scalar(TyKind::F32),
        scalar(TyKind::F64),
        scalar(TyKind::Bool),
        scalar(TyKind::Unit),
    );
    let mut slot = [0u64; 1];
    let p = slot.as_mut_ptr().cast::<u8>();
    unsafe {
        write_float(&p, &f64_td, 0.1).unwrap();
        assert_eq!(read_float(&p, &f64_td).unwrap(), 0.1);
        write_float(&p, &f32_td, 0.5).unwrap();
        assert_eq!(read_float(&p, &f32_td).unwrap(), 0.5);
        assert_eq!(
            write_float(&p, &f32_td, 1e300).unwrap_err().message,
            "1e300 does not fit in f32"
        );
        write_float(&p, &f32_td, f64::INFINITY).unwrap();
        assert_eq!(read_float(&p, &f32_td).unwrap(), f64::INFINITY);
        write_scalar(&p, &f64_td, Scalar::Int(3)).unwrap();
        assert_eq!(read_scalar(&p, &f64_td).unwrap(), Scalar::Float(3.0));
        write_bool(&p, &bool_td, true).unwrap();
        assert!(read_bool(&p, &bool_td).unwrap());
        assert_eq!(read_scalar(&p, &bool_td).unwrap(), Scalar::Bool(true));
        assert_eq!(read_scalar(&p, &unit_td).unwrap(), Scalar::Unit);
        write_scalar(&p, &unit_td, Scalar::Unit).unwrap();
        assert_eq!(
            write_scalar(&p, &bool_td, Scalar::Unit).unwrap_err().status,
            STATUS_TYPE_MISMATCH
        );
        assert_eq!(
            read_float(&p, &bool_td).unwrap_err().message,
            "expected a float value, got bool"
        );
        assert_eq!(
            read_scalar(&p, &STRING_TYDESC).unwrap_err().message,
            "expected a scalar value, got string"
        );
    }
    assert_eq!(expect_kind(&bool_td, TyKind::Bool), Ok(()));
    assert_eq!(
        expect_kind(&bool_td, TyKind::U8).unwrap_err().message,
        "expected a u8 value, got bool"
    );
}

#[test]
fn values_clone_drop_compare_format_and_init_through_helpers() {
    let fx = Fixture::new();
    let rt = fx.h();
    let lt = OwnedTyDesc::list(OwnedTyDesc::string());
    let list = list_of(&fx, &STRING_TYDESC, vec![fx.string("a"), fx.string("b")]);
    let src = ptr(&list);
    let mut copy = MaybeUninit::<rtdt::List>::uninit();
    let dst = copy.as_mut_ptr().cast::<std::ffi::c_void>();
    unsafe {
        clone_value(rt, &src, &lt, &dst).unwrap();
        assert!(values_eq(rt, &src, &dst.cast_const(), &lt));
        assert_eq!(
            compare_values(rt, &src, &dst.cast_const(), &lt),
            Ordering::Equal
        );
        assert_eq!(format_value(rt, &src, &lt).unwrap(), r#"["a", "b"]"#);
        debuglog(rt, &src, &lt);
        drop_value(rt, &dst, &lt);
        drop_value(rt, &src.cast_mut(), &lt);
    }
    assert_eq!(fx.rt.take_output(), b"[\"a\", \"b\"]\n");
    // The empty value, and a data lent back.
    let opt = OwnedTyDesc::option(OwnedTyDesc::string());
    let mut slot = [0xffu64; 4];
    let p = slot.as_mut_ptr().cast::<u8>();
    unsafe {
        init_value(rt, &p, &opt);
        assert_eq!(format_value(rt, &p, &opt).unwrap(), "none");
        let mut d = MaybeUninit::uninit();
        let mut v = 9u32;
        call::dtlv_rti_data_make(rt, mut_ptr(&mut v), &scalar(TyKind::U32), &mut d).unwrap_ok();
        let d = d.assume_init();
        let mut scratch = 0u64;
        let (held, td) = data_borrow(rt, &d, &mut scratch);
        assert_eq!(td.kind, TyKind::U32);
        assert_eq!(read_int(&held, td).unwrap(), 9);
    }
}

trait UnwrapOk {
    fn unwrap_ok(self);
}

impl UnwrapOk for RtStatus {
    fn unwrap_ok(self) {
        assert_eq!(self, STATUS_OK);
    }
}
