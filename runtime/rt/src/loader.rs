//! Loading riders as shared libraries (the interpreter and the JIT; executables link
//! them instead). A rider `R` is the library `libdlr_R.so` (`.dylib` on macOS) found in
//! a search path; it exports `dtlv_rider_abi_version_R` (see
//! `datalove_rti::rider_abi_symbol`), which must return this runtime's ABI version, and
//! one `dlr_R__F` per native.
//!
//! Executables (aot, c) load their riders the same way at start, from the executable's
//! own directory, and fill the native slots their code calls through
//! ([`link_beside_executable`], read from the rider manifest of `datalove_rti::links`).

use std::ffi::c_void;
use std::fmt;
use std::path::{Path, PathBuf};

use datalove_rti::{rider_abi_symbol, ABI_VERSION};

/// Why a rider could not be loaded or a symbol found. `Display` is the whole message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// No `libdlr_<rider>.so` in any directory searched.
    NotFound {
        rider: String,
        file_name: String,
        searched: Vec<PathBuf>,
    },
    /// The library exists but the system loader refused it.
    Open {
        rider: String,
        path: PathBuf,
        message: String,
    },
    /// The library exports no ABI-version symbol: it is not a datalove rider (or not
    /// this rider).
    NoAbiSymbol {
        rider: String,
        path: PathBuf,
        symbol: String,
    },
    /// The rider was built for another ABI.
    AbiMismatch {
        rider: String,
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    /// A symbol the caller asked for is missing.
    MissingSymbol { symbol: String, path: PathBuf },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound {
                rider,
                file_name,
                searched,
            } => {
                write!(f, "rider `{rider}` not found: no {file_name} in ")?;
                if searched.is_empty() {
                    write!(f, "any directory (the search path is empty)")
                } else {
                    let dirs: Vec<String> =
                        searched.iter().map(|d| d.display().to_string()).collect();
                    write!(f, "{}", dirs.join(", "))
                }
            }
            LoadError::Open {
                rider,
                path,
                message,
            } => write!(
                f,
                "rider `{rider}`: cannot load {}: {message}",
                path.display()
            ),
            LoadError::NoAbiSymbol {
                rider,
                path,
                symbol,
            } => write!(
                f,
                "rider `{rider}`: {} does not export {symbol}; it is not a datalove rider built as `{rider}`",
                path.display()
            ),
            LoadError::AbiMismatch {
                rider,
                path,
                found,
                expected,
            } => write!(
                f,
                "rider `{rider}` ({}) was built for datalove ABI version {found}, but this runtime is ABI version {expected}; rebuild the rider",
                path.display()
            ),
            LoadError::MissingSymbol { symbol, path } => {
                write!(f, "symbol {symbol} not found in {}", path.display())
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// The system's reason for an error: libloading's `Display` says only `dlopen failed`,
/// and the reason (`dlerror`: the wrong architecture, a missing dependency, not an ELF
/// file) is its source.
fn with_reason(error: &dyn std::error::Error) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}

/// The file name of rider `rider`'s library: `libdlr_<rider>.so` on Linux.
pub fn rider_file_name(rider: &str) -> String {
    format!(
        "{}dlr_{rider}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// A loaded rider library. Symbols it hands out are valid while it lives: keep it
/// alive as long as anything may call into the rider.
pub struct RiderLibrary {
    rider: String,
    path: PathBuf,
    library: libloading::Library,
}

impl fmt::Debug for RiderLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RiderLibrary")
            .field("rider", &self.rider)
            .field("path", &self.path)
            .finish()
    }
}

impl RiderLibrary {
    /// Finds `libdlr_<rider>.so` in the first directory of `search_path` that has it,
    /// loads it and checks its ABI version.
    pub fn load(rider: &str, search_path: &[PathBuf]) -> Result<RiderLibrary, LoadError> {
        let file_name = rider_file_name(rider);
        let Some(path) = search_path
            .iter()
            .map(|dir| dir.join(&file_name))
            .find(|p| p.is_file())
        else {
            return Err(LoadError::NotFound {
                rider: rider.to_owned(),
                file_name,
                searched: search_path.to_vec(),
            });
        };
        RiderLibrary::load_path(rider, &path)
    }

    /// Loads a program built as a shared library (aot, c, for an embedder: see
    /// `datalove_toolchain::link_library`) from `path`, named `name` in messages. It
    /// has no ABI-version symbol: it links no runtime, and reaches the loading
    /// process's through the table `rt` points at.
    pub fn load_program(name: &str, path: &Path) -> Result<RiderLibrary, LoadError> {
        // SAFETY: as `load_path`; the program's library has no initializer of its own.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| LoadError::Open {
            rider: name.to_owned(),
            path: path.to_owned(),
            message: with_reason(&e),
        })?;
        Ok(RiderLibrary {
            rider: name.to_owned(),
            path: path.to_owned(),
            library,
        })
    }

    /// Loads rider `rider` from exactly `path` and checks its ABI version.
    pub fn load_path(rider: &str, path: &Path) -> Result<RiderLibrary, LoadError> {
        let lib = RiderLibrary::load_program(rider, path)?;
        let abi_symbol = rider_abi_symbol(rider);
        let version_fn = lib
            .symbol(&abi_symbol)
            .map_err(|_| LoadError::NoAbiSymbol {
                rider: rider.to_owned(),
                path: path.to_owned(),
                symbol: abi_symbol.clone(),
            })?;
        // SAFETY: the ABI symbol is an `extern "C" fn() -> u32` by contract.
        let found = unsafe {
            let f: extern "C" fn() -> u32 = std::mem::transmute(version_fn);
            f()
        };
        if found != ABI_VERSION {
            return Err(LoadError::AbiMismatch {
                rider: rider.to_owned(),
                path: path.to_owned(),
                found,
                expected: ABI_VERSION,
            });
        }
        Ok(lib)
    }

    pub fn rider(&self) -> &str {
        &self.rider
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The address a call of the native `name` (`dlr_<rider>__<function>`) is linked
    /// to: the runtime's own implementation when it provides one
    /// ([`crate::natives::provided`]: the `std` map natives), else the library's. The
    /// library must export `name` either way, so a rider without it is refused alike.
    pub fn native(&self, name: &str) -> Result<*const c_void, LoadError> {
        let exported = self.symbol(name)?;
        Ok(crate::natives::provided(&self.rider, name).unwrap_or(exported))
    }

    /// The address of `name` (a native's `dlr_<rider>__<function>`, say).
    pub fn symbol(&self, name: &str) -> Result<*const c_void, LoadError> {
        let missing = || LoadError::MissingSymbol {
            symbol: name.to_owned(),
            path: self.path.clone(),
        };
        // SAFETY: the symbol is only read as an address here; its type is the caller's.
        let symbol =
            unsafe { self.library.get::<*const c_void>(name.as_bytes()) }.map_err(|_| missing())?;
        let address = *symbol;
        if address.is_null() {
            return Err(missing());
        }
        Ok(address)
    }
}

