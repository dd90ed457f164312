//! Every example, every standard module and every test program compiles, lowers to IR
//! the verifier accepts, and prints.

mod front_support;

use front_support::compile_ok;
use std::path::Path;

fn files_in(dir: &str, ext: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p.display().to_string(), text)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_example_compiles_verifies_and_prints() {
    let examples = files_in("examples", "dfs");
    assert!(examples.len() >= 5, "examples: {examples:?}");
    for (path, text) in examples {
        let compiled = compile_ok(&path, &text, &[]);
        assert!(compiled.program.entry.is_some(), "{path} has an entry");
    }
}

#[test]
fn every_library_module_compiles_on_its_own() {
    for (name, text) in datalove_front::LIBRARY {
        let compiled = compile_ok(&format!("{name}.dfm"), text, &[]);
        assert!(compiled.program.entry.is_none());
        assert!(
            !compiled.program.functions.is_empty(),
            "{name} defines functions"
        );
    }
}
