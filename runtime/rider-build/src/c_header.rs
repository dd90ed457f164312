//! The C view of a rider's `.dli`: a header of prototypes, one per native, that the
//! rider's C file includes before defining them, so a definition whose signature
//! disagrees with its declaration is a C compile error naming the native ("conflicting
//! types for `dlr_<rider>__<native>`"), as [`crate::generate`] makes it a build error for
//! a rider in Rust.
//!
//! The mapping is [`crate::param_type`]'s, spelled in `datalove_rti.h`'s types: a value
//! word is a pointer to the C type of a nameable type (`const` for `ref` and for `in`
//! scalars; not for `mut`, `out`, or an `in` string, list or data, which the native
//! takes), `void *` (`const void *` for `ref`) for a value at a type parameter, an option
//! or a tuple; every descriptor is `const dtlv_tydesc_t *`; the status is `uint8_t`.

use std::path::Path;

use datalove_ir::diag::Sources;
use datalove_ir::native::{NativeDecl, RiderInterface};
use datalove_ir::{native_symbol, IrType, ParamMode};

use crate::BuildError;

/// The C type a nameable value is stored as (the second of `crate::spellings`).
fn c_type(ty: &IrType) -> Option<&'static str> {
    crate::spellings(ty).map(|(_, c)| c)
}

/// The C type of one parameter's value word.
fn c_param_type(mode: ParamMode, ty: &IrType) -> String {
    let base = c_type(ty).unwrap_or("void");
    let read_only = match mode {
        ParamMode::Ref => true,
        ParamMode::In => c_type(ty).is_some() && (ty.is_scalar() || *ty == IrType::Unit),
        ParamMode::Mut | ParamMode::Out => false,
    };
    if read_only {
        format!("const {base} *")
    } else {
        format!("{base} *")
    }
}

const C_KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
    "rt",
    "result_out",
    "result_td",
];

