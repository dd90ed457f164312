//! `runtime/include/datalove_rti.h` against the Rust ABI: every size, offset and
//! constant is printed by a compiled C program and compared with what Rust reports;
//! then a C program written against the header and linked with the runtime's
//! staticlib runs as an executable would.

mod common;

use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};

use common::{c_program, tmp_dir};
use datalove_rti::header::RtHeader;
use datalove_rti::rtdt::{BigInt, Data, Index, List, Map, String as RtString};
use datalove_rti::status::*;
use datalove_rti::tydesc::TYDESC_COPY;
use datalove_rti::{
    AllocStats, ArithOp, Entry, ErrorKind, RtiTable, TyDesc, TyField, TyKind, Word, ABI_VERSION,
    TABLE_VERSION,
};
use datalove_test_support::{include_dir, run_command, run_to_success};

/// A Rust variant's name as the C header spells it: `NativeFailure` -> `NATIVE_FAILURE`.
fn screaming(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// `(C expression, Rust value)` for every size, offset and constant the header states.
fn expectations() -> Vec<(String, u64)> {
    let mut e: Vec<(String, u64)> = Vec::new();
    // Each C type's size and alignment, and the offset of each field named.
    macro_rules! layouts {
        ($($c:literal = $t:ty { $($f:ident),* $(,)? }),* $(,)?) => {$(
            e.push((format!("sizeof({})", $c), size_of::<$t>() as u64));
            e.push((format!("_Alignof({})", $c), std::mem::align_of::<$t>() as u64));
            $(e.push((format!("offsetof({}, {})", $c, stringify!($f)), offset_of!($t, $f) as u64));)*
        )*};
    }
    layouts! {
        "dtlv_tydesc_t" = TyDesc { kind, flags, size, align, elem, payload_offset, field_count, fields, names },
        "dtlv_tyfield_t" = TyField { desc, offset },
        "dtlv_alloc_stats_t" = AllocStats { live, total, live_bytes },
        "dtlv_rt_header_t" = RtHeader { table, abandoning, stack_limit, shadow_top, shadow_limit, depth_left },
        "dtlv_rti_table_t" = RtiTable { abi_version, struct_size },
        "dtlv_string_t" = RtString {},
        "dtlv_list_t" = List {},
        "dtlv_map_t" = Map {},
        "dtlv_data_t" = Data {},
        "dtlv_bigint_t" = BigInt {},
        "dtlv_index_t" = Index {},
        "dtlv_status_t" = RtStatus {},
    }
    // Every entry, from the one list (nothing written here by hand).
    for entry in Entry::ALL {
        e.push((
            format!("offsetof(dtlv_rti_table_t, {})", entry.name()),
            entry.offset() as u64,
        ));
    }
    // The value types' fields are private: find each by building a value from known
    // raw parts and looking for them in its bytes.
    let word_at = |bytes: &[u8], v: u64| -> u64 {
        (0..bytes.len() / 8)
            .find(|i| bytes[i * 8..i * 8 + 8] == v.to_ne_bytes())
            .map(|i| i as u64 * 8)
            .expect("the part is in the value")
    };
    let s = unsafe {
        RtString::from_raw_parts(std::ptr::without_provenance_mut(0x1111), 0x2222, 0x3333)
    };
    let s_bytes: [u8; 24] = unsafe { std::mem::transmute(s) };
    let l =
        unsafe { List::from_raw_parts(std::ptr::without_provenance_mut(0x1111), 0x2222, 0x3333) };
    let l_bytes: [u8; 24] = unsafe { std::mem::transmute(l) };
    let d = unsafe { Data::from_raw_parts(std::ptr::without_provenance(0x1111), 0x2222) };
    let d_bytes: [u8; 16] = unsafe { std::mem::transmute(d) };
    let b =
        unsafe { BigInt::from_raw_parts(std::ptr::without_provenance_mut(0x1111), 0x2222, true) };
    let mut b_bytes: [u8; 24] = unsafe { std::mem::transmute(b) };
    // The sign word is 0 or 1: mark it with the third part to find it like the others.
    let sign_at = (0..3)
        .find(|i| b_bytes[i * 8..i * 8 + 8] == 1u64.to_ne_bytes())
        .unwrap();
    b_bytes[sign_at * 8..sign_at * 8 + 8].copy_from_slice(&0x3333u64.to_ne_bytes());
    // Each field found by the raw part it was made from, in the order they were given.
    for (ty, bytes, fields) in [
        ("dtlv_string_t", &s_bytes[..], &["ptr", "len", "cap"][..]),
        ("dtlv_list_t", &l_bytes[..], &["ptr", "len", "cap"][..]),
        ("dtlv_data_t", &d_bytes[..], &["desc", "word"][..]),
        (
            "dtlv_bigint_t",
            &b_bytes[..],
            &["limbs", "len", "negative"][..],
        ),
    ] {
        for (field, part) in fields.iter().zip([0x1111, 0x2222, 0x3333]) {
            e.push((format!("offsetof({ty}, {field})"), word_at(bytes, part)));
        }
    }
    // A list's and a bigint's parts as compiled code reaches them (`layout.rs`, the one
    // description the Cranelift lowering and the C emitter read): the same offsets as
    // the values' own, which the header's are checked against above.
    use datalove_rti::layout::{
        BIGINT_LEN_OFFSET, BIGINT_NEGATIVE_OFFSET, BIGINT_PTR_OFFSET, LIST_CAP_OFFSET,
        LIST_LEN_OFFSET, LIST_PTR_OFFSET,
    };
    for (what, bytes, offsets) in [
        (
            "list",
            &l_bytes,
            [LIST_PTR_OFFSET, LIST_LEN_OFFSET, LIST_CAP_OFFSET],
        ),
        (
            "bigint",
            &b_bytes,
            [BIGINT_PTR_OFFSET, BIGINT_LEN_OFFSET, BIGINT_NEGATIVE_OFFSET],
        ),
    ] {
        for (offset, part) in offsets.into_iter().zip([0x1111, 0x2222, 0x3333]) {
            assert_eq!(
                offset as u64,
                word_at(bytes, part),
                "layout.rs {what} offsets"
            );
        }
    }
    // Table entry count: every field after the two version words is one pointer.
    let entries = (size_of::<RtiTable>() - offset_of!(RtiTable, init)) / size_of::<usize>();
    e.push((
        "(sizeof(dtlv_rti_table_t) - offsetof(dtlv_rti_table_t, init)) / sizeof(void *)".into(),
        entries as u64,
    ));

    let mut c = |name: &str, v: u64| e.push((name.to_owned(), v));
    c("DTLV_ABI_VERSION", ABI_VERSION as u64);
    c("DTLV_TYDESC_COPY", TYDESC_COPY as u64);
    for (name, status) in [
        ("DTLV_STATUS_FAILED", STATUS_FAILED),
        ("DTLV_STATUS_OK", STATUS_OK),
        ("DTLV_STATUS_OUT_OF_BOUNDS", STATUS_OUT_OF_BOUNDS),
        ("DTLV_STATUS_INVALID_UTF8", STATUS_INVALID_UTF8),
        ("DTLV_STATUS_TYPE_MISMATCH", STATUS_TYPE_MISMATCH),
        ("DTLV_STATUS_PANICKED", STATUS_PANICKED),
        ("DTLV_STATUS_EMPTY", STATUS_EMPTY),
        ("DTLV_STATUS_NOT_FOUND", STATUS_NOT_FOUND),
    ] {
        c(name, status as u64);
    }
    c("DTLV_TABLE_VERSION", TABLE_VERSION as u64);
    for &kind in TyKind::ALL {
        let name = match kind {
            TyKind::Index => "INDEX".to_owned(),
            k => k.name().to_uppercase(),
        };
        c(&format!("DTLV_KIND_{name}"), kind as u64);
    }
    // Every error kind (numbered from 1) and arithmetic operation (from 0), named as
    // the header spells its variant: `DivisionByZero` is `DTLV_ERROR_DIVISION_BY_ZERO`.
    for &kind in ErrorKind::ALL {
        c(
            &format!("DTLV_ERROR_{}", screaming(&format!("{kind:?}"))),
            kind as u64,
        );
    }
    for op in (0..).map_while(ArithOp::from_u32) {
        c(
            &format!("DTLV_ARITH_{}", screaming(&format!("{op:?}"))),
            op as u64,
        );
    }
    c(
        "DTLV_CAST_TY(DTLV_KIND_F64, DTLV_KIND_I32)",
        datalove_rt::errors::cast_ty(TyKind::F64, TyKind::I32) as u64,
    );
    e
}

#[test]
fn every_size_offset_and_constant_in_the_header_matches_rust() {
    if datalove_toolchain::unavailable_without_c_compiler("compiling C against the header") {
        return;
    }
    let dir = tmp_dir("layout");
    let expected = expectations();
    let mut src = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include \"datalove_rti.h\"\nint main(void) {\n",
    );
    for (expr, _) in &expected {
        src.push_str(&format!(
            "    printf(\"%s=%llu\\n\", {:?}, (unsigned long long)({expr}));\n",
            expr
        ));
    }
    src.push_str("    return 0;\n}\n");
    let (mut cc, exe) = c_program(&dir, "layout", &src);
    run_to_success(&mut cc);
    let out = run_to_success(&mut run_command(&exe));
    let printed: BTreeMap<String, u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.rsplit_once('=').unwrap();
            (k.to_owned(), v.parse().unwrap())
        })
        .collect();
    assert_eq!(printed.len(), expected.len(), "one line per expectation");
    let mismatches: Vec<String> = expected
        .iter()
        .filter(|(k, v)| printed.get(k) != Some(v))
        .map(|(k, v)| format!("{k}: C says {:?}, Rust says {v}", printed.get(k)))
        .collect();
    assert!(
        mismatches.is_empty(),
        "header disagrees:\n{}",
        mismatches.join("\n")
    );
}

