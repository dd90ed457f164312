//! One harness run: for each benchmark, every version is built and its output checked
//! at the check size first; then the versions run round after round in alternation
//! (each round starts at a different version, so drift lands on all alike), and each
//! round's time is divided by the reference's time in the same round (C's, or Rust
//! std's for the collection programs, which are also timed at a tenth of their size
//! for their growth). Then the other figures:
//! native calls, compile-time growth, start to first output. In callgrind mode every
//! version is counted once instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::generate::{self, Generated};
use crate::measure::{self, CommandLine, Sample};
use crate::platform::Platform;
use crate::programs::Benchmark;
use crate::progress::Progress;
use crate::record::{
    BenchRecord, GrowthRecord, GrowthStage, Mode, NativeCallRecord, Record, Spread, StartupRecord,
    Status, VersionRecord, FORMAT,
};
use crate::versions::Version;

/// One run may take this long before it is killed (and its version failed).
const RUN_TIMEOUT: Duration = Duration::from_secs(1200);

/// What to run.
#[derive(Clone, Debug)]
pub struct Settings {
    pub rounds: usize,
    pub benchmarks: Vec<&'static Benchmark>,
    pub versions: Vec<Version>,
    /// Sizes other than each benchmark's default (`--size NAME=N`).
    pub sizes: BTreeMap<String, u64>,
    pub mode: Mode,
    /// Also measure compile-time growth and start to first output.
    pub extras: bool,
}

/// The size `benchmark` runs at under `settings`.
pub fn size_of(settings: &Settings, benchmark: &Benchmark) -> u64 {
    settings
        .sizes
        .get(benchmark.name)
        .copied()
        .unwrap_or(match settings.mode {
            Mode::Time => benchmark.run_size,
            Mode::Callgrind => benchmark.callgrind_size,
        })
}

/// Text for an output in a message: its lines, escaped, shortened.
fn shown_output(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut shown = format!("{:?}", text.as_ref());
    if shown.len() > 120 {
        shown.truncate(117);
        shown.push_str("...");
    }
    shown
}

