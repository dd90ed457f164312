//! `datalove check`: diagnostics on stderr with code and location, exit 2; clean
//! programs exit 0. `datalove emit ir` prints the IR.

mod common;

use std::path::PathBuf;

use common::{assert_diagnostic, datalove_output as datalove};

fn scratch(name: &str, text: &str) -> PathBuf {
    common::scratch_file("cli", name, text)
}

#[test]
fn check_reports_f011_with_location_and_exits_2() {
    common::assert_file_diagnosed(
        &["check"],
        &common::test_program("f011.dfs"),
        "F011",
        "2:10",
    );
}

#[test]
fn check_of_a_clean_program_exits_0_quietly() {
    let root = env!("CARGO_MANIFEST_DIR");
    for example in ["hello.dfs", "generics.dfs", "lists.dfs"] {
        let path = format!("{root}/examples/{example}");
        let out = datalove(&["check", &path]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{example}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{example}");
    }
}

#[test]
fn check_of_a_missing_file_exits_2() {
    let out = datalove(&["check", "/nonexistent/nothing.dfs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn rider_path_supplies_rider_interfaces() {
    let dir = common::scratch_dir("cli-riders");
    std::fs::write(dir.join("extra.dli"), "native fun twice(x: u32): u32\n").expect("write");
    let module = scratch("twice.dfm", "require rider extra\nimport extra.twice as native_twice\nfun twice(x: u32): u32\n  ret native_twice(x)\nend fun\n");
    let script = scratch("use_twice.dfs", "import twice.twice\ndebuglog twice(21)\n");
    let without = datalove(&["check", script.to_str().unwrap()]);
    assert_eq!(without.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&without.stderr).contains("error[N004]"));
    let with = datalove(&[
        "check",
        "--rider-path",
        dir.to_str().unwrap(),
        script.to_str().unwrap(),
    ]);
    assert_eq!(
        with.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    assert!(module.exists());
}

/// What `datalove emit WHAT` prints for `examples/fib.dfs` (it must succeed).
fn emit_fib(what: &str) -> String {
    let path = format!("{}/examples/fib.dfs", env!("CARGO_MANIFEST_DIR"));
    let out = datalove(&["emit", what, &path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn emit_ir_prints_the_program() {
    let stdout = emit_fib("ir");
    assert!(stdout.contains("fun fib("), "{stdout}");
    assert!(stdout.contains("entry"), "{stdout}");
}

/// `emit interp` lists each function's operations in the interpreter's fast form: a
/// numbered line each, the recursive calls as one-argument calls, and where a base case
/// is taken in place of a call (`inline_base_cases`), the call's depth test.
#[test]
fn emit_interp_lists_the_interpreters_operations() {
    let stdout = emit_fib("interp");
    assert!(stdout.starts_with("function fib (frame "), "{stdout}");
    assert!(stdout.contains("\n    0  "), "{stdout}");
    assert!(stdout.contains("CallW1("), "{stdout}");
    assert!(stdout.contains("CheckDepth { depth: 2,"), "{stdout}");
    assert!(
        stdout.contains("\nfunction "),
        "the entry is listed too: {stdout}"
    );
}

#[test]
fn check_of_a_file_that_is_not_utf8_is_s012_with_its_location() {
    let path = scratch("latin1.dfs", "");
    std::fs::write(&path, b"let s = \"na\xefve\"\ndebuglog s\n").expect("write");
    common::assert_file_diagnosed(&["check"], &path, "S012", "1:12");
}

/// A rider interface that is not UTF-8 is `S012` in that file, and the search does not go
/// on to a good interface of the same name in a later directory.
#[test]
fn a_rider_interface_that_is_not_utf8_stops_the_search() {
    let base = common::scratch_dir("cli-dli");
    let (bad, good) = (base.join("bad"), base.join("good"));
    std::fs::create_dir_all(&bad).expect("dir");
    std::fs::create_dir_all(&good).expect("dir");
    std::fs::write(
        bad.join("twin.dli"),
        b"native fun twice(x: u32): u32 # \xff\n",
    )
    .expect("write");
    std::fs::write(good.join("twin.dli"), "native fun twice(x: u32): u32\n").expect("write");
    std::fs::write(
        base.join("w.dfm"),
        "require rider twin\nimport twin.twice as t\nfun twice(x: u32): u32\n  ret t(x)\nend fun\n",
    )
    .expect("write");
    let script = base.join("s.dfs");
    std::fs::write(&script, "import w.twice\ndebuglog twice(2)\n").expect("write");
    let check = |dirs: &[&std::path::Path]| {
        let mut args = vec!["check".to_string()];
        for d in dirs {
            args.push("--rider-path".into());
            args.push(d.display().to_string());
        }
        args.push(script.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        datalove(&args)
    };
    assert_eq!(check(&[&good]).status.code(), Some(0));
    let out = check(&[&bad, &good]);
    assert_diagnostic(
        &out,
        "S012",
        &format!("{}:1:33", bad.join("twin.dli").display()),
    );
    let _ = std::fs::remove_dir_all(&base);
}
