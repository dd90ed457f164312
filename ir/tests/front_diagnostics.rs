//! Every diagnostic code of the front end, each triggered by a small program and asserted
//! with its line and column. `docs/language.md` lists the same codes.

mod front_support;

use front_support::{assert_error, compile_err, located, DIAGNOSTIC_CASES};

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

#[test]
fn f082_script_requires_a_rider() {
    assert_error("require rider std\ndebuglog 1\n", "F082", 1, 1);
}

#[test]
fn d010_mut_and_another_argument_are_the_same_value() {
    let text = "fun f(mut a: [u8], ref b: [u8])\nend fun\nvar xs: [u8] = [1]\nf(mut xs, ref xs)\n";
    assert_error(text, "D010", 4, 11);
}

#[test]
fn d010_out_and_ref_of_the_same_variable() {
    let text = "fun g(out a: string, ref b: string)\n  set a = b\nend fun\nvar s = \"x\"\ng(out s, ref s)\n";
    assert_error(text, "D010", 5, 10);
}

#[test]
fn d001_use_after_move() {
    let text = "fun take(s: string)\nend fun\nlet s = \"a\"\ntake(s)\ndebuglog s\n";
    assert_error(text, "D001", 5, 10);
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

#[test]
fn t001_type_mismatch() {
    assert_error("let x: u8 = \"a\"\n", "T001", 1, 13);
}

#[test]
fn n001_unknown_name() {
    assert_error("debuglog y\n", "N001", 1, 10);
}

#[test]
fn f001_wrong_arity() {
    assert_error("fun f(a: u8)\nend fun\nf(1, 2)\n", "F001", 3, 1);
}

#[test]
fn f002_wrong_mode() {
    assert_error(
        "fun f(ref a: string)\nend fun\nlet s = \"x\"\nf(s)\n",
        "F002",
        4,
        3,
    );
}

#[test]
fn every_other_code_has_a_located_example() {
    for &(code, text, line, col) in DIAGNOSTIC_CASES {
        assert_error(text, code, line, col);
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
    let loader = datalove_ir::front::MemoryLoader {
        riders: vec![("w".into(), "w.dli".into(), dli)],
        ..loader
    };
    let f = datalove_ir::front::compile(&loader, "t.dfs", "import wide.nothing\n").unwrap_err();
    assert!(
        f.diagnostics.iter().any(|d| d.code == "F033"),
        "{}",
        f.render()
    );
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
    let text = f.render();
    assert!(text.contains("error[F011]"), "{text}");
    assert!(text.contains("prog.dfs:2:10"), "{text}");
    assert!(text.contains('^'), "{text}");
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
/// in this file (or in the support module's table).
#[test]
fn every_code_is_documented_and_tested() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../docs/language.md")).expect("docs/language.md");
    let tests = [
        include_str!("front_diagnostics.rs"),
        include_str!("front_support/mod.rs"),
        include_str!("front_fuzz.rs"),
    ]
    .concat();
    let mut codes = Vec::new();
    for entry in std::fs::read_dir(root.join("src/front")).expect("src/front") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("source");
        let bytes = text.as_bytes();
        for i in 0..bytes.len().saturating_sub(5) {
            let quoted = bytes[i] == b'"' && bytes[i + 5] == b'"';
            if quoted
                && b"SNTFD".contains(&bytes[i + 1])
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
        assert!(tests.contains(&format!("\"{code}\"")), "{code} has no test");
    }
}
