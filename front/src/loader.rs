//! Finding modules and rider interfaces: the [`Loader`] trait the front end asks, and a
//! filesystem loader that also carries the standard modules of `library/` built in.
//!
//! A loader hands over bytes: the front end decodes them (one place decides what is not
//! UTF-8, and reports it located at the first bad byte, `S012`). A file that exists but
//! cannot be read ends the search with that error (`N011`); only a file that is not
//! there lets the search go on to the next directory.

use std::path::{Path, PathBuf};

/// A file the front end asked for, as the loader found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// Its path, for diagnostics.
    pub path: String,
    /// Its bytes, or why they could not be read (the file is there but unreadable).
    pub bytes: Result<Vec<u8>, String>,
}

impl Loaded {
    pub fn text(path: impl Into<String>, text: impl Into<String>) -> Loaded {
        Loaded {
            path: path.into(),
            bytes: Ok(text.into().into_bytes()),
        }
    }
}

/// Reads `path` for a search: `None` when there is no such file (the search goes on),
/// its bytes, or the error that kept an existing file from being read.
pub fn read_file(path: &Path) -> Option<Loaded> {
    use std::io::ErrorKind;
    let bytes = match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return None
        }
        Err(e) => Err(e.to_string()),
    };
    Some(Loaded {
        path: path.display().to_string(),
        bytes,
    })
}

/// Where the front end gets the text of what a program names. `Sync`, since the front
/// end asks for files from the thread its passes run on (`compile`).
pub trait Loader: Sync {
    /// The module `name` (`import name.f`), or `None` when there is none.
    fn module(&self, name: &str) -> Option<Loaded>;
    /// The interface of rider `name` (`require rider name`): a `.dli` file.
    fn rider(&self, name: &str) -> Option<Loaded>;
}

/// The standard modules, built into the compiler: `(module name, text)`.
pub const LIBRARY: &[(&str, &str)] = &[
    ("fixedint", include_str!("../../library/fixedint.dfm")),
    ("floats", include_str!("../../library/floats.dfm")),
    ("strings", include_str!("../../library/strings.dfm")),
    ("lists", include_str!("../../library/lists.dfm")),
    ("math", include_str!("../../library/math.dfm")),
    ("describe", include_str!("../../library/describe.dfm")),
    ("env", include_str!("../../library/env.dfm")),
    ("io", include_str!("../../library/io.dfm")),
    ("bigint", include_str!("../../library/bigint.dfm")),
    ("maps", include_str!("../../library/maps.dfm")),
    ("results", include_str!("../../library/results.dfm")),
];

/// The interface of the `std` rider (`runtime/std/rider.dli`), built in.
pub const STD_RIDER_DLI: &str = include_str!("../../runtime/std/rider.dli");

/// The built-in standard module `name`.
pub fn library_module(name: &str) -> Option<Loaded> {
    LIBRARY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| Loaded::text(format!("<library>/{n}.dfm"), *text))
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

/// The first `dir/file_name` of `dirs` that exists.
fn read_in(dirs: &[&Path], file_name: &str) -> Option<Loaded> {
    dirs.iter().find_map(|dir| read_file(&dir.join(file_name)))
}

impl Loader for FsLoader {
    fn module(&self, name: &str) -> Option<Loaded> {
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

    fn rider(&self, name: &str) -> Option<Loaded> {
        if let Some((_, path, text)) = self.builtin_riders.iter().find(|(r, _, _)| r == name) {
            return Some(Loaded::text(path.clone(), text.clone()));
        }
        let dirs: Vec<&Path> = self.rider_dirs.iter().map(PathBuf::as_path).collect();
        read_in(&dirs, &format!("{name}.dli"))
    }
}

/// A loader over files held in memory, for tests and embedders: `(name, path, bytes)`.
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    pub modules: Vec<(String, String, Vec<u8>)>,
    pub riders: Vec<(String, String, Vec<u8>)>,
    /// Whether modules not found in `modules` come from the built-in library, and the
    /// `std` rider's interface, unless `riders` holds one, is the built-in one.
    pub library: bool,
}

impl MemoryLoader {
    pub fn new() -> MemoryLoader {
        MemoryLoader {
            library: true,
            ..MemoryLoader::default()
        }
    }

    pub fn with_module(self, name: &str, text: &str) -> MemoryLoader {
        self.with_module_bytes(name, text.as_bytes())
    }

    /// A module given as bytes (which need not be UTF-8, for tests of that).
    pub fn with_module_bytes(mut self, name: &str, bytes: &[u8]) -> MemoryLoader {
        add_file(&mut self.modules, name, "dfm", bytes);
        self
    }

    pub fn with_rider(self, name: &str, text: &str) -> MemoryLoader {
        self.with_rider_bytes(name, text.as_bytes())
    }

    /// A rider interface given as bytes.
    pub fn with_rider_bytes(mut self, name: &str, bytes: &[u8]) -> MemoryLoader {
        add_file(&mut self.riders, name, "dli", bytes);
        self
    }
}

/// Adds the file of `name` (its path `<name>.<extension>`) to `files`.
fn add_file(files: &mut Vec<(String, String, Vec<u8>)>, name: &str, extension: &str, bytes: &[u8]) {
    files.push((name.into(), format!("{name}.{extension}"), bytes.to_vec()));
}

fn found(files: &[(String, String, Vec<u8>)], name: &str) -> Option<Loaded> {
    files
        .iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, path, bytes)| Loaded {
            path: path.clone(),
            bytes: Ok(bytes.clone()),
        })
}

impl Loader for MemoryLoader {
    fn module(&self, name: &str) -> Option<Loaded> {
        found(&self.modules, name).or_else(|| {
            if self.library {
                library_module(name)
            } else {
                None
            }
        })
    }

    fn rider(&self, name: &str) -> Option<Loaded> {
        found(&self.riders, name).or_else(|| {
            (self.library && name == "std").then(|| Loaded::text("<std>/rider.dli", STD_RIDER_DLI))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_loader_has_the_std_rider_unless_told_otherwise() {
        let module = "require rider std\nimport std.string_len\nfun len(ref s: string): index\n  ret string_len(ref s)\nend fun\n";
        let loader = MemoryLoader::new().with_module("strs", module);
        let compiled = crate::compile(
            &loader,
            "main.dfs",
            "import strs.len\nlet s = \"abc\"\ndebuglog len(ref s)\n",
        );
        assert!(
            compiled.is_ok(),
            "{}",
            compiled.err().map(|f| f.render()).unwrap_or_default()
        );
        // Without the built-ins, `std` is as unknown as any rider.
        let bare = MemoryLoader {
            library: false,
            ..MemoryLoader::new()
        };
        assert!(bare.rider("std").is_none());
        // A `std` interface given explicitly is the one used.
        let given = MemoryLoader::new().with_rider("std", "native fun only(): u8\n");
        let text = given.rider("std").unwrap().bytes.unwrap();
        assert_eq!(text, b"native fun only(): u8\n");
    }
}
