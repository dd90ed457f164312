//! Every string entry, with its failure paths.

mod common;

use std::mem::MaybeUninit;

use common::Fixture;
use datalove_rti::call;
use datalove_rti::rtdt::List;
use datalove_rti::status::{STATUS_EMPTY, STATUS_INVALID_UTF8, STATUS_OK, STATUS_OUT_OF_BOUNDS};
use datalove_rti::tydesc::{OwnedTyDesc, STRING_TYDESC};
use std::cmp::Ordering;

#[test]
fn string_from_bytes_makes_a_counted_string() {
    let fx = Fixture::new();
    let s = fx.string("héllo");
    assert_eq!(s.as_str(), "héllo");
    assert_eq!(fx.live(), 1);
    assert_eq!(fx.rt.alloc_stats().live_bytes, 6);
    fx.drop_value(s, &STRING_TYDESC);
}

#[test]
fn interior_nul_passes_unchanged() {
    let fx = Fixture::new();
    let bytes = b"\0a\0b\0";
    let mut out = MaybeUninit::uninit();
    let status = unsafe { call::dtlv_rti_string_from_bytes(fx.h(), bytes, &mut out) };
    assert_eq!(status, STATUS_OK);
    let s = unsafe { out.assume_init() };
    assert_eq!(unsafe { call::dtlv_rti_string_len(fx.h(), &s) }, 5);
    assert_eq!(unsafe { call::dtlv_rti_string_bytes(fx.h(), &s) }, bytes);
    // Top-level formatting prints the bytes raw, NULs included.
    assert_eq!(fx.format(common::ptr(&s), &STRING_TYDESC).as_bytes(), bytes);
    fx.drop_value(s, &STRING_TYDESC);
}

#[test]
fn empty_string_owns_nothing_and_lends_a_non_null_pointer() {
    let fx = Fixture::new();
    let mut out = MaybeUninit::uninit();
    let status = unsafe { call::dtlv_rti_string_from_bytes(fx.h(), &[], &mut out) };
    assert_eq!(status, STATUS_OK);
    let s = unsafe { out.assume_init() };
    assert_eq!(fx.live(), 0);
    let mut len = 99usize;
    let table = unsafe { call::table(fx.h()) };
    let p = unsafe { (table.string_bytes)(fx.rt.handle(), &s, &mut len) };
    assert!(!p.is_null());
    assert_eq!(len, 0);
    // A null pointer with length 0 is also the empty string.
    let mut out2 = MaybeUninit::uninit();
    let status = unsafe {
        (table.string_from_bytes)(fx.rt.handle(), std::ptr::null(), 0, out2.as_mut_ptr())
    };
    assert_eq!(status, STATUS_OK);
    let s2 = unsafe { out2.assume_init() };
    assert!(s2.is_empty());
    fx.drop_all([s, s2], &STRING_TYDESC);
}

#[test]
fn non_utf8_bytes_are_refused_with_status_and_message() {
    let fx = Fixture::new();
    let mut out = MaybeUninit::uninit();
    let status = unsafe { call::dtlv_rti_string_from_bytes(fx.h(), b"ab\xffc", &mut out) };
    fx.assert_refused(status, STATUS_INVALID_UTF8, "invalid UTF-8 at byte 2");
    // A truncated multi-byte sequence too.
    let status = unsafe { call::dtlv_rti_string_from_bytes(fx.h(), b"\xe2\x82", &mut out) };
    assert_eq!(status, STATUS_INVALID_UTF8);
    assert_eq!(fx.live(), 0);
}

