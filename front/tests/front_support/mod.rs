//! Shared helpers of the front-end tests: a loader with the `std` rider, compiling with
//! verification, and finding a diagnostic's line and column.
#![allow(dead_code)]

use datalove_front::{compile, Compiled, Failed, MemoryLoader};

pub const STD_DLI: &str = include_str!("../../../runtime/std/rider.dli");

/// A loader with the built-in library, the `std` rider and the given extra modules.
pub fn loader(modules: &[(&str, &str)]) -> MemoryLoader {
    let mut l = MemoryLoader::new().with_rider("std", STD_DLI);
    for (name, text) in modules {
        l = l.with_module(name, text);
    }
    l
}

/// Compiles, verifies and prints; panics with the rendered diagnostics or verifier errors.
pub fn compile_ok(path: &str, text: &str, modules: &[(&str, &str)]) -> Compiled {
    let compiled = match compile(&loader(modules), path, text) {
        Ok(c) => c,
        Err(f) => panic!("{path} did not compile:\n{}", f.render()),
    };
    let verified = if compiled.program.entry.is_some() {
        datalove_ir::verify::verify_program(&compiled.program)
    } else {
        // A module has no entry: verify its functions one by one.
        let errors: Vec<_> = compiled
            .program
            .functions
            .iter()
            .filter_map(|f| datalove_ir::verify::verify_function(&compiled.program, f).err())
            .flatten()
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    };
    if let Err(errors) = verified {
        let listing = datalove_ir::print::print_program(&compiled.program);
        let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "{path} lowers to IR the verifier refuses:\n{}\n\n{listing}",
            errors.join("\n")
        );
    }
    let printed = datalove_ir::print::print_program(&compiled.program);
    assert!(!printed.is_empty(), "{path} prints to nothing");
    compiled
}

pub fn compile_err(path: &str, text: &str, modules: &[(&str, &str)]) -> Failed {
    match compile(&loader(modules), path, text) {
        Ok(_) => panic!("{path} compiled, but an error was expected"),
        Err(f) => f,
    }
}

/// `(code, line, col)` of every diagnostic.
pub fn located(failed: &Failed) -> Vec<(&'static str, u32, u32)> {
    failed
        .diagnostics
        .iter()
        .map(|d| {
            let lc = failed.sources.line_col(d.span.file, d.span.start);
            (d.code, lc.line, lc.col)
        })
        .collect()
}

/// Asserts that compiling `text` as a script fails with `code` at `line:col`.
pub fn assert_error(text: &str, code: &str, line: u32, col: u32) -> Failed {
    let failed = compile_err("test.dfs", text, &[]);
    let found = located(&failed);
    assert!(
        found
            .iter()
            .any(|&(c, l, k)| c == code && l == line && k == col),
        "expected {code} at {line}:{col}, got {found:?}\n{}",
        failed.render()
    );
    failed
}

/// Asserts that compiling `text` reports `code` at `line:col` and that the rendered
/// diagnostics contain each of `texts`; the failure.
pub fn assert_help(text: &str, code: &str, line: u32, col: u32, texts: &[&str]) -> Failed {
    let failed = assert_error(text, code, line, col);
    let rendered = failed.render();
    for t in texts {
        assert!(rendered.contains(t), "no {t:?} in:\n{rendered}");
    }
    failed
}

/// Asserts that `failed` has a diagnostic `code` (anywhere).
pub fn assert_has_code(failed: &Failed, code: &str) {
    assert!(
        failed.diagnostics.iter().any(|d| d.code == code),
        "no {code}:\n{}",
        failed.render()
    );
}