/// The runtime's staticlib, beside the test executable's `deps/`.
fn staticlib() -> PathBuf {
    datalove_rt::artifact::staticlib_for_current_exe().unwrap_or_else(|e| panic!("{e}"))
}

const PROGRAM: &str = r#"
#include <stdio.h>
#include <string.h>
#include "datalove_rti.h"

static const dtlv_tydesc_t STRING_TD = { DTLV_KIND_STRING, 0, 24, 8, 0, 0, 0, 0, 0 };
static const dtlv_tydesc_t U32_TD = { DTLV_KIND_U32, DTLV_TYDESC_COPY, 4, 4, 0, 0, 0, 0, 0 };

static const char *mode;

static void program(void *rt) {
    char marker;
    size_t sp = (size_t)&marker;
    size_t limit = ((dtlv_rt_header_t *)rt)->stack_limit;
    if (!dtlv_rti_table_ok(rt) || !(limit < sp && sp - limit < ((size_t)1 << 30))) {
        fprintf(stderr, "bad runtime header\n");
        return;
    }
    dtlv_string_t s;
    if (dtlv_rti_string_from_bytes(rt, (const uint8_t *)"hi\0there", 8, &s) != DTLV_STATUS_OK)
        return;
    dtlv_rti_debuglog(rt, &s, &STRING_TD);
    dtlv_list_t list;
    dtlv_rti_list_new(rt, &U32_TD, 0, &list);
    for (uint32_t i = 1; i <= 3; i++) {
        uint32_t v = i;
        dtlv_rti_list_push(rt, &list, &U32_TD, &v);
    }
    const dtlv_tydesc_t *list_td = dtlv_rti_tydesc_list(rt, &U32_TD);
    dtlv_rti_debuglog(rt, &list, list_td);
    dtlv_rti_drop(rt, &list, list_td);
    uint8_t bad[2] = { 0xff, 0 };
    dtlv_string_t refused;
    if (dtlv_rti_string_from_bytes(rt, bad, 1, &refused) != DTLV_STATUS_INVALID_UTF8) return;
    if (strcmp(mode, "leak") != 0) dtlv_rti_drop(rt, &s, &STRING_TD);
    if (strcmp(mode, "bounds") == 0) dtlv_rti_raise_bounds(rt, 5, 3);
    if (strcmp(mode, "native") == 0) {
        dtlv_status_t st = dtlv_rti_fail(rt, "it broke");
        const char *rider = "crider", *fn = "explode";
        dtlv_rti_native_failed(rt, (const uint8_t *)rider, strlen(rider),
                               (const uint8_t *)fn, strlen(fn), st);
        if (!dtlv_rt_abandoning(rt)) fprintf(stderr, "not abandoning\n");
    }
}