/// A `.dli` parameter name as a C parameter name: a keyword, or a name the ABI's own
/// parameters use, gets a trailing `_`.
fn c_name(name: &str) -> String {
    if C_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// A native's C prototype, without the closing `;`: `uint8_t dlr_std__len(void *rt,
/// const dtlv_string_t *s, const dtlv_tydesc_t *s_td, dtlv_index_t *result_out, const
/// dtlv_tydesc_t *result_td)`.
pub fn c_declaration(rider: &str, decl: &NativeDecl) -> String {
    let mut params = vec!["void *rt".to_string()];
    let mut taken = Vec::new();
    for p in &decl.params {
        let name = c_name(&p.name);
        let td = c_name(&format!("{}_td", p.name));
        params.push(format!("{}{name}", c_param_type(p.mode, &p.ty)));
        params.push(format!("const dtlv_tydesc_t *{td}"));
        taken.push(name);
        taken.push(td);
    }
    let result = c_type(&decl.result).unwrap_or("void");
    params.push(format!("{result} *result_out"));
    params.push("const dtlv_tydesc_t *result_td".to_string());
    let taken: Vec<&str> = taken.iter().map(String::as_str).collect();
    for name in crate::trailing_names(decl, &taken) {
        params.push(format!("const dtlv_tydesc_t *{}", c_name(&name)));
    }
    format!(
        "uint8_t {}({})",
        native_symbol(rider, &decl.name),
        params.join(", ")
    )
}

/// The conventional name of a rider's generated header: `dlr_<rider>.h`.
pub fn c_header_file_name(rider: &str) -> String {
    format!("dlr_{rider}.h")
}

/// The header of prototypes for an interface parsed from `dli_text` (`dli_name` names it
/// in comments): the ABI-version export `DTLV_EXPORT_RIDER` defines, then one prototype
/// per native, one a line, each under a comment giving its `.dli` line.
pub fn c_header(iface: &RiderInterface, dli_name: &str, dli_text: &str) -> String {
    let mut sources = Sources::new();
    let file = sources.add(dli_name, dli_text);
    let guard = format!("DLR_{}_H", iface.rider.to_uppercase());
    let mut out = format!(
        "/* Generated from {dli_name} by `datalove rider-header`; do not edit.\n \
         *\n \
         * The prototype of every native of rider `{rider}`, as {dli_name} declares it.\n \
         * Include this file in the rider's C source before the definitions: a\n \
         * \"conflicting types\" error on one means that native's definition disagrees\n \
         * with its declaration. */\n\
         #ifndef {guard}\n\
         #define {guard}\n\n\
         #include <stdint.h>\n\n\
         #include \"datalove_rti.h\"\n\n\
         DTLV_BEGIN_DECLS\n\n\
         /* The ABI version the rider was built for: DTLV_EXPORT_RIDER({rider}). */\n\
         uint32_t {abi}(void);\n",
        rider = iface.rider,
        abi = datalove_rti::rider_abi_symbol(&iface.rider),
    );
    for decl in &iface.natives {
        let (location, source) = crate::declared_at(&sources, file, dli_text, decl);
        // `*/` cannot occur in a declaration's text, but a `.dli` comment is not part of it.
        out.push_str(&format!(
            "\n/* {location}: {} */\n{};\n",
            source.replace("*/", "* /"),
            c_declaration(&iface.rider, decl)
        ));
    }
    out.push_str(&format!("\nDTLV_END_DECLS\n\n#endif /* {guard} */\n"));
    out
}

/// The rider a `.dli` path names when none is given: its file stem (`cprobe.dli`), or for
/// a `rider.dli` the directory holding it (`riders/cprobe/rider.dli`).
pub fn rider_of_path(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    if stem != "rider" {
        return Some(stem.to_string());
    }
    let dir = std::path::absolute(path).ok()?;
    Some(dir.parent()?.file_name()?.to_str()?.to_string())
}

/// Reads and parses the `.dli` at `path` for rider `rider` (default: [`rider_of_path`])
/// and returns the rider's name and its header ([`c_header`]), the `.dli` named in the
/// header's comments by its file name.
pub fn c_header_for_file(path: &Path, rider: Option<&str>) -> Result<(String, String), BuildError> {
    let rider = match rider {
        Some(r) => r.to_string(),
        None => rider_of_path(path).unwrap_or_default(),
    };
    if !crate::valid_rider_name(&rider) {
        return Err(BuildError::BadRiderName(rider));
    }
    let text = std::fs::read_to_string(path).map_err(|e| BuildError::Io(path.to_path_buf(), e))?;
    let shown = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let iface = crate::parse_rider(&rider, &path.display().to_string(), &text)?;
    let header = c_header(&iface, &shown, &text);
    Ok((rider, header))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datalove_ir::dli::parse_dli;
    use datalove_ir::FileId;

    fn c_sig(text: &str) -> String {
        let iface = parse_dli("t", FileId(0), text).unwrap();
        c_declaration("t", &iface.natives[0])
    }

    #[test]
    fn declarations_by_mode() {
        for (dli, expected) in [
            // Scalars, strings and lists, by mode.
            (
                "native fun f(a: u8, ref b: string, mut c: [u64], d: string, out e: f64, f: bool): index",
                "uint8_t dlr_t__f(void *rt, const uint8_t *a, const dtlv_tydesc_t *a_td, \
                 const dtlv_string_t *b, const dtlv_tydesc_t *b_td, dtlv_list_t *c, \
                 const dtlv_tydesc_t *c_td, dtlv_string_t *d, const dtlv_tydesc_t *d_td, \
                 double *e, const dtlv_tydesc_t *e_td, const uint8_t *f, const dtlv_tydesc_t *f_td, \
                 dtlv_index_t *result_out, const dtlv_tydesc_t *result_td)",
            ),
            // Bigints, by mode.
            (
                "native fun b(ref a: bigint, mut c: bigint, d: bigint, out e: bigint): bigint",
                "uint8_t dlr_t__b(void *rt, const dtlv_bigint_t *a, const dtlv_tydesc_t *a_td, \
                 dtlv_bigint_t *c, const dtlv_tydesc_t *c_td, dtlv_bigint_t *d, \
                 const dtlv_tydesc_t *d_td, dtlv_bigint_t *e, const dtlv_tydesc_t *e_td, \
                 dtlv_bigint_t *result_out, const dtlv_tydesc_t *result_td)",
            ),
            // Generic values are `void *`; result-only type parameters' descriptors trail.
            (
                "native fun g<T, U>(ref x: T, y: ?u8, mut z: (u8, T)): (T, U)",
                "uint8_t dlr_t__g(void *rt, const void *x, const dtlv_tydesc_t *x_td, void *y, \
                 const dtlv_tydesc_t *y_td, void *z, const dtlv_tydesc_t *z_td, \
                 void *result_out, const dtlv_tydesc_t *result_td, const dtlv_tydesc_t *u_td)",
            ),
            (
                "native fun unit_result(x: i32)",
                "uint8_t dlr_t__unit_result(void *rt, const int32_t *x, const dtlv_tydesc_t *x_td, \
                 void *result_out, const dtlv_tydesc_t *result_td)",
            ),
            // C keywords and the ABI's own names are escaped.
            (
                "native fun k(int: u8, rt: u8, result: u8)",
                "uint8_t dlr_t__k(void *rt, const uint8_t *int_, const dtlv_tydesc_t *int_td, \
                 const uint8_t *rt_, const dtlv_tydesc_t *rt_td, const uint8_t *result, \
                 const dtlv_tydesc_t *result_td_, void *result_out, const dtlv_tydesc_t *result_td)",
            ),
        ] {
            assert_eq!(c_sig(dli), expected, "{dli}");
        }
    }

    #[test]
    fn header_declares_every_native_under_its_line() {
        let text = "# demo\nnative fun a(x: u8): u8\nnative fun b<T>(): T\n";
        let iface = parse_dli("demo", FileId(0), text).unwrap();
        let header = c_header(&iface, "rider.dli", text);
        assert!(header.contains("#ifndef DLR_DEMO_H\n#define DLR_DEMO_H\n"));
        assert!(header.contains("#include \"datalove_rti.h\"\n"));
        assert!(header.contains("uint32_t dtlv_rider_abi_version_demo(void);\n"));
        assert!(header.contains("DTLV_BEGIN_DECLS\n"));
        assert!(header.contains(
            "/* rider.dli:2:1: native fun a(x: u8): u8 */\nuint8_t dlr_demo__a(void *rt, \
             const uint8_t *x, const dtlv_tydesc_t *x_td, uint8_t *result_out, \
             const dtlv_tydesc_t *result_td);\n"
        ));
        assert!(header.contains(
            "/* rider.dli:3:1: native fun b<T>(): T */\nuint8_t dlr_demo__b(void *rt, \
             void *result_out, const dtlv_tydesc_t *result_td, const dtlv_tydesc_t *t_td);\n"
        ));
        assert!(header.ends_with("DTLV_END_DECLS\n\n#endif /* DLR_DEMO_H */\n"));
        assert_eq!(c_header_file_name("demo"), "dlr_demo.h");
    }

    #[test]
    fn rider_name_from_the_path() {
        assert_eq!(
            rider_of_path(Path::new("x/cprobe.dli")).as_deref(),
            Some("cprobe")
        );
        assert_eq!(
            rider_of_path(Path::new("riders/cprobe/rider.dli")).as_deref(),
            Some("cprobe")
        );
    }
}
