//! Descriptors: a static one per concrete type (built once, when the program is
//! lowered), and, in generic functions, the frame's descriptor table, filled on entry
//! from the type arguments through the runtime's interning entries.

use std::collections::HashMap;

use datalove_ir::lowering::{DescPlan, DescSource, GenericDesc};
use datalove_ir::{Function, IrType};
use datalove_rti::tydesc::OwnedTyDesc;
use datalove_rti::{TyDesc, TyKind};

/// Where an operation finds a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescRef {
    /// A descriptor that lives as long as the interpreter.
    Static(*const TyDesc),
    /// Entry `n` of the frame's descriptor table (type parameters first).
    Frame(u32),
}

/// A type over the function's type parameters, built on entry into the frame's table.
#[derive(Clone, Debug)]
pub enum GenericEntry {
    List(DescRef),
    Option(DescRef),
    Tuple(Vec<DescRef>),
    Map(DescRef, DescRef),
    /// An enum: its descriptor's names and its variants' payload tuples.
    Enum(Box<[u8]>, Vec<DescRef>),
}

/// The interpreter's static descriptors, one per concrete type.
#[derive(Default)]
pub struct DescCache {
    descs: HashMap<IrType, OwnedTyDesc>,
}

impl DescCache {
    /// The static descriptor of a concrete type. Stable for the cache's life: each
    /// `OwnedTyDesc` keeps its descriptor boxed.
    pub fn get(&mut self, ty: &IrType) -> *const TyDesc {
        assert!(
            !ty.mentions_param(),
            "a static descriptor for a generic type"
        );
        if let Some(d) = self.descs.get(ty) {
            return &**d as *const TyDesc;
        }
        let owned = build(ty);
        let ptr = &*owned as *const TyDesc;
        self.descs.insert(ty.clone(), owned);
        ptr
    }
}

fn build(ty: &IrType) -> OwnedTyDesc {
    match ty {
        IrType::List(e) => OwnedTyDesc::list(build(e)),
        IrType::Option(p) => OwnedTyDesc::option(build(p)),
        IrType::Tuple(fields) => OwnedTyDesc::tuple(fields.iter().map(build).collect()),
        IrType::Record(record) => {
            let names: Vec<&str> = record.field_names.iter().map(String::as_str).collect();
            OwnedTyDesc::record(
                &record.name,
                &names,
                record.fields.iter().map(build).collect(),
            )
        }
        IrType::Enum(e) => {
            let names: Vec<&str> = e.variant_names.iter().map(String::as_str).collect();
            let payloads = (0..e.variant_count()).map(|v| build(&e.payload(v)));
            OwnedTyDesc::enumeration(&e.name, &names, payloads.collect())
        }
        IrType::Map(k, v) => OwnedTyDesc::map(build(k), build(v)),
        IrType::Param(_) => unreachable!("checked by the caller"),
        other => OwnedTyDesc::scalar(other.kind().expect("concrete")),
    }
}

/// A function's descriptor table, as its one plan (`datalove_ir::lowering::DescPlan`)
/// says: type parameters take entries `0..n`, generic types after them.
pub struct FrameDescs {
    plan: DescPlan,
}

impl FrameDescs {
    pub fn new(f: &Function) -> FrameDescs {
        FrameDescs {
            plan: DescPlan::of(f),
        }
    }

    /// An empty table (a placeholder between functions).
    pub fn empty() -> FrameDescs {
        FrameDescs {
            plan: DescPlan::default(),
        }
    }

    /// Where the descriptor of `ty` (in the function's terms) is found.
    pub fn resolve(&mut self, cache: &mut DescCache, ty: &IrType) -> DescRef {
        self.source(cache, &self.plan.source(ty))
    }

    fn source(&self, cache: &mut DescCache, source: &DescSource) -> DescRef {
        match source {
            DescSource::Static(ty) => DescRef::Static(cache.get(ty)),
            DescSource::TypeParam(n) => DescRef::Frame(*n),
            DescSource::Generic(i) => DescRef::Frame((self.plan.type_params + *i) as u32),
        }
    }

    pub fn len(&self) -> usize {
        self.plan.len()
    }

    /// How each generic entry is built on entry, in the plan's order.
    pub fn into_entries(self, cache: &mut DescCache) -> Vec<GenericEntry> {
        self.plan
            .generic
            .iter()
            .map(|(_, entry)| match entry {
                GenericDesc::List(e) => GenericEntry::List(self.source(cache, e)),
                GenericDesc::Option(p) => GenericEntry::Option(self.source(cache, p)),
                GenericDesc::Tuple(fields) => {
                    GenericEntry::Tuple(fields.iter().map(|f| self.source(cache, f)).collect())
                }
                GenericDesc::Map(k, v) => {
                    GenericEntry::Map(self.source(cache, k), self.source(cache, v))
                }
                GenericDesc::Enum(names, payloads) => GenericEntry::Enum(
                    names.clone().into_boxed_slice(),
                    payloads.iter().map(|p| self.source(cache, p)).collect(),
                ),
            })
            .collect()
    }
}

/// The static descriptor of a scalar kind (the runtime's constants).
pub fn scalar_static(kind: TyKind) -> *const TyDesc {
    datalove_rti::packed_tydesc(kind).expect("a scalar kind") as *const TyDesc
}
