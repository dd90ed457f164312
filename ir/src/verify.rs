//! The verifier: checks the IR's invariants, so that every backend can trust them.
//!
//! - Structure: ids in range, every block terminated, the entry function's shape.
//! - Types: every instruction's slots have the types it needs; calls match their callee
//!   (after substituting type arguments) and natives match their `NativeContext`, whose
//!   own consistency (symbol, undetermined type parameters, word count) is checked too.
//! - Aliasing: a value passed `mut` or `out` is not passed again to the same call (as
//!   any other argument), to a native or a program function: the callee's view of a
//!   value it may change must be its only one (the front end's `D010`; a Rust native
//!   would otherwise hold two `&mut` to one value).
//! - Fallibility: an abandon block exactly on fallible instructions; abandon paths only
//!   drop and end in `Abandon`.
//! - Ownership: slot initialization is tracked along every path; a value is read only
//!   when initialized, an owned value is never overwritten or dropped twice, paths that
//!   join agree on which owned values are live, and at `Return`/`Abandon` every owned
//!   value has been moved or dropped exactly once (`mut` parameters initialized, `out`
//!   parameters initialized at `Return` and not at `Abandon`).
//! - Views: a slot a `list_get.view` writes (of an owned element type), or a
//!   `str_slice.view` (of its string, which is then the "list" below), owns nothing and
//!   is only read: nothing else writes it, and it is never moved (`in`, a constructor,
//!   `return`), dropped, changed or passed `mut`/`out`; no parameter is one. A view
//!   ends when the list it was read from (or, for a view of a view, any list under it)
//!   is written, moved, dropped or changed: reading it after is reading an
//!   uninitialized slot. A call is not given a view beside the list under it passed
//!   `mut`, `out` or moved in (the callee could change or free it).
//! - Parts: a slot a `str_parts` writes owns its list, whose strings are heads over the
//!   split string's bytes. It is written by no other instruction, and only read (its
//!   elements viewed or cloned, the list passed `ref`) and dropped: never moved,
//!   returned, changed or passed `mut`, `out` or `in`. While it is initialized, the
//!   split string, and each live view between that string and a list under it, is not
//!   written, moved, dropped or changed, except that an abandon path (which only drops)
//!   may drop the string first, and a string slot only string constants write (whose
//!   bytes are the program's) is free of the rule.
//!
//! Every message names the function, the block and the instruction.
//!
//! [`admit`] is the one gate every backend calls before it compiles anything: what it
//! refuses, no backend sees.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

use crate::native::{native_symbol, word_count, MAX_C_WORDS};
use crate::program::*;
use crate::types::{IrType, ParamMode, TypeClass};

