//! The rider loader against shared libraries built from C in the test.

mod common;

use std::path::PathBuf;

use common::{c_compiler, tmp_dir};
use std::mem::MaybeUninit;

use common::Fixture;
use datalove_rt::{LoadError, RiderLibrary};
use datalove_rti::tydesc::STRING_TYDESC;
use datalove_rti::{
    rtdt, table_version_of, RtiTable, TyDesc, ABI_VERSION, TABLE_SIZES, TABLE_VERSION,
};
use datalove_test_support::run_to_success;

/// Builds `libdlr_<rider>.so` from `source` in the fresh directory `name`: (the
/// directory, the library). `None` without a C compiler (said on stderr).
fn rider_library(name: &str, rider: &str, source: &str) -> Option<(PathBuf, PathBuf)> {
    if datalove_toolchain::unavailable_without_c_compiler("building a C rider") {
        return None;
    }
    let dir = tmp_dir(name);
    let c_file = dir.join(format!("{rider}.c"));
    std::fs::write(&c_file, source).unwrap();
    let lib = dir.join(datalove_rt::loader::rider_file_name(rider));
    let mut cc = c_compiler(&dir);
    cc.args(["-shared", "-fPIC", "-std=c11", "-Wall", "-Werror", "-I"])
        .arg(datalove_test_support::include_dir())
        .arg(&c_file)
        .arg("-o")
        .arg(&lib);
    run_to_success(&mut cc);
    Some((dir, lib))
}

/// Builds the library as [`rider_library`] does and loads it, which must fail: (why, the
/// library).
fn refused_library(name: &str, rider: &str, source: &str) -> Option<(LoadError, PathBuf)> {
    let (dir, lib) = rider_library(name, rider, source)?;
    Some((RiderLibrary::load(rider, &[dir]).unwrap_err(), lib))
}

/// Rider `fake`, built for ABI version 999.
const FAKE_ABI_999: &str = "unsigned dtlv_rider_abi_version_fake(void) { return 999; }\n";

/// A library with no ABI version symbol (built as rider `plain`).
const NO_ABI_SYMBOL: &str = "int something(void) { return 1; }\n";

#[test]
fn a_rider_built_for_another_abi_is_refused_naming_both_versions_and_the_path() {
    let Some((err, lib)) = refused_library("loader-fake", "fake", FAKE_ABI_999) else {
        return;
    };
    assert!(
        matches!(err, LoadError::AbiMismatch { found: 999, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("999"), "{message}");
    assert!(
        message.contains(&format!("ABI version {ABI_VERSION}")),
        "{message}"
    );
    assert!(message.contains(&lib.display().to_string()), "{message}");
    assert!(message.contains("`fake`"), "{message}");
}

#[test]
fn a_good_rider_loads_and_hands_out_its_symbols_or_names_a_missing_one() {
    let Some((dir, lib)) = rider_library(
        "loader-good",
        "good",
        &format!(
            "unsigned dtlv_rider_abi_version_good(void) {{ return {ABI_VERSION}; }}\n\
             unsigned char dlr_good__answer(void *rt) {{ (void)rt; return 42; }}\n"
        ),
    ) else {
        return;
    };
    let empty = dir.join("empty-dir");
    std::fs::create_dir_all(&empty).unwrap();
    // The first directory that has the library wins; others are skipped.
    let rider = RiderLibrary::load("good", &[empty, dir.clone()]).unwrap();
    assert_eq!(rider.rider(), "good");
    assert_eq!(rider.path(), lib);
    let f = rider.symbol("dlr_good__answer").unwrap();
    let f: extern "C" fn(*mut u8) -> u8 = unsafe { std::mem::transmute(f) };
    assert_eq!(f(std::ptr::null_mut()), 42);

    let err = rider.symbol("dlr_good__missing").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("symbol dlr_good__missing not found in {}", lib.display())
    );
}

#[test]
fn a_library_without_the_abi_symbol_is_not_a_rider() {
    let Some((err, lib)) = refused_library("loader-nosym", "plain", NO_ABI_SYMBOL) else {
        return;
    };
    assert_eq!(
        err.to_string(),
        format!(
            "rider `plain`: {} does not export dtlv_rider_abi_version_plain; it is not a datalove rider built as `plain`",
            lib.display()
        )
    );
}

#[test]
fn a_missing_rider_names_itself_and_every_directory_searched() {
    let a = tmp_dir("loader-missing-a");
    let b = tmp_dir("loader-missing-b");
    let err = RiderLibrary::load("nowhere", &[a.clone(), b.clone()]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "rider `nowhere` not found: no libdlr_nowhere.so in {}, {}",
            a.display(),
            b.display()
        )
    );
    let err = RiderLibrary::load("nowhere", &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rider `nowhere` not found: no libdlr_nowhere.so in any directory (the search path is empty)"
    );
}

