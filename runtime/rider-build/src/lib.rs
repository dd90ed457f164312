//! `build.rs` helper for rider crates: parses the rider's `.dli`, derives each native's
//! exact Rust signature, and writes a file the rider `include!`s that holds every
//! implementation to it, so an implementation that disagrees with its declaration is a
//! build error naming the native.
//!
//! In the rider crate:
//!
//! ```text
//! # Cargo.toml
//! [dependencies]
//! datalove-rti = ...
//! [build-dependencies]
//! datalove-rider-build = ...
//! ```
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     datalove_rider_build::check_rider("std", "rider.dli");
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs (at the crate root, where the `dlr_std__*` functions are)
//! include!(concat!(env!("OUT_DIR"), "/datalove_rider.rs"));
//! ```
//!
//! The included file holds, per native, one item whose name includes the native's:
//!
//! ```ignore
//! type Signature_string_len = unsafe extern "C-unwind" fn(rt: RtHandle,
//!     s: &rtdt::String, s_td: &TyDesc, result_out: &mut MaybeUninit<rtdt::Index>,
//!     result_td: &TyDesc) -> u8;
//! const CHECK_string_len: Signature_string_len = dlr_std__string_len;
//! ```
//!
//! and, unless turned off with [`RiderBuild::export_abi_version`], the rider's ABI-version
//! export (`datalove_rti::export_rider!(std);`), so the rider's own source does not call
//! `export_rider!`: when it does (found in `src/`), the build stops with
//! [`BuildError::DuplicateAbiExport`], naming the line and the two ways to keep one export,
//! instead of the duplicate symbol two exports would make. The rider crate must depend on
//! the ABI crate under its own name, `datalove_rti`.
//!
//! Signature mapping (DESIGN section 3): `rt: RtHandle`; per parameter its value word then
//! `&TyDesc`; a nameable type by reference (`&T` for `ref` and for `in` scalars, `&mut T`
//! for `mut`, `&mut T` for an `in` string, list or data, which is handed over to be
//! taken, `&mut MaybeUninit<T>` for `out`); a value at a type parameter, an option or a
//! tuple as `AnyRef<'_>` (ref), `AnyMut<'_>` (mut), `AnyOwned<'_>` (in), `AnyOut<'_>`
//! (out); the result as `&mut MaybeUninit<T>` (nameable; `()` for unit) or `AnyOut<'_>`,
//! then `&TyDesc`; then one `&TyDesc` per undetermined type parameter; returning `u8`.

use std::fmt;
use std::path::{Path, PathBuf};

use datalove_ir::diag::{Sources, Span};
use datalove_ir::native::{NativeDecl, RiderInterface};
use datalove_ir::{native_symbol, FileId, IrType, ParamMode};

mod c_header;
pub use c_header::{c_declaration, c_header, c_header_file_name, c_header_for_file, rider_of_path};

pub use datalove_ir::dli::parse_dli;

/// The file written into `OUT_DIR`, for the rider to `include!`.
pub const GENERATED_FILE: &str = "datalove_rider.rs";

/// Parses `dli` (relative to the rider crate's manifest directory), prints its
/// diagnostics and fails the build on errors, and writes [`GENERATED_FILE`] into
/// `OUT_DIR`. Returns the interface. Call from `build.rs`.
pub fn check_rider(rider: &str, dli: impl AsRef<Path>) -> RiderInterface {
    RiderBuild::new(rider, dli).run()
}

/// The builder behind [`check_rider`].
#[derive(Clone, Debug)]
pub struct RiderBuild {
    rider: String,
    dli: PathBuf,
    export_abi_version: bool,
    out_dir: Option<PathBuf>,
}

