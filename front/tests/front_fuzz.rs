//! Malformed input gets diagnostics, never a panic: every prefix of every example,
//! library module and test program, and a few thousand deterministic random mutations
//! of them, go through the whole front end (and, when they compile, the verifier).
//!
//! The `fuzz_` tests are the front end's slowest and depend on no target: CI runs them
//! once, natively, and skips them (`--skip fuzz_`) in the emulated aarch64 run.

mod front_support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use datalove_front::{compile, LIBRARY};
use front_support::{diagnostic_cases, loader, LOWERING_PROGRAMS};

/// xorshift64*: a tiny deterministic generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The programs the fuzz tests start from, in parts (so that the prefix tests, the
/// slowest of the front end's tests, run in parallel).
fn examples() -> Vec<(String, String)> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&examples)
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        // The programs; `examples/riders/` holds riders, each with its own program.
        .filter(|p| p.extension().is_some_and(|x| x == "dfs" || x == "dfm"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p.display().to_string(), text)
        })
        .collect()
}

/// Every other library module: `half` 0 or 1.
fn library_modules(half: usize) -> Vec<(String, String)> {
    LIBRARY
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == half)
        .map(|(_, (name, text))| (format!("{name}.dfm"), text.to_string()))
        .collect()
}

fn test_programs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, text) in LOWERING_PROGRAMS {
        out.push((format!("{name}.dfs"), text.to_string()));
    }
    for case in diagnostic_cases() {
        out.push((format!("{}.dfs", case.code), case.program));
    }
    out
}

fn corpus() -> Vec<(String, String)> {
    let mut out = examples();
    out.extend(library_modules(0));
    out.extend(library_modules(1));
    out.extend(test_programs());
    out
}

/// Compiles `text` as `path`, failing the test with the input if anything panics.
fn survive(path: &str, text: &str) {
    let l = loader(&[]);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(c) = compile(&l, path, text) {
            if c.program.entry.is_some() {
                if let Err(e) = datalove_ir::verify::verify_program(&c.program) {
                    panic!("verifier refused: {:?}", e);
                }
            }
            datalove_ir::print::print_program(&c.program);
        } else if let Err(f) = compile(&l, path, text) {
            assert!(!f.diagnostics.is_empty(), "a failure without diagnostics");
            f.render();
        }
    }));
    if let Err(e) = outcome {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("the front end panicked on {path}: {msg}\n--- input ---\n{text}\n---");
    }
}

/// Every prefix of every program of `part` survives; returns how many there were.
fn every_prefix(part: &[(String, String)]) -> usize {
    let mut count = 0;
    for (path, text) in part {
        for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
            survive(path, &text[..i]);
            count += 1;
        }
    }
    count
}

#[test]
fn fuzz_every_prefix_of_the_examples() {
    assert!(every_prefix(&examples()) > 100);
}

#[test]
fn fuzz_every_prefix_of_half_the_library_modules() {
    assert!(every_prefix(&library_modules(0)) > 100);
}

#[test]
fn fuzz_every_prefix_of_the_other_library_modules() {
    assert!(every_prefix(&library_modules(1)) > 100);
}

#[test]
fn fuzz_every_prefix_of_the_test_programs() {
    assert!(every_prefix(&test_programs()) > 100);
}

#[test]
fn fuzz_random_byte_mutations() {
    let corpus = corpus();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let alphabet = b"()[]{}<>.,:=+-*/%&|^!?#\"\\ \n\t0123456789abcdefxyz_uif";
    for round in 0..4000 {
        let (path, text) = &corpus[rng.below(corpus.len())];
        let mut bytes = text.as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            if bytes.is_empty() {
                bytes.push(b'x');
            }
            let at = rng.below(bytes.len());
            match rng.below(4) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
                2 => bytes[at] = alphabet[rng.below(alphabet.len())],
                _ => bytes[at] = (rng.next() & 0xff) as u8,
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        survive(&format!("{round}-{path}"), &text);
    }
}

#[test]
fn deep_nesting_is_a_diagnostic() {
    for text in [
        format!("debuglog {}1{}\n", "(".repeat(5000), ")".repeat(5000)),
        format!("debuglog {}1\n", "-".repeat(5000)),
        format!("debuglog 1{}\n", " + 1".repeat(5000)),
        format!("let x: {}u8{} = 1\n", "[".repeat(5000), "]".repeat(5000)),
        format!("{}debuglog 1\n", "if true\n".repeat(5000)),
        format!("debuglog x{}\n", "[0]".repeat(5000)),
    ] {
        let l = loader(&[]);
        let f = compile(&l, "deep.dfs", &text).expect_err("too deep to compile");
        front_support::assert_has_code(&f, "S009");
    }
}

#[test]
fn nesting_just_under_the_limit_compiles_on_a_test_thread() {
    for text in [
        format!("debuglog {}1{}\n", "(".repeat(124), ")".repeat(124)),
        format!("debuglog 1{}\n", " + 1".repeat(124)),
        format!(
            "{}debuglog 1\n{}",
            "if true\n".repeat(60),
            "end if\n".repeat(60)
        ),
        format!(
            "let x: {}u8{} = {}1{}\ndebuglog x\n",
            "[".repeat(60),
            "]".repeat(60),
            "[".repeat(60),
            "]".repeat(60)
        ),
    ] {
        front_support::compile_ok("deep.dfs", &text, &[]);
    }
}
