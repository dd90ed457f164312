//! `help:` lines and near-miss suggestions (issue 17): each asserted with the line and
//! column of the diagnostic it belongs to. The cases are in `cases/help.txt`.

mod front_support;

use front_support::{assert_cases, compile_err, located};

#[test]
fn every_help_case_is_located_and_says_its_texts() {
    assert_cases("cases/help.txt", include_str!("cases/help.txt"));
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
}
