//! The rider loader against shared libraries built from C in the test.

mod common;

use std::path::PathBuf;

use common::{c_compiler, tmp_dir};
use datalove_rt::{LoadError, RiderLibrary};
use datalove_rti::ABI_VERSION;
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
    cc.args(["-shared", "-fPIC"])
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
