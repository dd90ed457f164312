//! The forms of issue 17 in the front end: `for` loops and `set` of a part of a variable
//! lower to IR the verifier accepts, and their mistakes are located diagnostics whose
//! `help:` says what to write. (What the programs print, on every backend, is in the
//! conformance cases `flow_for_*` and `tuple_set_*`.)

mod front_support;

use datalove_ir::InstKind;
use front_support::{assert_cases, assert_error, assert_help, compile_ok, located};

/// Programs with `for` loops and nested `set`, each lowered and verified.
const PROGRAMS: &[&str] = &[
    "var s = 0\nfor i in 0..10\n  if i == 3\n    continue\n  end if\n  if i == 8\n    break\n  end if\n  set s = s + i\nend for\ndebuglog s\n",
    "let xs = [\"a\", \"b\"]\nfor x in ref xs\n  let y = x ++ \"!\"\n  if y == \"a!\"\n    continue\n  end if\n  debuglog y\nend for\ndebuglog xs\n",
    "let xs = [\"a\", \"b\"]\nfor x in xs\n  if x == \"b\"\n    break\n  end if\n  debuglog x\nend for\n",
    "var m: [[string]] = [[\"a\"], [\"b\"]]\nfor row in mut m\n  for s in mut row\n    set s = s ++ \"!\"\n  end for\n  push(mut row, \"x\")\nend for\n",
    "fun f(mut xs: [string]): index\n  for x in mut xs\n    if x == \"stop\"\n      ret 1\n    end if\n    set x = \"seen\"\n  end for\n  ret 0\nend fun\nvar xs = [\"a\"]\ndebuglog f(mut xs)\n",
    "fun g<T>(xs: [T]): index\n  var n: index = 0\n  for x in xs\n    let y = x\n    set n = n + 1\n  end for\n  ret n\nend fun\ndebuglog g([\"a\"])\n",
    "var t = (1, \"a\", [2])\nset t.1 = \"b\"\nset t.2[0] = 3\ndebuglog t\n",
    "var m: [[(u8, string)]] = [[(1, \"a\")]]\nset m[0][0].1 = \"z\"\ndebuglog m\n",
];

#[test]
fn for_loops_and_nested_sets_lower_to_verified_ir() {
    for (i, text) in PROGRAMS.iter().enumerate() {
        // The fourth program passes a `for ... in mut` variable `mut`: refused below.
        if i == 3 {
            continue;
        }
        compile_ok(&format!("p{i}.dfs"), text, &[]);
    }
}

#[test]
fn a_nested_set_reads_the_row_once_and_sets_it_back() {
    let compiled = compile_ok("m.dfs", "var m: [[u8]] = [[1, 2]]\nset m[0][1] = 9\n", &[]);
    let main = compiled
        .program
        .functions
        .iter()
        .find(|f| f.name == "main")
        .expect("main");
    let insts: Vec<&InstKind> = main
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .map(|i| &i.kind)
        .collect();
    let gets = insts
        .iter()
        .filter(|k| matches!(k, InstKind::ListGet { .. }))
        .count();
    let sets = insts
        .iter()
        .filter(|k| matches!(k, InstKind::ListSet { .. }))
        .count();
    assert_eq!((gets, sets), (1, 2), "{insts:#?}");
}

#[test]
fn for_mistakes_are_located() {
    assert_cases(
        "cases/for_mistakes.txt",
        include_str!("cases/for_mistakes.txt"),
    );
}

#[test]
fn a_mut_walk_of_a_let_says_to_walk_it_ref() {
    assert_help(
        "let xs = [1]\nfor x in mut xs\nend for\n",
        "D004",
        2,
        14,
        &["help: walk it `ref` to read it: `for ... in ref xs`"],
    );
}

#[test]
fn moving_a_borrowed_list_into_a_loop_says_to_walk_it_ref() {
    assert_help(
        "fun f(ref ys: [u8])\n  for y in ys\n  end for\nend fun\n",
        "D005",
        2,
        12,
        &["help: walk it without moving it: `for ... in ref ys`"],
    );
    assert_help(
        "fun f(mut ys: [u8])\n  for y in ys\n  end for\nend fun\n",
        "D005",
        2,
        12,
        &["or `for ... in mut ys` to change it"],
    );
}

/// A `for` opens a level like `loop`: 128 nested loops compile, 129 are S009.
#[test]
fn nested_for_loops_count_toward_the_nesting_limit() {
    let nest = |n: usize| {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("for i{i} in 0..1\n"));
        }
        text.push_str("debuglog 1\n");
        for _ in 0..n {
            text.push_str("end for\n");
        }
        text
    };
    compile_ok("deep.dfs", &nest(128), &[]);
    assert_error(&nest(129), "S009", 129, 1);
}

/// Each step of a `set` path opens a level, as `xs[i]` does in an expression.
#[test]
fn a_set_path_counts_toward_the_nesting_limit() {
    let set = |n: usize| format!("var x = 0\nset x{} = 1\n", "[0]".repeat(n));
    // 128 steps parse (and fail only in the type checker: `x` is no list).
    assert_error(&set(128), "T007", 2, 7);
    let f = assert_help(&set(129), "S009", 2, 390, &["this opens level 129"]);
    assert_eq!(located(&f).len(), 1, "{}", f.render());
}

#[test]
fn a_mut_walk_of_an_expression_says_to_use_a_var() {
    assert_help(
        "for x in mut [1]\nend for\n",
        "F009",
        1,
        14,
        &["help: put the list in a `var` first, or walk it `ref`"],
    );
}

#[test]
fn a_mut_loop_variable_passed_mut_says_how() {
    let f = front_support::compile_err("t.dfs", PROGRAMS[3], &[]);
    assert_eq!(located(&f), vec![("F009", 6, 12)], "{}", f.render());
    front_support::assert_renders(
        &f,
        &[
            "`row` is an element of `m`, not a variable",
            "help: copy it into a `var`, pass that, and `set row = ...` it back",
        ],
    );
}

#[test]
fn nested_set_mistakes_are_located() {
    assert_cases(
        "cases/nested_set_mistakes.txt",
        include_str!("cases/nested_set_mistakes.txt"),
    );
}

#[test]
fn format_expands_to_conversions_and_concatenation() {
    let compiled = compile_ok(
        "f.dfs",
        "let n: u8 = 3\ndebuglog format(\"n={} x={:.2} i={} s={}\", n, 0.5, len([1]), \"a\")\n",
        &[],
    );
    let names: Vec<&str> = compiled
        .program
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    for f in ["fixedint.to_string", "floats.to_string_fixed"] {
        assert!(names.contains(&f), "{f} not in {names:?}");
    }
    // A file with its own `format` calls it, and loads nothing for it.
    let own = compile_ok(
        "own.dfs",
        "fun format(s: string): string\n  ret s\nend fun\ndebuglog format(\"{}\")\n",
        &[],
    );
    assert!(
        own.program
            .functions
            .iter()
            .all(|f| !f.name.starts_with("floats.")),
        "floats loaded for a file's own format"
    );
}

#[test]
fn format_mistakes_are_located() {
    assert_cases(
        "cases/format_mistakes.txt",
        include_str!("cases/format_mistakes.txt"),
    );
}
