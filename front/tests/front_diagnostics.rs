//! Every diagnostic code of the front end, each triggered by a small program and asserted
//! with its line and column. `docs/language.md` lists the same codes.

mod front_support;

use front_support::{assert_error, compile_err, diagnostic_cases, located};

#[test]
fn f011_return_position_type_parameter_left_undetermined() {
    let f = assert_error("import fixedint.zero\ndebuglog zero()\n", "F011", 2, 10);
    assert!(f.render().contains("error[F011]"), "{}", f.render());
}

#[test]
fn f011_is_not_reported_when_the_expected_type_decides() {
    front_support::compile_ok(
        "ok.dfs",
        "import fixedint.zero\nlet a: u8 = zero()\ndebuglog a\n",
        &[],
    );
}

/// An operand read in place by its operation is lent while the other operands are
/// evaluated: moving it then would leave the operation reading what was moved.
#[test]
fn d001_a_variable_moved_while_lent_to_its_operation() {
    let take = "fun take(s: string): string\n  ret s\nend fun\nlet s = \"a\"\n";
    // Lent to a comparison.
    assert_error(&format!("{take}debuglog s == take(s)\n"), "D001", 5, 10);
    // Lent `ref` to a call that also takes it.
    let f = "fun f(ref a: string, b: string)\nend fun\n";
    assert_error(&format!("{take}{f}f(ref s, s)\n"), "D001", 7, 7);
    // Lent to an indexing, a `push` and a `set xs[i]`.
    let list = "fun n(xs: [string]): index\n  ret 0\nend fun\nvar xs = [\"a\"]\n";
    assert_error(&format!("{list}debuglog xs[n(xs)]\n"), "D001", 5, 10);
    let first = "fun first(xs: [string]): string\n  ret xs[0]\nend fun\n";
    assert_error(
        &format!("{list}{first}push(mut xs, first(xs))\n"),
        "D001",
        8,
        1,
    );
    assert_error(
        &format!("{list}{first}set xs[0] = first(xs)\n"),
        "D001",
        8,
        1,
    );
    // A copy value is read, never moved: nothing to refuse.
    let copy = "fun inc(x: i64): i64\n  ret x + 1\nend fun\nlet x = 1\ndebuglog x == inc(x)\n";
    front_support::compile_ok("test.dfs", copy, &[]);
}

#[test]
fn d001_move_in_an_earlier_loop_iteration() {
    let text =
        "fun take(s: string)\nend fun\nlet s = \"a\"\nloop while true\n  take(s)\nend loop\n";
    let f = assert_error(text, "D001", 5, 8);
    assert!(f.render().contains("earlier iteration"), "{}", f.render());
}

/// `(code, program, line, col)`: the codes the tests above do not take at length.
const LOCATED: &[(&str, &str, u32, u32)] = &[
    ("F082", "require rider std\ndebuglog 1\n", 1, 1),
    ("D010", "fun f(mut a: [u8], ref b: [u8])\nend fun\nvar xs: [u8] = [1]\nf(mut xs, ref xs)\n", 4, 11),
    ("D010", "fun g(out a: string, ref b: string)\n  set a = b\nend fun\nvar s = \"x\"\ng(out s, ref s)\n", 5, 10),
    ("D001", "fun take(s: string)\nend fun\nlet s = \"a\"\ntake(s)\ndebuglog s\n", 5, 10),
    ("T001", "let x: u8 = \"a\"\n", 1, 13),
    ("N001", "debuglog y\n", 1, 10),
    ("F001", "fun f(a: u8)\nend fun\nf(1, 2)\n", 3, 1),
    ("F002", "fun f(ref a: string)\nend fun\nlet s = \"x\"\nf(s)\n", 4, 3),
];

#[test]
fn every_code_has_a_located_example() {
    for &(code, text, line, col) in LOCATED {
        assert_error(text, code, line, col);
    }
    for case in diagnostic_cases() {
        eprintln!("case {}", case.name);
        assert_error(&case.program, &case.code, case.line, case.col);
    }
}

#[test]
fn module_only_codes() {
    // F007: a statement at the top level of a module.
    let f = compile_err("m.dfm", "debuglog 1\n", &[]);
    assert!(located(&f).contains(&("F007", 1, 1)), "{:?}", located(&f));
    // N004: a rider nobody knows.
    let f = compile_err("m.dfm", "require rider nosuch\n", &[]);
    assert!(located(&f).contains(&("N004", 1, 15)), "{:?}", located(&f));
    // N005: a native the rider does not declare.
    let f = compile_err("m.dfm", "require rider std\nimport std.nope\n", &[]);
    assert!(located(&f).contains(&("N005", 2, 12)), "{:?}", located(&f));
}

#[test]
fn a_module_import_is_not_exported_again() {
    let f = compile_err("t.dfs", "import fixedint.fixedint_zero\n", &[]);
    assert!(located(&f).contains(&("N005", 1, 17)), "{:?}", located(&f));
    assert!(f.render().contains("not exported again"), "{}", f.render());
}

