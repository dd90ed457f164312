//! Where riders are found: the search path (`--rider-path`, `DATALOVE_RIDER_PATH`, and
//! the directories beside the `datalove` executable), their interfaces for the front end,
//! and their libraries for the backends that load them.

use std::path::{Path, PathBuf};

use datalove_front::{read_file, FsLoader, Loaded, Loader};

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

    /// The interface of rider `name`: built in for `std`, else the first
    /// `<dir>/<name>.dli` or `<dir>/<name>/rider.dli` that exists (one that exists but
    /// cannot be read ends the search: the front end reports it).
    pub fn interface(&self, name: &str) -> Option<Loaded> {
        if name == "std" {
            return Some(Loaded::text("<std>/rider.dli", STD_DLI));
        }
        self.dirs.iter().find_map(|dir| {
            [
                dir.join(format!("{name}.dli")),
                dir.join(name).join("rider.dli"),
            ]
            .iter()
            .find_map(|path| read_file(path))
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
    fn module(&self, name: &str) -> Option<Loaded> {
        self.modules.module(name)
    }

    fn rider(&self, name: &str) -> Option<Loaded> {
        self.riders.interface(name)
    }
}