/// Runs every benchmark of `settings` on `platform`.
pub fn run(settings: &Settings, platform: &Platform, progress: &mut Progress) -> Record {
    let start = Instant::now();
    progress.add(estimate_steps(settings));
    let rider = if settings.benchmarks.iter().any(|b| b.is_native_call()) {
        platform.build_bench_rider()
    } else {
        Ok(())
    };
    let valgrind = match settings.mode {
        Mode::Callgrind => callgrind_available(platform),
        Mode::Time => Ok(()),
    };
    let mut benchmarks = Vec::new();
    for benchmark in &settings.benchmarks {
        let size = size_of(settings, benchmark);
        let mut records = prepare(settings, platform, benchmark, &rider, progress);
        if let Err(why) = &valgrind {
            for r in records.iter_mut().filter(|r| r.status.is_ok()) {
                r.status = Status::Unavailable(why.clone());
            }
        }
        let mut tenth = None;
        match settings.mode {
            Mode::Time => {
                if let Some(small) = growth_size(benchmark, size) {
                    // The same versions (as built and checked) at a tenth of the size,
                    // rounds of their own, before the rounds at the size.
                    let mut small_records = records.clone();
                    time_rounds(
                        settings,
                        platform,
                        benchmark,
                        small,
                        &mut small_records,
                        progress,
                    );
                    tenth = Some(Box::new(BenchRecord {
                        name: benchmark.name.to_string(),
                        size: small,
                        reference: benchmark.reference(),
                        versions: small_records,
                        tenth: None,
                    }));
                }
                time_rounds(settings, platform, benchmark, size, &mut records, progress)
            }
            Mode::Callgrind => count(platform, benchmark, size, &mut records, progress),
        }
        benchmarks.push(BenchRecord {
            name: benchmark.name.to_string(),
            size,
            reference: benchmark.reference(),
            versions: records,
            tenth,
        });
    }
    let native_calls = benchmarks
        .iter()
        .zip(&settings.benchmarks)
        .find(|(_, b)| b.is_native_call())
        .and_then(|(record, _)| native_call_figure(record));
    let (compile_growth, startup) = if settings.extras && settings.mode == Mode::Time {
        let work = platform.work_dir.join("generated");
        let base = generate::generate(generate::BASE_FUNCTIONS);
        let large = generate::generate(generate::BASE_FUNCTIONS * 10);
        match write_generated(&work, &[("base", &base), ("large", &large)]) {
            Ok(()) => (
                Some(compile_growth(
                    settings, platform, &work, &base, &large, progress,
                )),
                Some(startup(settings, platform, &work, &base, progress)),
            ),
            Err(e) => {
                eprintln!("warning: cannot write the generated programs: {e}");
                (None, None)
            }
        }
    } else {
        (None, None)
    };
    progress.finish();
    Record {
        format: FORMAT,
        date: utc_now(),
        commit: commit(),
        machine: machine(),
        platform: platform.name(),
        emulated: platform.emulated,
        mode: settings.mode,
        rounds: settings.rounds,
        tools: platform.tools(),
        benchmarks,
        native_calls,
        compile_growth,
        startup,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// The size a benchmark that measures its growth is also timed at, a tenth of `size`
/// (none below 10).
pub fn growth_size(benchmark: &Benchmark, size: u64) -> Option<u64> {
    (benchmark.measures_growth() && size >= 10).then_some(size / 10)
}

fn estimate_steps(settings: &Settings) -> usize {
    let per_bench: usize = settings
        .benchmarks
        .iter()
        .map(|b| {
            let versions = settings.versions.iter().filter(|v| v.applies_to(b)).count();
            let runs = match settings.mode {
                Mode::Time if b.measures_growth() => settings.rounds * 4,
                Mode::Time => settings.rounds * 2,
                Mode::Callgrind => 2,
            };
            versions * (2 + runs)
        })
        .sum();
    let extras = if settings.extras && settings.mode == Mode::Time {
        settings.rounds * 12 + 3 + settings.rounds * settings.versions.len()
    } else {
        0
    };
    per_bench + extras
}

/// The records of `benchmark`'s versions after building them and checking their output
/// at the check size: `Ok` for those that can be timed.
fn prepare(
    settings: &Settings,
    platform: &Platform,
    benchmark: &Benchmark,
    rider: &Result<(), String>,
    progress: &mut Progress,
) -> Vec<VersionRecord> {
    let mut records: Vec<VersionRecord> = settings
        .versions
        .iter()
        .filter(|v| v.applies_to(benchmark))
        .map(|&v| {
            let status = match (platform.unavailable(v), rider) {
                (Some(why), _) => Status::Unavailable(why),
                (None, Err(e)) if benchmark.is_native_call() => {
                    Status::Failed(format!("building the bench rider: {e}"))
                }
                _ => Status::Ok,
            };
            VersionRecord::new(v, status)
        })
        .collect();
    for record in &mut records {
        let v = record.version;
        progress.show(benchmark.name, &format!("building {}", v.label()));
        if record.status.is_ok() {
            match platform.prepare(benchmark, v) {
                Ok(Some(build)) => {
                    record.compile_ms = Some(
                        build
                            .phases
                            .map(|p| p.before_run_ms())
                            .unwrap_or_else(|| build.wall_ms()),
                    )
                }
                Ok(None) => {}
                Err(e) => record.status = Status::Failed(e),
            }
        }
        progress.step();
        progress.show(benchmark.name, &format!("checking {}", v.label()));
        if record.status.is_ok() {
            record.status = check(platform, benchmark, v);
        }
        progress.step();
    }
    records
}

/// Runs `version` at the check size and compares its output with the known one.
fn check(platform: &Platform, benchmark: &Benchmark, version: Version) -> Status {
    let command = match platform.run_command(benchmark, version, benchmark.check_size) {
        Ok(c) => c,
        Err(e) => return Status::Unavailable(e),
    };
    match measure::run(&command, None, RUN_TIMEOUT) {
        Err(e) => Status::Failed(e),
        Ok(sample) => match sample.failure() {
            Some(why) => Status::Failed(format!("at size {}: {why}", benchmark.check_size)),
            None if sample.stdout != benchmark.check_output.as_bytes() => {
                Status::WrongOutput(format!(
                    "at size {} printed {} where {} was expected",
                    benchmark.check_size,
                    shown_output(&sample.stdout),
                    shown_output(benchmark.check_output.as_bytes())
                ))
            }
            None => Status::Ok,
        },
    }
}

/// The timed rounds. In each round every version runs at `size` and at the empty size;
/// its figure is the CPU time of the first less that of the second: the work itself,
/// net of process start, compilation and set-up, and not inflated by other load on the
/// machine the way wall time is. Each round's figure is divided by the benchmark's
/// reference's (C's, or Rust std's) in the same round.
// Rounds index the per-version tables (`times[version][round]`), which stay aligned by
// round so that a round's ratio divides two figures from that round.
#[allow(clippy::needless_range_loop)]
fn time_rounds(
    settings: &Settings,
    platform: &Platform,
    benchmark: &Benchmark,
    size: u64,
    records: &mut [VersionRecord],
    progress: &mut Progress,
) {
    let rounds = settings.rounds;
    let n = records.len();
    let mut times: Vec<Vec<Option<f64>>> = vec![vec![None; rounds]; n];
    let mut before_run: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut outputs: Vec<Option<Vec<u8>>> = vec![None; n];
    for round in 0..rounds {
        let ok: Vec<usize> = (0..n).filter(|&i| records[i].status.is_ok()).collect();
        if ok.is_empty() {
            break;
        }
        let shift = round % ok.len();
        let order: Vec<usize> = ok[shift..].iter().chain(&ok[..shift]).copied().collect();
        for i in order {
            let v = records[i].version;
            progress.show(
                benchmark.name,
                &format!("round {}/{rounds} {}", round + 1, v.label()),
            );
            let mut samples = Vec::new();
            for run_size in [size, benchmark.empty_size] {
                let sample = platform
                    .run_command(benchmark, v, run_size)
                    .and_then(|c| measure::run(&c, None, RUN_TIMEOUT))
                    .and_then(|s| match s.failure() {
                        Some(why) => Err(format!("at size {run_size}: {why}")),
                        None => Ok(s),
                    });
                progress.step();
                match sample {
                    Ok(s) => samples.push(s),
                    Err(e) => {
                        records[i].status = Status::Failed(e);
                        break;
                    }
                }
            }
            let [full, empty] = &samples[..] else {
                continue;
            };
            match &outputs[i] {
                None => outputs[i] = Some(full.stdout.clone()),
                Some(first) if *first != full.stdout => {
                    records[i].status = Status::WrongOutput(format!(
                        "at size {size} printed {} in one round and {} in another",
                        shown_output(first),
                        shown_output(&full.stdout)
                    ))
                }
                Some(_) => {}
            }
            times[i][round] = Some((full.cpu_ms() - empty.cpu_ms()).max(0.0));
            records[i].wall_ms.push(full.wall_ms());
            records[i].empty_ms.push(empty.cpu_ms());
            if let (true, Some(p)) = (v.compiles_in_process(), full.phases) {
                before_run[i].push(p.before_run_ms());
            }
        }
    }
    // Every version must print what the reference printed at this size (or, without
    // it, what most versions printed).
    let base = benchmark.reference();
    let reference = reference_output(records, &outputs, base);
    for i in 0..n {
        if let (Some(reference), Some(out), true) =
            (&reference, &outputs[i], records[i].status.is_ok())
        {
            if out != reference {
                records[i].status = Status::WrongOutput(format!(
                    "at size {size} printed {} where the others printed {}",
                    shown_output(out),
                    shown_output(reference)
                ));
            }
        }
    }
    let c_index = records.iter().position(|r| r.version == base);
    for i in 0..n {
        let record = &mut records[i];
        record.times_ms = times[i].iter().flatten().copied().collect();
        record.time = Spread::of(&record.times_ms);
        if record.version.compiles_in_process() {
            record.compile_ms = Spread::of(&before_run[i]).map(|s| s.median);
        }
    }
    if let Some(c) = c_index.filter(|&c| records[c].status.is_ok()) {
        for i in 0..n {
            if !records[i].status.is_ok() {
                continue;
            }
            let ratios: Vec<f64> = (0..rounds)
                .filter_map(|r| match (times[i][r], times[c][r]) {
                    (Some(t), Some(tc)) if tc > 0.0 => Some(t / tc),
                    _ => None,
                })
                .collect();
            records[i].ratio = Spread::of(&ratios);
            records[i].ratios = ratios;
        }
    }
}

/// The output of `base` (the benchmark's reference) if it ran, else the output most
/// versions agree on.
fn reference_output(
    records: &[VersionRecord],
    outputs: &[Option<Vec<u8>>],
    base: Version,
) -> Option<Vec<u8>> {
    if let Some(c) = records
        .iter()
        .position(|r| r.version == base && r.status.is_ok())
    {
        if let Some(out) = &outputs[c] {
            return Some(out.clone());
        }
    }
    let mut counts: BTreeMap<&Vec<u8>, usize> = BTreeMap::new();
    for out in outputs.iter().flatten() {
        *counts.entry(out).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(out, _)| out.clone())
}

/// Whether valgrind can count here.
fn callgrind_available(platform: &Platform) -> Result<(), String> {
    if platform.emulated {
        return Err("callgrind counts on this machine only, not under qemu".to_string());
    }
    match std::process::Command::new("valgrind")
        .arg("--version")
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err("valgrind is not installed (apt install valgrind)".to_string()),
    }
}

/// Instructions `command` executes under callgrind, and its run.
fn callgrind(command: &CommandLine, out_file: &Path) -> Result<(u64, Sample), String> {
    // Children are followed (a launcher that execs the real interpreter is counted
    // whole); each process reports its own count, and they are summed.
    let wrapped = CommandLine::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--trace-children=yes")
        .arg(format!("--callgrind-out-file={}.%p", out_file.display()))
        .arg(&command.program)
        .args(command.args.iter().cloned());
    let wrapped = CommandLine {
        env: command.env.clone(),
        ..wrapped
    };
    let sample = measure::run(&wrapped, None, RUN_TIMEOUT * 4)?;
    remove_callgrind_files(out_file);
    if let Some(why) = sample.failure() {
        return Err(why);
    }
    // `==1234== Collected : 123456789`, once per process.
    let counts: Vec<u64> = sample
        .stderr
        .lines()
        .filter_map(|l| l.split_once("Collected :"))
        .filter_map(|(_, n)| n.trim().parse::<u64>().ok())
        .collect();
    if counts.is_empty() {
        return Err("callgrind reported no instruction count".to_string());
    }
    Ok((counts.iter().sum(), sample))
}

/// Removes the `<out_file>.<pid>` files callgrind wrote.
fn remove_callgrind_files(out_file: &Path) {
    let (Some(dir), Some(name)) = (out_file.parent(), out_file.file_name()) else {
        return;
    };
    let prefix = format!("{}.", name.to_string_lossy());
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Callgrind mode: each version counted once at `size` and once at the empty size.
fn count(
    platform: &Platform,
    benchmark: &Benchmark,
    size: u64,
    records: &mut [VersionRecord],
    progress: &mut Progress,
) {
    let out_file = platform.work_dir.join("callgrind.out");
    let mut outputs: Vec<Option<Vec<u8>>> = vec![None; records.len()];
    for (i, record) in records.iter_mut().enumerate() {
        let v = record.version;
        let mut counts = Vec::new();
        for run_size in [size, benchmark.empty_size] {
            progress.show(
                benchmark.name,
                &format!("callgrind {} at {run_size}", v.label()),
            );
            if record.status.is_ok() {
                match platform
                    .run_command(benchmark, v, run_size)
                    .and_then(|c| callgrind(&c, &out_file))
                {
                    Ok((n, sample)) => {
                        if run_size == size {
                            outputs[i] = Some(sample.stdout);
                        }
                        counts.push(n);
                    }
                    Err(e) => record.status = Status::Failed(format!("at size {run_size}: {e}")),
                }
            }
            progress.step();
        }
        if let [full, empty] = counts[..] {
            record.instructions = Some(full.saturating_sub(empty));
        }
    }
    let base = benchmark.reference();
    let reference = reference_output(records, &outputs, base);
    for (i, record) in records.iter_mut().enumerate() {
        if let (Some(r), Some(o), true) = (&reference, &outputs[i], record.status.is_ok()) {
            if o != r {
                record.status = Status::WrongOutput(format!(
                    "at size {size} printed {} where the others printed {}",
                    shown_output(o),
                    shown_output(r)
                ));
            }
        }
    }
    let c = records
        .iter()
        .find(|r| r.version == base && r.status.is_ok())
        .and_then(|r| r.instructions);
    for record in records.iter_mut().filter(|r| r.status.is_ok()) {
        if let (Some(n), Some(c)) = (record.instructions, c) {
            if c > 0 {
                record.instructions_ratio = Some(n as f64 / c as f64);
            }
        }
    }
}

/// ns per native call: the noop benchmark's per-round figure (already net of start-up,
/// see [`time_rounds`]) over the number of calls, median.
fn native_call_figure(record: &BenchRecord) -> Option<NativeCallRecord> {
    let calls = record.size;
    if calls == 0 {
        return None;
    }
    let per_call =
        |r: &VersionRecord| -> Option<f64> { r.time.map(|t| t.median * 1e6 / calls as f64) };
    let c = record
        .version(Version::PeerC)
        .filter(|r| r.status.is_ok())
        .and_then(per_call);
    let versions: Vec<(Version, f64, Option<f64>)> = record
        .versions
        .iter()
        .filter(|r| r.status.is_ok())
        .filter_map(|r| {
            per_call(r).map(|ns| (r.version, ns, c.filter(|&c| c > 0.0).map(|c| ns / c)))
        })
        .collect();
    (!versions.is_empty()).then_some(NativeCallRecord { calls, versions })
}

fn write_generated(dir: &Path, programs: &[(&str, &Generated)]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, g) in programs {
        for (ext, text) in [("dfs", &g.dfs), ("c", &g.c), ("lua", &g.lua), ("py", &g.py)] {
            let path = dir.join(format!("{name}.{ext}"));
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// A compile-time stage: what it runs and how its time is read from the sample.
#[derive(Clone, Copy, Debug)]
enum Stage {
    Check,
    Run(Version),
    Build(Version),
    PeerC,
}

impl Stage {
    fn name(self) -> String {
        match self {
            Stage::Check => "check".to_string(),
            Stage::Run(v) | Stage::Build(v) => v.label().to_string(),
            Stage::PeerC => Version::PeerC.label().to_string(),
        }
    }

    fn command(
        self,
        platform: &Platform,
        source: &Path,
        out: &Path,
    ) -> Result<CommandLine, String> {
        let exec = || platform.exec_command();
        Ok(match self {
            Stage::Check => exec()?.arg("check").arg(source),
            Stage::Run(v) => exec()?.args(["run", "--backend", v.key()]).arg(source),
            Stage::Build(v) => exec()?
                .args(["build", "--backend", v.key()])
                .arg(source)
                .arg("-o")
                .arg(out),
            Stage::PeerC => {
                let cc = platform.cc.as_ref().map_err(Clone::clone)?;
                CommandLine::new(&cc.command)
                    .args(["-O2", "-ffp-contract=off", "-o"])
                    .arg(out)
                    .arg(source.with_extension("c"))
            }
        }
        .wrapped(if matches!(self, Stage::PeerC) {
            &[]
        } else {
            &platform.wrapper
        }))
    }

    /// Compile time: the phases before the run (datalove), or the compiler's wall time.
    fn compile_ms(self, sample: &Sample) -> Option<f64> {
        match self {
            Stage::PeerC => Some(sample.wall_ms()),
            _ => sample.phases.map(|p| p.before_run_ms()),
        }
    }

    fn version(self) -> Option<Version> {
        match self {
            Stage::Check => Some(Version::Interp),
            Stage::Run(v) | Stage::Build(v) => Some(v),
            Stage::PeerC => Some(Version::PeerC),
        }
    }
}

/// Compile time of the base and the large generated program, per stage.
fn compile_growth(
    settings: &Settings,
    platform: &Platform,
    work: &Path,
    base: &Generated,
    large: &Generated,
    progress: &mut Progress,
) -> GrowthRecord {
    let stages = [
        Stage::Check,
        Stage::Run(Version::Interp),
        Stage::Run(Version::Jit),
        Stage::Build(Version::Aot),
        Stage::Build(Version::C),
        Stage::PeerC,
    ];
    let mut jobs: Vec<(usize, &str)> = Vec::new();
    for i in 0..stages.len() {
        for which in ["base", "large"] {
            jobs.push((i, which));
        }
    }
    let mut times: BTreeMap<(usize, &str), Vec<f64>> = BTreeMap::new();
    let mut problems: BTreeMap<usize, String> = BTreeMap::new();
    for (i, stage) in stages.iter().enumerate() {
        if let Some(why) = stage.version().and_then(|v| platform.unavailable(v)) {
            problems.insert(i, format!("unavailable: {why}"));
        }
    }
    for round in 0..settings.rounds {
        let shift = (round * 2) % jobs.len();
        let order: Vec<(usize, &str)> = jobs[shift..]
            .iter()
            .chain(&jobs[..shift])
            .copied()
            .collect();
        for (i, which) in order {
            let stage = stages[i];
            progress.show(
                "compile time",
                &format!("round {} {} {which}", round + 1, stage.name()),
            );
            progress.step();
            if problems.contains_key(&i) {
                continue;
            }
            let source = work.join(format!("{which}.dfs"));
            let out = work.join(format!("{which}-{}", stage.name().replace([' ', '-'], "")));
            let sample = stage
                .command(platform, &source, &out)
                .and_then(|c| measure::run(&c, Some(work), RUN_TIMEOUT));
            match sample {
                Ok(s) => match (s.failure(), stage.compile_ms(&s)) {
                    (None, Some(ms)) => times.entry((i, which)).or_default().push(ms),
                    (Some(why), _) => {
                        problems.insert(i, why);
                    }
                    (None, None) => {
                        problems.insert(i, "no phases reported".to_string());
                    }
                },
                Err(e) => {
                    problems.insert(i, e);
                }
            }
        }
    }
    let stages = stages
        .iter()
        .enumerate()
        .map(|(i, stage)| {
            let spread = |which| times.get(&(i, which)).and_then(|t| Spread::of(t));
            let (b, l) = (spread("base"), spread("large"));
            GrowthStage {
                stage: stage.name(),
                base_ms: b,
                large_ms: l,
                growth: match (b, l) {
                    (Some(b), Some(l)) if b.median > 0.0 => Some(l.median / b.median),
                    _ => None,
                },
                problem: problems.get(&i).cloned(),
            }
        })
        .collect();
    GrowthRecord {
        base_lines: base.lines(),
        large_lines: large.lines(),
        stages,
    }
}

/// Start to first output of the base generated program, every version.
fn startup(
    settings: &Settings,
    platform: &Platform,
    work: &Path,
    base: &Generated,
    progress: &mut Progress,
) -> StartupRecord {
    let source = work.join("base.dfs");
    let expected = base.expected_output();
    // The generated program has no Rust version.
    let mut status: Vec<(Version, Status)> = settings
        .versions
        .iter()
        .filter(|&&v| v != Version::RustStd)
        .map(|&v| {
            (
                v,
                platform
                    .unavailable(v)
                    .map_or(Status::Ok, Status::Unavailable),
            )
        })
        .collect();
    let exe = |v: Version| work.join(format!("base-start-{}", v.key()));
    // Build the executables once; their start is what is timed.
    for (v, st) in status.iter_mut() {
        progress.show("start to first output", &format!("building {}", v.label()));
        progress.step();
        if !st.is_ok() {
            continue;
        }
        let built = match v {
            Version::Aot | Version::C => platform
                .build_datalove(&source, v.key(), &exe(*v))
                .map(|_| ()),
            Version::PeerC => platform
                .build_c(&source.with_extension("c"), &exe(*v), false)
                .map(|_| ()),
            _ => Ok(()),
        };
        if let Err(e) = built {
            *st = Status::Failed(e);
        }
    }
    let command = |v: Version| -> Result<CommandLine, String> {
        let interpreter = |v: Version| {
            platform
                .interpreters
                .get(&v)
                .and_then(|t| t.as_ref().ok())
                .map(|t| t.command.clone())
                .ok_or_else(|| "no interpreter".to_string())
        };
        Ok(match v {
            Version::Interp | Version::Jit => platform
                .exec_command()?
                .args(["run", "--backend", v.key()])
                .arg(&source)
                .wrapped(&platform.wrapper),
            Version::Aot | Version::C | Version::PeerC => {
                CommandLine::new(exe(v)).wrapped(&platform.wrapper)
            }
            Version::LuaJit | Version::Lua54 => {
                CommandLine::new(interpreter(v)?).arg(source.with_extension("lua"))
            }
            Version::LuaJitOff => CommandLine::new(interpreter(v)?)
                .arg("-joff")
                .arg(source.with_extension("lua")),
            Version::Python => CommandLine::new(interpreter(v)?).arg(source.with_extension("py")),
            Version::RustStd => return Err("no Rust version".to_string()),
        })
    };
    let mut firsts: Vec<Vec<f64>> = vec![Vec::new(); status.len()];
    for round in 0..settings.rounds {
        let ok: Vec<usize> = (0..status.len()).filter(|&i| status[i].1.is_ok()).collect();
        if ok.is_empty() {
            break;
        }
        let shift = round % ok.len();
        for &i in ok[shift..].iter().chain(&ok[..shift]) {
            let v = status[i].0;
            progress.show(
                "start to first output",
                &format!("round {} {}", round + 1, v.label()),
            );
            progress.step();
            match command(v).and_then(|c| measure::run(&c, Some(work), RUN_TIMEOUT)) {
                Err(e) => status[i].1 = Status::Failed(e),
                Ok(s) => match s.failure() {
                    Some(why) => status[i].1 = Status::Failed(why),
                    None if s.stdout != expected.as_bytes() => {
                        status[i].1 = Status::WrongOutput(format!(
                            "printed {} where {} was expected",
                            shown_output(&s.stdout),
                            shown_output(expected.as_bytes())
                        ))
                    }
                    None => {
                        if let Some(first) = s.first_output {
                            firsts[i].push(first.as_secs_f64() * 1000.0);
                        }
                    }
                },
            }
        }
    }
    StartupRecord {
        lines: base.lines(),
        versions: status
            .into_iter()
            .zip(firsts)
            .map(|((v, st), f)| {
                let spread = if st.is_ok() { Spread::of(&f) } else { None };
                (v, st, spread)
            })
            .collect(),
    }
}

/// The smoke mode: every benchmark built and checked at its check size on every version
/// this platform has (nothing timed). Unavailable versions are reported, not failed.
pub fn smoke(platform: &Platform, progress: &mut Progress) -> Vec<BenchRecord> {
    let settings = Settings {
        rounds: 0,
        benchmarks: crate::programs::BENCHMARKS.iter().collect(),
        versions: Version::ALL.to_vec(),
        sizes: BTreeMap::new(),
        mode: Mode::Time,
        extras: false,
    };
    progress.add(estimate_steps(&settings));
    let rider = platform.build_bench_rider();
    let records = settings
        .benchmarks
        .iter()
        .map(|b| BenchRecord {
            name: b.name.to_string(),
            size: b.check_size,
            reference: b.reference(),
            versions: prepare(&settings, platform, b, &rider, progress),
            tenth: None,
        })
        .collect();
    progress.finish();
    records
}

/// Now, in UTC: `YYYY-MM-DD HH:MM`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = ((secs / 86400) as i64, secs % 86400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The commit the tree is at, `+dirty` when it has changes; `unknown` outside git.
pub fn commit() -> String {
    let root = crate::programs::repo_root();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=10", "HEAD"]) {
        Some(hash) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{hash}+dirty")
            } else {
                hash
            }
        }
        None => "unknown".to_string(),
    }
}

/// The CPU model and how many cores.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {cores} cores")
}