#[test]
fn f033_a_native_too_wide_for_the_c_abi() {
    let params: Vec<String> = (0..15).map(|i| format!("a{i}: u8")).collect();
    let dli = format!("native fun wide({})\n", params.join(", "));
    let loader = front_support::loader(&[("wide", "require rider w\nimport w.wide\n")]);
    let loader = datalove_front::MemoryLoader {
        riders: vec![("w".into(), "w.dli".into(), dli.into_bytes())],
        ..loader
    };
    let f = datalove_front::compile(&loader, "t.dfs", "import wide.nothing\n").unwrap_err();
    front_support::assert_has_code(&f, "F033");
}

/// A block whose header does not parse is skipped through its `end`: its body and its
/// `end` are not read as statements outside it.
#[test]
fn a_block_header_that_does_not_parse_is_one_diagnostic() {
    for text in [
        "if 1 +\n  debuglog 1\nend if\ndebuglog 2\n",
        "var i: u8 = 0\nloop while i <\n  if true\n    break\n  end if\nend loop\ndebuglog 2\n",
    ] {
        let f = compile_err("t.dfs", text, &[]);
        assert_eq!(
            located(&f).iter().map(|d| d.0).collect::<Vec<_>>(),
            vec!["S005"],
            "{}",
            f.render()
        );
    }
}

/// Where a diagnostic is: `(code, file, line, col)`.
fn placed(f: &datalove_front::Failed) -> Vec<(&'static str, String, u32, u32)> {
    f.diagnostics
        .iter()
        .map(|d| {
            let lc = f.sources.line_col(d.span.file, d.span.start);
            (
                d.code,
                f.sources.file(d.span.file).name.clone(),
                lc.line,
                lc.col,
            )
        })
        .collect()
}

#[test]
fn s012_a_source_that_is_not_utf8_is_located_at_its_first_bad_byte() {
    let loader = front_support::loader(&[]);
    let bytes = b"debuglog 1\nlet x = \"a\xffb\"\n".to_vec();
    let f = datalove_front::compile_bytes(&loader, "bad.dfs", bytes).unwrap_err();
    assert_eq!(placed(&f), vec![("S012", "bad.dfs".into(), 2, 11)]);
    assert!(f.render().contains("byte 0xff"), "{}", f.render());
    // A character cut off by the end of the file.
    let bytes = "debuglog \"é".as_bytes();
    let f = datalove_front::compile_bytes(&loader, "cut.dfs", bytes[..bytes.len() - 1].to_vec())
        .unwrap_err();
    assert_eq!(placed(&f), vec![("S012", "cut.dfs".into(), 1, 11)]);
    assert!(f.render().contains("cut off"), "{}", f.render());
}

#[test]
fn s012_a_module_or_rider_interface_that_is_not_utf8() {
    let loader = front_support::loader(&[])
        .with_module_bytes("m", b"fun f()\n  debuglog \"\xc3(\"\nend fun\n");
    let f = datalove_front::compile(&loader, "t.dfs", "import m.f\nf()\n").unwrap_err();
    // Reported in the module, and only there: not as a missing module (N003).
    assert_eq!(placed(&f), vec![("S012", "m.dfm".into(), 2, 13)]);

    let loader = front_support::loader(&[(
        "w",
        "require rider w\nimport w.g\nfun g()\n  g()\nend fun\n",
    )])
    .with_rider_bytes("w", b"native fun g()\n# caf\xe9\n");
    let f = datalove_front::compile(&loader, "t.dfs", "import w.g\ng()\n").unwrap_err();
    assert_eq!(placed(&f), vec![("S012", "w.dli".into(), 2, 6)]);
}

/// The search for a module stops at the first file of that name, even one that cannot
/// be used: it is reported, not passed over for one in a later directory.
#[test]
fn the_module_search_stops_at_a_file_that_exists() {
    let base = datalove_test_support::scratch_dir("search");
    let (first, second) = (base.join("first"), base.join("second"));
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    std::fs::write(second.join("m.dfm"), "fun f()\nend fun\n").unwrap();
    let root = first.join("t.dfs").display().to_string();
    let loader = datalove_front::FsLoader::for_root(&root).with_module_dir(&second);
    let script = "import m.f\nf()\n";
    // Only in the second directory: found there.
    datalove_front::compile(&loader, &root, script).expect("m.dfm is found in second/");
    // Not UTF-8 in the first: S012 there.
    std::fs::write(first.join("m.dfm"), b"fun f()\xff\nend fun\n").unwrap();
    let f = datalove_front::compile(&loader, &root, script).unwrap_err();
    let found = placed(&f);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "S012");
    assert!(found[0].1.ends_with("first/m.dfm"), "{found:?}");
    // There but unreadable (a directory): N011 at the import.
    std::fs::remove_file(first.join("m.dfm")).unwrap();
    std::fs::create_dir_all(first.join("m.dfm")).unwrap();
    let f = datalove_front::compile(&loader, &root, script).unwrap_err();
    assert_eq!(located(&f), vec![("N011", 1, 8)], "{}", f.render());
    assert!(f.render().contains("cannot be read"), "{}", f.render());
    let _ = std::fs::remove_dir_all(&base);
}

