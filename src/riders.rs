//! Where riders are found: the search path (`--rider-path`, `DATALOVE_RIDER_PATH`, and
//! the directories beside the `datalove` executable), their interfaces for the front end,
//! and their libraries for the backends that load them.

use std::path::{Path, PathBuf};

use datalove_ir::front::{FsLoader, Loader};

/// The environment variable holding extra rider directories, `:`-separated.
pub const RIDER_PATH_ENV: &str = "DATALOVE_RIDER_PATH";

/// The `std` rider's interface, built in.
pub const STD_DLI: &str = include_str!("../runtime/std/rider.dli");

/// The directories searched for riders, in order.
#[derive(Clone, Debug, Default)]
pub struct RiderPath {
    pub dirs: Vec<PathBuf>,
}

impl RiderPath {
    /// `explicit` first, then `DATALOVE_RIDER_PATH`, then the executable's directory and
    /// its `deps/` (where cargo puts the libraries of riders the CLI depends on).
    pub fn new(explicit: &[PathBuf]) -> RiderPath {
        let mut dirs: Vec<PathBuf> = explicit.to_vec();
        if let Some(env) = std::env::var_os(RIDER_PATH_ENV) {
            dirs.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
        }
        if let Ok(exe) = std::env::current_exe() {
            if let Some(dir) = exe.parent() {
                dirs.push(dir.to_path_buf());
                dirs.push(dir.join("deps"));
                // Integration tests and examples run from `deps/`: look one level up too.
                if dir.ends_with("deps") {
                    if let Some(up) = dir.parent() {
                        dirs.push(up.to_path_buf());
                    }
                }
            }
        }
        RiderPath { dirs }
    }

    /// The interface of rider `name`: built in for `std`, else `<dir>/<name>.dli` or
    /// `<dir>/<name>/rider.dli`.
    pub fn interface(&self, name: &str) -> Option<(String, String)> {
        if name == "std" {
            return Some(("<std>/rider.dli".to_string(), STD_DLI.to_string()));
        }
        self.dirs.iter().find_map(|dir| {
            [
                dir.join(format!("{name}.dli")),
                dir.join(name).join("rider.dli"),
            ]
            .into_iter()
            .find_map(|path| {
                let text = std::fs::read_to_string(&path).ok()?;
                Some((path.display().to_string(), text))
            })
        })
    }
}

/// The front end's loader: modules from the root file's directory and the built-in
/// library, rider interfaces from the rider path.
pub struct ProgramLoader {
    modules: FsLoader,
    riders: RiderPath,
}

impl ProgramLoader {
    pub fn new(root_path: &Path, module_dirs: Vec<PathBuf>, riders: RiderPath) -> ProgramLoader {
        let mut modules = FsLoader::for_root(&root_path.display().to_string());
        modules.module_dirs = module_dirs;
        ProgramLoader { modules, riders }
    }
}

impl Loader for ProgramLoader {
    fn module(&self, name: &str) -> Option<(String, String)> {
        self.modules.module(name)
    }

    fn rider(&self, name: &str) -> Option<(String, String)> {
        self.riders.interface(name)
    }
}