/// `<target>/benches`: beside cargo's build output, found from this binary's path.
pub fn default_out_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir).join("benches");
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.ends_with("deps") {
        dir.pop();
    }
    // <target>/<profile> (or <target>/<triple>/<profile>)
    dir.pop();
    if dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().contains("-linux-"))
    {
        dir.pop();
    }
    dir.join("benches")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_is_well_formed() {
        let d = utc_now();
        assert_eq!(d.len(), 16, "{d}");
        assert!(d.starts_with("20"), "{d}");
    }

    #[test]
    fn the_reference_is_cs_output_else_the_majority() {
        let mut records = vec![
            VersionRecord::new(Version::Interp, Status::Ok),
            VersionRecord::new(Version::Jit, Status::Ok),
            VersionRecord::new(Version::PeerC, Status::Ok),
        ];
        let outputs = vec![
            Some(b"1".to_vec()),
            Some(b"1".to_vec()),
            Some(b"2".to_vec()),
        ];
        assert_eq!(
            reference_output(&records, &outputs, Version::PeerC),
            Some(b"2".to_vec())
        );
        // A benchmark whose reference did not run: the majority.
        assert_eq!(
            reference_output(&records, &outputs, Version::RustStd),
            Some(b"1".to_vec())
        );
        records[2].status = Status::Unavailable("no cc".into());
        assert_eq!(
            reference_output(&records, &outputs, Version::PeerC),
            Some(b"1".to_vec())
        );
    }
}