/// Refusals before a program runs are diagnostics like any other: `F008` for a module
/// (it has no entry), `V001` for IR the verifier refuses (located at the instruction's
/// source line), `B001` for a backend that cannot take an admitted program.
#[test]
fn f008_v001_b001_refusals_before_running() {
    use datalove_front::{admit, backend_refusal};
    let module = front_support::compile_ok("lib.dfm", "fun f(): u8\n  ret 1\nend fun\n", &[]);
    let f = admit(&module).unwrap_err();
    assert_eq!(placed(&f), vec![("F008", "lib.dfm".into(), 1, 1)]);
    assert!(f.render().contains("is a module"), "{}", f.render());

    let mut script = front_support::compile_ok("s.dfs", "let s = \"a\"\ndebuglog s\n", &[]);
    admit(&script).expect("a clean script is admitted");
    // Take the drop of `s` out: the IR now leaks it, which the verifier refuses.
    let main = script.program.entry().index();
    for block in &mut script.program.functions[main].blocks {
        block
            .insts
            .retain(|i| !matches!(i.kind, datalove_ir::InstKind::Drop { .. }));
    }
    let f = admit(&script).unwrap_err();
    let found = placed(&f);
    assert_eq!(found[0].0, "V001", "{}", f.render());
    assert_eq!(
        (found[0].1.as_str(), found[0].2),
        ("s.dfs", 2),
        "{}",
        f.render()
    );
    assert!(f.render().contains("a leak"), "{}", f.render());

    let f = backend_refusal(&script, "jit", "cranelift refused `main`");
    assert_eq!(placed(&f), vec![("B001", "s.dfs".into(), 1, 1)]);
    assert!(f.render().contains("backend `jit`"), "{}", f.render());
}

#[test]
fn several_mistakes_are_reported_in_one_run() {
    let text = "let a: u8 = \"x\"\nlet b: string = 3\ndebuglog nope\n";
    let f = compile_err("t.dfs", text, &[]);
    let found = located(&f);
    assert!(found.contains(&("T001", 1, 13)), "{found:?}");
    assert!(found.contains(&("T001", 2, 17)), "{found:?}");
    assert!(found.contains(&("N001", 3, 10)), "{found:?}");
}

#[test]
fn rendering_shows_code_location_and_caret() {
    let f = compile_err("prog.dfs", "import fixedint.zero\ndebuglog zero()\n", &[]);
    front_support::assert_renders(&f, &["error[F011]", "prog.dfs:2:10", "^"]);
}

#[test]
fn arithmetic_on_a_type_parameter_is_refused_but_comparison_is_not() {
    let ok = "fun less<T>(ref a: T, ref b: T): bool\n  ret a < b\nend fun\ndebuglog less(ref 1u8, ref 2u8)\n";
    front_support::compile_ok("ok.dfs", ok, &[]);
    assert_error("fun neg<T>(a: T): T\n  ret -a\nend fun\n", "T003", 2, 7);
}

#[test]
fn class_constraint_is_checked_through_a_generic_caller() {
    let text = "import fixedint.zero\nfun z<T>(): T\n  ret zero()\nend fun\n";
    let f = assert_error(text, "T006", 3, 7);
    assert!(f.render().contains("where"), "{}", f.render());
}

/// Every code the front end can report is listed in `docs/language.md`, and has a test
/// in this file (or in the case file `cases/diagnostics.txt`).
#[test]
fn every_code_is_documented_and_tested() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../docs/language.md")).expect("docs/language.md");
    let tests = [
        include_str!("front_diagnostics.rs"),
        include_str!("front_support/mod.rs"),
        include_str!("front_fuzz.rs"),
        include_str!("cases/diagnostics.txt"),
    ]
    .concat();
    let mut codes = Vec::new();
    for entry in std::fs::read_dir(root.join("src")).expect("src") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("source");
        let bytes = text.as_bytes();
        for i in 0..bytes.len().saturating_sub(5) {
            let quoted = bytes[i] == b'"' && bytes[i + 5] == b'"';
            if quoted
                && b"SNTFDVBR".contains(&bytes[i + 1])
                && bytes[i + 2..i + 5].iter().all(u8::is_ascii_digit)
            {
                codes.push(text[i + 1..i + 5].to_string());
            }
        }
    }
    codes.sort();
    codes.dedup();
    assert!(codes.len() > 40, "{codes:?}");
    for code in &codes {
        assert!(
            docs.contains(&format!("`{code}`")),
            "{code} is not in docs/language.md"
        );
        let tested = [format!("\"{code}\""), format!("\n== {code} ")];
        assert!(
            tested.iter().any(|t| tests.contains(t)),
            "{code} has no test"
        );
    }
}
