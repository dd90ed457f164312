//! Running many generated programs: seeds handed out to worker threads, each program
//! checked on every backend, a tally of how they ended and what was found. The smoke
//! test and the `difftest run` command both drive this.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::gen::{generate, Config};
use crate::program::TestProgram;
use crate::rng::Rng;
use crate::run::{check, Check, Finding, Runner};

/// A seed from the clock, for a run nobody asked to repeat.
pub fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (std::process::id() as u64).rotate_left(32)
}

/// A seed written in decimal or `0x` hex.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    }
    .map_err(|e| format!("a seed is a decimal or 0x hex number: {e}"))
}

/// The program of `seed`.
pub fn program_of(seed: u64, config: &Config) -> TestProgram {
    generate(&mut Rng::seeded(seed), config)
}

/// How a batch of programs went.
#[derive(Debug, Default)]
pub struct Tally {
    pub programs: u64,
    /// Lines of script generated.
    pub lines: u64,
    /// Programs every backend ran alike, by how they ended (`ok`, `error:overflow`, ...).
    pub endings: BTreeMap<String, u64>,
    /// `(seed, program, finding)`.
    pub findings: Vec<(u64, TestProgram, Finding)>,
    pub elapsed: Duration,
}

impl Tally {
    /// One line: programs, lines, endings, findings.
    pub fn summary(&self) -> String {
        let endings: Vec<String> = self
            .endings
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        format!(
            "{} programs ({} lines) in {:.0} s; endings: {}; findings: {}",
            self.programs,
            self.lines,
            self.elapsed.as_secs_f64(),
            endings.join(", "),
            self.findings.len()
        )
    }
}

/// One line of `DIFFTEST_TRACE`: straight to stderr, past libtest's capture, so a run
/// that hangs or dies names the program it was running (a `start` with no `end`).
fn trace_line(what: &str, seed: u64, since: Instant) {
    use std::io::Write;
    let at = since.elapsed().as_secs_f64();
    let _ = writeln!(std::io::stderr(), "difftest: {what} {seed:#x} at {at:.3} s");
}

/// When to stop.
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    Count(u64),
    Until(Instant),
}

/// Checks the programs of seeds `first`, `first + 1`, ... on `jobs` threads until
/// `limit`; `progress` is called after each program with the tally so far.
pub fn run_seeds(
    runner: &dyn Runner,
    config: &Config,
    first: u64,
    limit: Limit,
    jobs: usize,
    progress: &(dyn Fn(&Tally) + Sync),
) -> Tally {
    let next = AtomicU64::new(0);
    let start = Instant::now();
    let trace = std::env::var_os("DIFFTEST_TRACE").is_some();
    let tally = Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let done = match limit {
                    Limit::Count(n) => i >= n,
                    Limit::Until(t) => Instant::now() >= t,
                };
                if done {
                    break;
                }
                let seed = first.wrapping_add(i);
                let program = program_of(seed, config);
                if trace {
                    trace_line("start", seed, start);
                }
                let result = check(runner, &program, None);
                if trace {
                    trace_line("end", seed, start);
                }
                let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
                t.programs += 1;
                t.lines += program.lines() as u64;
                match result {
                    Check::Agree(o) => *t.endings.entry(o.class()).or_default() += 1,
                    Check::Found(f) => t.findings.push((seed, program, f)),
                }
                t.elapsed = start.elapsed();
                progress(&t);
            });
        }
    });
    let mut t = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    t.elapsed = start.elapsed();
    t.findings.sort_by_key(|(seed, _, _)| *seed);
    t
}