#[test]
fn string_push_appends_and_refuses_non_utf8_leaving_the_string_unchanged() {
    let fx = Fixture::new();
    let mut s = fx.string("ab");
    for _ in 0..20 {
        assert_eq!(
            unsafe { call::dtlv_rti_string_push(fx.h(), &mut s, "cd".as_bytes()) },
            STATUS_OK
        );
    }
    assert_eq!(s.len(), 42);
    assert!(s.as_str().starts_with("abcdcd"));
    let before = s.as_str().to_owned();
    let status = unsafe { call::dtlv_rti_string_push(fx.h(), &mut s, b"\xc0\x80") };
    fx.assert_refused(status, STATUS_INVALID_UTF8, "invalid UTF-8 at byte 0");
    assert_eq!(s.as_str(), before);
    // Pushing onto the empty string allocates; pushing nothing does not.
    let mut e = fx.string("");
    assert_eq!(
        unsafe { call::dtlv_rti_string_push(fx.h(), &mut e, b"") },
        STATUS_OK
    );
    assert_eq!(fx.live(), 1);
    assert_eq!(
        unsafe { call::dtlv_rti_string_push(fx.h(), &mut e, b"x\0") },
        STATUS_OK
    );
    assert_eq!(e.as_bytes(), b"x\0");
    fx.drop_all([s, e], &STRING_TYDESC);
}

#[test]
fn string_concat_joins() {
    let fx = Fixture::new();
    let [a, b, c] = fx.strings(["foo", "", "bär"]);
    let mut out = MaybeUninit::uninit();
    assert_eq!(
        unsafe { call::dtlv_rti_string_concat(fx.h(), &a, &c, &mut out) },
        STATUS_OK
    );
    let ac = unsafe { out.assume_init() };
    assert_eq!(ac.as_str(), "foobär");
    let mut out = MaybeUninit::uninit();
    assert_eq!(
        unsafe { call::dtlv_rti_string_concat(fx.h(), &b, &b, &mut out) },
        STATUS_OK
    );
    let bb = unsafe { out.assume_init() };
    assert!(bb.is_empty());
    fx.drop_all([a, b, c, ac, bb], &STRING_TYDESC);
}

#[test]
fn string_part_cuts_a_copy_or_a_view_and_raises_a_refused_slice() {
    let fx = Fixture::new();
    let s = fx.string("aéz"); // bytes: a, 0xc3, 0xa9, z
    let part = |start, end, view| {
        let mut out = MaybeUninit::uninit();
        let status = unsafe { call::dtlv_rti_string_part(fx.h(), &s, start, end, view, &mut out) };
        (status == STATUS_OK).then(|| unsafe { out.assume_init() })
    };
    let copy = part(1, 4, 0).expect("a copy");
    assert_eq!(copy.as_str(), "éz");
    assert_eq!(fx.live(), 2, "the copy is an allocation of its own");
    let view = part(1, 3, 1).expect("a view");
    assert_eq!(view.as_str(), "é");
    let (ptr, len, cap) = view.into_raw_parts();
    assert_eq!(
        (ptr.cast_const(), len, cap),
        (unsafe { s.as_bytes().as_ptr().add(1) }, 2, 0)
    );
    assert_eq!(fx.live(), 2, "a view allocates nothing");
    assert!(part(4, 4, 1).expect("empty").is_empty());
    assert!(part(0, 2, 1).is_none());
    fx.assert_error("index out of bounds: slice 0..2: byte 2 is not on a character boundary");
    assert!(part(3, 9, 0).is_none());
    fx.assert_error("index out of bounds: slice 3..9 out of bounds for string of length 4");
    fx.drop_all([copy, s], &STRING_TYDESC);
}

/// The pieces `string_split` makes of `text` (by `sep`, or by whitespace for `None`), as
/// Rust's `str::split` and `split_whitespace` cut them; the list is dropped, and was
/// made at its length (capacity = length, one allocation per non-empty piece).
fn split(fx: &Fixture, text: &str, sep: Option<&str>) -> Vec<String> {
    let s = fx.string(text);
    let sep = sep.map(|sep| fx.string(sep));
    let before = fx.live();
    let mut out = MaybeUninit::<List>::uninit();
    let status = unsafe { call::dtlv_rti_string_split(fx.h(), &s, sep.as_ref(), &mut out) };
    assert_eq!(status, STATUS_OK);
    let list = unsafe { out.assume_init() };
    let (_, len, cap) = list.raw_parts();
    assert_eq!(len, cap, "made at its length");
    let pieces: Vec<String> = (0..len)
        .map(|i| unsafe {
            let p = call::dtlv_rti_list_at(fx.h(), &list, &STRING_TYDESC, i);
            (*p.cast::<datalove_rti::rtdt::String>())
                .as_str()
                .to_owned()
        })
        .collect();
    let owned = pieces.iter().filter(|p| !p.is_empty()).count() + usize::from(len > 0);
    assert_eq!(
        fx.live() - before,
        owned,
        "the list and each non-empty piece"
    );
    fx.drop_value(list, &OwnedTyDesc::list(OwnedTyDesc::string()));
    fx.drop_value(s, &STRING_TYDESC);
    if let Some(sep) = sep {
        fx.drop_value(sep, &STRING_TYDESC);
    }
    pieces
}

