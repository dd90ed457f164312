//! `datalove-benches exec`: compiles and runs (or builds, or only checks) one datalove
//! program with the same facade calls `datalove run`, `datalove build` and `datalove
//! check` make, and ends its stderr with a phases line (front end, backend compilation)
//! for the harness. The harness runs datalove programs through its own binary so that
//! what it times is always built from the tree it was built from.

use std::path::PathBuf;
use std::time::Instant;

use crate::measure::Phases;

/// What to do with the program.
#[derive(Clone, Debug)]
pub enum ExecMode {
    /// Compile and run on a backend with these program arguments.
    Run { backend: String, args: Vec<String> },
    /// Build an aot or c executable.
    Build { backend: String, out: PathBuf },
    /// Only compile to IR (what `datalove check` does).
    Check,
}

/// Where the program's riders and modules are.
#[derive(Clone, Debug, Default)]
pub struct Search {
    pub rider_dirs: Vec<PathBuf>,
    pub module_dirs: Vec<PathBuf>,
}

/// Runs `exec`; returns the process exit code (the program's, 2 for a compile error, 3
/// for an unavailable backend, 1 for a failed build).
pub fn exec(file: &std::path::Path, mode: &ExecMode, search: &Search) -> i32 {
    let mut options = datalove::Options::from_env();
    options
        .rider_dirs
        .splice(0..0, search.rider_dirs.iter().cloned());
    options.module_dirs = search.module_dirs.clone();
    let start = Instant::now();
    let compiled = match datalove::compile_file(file, &options) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{e}");
            eprintln!();
            return 2;
        }
    };
    let front_ms = start.elapsed().as_secs_f64() * 1000.0;
    let backend = |name: &str| datalove::Backend::from_name(name);
    match mode {
        ExecMode::Check => {
            eprintln!(
                "{}",
                Phases {
                    front_ms,
                    compile_ms: None
                }
                .line()
            );
            0
        }
        ExecMode::Build { backend: name, out } => {
            let Some(b) = backend(name) else {
                eprintln!("error: unknown backend `{name}`");
                return 2;
            };
            let start = Instant::now();
            let built = datalove::run::build_executable(&compiled, b, &options.rider_path(), out);
            let compile_ms = start.elapsed().as_secs_f64() * 1000.0;
            match built {
                Ok(()) => {
                    eprintln!(
                        "{}",
                        Phases {
                            front_ms,
                            compile_ms: Some(compile_ms)
                        }
                        .line()
                    );
                    0
                }
                Err(message) => {
                    eprintln!("error: {message}");
                    1
                }
            }
        }
        ExecMode::Run {
            backend: name,
            args,
        } => {
            let Some(b) = backend(name) else {
                eprintln!("error: unknown backend `{name}`");
                return 2;
            };
            let run_options = datalove::RunOptions {
                riders: options.rider_path(),
                check_leaks: false,
                capture: false,
                args: args.clone(),
                ..datalove::RunOptions::default()
            };
            match datalove::run(&compiled, b, &run_options) {
                Ok(result) => {
                    use std::io::Write;
                    let _ = std::io::stdout().flush();
                    result.outcome.print_to_stderr();
                    let compile_ms = result.compile_elapsed.map(|d| d.as_secs_f64() * 1000.0);
                    eprintln!(
                        "{}",
                        Phases {
                            front_ms,
                            compile_ms
                        }
                        .line()
                    );
                    result.outcome.exit_code
                }
                Err(u) => {
                    eprintln!(
                        "error: backend `{}` is unavailable: {}",
                        u.backend.name(),
                        u.reason
                    );
                    3
                }
            }
        }
    }
}