/// One broken invariant, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub function: String,
    pub block: Option<BlockId>,
    /// The instruction's index in its block, or `None` for the terminator or the
    /// function as a whole.
    pub inst: Option<usize>,
    pub inst_name: Option<&'static str>,
    pub message: String,
    /// Where in the source the instruction came from (for a terminator, the last
    /// instruction of its block), when it carries a location.
    pub loc: Option<Loc>,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function `{}`", self.function)?;
        if let Some(b) = self.block {
            write!(f, ", block {b}")?;
            match (self.inst, self.inst_name) {
                (Some(i), Some(name)) => write!(f, ", instruction {i} ({name})")?,
                (Some(i), None) => write!(f, ", instruction {i}")?,
                (None, _) => write!(f, ", terminator")?,
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Why [`admit`] refused a program: every broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub errors: Vec<VerifyError>,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Refused {}

/// The admission gate: every backend's compile entry calls this first, so that no
/// backend takes IR the verifier refuses (types, ownership, aliasing, the 32-word limit
/// of native calls), whoever built it. Backends check nothing of this again.
pub fn admit(program: &Program) -> Result<(), Refused> {
    verify_program(program).map_err(|errors| Refused { errors })
}

/// Verifies a whole program.
pub fn verify_program(program: &Program) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    match program.entry {
        None => errors.push(whole_function_error(
            "<program>",
            "the program has no entry function".into(),
        )),
        Some(entry) => match program.functions.get(entry.index()) {
            None => errors.push(whole_function_error(
                "<program>",
                format!("the entry {entry} does not exist"),
            )),
            Some(f) => {
                if !f.params.is_empty() || !f.type_params.is_empty() || f.result != IrType::Unit {
                    errors.push(whole_function_error(
                        &f.name,
                        "the entry function must take no parameters and return unit".into(),
                    ));
                }
            }
        },
    }
    for f in &program.functions {
        if let Err(mut e) = verify_function(program, f) {
            errors.append(&mut e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// An error about a whole function (or, as `<program>`, the whole program), at no block.
fn whole_function_error(function: &str, message: String) -> VerifyError {
    VerifyError {
        function: function.into(),
        block: None,
        inst: None,
        inst_name: None,
        loc: None,
        message,
    }
}

/// Verifies one function of `program`.
pub fn verify_function(program: &Program, func: &Function) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier {
        program,
        func,
        errors: Vec::new(),
        cleanup: Vec::new(),
    };
    v.structure();
    if v.errors.is_empty() {
        v.types();
        v.aliasing();
        v.fallibility();
    }
    if v.errors.is_empty() {
        v.ownership();
    }
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'a> {
    program: &'a Program,
    func: &'a Function,
    errors: Vec<VerifyError>,
    /// The blocks of abandon paths (found by `fallibility`), which only drop.
    cleanup: Vec<bool>,
}

/// Where an error is.
#[derive(Clone, Copy)]
enum At {
    Function,
    Inst(BlockId, usize),
    Term(BlockId),
}

impl<'a> Verifier<'a> {
    fn error(&mut self, at: At, message: impl Into<String>) {
        let block_insts = |b: BlockId| self.func.blocks.get(b.index()).map(|blk| &blk.insts[..]);
        let (block, inst, inst_name, loc) = match at {
            At::Function => (None, None, None, None),
            At::Inst(b, i) => {
                let inst = block_insts(b).and_then(|insts| insts.get(i));
                (
                    Some(b),
                    Some(i),
                    inst.map(|x| x.kind.name()),
                    inst.and_then(|x| x.loc),
                )
            }
            At::Term(b) => {
                let loc = block_insts(b).and_then(|insts| insts.iter().rev().find_map(|x| x.loc));
                (Some(b), None, None, loc)
            }
        };
        self.errors.push(VerifyError {
            function: self.func.name.clone(),
            block,
            inst,
            inst_name,
            message: message.into(),
            loc,
        });
    }

    fn ty(&self, slot: SlotId) -> &'a IrType {
        &self.func.slots[slot.index()].ty
    }

    fn show(&self, ty: &IrType) -> String {
        ty.display(&self.func.type_param_names()).to_string()
    }

    // ---------------------------------------------------------------- structure

    fn structure(&mut self) {
        let f = self.func;
        if f.blocks.is_empty() {
            self.error(At::Function, "the function has no blocks");
            return;
        }
        if f.entry.index() >= f.blocks.len() {
            self.error(
                At::Function,
                format!("entry block {} does not exist", f.entry),
            );
        }
        let nslots = f.slots.len();
        for (i, slot) in f.slots.iter().enumerate() {
            if let Some(bad) = self.bad_param_in(&slot.ty) {
                self.error(
                    At::Function,
                    format!(
                        "slot s{i} has type parameter T{bad}, which the function does not have"
                    ),
                );
            }
        }
        let mut seen = Vec::new();
        for p in &f.params {
            if p.slot.index() >= nslots {
                self.error(
                    At::Function,
                    format!(
                        "parameter `{}` names slot {}, which does not exist",
                        p.name, p.slot
                    ),
                );
            } else if seen.contains(&p.slot) {
                self.error(At::Function, format!("slot {} is two parameters", p.slot));
            }
            seen.push(p.slot);
        }
        if let Some(bad) = self.bad_param_in(&f.result) {
            self.error(
                At::Function,
                format!(
                    "the result type has type parameter T{bad}, which the function does not have"
                ),
            );
        }
        for (bi, block) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            for (ii, inst) in block.insts.iter().enumerate() {
                for slot in inst_slots(&inst.kind) {
                    if slot.index() >= nslots {
                        self.error(At::Inst(b, ii), format!("slot {slot} does not exist"));
                    }
                }
                if let Some(a) = inst.abandon {
                    if a.index() >= f.blocks.len() {
                        self.error(At::Inst(b, ii), format!("abandon block {a} does not exist"));
                    }
                }
                match &inst.kind {
                    InstKind::Call { func, .. } if func.index() >= self.program.functions.len() => {
                        self.error(At::Inst(b, ii), format!("callee {func} does not exist"));
                    }
                    _ => {}
                }
            }
            match &block.term {
                Terminator::Unterminated => self.error(At::Term(b), "the block has no terminator"),
                Terminator::Branch { cond, .. } if cond.index() >= nslots => {
                    self.error(At::Term(b), format!("slot {cond} does not exist"))
                }
                Terminator::Return(Some(s)) if s.index() >= nslots => {
                    self.error(At::Term(b), format!("slot {s} does not exist"))
                }
                _ => {}
            }
            for succ in block.term.successors() {
                if succ.index() >= f.blocks.len() {
                    self.error(At::Term(b), format!("successor {succ} does not exist"));
                }
            }
        }
    }

    /// A type parameter index out of the function's range, if the type has one.
    fn bad_param_in(&self, ty: &IrType) -> Option<u32> {
        let mut params = Vec::new();
        ty.collect_params(&mut params);
        params
            .into_iter()
            .find(|&n| n as usize >= self.func.type_params.len())
    }

    // ---------------------------------------------------------------- types

    fn types(&mut self) {
        let f = self.func;
        for (bi, block) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            for (ii, inst) in block.insts.iter().enumerate() {
                self.inst_types(At::Inst(b, ii), &inst.kind);
            }
            match &block.term {
                Terminator::Branch { cond, .. } if *self.ty(*cond) != IrType::Bool => {
                    let t = self.show(self.ty(*cond));
                    self.error(
                        At::Term(b),
                        format!("branch condition {cond} is {t}, not bool"),
                    );
                }
                Terminator::Return(Some(s)) if *self.ty(*s) != f.result => {
                    let (got, want) = (self.show(self.ty(*s)), self.show(&f.result));
                    self.error(
                        At::Term(b),
                        format!("returns {s} of type {got}, but the result type is {want}"),
                    );
                }
                Terminator::Return(None) if f.result != IrType::Unit => {
                    let want = self.show(&f.result);
                    self.error(
                        At::Term(b),
                        format!("returns nothing, but the result type is {want}"),
                    );
                }
                _ => {}
            }
        }
    }

    fn expect(&mut self, at: At, slot: SlotId, want: &IrType, what: &str) {
        let got = self.ty(slot);
        if got != want {
            let (g, w) = (self.show(got), self.show(want));
            self.error(at, format!("{what} {slot} is {g}, expected {w}"));
        }
    }

    fn inst_types(&mut self, at: At, kind: &InstKind) {
        use InstKind::*;
        match kind {
            Const { dst, value } => {
                let ty = self.ty(*dst).clone();
                let ok = match value {
                    ConstValue::Unit => ty == IrType::Unit,
                    ConstValue::Bool(_) => ty == IrType::Bool,
                    ConstValue::Int(v) => ty.int_fits(*v),
                    ConstValue::Float(_) => ty.is_float(),
                    ConstValue::Str(_) => ty == IrType::String,
                };
                if !ok {
                    let t = self.show(&ty);
                    self.error(
                        at,
                        format!("constant {value:?} does not fit {dst} of type {t}"),
                    );
                }
            }
            Copy { dst, src } => {
                let ty = self.ty(*src).clone();
                if !ty.is_copy() {
                    let t = self.show(&ty);
                    self.error(at, format!("copy of {src}, whose type {t} is not copy"));
                }
                self.expect(at, *dst, &ty, "destination");
            }
            Move { dst, src } | Clone { dst, src } => {
                let ty = self.ty(*src).clone();
                self.expect(at, *dst, &ty, "destination");
            }
            Drop { .. } | Debuglog { .. } | CalledFrom => {}
            CheckDepth { depth } => {
                if *depth == 0 {
                    self.error(
                        at,
                        "check_depth takes a call depth of at least 1".to_string(),
                    );
                }
            }
            Unary { dst, op, src } => {
                let ty = self.ty(*src).clone();
                let ok = match op {
                    UnaryOp::Neg => ty.is_integer() || ty.is_float(),
                    UnaryOp::WrappingNeg | UnaryOp::BitNot => ty.is_integer(),
                    UnaryOp::Not => ty == IrType::Bool,
                    UnaryOp::Sqrt | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Abs => ty.is_float(),
                };
                if !ok {
                    let t = self.show(&ty);
                    self.error(at, format!("{op:?} does not apply to {t}"));
                }
                self.expect(at, *dst, &ty, "destination");
            }
            Binary { dst, op, lhs, rhs } => {
                let ty = self.ty(*lhs).clone();
                self.expect(at, *rhs, &ty, "right operand");
                self.expect(at, *dst, &ty, "destination");
                let ok = match op {
                    BinaryOp::And | BinaryOp::Or => ty == IrType::Bool,
                    op if op.integers_only() => ty.is_integer(),
                    _ => ty.is_integer() || ty.is_float(),
                };
                if !ok {
                    let t = self.show(&ty);
                    self.error(at, format!("{} does not apply to {t}", op.name()));
                }
            }
            Compare { dst, lhs, rhs, .. } => {
                let ty = self.ty(*lhs).clone();
                self.expect(at, *rhs, &ty, "right operand");
                self.expect(at, *dst, &IrType::Bool, "destination");
            }
            Cast { dst, src, checked } => {
                // A `bool` becomes an integer as 0 or 1 (never out of range: unchecked).
                let flag = *self.ty(*src) == IrType::Bool && !*checked;
                if flag && !self.ty(*dst).is_integer() {
                    let t = self.show(self.ty(*dst));
                    self.error(
                        at,
                        format!("cast of a bool to {dst} of type {t}, not an integer"),
                    );
                }
                for s in [*dst, *src].into_iter().filter(|s| !(flag && s == src)) {
                    let ty = self.ty(s);
                    if !(ty.is_integer() || ty.is_float()) {
                        let t = self.show(ty);
                        self.error(
                            at,
                            format!("cast involves {s} of type {t}, which is not a number"),
                        );
                    }
                }
            }
            Concat { dst, lhs, rhs } => {
                for (s, what) in [
                    (*dst, "destination"),
                    (*lhs, "left operand"),
                    (*rhs, "right operand"),
                ] {
                    self.expect(at, s, &IrType::String, what);
                }
                if dst == rhs && dst != lhs {
                    self.error(
                        at,
                        format!(
                            "concat into its right operand {rhs}: a concat may append to its \
                             left operand only"
                        ),
                    );
                }
            }
            MakeTuple { dst, fields } => {
                let parts: Vec<IrType> = fields.iter().map(|s| self.ty(*s).clone()).collect();
                match self.ty(*dst).clone() {
                    // A record is built as the tuple of its fields.
                    IrType::Record(record) if record.fields == parts => {}
                    _ => self.expect(at, *dst, &IrType::Tuple(parts), "destination"),
                }
            }
            TupleField { dst, src, index } => match self.ty(*src).fields().map(<[_]>::to_vec) {
                Some(fields) => match fields.get(*index as usize) {
                    Some(field) => self.expect(at, *dst, field, "destination"),
                    None => self.error(
                        at,
                        format!("field {index} of a {}-field tuple", fields.len()),
                    ),
                },
                None => {
                    let t = self.show(&self.ty(*src).clone());
                    self.error(at, format!("field of {src}, which is {t}, not a tuple"));
                }
            },
            Unpack { src, dsts } => match self.ty(*src).fields().map(<[_]>::to_vec) {
                Some(fields) if fields.len() == dsts.len() => {
                    for (d, field) in dsts.iter().zip(&fields) {
                        self.expect(at, *d, field, "destination");
                    }
                }
                _ => {
                    let t = self.show(&self.ty(*src).clone());
                    self.error(
                        at,
                        format!("unpacks {src} of type {t} into {} slots", dsts.len()),
                    );
                }
            },
            MakeVariant {
                dst,
                variant,
                fields,
            } => {
                let parts: Vec<IrType> = fields.iter().map(|s| self.ty(*s).clone()).collect();
                match self.ty(*dst).clone() {
                    IrType::Enum(e)
                        if (*variant as usize) < e.variant_count()
                            && e.variant_fields(*variant as usize) == parts => {}
                    other => {
                        let t = self.show(&other);
                        self.error(
                            at,
                            format!("variant {variant} of {dst} of type {t} built from {} fields of other types", parts.len()),
                        );
                    }
                }
            }
            VariantTag { dst, src } => {
                self.expect(at, *dst, &IrType::U32, "destination");
                if !matches!(self.ty(*src), IrType::Enum(_)) {
                    let t = self.show(&self.ty(*src).clone());
                    self.error(
                        at,
                        format!("variant tag of {src}, which is {t}, not an enum"),
                    );
                }
            }
            TakeVariant { src, variant, dsts } => match self.ty(*src).clone() {
                IrType::Enum(e)
                    if (*variant as usize) < e.variant_count()
                        && e.declared_variants[*variant as usize].len() == dsts.len() =>
                {
                    for (d, field) in dsts.iter().zip(&e.variant_fields(*variant as usize)) {
                        self.expect(at, *d, field, "destination");
                    }
                }
                other => {
                    let t = self.show(&other);
                    self.error(
                        at,
                        format!(
                            "takes variant {variant} of {src} of type {t} into {} slots",
                            dsts.len()
                        ),
                    );
                }
            },
            MakeList { dst, elems } => match self.ty(*dst).clone() {
                IrType::List(elem) => {
                    for e in elems {
                        self.expect(at, *e, &elem, "element");
                    }
                }
                other => {
                    let t = self.show(&other);
                    self.error(at, format!("list made into {dst} of type {t}"));
                }
            },
            ListLen { dst, list } => {
                if *self.ty(*list) != IrType::String {
                    self.list_elem(at, *list);
                }
                self.expect(at, *dst, &IrType::Index, "destination");
            }
            MapLen { dst, map } => {
                self.map_entry_type(at, *map);
                self.expect(at, *dst, &IrType::Index, "destination");
            }
            MapEntry { dst, map, index } => {
                if let Some(entry) = self.map_entry_type(at, *map) {
                    self.expect(at, *dst, &entry, "destination");
                }
                self.expect(at, *index, &IrType::Index, "index");
            }
            ListGet {
                dst: element,
                list,
                index,
                ..
            }
            | ListSet {
                value: element,
                list,
                index,
                ..
            } => {
                let role = if matches!(kind, ListGet { .. }) {
                    "destination"
                } else {
                    "value"
                };
                // A read takes whatever the type has by index (a string's bytes too); a
                // write only a list's elements.
                let elem = match (kind, self.ty(*list).indexed_element()) {
                    (ListGet { .. }, Some(elem)) => Some(elem.clone()),
                    _ => self.list_elem(at, *list),
                };
                if let Some(elem) = elem {
                    self.expect(at, *element, &elem, role);
                }
                self.expect(at, *index, &IrType::Index, "index");
            }
            StrSlice {
                dst,
                string,
                start,
                end,
                ..
            } => {
                self.expect(at, *string, &IrType::String, "string");
                self.expect(at, *start, &IrType::Index, "start");
                self.expect(at, *end, &IrType::Index, "end");
                self.expect(at, *dst, &IrType::String, "destination");
            }
            StrParts { dst, string, sep } => {
                self.expect(at, *string, &IrType::String, "string");
                if let Some(sep) = sep {
                    self.expect(at, *sep, &IrType::String, "separator");
                }
                self.expect(
                    at,
                    *dst,
                    &IrType::List(Box::new(IrType::String)),
                    "destination",
                );
            }
            ListPush { list, value } => {
                if let Some(elem) = self.list_elem(at, *list) {
                    self.expect(at, *value, &elem, "value");
                }
            }
            MakeSome { dst, value } => {
                let want = IrType::option(self.ty(*value).clone());
                self.expect(at, *dst, &want, "destination");
            }
            MakeNone { dst } => {
                if !matches!(self.ty(*dst), IrType::Option(_)) {
                    let t = self.show(self.ty(*dst));
                    self.error(at, format!("none made into {dst} of type {t}"));
                }
            }
            IsSome { dst, src } => {
                self.option_payload(at, *src);
                self.expect(at, *dst, &IrType::Bool, "destination");
            }
            Unwrap { dst, src } => {
                if let Some(p) = self.option_payload(at, *src) {
                    self.expect(at, *dst, &p, "destination");
                }
            }
            MakeData { dst, .. } => self.expect(at, *dst, &IrType::Data, "destination"),
            Call { .. } => {
                let call = kind.as_program_call().expect("a call");
                if call.depth == 0 {
                    self.error(at, "a call takes a call depth of at least 1".to_string());
                }
                self.call_types(at, call.dst, call.func, call.type_args, call.args)
            }
            CallNative { dst, native, args } => self.native_types(at, *dst, native, args),
        }
    }

    /// The part of `slot`'s type that `part` picks; an error saying `slot` is not `what`
    /// when its type has none.
    fn type_part(
        &mut self,
        at: At,
        slot: SlotId,
        what: &str,
        part: fn(&IrType) -> Option<&IrType>,
    ) -> Option<IrType> {
        if let Some(p) = part(self.ty(slot)) {
            return Some(p.clone());
        }
        let t = self.show(self.ty(slot));
        self.error(at, format!("{slot} is {t}, not {what}"));
        None
    }

    fn list_elem(&mut self, at: At, list: SlotId) -> Option<IrType> {
        self.type_part(at, list, "a list", |t| match t {
            IrType::List(e) => Some(e),
            _ => None,
        })
    }

    /// The entry tuple `(K, V)` of the map `map`; an error when it is not a map.
    fn map_entry_type(&mut self, at: At, map: SlotId) -> Option<IrType> {
        if let IrType::Map(k, v) = self.ty(map) {
            return Some(IrType::Tuple(vec![(**k).clone(), (**v).clone()]));
        }
        let t = self.show(self.ty(map));
        self.error(at, format!("{map} is {t}, not a map"));
        None
    }

    fn option_payload(&mut self, at: At, src: SlotId) -> Option<IrType> {
        self.type_part(at, src, "an option", |t| match t {
            IrType::Option(p) => Some(p),
            _ => None,
        })
    }

    /// Whether `callee`, which takes `takes`, is given as many `what`; an error when not.
    fn count_fits<T, G>(
        &mut self,
        at: At,
        callee: &str,
        what: &str,
        takes: &[T],
        given: &[G],
    ) -> bool {
        let (takes, given) = (takes.len(), given.len());
        if takes != given {
            self.error(at, format!("{callee} takes {takes} {what}, given {given}"));
        }
        takes == given
    }

    /// An error when argument `i` is passed in another mode than its parameter's.
    fn check_mode(&mut self, at: At, i: usize, given: ParamMode, param: &str, mode: ParamMode) {
        if given != mode {
            self.error(
                at,
                format!("argument {i} is passed {given}, but `{param}` is {mode}"),
            );
        }
    }

    /// Whether `ty` (in this function's terms) belongs to `class`.
    fn satisfies(&self, ty: &IrType, class: TypeClass) -> bool {
        match ty {
            IrType::Param(n) => self.func.type_params[*n as usize].class.implies(class),
            _ => class.admits(ty),
        }
    }

    fn call_types(
        &mut self,
        at: At,
        dst: Option<SlotId>,
        callee: FuncId,
        type_args: &[IrType],
        args: &[Arg],
    ) {
        let target = self.program.function(callee);
        let callee_name = format!("`{}`", target.name);
        if !self.count_fits(
            at,
            &callee_name,
            "type arguments",
            &target.type_params,
            type_args,
        ) {
            return;
        }
        for (ta, tp) in type_args.iter().zip(&target.type_params) {
            if let Some(bad) = self.bad_param_in(ta) {
                self.error(
                    at,
                    format!("type argument mentions T{bad}, which the caller does not have"),
                );
            } else if !self.satisfies(ta, tp.class) {
                let t = self.show(ta);
                self.error(
                    at,
                    format!(
                        "type argument {t} for `{}` is not {}",
                        tp.name,
                        tp.class.name()
                    ),
                );
            }
        }
        if !self.count_fits(at, &callee_name, "arguments", &target.params, args) {
            return;
        }
        for (i, (arg, param)) in args.iter().zip(&target.params).enumerate() {
            self.check_mode(at, i, arg.mode, &param.name, param.mode);
            let want = target.slot_type(param.slot).substitute(type_args);
            self.expect(at, arg.slot, &want, &format!("argument {i}"));
        }
        let result = target.result.substitute(type_args);
        match dst {
            Some(d) => self.expect(at, d, &result, "destination"),
            // A result of a type parameter is written through a destination even when
            // the parameter is bound to unit (the backends pass its address).
            None if target.result != IrType::Unit => {
                self.error(at, format!("the result of `{}` is not kept", target.name));
            }
            None => {}
        }
    }

    fn native_types(
        &mut self,
        at: At,
        dst: Option<SlotId>,
        native: &crate::native::NativeContext,
        args: &[Arg],
    ) {
        let name = format!("{}.{}", native.rider(), native.function());
        if native.symbol() != native_symbol(native.rider(), native.function()) {
            self.error(
                at,
                format!("native `{name}` has symbol `{}`", native.symbol()),
            );
        }
        // The undetermined type parameters are those no parameter mentions.
        let undetermined = crate::native::undetermined_type_params(
            native.param_types(),
            native.type_params().len(),
        );
        if undetermined != native.undetermined_type_params {
            self.error(
                at,
                format!(
                    "native `{name}` lists undetermined type parameters {:?}, but its signature leaves {:?}",
                    native.undetermined_type_params, undetermined
                ),
            );
            return;
        }
        if native.undetermined_bindings.len() != undetermined.len() {
            self.error(
                at,
                format!(
                    "native `{name}` needs {} bindings for undetermined type parameters, has {}",
                    undetermined.len(),
                    native.undetermined_bindings.len()
                ),
            );
            return;
        }
        let words = native.word_count();
        if words != word_count(native.params().len(), undetermined.len()) || words > MAX_C_WORDS {
            self.error(
                at,
                format!("native `{name}` takes {words} C words; at most {MAX_C_WORDS} are allowed"),
            );
        }
        if !self.count_fits(
            at,
            &format!("native `{name}`"),
            "arguments",
            native.params(),
            args,
        ) {
            return;
        }
        // Bind the native's type parameters: from the arguments, and from the call site.
        let mut bindings: Vec<Option<IrType>> = vec![None; native.type_params().len()];
        for (n, ty) in undetermined.iter().zip(&native.undetermined_bindings) {
            if let Some(bad) = self.bad_param_in(ty) {
                self.error(
                    at,
                    format!("binding mentions T{bad}, which the caller does not have"),
                );
                return;
            }
            bindings[*n as usize] = Some(ty.clone());
        }
        for (i, (arg, param)) in args.iter().zip(native.params()).enumerate() {
            self.check_mode(at, i, arg.mode, &param.name, param.mode);
            if !unify(&param.ty, self.ty(arg.slot), &mut bindings) {
                let t = self.show(self.ty(arg.slot));
                self.error(
                    at,
                    format!(
                        "argument {i} of type {t} does not fit parameter `{}` of `{name}`",
                        param.name
                    ),
                );
            }
        }
        for (binding, tp) in bindings.iter().zip(native.type_params()) {
            if let Some(b) = binding {
                if !self.satisfies(b, tp.class) {
                    let t = self.show(b);
                    self.error(
                        at,
                        format!(
                            "`{name}` binds `{}` to {t}, which is not {}",
                            tp.name,
                            tp.class.name()
                        ),
                    );
                }
            }
        }
        let result = native.result_type();
        match dst {
            Some(d) => {
                let dty = self.ty(d).clone();
                if !unify(result, &dty, &mut bindings) {
                    let t = self.show(&dty);
                    self.error(
                        at,
                        format!("destination {d} of type {t} does not fit the result of `{name}`"),
                    );
                }
            }
            None if *result != IrType::Unit => {
                self.error(at, format!("the result of `{name}` is not kept"))
            }
            None => {}
        }
    }

    // ---------------------------------------------------------------- aliasing

    fn aliasing(&mut self) {
        let f = self.func;
        for (bi, block) in f.blocks.iter().enumerate() {
            for (ii, inst) in block.insts.iter().enumerate() {
                let (InstKind::Call { args, .. } | InstKind::CallNative { args, .. }) = &inst.kind
                else {
                    continue;
                };
                for (i, a) in args.iter().enumerate() {
                    if !matches!(a.mode, ParamMode::Mut | ParamMode::Out) {
                        continue;
                    }
                    // Each pair once: an exclusive argument against every later one and
                    // every earlier one that is not exclusive itself.
                    let again = args.iter().enumerate().find(|(j, b)| {
                        *j != i
                            && b.slot == a.slot
                            && (*j > i || !matches!(b.mode, ParamMode::Mut | ParamMode::Out))
                    });
                    if let Some((j, b)) = again {
                        self.error(
                            At::Inst(BlockId(bi as u32), ii),
                            format!(
                                "{} is passed `{}` as argument {i} and again (`{}`) as argument {j} of the same call: a value passed `mut` or `out` must be the callee's only view of it (D010)",
                                a.slot, a.mode, b.mode
                            ),
                        );
                    }
                }
                // A value the callee owns (`in`, not copy) is its only view of it too: it
                // is moved once, so it appears once among the arguments.
                for (i, a) in args.iter().enumerate() {
                    if a.mode != ParamMode::In || f.slot_type(a.slot).is_copy() {
                        continue;
                    }
                    let again = args.iter().enumerate().find(|(j, b)| {
                        *j != i
                            && b.slot == a.slot
                            && !matches!(b.mode, ParamMode::Mut | ParamMode::Out)
                            && (*j > i || b.mode != ParamMode::In)
                    });
                    if let Some((j, b)) = again {
                        self.error(
                            At::Inst(BlockId(bi as u32), ii),
                            format!(
                                "{} is passed `in` as argument {i} and again (`{}`) as argument {j} of the same call: a value the callee owns must be its only view of it",
                                a.slot, b.mode
                            ),
                        );
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- fallibility

    fn fallibility(&mut self) {
        let f = self.func;
        let mut cleanup = vec![false; f.blocks.len()];
        let mut work = VecDeque::new();
        for (bi, block) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            for (ii, inst) in block.insts.iter().enumerate() {
                let fallible = inst.kind.is_fallible(f);
                match (fallible, inst.abandon) {
                    (true, None) => self.error(
                        At::Inst(b, ii),
                        "a fallible instruction without an abandon block",
                    ),
                    (false, Some(_)) => self.error(
                        At::Inst(b, ii),
                        "an abandon block on an instruction that cannot fail",
                    ),
                    (true, Some(a)) => work.push_back(a),
                    (false, None) => {}
                }
            }
        }
        while let Some(b) = work.pop_front() {
            if std::mem::replace(&mut cleanup[b.index()], true) {
                continue;
            }
            let block = &f.blocks[b.index()];
            for (ii, inst) in block.insts.iter().enumerate() {
                if !matches!(inst.kind, InstKind::Drop { .. } | InstKind::CalledFrom) {
                    self.error(
                        At::Inst(b, ii),
                        "an abandon path may only drop values and add call sites",
                    );
                }
            }
            match &block.term {
                Terminator::Jump(next) => work.push_back(*next),
                Terminator::Abandon => {}
                _ => self.error(At::Term(b), "an abandon path must end in `abandon`"),
            }
        }
        self.cleanup.clone_from(&cleanup);
        // Normal flow may not enter an abandon path, nor reach `Abandon` outside one.
        for (bi, block) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            if cleanup[bi] {
                continue;
            }
            if block.term == Terminator::Abandon {
                self.error(At::Term(b), "`abandon` outside an abandon path");
            }
            for (ii, inst) in block.insts.iter().enumerate() {
                if matches!(inst.kind, InstKind::CalledFrom) {
                    self.error(At::Inst(b, ii), "`called_from` outside an abandon path");
                }
            }
            for succ in block.term.successors() {
                if cleanup[succ.index()] {
                    self.error(
                        At::Term(b),
                        format!("normal flow jumps into abandon path {succ}"),
                    );
                }
            }
        }
    }

    // ---------------------------------------------------------------- ownership

    /// Follows which slots are initialized along every path of normal flow (a dataflow
    /// over the blocks, one bit per slot). Abandon paths are not walked per instruction:
    /// each is a chain of drops, summarized once ([`Chain`]), and the state on failure of
    /// each fallible instruction is compared with the chain it names: incrementally,
    /// against the last chain verified in the same block, so that a function whose
    /// instructions share or extend each other's chains costs linear time.
    fn ownership(&mut self) {
        let f = self.func;
        let facts = SlotFacts::of(f);
        let mut own = Ownership {
            chains: vec![None; f.blocks.len()],
            memo: vec![None; f.blocks.len()],
            reported_abandon: vec![false; f.blocks.len()],
            visit: 0,
            net: HashMap::new(),
            seen: Vec::new(),
            seen_generation: 0,
        };
        let mut entry = State::empty(&facts);
        for p in &f.params {
            if p.mode != ParamMode::Out {
                entry.set(&facts, p.slot, true, None);
            }
        }
        let mut states: Vec<Option<State>> = vec![None; f.blocks.len()];
        let mut queued = vec![false; f.blocks.len()];
        let mut work = VecDeque::new();
        states[f.entry.index()] = Some(entry);
        work.push_back(f.entry);
        queued[f.entry.index()] = true;
        let mut reported_join = vec![false; f.blocks.len()];
        let mut events: Vec<(SlotId, bool)> = Vec::new();
        while let Some(b) = work.pop_front() {
            queued[b.index()] = false;
            let mut state = states[b.index()]
                .clone()
                .expect("queued blocks have a state");
            own.visit += 1;
            events.clear();
            let block = &f.blocks[b.index()];
            for (ii, inst) in block.insts.iter().enumerate() {
                let at = At::Inst(b, ii);
                if let Some(abandon) = inst.abandon {
                    // The state on failure: moved-in values gone, destinations unwritten.
                    let delta = failure_delta(&facts, &inst.kind);
                    let mut undo = Vec::with_capacity(delta.len());
                    for s in delta {
                        undo.push((s, state.init.get(s.index())));
                        state.set(&facts, s, false, Some(&mut events));
                    }
                    self.check_abandon(at, abandon, &facts, &state, &events, &mut own);
                    for (s, was) in undo.into_iter().rev() {
                        state.set(&facts, s, was, Some(&mut events));
                    }
                }
                self.step(at, &facts, &mut state, &mut events, &inst.kind);
            }
            let at = At::Term(b);
            let mut exits: Vec<BlockId> = Vec::new();
            match &block.term {
                Terminator::Jump(t) => exits.push(*t),
                Terminator::Branch {
                    cond,
                    then_block,
                    else_block,
                } => {
                    self.read(at, &state, *cond);
                    exits.push(*then_block);
                    exits.push(*else_block);
                }
                Terminator::Return(result) => {
                    if let Some(r) = result {
                        self.read(at, &state, *r);
                        self.refuse_view(at, &facts, *r, "returned (clone it first)");
                        self.refuse_bound(at, &facts, *r, "returned (clone it first)");
                        state.set(&facts, *r, false, None);
                    }
                    self.check_return(at, &facts, &state);
                }
                Terminator::Abandon | Terminator::Unterminated => {}
            }
            for target in exits {
                match &mut states[target.index()] {
                    slot @ None => {
                        *slot = Some(state.clone());
                        if !std::mem::replace(&mut queued[target.index()], true) {
                            work.push_back(target);
                        }
                    }
                    Some(existing) => {
                        let (changed, owned_mismatch) = existing.meet(&facts, &state);
                        if let Some(i) = owned_mismatch {
                            if !std::mem::replace(&mut reported_join[target.index()], true) {
                                self.error(
                                    at,
                                    format!(
                                        "slot s{i} is initialized on one path into {target} and not on another"
                                    ),
                                );
                            }
                        }
                        if changed && !std::mem::replace(&mut queued[target.index()], true) {
                            work.push_back(target);
                        }
                    }
                }
            }
        }
    }

    fn read(&mut self, at: At, state: &State, slot: SlotId) {
        if !state.init.get(slot.index()) {
            self.error(at, format!("{slot} is read while uninitialized"));
        }
    }

    fn write(&mut self, at: At, flow: &mut Flow<'_>, slot: SlotId) {
        self.refuse_ref(at, flow.facts, slot, "written");
        self.refuse_bound(at, flow.facts, slot, "written");
        self.refuse_change_under_parts(at, flow, slot, "written");
        if flow.state.init.get(slot.index()) && flow.facts.owned[slot.index()] {
            self.error(
                at,
                format!("{slot} is overwritten while it still owns a value"),
            );
        }
        flow.state.set(flow.facts, slot, true, Some(flow.events));
        expire_views_of(flow, slot);
    }

    /// Moves a value out of `slot` (a copy value stays).
    fn take(&mut self, at: At, flow: &mut Flow<'_>, slot: SlotId) {
        self.read(at, flow.state, slot);
        self.refuse_view(at, flow.facts, slot, "moved from (clone it first)");
        if flow.facts.owned[slot.index()] {
            self.refuse_ref(at, flow.facts, slot, "moved from");
            self.refuse_bound(at, flow.facts, slot, "moved from (clone it first)");
            self.refuse_change_under_parts(at, flow, slot, "moved from");
            flow.state.set(flow.facts, slot, false, Some(flow.events));
            expire_views_of(flow, slot);
        }
    }

    fn mutate(&mut self, at: At, flow: &mut Flow<'_>, slot: SlotId) {
        self.refuse_ref(at, flow.facts, slot, "changed");
        self.refuse_bound(at, flow.facts, slot, "changed");
        self.refuse_change_under_parts(at, flow, slot, "changed");
        expire_views_of(flow, slot);
    }

    /// An error when `slot` is a `ref` parameter, which cannot be `done` to.
    fn refuse_ref(&mut self, at: At, facts: &SlotFacts, slot: SlotId, done: &str) {
        if facts.mode[slot.index()] == Some(ParamMode::Ref) {
            self.error(
                at,
                format!("{slot} is a `ref` parameter and cannot be {done}"),
            );
        }
        self.refuse_view(at, facts, slot, done);
    }

    /// An error when `slot` is written by a `str_parts`: its list is only read and
    /// dropped, so that no piece leaves it.
    fn refuse_bound(&mut self, at: At, facts: &SlotFacts, slot: SlotId, done: &str) {
        if let Some(string) = facts.bound_to[slot.index()] {
            self.error(
                at,
                format!("{slot} holds parts of {string} (`str_parts`) and cannot be {done}"),
            );
        }
    }

    /// An error when `slot`, or a live view under it, has the parts of a `str_parts`
    /// live: its bytes must stay as they are while they do.
    fn refuse_change_under_parts(&mut self, at: At, flow: &Flow<'_>, slot: SlotId, done: &str) {
        let mut stack = vec![slot];
        let mut seen = HashSet::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            let parts_of_s = if flow.facts.constant_bytes[s.index()] {
                &[][..]
            } else {
                &flow.facts.bound[s.index()][..]
            };
            for &parts in parts_of_s {
                if flow.state.init.get(parts.index()) {
                    let under = if s == slot {
                        String::new()
                    } else {
                        format!(" (under the view {s})")
                    };
                    self.error(
                        at,
                        format!(
                            "{slot} is {done} while {parts} holds parts of it{under} (`str_parts`): drop {parts} first"
                        ),
                    );
                }
            }
            for &view in &flow.facts.viewers[s.index()] {
                if flow.state.init.get(view.index()) {
                    stack.push(view);
                }
            }
        }
    }

    /// An error when `slot` is a view slot (written by a `list_get.view`), which is
    /// only read.
    fn refuse_view(&mut self, at: At, facts: &SlotFacts, slot: SlotId, done: &str) {
        if facts.view[slot.index()] {
            let of = if facts.part_view[slot.index()] {
                "a part of a string (`str_slice.view`)"
            } else {
                "a list element (`list_get.view`)"
            };
            self.error(at, format!("{slot} is a view of {of} and cannot be {done}"));
        }
    }

    /// Applies one instruction, as it completes normally, to the state.
    fn step(
        &mut self,
        at: At,
        facts: &SlotFacts,
        state: &mut State,
        events: &mut Vec<(SlotId, bool)>,
        kind: &InstKind,
    ) {
        use InstKind::*;
        let flow = &mut Flow {
            facts,
            state,
            events,
        };
        // Reads and moves first, then the writes.
        let mut writes: Vec<SlotId> = Vec::new();
        match kind {
            Const { dst, .. } | MakeNone { dst } => writes.push(*dst),
            Copy { dst, src }
            | Clone { dst, src }
            | Unary { dst, src, .. }
            | Cast { dst, src, .. }
            | IsSome { dst, src }
            | TupleField { dst, src, .. }
            | VariantTag { dst, src }
            | ListLen { dst, list: src, .. }
            | MapLen { dst, map: src } => {
                self.read(at, flow.state, *src);
                writes.push(*dst);
            }
            MapEntry { dst, map, index } => {
                self.read(at, flow.state, *map);
                self.read(at, flow.state, *index);
                if flow.facts.mode[dst.index()].is_some() {
                    self.error(at, format!("{dst} is a parameter and cannot be a view"));
                }
                if flow.facts.view[dst.index()] {
                    // As a `list_get.view`: written only here, owning nothing.
                    self.refuse_change_under_parts(at, flow, *dst, "written");
                    flow.state.set(flow.facts, *dst, true, Some(flow.events));
                    expire_views_of(flow, *dst);
                } else {
                    writes.push(*dst);
                }
            }
            Move { dst, src } | Unwrap { dst, src } => {
                self.take(at, flow, *src);
                writes.push(*dst);
            }
            Drop { slot } => {
                self.refuse_ref(at, flow.facts, *slot, "dropped");
                // An abandon path only drops: parts left after their string there are
                // dropped unread (a part owns nothing, so its drop reads no byte).
                let cleanup = matches!(at, At::Inst(b, _) if self.cleanup[b.index()]);
                if !cleanup {
                    self.refuse_change_under_parts(at, flow, *slot, "dropped");
                }
                self.read(at, flow.state, *slot);
                flow.state.set(flow.facts, *slot, false, Some(flow.events));
                expire_views_of(flow, *slot);
            }
            // A concat into its own left operand appends to it in place: the string is
            // changed, not overwritten, and stays the slot's.
            Concat { dst, lhs, rhs } if dst == lhs => {
                self.read(at, flow.state, *lhs);
                self.read(at, flow.state, *rhs);
                self.mutate(at, flow, *dst);
            }
            Binary { dst, lhs, rhs, .. }
            | Compare { dst, lhs, rhs, .. }
            | Concat { dst, lhs, rhs } => {
                self.read(at, flow.state, *lhs);
                self.read(at, flow.state, *rhs);
                writes.push(*dst);
            }
            MakeTuple { dst, fields: parts }
            | MakeVariant {
                dst, fields: parts, ..
            }
            | MakeList { dst, elems: parts } => {
                for p in parts {
                    self.take(at, flow, *p);
                }
                writes.push(*dst);
            }
            Unpack { src, dsts } | TakeVariant { src, dsts, .. } => {
                self.take(at, flow, *src);
                writes.extend(dsts);
            }
            ListGet {
                dst,
                list,
                index,
                view,
                ..
            }
            | StrSlice {
                dst,
                string: list,
                start: index,
                view,
                ..
            } => {
                self.read(at, flow.state, *list);
                self.read(at, flow.state, *index);
                if let StrSlice { end, .. } = kind {
                    self.read(at, flow.state, *end);
                }
                if *view && flow.facts.mode[dst.index()].is_some() {
                    self.error(at, format!("{dst} is a parameter and cannot be a view"));
                }
                if *view && flow.facts.view[dst.index()] {
                    // A view slot is written only here, and owns nothing to overwrite;
                    // the views of what it viewed before end.
                    self.refuse_change_under_parts(at, flow, *dst, "written");
                    flow.state.set(flow.facts, *dst, true, Some(flow.events));
                    expire_views_of(flow, *dst);
                } else {
                    writes.push(*dst);
                }
            }
            StrParts { dst, string, sep } => {
                self.read(at, flow.state, *string);
                if let Some(sep) = sep {
                    self.read(at, flow.state, *sep);
                }
                if flow.facts.mode[dst.index()].is_some() {
                    self.error(at, format!("{dst} is a parameter and cannot hold parts"));
                }
                if *dst == *string || sep == &Some(*dst) {
                    self.error(at, format!("{dst} cannot hold parts of itself"));
                }
                // Written only here (`refuse_bound`), as a list it owns.
                if flow.state.init.get(dst.index()) {
                    self.error(
                        at,
                        format!("{dst} is overwritten while it still owns a value"),
                    );
                }
                flow.state.set(flow.facts, *dst, true, Some(flow.events));
                expire_views_of(flow, *dst);
            }
            ListSet {
                list, index, value, ..
            } => {
                self.read(at, flow.state, *list);
                self.read(at, flow.state, *index);
                self.take(at, flow, *value);
                self.mutate(at, flow, *list);
            }
            ListPush { list, value } => {
                self.read(at, flow.state, *list);
                self.take(at, flow, *value);
                self.mutate(at, flow, *list);
            }
            MakeSome { dst, value } | MakeData { dst, value } => {
                self.take(at, flow, *value);
                writes.push(*dst);
            }
            Call { dst, args, .. } | CallNative { dst, args, .. } => {
                // The callee may change or drop what it is given `mut`, `out` or `in`:
                // no view it is also given may be of that.
                for arg in args.iter().filter(|a| flow.facts.view[a.slot.index()]) {
                    let changed = args.iter().find(|other| {
                        let may_change = match other.mode {
                            ParamMode::Mut | ParamMode::Out => true,
                            ParamMode::In => flow.facts.owned[other.slot.index()],
                            ParamMode::Ref => false,
                        };
                        may_change && flow.facts.views_into(arg.slot, other.slot)
                    });
                    if let Some(other) = changed {
                        self.error(
                            at,
                            format!(
                                "{} is a view into {}, which the same call is given `{}`",
                                arg.slot, other.slot, other.mode
                            ),
                        );
                    }
                }
                for arg in args {
                    match arg.mode {
                        ParamMode::In => self.take(at, flow, arg.slot),
                        ParamMode::Ref => self.read(at, flow.state, arg.slot),
                        ParamMode::Mut => {
                            self.read(at, flow.state, arg.slot);
                            self.mutate(at, flow, arg.slot);
                        }
                        ParamMode::Out => {
                            if flow.state.init.get(arg.slot.index())
                                && flow.facts.owned[arg.slot.index()]
                            {
                                self.error(
                                    at,
                                    format!(
                                        "{} is passed `out` while it still owns a value",
                                        arg.slot
                                    ),
                                );
                            }
                            // Emptied first, so the write below is not an overwrite.
                            flow.state
                                .set(flow.facts, arg.slot, false, Some(flow.events));
                            writes.push(arg.slot);
                        }
                    }
                }
                writes.extend(dst);
            }
            Debuglog { src } => self.read(at, flow.state, *src),
            CheckDepth { .. } | CalledFrom => {}
        }
        for w in writes {
            self.write(at, flow, w);
        }
    }

    /// At a `Return`: every owned value moved or dropped, `mut` and `out` parameters
    /// initialized. Counted, so a function with many returns and many slots stays linear;
    /// the slots are named only when something is wrong.
    fn check_return(&mut self, at: At, facts: &SlotFacts, state: &State) {
        if state.owned_live == 0 && state.mut_uninit == 0 && state.out_init == facts.out_params {
            return;
        }
        for i in 0..facts.mode.len() {
            let slot = SlotId(i as u32);
            let live = state.init.get(i);
            match facts.class[i] {
                Class::Owned if live => self.error(
                    at,
                    format!("{slot} still owns a value when the function returns (a leak)"),
                ),
                Class::MutParam if !live => {
                    self.error(at, format!("`mut` parameter {slot} is left uninitialized"))
                }
                Class::OutParam if !live => self.error(
                    at,
                    format!("`out` parameter {slot} is not initialized at return"),
                ),
                _ => {}
            }
        }
    }

    /// Whether abandon path `abandon` drops exactly what `state` (the state on failure of
    /// the instruction at `at`) owes: every owned value and written `out` parameter, once
    /// each, and nothing else.
    fn check_abandon(
        &mut self,
        at: At,
        abandon: BlockId,
        facts: &SlotFacts,
        state: &State,
        events: &[(SlotId, bool)],
        own: &mut Ownership,
    ) {
        let chain = self.chain(abandon, facts, own);
        if chain.looping {
            return;
        }
        let now = events.len();
        if chain.plain && state.mut_uninit == 0 {
            // Walk to the nearest block of the path verified earlier in this block visit;
            // what the state gained since then must be exactly what the walk dropped.
            let mut added: Vec<SlotId> = Vec::new();
            let mut cur = Some(abandon);
            while let Some(c) = cur {
                if let Some((visit, then)) = own.memo[c.index()] {
                    if visit == own.visit && now - then <= chain.drops {
                        if own.gained_exactly(&events[then..now], &added) {
                            own.memo[abandon.index()] = Some((own.visit, now));
                            return;
                        }
                        break;
                    }
                }
                added.extend(
                    self.func.blocks[c.index()]
                        .insts
                        .iter()
                        .filter_map(drop_slot),
                );
                cur = own.chains[c.index()].as_ref().and_then(|c| c.next);
            }
            if cur.is_none() {
                // The whole path was walked: compare it with the state directly.
                own.seen_generation += 1;
                own.seen.resize(facts.mode.len(), 0);
                let generation = own.seen_generation;
                let exact = added.iter().all(|d| {
                    state.init.get(d.index())
                        && std::mem::replace(&mut own.seen[d.index()], generation) != generation
                }) && added.len() as u32 == state.owned_live + state.out_init;
                if exact {
                    own.memo[abandon.index()] = Some((own.visit, now));
                    return;
                }
            }
        }
        if !std::mem::replace(&mut own.reported_abandon[abandon.index()], true) {
            self.explain_abandon(at, abandon, facts, state);
        }
    }

    /// Names everything wrong between a state on failure and the abandon path it enters.
    fn explain_abandon(&mut self, at: At, abandon: BlockId, facts: &SlotFacts, state: &State) {
        let mut seen = HashSet::new();
        let mut cur = Some(abandon);
        let mut steps = 0;
        while let Some(c) = cur {
            for d in self.func.blocks[c.index()]
                .insts
                .iter()
                .filter_map(drop_slot)
            {
                match facts.mode[d.index()] {
                    Some(ParamMode::Ref) => self.error(
                        at,
                        format!("abandon path {abandon} drops {d}, a `ref` parameter"),
                    ),
                    Some(ParamMode::Mut) => self.error(
                        at,
                        format!(
                            "abandon path {abandon} drops {d}, a `mut` parameter, which must stay initialized"
                        ),
                    ),
                    _ if !seen.insert(d) => {
                        self.error(at, format!("abandon path {abandon} drops {d} twice"))
                    }
                    _ if !state.init.get(d.index()) => self.error(
                        at,
                        format!(
                            "abandon path {abandon} drops {d}, which is uninitialized when this instruction fails"
                        ),
                    ),
                    _ => {}
                }
            }
            steps += 1;
            cur = match self.func.blocks[c.index()].term {
                Terminator::Jump(next) if steps <= self.func.blocks.len() => Some(next),
                _ => None,
            };
        }
        for i in 0..facts.mode.len() {
            let slot = SlotId(i as u32);
            let live = state.init.get(i);
            match facts.class[i] {
                Class::Owned if live && !seen.contains(&slot) => self.error(
                    at,
                    format!(
                        "{slot} still owns a value when this instruction fails, and abandon path {abandon} does not drop it (a leak)"
                    ),
                ),
                Class::OutParam if live && !seen.contains(&slot) => self.error(
                    at,
                    format!(
                        "`out` parameter {slot} is initialized when this instruction fails, and abandon path {abandon} does not empty it"
                    ),
                ),
                Class::MutParam if !live => self.error(
                    at,
                    format!(
                        "`mut` parameter {slot} is uninitialized when this instruction fails"
                    ),
                ),
                _ => {}
            }
        }
    }

    /// The summary of the abandon path starting at `start` (worked out once per block).
    fn chain(&mut self, start: BlockId, facts: &SlotFacts, own: &mut Ownership) -> Chain {
        if let Some(c) = &own.chains[start.index()] {
            return *c;
        }
        // Walk to a block already summarized (or the end), then summarize backwards.
        let mut path = Vec::new();
        let mut on_path = HashSet::new();
        let mut cur = start;
        let mut tail: Option<Chain> = None;
        loop {
            if let Some(c) = &own.chains[cur.index()] {
                tail = Some(*c);
                break;
            }
            if !on_path.insert(cur) {
                self.error(
                    At::Term(cur),
                    format!("the abandon path through {cur} loops"),
                );
                tail = Some(Chain {
                    next: None,
                    drops: 0,
                    plain: false,
                    looping: true,
                });
                break;
            }
            path.push(cur);
            match self.func.blocks[cur.index()].term {
                Terminator::Jump(next) => cur = next,
                // `fallibility` admits only `jump` and `abandon` on an abandon path.
                _ => break,
            }
        }
        let mut after = tail;
        for &b in path.iter().rev() {
            let insts = &self.func.blocks[b.index()].insts;
            let plain = insts
                .iter()
                .filter_map(drop_slot)
                .all(|s| facts.class[s.index()].is_tracked());
            let next = match self.func.blocks[b.index()].term {
                Terminator::Jump(n) => Some(n),
                _ => None,
            };
            let chain = Chain {
                next,
                drops: insts.iter().filter_map(drop_slot).count() + after.map_or(0, |a| a.drops),
                plain: plain && after.is_none_or(|a| a.plain),
                looping: after.is_some_and(|a| a.looping),
            };
            own.chains[b.index()] = Some(chain);
            after = Some(chain);
        }
        own.chains[start.index()].expect("summarized above")
    }
}

/// The slot an abandon path's instruction drops; `None` for a `called_from`
/// (`fallibility` admits only those two there).
fn drop_slot(inst: &Inst) -> Option<SlotId> {
    match inst.kind {
        InstKind::Drop { slot } => Some(slot),
        InstKind::CalledFrom => None,
        _ => unreachable!("abandon paths only drop and add call sites"),
    }
}

/// The slots the failure of `kind` leaves uninitialized that were initialized before:
/// values moved in (the callee or the runtime owns them whatever the outcome), and
/// destinations that own or are `out` parameters (not written).
fn failure_delta(facts: &SlotFacts, kind: &InstKind) -> Vec<SlotId> {
    use InstKind::*;
    let mut moved: Vec<SlotId> = Vec::new();
    let mut writes: Vec<SlotId> = Vec::new();
    match kind {
        Move { dst, .. } | Unwrap { dst, .. } => writes.push(*dst),
        MakeTuple { dst, fields: parts }
        | MakeVariant {
            dst, fields: parts, ..
        }
        | MakeList { dst, elems: parts } => {
            moved.extend(parts);
            writes.push(*dst);
        }
        Unpack { src, dsts } | TakeVariant { src, dsts, .. } => {
            moved.push(*src);
            writes.extend(dsts);
        }
        ListSet { value, .. } | ListPush { value, .. } => moved.push(*value),
        MakeSome { dst, value } | MakeData { dst, value } => {
            moved.push(*value);
            writes.push(*dst);
        }
        Call { dst, args, .. } | CallNative { dst, args, .. } => {
            for arg in args {
                match arg.mode {
                    ParamMode::In => moved.push(arg.slot),
                    ParamMode::Out => writes.push(arg.slot),
                    ParamMode::Ref | ParamMode::Mut => {}
                }
            }
            writes.extend(dst);
        }
        Const { dst, .. }
        | MakeNone { dst }
        | Copy { dst, .. }
        | Clone { dst, .. }
        | Unary { dst, .. }
        | Cast { dst, .. }
        | IsSome { dst, .. }
        | TupleField { dst, .. }
        | VariantTag { dst, .. }
        | ListLen { dst, .. }
        | ListGet { dst, .. }
        | StrSlice { dst, .. }
        | MapLen { dst, .. }
        | MapEntry { dst, .. }
        | StrParts { dst, .. }
        | Binary { dst, .. }
        | Compare { dst, .. }
        | Concat { dst, .. } => writes.push(*dst),
        Drop { slot } => moved.push(*slot),
        Debuglog { .. } | CheckDepth { .. } | CalledFrom => {}
    }
    moved.retain(|s| facts.owned[s.index()]);
    writes.retain(|s| facts.owned[s.index()] || facts.mode[s.index()] == Some(ParamMode::Out));
    moved.extend(writes);
    moved
}

/// How the ownership check treats a slot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A local or `in` parameter of an owned type: owes a drop while initialized.
    Owned,
    /// An `out` parameter: must be written at a return and emptied on an abandon path.
    OutParam,
    /// A `mut` parameter: always the caller's, initialized at every exit.
    MutParam,
    /// Copy values and `ref` parameters.
    Other,
}

impl Class {
    /// Whether an abandon path must drop the slot when it is initialized.
    fn is_tracked(self) -> bool {
        matches!(self, Class::Owned | Class::OutParam)
    }
}

/// Per-slot facts, computed once per function.
/// What one instruction's step reads and changes: the function's slot facts, the state
/// and the (slot, initialized) events it records.
struct Flow<'f> {
    facts: &'f SlotFacts,
    state: &'f mut State,
    events: &'f mut Vec<(SlotId, bool)>,
}

struct SlotFacts {
    /// Owes a drop while initialized: an owned type, not a view slot.
    owned: Vec<bool>,
    /// Written by a `list_get.view`: borrows a list's element, owns nothing.
    view: Vec<bool>,
    /// For each slot, the view slots that some `list_get.view` makes of it.
    viewers: Vec<Vec<SlotId>>,
    /// For each view slot, the lists it is made of.
    viewed: Vec<Vec<SlotId>>,
    /// Written by a `str_slice.view`.
    part_view: Vec<bool>,
    /// For a slot a `str_parts` writes, the string whose bytes its pieces show.
    bound_to: Vec<Option<SlotId>>,
    /// For each slot, the `str_parts` results bound to it.
    bound: Vec<Vec<SlotId>>,
    /// Written only by string constants (and no parameter): whatever it holds, its
    /// bytes are the program's own, which outlive the run, so parts of it stay valid
    /// whatever becomes of the slot.
    constant_bytes: Vec<bool>,
    mode: Vec<Option<ParamMode>>,
    class: Vec<Class>,
    /// Owned slots, as a mask over [`Bits`].
    owned_mask: Bits,
    out_params: u32,
}

impl SlotFacts {
    fn of(f: &Function) -> SlotFacts {
        let n = f.slots.len();
        let mut view = vec![false; n];
        let mut viewers: Vec<Vec<SlotId>> = vec![Vec::new(); n];
        let mut viewed: Vec<Vec<SlotId>> = vec![Vec::new(); n];
        let mut part_view = vec![false; n];
        let mut bound_to = vec![None; n];
        let mut bound: Vec<Vec<SlotId>> = vec![Vec::new(); n];
        let mut constant_bytes = vec![true; n];
        for p in &f.params {
            constant_bytes[p.slot.index()] = false;
        }
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            if !matches!(
                inst.kind,
                InstKind::Const {
                    value: ConstValue::Str(_),
                    ..
                }
            ) {
                inst.kind
                    .for_each_written(|s| constant_bytes[s.index()] = false);
            }
            if let InstKind::StrParts { dst, string, .. } = inst.kind {
                bound_to[dst.index()] = Some(string);
                if !bound[string.index()].contains(&dst) {
                    bound[string.index()].push(dst);
                }
            }
            if let InstKind::StrSlice {
                dst, view: true, ..
            } = inst.kind
            {
                part_view[dst.index()] = true;
            }
            if let Some((dst, list)) = inst.kind.view_made() {
                if !f.slot_type(dst).is_copy() {
                    view[dst.index()] = true;
                    if !viewers[list.index()].contains(&dst) {
                        viewers[list.index()].push(dst);
                        viewed[dst.index()].push(list);
                    }
                }
            }
        }
        let owned: Vec<bool> = f
            .slots
            .iter()
            .zip(&view)
            .map(|(s, v)| !s.ty.is_copy() && !v)
            .collect();
        let mut mode = vec![None; n];
        for p in &f.params {
            mode[p.slot.index()] = Some(p.mode);
        }
        let class: Vec<Class> = (0..n)
            .map(|i| match mode[i] {
                Some(ParamMode::Out) => Class::OutParam,
                Some(ParamMode::Mut) => Class::MutParam,
                Some(ParamMode::Ref) => Class::Other,
                Some(ParamMode::In) | None if owned[i] => Class::Owned,
                _ => Class::Other,
            })
            .collect();
        let mut owned_mask = Bits::new(n);
        for (i, &o) in owned.iter().enumerate() {
            if o {
                owned_mask.put(i, true);
            }
        }
        let out_params = class.iter().filter(|c| **c == Class::OutParam).count() as u32;
        SlotFacts {
            owned,
            view,
            viewers,
            viewed,
            part_view,
            bound_to,
            bound,
            constant_bytes,
            mode,
            class,
            owned_mask,
            out_params,
        }
    }
}