/// Why a rider's build check could not be written.
#[derive(Debug)]
pub enum BuildError {
    /// The rider's name cannot be a symbol part (`[a-z_][a-z0-9_]*`).
    BadRiderName(String),
    /// A required environment variable (`OUT_DIR`, `CARGO_MANIFEST_DIR`) is not set.
    MissingEnv(&'static str),
    /// Reading the `.dli` or writing the generated file failed.
    Io(PathBuf, std::io::Error),
    /// The `.dli` has errors; the text is the rendered diagnostics.
    Diagnostics { count: usize, rendered: String },
    /// The crate exports its ABI version itself (`export_rider!` at `file:line`) while the
    /// generated file would export it too: two definitions of one symbol.
    DuplicateAbiExport {
        rider: String,
        file: PathBuf,
        line: usize,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::BadRiderName(name) => write!(
                f,
                "rider name `{name}` is not a valid rider name (lowercase letters, digits and `_`, not starting with a digit)"
            ),
            BuildError::MissingEnv(var) => {
                write!(f, "`{var}` is not set: call datalove-rider-build from build.rs")
            }
            BuildError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            BuildError::Diagnostics { count, rendered } => {
                write!(f, "{rendered}")?;
                let s = if *count == 1 { "" } else { "s" };
                write!(f, "the rider interface has {count} error{s}")
            }
            BuildError::DuplicateAbiExport { rider, file, line } => write!(
                f,
                "{}:{line}: `export_rider!` exports rider `{rider}`'s ABI version (`{}`), which \
                 datalove-rider-build's generated file also exports, and one symbol cannot be \
                 defined twice. Keep one: delete the `export_rider!` line (the generated \
                 export is the same), or keep it and turn the generated one off in build.rs \
                 with `RiderBuild::new(\"{rider}\", ...).export_abi_version(false).run()`",
                file.display(),
                datalove_rti::rider_abi_symbol(rider)
            ),
        }
    }
}

impl std::error::Error for BuildError {}

impl RiderBuild {
    pub fn new(rider: &str, dli: impl AsRef<Path>) -> RiderBuild {
        RiderBuild {
            rider: rider.to_string(),
            dli: dli.as_ref().to_path_buf(),
            export_abi_version: true,
            out_dir: None,
        }
    }

    /// Whether the generated file also exports the rider's ABI version (default: yes).
    /// Turn it off when the crate calls `datalove_rti::export_rider!` itself; left on, a
    /// call of `export_rider!` under `src/` stops the build naming its line
    /// ([`BuildError::DuplicateAbiExport`]).
    pub fn export_abi_version(mut self, export: bool) -> RiderBuild {
        self.export_abi_version = export;
        self
    }

    /// Where to write the generated file (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> RiderBuild {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// As [`RiderBuild::try_run`], printing the error and failing the build script on one.
    pub fn run(self) -> RiderInterface {
        match self.try_run() {
            Ok(iface) => iface,
            Err(e) => {
                eprintln!("{e}");
                if let BuildError::Diagnostics { count, .. } = &e {
                    println!(
                        "cargo:warning=rider `{}`: {} has {count} error(s); see the build script's output",
                        self.rider,
                        self.dli.display()
                    );
                }
                if let BuildError::DuplicateAbiExport { .. } = &e {
                    // Shown at the top of cargo's output, not only in the script's stderr.
                    println!("cargo:warning={e}");
                }
                std::process::exit(1);
            }
        }
    }

    /// Parses the `.dli`, tells cargo to rerun when it changes, and writes the check file.
    pub fn try_run(&self) -> Result<RiderInterface, BuildError> {
        if !valid_rider_name(&self.rider) {
            return Err(BuildError::BadRiderName(self.rider.clone()));
        }
        let path = if self.dli.is_absolute() {
            self.dli.clone()
        } else {
            let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
                .ok_or(BuildError::MissingEnv("CARGO_MANIFEST_DIR"))?;
            PathBuf::from(manifest).join(&self.dli)
        };
        println!("cargo:rerun-if-changed={}", path.display());
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => {
                PathBuf::from(std::env::var_os("OUT_DIR").ok_or(BuildError::MissingEnv("OUT_DIR"))?)
            }
        };
        if self.export_abi_version {
            if let Some(manifest) = std::env::var_os("CARGO_MANIFEST_DIR") {
                let src = PathBuf::from(manifest).join("src");
                // Rerun when a source changes, so an `export_rider!` added later is seen.
                println!("cargo:rerun-if-changed={}", src.display());
                if let Some((file, line)) = find_abi_export(&src) {
                    let file = file
                        .strip_prefix(src.parent().unwrap_or(&src))
                        .unwrap_or(&file);
                    return Err(BuildError::DuplicateAbiExport {
                        rider: self.rider.clone(),
                        file: file.to_path_buf(),
                        line,
                    });
                }
            }
        }
        let text = std::fs::read_to_string(&path).map_err(|e| BuildError::Io(path.clone(), e))?;
        let display_name = self.dli.display().to_string();
        let iface = parse_rider(&self.rider, &display_name, &text)?;
        let generated = generate(&iface, &display_name, &text, self.export_abi_version);
        let out = out_dir.join(GENERATED_FILE);
        // Leave an unchanged file alone so the rider is not rebuilt for nothing.
        if std::fs::read_to_string(&out).ok().as_deref() != Some(generated.as_str()) {
            std::fs::write(&out, generated).map_err(|e| BuildError::Io(out.clone(), e))?;
        }
        Ok(iface)
    }
}

