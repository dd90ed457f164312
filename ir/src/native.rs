//! Natives: rider interfaces (what a `.dli` declares) and `NativeContext` (what one call
//! site of a native needs). The word count of the C call is decided here and nowhere else.

use std::collections::BTreeMap;

use crate::diag::Span;
use crate::types::{IrType, ParamMode, TypeParam};

/// The most pointer-sized words a native call may take. Every backend lays the call out
/// as a flat list of words and the interpreter has one function type per count, so a
/// wider native is a compile error.
pub const MAX_C_WORDS: usize = 32;

/// The linker symbol of a native: `dlr_<rider>__<function>`.
pub fn native_symbol(rider: &str, function: &str) -> String {
    datalove_rti::native_symbol(rider, function)
}

/// The number of C words of a native call: `rt`, a pointer and descriptor per declared
/// parameter, the result pointer and descriptor, one descriptor per trailing (undetermined)
/// type parameter.
pub fn word_count(params: usize, trailing: usize) -> usize {
    1 + 2 * params + 2 + trailing
}

/// How a host that runs programs in-process (the interpreter, the JIT) finds a native:
/// the address of the implementation of one call site's native, or a message naming the
/// rider and symbol.
pub type NativeResolver<'a> =
    dyn FnMut(&NativeContext) -> Result<*const std::ffi::c_void, String> + 'a;

/// One declared parameter of a native.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeParam {
    pub name: String,
    pub mode: ParamMode,
    pub ty: IrType,
}

/// One `native fun` of a `.dli` file. Types are written over the native's own type
/// parameters (`IrType::Param(n)` is `type_params[n]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeDecl {
    pub name: String,
    pub type_params: Vec<TypeParam>,
    pub params: Vec<NativeParam>,
    pub result: IrType,
    /// Where the declaration is, in the `.dli` file.
    pub span: Span,
}

impl NativeDecl {
    /// The type parameters no parameter's type mentions (in declaration order). A type
    /// parameter mentioned anywhere in a parameter, `[T]` and `?T` included, is decided
    /// by that argument's descriptor; the others need a trailing descriptor.
    pub fn undetermined_type_params(&self) -> Vec<u32> {
        undetermined_type_params(self.params.iter().map(|p| &p.ty), self.type_params.len())
    }

    pub fn word_count(&self) -> usize {
        word_count(self.params.len(), self.undetermined_type_params().len())
    }
}

/// Of `type_params` type parameters, those no parameter type in `param_types` mentions
/// (in declaration order): only a trailing descriptor (a native's) or the expected type
/// of a call (the front end) can decide them. The one rule, used by the `.dli` parser,
/// the front end and the verifier.
pub fn undetermined_type_params<'a>(
    param_types: impl IntoIterator<Item = &'a IrType>,
    type_params: usize,
) -> Vec<u32> {
    let mut mentioned = Vec::new();
    for ty in param_types {
        ty.collect_params(&mut mentioned);
    }
    (0..type_params as u32)
        .filter(|n| !mentioned.contains(n))
        .collect()
}

/// A rider's interface: the natives its `rider.dli` declares.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RiderInterface {
    /// The rider's name, as written in `require rider NAME`.
    pub rider: String,
    pub natives: Vec<NativeDecl>,
    /// For each generic native (by name), the type parameters that appear in no
    /// argument: worked out once, when the `.dli` is parsed.
    pub generic_functions: BTreeMap<String, Vec<u32>>,
    /// Name to index in `natives`, so that finding a native does not scan them all.
    by_name: BTreeMap<String, usize>,
}

impl RiderInterface {
    /// Builds an interface from declarations, working out `generic_functions`.
    pub fn new(rider: impl Into<String>, natives: Vec<NativeDecl>) -> RiderInterface {
        let generic_functions = natives
            .iter()
            .filter(|n| !n.type_params.is_empty())
            .map(|n| (n.name.clone(), n.undetermined_type_params()))
            .collect();
        let by_name = natives
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        RiderInterface {
            rider: rider.into(),
            natives,
            generic_functions,
            by_name,
        }
    }

