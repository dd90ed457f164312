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
        /// The executable to write.
        #[arg(short = 'o', value_name = "OUT")]
        out: PathBuf,
        #[command(flatten)]
        search: Search,
    },
    /// Print what a program compiles to.
    Emit {
        what: Emit,
        file: PathBuf,
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
    let (file, search, emit) = match cli.command {
        Command::Check { file, search } => (file, search, None),
        Command::Emit { what, file, search } => (file, search, Some(what)),
        Command::Run {
            file,
            backend,
            check_leaks,
            search,
            args,
        } => return run(&file, &backend, check_leaks, search, args),
        Command::Build {
            file,
            backend,
            out,
            search,
        } => return build(&file, &backend, &out, search),
    };
    match datalove::compile_file(&file, &options(search)) {
        Ok(compiled) => {
            match emit {
                Some(Emit::Ir) => {
                    print!("{}", datalove::ir::print::print_program(&compiled.program))
                }
                Some(Emit::Clif) => match datalove_clif_aot::emit_clif(&compiled.program) {
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

fn run(
    file: &std::path::Path,
    backend: &str,
    check_leaks: bool,
    search: Search,
    args: Vec<String>,
) -> ExitCode {
    let options = options(search);
    let run_options = datalove::RunOptions {
        riders: options.rider_path(),
        check_leaks,
        capture: false,
        args,
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
        None => run_all(&compiled, &run_options),
    }
}

fn build(file: &std::path::Path, backend: &str, out: &std::path::Path, search: Search) -> ExitCode {
    let backend = match backend {
        "aot" => datalove::Backend::Aot,
        "c" => datalove::Backend::C,
        other => {
            eprintln!("error: backend `{other}` does not build executables (aot and c do)");
            return ExitCode::from(2);
        }
    };
    let options = options(search);
    let compiled = match datalove::compile_file(file, &options) {
        Ok(c) => c,
        Err(e) => return compile_failure(e),
    };
    match datalove::run::build_executable(&compiled, backend, &options.rider_path(), out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// `run --backend all`: each backend's output and wall time, then whether they agree.
fn run_all(
    compiled: &datalove::ir::front::Compiled,
    run_options: &datalove::RunOptions,
) -> ExitCode {
    let comparison = datalove::run_all(compiled, run_options);
    for r in &comparison.results {
        println!(
            "== {} ({:.1} ms, exit {})",
            r.backend.name(),
            r.elapsed.as_secs_f64() * 1000.0,
            r.outcome.exit_code
        );
        print!("{}", String::from_utf8_lossy(&r.stdout));
        for line in &r.outcome.stderr_lines {
            println!("stderr: {line}");
        }
    }
    for u in &comparison.unavailable {
        println!("== {} unavailable: {}", u.backend.name(), u.reason);
    }
    let ran = comparison.results.len();
    if comparison.agree() {
        println!("== all {ran} available backends agree");
        exit_code(
            comparison
                .results
                .first()
                .map_or(0, |r| r.outcome.exit_code),
        )
    } else {
        println!("== DISAGREEMENT between the {ran} backends that ran");
        ExitCode::from(1)
    }
}
