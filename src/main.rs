//! The `datalove` command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use datalove::Target;

/// The exit codes, as `--help` shows them (`docs/running.md` has the full table).
const EXIT_CODES: &str = "\
Exit codes:
  0    success (run: the program ended normally)
  1    build: the build failed (toolchain, link); run --backend all: the backends disagree
  2    refused before anything ran: a usage error (unknown option or backend name), a
       compile error, a program that cannot run (F008 a module, V001 IR the verifier
       refuses, B001 a backend that cannot take it), or a build output that is one of
       its inputs; diagnostics on stderr
  3    the backend asked for is unavailable here
  101  run: a runtime error, or a rider that cannot be loaded (one `error: ...` line)";

#[derive(Parser)]
#[command(
    name = "datalove",
    version,
    about = "Compile and run datalove programs",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colors in diagnostics: `auto` when stderr is a terminal (and NO_COLOR is not
    /// set), `always`, or `never`.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "auto",
        value_name = "WHEN"
    )]
    color: ColorWhen,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Whether diagnostics are colored, decided once from `--color`.
static COLOR: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// The arguments of a run a trial server forked for (`serve-trials`), which are not the
/// process's own.
static SERVED_ARGS: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

fn color() -> bool {
    COLOR.get().copied().unwrap_or(false)
}

#[derive(clap::Args)]
struct Search {
    /// A directory of riders (`<rider>.dli` or `<rider>/rider.dli`, and
    /// `libdlr_<rider>.so`); also DATALOVE_RIDER_PATH.
    #[arg(long = "rider-path", value_name = "DIR")]
    rider_path: Vec<PathBuf>,
    /// A directory searched for modules (`<name>.dfm`) after the file's own.
    #[arg(long = "module-path", value_name = "DIR")]
    module_path: Vec<PathBuf>,
}

/// The backends `run` takes.
#[derive(Clone, Copy, ValueEnum)]
enum RunBackend {
    Interp,
    Jit,
    Aot,
    C,
    /// Every available backend, side by side.
    All,
}

/// The backends that build executables.
#[derive(Clone, Copy, ValueEnum)]
enum BuildBackend {
    Aot,
    C,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script on one backend (or on all of them, side by side).
    #[command(after_help = EXIT_CODES)]
    Run {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "interp", value_name = "BACKEND")]
        backend: RunBackend,
        /// Report allocations still live at the end as a runtime error (also
        /// DATALOVE_CHECK_LEAKS=1).
        #[arg(long)]
        check_leaks: bool,
        /// How many program calls may be active at once (also DATALOVE_DEPTH_LIMIT;
        /// default 1000000); one more is `error: stack overflow`.
        #[arg(long, value_name = "N")]
        depth_limit: Option<usize>,
        /// The most bytes the program may hold allocated (also DATALOVE_MEMORY_LIMIT;
        /// default: no limit); past it is `error: out of memory`.
        #[arg(long, value_name = "BYTES")]
        memory_limit: Option<usize>,
        /// Build the aot or c executable for this target and run it through the
        /// target's runner (`CARGO_TARGET_<TRIPLE>_RUNNER`, e.g. qemu-aarch64); default:
        /// this machine's. interp and jit run only on this machine's target.
        #[arg(long, value_name = "TRIPLE", value_parser = target_triple)]
        target: Option<Target>,
        #[command(flatten)]
        cache: CacheFlags,
        #[command(flatten)]
        search: Search,
        /// The program's arguments (`env.args()`), after `--`.
        #[arg(last = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// Check a program: print its diagnostics; exit 2 if there are any.
    #[command(after_help = EXIT_CODES)]
    Check {
        file: PathBuf,
        #[command(flatten)]
        search: Search,
    },
    /// Build an executable (aot: Cranelift object, or c: emitted C; + runtime + riders).
    #[command(after_help = EXIT_CODES)]
    Build {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "aot", value_name = "BACKEND")]
        backend: BuildBackend,
        /// The executable to write (never one of the build's inputs); the riders it
        /// needs are copied beside it.
        #[arg(short = 'o', value_name = "OUT")]
        out: PathBuf,
        /// The target to build for (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu);
        /// default: this machine's.
        #[arg(long, value_name = "TRIPLE", value_parser = target_triple)]
        target: Option<Target>,
        #[command(flatten)]
        cache: CacheFlags,
        #[command(flatten)]
        search: Search,
    },
    /// The compilation cache of aot and c executables (docs/running.md).
    Cache {
        #[arg(value_enum)]
        what: CacheCommand,
    },
    /// Print the documentation of a diagnostic code (`datalove explain S008`).
    Explain { code: String },
    /// For test harnesses: serve runs of this CLI from one warm process, forked per run
    /// (src/trials.rs, docs/testing.md).
    #[command(hide = true)]
    ServeTrials,
    /// Write the C header of prototypes for a rider's `.dli` (docs/riders.md), so a C
    /// native whose signature disagrees with its declaration does not compile.
    RiderHeader {
        /// The rider's interface file.
        dli: PathBuf,
        /// The rider's name; default: the file's stem, or for `rider.dli` its directory's
        /// name.
        #[arg(long, value_name = "NAME")]
        rider: Option<String>,
        /// Where to write the header (left alone when unchanged); default: stdout.
        #[arg(short = 'o', value_name = "OUT")]
        out: Option<PathBuf>,
    },
    /// Print what a program compiles to.
    #[command(after_help = EXIT_CODES)]
    Emit {
        what: Emit,
        file: PathBuf,
        /// The target whose code `emit clif` shows; default: this machine's.
        #[arg(long, value_name = "TRIPLE", value_parser = target_triple)]
        target: Option<Target>,
        #[command(flatten)]
        search: Search,
    },
}

