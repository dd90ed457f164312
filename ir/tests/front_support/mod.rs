//! Shared helpers of the front-end tests: a loader with the `std` rider, compiling with
//! verification, and finding a diagnostic's line and column.
#![allow(dead_code)]

use datalove_ir::front::{compile, Compiled, Failed, MemoryLoader};

pub const STD_DLI: &str = include_str!("../../../runtime/std/rider.dli");

/// A loader with the built-in library, the `std` rider and the given extra modules.
pub fn loader(modules: &[(&str, &str)]) -> MemoryLoader {
    let mut l = MemoryLoader::new().rider("std", STD_DLI);
    for (name, text) in modules {
        l = l.module(name, text);
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
        panic!("{path} lowers to IR the verifier refuses:\n{}\n\n{listing}", errors.join("\n"));
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
        found.iter().any(|&(c, l, k)| c == code && l == line && k == col),
        "expected {code} at {line}:{col}, got {found:?}\n{}",
        failed.render()
    );
    failed
}
