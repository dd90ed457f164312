//! The nesting limit (`docs/language.md`, "Nesting"): for every construct that nests,
//! a program exactly at the limit compiles, verifies and prints from an ordinary test
//! thread (2 MiB of stack in a debug build; the front end's recursion is bounded by the
//! limit and runs on a thread of its own, `FRONT_STACK_BYTES`, since a level's frames
//! differ by target: an unoptimized aarch64 build overflowed 2 MiB), and one level more is refused with S009 at the construct that opens the level
//! too many, as the only diagnostic.

mod front_support;

use datalove_front::parser::MAX_DEPTH;
use front_support::{compile_err, compile_ok, located};

const LIMIT: usize = MAX_DEPTH as usize;

fn nested_calls(n: usize) -> String {
    format!(
        "fun f(x: i64): i64\n  ret x\nend fun\ndebuglog {}1{}\n",
        "f(".repeat(n),
        ")".repeat(n)
    )
}

fn nested_blocks(open: &str, close: &str, n: usize) -> String {
    format!(
        "{}debuglog 1\n{}",
        format!("{open}\n").repeat(n),
        format!("{close}\n").repeat(n)
    )
}

/// `n` lists or tuples one inside the other around `1`, as a `let` used after.
fn nested_values(open: &str, close: &str, n: usize) -> String {
    format!(
        "let v = {}1{}\ndebuglog v\n",
        open.repeat(n),
        close.repeat(n)
    )
}

/// A `let` of a value at most as deep as the limit (`open` and `close` around `1`),
/// then `access` written `n` times after its name.
fn accessed_value(name: &str, (open, close): (&str, &str), access: &str, n: usize) -> String {
    let deep = n.min(LIMIT);
    format!(
        "let {name} = {}1{}\ndebuglog {name}{}\n",
        open.repeat(deep),
        close.repeat(deep),
        access.repeat(n)
    )
}

/// Each `if` in the `else` of the one before: the n-th `if`'s body is n deep.
fn else_blocks(n: usize) -> String {
    format!(
        "{}debuglog 1\n{}",
        "if false\nelse\n".repeat(n),
        "end if\n".repeat(n)
    )
}

/// `else if` is an `if` inside an `else`: the k-th holds its condition k deep (so the
/// operands of its `==` k + 1 deep) and its body k + 1 deep; the `==` of the last (the
/// (n-1)-th) `else if`, on line 2n, opens level n.
fn else_if_chain(n: usize) -> String {
    format!(
        "var k: i64 = 0\nif k == 0\n  debuglog 0\n{}end if\n",
        (1..n)
            .map(|i| format!("else if k == {i}\n  debuglog {i}\n"))
            .collect::<String>()
    )
}

/// A program with `n` levels of one construct, and where the construct that opens level
/// `n` is (line and column), when `n` is over the limit: `(name, program, opener)`.
type Construct = (&'static str, fn(usize) -> String, fn(usize) -> (u32, u32));

#[rustfmt::skip]
const CONSTRUCTS: &[Construct] = &[
    ("parentheses", |n| format!("debuglog {}1{}\n", "(".repeat(n), ")".repeat(n)), |n| (1, 9 + n as u32)),
    ("if blocks", |n| nested_blocks("if true", "end if", n), |n| (n as u32, 1)),
    ("else blocks", else_blocks, |n| (2 * n as u32 - 1, 1)),
    ("else if chains", else_if_chain, |n| (2 * n as u32, 11)),
    ("loops", |n| nested_blocks("loop", "  break\nend loop", n), |n| (n as u32, 1)),
    ("calls", nested_calls, |n| (4, 9 + 2 * n as u32)),
    ("lists", |n| nested_values("[", "]", n), |n| (1, 8 + n as u32)),
    ("tuples", |n| nested_values("(", ",)", n), |n| (1, 8 + n as u32)),
    ("options", |n| nested_values("some(", ")", n), |n| (1, 8 + 5 * n as u32)),
    ("negations", |n| format!("let x: i64 = 1\ndebuglog {}x\n", "- ".repeat(n)), |n| (2, 10 + 2 * (n as u32 - 1))),
    ("not", |n| format!("debuglog {}true\n", "not ".repeat(n)), |n| (1, 10 + 4 * (n as u32 - 1))),
    // `1 + 1 + 1` is `(1 + 1) + 1`: the first operand is as deep as the chain is long;
    // the operator that makes it one too deep is refused.
    ("operator chains", |n| format!("debuglog 1{}\n", " + 1".repeat(n)), |n| (1, 12 + 4 * (n as u32 - 1))),
    ("casts", |n| format!("debuglog 1{}\n", " as i64".repeat(n)), |n| (1, 12 + 7 * (n as u32 - 1))),
    // A list (a tuple) at most as deep as the limit, indexed (its field taken) n times.
    ("index chains", |n| accessed_value("v", ("[", "]"), "[0]", n), |n| (2, 11 + 3 * (n as u32 - 1))),
    ("tuple fields", |n| accessed_value("t", ("(", ",)"), ".0", n), |n| (2, 11 + 2 * (n as u32 - 1))),
    ("list types", |n| format!("let v: {}u8{} = []\ndebuglog v\n", "[".repeat(n), "]".repeat(n)), |n| (1, 7 + n as u32)),
    ("option types", |n| format!("let v: {}u8 = none\ndebuglog v\n", "?".repeat(n)), |n| (1, 7 + n as u32)),
];

#[test]
fn every_construct_at_the_limit_compiles_on_a_test_thread() {
    for (name, program, _) in CONSTRUCTS {
        let text = program(LIMIT);
        let compiled = std::panic::catch_unwind(|| compile_ok("deep.dfs", &text, &[]));
        assert!(compiled.is_ok(), "{name} at the limit ({LIMIT})");
    }
}

#[test]
fn every_construct_one_past_the_limit_is_s009_where_it_opens() {
    for (name, program, opener) in CONSTRUCTS {
        let text = program(LIMIT + 1);
        let failed = compile_err("deep.dfs", &text, &[]);
        let (line, col) = opener(LIMIT + 1);
        assert_eq!(
            located(&failed),
            vec![("S009", line, col)],
            "{name}:\n{}",
            failed.render()
        );
    }
}

#[test]
fn levels_add_up_across_constructs() {
    // 100 blocks around an expression 28 deep: 128.
    let blocks = |inner: &str| {
        format!(
            "{}debuglog {inner}\n{}",
            "if true\n".repeat(100),
            "end if\n".repeat(100)
        )
    };
    compile_ok(
        "deep.dfs",
        &blocks(&format!("{}1{}", "(".repeat(28), ")".repeat(28))),
        &[],
    );
    let failed = compile_err(
        "deep.dfs",
        &blocks(&format!("{}1{}", "(".repeat(29), ")".repeat(29))),
        &[],
    );
    assert_eq!(located(&failed), vec![("S009", 101, 38)]);
}

#[test]
fn a_chain_around_a_deep_operand_counts_its_depth() {
    // `(((1))) + 1`: the parenthesized operand goes one level down under the `+`.
    let program = |parens: usize| {
        format!(
            "debuglog {}1{} + 1\n",
            "(".repeat(parens),
            ")".repeat(parens)
        )
    };
    compile_ok("deep.dfs", &program(LIMIT - 1), &[]);
    let failed = compile_err("deep.dfs", &program(LIMIT), &[]);
    assert_eq!(
        located(&failed),
        vec![("S009", 1, 10 + 2 * LIMIT as u32 + 2)]
    );
}
