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
    assert_renders(&failed, texts);
    failed
}

/// Asserts that the rendering of `failed` says each of `texts`.
pub fn assert_renders(failed: &Failed, texts: &[&str]) {
    let rendered = failed.render();
    for t in texts {
        assert!(rendered.contains(t), "no {t:?} in:\n{rendered}");
    }
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

/// One case of a case file (`front/tests/cases/*.txt`): a line `== CODE LINE:COL`, then
/// a line `== says TEXT` for each text its rendering must say and `== lacks TEXT` for each
/// it must not, then the program's lines.
/// Lines before the first case, and lines `== # ...`, are notes for the reader.
pub struct Case {
    /// `FILE:LINE` of the case's first line, to name it in a failure.
    pub name: String,
    pub code: String,
    pub line: u32,
    pub col: u32,
    pub says: Vec<String>,
    pub lacks: Vec<String>,
    pub program: String,
}

/// The cases of `text`, the case file `file`.
pub fn cases(file: &str, text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (i, row) in text.lines().enumerate() {
        let Some(directive) = row.strip_prefix("== ") else {
            if let Some(case) = cases.last_mut() {
                case.program.push_str(row);
                case.program.push('\n');
            }
            continue;
        };
        let name = format!("{file}:{}", i + 1);
        if directive.starts_with('#') {
            continue;
        }
        if let Some((word, said)) = directive.split_once(' ') {
            if word == "says" || word == "lacks" {
                let case = cases
                    .last_mut()
                    .expect("`== says` after a case's first line");
                assert!(
                    case.program.is_empty(),
                    "{name}: `== {word}` after the program"
                );
                let texts = if word == "says" {
                    &mut case.says
                } else {
                    &mut case.lacks
                };
                texts.push(said.to_string());
                continue;
            }
        }
        let (code, at) = directive
            .split_once(' ')
            .unwrap_or_else(|| panic!("{name}: not `== CODE LINE:COL`"));
        let (line, col) = at
            .split_once(':')
            .and_then(|(l, c)| Some((l.parse().ok()?, c.parse().ok()?)))
            .unwrap_or_else(|| panic!("{name}: not `== CODE LINE:COL`"));
        cases.push(Case {
            name,
            code: code.to_string(),
            line,
            col,
            says: Vec::new(),
            lacks: Vec::new(),
            program: String::new(),
        });
    }
    cases
}

/// Asserts each case of the case file `file` (`text`): its program is refused with its
/// code at its place, and the rendering says each of its texts and none it lacks. A
/// failure names the case.
pub fn assert_cases(file: &str, text: &str) {
    for case in cases(file, text) {
        eprintln!("case {}", case.name);
        let says: Vec<&str> = case.says.iter().map(String::as_str).collect();
        let failed = assert_help(&case.program, &case.code, case.line, case.col, &says);
        let rendered = failed.render();
        for t in &case.lacks {
            assert!(!rendered.contains(t.as_str()), "{t:?} in:\n{rendered}");
        }
    }
}

/// One program per diagnostic code the other tests do not take at length.
pub fn diagnostic_cases() -> Vec<Case> {
    cases(
        "cases/diagnostics.txt",
        include_str!("../cases/diagnostics.txt"),
    )
}