#[test]
fn a_file_that_is_not_a_library_is_refused_with_the_loader_message() {
    let dir = tmp_dir("loader-junk");
    let path = dir.join("libdlr_junk.so");
    std::fs::write(&path, [b"not an ELF file\n".as_slice(); 16].concat()).unwrap();
    let err = RiderLibrary::load("junk", &[dir]).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, LoadError::Open { .. }), "{err:?}");
    assert!(
        message.starts_with(&format!("rider `junk`: cannot load {}: ", path.display())),
        "{message}"
    );
    // The system's reason (`dlerror`), not just "dlopen failed".
    assert!(message.contains("invalid ELF header"), "{message}");
}

/// A C rider pinned to table version 1 (`DTLV_TABLE_VERSION 1` before the header: the
/// table struct it knows ends at `error_at`, and the map entries are not even declared).
const TABLE_V1_RIDER: &str = r#"
#define DTLV_TABLE_VERSION 1
#include "datalove_rti.h"

DTLV_EXPORT_RIDER(oldr)

size_t oldr_table_size(void) { return sizeof(dtlv_rti_table_t); }

#include <stddef.h>
_Static_assert(sizeof(dtlv_rti_table_t) == offsetof(dtlv_rti_table_t, error_at) + sizeof(void *),
               "table version 1 ends at error_at");

uint8_t dlr_oldr__greet(void *rt, const dtlv_string_t *name, const dtlv_tydesc_t *name_td,
                        dtlv_string_t *result_out, const dtlv_tydesc_t *result_td) {
    size_t len = 0;
    const uint8_t *bytes;
    dtlv_status_t status;
    (void)name_td;
    (void)result_td;
    if (!dtlv_rti_table_ok(rt)) {
        return dtlv_rti_fail(rt, "the table is not one this rider can use");
    }
    status = dtlv_rti_string_from_bytes(rt, (const uint8_t *)"old, ", 5, result_out);
    if (status != DTLV_STATUS_OK) {
        return status;
    }
    bytes = dtlv_rti_string_bytes(rt, name, &len);
    status = dtlv_rti_string_push(rt, result_out, bytes, len);
    if (status != DTLV_STATUS_OK) {
        dtlv_rti_drop(rt, result_out, result_td);
    }
    return status;
}
"#;

#[test]
fn table_versions_grow_the_struct_and_are_read_off_its_size() {
    assert_eq!(TABLE_SIZES.len(), TABLE_VERSION as usize);
    assert_eq!(
        TABLE_SIZES[TABLE_VERSION as usize - 1],
        size_of::<RtiTable>()
    );
    assert!(TABLE_SIZES.windows(2).all(|w| w[0] < w[1]));
    for (i, size) in TABLE_SIZES.iter().enumerate() {
        assert_eq!(table_version_of(*size), i as u32 + 1);
    }
    assert_eq!(table_version_of(TABLE_SIZES[0] - 1), 0);
    let fx = Fixture::new();
    // SAFETY: the fixture's handle is live.
    let table = unsafe { datalove_rti::call::table(fx.h()) };
    assert_eq!(table.abi_version, ABI_VERSION);
    assert_eq!(table_version_of(table.struct_size), TABLE_VERSION);
}

#[test]
fn a_rider_built_against_the_previous_table_version_still_loads_and_runs() {
    let Some((dir, _)) = rider_library("loader-table-v1", "oldr", TABLE_V1_RIDER) else {
        return;
    };
    let rider = RiderLibrary::load("oldr", &[dir]).unwrap();
    let size = rider.symbol("oldr_table_size").unwrap();
    // SAFETY: the symbol is the C function above.
    let size: extern "C" fn() -> usize = unsafe { std::mem::transmute(size) };
    assert_eq!(size(), TABLE_SIZES[0], "the rider knows version 1's table");
    assert!(size() < size_of::<RtiTable>());

    type Greet = unsafe extern "C" fn(
        *mut datalove_rti::RtHeader,
        *const rtdt::String,
        *const TyDesc,
        *mut rtdt::String,
        *const TyDesc,
    ) -> u8;
    let greet = rider.symbol("dlr_oldr__greet").unwrap();
    // SAFETY: the symbol is the native above, of this shape.
    let greet: Greet = unsafe { std::mem::transmute(greet) };
    let fx = Fixture::new();
    let name = fx.string("table");
    let mut out = MaybeUninit::<rtdt::String>::uninit();
    // SAFETY: a live runtime, a string and room for one, with their descriptors.
    let status = unsafe {
        greet(
            fx.h().as_ptr(),
            &name,
            &STRING_TYDESC,
            out.as_mut_ptr(),
            &STRING_TYDESC,
        )
    };
    assert_eq!(status, datalove_rti::STATUS_OK);
    // SAFETY: written on success.
    let out = unsafe { out.assume_init() };
    assert_eq!(out.as_str(), "old, table");
    fx.drop_all([name, out], &STRING_TYDESC);
}