impl SlotFacts {
    /// Whether view slot `view` may be a view into `list`, directly or through views of
    /// views (each slot walked once: a part of a string's part is a string again, and
    /// IR built by hand may make two views of each other).
    fn views_into(&self, view: SlotId, list: SlotId) -> bool {
        let mut seen = vec![false; self.viewed.len()];
        let mut work = vec![view];
        while let Some(v) = work.pop() {
            for &l in &self.viewed[v.index()] {
                if l == list {
                    return true;
                }
                if !std::mem::replace(&mut seen[l.index()], true) {
                    work.push(l);
                }
            }
        }
        false
    }
}

/// Ends every view of `slot` (and the views of those), which an instruction changed,
/// moved, dropped or wrote: a read of one after it is a read of an uninitialized slot.
fn expire_views_of(flow: &mut Flow<'_>, slot: SlotId) {
    for i in 0..flow.facts.viewers[slot.index()].len() {
        let view = flow.facts.viewers[slot.index()][i];
        if flow.state.init.get(view.index()) {
            flow.state.set(flow.facts, view, false, None);
            expire_views_of(flow, view);
        }
    }
}

/// One bit per slot.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn get(&self, i: usize) -> bool {
        (self.0[i / 64] >> (i % 64)) & 1 == 1
    }

    fn put(&mut self, i: usize, v: bool) {
        let bit = 1u64 << (i % 64);
        if v {
            self.0[i / 64] |= bit;
        } else {
            self.0[i / 64] &= !bit;
        }
    }
}