/// Programs for the lowering tests (and the fuzz test's corpus).
pub const LOWERING_PROGRAMS: &[(&str, &str)] = &[
    (
        "conditional_move",
        "fun take(s: string)\nend fun\nlet s = \"a\"\nif true\n  take(s)\nend if\ndebuglog 1\n",
    ),
    (
        "move_then_reinit_in_loop",
        "fun take(s: string)\nend fun\nvar s = \"a\"\nvar i: u8 = 0\nloop while i < 3\n  take(s)\n  set s = \"b\"\n  set i = i + 1\nend loop\ndebuglog s\n",
    ),
    (
        "break_and_continue_with_owned_locals",
        "var i: u32 = 0\nloop\n  let s = \"x\"\n  set i = i + 1\n  if i == 2\n    continue\n  end if\n  if i > 4\n    break\n  end if\n  debuglog s\nend loop\n",
    ),
    (
        "var_initialized_inside_loop",
        "var s: string\nvar i: u8 = 0\nloop while i < 2\n  set s = \"v\"\n  debuglog s\n  set i = i + 1\nend loop\n",
    ),
    (
        "owned_temps_live_across_fallible_args",
        "fun f(a: string, b: u8, ref c: string): string\n  ret a ++ c\nend fun\nlet x: u8 = 200\ndebuglog f(\"a\" ++ \"b\", x + 50, ref \"c\")\n",
    ),
    (
        "out_written_before_failure",
        "fun g(out r: string, out n: u8, x: u8)\n  set r = \"w\"\n  set n = x + 1\nend fun\nvar r: string\nvar n: u8\ng(out r, out n, 255)\ndebuglog r\n",
    ),
    (
        "out_into_initialized_destination",
        "fun g(out r: string)\n  set r = \"new\"\nend fun\nvar r = \"old\"\ng(out r)\ndebuglog r\n",
    ),
    (
        "mut_parameter_replaced",
        "fun g(mut s: string, mut n: u8)\n  set s = s ++ \"!\"\n  set n = n + 1\nend fun\nvar s = \"a\"\nvar n: u8 = 1\ng(mut s, mut n)\ndebuglog s\n",
    ),
    (
        "short_circuit_with_move",
        "fun take(s: string): bool\n  ret true\nend fun\nlet s = \"a\"\nlet c = false and take(s)\ndebuglog c\n",
    ),
    (
        "unwrap_owned_option",
        "let o: ?string = some(\"x\")\nlet s = unwrap(o)\ndebuglog s\nlet n: ?u8 = none\ndebuglog unwrap(n)\n",
    ),
    (
        "index_of_temporary_list",
        "fun make(): [string]\n  ret [\"a\", \"b\"]\nend fun\ndebuglog make()[1]\n",
    ),
    (
        "tuples_and_fields",
        "let t = (\"a\", 2u8, [1.5, 2.5])\ndebuglog t.0\ndebuglog t.2[1]\nlet u = t\ndebuglog u.1\n",
    ),
    (
        "early_return_drops_locals",
        "fun f(s: string, n: u8): string\n  let t = s ++ \"x\"\n  if n == 0\n    ret t\n  end if\n  let other = \"o\"\n  ret other\nend fun\ndebuglog f(\"a\", 1)\n",
    ),
    (
        "generic_moves_and_clones",
        "fun dup<T>(x: T): (T, T)\n  let c = clone(x)\n  ret (x, c)\nend fun\nfun keep<T>(ref xs: [T], i: index): T\n  ret xs[i]\nend fun\ndebuglog dup(\"s\")\ndebuglog dup(3u8)\nlet xs: [string] = [\"q\"]\ndebuglog keep(ref xs, 0)\n",
    ),
    (
        "set_index_and_push",
        "var xs: [string] = []\npush(mut xs, \"a\")\npush(mut xs, \"b\")\nset xs[1] = \"c\" ++ xs[0]\ndebuglog xs\n",
    ),
    (
        "casts_and_arithmetic",
        "let a: i32 = -7\ndebuglog a as u8\ndebuglog a as! u8\ndebuglog (a * 3) % 4\ndebuglog 1.5f32 as f64\ndebuglog 3u64 << 2\ndebuglog not (1 == 2) or false\n",
    ),
    (
        "generic_out_parameter",
        "fun put<T>(out r: T, v: T)\n  set r = v\nend fun\nvar s: string\nput(out s, \"x\")\ndebuglog s\n",
    ),
    (
        "data_values",
        "let d = data([1u8, 2])\ndebuglog d\n",
    ),
];

/// `(code, program, line, col)`: one program per remaining code.
pub const DIAGNOSTIC_CASES: &[(&str, &str, u32, u32)] = &[
    ("S001", "debuglog 1 $ 2\n", 1, 12),
    ("S002", "debuglog \"open\n", 1, 10),
    ("S003", "debuglog \"\\q\"\n", 1, 11),
    ("S004", "debuglog 12u7\n", 1, 10),
    ("S005", "let = 3\n", 1, 5),
    ("S006", "if true\n  debuglog 1\n", 3, 1),
    ("S007", "loop\n  break\nend if\n", 3, 1),
    ("S008", "fun f(): u8\n  ret 1\nend fun\nset f() = 3\n", 4, 6),
    ("S010", "fun f()\n  import strings.len\nend fun\n", 2, 3),
    ("S011", "debuglog 1 < 2 < 3\n", 1, 16),
    ("S013", "for i in ref 0..3\nend for\n", 1, 15),
    ("S014", "let m: map[u8] = []\n", 1, 8),
    ("N002", "let x: u9 = 1\n", 1, 8),
    ("N003", "import nowhere.f\n", 1, 8),
    ("N005", "import strings.nope\n", 1, 16),
    ("N006", "fun f()\nend fun\nfun f()\nend fun\n", 3, 5),
    ("N007", "let a = 1\nlet a = 2\n", 2, 5),
    ("N008", "fun main()\nend fun\n", 1, 5),
    (
        "N009",
        "fun f<T>(x: T) where { T is number, }\nend fun\n",
        1,
        29,
    ),
    ("N010", "fun f(a: u8, a: u8)\nend fun\n", 1, 14),
    ("T002", "debuglog \"a\" * 2\n", 1, 10),
    (
        "T003",
        "fun add<T>(a: T, b: T): T\n  ret a + b\nend fun\n",
        2,
        7,
    ),
    ("T004", "let x: u8 = 256\n", 1, 13),
    ("T005", "debuglog []\n", 1, 10),
    (
        "T006",
        "import fixedint.zero\nlet s: string = zero()\n",
        2,
        17,
    ),
    ("T007", "let n = 3\ndebuglog n[0]\n", 2, 10),
    ("T008", "let t = (1, 2)\ndebuglog t.2\n", 2, 10),
    ("T009", "debuglog \"1\" as u8\n", 1, 10),
    ("T010", "debuglog format(\"{:.1}\", true)\n", 1, 26),
    ("F012", "debuglog format(\"{} {}\", 1)\n", 1, 10),
    ("F003", "fun f()\nend fun\ndebuglog f\n", 3, 10),
    ("F004", "fun f(): u8\n  debuglog 1\nend fun\n", 3, 1),
    ("F005", "fun f(): u8\n  ret\nend fun\n", 2, 3),
    ("F006", "break\n", 1, 1),
    ("F009", "fun f(mut a: u8)\nend fun\nf(mut 3)\n", 3, 7),
    ("D002", "var x: u8\ndebuglog x\n", 2, 10),
    ("D003", "let x = 1\nset x = 2\n", 2, 1),
    (
        "D004",
        "fun f(mut a: [u8])\nend fun\nlet xs: [u8] = []\nf(mut xs)\n",
        4,
        3,
    ),
    (
        "D005",
        "fun f(ref s: string): string\n  ret s\nend fun\n",
        2,
        7,
    ),
    ("D006", "fun f(out r: u8)\nend fun\n", 2, 1),
];
