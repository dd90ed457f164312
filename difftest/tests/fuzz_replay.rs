//! Replays every fuzz target's corpus on the stable toolchain: the seed corpus (the
//! conformance cases, examples, library modules and rider interfaces, and fixed byte
//! strings), every input kept in `fuzz/regressions/<target>/` (inputs that once found a
//! bug), and a local `fuzz/corpus/<target>/` when there is one (at most
//! `DIFFTEST_REPLAY_MAX` inputs of it, default 200). An input that panics fails the run,
//! named. `DIFFTEST_REPLAY_TARGETS` (comma-separated target names) replays only those.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::ExitCode;

use datalove_difftest::fuzz::{seed_corpus, Target};
use datalove_difftest::riders::{prepare, repo_root};

fn inputs_in(dir: &Path, max: usize) -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.is_file())
        .take(max)
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((p.display().to_string(), bytes))
        })
        .collect()
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--list") {
        for t in Target::ALL {
            println!("{}: test", t.name());
        }
        return ExitCode::SUCCESS;
    }
    if datalove_toolchain::unavailable_without_c_compiler(
        "the fuzz corpus replay (the C rider cprobe)",
    ) {
        return ExitCode::SUCCESS;
    }
    // The differential target runs programs in process with the probe riders.
    match prepare() {
        Ok(p) => std::env::set_var("DIFFTEST_RIDERS", &p.riders_dir),
        Err(e) => {
            eprintln!("fuzz_replay: cannot prepare the riders:\n{e}");
            return ExitCode::FAILURE;
        }
    }
    let max_local: usize = std::env::var("DIFFTEST_REPLAY_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    // `DIFFTEST_REPLAY_TARGETS=differential,...`: only these targets (CI's aarch64 half
    // under qemu replays only `differential`, the one that runs programs; the front
    // end's, the interfaces' and the verifier's replays depend on no target and ran
    // natively).
    let only: Option<Vec<String>> = std::env::var("DIFFTEST_REPLAY_TARGETS")
        .ok()
        .map(|s| s.split(',').map(|t| t.trim().to_string()).collect());
    let fuzz = repo_root().join("fuzz");
    let mut failed = Vec::new();
    for target in Target::ALL {
        if only
            .as_ref()
            .is_some_and(|only| !only.iter().any(|t| t == target.name()))
        {
            println!(
                "fuzz_replay: {}: not replayed (DIFFTEST_REPLAY_TARGETS)",
                target.name()
            );
            continue;
        }
        let mut inputs = seed_corpus(target);
        let kept = inputs_in(&fuzz.join("regressions").join(target.name()), usize::MAX);
        let local = inputs_in(&fuzz.join("corpus").join(target.name()), max_local);
        let counts = (inputs.len(), kept.len(), local.len());
        inputs.extend(kept);
        inputs.extend(local);
        for (name, bytes) in &inputs {
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| target.run(bytes))) {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failed.push(format!("{} on {name}:\n{message}", target.name()));
            }
        }
        println!(
            "fuzz_replay: {}: {} inputs ({} seeds, {} kept, {} local)",
            target.name(),
            inputs.len(),
            counts.0,
            counts.1,
            counts.2
        );
    }
    if failed.is_empty() {
        return ExitCode::SUCCESS;
    }
    for f in &failed {
        println!("\nfuzz_replay: {f}");
    }
    ExitCode::FAILURE
}
