//! The verifier: checks the IR's invariants, so that every backend can trust them.
//!
//! - Structure: ids in range, every block terminated, the entry function's shape.
//! - Types: every instruction's slots have the types it needs; calls match their callee
//!   (after substituting type arguments) and natives match their `NativeContext`, whose
//!   own consistency (symbol, undetermined type parameters, word count) is checked too.
//! - Fallibility: an abandon block exactly on fallible instructions; abandon paths only
//!   drop and end in `Abandon`.
//! - Ownership: slot initialization is tracked along every path; a value is read only
//!   when initialized, an owned value is never overwritten or dropped twice, paths that
//!   join agree on which owned values are live, and at `Return`/`Abandon` every owned
//!   value has been moved or dropped exactly once (`mut` parameters initialized, `out`
//!   parameters initialized at `Return` and not at `Abandon`).
//!
//! Every message names the function, the block and the instruction.

use std::collections::VecDeque;
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

/// Verifies a whole program.
pub fn verify_program(program: &Program) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    match program.entry {
        None => errors.push(VerifyError {
            function: "<program>".into(),
            block: None,
            inst: None,
            inst_name: None,
            message: "the program has no entry function".into(),
        }),
        Some(entry) => match program.functions.get(entry.index()) {
            None => errors.push(VerifyError {
                function: "<program>".into(),
                block: None,
                inst: None,
                inst_name: None,
                message: format!("the entry {entry} does not exist"),
            }),
            Some(f) => {
                if !f.params.is_empty() || !f.type_params.is_empty() || f.result != IrType::Unit {
                    errors.push(VerifyError {
                        function: f.name.clone(),
                        block: None,
                        inst: None,
                        inst_name: None,
                        message: "the entry function must take no parameters and return unit"
                            .into(),
                    });
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

/// Verifies one function of `program`.
pub fn verify_function(program: &Program, func: &Function) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier {
        program,
        func,
        errors: Vec::new(),
    };
    v.structure();
    if v.errors.is_empty() {
        v.types();
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
        let (block, inst, inst_name) = match at {
            At::Function => (None, None, None),
            At::Inst(b, i) => {
                let name = self
                    .func
                    .blocks
                    .get(b.index())
                    .and_then(|blk| blk.insts.get(i))
                    .map(|x| x.kind.name());
                (Some(b), Some(i), name)
            }
            At::Term(b) => (Some(b), None, None),
        };
        self.errors.push(VerifyError {
            function: self.func.name.clone(),
            block,
            inst,
            inst_name,
            message: message.into(),
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
            Drop { .. } | Debuglog { .. } => {}
            Unary { dst, op, src } => {
                let ty = self.ty(*src).clone();
                let ok = match op {
                    UnaryOp::Neg => ty.is_integer() || ty.is_float(),
                    UnaryOp::WrappingNeg | UnaryOp::BitNot => ty.is_integer(),
                    UnaryOp::Not => ty == IrType::Bool,
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
                    BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Rem => ty.is_integer() || ty.is_float(),
                    BinaryOp::WrappingAdd
                    | BinaryOp::WrappingSub
                    | BinaryOp::WrappingMul
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
                    | BinaryOp::Shl
                    | BinaryOp::Shr => ty.is_integer(),
                    BinaryOp::And | BinaryOp::Or => ty == IrType::Bool,
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
            Cast { dst, src, .. } => {
                for s in [*dst, *src] {
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
            }
            MakeTuple { dst, fields } => {
                let want = IrType::Tuple(fields.iter().map(|s| self.ty(*s).clone()).collect());
                self.expect(at, *dst, &want, "destination");
            }
            TupleField { dst, src, index } => match self.ty(*src).clone() {
                IrType::Tuple(fields) => match fields.get(*index as usize) {
                    Some(field) => self.expect(at, *dst, field, "destination"),
                    None => self.error(
                        at,
                        format!("field {index} of a {}-field tuple", fields.len()),
                    ),
                },
                other => {
                    let t = self.show(&other);
                    self.error(at, format!("field of {src}, which is {t}, not a tuple"));
                }
            },
            Unpack { src, dsts } => match self.ty(*src).clone() {
                IrType::Tuple(fields) if fields.len() == dsts.len() => {
                    for (d, field) in dsts.iter().zip(&fields) {
                        self.expect(at, *d, field, "destination");
                    }
                }
                other => {
                    let t = self.show(&other);
                    self.error(
                        at,
                        format!("unpacks {src} of type {t} into {} slots", dsts.len()),
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
                self.list_elem(at, *list);
                self.expect(at, *dst, &IrType::Index, "destination");
            }
            ListGet { dst, list, index } => {
                if let Some(elem) = self.list_elem(at, *list) {
                    self.expect(at, *dst, &elem, "destination");
                }
                self.expect(at, *index, &IrType::Index, "index");
            }
            ListSet { list, index, value } => {
                if let Some(elem) = self.list_elem(at, *list) {
                    self.expect(at, *value, &elem, "value");
                }
                self.expect(at, *index, &IrType::Index, "index");
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
            Call {
                dst,
                func,
                type_args,
                args,
            } => self.call_types(at, *dst, *func, type_args, args),
            CallNative { dst, native, args } => self.native_types(at, *dst, native, args),
        }
    }

    fn list_elem(&mut self, at: At, list: SlotId) -> Option<IrType> {
        match self.ty(list) {
            IrType::List(e) => Some((**e).clone()),
            other => {
                let t = self.show(other);
                self.error(at, format!("{list} is {t}, not a list"));
                None
            }
        }
    }

    fn option_payload(&mut self, at: At, src: SlotId) -> Option<IrType> {
        match self.ty(src) {
            IrType::Option(p) => Some((**p).clone()),
            other => {
                let t = self.show(other);
                self.error(at, format!("{src} is {t}, not an option"));
                None
            }
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
        if type_args.len() != target.type_params.len() {
            self.error(
                at,
                format!(
                    "`{}` takes {} type arguments, given {}",
                    target.name,
                    target.type_params.len(),
                    type_args.len()
                ),
            );
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
        if args.len() != target.params.len() {
            self.error(
                at,
                format!(
                    "`{}` takes {} arguments, given {}",
                    target.name,
                    target.params.len(),
                    args.len()
                ),
            );
            return;
        }
        for (i, (arg, param)) in args.iter().zip(&target.params).enumerate() {
            if arg.mode != param.mode {
                self.error(
                    at,
                    format!(
                        "argument {i} is passed {}, but `{}` is {}",
                        arg.mode, param.name, param.mode
                    ),
                );
            }
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
        let mut mentioned = Vec::new();
        for ty in native.param_types() {
            ty.collect_params(&mut mentioned);
        }
        let undetermined: Vec<u32> = (0..native.type_params().len() as u32)
            .filter(|n| !mentioned.contains(n))
            .collect();
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
        if args.len() != native.params().len() {
            self.error(
                at,
                format!(
                    "native `{name}` takes {} arguments, given {}",
                    native.params().len(),
                    args.len()
                ),
            );
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
            if arg.mode != param.mode {
                self.error(
                    at,
                    format!(
                        "argument {i} is passed {}, but `{}` is {}",
                        arg.mode, param.name, param.mode
                    ),
                );
            }
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
                if !matches!(inst.kind, InstKind::Drop { .. }) {
                    self.error(At::Inst(b, ii), "an abandon path may only drop values");
                }
            }
            match &block.term {
                Terminator::Jump(next) => work.push_back(*next),
                Terminator::Abandon => {}
                _ => self.error(At::Term(b), "an abandon path must end in `abandon`"),
            }
        }
        // Normal flow may not enter an abandon path, nor reach `Abandon` outside one.
        for (bi, block) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            if cleanup[bi] {
                continue;
            }
            if block.term == Terminator::Abandon {
                self.error(At::Term(b), "`abandon` outside an abandon path");
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

    fn ownership(&mut self) {
        let f = self.func;
        let n = f.slots.len();
        let mut entry = State {
            init: vec![false; n],
        };
        for p in &f.params {
            entry.init[p.slot.index()] = p.mode != ParamMode::Out;
        }
        let mut states: Vec<Option<State>> = vec![None; f.blocks.len()];
        let mut work = VecDeque::new();
        states[f.entry.index()] = Some(entry);
        work.push_back(f.entry);
        let mut reported_join = vec![false; f.blocks.len()];
        while let Some(b) = work.pop_front() {
            let mut state = states[b.index()]
                .clone()
                .expect("queued blocks have a state");
            let block = &f.blocks[b.index()];
            let mut exits: Vec<(BlockId, State)> = Vec::new();
            for (ii, inst) in block.insts.iter().enumerate() {
                let at = At::Inst(b, ii);
                if let Some(abandon) = inst.abandon {
                    let on_failure = self.step(at, &mut state.clone(), &inst.kind, true);
                    exits.push((abandon, on_failure));
                }
                let mut next = state.clone();
                self.step(at, &mut next, &inst.kind, false);
                state = next;
            }
            let at = At::Term(b);
            match &block.term {
                Terminator::Jump(t) => exits.push((*t, state.clone())),
                Terminator::Branch {
                    cond,
                    then_block,
                    else_block,
                } => {
                    self.read(at, &state, *cond);
                    exits.push((*then_block, state.clone()));
                    exits.push((*else_block, state.clone()));
                }
                Terminator::Return(result) => {
                    let mut s = state.clone();
                    if let Some(r) = result {
                        self.read(at, &s, *r);
                        s.init[r.index()] = false;
                    }
                    self.check_exit(at, &s, false);
                }
                Terminator::Abandon => self.check_exit(at, &state, true),
                Terminator::Unterminated => {}
            }
            for (target, s) in exits {
                match &mut states[target.index()] {
                    slot @ None => {
                        *slot = Some(s);
                        work.push_back(target);
                    }
                    Some(existing) => {
                        let mut changed = false;
                        for i in 0..n {
                            if existing.init[i] != s.init[i] {
                                if self.owned(SlotId(i as u32)) {
                                    if !reported_join[target.index()] {
                                        reported_join[target.index()] = true;
                                        self.error(
                                            At::Term(b),
                                            format!(
                                                "slot s{i} is initialized on one path into {target} and not on another"
                                            ),
                                        );
                                    }
                                } else if existing.init[i] {
                                    existing.init[i] = false;
                                    changed = true;
                                }
                            }
                        }
                        if changed {
                            work.push_back(target);
                        }
                    }
                }
            }
        }
    }

    fn owned(&self, slot: SlotId) -> bool {
        !self.ty(slot).is_copy()
    }

    fn read(&mut self, at: At, state: &State, slot: SlotId) {
        if !state.init[slot.index()] {
            self.error(at, format!("{slot} is read while uninitialized"));
        }
    }

    fn write(&mut self, at: At, state: &mut State, slot: SlotId) {
        if self.func.param_mode(slot) == Some(ParamMode::Ref) {
            self.error(
                at,
                format!("{slot} is a `ref` parameter and cannot be written"),
            );
        }
        if state.init[slot.index()] && self.owned(slot) {
            self.error(
                at,
                format!("{slot} is overwritten while it still owns a value"),
            );
        }
        state.init[slot.index()] = true;
    }

    /// Moves a value out of `slot` (a copy value stays).
    fn take(&mut self, at: At, state: &mut State, slot: SlotId) {
        self.read(at, state, slot);
        if self.owned(slot) {
            if self.func.param_mode(slot) == Some(ParamMode::Ref) {
                self.error(
                    at,
                    format!("{slot} is a `ref` parameter and cannot be moved from"),
                );
            }
            state.init[slot.index()] = false;
        }
    }

    /// Applies one instruction to the state. With `failed`, the state is the one the
    /// abandon block is entered with: moved-in values are gone, destinations unwritten.
    fn step(&mut self, at: At, state: &mut State, kind: &InstKind, failed: bool) -> State {
        use InstKind::*;
        // Reads and moves happen either way; writes only on success.
        let mut writes: Vec<SlotId> = Vec::new();
        match kind {
            Const { dst, .. } | MakeNone { dst } => writes.push(*dst),
            Copy { dst, src } | Clone { dst, src } => {
                self.read(at, state, *src);
                writes.push(*dst);
            }
            Move { dst, src } => {
                if !failed {
                    self.take(at, state, *src);
                }
                writes.push(*dst);
            }
            Drop { slot } => {
                if self.func.param_mode(*slot) == Some(ParamMode::Ref) {
                    self.error(
                        at,
                        format!("{slot} is a `ref` parameter and cannot be dropped"),
                    );
                }
                self.read(at, state, *slot);
                state.init[slot.index()] = false;
            }
            Unary { dst, src, .. } | Cast { dst, src, .. } | IsSome { dst, src } => {
                self.read(at, state, *src);
                writes.push(*dst);
            }
            ListLen { dst, list } => {
                self.read(at, state, *list);
                writes.push(*dst);
            }
            Binary { dst, lhs, rhs, .. }
            | Compare { dst, lhs, rhs, .. }
            | Concat { dst, lhs, rhs } => {
                self.read(at, state, *lhs);
                self.read(at, state, *rhs);
                writes.push(*dst);
            }
            MakeTuple { dst, fields: parts } | MakeList { dst, elems: parts } => {
                for p in parts {
                    self.take(at, state, *p);
                }
                writes.push(*dst);
            }
            TupleField { dst, src, .. } => {
                self.read(at, state, *src);
                writes.push(*dst);
            }
            Unpack { src, dsts } => {
                self.take(at, state, *src);
                writes.extend(dsts);
            }
            ListGet { dst, list, index } => {
                self.read(at, state, *list);
                self.read(at, state, *index);
                writes.push(*dst);
            }
            ListSet { list, index, value } => {
                self.read(at, state, *list);
                self.read(at, state, *index);
                self.take(at, state, *value);
                self.mutate(at, *list);
            }
            ListPush { list, value } => {
                self.read(at, state, *list);
                self.take(at, state, *value);
                self.mutate(at, *list);
            }
            MakeSome { dst, value } | MakeData { dst, value } => {
                self.take(at, state, *value);
                writes.push(*dst);
            }
            Unwrap { dst, src } => {
                if failed {
                    self.read(at, state, *src);
                } else {
                    self.take(at, state, *src);
                }
                writes.push(*dst);
            }
            Call { dst, args, .. } | CallNative { dst, args, .. } => {
                // The callee's view of a value it owns (`in`) or changes (`mut`, `out`)
                // must be its only one: such a slot appears once among the arguments.
                // (Checked once, on the path where the call succeeds.)
                let exclusive = |a: &Arg, v: &Self| match a.mode {
                    ParamMode::In => v.owned(a.slot),
                    ParamMode::Mut | ParamMode::Out => true,
                    ParamMode::Ref => false,
                };
                for (i, a) in args.iter().enumerate().filter(|_| !failed) {
                    for b in &args[i + 1..] {
                        if a.slot == b.slot && (exclusive(a, self) || exclusive(b, self)) {
                            self.error(
                                at,
                                format!(
                                    "{} is passed `{}` and `{}` to the same call",
                                    a.slot,
                                    a.mode.keyword(),
                                    b.mode.keyword()
                                ),
                            );
                        }
                    }
                }
                for arg in args {
                    match arg.mode {
                        ParamMode::In => self.take(at, state, arg.slot),
                        ParamMode::Ref => self.read(at, state, arg.slot),
                        ParamMode::Mut => {
                            self.read(at, state, arg.slot);
                            self.mutate(at, arg.slot);
                        }
                        ParamMode::Out => {
                            if state.init[arg.slot.index()] && self.owned(arg.slot) {
                                self.error(
                                    at,
                                    format!(
                                        "{} is passed `out` while it still owns a value",
                                        arg.slot
                                    ),
                                );
                            }
                            writes.push(arg.slot);
                        }
                    }
                }
                writes.extend(dst);
            }
            Debuglog { src } => self.read(at, state, *src),
        }
        if failed {
            for w in writes {
                if self.owned(w) || self.func.param_mode(w) == Some(ParamMode::Out) {
                    state.init[w.index()] = false;
                }
            }
        } else {
            for w in writes {
                self.write(at, state, w);
            }
        }
        state.clone()
    }

    fn mutate(&mut self, at: At, slot: SlotId) {
        if self.func.param_mode(slot) == Some(ParamMode::Ref) {
            self.error(
                at,
                format!("{slot} is a `ref` parameter and cannot be changed"),
            );
        }
    }

    fn check_exit(&mut self, at: At, state: &State, abandoning: bool) {
        let f = self.func;
        for (i, &live) in state.init.iter().enumerate() {
            let slot = SlotId(i as u32);
            match f.param_mode(slot) {
                Some(ParamMode::Ref) => {}
                Some(ParamMode::Mut) if !live => {
                    self.error(at, format!("`mut` parameter {slot} is left uninitialized"));
                }
                Some(ParamMode::Out) if live && abandoning => {
                    self.error(
                        at,
                        format!("`out` parameter {slot} is initialized on an abandon path"),
                    );
                }
                Some(ParamMode::Out) if !live && !abandoning => {
                    self.error(
                        at,
                        format!("`out` parameter {slot} is not initialized at return"),
                    );
                }
                Some(ParamMode::Mut) | Some(ParamMode::Out) => {}
                Some(ParamMode::In) | None => {
                    if live && self.owned(slot) {
                        self.error(
                            at,
                            format!("{slot} still owns a value when the function returns (a leak)"),
                        );
                    }
                }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    init: Vec<bool>,
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
        | TupleField { dst, src, .. } => vec![*dst, *src],
        MakeSome { dst, value } | MakeData { dst, value } => vec![*dst, *value],
        Drop { slot } => vec![*slot],
        Debuglog { src } => vec![*src],
        Binary { dst, lhs, rhs, .. } | Compare { dst, lhs, rhs, .. } | Concat { dst, lhs, rhs } => {
            vec![*dst, *lhs, *rhs]
        }
        MakeTuple { dst, fields: parts } | MakeList { dst, elems: parts } => {
            let mut v = vec![*dst];
            v.extend(parts);
            v
        }
        Unpack { src, dsts } => {
            let mut v = vec![*src];
            v.extend(dsts);
            v
        }
        ListLen { dst, list } => vec![*dst, *list],
        ListGet { dst, list, index } => vec![*dst, *list, *index],
        ListSet { list, index, value } => vec![*list, *index, *value],
        ListPush { list, value } => vec![*list, *value],
        Call { dst, args, .. } | CallNative { dst, args, .. } => {
            let mut v: Vec<SlotId> = dst.iter().copied().collect();
            v.extend(args.iter().map(|a| a.slot));
            v
        }
    }
}
