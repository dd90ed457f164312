//! The benchmark harness: datalove's four backends against C -O2, Rust std, LuaJIT (and
//! its interpreter alone), Lua 5.4 and Python 3, on the same programs, in ONE run.
//!
//! `cargo run --release -p datalove-benches -- run` checks every version's output at a
//! size whose output is known, then runs the versions round after round in alternation
//! and reports each one's time over its reference's time in the same round (C's, or
//! Rust std's for the collection programs, which are also timed at a tenth of their
//! size for their growth; these machines are shared and noisy: absolute times do not
//! carry, ratios in one run do), with medians, ranges and how noisy the run was; then
//! native-call cost, compile-time growth and start to first output. It writes `target/benches/report.md`, an SVG chart and a JSON
//! history entry (`compare` lines up two runs). `--callgrind` counts instructions
//! instead, which do not drift with load; `--target aarch64-unknown-linux-gnu` runs
//! under qemu and marks every figure emulated; `smoke` runs every program at its check
//! size on every backend, output checked and nothing timed (it runs in `cargo test`).
//! A missing tool makes its version unavailable, never failed. `docs/benchmarks.md`
//! says how to run it and read it.
//!
//! The modules, in the order a run uses them: [`programs`] (the benchmarks and their
//! sizes), [`versions`], [`platform`] (tools, builds, commands), [`measure`] (one timed
//! process), [`exec`] (the datalove runner inside this binary), [`suite`] (checks,
//! rounds, the other figures), [`generate`] (the generated program), [`record`] (what
//! a run found), [`report`], [`chart`], [`history`], [`progress`].

pub mod chart;
pub mod exec;
pub mod generate;
pub mod history;
pub mod measure;
pub mod platform;
pub mod programs;
pub mod progress;
pub mod record;
pub mod report;
pub mod suite;
pub mod versions;
