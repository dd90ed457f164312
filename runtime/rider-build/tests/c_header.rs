//! The C header of prototypes generated from a `.dli` (`datalove rider-header`): a C
//! rider that includes it and defines a native with another signature does not compile,
//! and the error names the native; the conformance suite's C rider `cprobe` includes its
//! header, which is held here to its `rider.dli`.
//!
//! The C files are compiled (not linked) with the target's C compiler through the
//! `toolchain` crate; where there is none, the compiling tests say so and pass.

use std::path::{Path, PathBuf};

use datalove_rider_build::{c_header, c_header_for_file, parse_rider};
use datalove_toolchain::Target;

mod common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    datalove_test_support::fresh_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("c-header")
            .join(name),
    )
}

/// Compiles `source` to an object with every warning an error, the ABI header and
/// `include` on the include path. `None` when this machine has no working C compiler;
/// else (success, what the compiler printed).
fn compile(source: &Path, include: &Path) -> Option<(bool, String)> {
    if let Err(why) = datalove_toolchain::probe() {
        eprintln!("unavailable: no working C compiler here ({why}); not compiling");
        return None;
    }
    let compiler = Target::current().c_compiler();
    let output = compiler
        .command()
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-c"])
        .arg("-I")
        .arg(repo().join("runtime/include"))
        .arg("-I")
        .arg(include)
        .arg(source)
        .arg("-o")
        .arg(source.with_extension("o"))
        .output()
        .expect("the C compiler runs");
    Some((
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    ))
}

#[test]
fn cprobe_header_is_current() {
    let dir = repo().join("conformance/riders/cprobe");
    let (rider, generated) = c_header_for_file(&dir.join("rider.dli"), None).unwrap();
    assert_eq!(rider, "cprobe");
    let committed = std::fs::read_to_string(dir.join("dlr_cprobe.h")).unwrap();
    assert!(
        committed == generated,
        "conformance/riders/cprobe/dlr_cprobe.h is not what rider.dli declares; regenerate it:\n\
         datalove rider-header conformance/riders/cprobe/rider.dli -o conformance/riders/cprobe/dlr_cprobe.h"
    );
}

#[test]
fn cprobe_compiles_against_its_header() {
    let dir = repo().join("conformance/riders/cprobe");
    let source = std::fs::read_to_string(dir.join("cprobe.c")).unwrap();
    assert!(source.contains("#include \"dlr_cprobe.h\""));
    let out = scratch("cprobe");
    std::fs::copy(dir.join("cprobe.c"), out.join("cprobe.c")).unwrap();
    let Some((ok, stderr)) = compile(&out.join("cprobe.c"), &dir) else {
        return;
    };
    assert!(
        ok,
        "cprobe.c does not compile against its header:\n{stderr}"
    );
}

const DEMO_DLI: &str = "\
# a rider of two natives, one of them implemented with the wrong signature
native fun agrees(ref s: string, n: u32): index
native fun disagrees(mut xs: [u64], ref x: u64): bool
";

/// The demo rider's C source: `agrees` as declared; `disagrees` reads `x` by value.
const DEMO_C: &str = r#"#include "dlr_demo.h"

uint8_t dlr_demo__agrees(void *rt, const dtlv_string_t *s, const dtlv_tydesc_t *s_td,
                         const uint32_t *n, const dtlv_tydesc_t *n_td,
                         dtlv_index_t *result_out, const dtlv_tydesc_t *result_td) {
    (void)s_td; (void)n_td; (void)result_td;
    *result_out = dtlv_rti_string_len(rt, s) + *n;
    return DTLV_STATUS_OK;
}

uint8_t dlr_demo__disagrees(void *rt, dtlv_list_t *xs, const dtlv_tydesc_t *xs_td,
                            uint64_t x, const dtlv_tydesc_t *x_td,
                            uint8_t *result_out, const dtlv_tydesc_t *result_td) {
    (void)rt; (void)xs_td; (void)x_td; (void)result_td;
    *result_out = xs->len == x;
    return DTLV_STATUS_OK;
}

DTLV_EXPORT_RIDER(demo)
"#;

fn demo_rider(name: &str, source: &str) -> PathBuf {
    let dir = scratch(name);
    let iface = parse_rider("demo", "demo.dli", DEMO_DLI).unwrap();
    std::fs::write(
        dir.join("dlr_demo.h"),
        c_header(&iface, "demo.dli", DEMO_DLI),
    )
    .unwrap();
    std::fs::write(dir.join("demo.c"), source).unwrap();
    dir
}

#[test]
fn disagreeing_c_rider_fails_naming_the_native() {
    let dir = demo_rider("disagrees", DEMO_C);
    let Some((ok, stderr)) = compile(&dir.join("demo.c"), &dir) else {
        return;
    };
    assert!(
        !ok,
        "a definition that disagrees with the header compiled:\n{stderr}"
    );
    // The disagreeing native is named; the agreeing one is not blamed.
    common::assert_says(
        &stderr,
        &["dlr_demo__disagrees", "conflicting types"],
        &["dlr_demo__agrees"],
    );
}

#[test]
fn agreeing_c_rider_compiles() {
    let fixed = DEMO_C
        .replace("uint64_t x,", "const uint64_t *x,")
        .replace("== x", "== *x");
    let dir = demo_rider("agrees", &fixed);
    let Some((ok, stderr)) = compile(&dir.join("demo.c"), &dir) else {
        return;
    };
    assert!(ok, "the agreeing rider does not compile:\n{stderr}");
}
