//! Descriptors: one static `dtlv_tydesc_t` per concrete type (children first, tuple
//! field arrays beside them), built from `IrType::layout_with_offsets` so that the bytes
//! are the interpreter's `OwnedTyDesc` exactly; and, in generic functions, the
//! descriptor table filled on entry with `tydesc_list/option/tuple`.

use std::collections::HashMap;

use datalove_ir::lowering::{DescPlan, DescSource, GenericDesc};
use datalove_ir::IrType;
use datalove_rti::tydesc::TYDESC_COPY;
use datalove_rti::TyKind;

use crate::runtime::{call, Entry};
use crate::writer::{
    bytes_literal, static_desc_name, static_fields_name, type_param_name, CWriter,
};

/// The program's static descriptors, in definition order (children before parents).
#[derive(Default)]
pub struct StaticDescs {
    index: HashMap<IrType, usize>,
    definitions: CWriter,
}

impl StaticDescs {
    /// The C expression of the static descriptor of concrete `ty` (`&dtlv_tdN`).
    pub fn get(&mut self, ty: &IrType) -> String {
        format!("&{}", static_desc_name(self.id(ty)))
    }

    fn id(&mut self, ty: &IrType) -> usize {
        assert!(!ty.mentions_param(), "a static descriptor for {ty}");
        if let Some(&k) = self.index.get(ty) {
            return k;
        }
        let kind = ty.kind().expect("a concrete type has a kind");
        let (layout, offsets) = ty
            .layout_with_offsets()
            .expect("a concrete type has a layout");
        let mut elem = "NULL".to_string();
        let mut payload_offset = 0;
        let mut fields = ("0".to_string(), "NULL".to_string());
        let mut field_entries = Vec::new();
        match ty {
            IrType::List(e) => elem = self.get(e),
            IrType::Option(p) => {
                elem = self.get(p);
                payload_offset = offsets[0];
            }
            IrType::Tuple(_) | IrType::Record(_) => {
                let types = ty.fields().expect("a tuple or record has fields");
                for (t, offset) in types.iter().zip(&offsets) {
                    field_entries.push(format!("{{{}, {offset}}}", self.get(t)));
                }
            }
            IrType::Enum(e) => {
                payload_offset = offsets.first().copied().unwrap_or(4);
                for (v, offset) in offsets.iter().enumerate() {
                    let payload = self.get(&e.payload(v));
                    field_entries.push(format!("{{{payload}, {offset}}}"));
                }
            }
            IrType::Map(key, value) => {
                // `elem` is the entry tuple; the map's fields are the tuple's.
                let entry = self.id(&IrType::map_entry(key, value));
                elem = format!("&{}", static_desc_name(entry));
                fields = ("2".to_string(), static_fields_name(entry));
            }
            _ => {}
        }
        let k = self.index.len();
        let w = &mut self.definitions;
        w.comment(ty.to_string());
        if !field_entries.is_empty() {
            w.open(format!(
                "static const dtlv_tyfield_t {}[{}] =",
                static_fields_name(k),
                field_entries.len()
            ));
            for entry in &field_entries {
                w.line(format!("{entry},"));
            }
            w.close_with(";");
            fields = (field_entries.len().to_string(), static_fields_name(k));
        }
        let flags = if ty.is_copy() { TYDESC_COPY } else { 0 };
        let names = match ty.descriptor_names() {
            // The NUL that ends the last name is the literal's own.
            Some(bytes) => bytes_literal(&bytes[..bytes.len() - 1]),
            None => "NULL".to_string(),
        };
        w.line(format!(
            "static const dtlv_tydesc_t {} = {{{}u, {flags}u, {}, {}, {elem}, {payload_offset}, {}, {}, {names}}};",
            static_desc_name(k),
            kind as u32,
            layout.size,
            layout.align,
            fields.0,
            fields.1,
        ));
        self.index.insert(ty.clone(), k);
        k
    }

    /// The definitions, for the file's descriptor section.
    pub fn finish(self) -> String {
        self.definitions.finish()
    }
}

/// The C expression of `ty`'s descriptor, in the terms of the function whose table
/// `plan` is (`datalove_ir::lowering::DescPlan`: the type parameters' descriptors are
/// parameters of the C function, the generic composite types are built on entry).
pub fn frame_desc(plan: &DescPlan, statics: &mut StaticDescs, ty: &IrType) -> String {
    source(statics, &plan.source(ty))
}

/// The declarations and entry code of a function's table, in the plan's order (an
/// entry only names entries before it).
pub fn emit_table(plan: &DescPlan, statics: &mut StaticDescs, w: &mut CWriter) {
    for (k, (ty, entry)) in plan.generic.iter().enumerate() {
        let name = crate::writer::generic_desc_name(k);
        w.comment(format!("descriptor of {ty}"));
        let value = match entry {
            GenericDesc::List(e) => call(Entry::TydescList, &[&source(statics, e)]),
            GenericDesc::Option(p) => call(Entry::TydescOption, &[&source(statics, p)]),
            GenericDesc::Tuple(fields) => {
                let (array, count) = desc_array(statics, w, &name, fields);
                call(Entry::TydescTuple, &[&array, &count])
            }
            GenericDesc::Enum(names, payloads) => {
                let (array, count) = desc_array(statics, w, &name, payloads);
                let literal = bytes_literal(&names[..names.len() - 1]);
                let len = names.len().to_string();
                let names = format!("(const uint8_t *){literal}");
                call(Entry::TydescEnum, &[&names, &len, &array, &count])
            }
            GenericDesc::Map(k, v) => call(
                Entry::TydescMap,
                &[&source(statics, k), &source(statics, v)],
            ),
        };
        w.stmt(format!("const dtlv_tydesc_t *const {name} = {value}"));
    }
}

/// Declares the array `{name}_fields` of the descriptors of `sources`; its name and
/// length.
fn desc_array(
    statics: &mut StaticDescs,
    w: &mut CWriter,
    name: &str,
    sources: &[DescSource],
) -> (String, String) {
    let descs: Vec<String> = sources.iter().map(|f| source(statics, f)).collect();
    let array = format!("{name}_fields");
    w.stmt(format!(
        "const dtlv_tydesc_t *{array}[{}] = {{{}}}",
        descs.len().max(1),
        if descs.is_empty() {
            "NULL".to_string()
        } else {
            descs.join(", ")
        }
    ));
    (array, descs.len().to_string())
}

/// The C expression of the descriptor a plan's source names.
fn source(statics: &mut StaticDescs, source: &DescSource) -> String {
    match source {
        DescSource::Static(ty) => statics.get(ty),
        DescSource::TypeParam(n) => type_param_name(*n),
        DescSource::Generic(k) => crate::writer::generic_desc_name(*k),
    }
}

/// The kind of a concrete scalar type.
pub fn scalar_kind(ty: &IrType) -> TyKind {
    ty.kind().expect("a concrete scalar, as verified")
}
