//! Finding modules and rider interfaces: the [`Loader`] trait the front end asks, and a
//! filesystem loader that also carries the standard modules of `library/` built in.

use std::path::{Path, PathBuf};

/// Where the front end gets the text of what a program names.
pub trait Loader {
    /// The module `name` (`import name.f`): its path (for diagnostics) and text.
    fn module(&self, name: &str) -> Option<(String, String)>;
    /// The interface of rider `name` (`require rider name`): a `.dli` path and text.
    fn rider(&self, name: &str) -> Option<(String, String)>;
}

/// The standard modules, built into the compiler: `(module name, text)`.
pub const LIBRARY: &[(&str, &str)] = &[
    ("fixedint", include_str!("../../../library/fixedint.dfm")),
    ("floats", include_str!("../../../library/floats.dfm")),
    ("strings", include_str!("../../../library/strings.dfm")),
    ("lists", include_str!("../../../library/lists.dfm")),
    ("math", include_str!("../../../library/math.dfm")),
    ("describe", include_str!("../../../library/describe.dfm")),
    ("env", include_str!("../../../library/env.dfm")),
];

/// The built-in standard module `name`, as `(path, text)`.
pub fn library_module(name: &str) -> Option<(String, String)> {
    LIBRARY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| (format!("<library>/{n}.dfm"), text.to_string()))
}

/// Looks for `NAME.dfm` in the root file's directory, then in `module_dirs`, then among
/// the built-in library; and for `NAME.dli` among `builtin_riders`, then in `rider_dirs`.
#[derive(Clone, Debug, Default)]
pub struct FsLoader {
    pub root_dir: Option<PathBuf>,
    pub module_dirs: Vec<PathBuf>,
    pub rider_dirs: Vec<PathBuf>,
    /// Rider interfaces known without a search: `(rider, path, text)`.
    pub builtin_riders: Vec<(String, String, String)>,
}

impl FsLoader {
    /// A loader for the program whose root file is `root_path`.
    pub fn for_root(root_path: &str) -> FsLoader {
        FsLoader {
            root_dir: Path::new(root_path).parent().map(Path::to_path_buf),
            ..FsLoader::default()
        }
    }

    pub fn with_module_dir(mut self, dir: impl Into<PathBuf>) -> FsLoader {
        self.module_dirs.push(dir.into());
        self
    }

    pub fn with_rider_dir(mut self, dir: impl Into<PathBuf>) -> FsLoader {
        self.rider_dirs.push(dir.into());
        self
    }

    pub fn with_builtin_rider(
        mut self,
        rider: impl Into<String>,
        path: impl Into<String>,
        text: impl Into<String>,
    ) -> FsLoader {
        self.builtin_riders
            .push((rider.into(), path.into(), text.into()));
        self
    }
}

fn read_in(dirs: &[&Path], file_name: &str) -> Option<(String, String)> {
    dirs.iter().find_map(|dir| {
        let path = dir.join(file_name);
        let text = std::fs::read_to_string(&path).ok()?;
        Some((path.display().to_string(), text))
    })
}

impl Loader for FsLoader {
    fn module(&self, name: &str) -> Option<(String, String)> {
        let file_name = format!("{name}.dfm");
        let root: Option<&Path> = match &self.root_dir {
            Some(d) if d.as_os_str().is_empty() => Some(Path::new(".")),
            Some(d) => Some(d),
            None => None,
        };
        let dirs: Vec<&Path> = root
            .into_iter()
            .chain(self.module_dirs.iter().map(PathBuf::as_path))
            .collect();
        read_in(&dirs, &file_name).or_else(|| library_module(name))
    }

    fn rider(&self, name: &str) -> Option<(String, String)> {
        if let Some((_, path, text)) = self.builtin_riders.iter().find(|(r, _, _)| r == name) {
            return Some((path.clone(), text.clone()));
        }
        let dirs: Vec<&Path> = self.rider_dirs.iter().map(PathBuf::as_path).collect();
        read_in(&dirs, &format!("{name}.dli"))
    }
}

/// A loader over texts held in memory, for tests and embedders: `(name, path, text)`.
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    pub modules: Vec<(String, String, String)>,
    pub riders: Vec<(String, String, String)>,
    /// Whether modules not found in `modules` come from the built-in library.
    pub library: bool,
}

impl MemoryLoader {
    pub fn new() -> MemoryLoader {
        MemoryLoader {
            library: true,
            ..MemoryLoader::default()
        }
    }

    pub fn with_module(mut self, name: &str, text: &str) -> MemoryLoader {
        self.modules
            .push((name.into(), format!("{name}.dfm"), text.into()));
        self
    }

    pub fn with_rider(mut self, name: &str, text: &str) -> MemoryLoader {
        self.riders
            .push((name.into(), format!("{name}.dli"), text.into()));
        self
    }
}

impl Loader for MemoryLoader {
    fn module(&self, name: &str) -> Option<(String, String)> {
        self.modules
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, p, t)| (p.clone(), t.clone()))
            .or_else(|| {
                if self.library {
                    library_module(name)
                } else {
                    None
                }
            })
    }

    fn rider(&self, name: &str) -> Option<(String, String)> {
        self.riders
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, p, t)| (p.clone(), t.clone()))
    }
}