/// Which slots are initialized, with the counts an exit is checked against.
#[derive(Clone, Debug)]
struct State {
    init: Bits,
    /// Initialized [`Class::Owned`] slots.
    owned_live: u32,
    /// Initialized `out` parameters.
    out_init: u32,
    /// Uninitialized `mut` parameters.
    mut_uninit: u32,
}

impl State {
    /// Nothing initialized (`mut` parameters counted as uninitialized).
    fn empty(facts: &SlotFacts) -> State {
        State {
            init: Bits::new(facts.mode.len()),
            owned_live: 0,
            out_init: 0,
            mut_uninit: facts
                .class
                .iter()
                .filter(|c| **c == Class::MutParam)
                .count() as u32,
        }
    }

    /// Sets one slot's flag, keeping the counts, and logs a change of what an abandon
    /// path must drop.
    fn set(
        &mut self,
        facts: &SlotFacts,
        slot: SlotId,
        init: bool,
        events: Option<&mut Vec<(SlotId, bool)>>,
    ) {
        let i = slot.index();
        if self.init.get(i) == init {
            return;
        }
        self.init.put(i, init);
        self.count(facts, i, init);
        if facts.class[i].is_tracked() {
            if let Some(events) = events {
                events.push((slot, init));
            }
        }
    }