int main(int argc, char **argv) {
    mode = argc > 1 ? argv[1] : "ok";
    if (argc > 2 && strcmp(argv[2], "thread") == 0) return dtlv_rt_run_main(program, 0);
    void *rt = dtlv_rt_create();
    program(rt);
    return dtlv_rt_finish(rt, 0);
}
"#;

fn build_program(dir: &Path) -> PathBuf {
    let (mut cc, exe) = c_program(dir, "program", PROGRAM);
    cc.arg(staticlib()).args([
        "-ldl",
        "-lgcc_s",
        "-lutil",
        "-lrt",
        "-lpthread",
        "-lm",
        "-lc",
    ]);
    run_to_success(&mut cc);
    exe
}

struct Ran {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn run_program(exe: &Path, args: &[&str], check_leaks: bool) -> Ran {
    let mut cmd = run_command(exe);
    cmd.args(args);
    if check_leaks {
        cmd.env("DATALOVE_CHECK_LEAKS", "1");
    } else {
        cmd.env_remove("DATALOVE_CHECK_LEAKS");
    }
    let out = cmd.output().unwrap();
    Ran {
        code: out.status.code().unwrap(),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn a_c_program_against_the_header_runs_as_an_executable() {
    if datalove_toolchain::unavailable_without_c_compiler("compiling C against the header") {
        return;
    }
    let dir = tmp_dir("exe");
    let exe = build_program(&dir);
    let expected_stdout = b"hi\0there\n[1, 2, 3]\n";
    for threaded in [false, true] {
        let args = |mode: &'static str| -> Vec<&'static str> {
            if threaded {
                vec![mode, "thread"]
            } else {
                vec![mode]
            }
        };

        let ok = run_program(&exe, &args("ok"), true);
        assert_eq!((ok.code, ok.stderr.as_str()), (0, ""));
        assert_eq!(ok.stdout, expected_stdout);

        // Output is flushed before the error line; the first error is reported.
        let bounds = run_program(&exe, &args("bounds"), true);
        assert_eq!(bounds.code, 101);
        assert_eq!(bounds.stdout, expected_stdout);
        assert_eq!(
            bounds.stderr,
            "error: index out of bounds: index 5 out of bounds for length 3\n"
        );

        let native = run_program(&exe, &args("native"), false);
        assert_eq!(native.code, 101);
        assert_eq!(
            native.stderr,
            "error: native failure: crider.explode: it broke\n"
        );

        // A leak is an error only when leak checking is on.
        let leak = run_program(&exe, &args("leak"), true);
        assert_eq!(leak.code, 101);
        assert_eq!(leak.stderr, "error: leak: 1 allocation still live\n");
        assert_eq!(leak.stdout, expected_stdout);
        let unchecked = run_program(&exe, &args("leak"), false);
        assert_eq!((unchecked.code, unchecked.stderr.as_str()), (0, ""));
    }
}

/// The members of `struct dtlv_rti_table` in the header: `(name, parameter classes,
/// result class)`, read from its text.
fn header_entries() -> Vec<(String, Vec<Word>, Option<Word>)> {
    let header = std::fs::read_to_string(include_dir().join("datalove_rti.h")).expect("header");
    let start = header
        .find("struct dtlv_rti_table {")
        .expect("the table struct");
    let body = &header[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find("};").unwrap()];
    // Comments out.
    let mut text = String::new();
    let mut rest = body;
    while let Some(at) = rest.find("/*") {
        text.push_str(&rest[..at]);
        rest = &rest[at + rest[at..].find("*/").expect("comment end") + 2..];
    }
    text.push_str(rest);
    let class = |c_type: &str| -> Option<Word> {
        let c_type = c_type.trim();
        if c_type.contains('*') {
            return Some(Word::Pointer);
        }
        let base = c_type
            .split_whitespace()
            .rev()
            .nth(1)
            .or(c_type.split_whitespace().next());
        match base.unwrap_or("") {
            "void" => None,
            "uint8_t" | "dtlv_status_t" => Some(Word::Byte),
            "uint32_t" | "int32_t" => Some(Word::Int32),
            "uint64_t" | "int64_t" | "dtlv_index_t" => Some(Word::Int64),
            "size_t" => Some(Word::Pointer),
            other => panic!("a C type the test does not know: `{other}` in `{c_type}`"),
        }
    };
    text.split(';')
        .filter(|member| member.contains("(*"))
        .map(|member| {
            let member = member.split_whitespace().collect::<Vec<_>>().join(" ");
            let open = member.find("(*").unwrap();
            let result = member[..open].trim();
            let after = &member[open + 2..];
            let close = after.find(')').unwrap();
            let name = after[..close].trim().to_string();
            let params = after[close + 1..].trim();
            let params = &params[1..params.len() - 1];
            let classes = if params.trim() == "void" {
                Vec::new()
            } else {
                params
                    .split(',')
                    .map(|p| {
                        // Drop the parameter's name: the last word, unless it is a type.
                        let p = p.trim();
                        let words: Vec<&str> = p.split_whitespace().collect();
                        let is_named = words.len() > 1 && !p.ends_with('*');
                        let c_type = if is_named {
                            p[..p.rfind(' ').unwrap()].to_string()
                                + if words.last().unwrap().starts_with('*') {
                                    " *"
                                } else {
                                    ""
                                }
                        } else {
                            p.to_string()
                        };
                        class(&format!("{c_type} x")).expect("a parameter is not void")
                    })
                    .collect()
            };
            (name, classes, class(&format!("{result} x")))
        })
        .collect()
}

#[test]
fn every_entry_of_the_one_list_is_in_the_header_in_order_with_its_shape() {
    let header = header_entries();
    let ours: Vec<(String, Vec<Word>, Option<Word>)> = Entry::ALL
        .iter()
        .map(|e| {
            (
                e.name().to_string(),
                e.params().iter().map(|(_, w)| *w).collect(),
                e.result(),
            )
        })
        .collect();
    assert_eq!(
        header.len(),
        ours.len(),
        "the header has {} entries, the list {}",
        header.len(),
        ours.len()
    );
    for (h, o) in header.iter().zip(&ours) {
        assert_eq!(h, o, "the header's entry disagrees with the one list");
    }
}
