//! The differential smoke test: a fixed number of generated programs, each on every
//! available backend with the leak check on, from a fresh seed each run.
//!
//! It prints the seed and the count first, so a failure replays exactly:
//! `DIFFTEST_SEED=0x... cargo test -p datalove-difftest --test differential`
//! (`DIFFTEST_COUNT=N` sets the count, `DIFFTEST_JOBS=N` the programs checked at once).
//! A finding fails the run and names the command that reduces it into a conformance
//! case. Long runs are `cargo run -p datalove-difftest -- run --minutes 30`
//! (`docs/testing.md`).

use std::process::ExitCode;

use datalove_difftest::driver::{clock_seed, parse_seed, run_seeds, Limit};
use datalove_difftest::gen::Config;
use datalove_difftest::riders::prepare;
use datalove_difftest::run::Cli;

/// Programs per run: each links two executables (aot, c), so this is most of the test's
/// few minutes on two cores.
const DEFAULT_COUNT: u64 = 60;

fn env_number(name: &str) -> Option<u64> {
    parse_seed(&std::env::var(name).ok()?).ok()
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--list") {
        println!("generated_programs_agree_on_every_backend: test");
        return ExitCode::SUCCESS;
    }
    if datalove_toolchain::unavailable_without_c_compiler(
        "differential testing (the C rider cprobe, aot and c)",
    ) {
        return ExitCode::SUCCESS;
    }
    let prepared = match prepare() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("differential: cannot prepare the CLI and riders:\n{e}");
            return ExitCode::FAILURE;
        }
    };
    let runner = Cli::with_host_cli(
        prepared.datalove,
        prepared.riders_dir,
        prepared.work_dir,
        prepared.host_cli,
    );
    let seed = env_number("DIFFTEST_SEED").unwrap_or_else(clock_seed);
    let count = env_number("DIFFTEST_COUNT").unwrap_or(DEFAULT_COUNT);
    let jobs = env_number("DIFFTEST_JOBS").unwrap_or(2) as usize;
    println!(
        "differential: {count} generated programs from seed {seed:#x} on {} (replay: DIFFTEST_SEED={seed:#x} cargo test -p datalove-difftest --test differential)",
        runner.backends.join(", ")
    );
    let tally = run_seeds(
        &runner,
        &Config::default(),
        seed,
        Limit::Count(count),
        jobs,
        &|_| {},
    );
    println!("differential: {}", tally.summary());
    if tally.findings.is_empty() {
        return ExitCode::SUCCESS;
    }
    for (seed, _, finding) in &tally.findings {
        println!(
            "\ndifferential: seed {seed:#x} (reduce it into a conformance case: cargo run -p datalove-difftest -- reduce --seed {seed:#x}):\n{finding}"
        );
    }
    ExitCode::FAILURE
}
