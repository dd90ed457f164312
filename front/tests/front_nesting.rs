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

/// A program with `n` levels of one construct; where the construct that opens level
/// `n` is (line and column), when `n` is over the limit.
struct Construct {
    name: &'static str,
    program: fn(usize) -> String,
    opener: fn(usize) -> (u32, u32),
}

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

fn constructs() -> Vec<Construct> {
    vec![
        Construct {
            name: "parentheses",
            program: |n| format!("debuglog {}1{}\n", "(".repeat(n), ")".repeat(n)),
            opener: |n| (1, 9 + n as u32),
        },
        Construct {
            name: "if blocks",
            program: |n| nested_blocks("if true", "end if", n),
            opener: |n| (n as u32, 1),
        },
        Construct {
            name: "else blocks",
            program: |n| {
                format!(
                    "{}debuglog 1\n{}",
                    "if false\nelse\n".repeat(n),
                    "end if\n".repeat(n)
                )
            },
            // Each `if` in the `else` of the one before: the n-th `if`'s body is n deep.
            opener: |n| (2 * n as u32 - 1, 1),
        },
        Construct {
            // `else if` is an `if` inside an `else`: the k-th holds its condition k deep
            // (so the operands of its `==` k + 1 deep) and its body k + 1 deep.
            name: "else if chains",
            program: |n| {
                format!(
                    "var k: i64 = 0\nif k == 0\n  debuglog 0\n{}end if\n",
                    (1..n)
                        .map(|i| format!("else if k == {i}\n  debuglog {i}\n"))
                        .collect::<String>()
                )
            },
            // The `==` of the last (the (n-1)-th) `else if`, on line 2n.
            opener: |n| (2 * n as u32, 11),
        },
        Construct {
            name: "loops",
            program: |n| nested_blocks("loop", "  break\nend loop", n),
            opener: |n| (n as u32, 1),
        },
        Construct {
            name: "calls",
            program: nested_calls,
            opener: |n| (4, 9 + 2 * n as u32),
        },
        Construct {
            name: "lists",
            program: |n| nested_values("[", "]", n),
            opener: |n| (1, 8 + n as u32),
        },
        Construct {
            name: "tuples",
            program: |n| nested_values("(", ",)", n),
            opener: |n| (1, 8 + n as u32),
        },
        Construct {
            name: "options",
            program: |n| nested_values("some(", ")", n),
            opener: |n| (1, 8 + 5 * n as u32),
        },
        Construct {
            name: "negations",
            program: |n| format!("let x: i64 = 1\ndebuglog {}x\n", "- ".repeat(n)),
            opener: |n| (2, 10 + 2 * (n as u32 - 1)),
        },
        Construct {
            name: "not",
            program: |n| format!("debuglog {}true\n", "not ".repeat(n)),
            opener: |n| (1, 10 + 4 * (n as u32 - 1)),
        },
        Construct {
            // `1 + 1 + 1` is `(1 + 1) + 1`: the first operand is as deep as the chain is
            // long; the operator that makes it one too deep is refused.
            name: "operator chains",
            program: |n| format!("debuglog 1{}\n", " + 1".repeat(n)),
            opener: |n| (1, 12 + 4 * (n as u32 - 1)),
        },
        Construct {
            name: "casts",
            program: |n| format!("debuglog 1{}\n", " as i64".repeat(n)),
            opener: |n| (1, 12 + 7 * (n as u32 - 1)),
        },
        Construct {
            // A list at most as deep as the limit, indexed n times.
            name: "index chains",
            program: |n| accessed_value("v", ("[", "]"), "[0]", n),
            opener: |n| (2, 11 + 3 * (n as u32 - 1)),
        },
        Construct {
            name: "tuple fields",
            program: |n| accessed_value("t", ("(", ",)"), ".0", n),
            opener: |n| (2, 11 + 2 * (n as u32 - 1)),
        },
        Construct {
            name: "list types",
            program: |n| {
                format!(
                    "let v: {}u8{} = []\ndebuglog v\n",
                    "[".repeat(n),
                    "]".repeat(n)
                )
            },
            opener: |n| (1, 7 + n as u32),
        },
        Construct {
            name: "option types",
            program: |n| format!("let v: {}u8 = none\ndebuglog v\n", "?".repeat(n)),
            opener: |n| (1, 7 + n as u32),
        },
    ]
}

#[test]
fn every_construct_at_the_limit_compiles_on_a_test_thread() {
    for c in constructs() {
        let text = (c.program)(LIMIT);
        let compiled = std::panic::catch_unwind(|| compile_ok("deep.dfs", &text, &[]));
        assert!(compiled.is_ok(), "{} at the limit ({LIMIT})", c.name);
    }
}

#[test]
fn every_construct_one_past_the_limit_is_s009_where_it_opens() {
    for c in constructs() {
        let text = (c.program)(LIMIT + 1);
        let failed = compile_err("deep.dfs", &text, &[]);
        let (line, col) = (c.opener)(LIMIT + 1);
        assert_eq!(
            located(&failed),
            vec![("S009", line, col)],
            "{}:\n{}",
            c.name,
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