    fn count(&mut self, facts: &SlotFacts, i: usize, init: bool) {
        let counter = match facts.class[i] {
            Class::Owned => &mut self.owned_live,
            Class::OutParam => &mut self.out_init,
            Class::MutParam => {
                if init {
                    self.mut_uninit -= 1;
                } else {
                    self.mut_uninit += 1;
                }
                return;
            }
            Class::Other => return,
        };
        if init {
            *counter += 1;
        } else {
            *counter -= 1;
        }
    }

    /// Joins `other` into `self`: a copy slot stays initialized only where both have it;
    /// an owned slot must agree (the first that does not is returned). Whether `self`
    /// changed.
    fn meet(&mut self, facts: &SlotFacts, other: &State) -> (bool, Option<usize>) {
        let mut changed = false;
        let mut mismatch = None;
        for w in 0..self.init.0.len() {
            let (mine, theirs, owned) = (self.init.0[w], other.init.0[w], facts.owned_mask.0[w]);
            if mismatch.is_none() && (mine ^ theirs) & owned != 0 {
                mismatch = Some(w * 64 + ((mine ^ theirs) & owned).trailing_zeros() as usize);
            }
            let lost = mine & !theirs & !owned;
            if lost != 0 {
                changed = true;
                self.init.0[w] &= !lost;
                let mut bits = lost;
                while bits != 0 {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    self.count(facts, i, false);
                    bits &= bits - 1;
                }
            }
        }
        (changed, mismatch)
    }
}