/// Loads every rider of `manifest` from `dir` (`libdlr_<rider>.so` there), checks its ABI
/// version and looks up every native the manifest names, in order: the addresses, one
/// per slot, and the libraries, which must stay loaded while the natives may be called.
pub fn link_riders(
    dir: &Path,
    manifest: &datalove_rti::RiderManifest,
) -> Result<(Vec<RiderLibrary>, Vec<*const c_void>), LoadError> {
    let mut libraries = Vec::new();
    let mut addresses = Vec::new();
    for (rider, symbols) in &manifest.riders {
        let library = RiderLibrary::load(rider, &[dir.to_path_buf()])?;
        for symbol in symbols {
            addresses.push(library.native(symbol)?);
        }
        libraries.push(library);
    }
    Ok((libraries, addresses))
}

/// What an executable does at start: reads its rider manifest, links every rider from
/// the executable's own directory ([`link_riders`]) and writes each native's address
/// into its slot. `Err` is the message of `error: rider: ...`.
///
/// # Safety
/// `manifest` is a complete rider manifest and `slots` has room for one pointer per
/// native symbol in it.
pub unsafe fn link_beside_executable(
    manifest: *const u8,
    slots: *mut *const c_void,
) -> Result<Vec<RiderLibrary>, String> {
    let manifest = datalove_rti::RiderManifest::read(manifest)?;
    if manifest.riders.is_empty() {
        return Ok(Vec::new());
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate the executable to find its riders: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("/"));
    let (libraries, addresses) = link_riders(dir, &manifest).map_err(|e| e.to_string())?;
    for (k, address) in addresses.into_iter().enumerate() {
        *slots.add(k) = address;
    }
    Ok(libraries)
}
