//! The IR passes (`datalove_ir::passes`: inlining, range checks, jump threading, copy
//! forwarding) change no outcome. Generated programs, each compiled with the passes and
//! without them, run on the interpreter in process with the leak check on, must end
//! alike: the same output, the same error line and chain of calls, the same exit code.
//! The four backends all run the passes' output, so agreeing with each other cannot
//! show a pass wrong; this holds the passes to the IR as lowered.
//!
//! It prints the seed and the count first, so a failure replays exactly:
//! `DIFFTEST_SEED=0x... cargo test -p datalove-difftest --test passes`
//! (`DIFFTEST_PASSES_COUNT=N` sets the count).

use std::io::Write;

use datalove_difftest::driver::{clock_seed, parse_seed, run_seeds, Limit};
use datalove_difftest::gen::Config;
use datalove_difftest::program::TestProgram;
use datalove_difftest::riders::prepare;
use datalove_difftest::run::{InProcess, Outcome, Runner};
use datalove_front::IrPasses;

/// Programs per run: each compiles twice and runs twice in process, no executables.
const DEFAULT_COUNT: u64 = 150;

/// The interpreter twice: `interp` on the passes' output, `interp-unoptimized` on the IR
/// as lowered.
struct WithAndWithout {
    with: InProcess,
    without: InProcess,
}

impl Runner for WithAndWithout {
    fn backends(&self) -> Vec<&'static str> {
        vec!["interp", "interp-unoptimized"]
    }

    fn run(&self, program: &TestProgram, backend: &str) -> Outcome {
        match backend {
            "interp" => self.with.run(program, "interp"),
            _ => self.without.run(program, "interp"),
        }
    }
}

fn env_number(name: &str) -> Option<u64> {
    parse_seed(&std::env::var(name).ok()?).ok()
}

#[test]
fn generated_programs_end_alike_with_and_without_the_ir_passes() {
    if datalove_toolchain::unavailable_without_c_compiler(
        "the IR passes' differential test (the C rider cprobe)",
    ) {
        return;
    }
    let prepared = prepare().expect("the CLI and the riders build");
    let interp = |passes| InProcess {
        riders: datalove::RiderPath::new(std::slice::from_ref(&prepared.riders_dir)),
        backends: vec!["interp"],
        passes,
    };
    let runner = WithAndWithout {
        with: interp(IrPasses::All),
        without: interp(IrPasses::None),
    };
    let seed = env_number("DIFFTEST_SEED").unwrap_or_else(clock_seed);
    let count = env_number("DIFFTEST_PASSES_COUNT").unwrap_or(DEFAULT_COUNT);
    // Straight to stderr, past the test harness's capture: a run that dies (killed for
    // its memory, say) still names its seed.
    let _ = writeln!(
        std::io::stderr(),
        "passes: {count} generated programs from seed {seed:#x}, with and without the IR passes (replay: DIFFTEST_SEED={seed:#x} cargo test -p datalove-difftest --test passes)"
    );
    // In process, so no native that crashes (it would end the test).
    let config = Config {
        crashes: false,
        ..Config::default()
    };
    let tally = run_seeds(&runner, &config, seed, Limit::Count(count), 2, &|_| {});
    println!("passes: {}", tally.summary());
    let findings: Vec<String> = tally
        .findings
        .iter()
        .map(|(seed, program, finding)| {
            format!(
                "seed {seed:#x}:\n{finding}\n--- program\n{}",
                program.script
            )
        })
        .collect();
    assert!(findings.is_empty(), "{}", findings.join("\n\n"));
}