/// The summary of an abandon path from one block to its end.
#[derive(Clone, Copy, Debug)]
struct Chain {
    /// The block this one jumps to.
    next: Option<BlockId>,
    /// How many drops the path holds.
    drops: usize,
    /// Whether every drop is of a slot that owes one (else every entry is checked in
    /// full, which names the mistake).
    plain: bool,
    /// Whether the path never ends (reported once).
    looping: bool,
}

/// The ownership check's memory across instructions.
struct Ownership {
    chains: Vec<Option<Chain>>,
    /// Per abandon block: the block visit and event index at which the state on failure
    /// was verified to be exactly what its path drops.
    memo: Vec<Option<(u32, usize)>>,
    reported_abandon: Vec<bool>,
    /// Counts block visits, so that a memo from another visit is not trusted.
    visit: u32,
    /// Scratch: net change per slot.
    net: HashMap<SlotId, i32>,
    /// Scratch: slots seen on a path, by generation.
    seen: Vec<u32>,
    seen_generation: u32,
}

impl Ownership {
    /// Whether `events` add exactly `added` (each once) and otherwise cancel out.
    fn gained_exactly(&mut self, events: &[(SlotId, bool)], added: &[SlotId]) -> bool {
        self.net.clear();
        for &(s, init) in events {
            *self.net.entry(s).or_default() += if init { 1 } else { -1 };
        }
        for s in added {
            match self.net.get_mut(s) {
                Some(n) if *n == 1 => *n = 0,
                _ => return false,
            }
        }
        self.net.values().all(|n| *n == 0)
    }
}