/// How `run` and `build` use the compilation cache.
#[derive(clap::Args, Clone, Copy)]
struct CacheFlags {
    /// Build the executable (aot, c) afresh, neither reading nor writing the
    /// compilation cache (also DATALOVE_CACHE=off).
    #[arg(long)]
    no_cache: bool,
    /// Say on stderr what the compilation cache did: `cache: hit`, `miss` or `rebuilt`.
    #[arg(long)]
    cache_log: bool,
}

impl CacheFlags {
    fn cache(self) -> Option<datalove::Cache> {
        if self.no_cache {
            None
        } else {
            datalove::Cache::from_env()
        }
    }

    fn log(self, event: Option<datalove::CacheEvent>) {
        if let (true, Some(event)) = (self.cache_log, event) {
            eprintln!("cache: {}", event.name());
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum CacheCommand {
    /// Where the cache is, how many entries it holds and their size.
    Stats,
    /// Remove every entry.
    Clear,
}

/// `--target TRIPLE`: a target `datalove build` knows.
fn target_triple(triple: &str) -> Result<Target, String> {
    Target::from_triple(triple)
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// The IR, with the source lines it came from.
    Ir,
    /// The Cranelift IR, with the IR instructions it came from.
    Clif,
    /// The C of the C backend, with the IR instructions it came from.
    C,
    /// The interpreter's operations, as lowered (natives are not resolved).
    Interp,
}

fn options(search: Search) -> datalove::Options {
    let mut options = datalove::Options::from_env();
    options.rider_dirs.splice(0..0, search.rider_path);
    options.module_dirs = search.module_path;
    options
}

/// Makes `SIGINT`, `SIGTERM` and `SIGHUP` remove this process's build folder (the
/// executables `run --backend aot|c` builds) before the process dies of the signal, as
/// it would have without this. The handler only writes the signal's number to a pipe
/// (`write` is async-signal-safe); a thread that reads it removes the folder (ordinary
/// code, free to allocate), puts the signal's default action back and raises it. A
/// child the CLI starts (an executable, the C compiler) is untouched: `exec` resets a
/// caught signal to its default, and no signal is blocked.
fn remove_builds_on_signals() {
    use std::sync::atomic::{AtomicI32, Ordering};
    static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);
    extern "C" fn on_signal(signal: libc::c_int) {
        let byte = signal as u8;
        // SAFETY: `write` of one byte from the stack to a pipe this process opened.
        unsafe {
            libc::write(
                SIGNAL_PIPE.load(Ordering::Relaxed),
                (&byte as *const u8).cast(),
                1,
            )
        };
    }
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: plain libc calls on values made here.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return;
        }
        SIGNAL_PIPE.store(fds[1], Ordering::Relaxed);
        let read_end = fds[0];
        let waiting = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut byte = 0u8;
                if libc::read(read_end, (&mut byte as *mut u8).cast(), 1) == 1 {
                    datalove::engine::remove_build_root();
                    // Dies of the signal itself: its default action.
                    let signal = libc::c_int::from(byte);
                    libc::signal(signal, libc::SIG_DFL);
                    libc::raise(signal);
                }
            });
        if waiting.is_err() {
            return;
        }
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Prints a compile error (or a refusal before running) the way `check` does, then the
/// closing count; exit 2.
fn refused(e: datalove::CompileError) -> ExitCode {
    match &e {
        datalove::CompileError::Diagnostics(failed) => print_failed(failed),
        datalove::CompileError::Io { .. } => eprintln!("{e}"),
    }
    exit_code(datalove::EXIT_REFUSED)
}

