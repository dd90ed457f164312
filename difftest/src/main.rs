//! `difftest`: long runs of generated programs on every backend, and the tools around a
//! finding: show a seed's program, check a program, reduce it into a conformance case.
//!
//! ```text
//! difftest run --minutes 30                 # fresh seeds until then, 2 jobs
//! difftest run --seed 0x1234 --count 500    # a fixed batch, replayable
//! difftest show --seed 0x1234               # the program of a seed (case format)
//! difftest check FILE                       # a program or case on every backend
//! difftest reduce --seed 0x1234             # shrink a finding, write it as a case
//! difftest reduce FILE                      # the same for a program or case file
//! ```
//!
//! Findings are reduced and written to `conformance/cases/diff_<seed>.dfs` (or the
//! directory `--cases` names) unless `--no-reduce`; the unreduced program goes to
//! `<target>/difftest/<profile>/findings/` either way.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};

use datalove_difftest::case::{write_case, Provenance};
use datalove_difftest::driver::{clock_seed, parse_seed, program_of, run_seeds, Limit};
use datalove_difftest::fuzz::{seed_corpus, Target};
use datalove_difftest::gen::Config;
use datalove_difftest::program::TestProgram;
use datalove_difftest::reduce::reduce;
use datalove_difftest::riders::{data_dir, prepare, repo_root};
use datalove_difftest::run::{check, Check, Cli, Finding};