/// Matches a native's declared type (over its own type parameters) against an actual
/// type (in the caller's terms), recording bindings. False when they disagree.
fn unify(declared: &IrType, actual: &IrType, bindings: &mut [Option<IrType>]) -> bool {
    match (declared, actual) {
        (IrType::Param(n), _) => match &bindings[*n as usize] {
            Some(bound) => bound == actual,
            None => {
                bindings[*n as usize] = Some(actual.clone());
                true
            }
        },
        (IrType::List(d), IrType::List(a)) | (IrType::Option(d), IrType::Option(a)) => {
            unify(d, a, bindings)
        }
        (IrType::Tuple(d), IrType::Tuple(a)) => {
            d.len() == a.len() && d.iter().zip(a).all(|(d, a)| unify(d, a, bindings))
        }
        (IrType::Map(dk, dv), IrType::Map(ak, av)) => {
            unify(dk, ak, bindings) && unify(dv, av, bindings)
        }
        _ => declared == actual,
    }
}

/// Every slot an instruction names.
pub fn inst_slots(kind: &InstKind) -> Vec<SlotId> {
    use InstKind::*;
    match kind {
        Const { dst, .. } | MakeNone { dst } => vec![*dst],
        Copy { dst, src }
        | Move { dst, src }
        | Clone { dst, src }
        | Unary { dst, src, .. }
        | Cast { dst, src, .. }
        | IsSome { dst, src }
        | Unwrap { dst, src }
        | VariantTag { dst, src }
        | TupleField { dst, src, .. } => vec![*dst, *src],
        MakeSome { dst, value } | MakeData { dst, value } => vec![*dst, *value],
        Drop { slot } => vec![*slot],
        Debuglog { src } => vec![*src],
        CheckDepth { .. } | CalledFrom => vec![],
        Binary { dst, lhs, rhs, .. } | Compare { dst, lhs, rhs, .. } | Concat { dst, lhs, rhs } => {
            vec![*dst, *lhs, *rhs]
        }
        MakeTuple { dst, fields: parts }
        | MakeVariant {
            dst, fields: parts, ..
        }
        | MakeList { dst, elems: parts } => {
            let mut v = vec![*dst];
            v.extend(parts);
            v
        }
        Unpack { src, dsts } | TakeVariant { src, dsts, .. } => {
            let mut v = vec![*src];
            v.extend(dsts);
            v
        }
        ListLen { dst, list } => vec![*dst, *list],
        MapLen { dst, map } => vec![*dst, *map],
        MapEntry { dst, map, index } => vec![*dst, *map, *index],
        ListGet {
            dst, list, index, ..
        } => vec![*dst, *list, *index],
        StrSlice {
            dst,
            string,
            start,
            end,
            ..
        } => vec![*dst, *string, *start, *end],
        StrParts { dst, string, sep } => {
            let mut v = vec![*dst, *string];
            v.extend(sep);
            v
        }
        ListSet {
            list, index, value, ..
        } => vec![*list, *index, *value],
        ListPush { list, value } => vec![*list, *value],
        Call { dst, args, .. } | CallNative { dst, args, .. } => {
            let mut v: Vec<SlotId> = dst.iter().copied().collect();
            v.extend(args.iter().map(|a| a.slot));
            v
        }
    }
}
