//! The static descriptors the C backend emits are the interpreter's `OwnedTyDesc`s field
//! for field: a C program prints each one, walking `elem` and `fields`, and the same walk
//! over the Rust descriptor must print the same. (`fields` of a tuple with no fields is
//! never read: the interpreter's is a dangling non-null pointer, the compiled backends'
//! null, as `docs/backends.md` says; it is compared only when there are fields.)

mod common;

use std::fmt::Write;

use datalove_cbackend::StaticDescs;
use datalove_ir::IrType;
use datalove_rti::tydesc::OwnedTyDesc;
use datalove_rti::TyDesc;
use datalove_test_support::ir_type;

fn owned(ty: &IrType) -> OwnedTyDesc {
    match ty {
        IrType::List(e) => OwnedTyDesc::list(owned(e)),
        IrType::Option(p) => OwnedTyDesc::option(owned(p)),
        IrType::Tuple(fields) => OwnedTyDesc::tuple(fields.iter().map(owned).collect()),
        other => OwnedTyDesc::scalar(other.kind().expect("concrete")),
    }
}

/// The walk, in Rust: every field of every descriptor reached, pointers as structure.
fn walk(td: &TyDesc, out: &mut String) {
    let _ = write!(
        out,
        "({} {} {} {} {} {} {}",
        td.kind as u32,
        td.flags,
        td.size,
        td.align,
        td.payload_offset,
        td.field_count,
        (td.field_count > 0 && td.fields.is_null()) as u8
    );
    if !td.elem.is_null() {
        // SAFETY: a well-formed descriptor.
        walk(unsafe { &*td.elem }, out);
    }
    // SAFETY: a well-formed descriptor.
    for field in unsafe { td.fields() } {
        let _ = write!(out, " @{}", field.offset);
        // SAFETY: a well-formed descriptor.
        walk(unsafe { &*field.desc }, out);
    }
    out.push(')');
}

const C_WALK: &str = r#"
#include <stdio.h>
static void walk(const dtlv_tydesc_t *td) {
    printf("(%u %u %zu %zu %zu %zu %d", td->kind, td->flags, td->size, td->align,
           td->payload_offset, td->field_count, td->field_count > 0 && td->fields == NULL);
    if (td->elem != NULL) {
        walk(td->elem);
    }
    for (size_t i = 0; i < td->field_count; i++) {
        printf(" @%zu", td->fields[i].offset);
        walk(td->fields[i].desc);
    }
    printf(")");
}
"#;

#[test]
fn static_descriptors_match_the_interpreters() {
    if datalove_toolchain::unavailable_without_c_compiler("compiling the emitted C") {
        return;
    }
    let types: Vec<IrType> = [
        "unit",
        "bool",
        "i16",
        "f32",
        "index",
        "string",
        "data",
        "[u8]",
        "?u32",
        "?unit",
        "?string",
        "()",
        "(u8, u64, u16)",
        "(string, ?i8)",
        "[(?[f64], bool)]",
    ]
    .map(ir_type)
    .into();
    let mut statics = StaticDescs::default();
    let names: Vec<String> = types.iter().map(|t| statics.get(t)).collect();
    let mut c = String::from("#include \"dtlv_c.h\"\n");
    c.push_str(&statics.finish());
    c.push_str(C_WALK);
    c.push_str("int main(void) {\n");
    let mut expected = String::new();
    for (ty, name) in types.iter().zip(&names) {
        let _ = writeln!(c, "    walk({name});\n    printf(\"\\n\");");
        walk(&owned(ty), &mut expected);
        expected.push('\n');
    }
    c.push_str("    return 0;\n}\n");
    let dir = common::scratch("descriptors");
    let out = common::compile_and_run(&dir, &c);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out, expected);
}