/// The diagnostics of a failed compilation, then one line counting them.
fn print_failed(failed: &datalove::front::Failed) {
    eprint!("{}", failed.render_styled(color()));
    let n = failed
        .diagnostics
        .iter()
        .filter(|d| d.severity == datalove::ir::diag::Severity::Error)
        .count();
    // The file they are about: the root, the first file of the compilation.
    let file = failed
        .sources
        .files()
        .next()
        .map_or(String::new(), |(_, f)| f.name.clone());
    let error = if color() {
        "\x1b[1;31merror\x1b[0m"
    } else {
        "error"
    };
    let s = if n == 1 { "" } else { "s" };
    eprintln!("{error}: could not compile {file}: {n} error{s}");
}

/// `datalove explain CODE`.
fn explain(code: &str) -> ExitCode {
    match datalove::front::explain::explain(code) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            exit_code(datalove::EXIT_REFUSED)
        }
    }
}

/// Reads and compiles `file`; with `admit`, also refuses what cannot run (a module, IR
/// the verifier refuses).
fn compile(
    file: &Path,
    options: &datalove::Options,
    admit: bool,
) -> Result<datalove::front::Compiled, ExitCode> {
    let compiled = datalove::compile_file(file, options).map_err(refused)?;
    if admit {
        datalove::admit(&compiled).map_err(refused)?;
    }
    Ok(compiled)
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    if let Command::ServeTrials = cli.command {
        // The server returns only in a forked child, which goes on as the CLI started
        // with the request's arguments.
        match datalove::trials::serve() {
            datalove::trials::Served::Child(args) => {
                cli = Cli::parse_from(&args);
                let _ = SERVED_ARGS.set(args);
            }
            datalove::trials::Served::Done(code) => return exit_code(code),
        }
    }
    if matches!(cli.command, Command::Run { .. } | Command::Build { .. }) {
        remove_builds_on_signals();
    }
    let _ = COLOR.set(match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            use std::io::IsTerminal;
            std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    });
    match cli.command {
        Command::Explain { code } => explain(&code),
        Command::RiderHeader { dli, rider, out } => rider_header(&dli, rider.as_deref(), out),
        Command::Check { file, search } => check(&file, search),
        Command::Emit {
            what,
            file,
            target,
            search,
        } => emit(what, &file, target, search),
        Command::Run {
            file,
            backend,
            check_leaks,
            depth_limit,
            memory_limit,
            target,
            cache,
            search,
            args,
        } => {
            let settings = Settings {
                check_leaks,
                depth_limit,
                memory_limit,
                args,
                cache,
                target,
            };
            run(&file, backend, settings, search)
        }
        Command::Build {
            file,
            backend,
            out,
            target,
            cache,
            search,
        } => build(&file, backend, &out, target, cache, search),
        Command::Cache { what } => cache_command(what),
        Command::ServeTrials => {
            eprintln!("error: serve-trials is started by a test harness, not by a request");
            exit_code(datalove::EXIT_REFUSED)
        }
    }
}

/// A script is checked through the verifier too; a module (no entry) is checked as a
/// module.
fn rider_header(dli: &Path, rider: Option<&str>, out: Option<PathBuf>) -> ExitCode {
    let header = match datalove_rider_build::c_header_for_file(dli, rider) {
        Ok((_, header)) => header,
        // Diagnostics render themselves (`error[L003]: ...`); other errors get the prefix.
        Err(e @ datalove_rider_build::BuildError::Diagnostics { .. }) => {
            eprintln!("{e}");
            return exit_code(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code(2);
        }
    };
    let Some(out) = out else {
        print!("{header}");
        return ExitCode::SUCCESS;
    };
    if std::fs::read_to_string(&out).is_ok_and(|old| old == header) {
        return ExitCode::SUCCESS;
    }
    match std::fs::write(&out, header) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", out.display());
            exit_code(1)
        }
    }
}

fn check(file: &Path, search: Search) -> ExitCode {
    let options = options(search);
    let compiled = match compile(file, &options, false) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if compiled.program.entry.is_some() {
        if let Err(e) = datalove::admit(&compiled) {
            return refused(e);
        }
    }
    ExitCode::SUCCESS
}