#[test]
fn string_split_cuts_as_rust_does_and_makes_the_list_at_its_length() {
    let fx = Fixture::new();
    // Pieces shorter and longer than the eight bytes searched at a time, separators at
    // both ends and side by side, bytes past 0x80 around them.
    let texts = [
        "",
        " ",
        "a b",
        " lead and trail ",
        "two  spaces",
        "héllo wörld ünïcode ",
        "a-very-long-piece-of-text-past-eight-bytes b c-another-long-one-here",
        "xxxxxxx yyyyyyyy zzzzzzzzz",
    ];
    for text in texts {
        let rust: Vec<String> = text.split(' ').map(str::to_owned).collect();
        assert_eq!(split(&fx, text, Some(" ")), rust, "{text:?} by ' '");
        let rust: Vec<String> = text.split("ö").map(str::to_owned).collect();
        assert_eq!(split(&fx, text, Some("ö")), rust, "{text:?} by 'ö'");
        let rust: Vec<String> = text.split("  ").map(str::to_owned).collect();
        assert_eq!(split(&fx, text, Some("  ")), rust, "{text:?} by two spaces");
        let rust: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        assert_eq!(split(&fx, text, None), rust, "{text:?} by whitespace");
    }
    // Every position of the separator in texts of 0 to 20 bytes.
    for len in 0..20 {
        for at in 0..len {
            let mut text = vec![b'a'; len];
            text[at] = b'\n';
            let text = String::from_utf8(text).unwrap();
            let rust: Vec<String> = text.split('\n').map(str::to_owned).collect();
            assert_eq!(split(&fx, &text, Some("\n")), rust, "{text:?}");
        }
    }
}

#[test]
fn string_split_refuses_an_empty_separator() {
    let fx = Fixture::new();
    let [s, sep] = fx.strings(["a,b", ""]);
    let mut out = MaybeUninit::<List>::uninit();
    let status = unsafe { call::dtlv_rti_string_split(fx.h(), &s, Some(&sep), &mut out) };
    fx.assert_refused(status, STATUS_EMPTY, "the separator is empty");
    fx.drop_all([s, sep], &STRING_TYDESC);
}

#[test]
fn string_parts_cuts_as_string_split_does_with_pieces_over_the_string() {
    let fx = Fixture::new();
    let texts = [
        "",
        "a b",
        " lead and trail ",
        "héllo wörld ünïcode ",
        "a-very-long-piece-of-text-past-eight-bytes b c-another-long-one-here",
    ];
    for text in texts {
        for sep in [Some(" "), Some("ö"), Some("  "), None] {
            let expected = split(&fx, text, sep);
            let s = fx.string(text);
            let sep_string = sep.map(|sep| fx.string(sep));
            let before = fx.live();
            let mut out = MaybeUninit::<List>::uninit();
            unsafe { call::dtlv_rti_string_parts(fx.h(), &s, sep_string.as_ref(), &mut out) };
            let list = unsafe { out.assume_init() };
            let (_, len, cap) = list.raw_parts();
            assert_eq!(len, cap, "made at its length");
            let (base, text_len, _) = s.raw_parts();
            let mut pieces = Vec::new();
            for i in 0..len {
                let piece = unsafe {
                    &*call::dtlv_rti_list_at(fx.h(), &list, &STRING_TYDESC, i)
                        .cast::<datalove_rti::rtdt::String>()
                };
                let (ptr, piece_len, piece_cap) = piece.raw_parts();
                assert_eq!(piece_cap, 0, "a part owns nothing");
                if piece_len > 0 {
                    let at = ptr as usize - base as usize;
                    assert!(at + piece_len <= text_len, "within the string's bytes");
                }
                pieces.push(piece.as_str().to_owned());
            }
            assert_eq!(pieces, expected, "{text:?} by {sep:?}");
            assert_eq!(fx.live() - before, usize::from(len > 0), "the list alone");
            fx.drop_value(list, &OwnedTyDesc::list(OwnedTyDesc::string()));
            fx.drop_value(s, &STRING_TYDESC);
            if let Some(sep) = sep_string {
                fx.drop_value(sep, &STRING_TYDESC);
            }
        }
    }
    // An empty separator: the string whole.
    let [s, sep] = fx.strings(["a,b", ""]);
    let mut out = MaybeUninit::<List>::uninit();
    unsafe { call::dtlv_rti_string_parts(fx.h(), &s, Some(&sep), &mut out) };
    let list = unsafe { out.assume_init() };
    assert_eq!(
        fx.format(
            &list as *const List as *const _,
            &OwnedTyDesc::list(OwnedTyDesc::string())
        ),
        "[\"a,b\"]"
    );
    fx.drop_value(list, &OwnedTyDesc::list(OwnedTyDesc::string()));
    fx.drop_all([s, sep], &STRING_TYDESC);
    assert_eq!(fx.live(), 0);
}

