//! Where riders are found: the search path (`--rider-path`, `DATALOVE_RIDER_PATH`, and
//! the directories beside the `datalove` executable), their interfaces for the front end,
//! and their libraries for the backends that load them.
//!
//! One rule serves both, so that a program is never checked against one interface and
//! run against another library: a rider is the first directory of the search path that
//! holds its interface (`<dir>/<rider>.dli`, the rider's directory being `<dir>`, or
//! `<dir>/<rider>/rider.dli`, the rider's directory being `<dir>/<rider>`), and its
//! library is `libdlr_<rider>.so` in that same directory. The `std` rider's interface is
//! built in; its directory is the first that holds `libdlr_std.so` (or that directory's
//! `deps/`, when cargo left a newer build there: `datalove_rt::artifact::newest_build_dir`).

use std::path::{Path, PathBuf};

use datalove_front::{read_file, FsLoader, Loaded, Loader, MemoryLoader};
use datalove_rt::loader::rider_file_name;

/// The environment variable holding extra rider directories, `:`-separated.
pub const RIDER_PATH_ENV: &str = "DATALOVE_RIDER_PATH";

/// The `std` rider's interface, built in.
pub const STD_DLI: &str = datalove_front::STD_RIDER_DLI;

/// The directories searched for riders, in order.
#[derive(Clone, Debug, Default)]
pub struct RiderPath {
    pub dirs: Vec<PathBuf>,
}

/// Where a rider was found: its directory, and its interface file there (`None` for the
/// built-in interface of `std`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RiderPlace {
    pub dir: PathBuf,
    pub interface: Option<PathBuf>,
}

impl RiderPath {
    /// `explicit` first, then `DATALOVE_RIDER_PATH`, then the executable's directory and
    /// its `deps/` (where cargo puts the libraries of riders the CLI depends on).
    pub fn new(explicit: &[PathBuf]) -> RiderPath {
        RiderPath::for_target(explicit, None)
    }

    /// The search path for building executables for `other_target` (a Rust triple;
    /// `None`: this machine's target): `explicit`, `DATALOVE_RIDER_PATH`, then the
    /// target's directories beside the executable
    /// (`datalove_rt::artifact::target_dirs`: for another target, its directory in the
    /// same cargo target directory, `target/<triple>/<profile>`).
    pub fn for_target(explicit: &[PathBuf], other_target: Option<&str>) -> RiderPath {
        let mut dirs: Vec<PathBuf> = explicit.to_vec();
        if let Some(env) = std::env::var_os(RIDER_PATH_ENV) {
            dirs.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
        }
        if let Ok(beside) = datalove_rt::artifact::target_dirs(other_target) {
            dirs.extend(beside);
        }
        RiderPath { dirs }
    }

    /// Where rider `name` is (the module's one rule): the first directory holding its
    /// interface, or for `std` its library.
    pub fn locate(&self, name: &str) -> Option<RiderPlace> {
        if name == "std" {
            let file = rider_file_name(name);
            return self
                .dirs
                .iter()
                .find(|dir| dir.join(&file).is_file())
                .map(|dir| RiderPlace {
                    dir: datalove_rt::artifact::newest_build_dir(dir, &file),
                    interface: None,
                });
        }
        self.dirs.iter().find_map(|dir| {
            [
                (dir.clone(), dir.join(format!("{name}.dli"))),
                (dir.join(name), dir.join(name).join("rider.dli")),
            ]
            .into_iter()
            .find(|(_, interface)| interface.exists())
            .map(|(dir, interface)| RiderPlace {
                dir,
                interface: Some(interface),
            })
        })
    }

    /// The interface of rider `name`: built in for `std`, else the one [`Self::locate`]
    /// finds (one that exists but cannot be read ends the search: the front end reports
    /// it).
    pub fn interface(&self, name: &str) -> Option<Loaded> {
        if name == "std" {
            return Some(Loaded::text("<std>/rider.dli", STD_DLI));
        }
        read_file(&self.locate(name)?.interface?)
    }

    /// The library of rider `name`: `libdlr_<name>.so` beside the interface
    /// [`Self::locate`] finds. `Err` says what is missing where.
    pub fn library(&self, name: &str) -> Result<PathBuf, String> {
        let file = rider_file_name(name);
        let Some(place) = self.locate(name) else {
            let searched: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
            let wanted = if name == "std" {
                file
            } else {
                format!("{name}.dli or {name}/rider.dli")
            };
            return Err(format!(
                "rider `{name}` not found: no {wanted} in {}",
                if searched.is_empty() {
                    "any directory (the search path is empty)".to_string()
                } else {
                    searched.join(", ")
                }
            ));
        };
        let library = place.dir.join(&file);
        if library.is_file() {
            return Ok(library);
        }
        Err(format!(
            "rider `{name}` not found: no {file} in {}, beside its interface {}",
            place.dir.display(),
            place
                .interface
                .as_deref()
                .unwrap_or(Path::new("<std>/rider.dli"))
                .display()
        ))
    }
}

/// The front end's loader: modules from the root file's directory and the built-in
/// library, rider interfaces from the rider path.
pub struct ProgramLoader {
    modules: FsLoader,
    riders: RiderPath,
    /// Modules and rider interfaces given as text, found first.
    given: Option<MemoryLoader>,
}

impl ProgramLoader {
    pub fn new(root_path: &Path, module_dirs: Vec<PathBuf>, riders: RiderPath) -> ProgramLoader {
        let mut modules = FsLoader::for_root(&root_path.display().to_string());
        modules.module_dirs = module_dirs;
        ProgramLoader {
            modules,
            riders,
            given: None,
        }
    }

    /// This loader, finding the modules and rider interfaces `given` holds before any
    /// other.
    pub fn with_given(mut self, given: MemoryLoader) -> ProgramLoader {
        self.given = Some(given);
        self
    }
}

impl Loader for ProgramLoader {
    fn module(&self, name: &str) -> Option<Loaded> {
        self.given
            .as_ref()
            .and_then(|given| given.module(name))
            .or_else(|| self.modules.module(name))
    }

    fn rider(&self, name: &str) -> Option<Loaded> {
        self.given
            .as_ref()
            .and_then(|given| given.rider(name))
            .or_else(|| self.riders.interface(name))
    }
}
