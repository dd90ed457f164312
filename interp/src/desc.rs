//! Descriptors: a static one per concrete type (built once, when the program is
//! lowered), and, in generic functions, the frame's descriptor table, filled on entry
//! from the type arguments through the runtime's interning entries.

use std::collections::HashMap;

use datalove_ir::IrType;
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
        IrType::Param(_) => unreachable!("checked by the caller"),
        other => OwnedTyDesc::scalar(other.kind().expect("concrete")),
    }
}

/// A function's descriptor table under construction: type parameters take entries
/// `0..n`, generic types after them.
pub struct FrameDescs {
    type_params: u32,
    entries: Vec<(IrType, GenericEntry)>,
}

impl FrameDescs {
    pub fn new(type_params: usize) -> FrameDescs {
        FrameDescs {
            type_params: type_params as u32,
            entries: Vec::new(),
        }
    }

    /// Where the descriptor of `ty` (in the function's terms) is found.
    pub fn resolve(&mut self, cache: &mut DescCache, ty: &IrType) -> DescRef {
        if !ty.mentions_param() {
            return DescRef::Static(cache.get(ty));
        }
        if let IrType::Param(n) = ty {
            return DescRef::Frame(*n);
        }
        if let Some(i) = self.entries.iter().position(|(t, _)| t == ty) {
            return DescRef::Frame(self.type_params + i as u32);
        }
        let entry = match ty {
            IrType::List(e) => GenericEntry::List(self.resolve(cache, e)),
            IrType::Option(p) => GenericEntry::Option(self.resolve(cache, p)),
            IrType::Tuple(fields) => {
                GenericEntry::Tuple(fields.iter().map(|f| self.resolve(cache, f)).collect())
            }
            _ => unreachable!("only composite types mention a parameter"),
        };
        self.entries.push((ty.clone(), entry));
        DescRef::Frame(self.type_params + self.entries.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.type_params as usize + self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn into_entries(self) -> Vec<GenericEntry> {
        self.entries.into_iter().map(|(_, e)| e).collect()
    }
}

/// The static descriptor of a scalar kind (the runtime's constants).
pub fn scalar_static(kind: TyKind) -> *const TyDesc {
    datalove_rti::packed_tydesc(kind).expect("a scalar kind") as *const TyDesc
}
