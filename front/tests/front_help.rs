//! `help:` lines and near-miss suggestions (issue 17): each asserted with the line and
//! column of the diagnostic it belongs to.

mod front_support;

use front_support::{assert_error, assert_help, compile_err, located};

#[test]
fn a_misspelt_local_suggests_the_local() {
    assert_help(
        "var counter = 0\nset counter = countr + 1\n",
        "N001",
        2,
        15,
        &["= help: a local with a similar name exists: `counter`"],
    );
    assert_help(
        "var counter = 0\nset countr = 1\n",
        "N001",
        2,
        5,
        &["= help: a local with a similar name exists: `counter`"],
    );
}

#[test]
fn a_misspelt_function_suggests_the_function() {
    assert_help(
        "debuglog lne([1])\n",
        "N001",
        1,
        10,
        &["= help: a function with a similar name exists: `len`"],
    );
    assert_help(
        "fun total(): u8\n  ret 1\nend fun\ndebuglog totl()\n",
        "N001",
        4,
        10,
        &["= help: a function with a similar name exists: `total`"],
    );
    // Nothing close: the note about imports instead.
    let f = assert_error("debuglog zzzz()\n", "N001", 1, 10);
    assert!(!f.render().contains("help:"), "{}", f.render());
}

#[test]
fn a_misspelt_module_or_import_suggests_the_name() {
    assert_help(
        "import strngs.len\n",
        "N003",
        1,
        8,
        &["= help: a module with a similar name exists: `strings`"],
    );
    assert_help(
        "import lists.pusj\n",
        "N005",
        1,
        14,
        &["= help: a function with a similar name exists: `push`"],
    );
}

#[test]
fn a_missing_tuple_field_says_which_fields_there_are() {
    assert_help(
        "let t = (1, 2)\ndebuglog t.2\n",
        "T008",
        2,
        10,
        &["= help: its fields are `.0` to `.1`"],
    );
}

#[test]
fn an_import_that_hides_a_built_in_says_so() {
    assert_help(
        "import strings.len\nlet xs = [1, 2]\ndebuglog len(ref xs)\n",
        "T001",
        3,
        18,
        &[
            "this import hides the built-in `len`",
            "= help: `len` here is `strings.len`; for the built-in, import it under another name: `import strings.len as strings_len`",
            "`len` is declared here",
        ],
    );
}

#[test]
fn a_keyword_used_as_a_name_is_said_once() {
    let text =
        "var out = 0\nfor i in 0..3\n  set out = out + i\nend for\ndebuglog out\nset out = 2\n";
    let f = compile_err("t.dfs", text, &[]);
    assert_eq!(located(&f), vec![("S005", 1, 5)], "{}", f.render());
    front_support::assert_renders(
        &f,
        &["= help: `out` is a keyword (a parameter mode) and cannot be a name: rename it, e.g. `out_value`"],
    );
    // As a parameter's name, and in an expression.
    assert_help(
        "fun f(out: u8)\nend fun\n",
        "S005",
        1,
        7,
        &["`out` is a keyword (a parameter mode)"],
    );
    assert_help(
        "debuglog 1 + while\n",
        "S005",
        1,
        14,
        &["= help: `while` is a keyword and cannot be a name"],
    );
}

#[test]
fn a_missing_mode_says_what_to_write_and_where_the_callee_is() {
    assert_help(
        "fun f(ref s: string)\nend fun\nlet s = \"a\"\nf(s)\n",
        "F002",
        4,
        3,
        &["= help: write the argument `ref s`", "`f` is declared here"],
    );
    assert_help(
        "fun f(s: string)\nend fun\nlet s = \"a\"\nf(ref s)\n",
        "F002",
        4,
        3,
        &["= help: write the argument without a mode: `s`"],
    );
}

#[test]
fn argument_errors_point_at_the_callee() {
    // Arity and type: the callee's declaration is labelled.
    assert_help(
        "fun f(a: u8)\nend fun\nf(1, 2)\n",
        "F001",
        3,
        1,
        &[
            "1 | fun f(a: u8)",
            "`f` is declared here",
            "= note: `f` is declared at test.dfs:1:1",
        ],
    );
    assert_help(
        "fun f(a: u8)\nend fun\nf(\"x\")\n",
        "T001",
        3,
        3,
        &[
            "`f` is declared here",
            "= note: `f` is declared at test.dfs:1:1",
        ],
    );
    // An error inside an argument is that expression's own, not the call's.
    let f = assert_error("fun f(a: u8)\nend fun\nf(nope)\n", "N001", 3, 3);
    assert!(!f.render().contains("declared here"), "{}", f.render());
}

#[test]
fn a_built_in_names_its_own_parameter() {
    // `push(xs, 1)`: the list is parameter `xs` (as docs/language.md writes push), not
    // `value`.
    assert_help(
        "var xs: [u8] = []\npush(xs, 1)\n",
        "F002",
        2,
        6,
        &[
            "argument `xs` of `push` is `mut`, but it is passed without a mode",
            "= help: write the argument `mut xs`",
        ],
    );
    assert_help(
        "let o: ?u8 = none\ndebuglog is_some(mut o)\n",
        "F002",
        2,
        18,
        &["argument `o` of `is_some`"],
    );
}

#[test]
fn joining_a_number_to_a_string_points_at_format() {
    assert_help(
        "debuglog \"n=\" ++ 3\n",
        "T001",
        1,
        18,
        &["= help: `++` joins strings; to write a value into one, use `format`: `format(\"n = {}\", n)`"],
    );
}