fn emit(what: Emit, file: &Path, target: Option<Target>, search: Search) -> ExitCode {
    // The IR is printed as lowered (verified or not); CLIF and C only for what may run.
    let compiled = match compile(file, &options(search), !matches!(what, Emit::Ir)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let text = match what {
        Emit::Ir => Ok(datalove::ir::print::print_program(&compiled.program)),
        Emit::Clif => {
            // This machine's target is `None`: its ISA with the CPU features it has.
            let triple = target
                .as_ref()
                .filter(|t| !t.is_current())
                .map(|t| t.triple());
            datalove_clif_aot::emit_clif(&compiled.program, triple).map_err(|e| e.to_string())
        }
        Emit::C => datalove_cbackend::emit_c(&compiled.program).map_err(|e| e.to_string()),
        // Only listed, never run: each native's address is left null.
        Emit::Interp => datalove_interp::compile(&compiled.program, &mut |_| Ok(std::ptr::null()))
            .map(|interp| interp.listing(&compiled.program))
            .map_err(|e| e.to_string()),
    };
    match text {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            let backend = match what {
                Emit::Clif => "aot",
                Emit::Interp => "interp",
                _ => "c",
            };
            let failed = datalove::front::backend_refusal(&compiled, backend, &why);
            print_failed(&failed);
            exit_code(datalove::EXIT_REFUSED)
        }
    }
}

/// The runtime settings of `run`.
struct Settings {
    check_leaks: bool,
    depth_limit: Option<usize>,
    memory_limit: Option<usize>,
    args: Vec<String>,
    cache: CacheFlags,
    target: Option<Target>,
}

