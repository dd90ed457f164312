//! The `datalove` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "datalove", version, about = "Compile and run datalove programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct Search {
    /// A directory of rider interfaces (`<rider>.dli`); also DATALOVE_RIDER_PATH.
    #[arg(long = "rider-path", value_name = "DIR")]
    rider_path: Vec<PathBuf>,
    /// A directory searched for modules (`<name>.dfm`) after the file's own.
    #[arg(long = "module-path", value_name = "DIR")]
    module_path: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Check a program: print its diagnostics; exit 2 if there are any.
    Check {
        file: PathBuf,
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
    };
    match datalove::compile_file(&file, &options(search)) {
        Ok(compiled) => {
            if let Some(Emit::Ir) = emit {
                print!("{}", datalove::ir::print::print_program(&compiled.program));
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
