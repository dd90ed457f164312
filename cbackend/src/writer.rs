//! The one place C text is shaped: names (mangling), C types, literals, comments and
//! indentation. The emitter says what to write (a line, an opening brace, a label); this
//! file decides how it looks.

use std::fmt::Write;

use datalove_ir::lowering::ResultPass;
use datalove_ir::{BlockId, IrType, SlotId};
use datalove_rti::TyKind;

/// C text under construction, with its indentation.
#[derive(Default)]
pub struct CWriter {
    out: String,
    depth: usize,
}

impl CWriter {
    pub fn new() -> CWriter {
        CWriter::default()
    }

    /// A writer whose lines start `depth` levels in (a function body written apart).
    pub fn indented(depth: usize) -> CWriter {
        CWriter {
            out: String::new(),
            depth,
        }
    }

    /// One line at the current indentation.
    pub fn line(&mut self, text: impl AsRef<str>) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    /// A statement: the text and its `;`.
    pub fn stmt(&mut self, text: impl AsRef<str>) {
        self.line(format!("{};", text.as_ref()));
    }

    /// `head {`, indenting what follows until [`CWriter::close`].
    pub fn open(&mut self, head: impl AsRef<str>) {
        let head = head.as_ref();
        if head.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{head} {{"));
        }
        self.depth += 1;
    }

    pub fn close(&mut self) {
        self.close_with("");
    }

    /// `}` followed by `tail` (`;` after an initializer).
    pub fn close_with(&mut self, tail: &str) {
        self.depth = self.depth.saturating_sub(1);
        self.line(format!("}}{tail}"));
    }

    /// A block's label, one level out from the code under it.
    pub fn label(&mut self, block: BlockId) {
        let depth = self.depth;
        self.depth = depth.saturating_sub(1);
        self.line(format!("{}:;", block_label(block)));
        self.depth = depth;
    }

    /// `goto <label>;`.
    pub fn goto(&mut self, block: BlockId) {
        self.stmt(format!("goto {}", block_label(block)));
    }

    /// `/* text */`, made safe for any text.
    pub fn comment(&mut self, text: impl AsRef<str>) {
        self.line(comment(text.as_ref()));
    }

    pub fn blank(&mut self) {
        self.out.push('\n');
    }

    /// Appends another writer's text as it is.
    pub fn append(&mut self, other: CWriter) {
        self.out.push_str(&other.out);
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// `/* text */`, with any `*/` inside broken up.
pub fn comment(text: &str) -> String {
    format!("/* {} */", text.replace("*/", "*\\/"))
}

// ---------------------------------------------------------------- names

/// A slot's C name.
pub fn slot_name(slot: SlotId) -> String {
    format!("s{}", slot.0)
}

/// The C name of parameter `index`'s incoming address.
pub fn arg_name(index: usize) -> String {
    format!("a{index}")
}

/// The descriptor parameter of type parameter `n`.
pub fn type_param_name(n: u32) -> String {
    format!("tp{n}")
}

/// The descriptor local of generic type `k` of a function's table.
pub fn generic_desc_name(k: usize) -> String {
    format!("gt{k}")
}

/// A static descriptor.
pub fn static_desc_name(k: usize) -> String {
    format!("dtlv_td{k}")
}

/// The field array of a static tuple descriptor.
pub fn static_fields_name(k: usize) -> String {
    format!("dtlv_tf{k}")
}

pub fn block_label(block: BlockId) -> String {
    format!("b{}", block.0)
}

/// The C symbol of program function `index` (the one spelling, shared with the object
/// backend).
pub use datalove_ir::lowering::function_symbol as function_name;

pub const RT: &str = "rt";
pub const RET_PTR: &str = "ret_ptr";
/// The depth-left parameter of every program function (`ProgramWord::Depth`).
pub const DEPTH: &str = "depth";
pub const SHADOW_MARK: &str = "shadow_mark";
pub const UNIT_SCRATCH: &str = "unit_scratch";
/// The executable's native slots and rider manifest (`datalove_rti::links`).
pub const NATIVE_SLOTS: &str = "dtlv_native_slots";
pub const RIDER_MANIFEST: &str = "dtlv_rider_manifest";

// ---------------------------------------------------------------- types

/// The C type a scalar kind lives in (unit in a byte that is never read).
pub fn scalar_ctype(kind: TyKind) -> &'static str {
    match kind {
        TyKind::Unit | TyKind::Bool | TyKind::U8 => "uint8_t",
        TyKind::U16 => "uint16_t",
        TyKind::U32 => "uint32_t",
        TyKind::U64 | TyKind::Index => "uint64_t",
        TyKind::I8 => "int8_t",
        TyKind::I16 => "int16_t",
        TyKind::I32 => "int32_t",
        TyKind::I64 => "int64_t",
        TyKind::F32 => "float",
        TyKind::F64 => "double",
        other => panic!("{other:?} is not a scalar"),
    }
}

/// What a program function returns, by how its result is passed: a scalar result with
/// its status as `dtlv_c_ret_<type>` (two words, so two registers; `dtlv_c.h`), only
/// the status as `uint8_t`.
pub fn program_return_ctype(result: ResultPass) -> String {
    match result {
        ResultPass::Value(kind) => {
            format!("dtlv_c_ret_{}", scalar_ctype(kind).trim_end_matches("_t"))
        }
        _ => "uint8_t".into(),
    }
}

/// The declaration of a variable `name` holding a concrete type: a scalar or runtime
/// struct by its C type; an option or tuple as aligned bytes of its layout.
pub fn declaration(ty: &IrType, name: &str) -> String {
    let kind = ty.kind().expect("a concrete type");
    match kind {
        TyKind::String => format!("dtlv_string_t {name}"),
        TyKind::List => format!("dtlv_list_t {name}"),
        TyKind::Data => format!("dtlv_data_t {name}"),
        TyKind::BigInt => format!("dtlv_bigint_t {name}"),
        TyKind::Map => format!("dtlv_map_t {name}"),
        TyKind::Option | TyKind::Tuple | TyKind::Record | TyKind::Enum => {
            let layout = ty.layout().expect("a concrete type has a layout");
            format!(
                "_Alignas({}) uint8_t {name}[{}]",
                layout.align,
                layout.size.max(1)
            )
        }
        scalar => format!("{} {name}", scalar_ctype(scalar)),
    }
}

// ---------------------------------------------------------------- literals

/// An integer constant of kind `kind`, `value` being its value in range.
pub fn int_literal(kind: TyKind, value: i128) -> String {
    let ctype = scalar_ctype(kind);
    if kind.is_signed() {
        let (min, _) = kind.int_range().expect("an integer kind");
        if value == min {
            // `-9223372036854775808` is not a C literal: a minus applied to one too big.
            return format!("(({ctype})(-INT64_C({}) - 1))", -(min + 1));
        }
        format!("(({ctype})INT64_C({value}))")
    } else {
        format!("(({ctype})UINT64_C({value}))")
    }
}

/// A float constant, exactly: a hex float literal when finite, its bits otherwise.
pub fn float_literal(kind: TyKind, value: f64) -> String {
    if kind == TyKind::F32 {
        let x = value as f32;
        if x.is_finite() {
            format!("{}f", hex_float(x as f64))
        } else {
            format!("dtlv_c_f32_from_bits(UINT32_C(0x{:08x}))", x.to_bits())
        }
    } else if value.is_finite() {
        hex_float(value)
    } else {
        format!("dtlv_c_f64_from_bits(UINT64_C(0x{:016x}))", value.to_bits())
    }
}

/// `%a` of a finite double: `0x1.<52 bits>p<exp>`, `0x0.<52 bits>p-1022` when subnormal.
pub fn hex_float(x: f64) -> String {
    let bits = x.to_bits();
    let sign = if bits >> 63 != 0 { "-" } else { "" };
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = bits & ((1u64 << 52) - 1);
    match (exponent, mantissa) {
        (0, 0) => format!("{sign}0x0p+0"),
        (0, m) => format!("{sign}0x0.{m:013x}p-1022"),
        (e, m) => format!("{sign}0x1.{m:013x}p{:+}", e - 1023),
    }
}

/// A C string literal of exactly these bytes (octal escapes for anything unprintable,
/// so that no escape runs into the next character).
pub fn bytes_literal(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            // `?` escaped so that no trigraph can form.
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// `(const uint8_t *)"bytes", len`: bytes and length as a runtime entry takes them.
pub fn bytes_and_len(bytes: &[u8]) -> String {
    format!("(const uint8_t *){}, {}", bytes_literal(bytes), bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_floats_are_exact() {
        assert_eq!(hex_float(1.0), "0x1.0000000000000p+0");
        assert_eq!(hex_float(-2.5), "-0x1.4000000000000p+1");
        assert_eq!(hex_float(-0.0), "-0x0p+0");
        assert_eq!(
            hex_float(f64::MIN_POSITIVE / 2.0),
            "0x0.8000000000000p-1022"
        );
        assert_eq!(
            float_literal(TyKind::F64, f64::NAN),
            "dtlv_c_f64_from_bits(UINT64_C(0x7ff8000000000000))"
        );
        assert_eq!(float_literal(TyKind::F32, 0.5), "0x1.0000000000000p-1f");
    }

    #[test]
    fn literals_are_valid_c() {
        assert_eq!(
            int_literal(TyKind::I64, i64::MIN as i128),
            "((int64_t)(-INT64_C(9223372036854775807) - 1))"
        );
        assert_eq!(int_literal(TyKind::U8, 255), "((uint8_t)UINT64_C(255))");
        assert_eq!(bytes_literal(b"a\"\n\0?1"), "\"a\\\"\\012\\000\\?1\"");
        assert_eq!(comment("x */ y"), "/* x *\\/ y */");
    }
}