#[test]
fn string_slice_checks_bounds_and_char_boundaries() {
    let fx = Fixture::new();
    let s = fx.string("aé"); // bytes: a, 0xc3, 0xa9
    let slice = |start, end| {
        let mut out = MaybeUninit::uninit();
        let status = unsafe { call::dtlv_rti_string_slice(fx.h(), &s, start, end, &mut out) };
        (
            status,
            (status == STATUS_OK).then(|| unsafe { out.assume_init() }),
        )
    };
    let (status, whole) = slice(0, 3);
    assert_eq!(status, STATUS_OK);
    let whole = whole.unwrap();
    assert_eq!(whole.as_str(), "aé");
    let (_, a) = slice(0, 1);
    let a = a.unwrap();
    assert_eq!(a.as_str(), "a");
    let (_, empty) = slice(3, 3);
    assert!(empty.unwrap().is_empty());

    fx.assert_refused(
        slice(0, 4).0,
        STATUS_OUT_OF_BOUNDS,
        "slice 0..4 out of bounds for string of length 3",
    );
    fx.assert_refused(
        slice(0, 2).0,
        STATUS_OUT_OF_BOUNDS,
        "slice 0..2: byte 2 is not on a character boundary",
    );
    fx.assert_refused(
        slice(2, 1).0,
        STATUS_OUT_OF_BOUNDS,
        "slice 2..1 starts after it ends",
    );
    fx.drop_all([whole, a, s], &STRING_TYDESC);
}

#[test]
fn string_eq_and_cmp_are_byte_order() {
    let fx = Fixture::new();
    let [a, a2, b, short, nul, e] = fx.strings(["abc", "abc", "abd", "ab", "ab\0", "é"]);
    unsafe {
        assert!(call::dtlv_rti_string_eq(fx.h(), &a, &a2));
        assert!(!call::dtlv_rti_string_eq(fx.h(), &a, &b));
        assert!(!call::dtlv_rti_string_eq(fx.h(), &short, &nul));
        assert_eq!(call::dtlv_rti_string_cmp(fx.h(), &a, &a2), Ordering::Equal);
        assert_eq!(call::dtlv_rti_string_cmp(fx.h(), &a, &b), Ordering::Less);
        assert_eq!(call::dtlv_rti_string_cmp(fx.h(), &b, &a), Ordering::Greater);
        assert_eq!(
            call::dtlv_rti_string_cmp(fx.h(), &short, &nul),
            Ordering::Less
        );
        assert_eq!(call::dtlv_rti_string_cmp(fx.h(), &e, &a), Ordering::Greater);
        let table = call::table(fx.h());
        assert_eq!((table.string_cmp)(fx.rt.handle(), &a, &b), -1);
        assert_eq!((table.string_eq)(fx.rt.handle(), &a, &a2), 1);
    }
    fx.drop_all([a, a2, b, short, nul, e], &STRING_TYDESC);
}