    pub fn native(&self, name: &str) -> Option<&NativeDecl> {
        // `natives` is public: trust the index only while it still points at the name.
        match self.by_name.get(name).and_then(|&i| self.natives.get(i)) {
            Some(n) if n.name == name => Some(n),
            _ => self.natives.iter().find(|n| n.name == name),
        }
    }

    /// The context of one call site of native `name`, with the call site's bindings for
    /// the undetermined type parameters (in the caller's terms).
    pub fn context(&self, name: &str, undetermined_bindings: Vec<IrType>) -> Option<NativeContext> {
        let decl = self.native(name)?;
        let undetermined = self
            .generic_functions
            .get(name)
            .cloned()
            .unwrap_or_default();
        Some(NativeContext::new(
            &self.rider,
            decl,
            undetermined,
            undetermined_bindings,
        ))
    }
}

/// Everything a backend needs to make one call to a native.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeContext {
    rider: String,
    function: String,
    symbol: String,
    type_params: Vec<TypeParam>,
    params: Vec<NativeParam>,
    result: IrType,
    /// The native's type parameters that no argument determines (indices into
    /// `type_params`), copied from `RiderInterface::generic_functions`.
    pub undetermined_type_params: Vec<u32>,
    /// This call site's binding for each of `undetermined_type_params`, in the caller's
    /// terms: a concrete type, or a type over the caller's own type parameters.
    pub undetermined_bindings: Vec<IrType>,
}

impl NativeContext {
    pub fn new(
        rider: &str,
        decl: &NativeDecl,
        undetermined_type_params: Vec<u32>,
        undetermined_bindings: Vec<IrType>,
    ) -> NativeContext {
        NativeContext {
            rider: rider.to_string(),
            function: decl.name.clone(),
            symbol: native_symbol(rider, &decl.name),
            type_params: decl.type_params.clone(),
            params: decl.params.clone(),
            result: decl.result.clone(),
            undetermined_type_params,
            undetermined_bindings,
        }
    }

    pub fn rider(&self) -> &str {
        &self.rider
    }

    pub fn function(&self) -> &str {
        &self.function
    }

    /// The linker symbol, `dlr_<rider>__<function>`.
    pub fn symbol(&self) -> &str {
        &self.symbol
    }

    pub fn type_params(&self) -> &[TypeParam] {
        &self.type_params
    }

    pub fn params(&self) -> &[NativeParam] {
        &self.params
    }

    /// The declared parameter types, over the native's own type parameters.
    pub fn param_types(&self) -> impl ExactSizeIterator<Item = &IrType> {
        self.params.iter().map(|p| &p.ty)
    }

    pub fn modes(&self) -> impl ExactSizeIterator<Item = ParamMode> + '_ {
        self.params.iter().map(|p| p.mode)
    }

    pub fn result_type(&self) -> &IrType {
        &self.result
    }

    /// `1 + 2 * params + 2 + trailing`: the one count every backend derives its call from.
    pub fn word_count(&self) -> usize {
        word_count(self.params.len(), self.undetermined_type_params.len())
    }

    /// Whether the call fits the C ABI's limit.
    pub fn fits(&self) -> bool {
        self.word_count() <= MAX_C_WORDS
    }

    /// The word layout of the call, for backends that build it one word at a time.
    pub fn words(&self) -> Vec<NativeWord> {
        let mut words = Vec::with_capacity(self.word_count());
        words.push(NativeWord::Runtime);
        for i in 0..self.params.len() {
            words.push(NativeWord::ArgPointer(i));
            words.push(NativeWord::ArgDescriptor(i));
        }
        words.push(NativeWord::ResultPointer);
        words.push(NativeWord::ResultDescriptor);
        for i in 0..self.undetermined_type_params.len() {
            words.push(NativeWord::TrailingDescriptor(i));
        }
        debug_assert_eq!(words.len(), self.word_count());
        words
    }
}

/// What one word of a native call carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeWord {
    Runtime,
    ArgPointer(usize),
    ArgDescriptor(usize),
    ResultPointer,
    ResultDescriptor,
    /// The descriptor bound to `undetermined_type_params[i]`.
    TrailingDescriptor(usize),
}
