//! The `datalove` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "datalove",
    version,
    about = "Compile and run datalove programs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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

#[derive(Subcommand)]
enum Command {
    /// Run a script on one backend (or on all of them, side by side).
    Run {
        file: PathBuf,
        /// interp, jit, aot, c, or all.
        #[arg(long, default_value = "interp", value_name = "BACKEND")]
        backend: String,
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
        #[command(flatten)]
        search: Search,
        /// The program's arguments (`env.args()`), after `--`.
        #[arg(last = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// Check a program: print its diagnostics; exit 2 if there are any.
    Check {
        file: PathBuf,
        #[command(flatten)]
        search: Search,
    },
    /// Build an executable (aot: Cranelift object, or c: emitted C; + runtime + riders).
    Build {
        file: PathBuf,
        /// aot or c.
        #[arg(long, default_value = "aot", value_name = "BACKEND")]
        backend: String,
        /// The executable to write; the riders it needs are copied beside it.
        #[arg(short = 'o', value_name = "OUT")]
        out: PathBuf,
        /// The target to build for (a Rust triple: x86_64-unknown-linux-gnu,
        /// aarch64-unknown-linux-gnu); default: this machine's.
        #[arg(long, value_name = "TRIPLE")]
        target: Option<String>,
        #[command(flatten)]
        search: Search,
    },
    /// Print what a program compiles to.
    Emit {
        what: Emit,
        file: PathBuf,
        /// The target whose code `emit clif` shows (a Rust triple); default: this
        /// machine's.
        #[arg(long, value_name = "TRIPLE")]
        target: Option<String>,
        #[command(flatten)]
        search: Search,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// The IR, with the source lines it came from.
    Ir,
    /// The Cranelift IR, with the IR instructions it came from.
    Clif,
    /// The C of the C backend, with the IR instructions it came from.
    C,
}

fn options(search: Search) -> datalove::Options {
    let mut options = datalove::Options::from_env();
    options.rider_dirs.splice(0..0, search.rider_path);
    options.module_dirs = search.module_path;
    options
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (file, search, emit, target) = match cli.command {
        Command::Check { file, search } => (file, search, None, None),
        Command::Emit {
            what,
            file,
            target,
            search,
        } => (file, search, Some(what), target),
        Command::Run {
            file,
            backend,
            check_leaks,
            depth_limit,
            memory_limit,
            search,
            args,
        } => {
            let settings = Settings {
                check_leaks,
                depth_limit,
                memory_limit,
                args,
            };
            return run(&file, &backend, settings, search);
        }
        Command::Build {
            file,
            backend,
            out,
            target,
            search,
        } => return build(&file, &backend, &out, target.as_deref(), search),
    };
    let target = match target
        .as_deref()
        .map(datalove_toolchain::Target::from_triple)
    {
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        Some(Ok(t)) => (!t.is_current()).then_some(t),
        None => None,
    };
    match datalove::compile_file(&file, &options(search)) {
        Ok(compiled) => {
            match emit {
                Some(Emit::Ir) => {
                    print!("{}", datalove::ir::print::print_program(&compiled.program))
                }
                Some(Emit::Clif) => match datalove_clif_aot::emit_clif(
                    &compiled.program,
                    target.as_ref().map(|t| t.triple()),
                ) {
                    Ok(text) => print!("{text}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                },
                Some(Emit::C) => match datalove_cbackend::emit_c(&compiled.program) {
                    Ok(text) => print!("{text}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                },
                None => {}
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("{e}");
            if matches!(e, datalove::CompileError::Io { .. }) {
                eprintln!();
            }
            ExitCode::from(2)
        }
    }
}

/// Prints a compile error the way `check` does; exit 2.
fn compile_failure(e: datalove::CompileError) -> ExitCode {
    eprint!("{e}");
    if matches!(e, datalove::CompileError::Io { .. }) {
        eprintln!();
    }
    ExitCode::from(2)
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// The runtime settings of `run`.
struct Settings {
    check_leaks: bool,
    depth_limit: Option<usize>,
    memory_limit: Option<usize>,
    args: Vec<String>,
}

fn run(file: &std::path::Path, backend: &str, settings: Settings, search: Search) -> ExitCode {
    let options = options(search);
    let run_options = datalove::RunOptions {
        riders: options.rider_path(),
        check_leaks: settings.check_leaks,
        capture: false,
        depth_limit: settings.depth_limit,
        memory_limit: settings.memory_limit,
        args: settings.args,
    };
    let backend = match backend {
        "all" => None,
        name => match datalove::Backend::from_name(name) {
            Some(b) => Some(b),
            None => {
                eprintln!("error: unknown backend `{name}` (interp, jit, aot, c or all)");
                return ExitCode::from(2);
            }
        },
    };
    let compiled = match datalove::compile_file(file, &options) {
        Ok(c) => c,
        Err(e) => return compile_failure(e),
    };
    match backend {
        Some(backend) => match datalove::run(&compiled, backend, &run_options) {
            Ok(result) => {
                use std::io::Write;
                let _ = std::io::stdout().flush();
                result.outcome.print_to_stderr();
                exit_code(result.outcome.exit_code)
            }
            Err(u) => {
                eprintln!(
                    "error: backend `{}` is unavailable: {}",
                    u.backend.name(),
                    u.reason
                );
                ExitCode::from(3)
            }
        },
        None => run_all(),
    }
}

fn build(
    file: &std::path::Path,
    backend: &str,
    out: &std::path::Path,
    target: Option<&str>,
    search: Search,
) -> ExitCode {
    let backend = match backend {
        "aot" => datalove::Backend::Aot,
        "c" => datalove::Backend::C,
        other => {
            eprintln!("error: backend `{other}` does not build executables (aot and c do)");
            return ExitCode::from(2);
        }
    };
    let target = match target.map(datalove_toolchain::Target::from_triple) {
        None => datalove_toolchain::Target::current(),
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let options = options(search);
    let compiled = match datalove::compile_file(file, &options) {
        Ok(c) => c,
        Err(e) => return compile_failure(e),
    };
    // The riders of the target: its directories beside this executable, not ours.
    let riders = options.rider_path_for(&target);
    match datalove::run::build_executable_for(&compiled, backend, &riders, out, &target) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
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
                datalove_toolchain::Target::current()
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
                if code == 3 {
                    unavailable.push((backend, stderr.join(" ")));
                } else {
                    results.push((backend, elapsed, code, output.stdout, stderr));
                }
            }
            Err(e) => unavailable.push((backend, format!("cannot start: {e}"))),
        }
    }
    for (backend, elapsed, code, stdout, stderr) in &results {
        println!(
            "== {} ({:.1} ms, exit {code})",
            backend.name(),
            elapsed.as_secs_f64() * 1000.0,
        );
        print!("{}", String::from_utf8_lossy(stdout));
        for line in stderr {
            println!("stderr: {line}");
        }
    }
    for (backend, reason) in &unavailable {
        println!("== {} unavailable: {reason}", backend.name());
    }
    let ran = results.len();
    let agree = results
        .windows(2)
        .all(|w| w[0].2 == w[1].2 && w[0].3 == w[1].3 && w[0].4 == w[1].4);
    if agree {
        println!("== all {ran} available backends agree");
        exit_code(results.first().map_or(0, |r| r.2))
    } else {
        println!("== DISAGREEMENT between the {ran} backends that ran");
        ExitCode::from(1)
    }
}

/// This command's arguments with the backend `all` replaced by `backend`.
fn args_for_backend(backend: &str) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
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