/// Parses a rider's `.dli` text, rendering any diagnostics against `file_name`.
pub fn parse_rider(rider: &str, file_name: &str, text: &str) -> Result<RiderInterface, BuildError> {
    let mut sources = Sources::new();
    let file = sources.add(file_name, text);
    parse_dli(rider, file, text).map_err(|diags| BuildError::Diagnostics {
        count: diags.len(),
        rendered: sources.render(&diags),
    })
}

/// The first call of `export_rider!` (outside a `//` comment) in the `.rs` files under
/// `dir`, searched in name order: (file, 1-based line).
fn find_abi_export(dir: &Path) -> Option<(PathBuf, usize)> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    entries.into_iter().find_map(|path| {
        if path.is_dir() {
            return find_abi_export(&path);
        }
        if path.extension().is_none_or(|e| e != "rs") {
            return None;
        }
        let text = std::fs::read_to_string(&path).ok()?;
        let line = text.lines().position(calls_export_rider)?;
        Some((path, line + 1))
    })
}

/// Whether a line of Rust calls `export_rider!` (before any `//` comment on it).
fn calls_export_rider(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("export_rider").any(|(at, name)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].trim_start();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('!')
    })
}

fn valid_rider_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The spellings of a type that has one (scalars, string, list, data, map, bigint): in
/// Rust, in the terms the generated file imports (`rtdt::String`, `rtdt::Index`, ...), and
/// in C, in `datalove_rti.h`'s types (`bool` is one byte, 0 or 1, as in the runtime; unit
/// has no C type and travels as `void`).
pub(crate) fn spellings(ty: &IrType) -> Option<(&'static str, &'static str)> {
    Some(match ty {
        IrType::Unit => ("()", "void"),
        IrType::Bool => ("bool", "uint8_t"),
        IrType::U8 => ("u8", "uint8_t"),
        IrType::U16 => ("u16", "uint16_t"),
        IrType::U32 => ("u32", "uint32_t"),
        IrType::U64 => ("u64", "uint64_t"),
        IrType::I8 => ("i8", "int8_t"),
        IrType::I16 => ("i16", "int16_t"),
        IrType::I32 => ("i32", "int32_t"),
        IrType::I64 => ("i64", "int64_t"),
        IrType::F32 => ("f32", "float"),
        IrType::F64 => ("f64", "double"),
        IrType::Index => ("rtdt::Index", "dtlv_index_t"),
        IrType::String => ("rtdt::String", "dtlv_string_t"),
        IrType::List(_) => ("rtdt::List", "dtlv_list_t"),
        IrType::Map(..) => ("rtdt::Map", "dtlv_map_t"),
        IrType::Data => ("rtdt::Data", "dtlv_data_t"),
        IrType::BigInt => ("rtdt::BigInt", "dtlv_bigint_t"),
        IrType::Option(_)
        | IrType::Tuple(_)
        | IrType::Record(_)
        | IrType::Enum(_)
        | IrType::Param(_) => return None,
    })
}

/// The Rust spelling of a type that has one (the first of `spellings`).
pub fn nameable_type(ty: &IrType) -> Option<&'static str> {
    spellings(ty).map(|(rust, _)| rust)
}

/// The Rust type of one parameter's value word.
pub fn param_type(mode: ParamMode, ty: &IrType) -> String {
    match nameable_type(ty) {
        Some(t) => match mode {
            ParamMode::Ref => format!("&{t}"),
            ParamMode::In if ty.is_scalar() => format!("&{t}"),
            ParamMode::In | ParamMode::Mut => format!("&mut {t}"),
            ParamMode::Out => format!("&mut MaybeUninit<{t}>"),
        },
        None => match mode {
            ParamMode::Ref => "AnyRef<'_>".to_string(),
            ParamMode::Mut => "AnyMut<'_>".to_string(),
            ParamMode::In => "AnyOwned<'_>".to_string(),
            ParamMode::Out => "AnyOut<'_>".to_string(),
        },
    }
}