fn cache_command(what: CacheCommand) -> ExitCode {
    let Some(cache) = datalove::Cache::from_env() else {
        println!("the compilation cache is off (DATALOVE_CACHE)");
        return ExitCode::SUCCESS;
    };
    match what {
        CacheCommand::Stats => {
            let stats = cache.stats();
            println!("directory: {}", cache.dir().display());
            println!("entries: {}", stats.entries);
            println!("bytes: {} of {}", stats.bytes, stats.cap_bytes);
            ExitCode::SUCCESS
        }
        CacheCommand::Clear => match cache.clear() {
            Ok(n) => {
                println!("removed {n} entries from {}", cache.dir().display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: cannot clear {}: {e}", cache.dir().display());
                ExitCode::from(1)
            }
        },
    }
}

fn run(file: &Path, backend: RunBackend, settings: Settings, search: Search) -> ExitCode {
    let options = options(search);
    let settings_cache = settings.cache;
    let run_options = datalove::RunOptions {
        riders: match &settings.target {
            Some(target) => options.rider_path_for(target),
            None => options.rider_path(),
        },
        check_leaks: settings.check_leaks,
        capture: false,
        depth_limit: settings.depth_limit,
        memory_limit: settings.memory_limit,
        args: settings.args,
        cache: settings.cache.cache(),
        target: settings.target,
    };
    let backend = match backend {
        RunBackend::Interp => Some(datalove::Backend::Interp),
        RunBackend::Jit => Some(datalove::Backend::Jit),
        RunBackend::Aot => Some(datalove::Backend::Aot),
        RunBackend::C => Some(datalove::Backend::C),
        RunBackend::All => None,
    };
    let compiled = match compile(file, &options, true) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match backend {
        Some(backend) => match datalove::run(&compiled, backend, &run_options) {
            Ok(result) => {
                use std::io::Write;
                let _ = std::io::stdout().flush();
                settings_cache.log(result.cache_event);
                result.outcome.print_to_stderr();
                exit_code(result.outcome.exit_code)
            }
            Err(u) => {
                eprintln!(
                    "error: backend `{}` is unavailable: {}",
                    u.backend.name(),
                    u.reason
                );
                exit_code(datalove::EXIT_UNAVAILABLE)
            }
        },
        None => run_all(),
    }
}

fn build(
    file: &Path,
    backend: BuildBackend,
    out: &Path,
    target: Option<Target>,
    cache: CacheFlags,
    search: Search,
) -> ExitCode {
    let backend = match backend {
        BuildBackend::Aot => datalove::Backend::Aot,
        BuildBackend::C => datalove::Backend::C,
    };
    let options = options(search);
    let compiled = match compile(file, &options, true) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let target = target.unwrap_or_else(Target::current);
    // The riders of the target: its directories beside this executable, not ours.
    let riders = options.rider_path_for(&target);
    let built = datalove::run::build_executable_cached(
        &compiled,
        backend,
        &riders,
        out,
        &target,
        cache.cache().as_ref(),
    );
    match built {
        Ok(event) => {
            cache.log(event);
            ExitCode::SUCCESS
        }
        Err(datalove::BuildError::Refused(failed)) => {
            print_failed(&failed);
            exit_code(datalove::EXIT_REFUSED)
        }
        Err(
            e @ (datalove::BuildError::WouldOverwrite { .. }
            | datalove::BuildError::OutputIsRiderCopy { .. }),
        ) => {
            eprintln!("error: {e}");
            exit_code(datalove::EXIT_REFUSED)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// `run --backend all`: each backend's output and wall time, then whether they agree.
///
/// Each backend runs in a child process (this command again, with `--backend B`), so a
/// backend that dies (a native that crashes the in-process interpreter or JIT) is one
/// row of the report, and the others still run.
fn run_all() -> ExitCode {
    let mut results = Vec::new();
    let mut unavailable = Vec::new();
    for backend in datalove::Backend::ALL {
        if let Some(reason) = backend.unavailable_reason() {
            unavailable.push((backend, reason));
            continue;
        }
        let start = std::time::Instant::now();
        // Through this target's runner, if it has one (under qemu-user, a program
        // cannot start another of its own architecture directly).
        let output = std::env::current_exe()
            .and_then(|exe| {
                Target::current()
                    .command(exe)
                    .map_err(std::io::Error::other)
            })
            .and_then(|mut command| {
                command
                    .args(args_for_backend(backend.name()))
                    .stdin(std::process::Stdio::null())
                    .output()
            });
        let elapsed = start.elapsed();
        match output {
            Ok(output) => {
                let mut stderr: Vec<String> = String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .map(str::to_string)
                    .collect();
                let code = output.status.code().unwrap_or_else(|| {
                    use std::os::unix::process::ExitStatusExt;
                    let signal = output.status.signal().unwrap_or(0);
                    stderr.push(format!("error: killed by signal {signal}"));
                    datalove_rt::EXIT_RUNTIME_ERROR
                });
                // A program may exit with 3 itself (`io.exit(3)`): unavailable is 3 with
                // the CLI's line saying so.
                let unavailable_line = |l: &String| {
                    l.starts_with(&format!(
                        "error: backend `{}` is unavailable",
                        backend.name()
                    ))
                };
                if code == datalove::EXIT_UNAVAILABLE && stderr.iter().any(unavailable_line) {
                    unavailable.push((backend, stderr.join(" ")));
                } else {
                    results.push((backend, elapsed, code, output.stdout, stderr));
                }
            }
            Err(e) => unavailable.push((backend, format!("cannot start: {e}"))),
        }
    }
    use std::fmt::Write as _;
    let mut report = String::new();
    for (backend, elapsed, code, stdout, stderr) in &results {
        let _ = writeln!(
            report,
            "== {} ({:.1} ms, exit {code})",
            backend.name(),
            elapsed.as_secs_f64() * 1000.0,
        );
        report.push_str(&String::from_utf8_lossy(stdout));
        for line in stderr {
            let _ = writeln!(report, "stderr: {line}");
        }
    }
    for (backend, reason) in &unavailable {
        let _ = writeln!(report, "== {} unavailable: {reason}", backend.name());
    }
    let ran = results.len();
    let agree = results
        .windows(2)
        .all(|w| w[0].2 == w[1].2 && w[0].3 == w[1].3 && w[0].4 == w[1].4);
    let code = if agree {
        let _ = writeln!(report, "== all {ran} available backends agree");
        exit_code(results.first().map_or(0, |r| r.2))
    } else {
        let _ = writeln!(
            report,
            "== DISAGREEMENT between the {ran} backends that ran"
        );
        ExitCode::from(1)
    };
    // A reader that goes away (`| head -2`) ends the report as it ends a program's
    // output on one backend: one `output failed` line, exit 101.
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(report.as_bytes())
        .and_then(|()| stdout.flush())
    {
        let failed = datalove_rt::RuntimeError::new(
            datalove_rt::ErrorKind::Output,
            datalove_rt::output::output_failure_detail(&error),
        );
        eprintln!("error: {failed}");
        return exit_code(datalove_rt::EXIT_RUNTIME_ERROR);
    }
    code
}

/// This command's arguments with the backend `all` replaced by `backend`.
fn args_for_backend(backend: &str) -> Vec<std::ffi::OsString> {
    // A trial server's child was started as `serve-trials`: its arguments are the
    // request's.
    let mut args: Vec<std::ffi::OsString> = match SERVED_ARGS.get() {
        Some(served) => served.iter().skip(1).cloned().collect(),
        None => std::env::args_os().skip(1).collect(),
    };
    let mut i = 0;
    // Not past `--`: what follows is the program's.
    while i < args.len() && args[i] != "--" {
        if args[i] == "--backend" && i + 1 < args.len() {
            args[i + 1] = backend.into();
            i += 1;
        } else if args[i]
            .to_str()
            .is_some_and(|a| a.starts_with("--backend="))
        {
            args[i] = format!("--backend={backend}").into();
        }
        i += 1;
    }
    args
}