#[derive(Parser)]
#[command(
    name = "difftest",
    about = "Differential testing of the datalove backends"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate programs and check each on every backend.
    Run {
        /// The first seed (default: from the clock); program i is seed + i.
        #[arg(long, value_parser = parse_seed)]
        seed: Option<u64>,
        /// How many programs.
        #[arg(long, conflicts_with = "minutes")]
        count: Option<u64>,
        /// For how long.
        #[arg(long)]
        minutes: Option<f64>,
        /// Programs checked at once.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// Where reduced findings are written as cases.
        #[arg(long)]
        cases: Option<PathBuf>,
        /// Keep findings unreduced (in <target>/difftest/<profile>/findings only).
        #[arg(long)]
        no_reduce: bool,
        /// Only these backends (comma-separated), e.g. `interp,jit` for a quick run.
        #[arg(long, value_delimiter = ',')]
        backends: Vec<String>,
    },
    /// Build the CLI and the riders, and print where they are.
    Prepare,
    /// Write each fuzz target's seed corpus into DIR/<target>/ (default fuzz/corpus).
    SeedCorpus { dir: Option<PathBuf> },
    /// Print the program of a seed, in the conformance case format.
    Show {
        #[arg(long, value_parser = parse_seed)]
        seed: u64,
    },
    /// Check a program file (a script, or a case with embedded modules).
    Check { file: PathBuf },
    /// Reduce a finding and write it as a conformance case.
    Reduce {
        #[arg(long, value_parser = parse_seed)]
        seed: Option<u64>,
        file: Option<PathBuf>,
        #[arg(long)]
        cases: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let prepared = match prepare() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("difftest: {e}");
            return ExitCode::from(2);
        }
    };
    let runner = Cli::with_host_cli(
        prepared.datalove.clone(),
        prepared.riders_dir.clone(),
        prepared.work_dir.clone(),
        prepared.host_cli.clone(),
    );
    let config = Config::default();
    let default_cases = repo_root().join("conformance/cases");
    match args.command {
        Command::Prepare => {
            println!("datalove: {}", prepared.datalove.display());
            println!("riders: {}", prepared.riders_dir.display());
            ExitCode::SUCCESS
        }
        Command::SeedCorpus { dir } => {
            let dir = dir.unwrap_or_else(|| repo_root().join("fuzz/corpus"));
            for target in Target::ALL {
                let target_dir = dir.join(target.name());
                let _ = std::fs::create_dir_all(&target_dir);
                let seeds = seed_corpus(target);
                for (name, bytes) in &seeds {
                    let _ = std::fs::write(target_dir.join(name), bytes);
                }
                println!(
                    "{}: {} inputs in {}",
                    target.name(),
                    seeds.len(),
                    target_dir.display()
                );
            }
            ExitCode::SUCCESS
        }
        Command::Show { seed } => {
            let program = program_of(seed, &config);
            print!(
                "{}",
                program.to_case(&format!("difftest seed {seed:#x}"), &ok(), &[])
            );
            ExitCode::SUCCESS
        }
        Command::Check { file } => {
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("difftest: {}: {e}", file.display());
                    return ExitCode::from(2);
                }
            };
            match check(&runner, &TestProgram::from_case(&text), None) {
                Check::Agree(o) => {
                    println!(
                        "every backend ({}) agrees:\n{o}",
                        runner.backends.join(", ")
                    );
                    ExitCode::SUCCESS
                }
                Check::Found(f) => {
                    println!("{f}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Reduce { seed, file, cases } => {
            let (program, source, name) = match (seed, file) {
                (Some(seed), None) => (
                    program_of(seed, &config),
                    format!("seed {seed:#x}"),
                    format!("diff_{seed:x}"),
                ),
                (None, Some(file)) => {
                    let text = std::fs::read_to_string(&file).unwrap_or_default();
                    let stem = file
                        .file_stem()
                        .map_or("program".into(), |s| s.to_string_lossy().into_owned());
                    (
                        TestProgram::from_case(&text),
                        format!("file {}", file.display()),
                        format!("diff_{}", sanitize(&stem)),
                    )
                }
                _ => {
                    eprintln!("difftest: reduce takes --seed or a file");
                    return ExitCode::from(2);
                }
            };
            match check(&runner, &program, None) {
                Check::Agree(_) => {
                    println!("no finding: every backend agrees");
                    ExitCode::SUCCESS
                }
                Check::Found(f) => {
                    let dir = cases.unwrap_or(default_cases);
                    keep(&runner, &program, &f, &source, &name, &dir);
                    ExitCode::from(1)
                }
            }
        }
        Command::Run {
            seed,
            count,
            minutes,
            jobs,
            cases,
            no_reduce,
            backends,
        } => {
            let mut runner = runner;
            if !backends.is_empty() {
                runner.backends.retain(|b| backends.iter().any(|x| x == b));
            }
            let first = seed.unwrap_or_else(clock_seed);
            let limit = match (count, minutes) {
                (Some(n), _) => Limit::Count(n),
                (None, Some(m)) => Limit::Until(Instant::now() + Duration::from_secs_f64(m * 60.0)),
                (None, None) => Limit::Count(100),
            };
            println!(
                "difftest: seeds from {first:#x} on {} ({} jobs)",
                runner.backends.join(", "),
                jobs
            );
            // (when the last summary was printed, findings already named)
            let last_report = std::sync::Mutex::new((Instant::now(), 0));
            let tally = run_seeds(&runner, &config, first, limit, jobs, &|t| {
                let mut last = last_report.lock().unwrap_or_else(|e| e.into_inner());
                for (seed, _, finding) in &t.findings[last.1..] {
                    let kind = finding.signature();
                    println!("difftest: finding at seed {seed:#x} ({kind})");
                }
                last.1 = t.findings.len();
                if last.0.elapsed() >= Duration::from_secs(60) {
                    last.0 = Instant::now();
                    println!("difftest: {}", t.summary());
                }
            });
            println!("difftest: {}", tally.summary());
            let findings_dir = data_dir().join("findings");
            let _ = std::fs::create_dir_all(&findings_dir);
            // One reduction per kind of finding: the same bug tends to show many times.
            let mut reduced_kinds = std::collections::BTreeSet::new();
            for (seed, program, finding) in &tally.findings {
                println!("\n== seed {seed:#x}: {finding}");
                let raw = findings_dir.join(format!("seed_{seed:x}.dfs"));
                let _ = std::fs::write(
                    &raw,
                    program.to_case(&format!("difftest seed {seed:#x}"), &ok(), &[]),
                );
                println!("(the program: {})", raw.display());
                if !no_reduce && reduced_kinds.insert(finding.signature()) {
                    let dir = cases.clone().unwrap_or_else(|| default_cases.clone());
                    keep(
                        &runner,
                        program,
                        finding,
                        &format!("seed {seed:#x}"),
                        &format!("diff_{seed:x}"),
                        &dir,
                    );
                }
            }
            if tally.findings.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Reduces a finding and writes it as a case.
fn keep(
    runner: &Cli,
    program: &TestProgram,
    finding: &Finding,
    source: &str,
    name: &str,
    dir: &std::path::Path,
) {
    println!("difftest: reducing ({} lines) ...", program.lines());
    let (reduced, stats) = reduce(runner, program, finding);
    // The reduced program's own finding, as the case will show it.
    let finding = match check(runner, &reduced, None) {
        Check::Found(f) => f,
        Check::Agree(_) => finding.clone(),
    };
    let provenance = Provenance {
        source: source.to_string(),
        lines_before: stats.lines_before,
        lines_after: stats.lines_after,
    };
    match write_case(dir, name, &reduced, &finding, &provenance) {
        Ok(path) => println!(
            "difftest: reduced {} -> {} lines in {} candidates; written to {}\n{finding}",
            stats.lines_before,
            stats.lines_after,
            stats.candidates,
            path.display()
        ),
        Err(e) => eprintln!("difftest: cannot write the case: {e}"),
    }
}

fn ok() -> datalove_difftest::run::Outcome {
    datalove_difftest::run::Outcome {
        code: Some(0),
        stdout: Vec::new(),
        stderr_lines: Vec::new(),
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}