/// The Rust type of the result word.
pub fn result_type(ty: &IrType) -> String {
    match nameable_type(ty) {
        Some(t) => format!("&mut MaybeUninit<{t}>"),
        None => "AnyOut<'_>".to_string(),
    }
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// A `.dli` name as a Rust parameter name (a keyword gets a trailing `_`).
fn rust_name(name: &str) -> String {
    if RUST_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// The parameter list (without parentheses) of a native's Rust signature, with names.
fn rust_params(decl: &NativeDecl) -> Vec<String> {
    let mut params = vec!["rt: RtHandle".to_string()];
    for p in &decl.params {
        let name = rust_name(&p.name);
        params.push(format!("{name}: {}", param_type(p.mode, &p.ty)));
        params.push(format!("{}_td: &TyDesc", p.name));
    }
    params.push(format!("result_out: {}", result_type(&decl.result)));
    params.push("result_td: &TyDesc".to_string());
    let taken: Vec<&str> = params.iter().filter_map(|p| p.split(':').next()).collect();
    for name in trailing_names(decl, &taken) {
        params.push(format!("{name}: &TyDesc"));
    }
    params
}

/// The names of a native's trailing descriptors (one per undetermined type parameter),
/// each named after its type parameter (`t_td` for `T`) and kept apart from `taken`, the
/// names the parameters already use.
fn trailing_names(decl: &NativeDecl, taken: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for n in decl.undetermined_type_params() {
        let base = decl
            .type_params
            .get(n as usize)
            .map_or_else(|| format!("t{n}"), |tp| tp.name.to_lowercase());
        let mut name = format!("{base}_td");
        while taken.contains(&name.as_str()) || names.contains(&name) {
            name = format!("{base}_type_{name}");
        }
        names.push(name);
    }
    names
}

/// Where a native is declared (`rider.dli:3:1`) and its declaration's text on one line,
/// for the comments of generated files.
fn declared_at(
    sources: &Sources,
    file: FileId,
    dli_text: &str,
    decl: &NativeDecl,
) -> (String, String) {
    let start = decl.span.start as usize;
    let end = (decl.span.end as usize).min(dli_text.len());
    let source = dli_text
        .get(start..end)
        .unwrap_or(&decl.name)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // The interface may have been parsed under another file id: locate in ours.
    let location = sources.location(Span {
        file,
        start: decl.span.start.min(dli_text.len() as u32),
        end: decl.span.end,
    });
    (location, source)
}

/// The exact Rust type of a native's implementation, as a function pointer type:
/// `unsafe extern "C-unwind" fn(rt: RtHandle, s: &rtdt::String, s_td: &TyDesc,
/// result_out: &mut MaybeUninit<rtdt::Index>, result_td: &TyDesc) -> u8`. Paths are the
/// generated file's imports: `RtHandle`, `rtdt::*`, `TyDesc`, `MaybeUninit`, `Any*`.
pub fn rust_signature(decl: &NativeDecl) -> String {
    format!(
        "unsafe extern \"C-unwind\" fn({}) -> u8",
        rust_params(decl).join(", ")
    )
}

/// The declaration an implementation of `decl` in rider `rider` starts with, for
/// messages and documentation: `#[no_mangle] pub unsafe extern "C-unwind" fn
/// dlr_std__string_len(rt: RtHandle, ...) -> u8`.
pub fn rust_declaration(rider: &str, decl: &NativeDecl) -> String {
    format!(
        "#[no_mangle]\npub unsafe extern \"C-unwind\" fn {}(\n    {},\n) -> u8",
        native_symbol(rider, &decl.name),
        rust_params(decl).join(",\n    ")
    )
}

/// The contents of [`GENERATED_FILE`] for an interface parsed from `dli_text`
/// (`dli_name` names it in comments).
pub fn generate(
    iface: &RiderInterface,
    dli_name: &str,
    dli_text: &str,
    export_abi_version: bool,
) -> String {
    let mut sources = Sources::new();
    let file = sources.add(dli_name, dli_text);
    let mut out = String::new();
    out.push_str(&format!(
        "// Generated by datalove-rider-build from {dli_name}; do not edit.\n\
         //\n\
         // Each `CHECK_<native>` constant below is the exact Rust signature {dli_name}\n\
         // declares for one native of rider `{rider}`. A \"mismatched types\" error on one\n\
         // means that native's implementation disagrees with its declaration; a \"cannot\n\
         // find value\" error means it is missing.\n\n",
        rider = iface.rider
    ));
    out.push_str("const _: () = {\n");
    out.push_str("    #[allow(unused_imports)]\n");
    out.push_str(
        "    use ::datalove_rti::rtdt::{self, AnyMut, AnyOut, AnyOwned, AnyRef, RtHandle};\n",
    );
    out.push_str("    #[allow(unused_imports)]\n");
    out.push_str("    use ::datalove_rti::TyDesc;\n");
    out.push_str("    #[allow(unused_imports)]\n");
    out.push_str("    use ::core::mem::MaybeUninit;\n");
    for decl in &iface.natives {
        let (location, source) = declared_at(&sources, file, dli_text, decl);
        out.push('\n');
        out.push_str(&format!("    // {location}: {source}\n"));
        out.push_str("    // expected implementation:\n");
        for line in rust_declaration(&iface.rider, decl).lines() {
            out.push_str(&format!("    //     {line}\n"));
        }
        // The signature gets a name of its own so that the line an error points at is
        // short enough to be shown whole: `const CHECK_<native>: ... = <symbol>;`.
        out.push_str("    #[allow(non_camel_case_types, dead_code)]\n");
        out.push_str(&format!(
            "    type Signature_{} = {};\n",
            decl.name,
            rust_signature(decl)
        ));
        out.push_str("    #[allow(non_upper_case_globals, dead_code)]\n");
        out.push_str(&format!(
            "    const CHECK_{name}: Signature_{name} = {};\n",
            native_symbol(&iface.rider, &decl.name),
            name = decl.name,
        ));
    }
    out.push_str("};\n");
    if export_abi_version {
        out.push_str(&format!(
            "\n// The ABI version this rider was built for, exported as `{}`.\n::datalove_rti::export_rider!({});\n",
            datalove_rti::rider_abi_symbol(&iface.rider),
            iface.rider
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(text: &str) -> NativeDecl {
        let iface = parse_dli("t", FileId(0), text).unwrap();
        iface.natives[0].clone()
    }

    fn sig(text: &str) -> String {
        rust_signature(&decl(text))
    }

    #[test]
    fn signatures_by_mode() {
        for (dli, expected) in [
            // `strings.len`.
            (
                "native fun string_len(ref s: string): index",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, s: &rtdt::String, s_td: &TyDesc, \
                 result_out: &mut MaybeUninit<rtdt::Index>, result_td: &TyDesc) -> u8",
            ),
            // A result-only type parameter's descriptor trails.
            (
                "native fun fixedint_zero<T>(): T where { T is fixedint, }",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, result_out: AnyOut<'_>, \
                 result_td: &TyDesc, t_td: &TyDesc) -> u8",
            ),
            (
                "native fun parse_int<T>(ref s: string): ?T where { T is fixedint, }",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, s: &rtdt::String, s_td: &TyDesc, \
                 result_out: AnyOut<'_>, result_td: &TyDesc, t_td: &TyDesc) -> u8",
            ),
            // Scalars, by mode.
            (
                "native fun m(a: u32, ref b: f64, mut c: bool, out d: i8, e: index, f: unit)",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, a: &u32, a_td: &TyDesc, b: &f64, \
                 b_td: &TyDesc, c: &mut bool, c_td: &TyDesc, d: &mut MaybeUninit<i8>, \
                 d_td: &TyDesc, e: &rtdt::Index, e_td: &TyDesc, f: &(), f_td: &TyDesc, \
                 result_out: &mut MaybeUninit<()>, result_td: &TyDesc) -> u8",
            ),
            // Strings, lists and data, by mode.
            (
                "native fun m(ref a: string, mut b: [u8], c: data, out d: string): [string]",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, a: &rtdt::String, a_td: &TyDesc, \
                 b: &mut rtdt::List, b_td: &TyDesc, c: &mut rtdt::Data, c_td: &TyDesc, \
                 d: &mut MaybeUninit<rtdt::String>, d_td: &TyDesc, \
                 result_out: &mut MaybeUninit<rtdt::List>, result_td: &TyDesc) -> u8",
            ),
            // Bigints, by mode.
            (
                "native fun m(ref a: bigint, mut b: bigint, c: bigint, out d: bigint): bigint",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, a: &rtdt::BigInt, a_td: &TyDesc, \
                 b: &mut rtdt::BigInt, b_td: &TyDesc, c: &mut rtdt::BigInt, c_td: &TyDesc, \
                 d: &mut MaybeUninit<rtdt::BigInt>, d_td: &TyDesc, \
                 result_out: &mut MaybeUninit<rtdt::BigInt>, result_td: &TyDesc) -> u8",
            ),
            // Generic values, options and tuples are `Any*`.
            (
                "native fun m<T>(ref a: T, mut b: ?u8, c: (u8, T), out d: T, ref e: [T]): (u8,)",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, a: AnyRef<'_>, a_td: &TyDesc, \
                 b: AnyMut<'_>, b_td: &TyDesc, c: AnyOwned<'_>, c_td: &TyDesc, d: AnyOut<'_>, \
                 d_td: &TyDesc, e: &rtdt::List, e_td: &TyDesc, result_out: AnyOut<'_>, \
                 result_td: &TyDesc) -> u8",
            ),
            // Rust keywords are escaped.
            (
                "native fun k(in: u8, ref type: u8)",
                "unsafe extern \"C-unwind\" fn(rt: RtHandle, in_: &u8, in_td: &TyDesc, \
                 type_: &u8, type_td: &TyDesc, result_out: &mut MaybeUninit<()>, \
                 result_td: &TyDesc) -> u8",
            ),
        ] {
            assert_eq!(sig(dli), expected, "{dli}");
        }
    }

    #[test]
    fn generated_file_names_every_native() {
        let text = "native fun a(x: u8): u8\n# c\nnative fun b<T>(): T\n";
        let iface = parse_dli("demo", FileId(0), text).unwrap();
        let generated = generate(&iface, "rider.dli", text, true);
        assert!(generated.contains(
            "type Signature_a = unsafe extern \"C-unwind\" fn(rt: RtHandle, x: &u8, \
             x_td: &TyDesc, result_out: &mut MaybeUninit<u8>, result_td: &TyDesc) -> u8;\n"
        ));
        assert!(generated.contains("const CHECK_a: Signature_a = dlr_demo__a;\n"));
        assert!(generated.contains("// rider.dli:3:1: native fun b<T>(): T\n"));
        assert!(generated.contains("const CHECK_b: Signature_b = dlr_demo__b;\n"));
        assert!(generated.contains("::datalove_rti::export_rider!(demo);"));
        assert!(!generate(&iface, "rider.dli", text, false).contains("export_rider"));
    }

    #[test]
    fn declaration_is_a_skeleton() {
        let d = decl("native fun len(ref s: string): index");
        assert_eq!(
            rust_declaration("std", &d),
            "#[no_mangle]\npub unsafe extern \"C-unwind\" fn dlr_std__len(\n    rt: RtHandle,\n    \
             s: &rtdt::String,\n    s_td: &TyDesc,\n    result_out: &mut MaybeUninit<rtdt::Index>,\n    \
             result_td: &TyDesc,\n) -> u8"
        );
    }

    #[test]
    fn parse_errors_are_rendered() {
        let Err(BuildError::Diagnostics { count, rendered }) =
            parse_rider("demo", "rider.dli", "native fun a(x: strng)")
        else {
            panic!("expected diagnostics")
        };
        assert_eq!(count, 1);
        assert!(rendered.contains("L003"), "{rendered}");
        assert!(rendered.contains("rider.dli:1:17"), "{rendered}");
    }

    #[test]
    fn trailing_names_do_not_collide() {
        assert_eq!(
            sig("native fun z<T>(t: u8): T"),
            "unsafe extern \"C-unwind\" fn(rt: RtHandle, t: &u8, t_td: &TyDesc, \
             result_out: AnyOut<'_>, result_td: &TyDesc, t_type_t_td: &TyDesc) -> u8"
        );
    }

    #[test]
    fn export_rider_calls_are_found() {
        for (line, calls) in [
            ("datalove_rti::export_rider!(std);", true),
            ("    export_rider! (std);", true),
            ("// datalove_rti::export_rider!(std);", false),
            ("fn x() {} // export_rider!(std)", false),
            ("my_export_rider!(std);", false),
            ("let export_rider = 1;", false),
        ] {
            assert_eq!(calls_export_rider(line), calls, "{line}");
        }
    }

    #[test]
    fn rider_names() {
        for (name, valid) in [
            ("std", true),
            ("test_rider2", true),
            ("Std", false),
            ("2x", false),
            ("", false),
            ("a-b", false),
        ] {
            assert_eq!(valid_rider_name(name), valid, "{name:?}");
        }
    }
}
