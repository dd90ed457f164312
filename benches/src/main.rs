//! `datalove-benches`: the benchmark harness's command line (see the crate docs and
//! `docs/benchmarks.md`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use datalove_benches::exec::{self, ExecMode, Search};
use datalove_benches::platform::Platform;
use datalove_benches::progress::Progress;
use datalove_benches::record::{Mode, Status};
use datalove_benches::suite::{self, Settings};
use datalove_benches::versions::{self, Version};
use datalove_benches::{chart, history, programs, report};

#[derive(Parser)]
#[command(
    name = "datalove-benches",
    about = "datalove's backends against C, Rust std, LuaJIT, Lua 5.4 and Python, in one run"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check every version's output, time them round by round, write the report.
    Run(RunArgs),
    /// Every program at its check size on every backend and available peer, output
    /// checked, nothing timed.
    Smoke {
        /// Where builds go (default: target/benches).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write the report and chart of a run again from its history file or commit prefix
    /// (default: the latest run).
    Report {
        which: Option<String>,
        /// The directory holding history/ (default: target/benches).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Compare two runs: history files or commit prefixes (default: the two newest).
    Compare {
        before: Option<String>,
        after: Option<String>,
        /// The directory holding history/ (default: target/benches).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run, build or check one datalove program, reporting its phases (used by the
    /// harness itself).
    #[command(hide = true)]
    Exec {
        #[command(subcommand)]
        what: ExecCommand,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Timed rounds per benchmark.
    #[arg(long, default_value_t = 7)]
    rounds: usize,
    /// Only these benchmarks (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,
    /// Only these versions (comma-separated: interp,jit,aot,c,C,rust,luajit,luajit-joff,lua5.4,python3);
    /// each benchmark's reference (C, or Rust std for the collection programs) always runs.
    #[arg(long, value_name = "KEYS")]
    versions: Option<String>,
    /// Run a benchmark at another size (repeatable): --size fib=35. A collection program
    /// is also timed at a tenth of it.
    #[arg(long = "size", value_name = "NAME=N")]
    sizes: Vec<String>,
    /// Count instructions under valgrind's callgrind instead of timing.
    #[arg(long)]
    callgrind: bool,
    /// Build for and run on this target (aarch64-unknown-linux-gnu: under qemu-aarch64,
    /// figures marked emulated).
    #[arg(long, value_name = "TRIPLE")]
    target: Option<String>,
    /// Skip the compile-time and start-up figures.
    #[arg(long)]
    no_extras: bool,
    /// Where the report, the chart, the history and builds go (default: target/benches).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct ExecSearch {
    /// A directory of riders.
    #[arg(long = "rider-path", value_name = "DIR")]
    rider_path: Vec<PathBuf>,
    /// A directory of modules.
    #[arg(long = "module-path", value_name = "DIR")]
    module_path: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum ExecCommand {
    Run {
        #[arg(long)]
        backend: String,
        #[command(flatten)]
        search: ExecSearch,
        file: PathBuf,
        #[arg(last = true)]
        args: Vec<String>,
    },
    Build {
        #[arg(long)]
        backend: String,
        #[command(flatten)]
        search: ExecSearch,
        file: PathBuf,
        #[arg(short = 'o')]
        out: PathBuf,
    },
    Check {
        #[command(flatten)]
        search: ExecSearch,
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run(args),
        Command::Smoke { out } => smoke(out),
        Command::Compare { before, after, out } => compare(before, after, out),
        Command::Report { which, out } => rerender(which, out),
        Command::Exec { what } => {
            let (file, mode, search) = match what {
                ExecCommand::Run {
                    backend,
                    search,
                    file,
                    args,
                } => (file, ExecMode::Run { backend, args }, search),
                ExecCommand::Build {
                    backend,
                    search,
                    file,
                    out,
                } => (file, ExecMode::Build { backend, out }, search),
                ExecCommand::Check { search, file } => (file, ExecMode::Check, search),
            };
            let search = Search {
                rider_dirs: search.rider_path,
                module_dirs: search.module_path,
            };
            let code = exec::exec(&file, &mode, &search);
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn settings(args: &RunArgs) -> Result<Settings, String> {
    let benchmarks: Vec<&'static programs::Benchmark> = if args.only.is_empty() {
        programs::BENCHMARKS.iter().collect()
    } else {
        args.only
            .iter()
            .map(|name| {
                programs::find(name).ok_or_else(|| {
                    let names: Vec<&str> = programs::BENCHMARKS.iter().map(|b| b.name).collect();
                    format!("unknown benchmark `{name}` (one of {})", names.join(", "))
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let versions = match &args.versions {
        None => Version::ALL.to_vec(),
        Some(list) => {
            let mut chosen = versions::parse_list(list)?;
            // Every ratio is to the benchmark's reference: it always runs.
            for b in &benchmarks {
                if !chosen.contains(&b.reference()) {
                    chosen.push(b.reference());
                }
            }
            chosen.sort();
            chosen.dedup();
            Version::ALL
                .into_iter()
                .filter(|v| chosen.contains(v))
                .collect()
        }
    };
    let mut sizes = BTreeMap::new();
    for item in &args.sizes {
        let (name, n) = item
            .split_once('=')
            .ok_or_else(|| format!("--size wants NAME=N, got `{item}`"))?;
        let benchmark =
            programs::find(name).ok_or_else(|| format!("--size: unknown benchmark `{name}`"))?;
        let n: u64 = n
            .parse()
            .map_err(|_| format!("--size {name}: `{n}` is not a size"))?;
        sizes.insert(benchmark.name.to_string(), n);
    }
    if args.rounds == 0 && !args.callgrind {
        return Err("--rounds must be at least 1".to_string());
    }
    Ok(Settings {
        rounds: args.rounds,
        benchmarks,
        versions,
        sizes,
        mode: if args.callgrind {
            Mode::Callgrind
        } else {
            Mode::Time
        },
        extras: !args.no_extras,
    })
}

fn run(args: RunArgs) -> ExitCode {
    let settings = match settings(&args) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let out_dir = args.out.clone().unwrap_or_else(suite::default_out_dir);
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        return fail(format!("{}: {e}", out_dir.display()));
    }
    let platform = match Platform::detect(args.target.as_deref(), &out_dir) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let mut progress = Progress::new(0);
    let record = suite::run(&settings, &platform, &mut progress);
    if let Err(e) = write_report(&record, &out_dir) {
        return fail(e);
    }
    let saved = history::save(&record, &out_dir);
    match saved {
        Ok(path) => println!("history: {}", path.display()),
        Err(e) => eprintln!("warning: history not saved: {e}"),
    }
    let broken = record
        .benchmarks
        .iter()
        .flat_map(|b| b.with_tenth())
        .flat_map(|b| &b.versions)
        .any(|r| matches!(r.status, Status::WrongOutput(_) | Status::Failed(_)));
    if broken {
        eprintln!(
            "some versions failed or printed the wrong output: see the report's \"Not measured\""
        );
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes the report and the chart of `record` into `out_dir` and prints the first
/// table and where they are.
fn write_report(record: &datalove_benches::record::Record, out_dir: &Path) -> Result<(), String> {
    let stem = match (record.mode, record.emulated) {
        (Mode::Time, false) => "report",
        (Mode::Time, true) => "report-aarch64",
        (Mode::Callgrind, _) => "callgrind",
    };
    let chart_path = out_dir.join(format!("{stem}.svg"));
    let chart_file = match chart::draw(record, &chart_path) {
        Ok(true) => Some(format!("{stem}.svg")),
        Ok(false) => None,
        Err(e) => {
            eprintln!("warning: no chart: {e}");
            None
        }
    };
    let text = report::markdown(record, chart_file.as_deref());
    let report_path = out_dir.join(format!("{stem}.md"));
    std::fs::write(&report_path, &text).map_err(|e| format!("{}: {e}", report_path.display()))?;
    print!("{}", summary(&text));
    println!("report: {}", report_path.display());
    if let Some(file) = chart_file {
        println!("chart: {}", out_dir.join(file).display());
    }
    Ok(())
}

fn rerender(which: Option<String>, out: Option<PathBuf>) -> ExitCode {
    let out_dir = out.unwrap_or_else(suite::default_out_dir);
    let found = match which {
        Some(w) => history::find(&w, &out_dir).map(|(_, r)| r),
        None => history::load(&out_dir.join("latest.json")),
    };
    match found.and_then(|record| write_report(&record, &out_dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The report's tables of ratios and growth (what a terminal wants to see): the first
/// table under each `## Time / ...` and `## Growth` heading, with its heading.
fn summary(report: &str) -> String {
    let mut out = String::new();
    let mut wanted = false;
    let mut in_table = false;
    for line in report.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            wanted = heading.starts_with("Time / ") || heading.starts_with("Growth");
            if wanted {
                out.push_str(line);
                out.push('\n');
            }
        } else if wanted && line.starts_with('|') {
            in_table = true;
            out.push_str(line);
            out.push('\n');
        } else if in_table {
            in_table = false;
            wanted = false;
        }
    }
    out
}

fn smoke(out: Option<PathBuf>) -> ExitCode {
    let out_dir = out.unwrap_or_else(suite::default_out_dir);
    let platform = match Platform::detect(None, &out_dir) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let mut progress = Progress::new(0);
    let benches = suite::smoke(&platform, &mut progress);
    let versions: Vec<Version> = Version::ALL.to_vec();
    let mut header = format!("{:<16}", "smoke");
    for v in &versions {
        header.push_str(&format!("{:>14}", v.label()));
    }
    println!("{header}");
    let mut broken = Vec::new();
    for b in &benches {
        let mut row = format!("{:<16}", b.name);
        for v in &versions {
            let cell = b.version(*v).map_or("—", |r| r.status.word());
            row.push_str(&format!("{cell:>14}"));
        }
        println!("{row}");
        for r in &b.versions {
            match &r.status {
                Status::WrongOutput(why) | Status::Failed(why) => {
                    broken.push(format!("{} / {}: {why}", b.name, r.version.label()))
                }
                _ => {}
            }
        }
    }
    let mut unavailable: BTreeMap<String, String> = BTreeMap::new();
    for r in benches.iter().flat_map(|b| &b.versions) {
        if let Status::Unavailable(why) = &r.status {
            unavailable.insert(r.version.label().to_string(), why.clone());
        }
    }
    for (v, why) in &unavailable {
        println!("{v} unavailable: {why}");
    }
    if broken.is_empty() {
        println!("smoke: every available version printed the expected output");
        ExitCode::SUCCESS
    } else {
        for b in &broken {
            println!("FAILED {b}");
        }
        ExitCode::from(1)
    }
}

fn compare(before: Option<String>, after: Option<String>, out: Option<PathBuf>) -> ExitCode {
    let out_dir = out.unwrap_or_else(suite::default_out_dir);
    let pair = match (before, after) {
        (None, None) => history::latest_two(&out_dir),
        (Some(a), None) => history::find(&a, &out_dir).and_then(|a| {
            let latest = out_dir.join("latest.json");
            history::load(&latest).map(|b| (a, (latest, b)))
        }),
        (Some(a), Some(b)) => {
            history::find(&a, &out_dir).and_then(|a| history::find(&b, &out_dir).map(|b| (a, b)))
        }
        (None, Some(_)) => unreachable!("clap fills `before` first"),
    };
    match pair {
        Ok(((pa, a), (pb, b))) => {
            println!("{}", history::compare(&a, &b));
            println!("before: {}\nafter: {}", show(&pa), show(&pb));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

fn show(path: &Path) -> String {
    path.display().to_string()
}
