//! The type checker: resolves local names, types every expression and produces the
//! typed tree ([`super::hir`]).
//!
//! Checking is bidirectional: an expression is checked against the type its context
//! expects when there is one (`let a: u8 = zero()`, an argument, a `ret`). A generic
//! call instantiates the callee's type parameters with inference variables; literals
//! without a suffix get integer or float variables. At the end of each statement every
//! variable it made is decided: unsuffixed literals default to `i64` / `f64`, and a type
//! parameter still open is an error (`F011` when it appears only in the callee's result,
//! where only an expected type could have decided it). Checks that need decided types
//! (arithmetic on a type, class constraints, literal ranges, casts) wait for that point.
//!
//! While checking, an inference variable is written as `IrType::Param(VAR_BASE + n)`;
//! none survives the function's final substitution.

use std::collections::HashMap;

#[path = "enums.rs"]
mod enums;
#[path = "format_check.rs"]
mod format_check;
#[path = "places.rs"]
mod places;

use super::ast::{self, BinOp, ExprKind as A, Item, StmtKind as S};
use super::hir::*;
use super::resolve::{resolve_type, Callable, Resolved, Signature, ENTRY_NAME};
use crate::{suggest, Help};
use datalove_ir::diag::{Diagnostic, Sources, Span};
use datalove_ir::program::{BinaryOp, CompareOp};
use datalove_ir::types::{EnumType, IrType, ParamMode, TypeClass};

const VAR_BASE: u32 = 1 << 31;

/// The built-in functions: names, not keywords, so a file's own function or import of
/// the same name hides them.
const BUILTINS: &[&str] = &["len", "push", "is_some", "unwrap", "data", "clone"];

/// Checks every function of the program; the root script's body becomes the entry.
/// The label at a callee's declaration on an argument error; [`note_declarations`] adds
/// a `note:` line with its location for each.
fn declared_here(callee: &str) -> String {
    format!("`{callee}` is declared here")
}

/// For each argument error, a `note:` line giving where the callee is declared
/// (`file:line:col`): the label at the declaration shows it in the snippet, the note
/// also when the declaration is in another file or far away.
pub fn note_declarations(sources: &Sources, diagnostics: &mut [Diagnostic]) {
    for d in diagnostics {
        let notes: Vec<String> = d
            .secondary
            .iter()
            .filter_map(|(span, label)| {
                let callee = label
                    .strip_prefix('`')?
                    .strip_suffix("` is declared here")?;
                Some(format!(
                    "note: `{callee}` is declared at {}",
                    sources.location(*span)
                ))
            })
            .collect();
        d.notes.extend(notes);
    }
}

pub fn check(resolved: &Resolved, diagnostics: &mut Vec<Diagnostic>) -> HirProgram {
    let mut program = HirProgram::default();
    for (index, info) in resolved.functions.iter().enumerate() {
        let Item::Fun(decl) = &resolved.files[info.file].ast.items[info.item] else {
            unreachable!("function {index} points at a `fun` item");
        };
        let f = FnChecker::new(resolved, info.file, info.sig.clone(), diagnostics)
            .function(&info.ir_name, decl);
        program.functions.push(f);
    }
    if let Some(root) = resolved.files.first() {
        if root.ast.kind == ast::SourceKind::Script {
            let stmts: Vec<ast::Stmt> = root
                .ast
                .items
                .iter()
                .filter_map(|i| match i {
                    Item::Stmt(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            let sig = Signature {
                type_params: Vec::new(),
                params: Vec::new(),
                result: IrType::Unit,
            };
            let file = root.ast.file;
            let end = resolved_end(resolved, file);
            let f =
                FnChecker::new(resolved, 0, sig, diagnostics).body(ENTRY_NAME, &stmts, end, end);
            program.entry = Some(program.functions.len());
            program.functions.push(f);
        }
    }
    program
}

fn resolved_end(resolved: &Resolved, file: datalove_ir::diag::FileId) -> Span {
    let last = resolved.files[0]
        .ast
        .items
        .iter()
        .rev()
        .find_map(|i| match i {
            Item::Stmt(s) => Some(s.span),
            _ => None,
        });
    last.map(|s| Span {
        file,
        start: s.end,
        end: s.end,
    })
    .unwrap_or(Span {
        file,
        start: 0,
        end: 0,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VarKind {
    General,
    Int,
    Float,
}

/// Why an inference variable exists, for the diagnostic when nothing decides it.
#[derive(Clone, Debug)]
enum Origin {
    /// A type parameter of a callee that only its result mentions.
    ReturnParam {
        span: Span,
        callee: String,
        param: String,
    },
    /// Any other type parameter of a callee.
    Param {
        span: Span,
        callee: String,
        param: String,
    },
    EmptyList(Span),
    NoneValue(Span),
    Literal,
    /// Stands for an expression that already failed to check.
    Error,
}

#[derive(Clone, Debug)]
struct Var {
    binding: Option<IrType>,
    kind: VarKind,
    origin: Origin,
}

/// A check that needs decided types, run at the end of the statement.
#[derive(Clone, Debug)]
enum Obligation {
    IntFits {
        ty: IrType,
        value: i128,
        span: Span,
    },
    Class {
        ty: IrType,
        class: TypeClass,
        span: Span,
        callee: String,
        param: String,
    },
    Arith {
        ty: IrType,
        op: &'static str,
        need: Need,
        span: Span,
    },
    Cast {
        from: IrType,
        to: IrType,
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// Integers and floats.
    Number,
    Integer,
    /// Signed integers and floats (negation).
    Signed,
}

struct FnChecker<'a> {
    resolved: &'a Resolved,
    file: usize,
    sig: Signature,
    names: Vec<String>,
    locals: Vec<Local>,
    scopes: Vec<Vec<LocalId>>,
    /// Every name in scope: the locals that bear it, innermost last, each with the depth
    /// of the scope that declared it. A lookup is one hash probe however many locals a
    /// function has (scanning the scopes made checking quadratic in the locals).
    visible: HashMap<String, Vec<(LocalId, usize)>>,
    loop_depth: u32,
    /// The variables of `for ... in mut` loops: each is a part of another variable.
    places: HashMap<LocalId, places::Place>,
    vars: Vec<Var>,
    stmt_vars: usize,
    obligations: Vec<Obligation>,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl<'a> FnChecker<'a> {
    fn new(
        resolved: &'a Resolved,
        file: usize,
        sig: Signature,
        diagnostics: &'a mut Vec<Diagnostic>,
    ) -> FnChecker<'a> {
        let names = sig.type_params.iter().map(|t| t.name.clone()).collect();
        FnChecker {
            resolved,
            file,
            sig,
            names,
            locals: Vec::new(),
            scopes: vec![Vec::new()],
            visible: HashMap::new(),
            loop_depth: 0,
            places: HashMap::new(),
            vars: Vec::new(),
            stmt_vars: 0,
            obligations: Vec::new(),
            diagnostics,
        }
    }

    fn error(&mut self, code: &'static str, span: Span, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::error(code, span, message));
    }

    fn function(self, ir_name: &str, decl: &ast::FunDecl) -> HirFunction {
        let body = decl.body.clone();
        self.body_with_params(ir_name, &body, decl.span, decl.end_span, true)
    }

    fn body(self, ir_name: &str, stmts: &[ast::Stmt], span: Span, end: Span) -> HirFunction {
        self.body_with_params(ir_name, stmts, span, end, false)
    }

    fn body_with_params(
        mut self,
        ir_name: &str,
        stmts: &[ast::Stmt],
        span: Span,
        end_span: Span,
        has_params: bool,
    ) -> HirFunction {
        let mut params = Vec::new();
        if has_params {
            for p in self.sig.params.clone() {
                let id = LocalId(self.locals.len() as u32);
                self.locals.push(Local {
                    name: p.name.clone(),
                    ty: p.ty.clone(),
                    kind: LocalKind::Param(p.mode),
                    span: p.span,
                });
                self.scopes[0].push(id);
                self.visible
                    .entry(p.name.clone())
                    .or_default()
                    .push((id, 0));
                params.push(id);
            }
        }
        let mut body = self.block(stmts, false);
        if self.sig.result != IrType::Unit && !diverges(stmts) {
            let result = self.show(&self.sig.result.clone());
            self.diagnostics.push(
                Diagnostic::error(
                    "F004",
                    end_span,
                    format!(
                        "`{}` must return a {result}, but its end can be reached",
                        display_name(ir_name)
                    ),
                )
                .with_label("missing `ret` before here"),
            );
        }
        for l in &mut self.locals {
            l.ty = zonk(&self.vars, &l.ty);
        }
        zonk_block(&self.vars, &mut body);
        HirFunction {
            name: ir_name.to_string(),
            type_params: self.sig.type_params.clone(),
            params,
            result: self.sig.result.clone(),
            locals: self.locals,
            body,
            span,
            end_span,
        }
    }

    // ------------------------------------------------------------ inference

    fn fresh(&mut self, kind: VarKind, origin: Origin) -> IrType {
        self.vars.push(Var {
            binding: None,
            kind,
            origin,
        });
        IrType::Param(VAR_BASE + self.vars.len() as u32 - 1)
    }

    fn error_ty(&mut self) -> IrType {
        self.fresh(VarKind::General, Origin::Error)
    }

    /// A type written in a body. One that names an unknown type has been reported
    /// (N002) and becomes the error type, which agrees with everything, so the mistake
    /// is not reported again as a mismatch.
    fn written_type(&mut self, t: &ast::TypeExpr) -> IrType {
        let before = self.diagnostics.len();
        let records = &self.resolved.record_scopes[self.file];
        let ty = resolve_type(t, &self.names, records, self.diagnostics);
        if self.diagnostics.len() > before {
            self.error_ty()
        } else {
            ty
        }
    }

    fn var_of(ty: &IrType) -> Option<usize> {
        match ty {
            IrType::Param(n) if *n >= VAR_BASE => Some((*n - VAR_BASE) as usize),
            _ => None,
        }
    }

    /// Follows bound variables at the top of `ty`.
    fn shallow(&self, ty: &IrType) -> IrType {
        let mut ty = ty.clone();
        while let Some(v) = Self::var_of(&ty) {
            match &self.vars[v].binding {
                Some(b) => ty = b.clone(),
                None => break,
            }
        }
        ty
    }

    fn occurs(&self, v: usize, ty: &IrType) -> bool {
        let ty = self.shallow(ty);
        if Self::var_of(&ty) == Some(v) {
            return true;
        }
        match &ty {
            IrType::List(e) | IrType::Option(e) => self.occurs(v, e),
            IrType::Tuple(fs) => fs.iter().any(|f| self.occurs(v, f)),
            IrType::Map(k, val) => self.occurs(v, k) || self.occurs(v, val),
            IrType::Enum(e) => e.args.iter().any(|a| self.occurs(v, a)),
            _ => false,
        }
    }

    fn unify(&mut self, a: &IrType, b: &IrType) -> bool {
        let a = self.shallow(a);
        let b = self.shallow(b);
        match (Self::var_of(&a), Self::var_of(&b)) {
            (Some(x), Some(y)) if x == y => return true,
            (Some(x), _) => return self.bind(x, &b),
            (_, Some(y)) => return self.bind(y, &a),
            _ => {}
        }
        match (&a, &b) {
            (IrType::List(x), IrType::List(y)) | (IrType::Option(x), IrType::Option(y)) => {
                self.unify(x, y)
            }
            (IrType::Tuple(xs), IrType::Tuple(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.unify(x, y))
            }
            (IrType::Map(xk, xv), IrType::Map(yk, yv)) => {
                // Both sides, so that a mismatch in the key still learns the value.
                let key = self.unify(xk, yk);
                self.unify(xv, yv) && key
            }
            // Two instances of one generic enum agree when their type arguments do.
            (IrType::Enum(x), IrType::Enum(y)) if !x.args.is_empty() => {
                x.name == y.name
                    && x.variant_names == y.variant_names
                    && x.args.len() == y.args.len()
                    && x.args.iter().zip(&y.args).all(|(p, q)| self.unify(p, q))
            }
            _ => a == b,
        }
    }

    /// Binds unbound variable `v` to `ty` (already shallow), respecting literal kinds.
    fn bind(&mut self, v: usize, ty: &IrType) -> bool {
        if let Some(w) = Self::var_of(ty) {
            // Two unbound variables: the more specific kind wins.
            let (kv, kw) = (self.vars[v].kind, self.vars[w].kind);
            return match (kv, kw) {
                (VarKind::General, _) => {
                    self.vars[v].binding = Some(ty.clone());
                    true
                }
                (_, VarKind::General) => {
                    self.vars[w].binding = Some(IrType::Param(VAR_BASE + v as u32));
                    true
                }
                (x, y) if x == y => {
                    self.vars[v].binding = Some(ty.clone());
                    true
                }
                _ => false,
            };
        }
        let ok = match self.vars[v].kind {
            VarKind::General => !self.occurs(v, ty),
            VarKind::Int => ty.is_integer(),
            VarKind::Float => ty.is_float(),
        };
        if ok {
            self.vars[v].binding = Some(ty.clone());
        }
        ok
    }

    fn resolve(&self, ty: &IrType) -> IrType {
        zonk_partial(&self.vars, ty)
    }

    /// A type for a diagnostic: `{integer}`, `{float}` and `_` for undecided parts.
    fn show(&self, ty: &IrType) -> String {
        let ty = self.resolve(ty);
        let mut out = String::new();
        self.write_type(&ty, &mut out);
        out
    }

    fn write_type(&self, ty: &IrType, out: &mut String) {
        match ty {
            IrType::Param(n) if *n >= VAR_BASE => {
                out.push_str(match self.vars[(*n - VAR_BASE) as usize].kind {
                    VarKind::Int => "{integer}",
                    VarKind::Float => "{float}",
                    VarKind::General => "_",
                })
            }
            IrType::List(e) => {
                out.push('[');
                self.write_type(e, out);
                out.push(']');
            }
            IrType::Option(e) => {
                out.push('?');
                self.write_type(e, out);
            }
            IrType::Map(k, v) => {
                out.push_str("map[");
                self.write_type(k, out);
                out.push_str(", ");
                self.write_type(v, out);
                out.push(']');
            }
            IrType::Tuple(fs) => {
                out.push('(');
                for (i, f) in fs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_type(f, out);
                }
                if fs.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            IrType::Enum(e) if !e.args.is_empty() => {
                out.push_str(&e.name);
                out.push('[');
                for (i, a) in e.args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_type(a, out);
                }
                out.push(']');
            }
            IrType::Unit => out.push_str("()"),
            other => out.push_str(&other.display(&self.names).to_string()),
        }
    }

    /// Decides the variables the statement made and runs the checks waiting on them.
    fn finish_stmt(&mut self) {
        for v in self.stmt_vars..self.vars.len() {
            if self.vars[v].binding.is_some() {
                continue;
            }
            match self.vars[v].kind {
                VarKind::Int => self.vars[v].binding = Some(IrType::I64),
                VarKind::Float => self.vars[v].binding = Some(IrType::F64),
                VarKind::General => {}
            }
        }
        // Open type variables: F011 first (the most specific explanation), then the rest.
        let mut open: Vec<usize> = (self.stmt_vars..self.vars.len())
            .filter(|&v| {
                let root = self.shallow(&IrType::Param(VAR_BASE + v as u32));
                Self::var_of(&root).is_some_and(|r| self.vars[r].binding.is_none())
            })
            .collect();
        open.sort_by_key(|&v| match self.vars[v].origin {
            Origin::ReturnParam { .. } => 0,
            Origin::EmptyList(_) | Origin::NoneValue(_) => 1,
            Origin::Param { .. } => 2,
            Origin::Literal => 3,
            Origin::Error => 4,
        });
        let mut errors = Vec::new();
        for v in open {
            let root_ty = self.shallow(&IrType::Param(VAR_BASE + v as u32));
            let Some(root) = Self::var_of(&root_ty) else {
                continue; // decided by an earlier one in this loop
            };
            let diag = match &self.vars[v].origin {
                Origin::ReturnParam {
                    span,
                    callee,
                    param,
                } => Some(
                    Diagnostic::error(
                        "F011",
                        *span,
                        format!("nothing decides type parameter `{param}` of `{callee}`"),
                    )
                    .with_label(format!(
                        "`{param}` appears only in the result of `{callee}`"
                    ))
                    .with_note("give the call an expected type, e.g. `let a: u8 = ...`"),
                ),
                Origin::Param {
                    span,
                    callee,
                    param,
                } => Some(Diagnostic::error(
                    "T005",
                    *span,
                    format!("cannot infer type parameter `{param}` of `{callee}`"),
                )),
                Origin::EmptyList(span) => Some(
                    Diagnostic::error("T005", *span, "cannot infer the element type of this list")
                        .with_note("give it an expected type, e.g. `let xs: [u8] = []`"),
                ),
                Origin::NoneValue(span) => Some(
                    Diagnostic::error("T005", *span, "cannot infer the type of this `none`")
                        .with_note("give it an expected type, e.g. `let o: ?u8 = none`"),
                ),
                Origin::Literal | Origin::Error => None,
            };
            errors.extend(diag);
            // Poison the whole class so that nothing downstream reports it again.
            self.vars[root].origin = Origin::Error;
            self.vars[root].binding = Some(IrType::Unit);
            if root != v {
                self.vars[v].origin = Origin::Error;
            }
        }
        self.diagnostics.append(&mut errors);
        let obligations = std::mem::take(&mut self.obligations);
        for o in obligations {
            self.discharge(o);
        }
        self.stmt_vars = self.vars.len();
    }

    fn discharge(&mut self, o: Obligation) {
        match o {
            Obligation::IntFits { ty, value, span } => {
                if self.poisoned_or_error(&ty) {
                    return;
                }
                let ty = self.resolve(&ty);
                if ty.is_integer() && !ty.int_fits(value) {
                    let t = self.show(&ty);
                    self.diagnostics.push(
                        Diagnostic::error("T004", span, format!("`{value}` does not fit in {t}"))
                            .with_label(format!("out of range for {t}")),
                    );
                }
            }
            Obligation::Class {
                ty,
                class,
                span,
                callee,
                param,
            } => {
                if self.poisoned_or_error(&ty) {
                    return;
                }
                let ty = self.resolve(&ty);
                let ok = match &ty {
                    IrType::Param(n) => self.sig.type_params[*n as usize].class.implies(class),
                    other => class.admits(other),
                };
                if !ok {
                    let t = self.show(&ty);
                    let mut d = Diagnostic::error(
                        "T006",
                        span,
                        format!(
                            "`{callee}` needs `{param}` to be {}, but it is {t}",
                            class.name()
                        ),
                    );
                    if let IrType::Param(_) = ty {
                        d = d.with_note(format!(
                            "declare the constraint: `where {{ {t} is {}, }}`",
                            class.name()
                        ));
                    }
                    self.diagnostics.push(d);
                }
            }
            Obligation::Arith { ty, op, need, span } => {
                if self.poisoned_or_error(&ty) {
                    return;
                }
                let ty = self.resolve(&ty);
                let t = self.show(&ty);
                if let IrType::Param(_) = ty {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "T003",
                            span,
                            format!("`{op}` on a value of type parameter {t}"),
                        )
                        .with_label("generic code cannot know how to do arithmetic on it")
                        .with_note("call a native that does the work for any type of its class"),
                    );
                    return;
                }
                let ok = match need {
                    Need::Number => ty.is_integer() || ty.is_float(),
                    Need::Integer => ty.is_integer(),
                    Need::Signed => ty.is_signed() || ty.is_float(),
                };
                if !ok {
                    let what = match need {
                        Need::Number => "numbers",
                        Need::Integer => "integers",
                        Need::Signed => "signed integers and floats",
                    };
                    let mut d =
                        Diagnostic::error("T002", span, format!("`{op}` does not apply to {t}"))
                            .with_label(format!("`{op}` takes {what}"));
                    if let Some(function) =
                        bigint_function(op, need).filter(|_| ty == IrType::BigInt)
                    {
                        d = d.with_help(format!(
                            "on bigints `{op}` is `bigint.{function}`, which applies once the program imports from the `bigint` module (`import bigint.{function}`)"
                        ));
                    }
                    self.diagnostics.push(d);
                }
            }
            Obligation::Cast { from, to, span } => {
                if self.poisoned_or_error(&from) || self.poisoned_or_error(&to) {
                    return;
                }
                let from = self.resolve(&from);
                let numeric = |t: &IrType| t.is_integer() || t.is_float();
                if !numeric(&from) || !numeric(&to) {
                    let (f, t) = (self.show(&from), self.show(&to));
                    let mut d =
                        Diagnostic::error("T009", span, format!("cannot convert {f} to {t}"))
                            .with_label("`as` converts between integer, index and float types");
                    if from == IrType::BigInt || to == IrType::BigInt {
                        d = d.with_help(
                            "a bigint converts with the `bigint` module: `from(x)` makes one, `to(ref n)` gives the integer the call site expects",
                        );
                    }
                    self.diagnostics.push(d);
                }
            }
        }
    }

    fn poisoned_or_error(&self, ty: &IrType) -> bool {
        contains_error_unit(&self.vars, ty)
    }

    /// `ty` spelt for a diagnostic about it, or `None` where it comes from an error
    /// already reported (a mistake is reported once, where it was made).
    fn show_unless_poisoned(&self, ty: &IrType) -> Option<String> {
        (!self.poisoned_or_error(ty)).then(|| self.show(ty))
    }

    // ------------------------------------------------------------ scopes

    fn lookup(&self, name: &str) -> Option<LocalId> {
        self.visible.get(name)?.last().map(|&(l, _)| l)
    }

    fn declare(&mut self, name: &ast::Ident, ty: IrType, kind: LocalKind) -> LocalId {
        let depth = self.scopes.len() - 1;
        let shadowed = self.visible.get(&name.name).and_then(|v| v.last()).copied();
        if let Some((prev, _)) = shadowed.filter(|&(_, d)| d == depth) {
            let first = self.locals[prev.index()].span;
            self.diagnostics.push(
                Diagnostic::error(
                    "N007",
                    name.span,
                    format!("`{}` is already declared in this block", name.name),
                )
                .with_secondary(first, "first declared here")
                .with_note("use `set` to change a `var`, or declare the new one in an inner block"),
            );
        }
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(Local {
            name: name.name.clone(),
            ty,
            kind,
            span: name.span,
        });
        self.scopes.last_mut().expect("a scope is open").push(id);
        self.visible
            .entry(name.name.clone())
            .or_default()
            .push((id, depth));
        id
    }

    /// Closes the innermost scope: its names stop being visible.
    fn pop_scope(&mut self) -> Vec<LocalId> {
        let closed = self.scopes.pop().expect("a scope is open");
        for l in closed.iter().rev() {
            let name = &self.locals[l.index()].name;
            if let Some(stack) = self.visible.get_mut(name) {
                stack.pop();
                if stack.is_empty() {
                    self.visible.remove(name);
                }
            }
        }
        closed
    }

    fn block(&mut self, stmts: &[ast::Stmt], new_scope: bool) -> Block {
        if new_scope {
            self.scopes.push(Vec::new());
        }
        let start = self.scopes.last().map_or(0, Vec::len);
        let mut out = Vec::new();
        for s in stmts {
            if let Some(stmt) = self.stmt(s) {
                out.push(stmt);
            }
        }
        let declared = if new_scope {
            self.pop_scope()
        } else {
            self.scopes
                .last()
                .map(|s| s[start..].to_vec())
                .unwrap_or_default()
        };
        Block {
            stmts: out,
            declared: self.owned_locals(declared),
        }
    }

    // ------------------------------------------------------------ statements

    fn stmt(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        let span = s.span;
        let kind = match &s.kind {
            S::Let {
                mutable,
                name,
                ty,
                init,
            } => {
                let declared = ty.as_ref().map(|t| self.written_type(t));
                let init = init.as_ref().map(|e| match &declared {
                    Some(t) => self.expr_coerce(e, t),
                    None => self.expr(e, None),
                });
                let ty = match (&declared, &init) {
                    (Some(t), _) => t.clone(),
                    (None, Some(e)) => e.ty.clone(),
                    (None, None) => self.error_ty(),
                };
                let kind = if *mutable {
                    LocalKind::Var
                } else {
                    LocalKind::Let
                };
                let local = self.declare(name, ty, kind);
                self.finish_stmt();
                StmtKind::Let { local, init }
            }
            S::Set {
                target,
                path,
                value,
            } => self.set_place(target, path, value, span)?,
            S::For { name, source, body } => self.for_loop(name, source, body, span),
            S::If {
                cond,
                then_body,
                otherwise,
            } => {
                let cond = self.expr_coerce(cond, &IrType::Bool);
                self.finish_stmt();
                let then_body = self.block(then_body, true);
                let else_body = self.block(otherwise, true);
                StmtKind::If {
                    cond,
                    then_body,
                    else_body,
                }
            }
            S::Loop { cond, body } => {
                let cond = cond.as_ref().map(|c| self.expr_coerce(c, &IrType::Bool));
                self.finish_stmt();
                self.loop_depth += 1;
                let body = self.block(body, true);
                self.loop_depth -= 1;
                StmtKind::Loop {
                    cond,
                    body,
                    head_init: Vec::new(),
                }
            }
            S::Break | S::Continue => {
                let word = if matches!(s.kind, S::Break) {
                    "break"
                } else {
                    "continue"
                };
                if self.loop_depth == 0 {
                    self.error("F006", span, format!("`{word}` outside a loop"));
                    return None;
                }
                if matches!(s.kind, S::Break) {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }
            }
            S::Ret(value) => {
                let result = self.sig.result.clone();
                let value = match value {
                    Some(e) if result == IrType::Unit && !matches!(e.kind, A::Unit) => {
                        let e = self.expr(e, None);
                        let t = self.show(&e.ty);
                        self.diagnostics.push(
                            Diagnostic::error(
                                "F005",
                                e.span,
                                format!("this function returns nothing, but `ret` gives a {t}"),
                            )
                            .with_note("declare a result type: `fun f(...): T`"),
                        );
                        None
                    }
                    Some(e) => Some(self.expr_coerce(e, &result)),
                    None if result != IrType::Unit => {
                        let t = self.show(&result);
                        self.error("F005", span, format!("`ret` needs a value of type {t}"));
                        None
                    }
                    None => None,
                };
                self.finish_stmt();
                let value = value.filter(|_| result != IrType::Unit);
                StmtKind::Ret(value)
            }
            S::Match { scrutinee, arms } => self.match_stmt(scrutinee, arms),
            S::Debuglog(e) => {
                let e = self.expr(e, None);
                self.finish_stmt();
                StmtKind::Debuglog(e)
            }
            S::Expr(e) => {
                let e = self.expr(e, None);
                self.finish_stmt();
                StmtKind::Expr(e)
            }
        };
        Some(Stmt { kind, span })
    }

    fn lookup_local(&mut self, name: &ast::Ident) -> Option<LocalId> {
        let found = self.lookup(&name.name);
        if found.is_none() {
            self.unknown_variable(&name.name, name.span);
        }
        found
    }

    /// N001 for a variable, with the near miss among the locals in scope (or else among
    /// the functions) when there is one.
    fn unknown_variable(&mut self, name: &str, span: Span) {
        let mut d = Diagnostic::error("N001", span, format!("no variable `{name}` in scope"))
            .with_label("not declared");
        let locals = self.visible.keys().filter(|n| !n.contains('#'));
        if let Some(near) = suggest::similar(name, locals.map(String::as_str)) {
            d = d.with_help(format!("a local with a similar name exists: `{near}`"));
        } else if let Some(near) = self.similar_function(name) {
            d = d.with_help(format!(
                "a function with a similar name exists: `{near}(...)`"
            ));
        }
        self.diagnostics.push(d);
    }

    /// The function in scope (the file's own, its imports, the built-ins) whose name is
    /// closest to `name`.
    fn similar_function(&self, name: &str) -> Option<String> {
        let scope = self.resolved.scopes.get(self.file);
        let names = scope
            .into_iter()
            .flat_map(|s| s.keys().map(String::as_str))
            .chain(BUILTINS.iter().copied());
        suggest::similar(name, names).map(str::to_string)
    }

    // ------------------------------------------------------------ expressions

    /// Checks `e` against `expected` and reports a mismatch (T001).
    fn expr_coerce(&mut self, e: &ast::Expr, expected: &IrType) -> Expr {
        let out = self.expr(e, Some(expected));
        if !self.unify(&out.ty, expected)
            && !self.poisoned_or_error(&out.ty)
            && !self.poisoned_or_error(expected)
        {
            let (want, got) = (self.show(expected), self.show(&out.ty));
            let mut d = Diagnostic::error("T001", e.span, format!("expected {want}, found {got}"))
                .with_label(format!("this is {got}"));
            if *expected == IrType::BigInt && matches!(e.kind, A::Int(..)) {
                d = d.with_help(
                    "there is no bigint literal: `from(5i64)` or `unwrap(parse(ref \"5\"))` of the `bigint` module makes one",
                );
            }
            self.diagnostics.push(d);
        }
        out
    }

    fn mk(&self, kind: ExprKind, ty: IrType, span: Span) -> Expr {
        Expr { kind, ty, span }
    }

    fn expr(&mut self, e: &ast::Expr, expected: Option<&IrType>) -> Expr {
        let span = e.span;
        match &e.kind {
            A::Name(name) => match self.lookup(name) {
                Some(l) if self.places.contains_key(&l) => {
                    let place = self.places[&l].clone();
                    self.place_expr(&place, span)
                }
                Some(l) => {
                    let ty = self.locals[l.index()].ty.clone();
                    self.mk(ExprKind::Local(l), ty, span)
                }
                None => {
                    if self
                        .resolved
                        .scopes
                        .get(self.file)
                        .is_some_and(|s| s.contains_key(name))
                    {
                        self.error(
                            "F003",
                            span,
                            format!("`{name}` is a function: call it, `{name}(...)`"),
                        );
                    } else {
                        self.unknown_variable(name, span);
                    }
                    let ty = self.error_ty();
                    self.mk(ExprKind::Unit, ty, span)
                }
            },
            A::Int(v, suffix) => {
                let ty = match suffix {
                    // The lexer keeps only the integer suffixes, each a type's name.
                    Some(s) => IrType::from_name(s).expect("an integer suffix"),
                    None => {
                        let t = self.fresh(VarKind::Int, Origin::Literal);
                        if let Some(x) = expected {
                            self.unify(&t, x);
                        }
                        t
                    }
                };
                self.obligations.push(Obligation::IntFits {
                    ty: ty.clone(),
                    value: *v,
                    span,
                });
                self.mk(ExprKind::Int(*v), ty, span)
            }
            A::Float(v, suffix) => {
                let ty = match suffix.as_deref() {
                    Some("f32") => IrType::F32,
                    Some(_) => IrType::F64,
                    None => {
                        let t = self.fresh(VarKind::Float, Origin::Literal);
                        if let Some(x) = expected {
                            self.unify(&t, x);
                        }
                        t
                    }
                };
                self.mk(ExprKind::Float(*v), ty, span)
            }
            A::Str(s) => self.mk(ExprKind::Str(s.clone()), IrType::String, span),
            A::Bool(b) => self.mk(ExprKind::Bool(*b), IrType::Bool, span),
            A::Unit => self.mk(ExprKind::Unit, IrType::Unit, span),
            A::List(elems) => {
                let elem = self.fresh(VarKind::General, Origin::EmptyList(span));
                let ty = IrType::list(elem.clone());
                if let Some(x) = expected {
                    self.unify(&ty, x);
                }
                let elems = elems.iter().map(|x| self.expr_coerce(x, &elem)).collect();
                self.mk(ExprKind::List(elems), ty, span)
            }
            A::Tuple(elems) => {
                let hints: Vec<Option<IrType>> = match expected.map(|x| self.shallow(x)) {
                    Some(IrType::Tuple(ts)) if ts.len() == elems.len() => {
                        ts.into_iter().map(Some).collect()
                    }
                    _ => vec![None; elems.len()],
                };
                let elems: Vec<Expr> = elems
                    .iter()
                    .zip(hints)
                    .map(|(x, h)| self.expr(x, h.as_ref()))
                    .collect();
                let ty = IrType::Tuple(elems.iter().map(|x| x.ty.clone()).collect());
                self.mk(ExprKind::Tuple(elems), ty, span)
            }
            A::Field(base, n) => {
                let base = self.expr(base, None);
                let ty = self.shallow(&base.ty);
                match &ty {
                    IrType::Tuple(fs) if (*n as usize) < fs.len() => {
                        let fty = fs[*n as usize].clone();
                        self.mk(ExprKind::Field(Box::new(base), *n), fty, span)
                    }
                    _ => {
                        if let Some(t) = self.show_unless_poisoned(&ty) {
                            let d =
                                Diagnostic::error("T008", span, format!("{t} has no field {n}"));
                            self.diagnostics.push(match &ty {
                                IrType::Tuple(fs) => d.with_help(fields_help(fs.len())),
                                _ => d,
                            });
                        }
                        let ty = self.error_ty();
                        self.mk(ExprKind::Unit, ty, span)
                    }
                }
            }
            A::NamedField(base, field) if self.is_enum_path(base) => {
                let A::Name(name) = &base.kind else {
                    unreachable!("an enum path starts with a name")
                };
                let enum_name = ast::Ident {
                    name: name.clone(),
                    span: base.span,
                };
                self.variant(&enum_name, field, None, expected, span)
            }
            A::Variant {
                enum_name,
                variant,
                args,
            } => self.variant(enum_name, variant, Some(args), expected, span),
            A::Try(value) => self.try_expr(value, span),
            A::NamedField(base, field) => {
                let base = self.expr(base, None);
                let ty = self.shallow(&base.ty);
                match self.record_field(&ty, field) {
                    Some((index, fty)) => {
                        self.mk(ExprKind::Field(Box::new(base), index as u32), fty, span)
                    }
                    None => {
                        let ty = self.error_ty();
                        self.mk(ExprKind::Unit, ty, span)
                    }
                }
            }
            A::Construct { record, fields } => self.construct(record, fields, span),
            A::Some(value) => {
                let hint = match expected.map(|x| self.shallow(x)) {
                    Some(IrType::Option(p)) => Some(*p),
                    _ => None,
                };
                let value = self.expr(value, hint.as_ref());
                let ty = IrType::option(value.ty.clone());
                self.mk(ExprKind::Some(Box::new(value)), ty, span)
            }
            A::None => {
                let payload = self.fresh(VarKind::General, Origin::NoneValue(span));
                let ty = IrType::option(payload);
                if let Some(x) = expected {
                    self.unify(&ty, x);
                }
                self.mk(ExprKind::None, ty, span)
            }
            A::Index(base, index) => {
                let base = self.expr(base, None);
                let index = self.expr_coerce(index, &IrType::Index);
                let ty = self.shallow(&base.ty);
                match ty {
                    IrType::List(elem) => self.mk(
                        ExprKind::Index(Box::new(base), Box::new(index)),
                        *elem,
                        span,
                    ),
                    other => {
                        if let Some(t) = self.show_unless_poisoned(&other) {
                            self.error(
                                "T007",
                                base.span,
                                format!("cannot index {t}: only lists are indexed"),
                            );
                        }
                        let ty = self.error_ty();
                        self.mk(ExprKind::Unit, ty, span)
                    }
                }
            }
            A::Call { callee, args } => self.call(callee, args, span, expected),
            A::Neg(value) => {
                let value = self.expr(value, expected);
                if let Some(f) = self.bigint_operator("-", Need::Signed, &value.ty) {
                    return self.bigint_call(f, vec![value], span);
                }
                self.obligations.push(Obligation::Arith {
                    ty: value.ty.clone(),
                    op: "-",
                    need: Need::Signed,
                    span,
                });
                let ty = value.ty.clone();
                self.mk(ExprKind::Neg(Box::new(value)), ty, span)
            }
            A::Not(value) => {
                let value = self.expr_coerce(value, &IrType::Bool);
                self.mk(ExprKind::Not(Box::new(value)), IrType::Bool, span)
            }
            A::Binary(op, lhs, rhs) => self.binary(*op, lhs, rhs, span, expected),
            A::Cast { value, ty, checked } => {
                let to = self.written_type(ty);
                let value = self.expr(value, None);
                self.obligations.push(Obligation::Cast {
                    from: value.ty.clone(),
                    to: to.clone(),
                    span,
                });
                self.mk(
                    ExprKind::Cast {
                        value: Box::new(value),
                        checked: *checked,
                    },
                    to,
                    span,
                )
            }
        }
    }

    /// The `bigint` module's function an arithmetic operator on operands of type `ty` is
    /// ([`bigint_function`]); `None` when they are not bigints (as far as is known here),
    /// the operator has no such function, or the program does not include the module
    /// (then the operator's obligation reports `T002`).
    fn bigint_operator(&self, op: &str, need: Need, ty: &IrType) -> Option<usize> {
        if self.shallow(ty) != IrType::BigInt {
            return None;
        }
        self.library_function(&format!("bigint.{}", bigint_function(op, need)?))
    }

    /// The call of program function `f` with `operands` lent (`ref`), giving a bigint.
    fn bigint_call(&self, f: usize, operands: Vec<Expr>, span: Span) -> Expr {
        let args = operands
            .into_iter()
            .map(|value| Arg {
                mode: ParamMode::Ref,
                span: value.span,
                value,
            })
            .collect();
        let call = ExprKind::Call {
            callee: Callee::Function(f),
            type_args: Vec::new(),
            args,
        };
        self.mk(call, IrType::BigInt, span)
    }

    /// The program's function `ir_name` (`bigint.add`, `describe.to_string`) when the
    /// module that defines it is part of the program.
    fn library_function(&self, ir_name: &str) -> Option<usize> {
        self.resolved
            .functions
            .iter()
            .position(|f| f.ir_name == ir_name)
    }

    fn binary(
        &mut self,
        op: BinOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        expected: Option<&IrType>,
    ) -> Expr {
        match op {
            BinOp::Arith(ir_op) => {
                let need = match ir_op {
                    BinaryOp::And | BinaryOp::Or => {
                        unreachable!("the parser writes `and` and `or` as BinOp::And and BinOp::Or")
                    }
                    // The IR takes `%` of floats; the language keeps it to integers.
                    BinaryOp::Rem => Need::Integer,
                    op if op.integers_only() => Need::Integer,
                    _ => Need::Number,
                };
                let l = self.expr(lhs, expected);
                let r = self.expr_coerce(rhs, &l.ty.clone());
                if let Some(f) = self.bigint_operator(op.symbol(), need, &l.ty) {
                    return self.bigint_call(f, vec![l, r], span);
                }
                self.obligations.push(Obligation::Arith {
                    ty: l.ty.clone(),
                    op: op.symbol(),
                    need,
                    span,
                });
                let ty = l.ty.clone();
                self.mk(ExprKind::Binary(ir_op, Box::new(l), Box::new(r)), ty, span)
            }
            BinOp::Compare(cmp) => {
                let l = self.expr(lhs, None);
                let r = self.expr_coerce(rhs, &l.ty.clone());
                self.mk(
                    ExprKind::Compare(cmp, Box::new(l), Box::new(r)),
                    IrType::Bool,
                    span,
                )
            }
            BinOp::And | BinOp::Or => {
                let l = self.expr_coerce(lhs, &IrType::Bool);
                let r = self.expr_coerce(rhs, &IrType::Bool);
                let kind = if op == BinOp::And {
                    ExprKind::And(Box::new(l), Box::new(r))
                } else {
                    ExprKind::Or(Box::new(l), Box::new(r))
                };
                self.mk(kind, IrType::Bool, span)
            }
            BinOp::Concat => {
                let before = self.diagnostics.len();
                let l = self.expr_coerce(lhs, &IrType::String);
                let r = self.expr_coerce(rhs, &IrType::String);
                for d in &mut self.diagnostics[before..] {
                    let operand = d.span == lhs.span || d.span == rhs.span;
                    if d.code == "T001" && operand && d.message.starts_with("expected string") {
                        d.notes.push(
                            "help: `++` joins strings; to write a value into one, use `format`: `format(\"n = {}\", n)`"
                                .to_string(),
                        );
                    }
                }
                self.mk(
                    ExprKind::Concat(Box::new(l), Box::new(r)),
                    IrType::String,
                    span,
                )
            }
        }
    }

    // ------------------------------------------------------------ calls

    fn call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
        expected: Option<&IrType>,
    ) -> Expr {
        if self.lookup(&callee.name).is_some() {
            self.error(
                "F003",
                callee.span,
                format!("`{}` is a variable, not a function", callee.name),
            );
            return self.bad_call(args, span);
        }
        let callable = self
            .resolved
            .scopes
            .get(self.file)
            .and_then(|s| s.get(&callee.name))
            .cloned();
        match callable {
            Some(c) => self.user_call(c, callee, args, span, expected),
            None => match callee.name.as_str() {
                name if BUILTINS.contains(&name) => self.builtin(name, args, span, expected),
                crate::format::FORMAT => self.format_call(args, span),
                name => {
                    let mut d = Diagnostic::error(
                        "N001",
                        callee.span,
                        format!("no function `{name}` in scope"),
                    )
                    .with_label("not defined or imported");
                    d = match self.similar_function(name) {
                        Some(near) => {
                            d.with_help(format!("a function with a similar name exists: `{near}`"))
                        }
                        None => d.with_note(
                            "functions of other modules are imported first: `import MODULE.NAME`",
                        ),
                    };
                    self.diagnostics.push(d);
                    self.bad_call(args, span)
                }
            },
        }
    }

    /// Checks the arguments of a call that cannot be made, for their own mistakes.
    fn bad_call(&mut self, args: &[ast::Arg], span: Span) -> Expr {
        for a in args {
            self.expr(&a.value, None);
        }
        let ty = self.error_ty();
        self.mk(ExprKind::Unit, ty, span)
    }

    fn arity(&mut self, name: &str, want: usize, args: &[ast::Arg], span: Span) -> bool {
        if args.len() == want {
            return true;
        }
        let s = if want == 1 { "" } else { "s" };
        self.diagnostics.push(
            Diagnostic::error(
                "F001",
                span,
                format!(
                    "`{name}` takes {want} argument{s}, but {} were given",
                    args.len()
                ),
            )
            .with_label(format!(
                "{} argument{}",
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            )),
        );
        false
    }

    fn mode_error(&mut self, callee: &str, param: &str, want: ParamMode, arg: &ast::Arg) {
        let written = |m: ParamMode| match m {
            ParamMode::In => "without a mode".to_string(),
            m => format!("as `{m}`"),
        };
        let fix = match want {
            ParamMode::In => "write the argument without a mode".to_string(),
            m => format!("write `{m} ...`"),
        };
        self.diagnostics.push(
            Diagnostic::error(
                "F002",
                arg.span,
                format!(
                    "argument `{param}` of `{callee}` is `{want}`, but it is passed {}",
                    written(arg.mode)
                ),
            )
            .with_label(fix)
            .with_help(match (&arg.value.kind, want) {
                (A::Name(n), ParamMode::In) => format!("write the argument without a mode: `{n}`"),
                (A::Name(n), m) => format!("write the argument `{m} {n}`"),
                (_, ParamMode::In) => "remove the mode before the argument".to_string(),
                (_, m) => format!("write `{m}` before the argument"),
            }),
        );
    }

    /// The local a `mut`/`out` argument names; such an argument must be a variable.
    fn place_arg(&mut self, arg: &ast::Arg) -> Option<LocalId> {
        if let A::Name(n) = &arg.value.kind {
            if let Some(l) = self.lookup(n).filter(|l| !self.places.contains_key(l)) {
                return Some(l);
            }
            if let Some(l) = self.lookup(n) {
                let base = self.locals[self.places[&l].base.index()].name.clone();
                self.diagnostics.push(
                    Diagnostic::error(
                        "F009",
                        arg.value.span,
                        format!("a `{}` argument must be a variable", arg.mode),
                    )
                    .with_label(format!("`{n}` is an element of `{base}`, not a variable"))
                    .with_help(format!(
                        "copy it into a `var`, pass that, and `set {n} = ...` it back"
                    )),
                );
                return None;
            }
            self.unknown_variable(n, arg.value.span);
            return None;
        }
        self.diagnostics.push(
            Diagnostic::error(
                "F009",
                arg.value.span,
                format!("a `{}` argument must be a variable", arg.mode),
            )
            .with_label("not a variable"),
        );
        self.expr(&arg.value, None);
        None
    }

    fn builtin(
        &mut self,
        name: &str,
        args: &[ast::Arg],
        span: Span,
        expected: Option<&IrType>,
    ) -> Expr {
        let want = if name == "push" { 2 } else { 1 };
        if !self.arity(name, want, args, span) {
            return self.bad_call(args, span);
        }
        let arg = &args[0];
        let reads = matches!(name, "len" | "is_some" | "clone");
        let ok_mode = match name {
            "push" => arg.mode == ParamMode::Mut,
            _ if reads => matches!(arg.mode, ParamMode::In | ParamMode::Ref),
            _ => arg.mode == ParamMode::In,
        };
        if !ok_mode {
            let want = match name {
                "push" => ParamMode::Mut,
                "len" | "is_some" | "clone" => ParamMode::Ref,
                _ => ParamMode::In,
            };
            // The first parameter's name, as `docs/language.md` writes each built-in.
            let param = match name {
                "len" | "push" => "xs",
                "is_some" | "unwrap" => "o",
                "data" => "e",
                _ => "x",
            };
            self.mode_error(name, param, want, arg);
        }
        match name {
            "push" => {
                let Some(list) = self.place_arg(arg) else {
                    return self.bad_call(&args[1..], span);
                };
                let ty = self.shallow(&self.locals[list.index()].ty.clone());
                let IrType::List(elem) = ty else {
                    let t = self.show(&ty);
                    self.error(
                        "T007",
                        arg.value.span,
                        format!("`push` takes a list, not {t}"),
                    );
                    return self.bad_call(&args[1..], span);
                };
                let value = self.expr_coerce(&args[1].value, &elem);
                self.mk(
                    ExprKind::Push {
                        list,
                        value: Box::new(value),
                    },
                    IrType::Unit,
                    span,
                )
            }
            "len" => {
                let value = self.expr(&arg.value, None);
                let ty = self.shallow(&value.ty);
                if !matches!(ty, IrType::List(_)) {
                    if let Some(t) = self.show_unless_poisoned(&ty) {
                        let mut d = Diagnostic::error(
                            "T007",
                            arg.value.span,
                            format!("`len` takes a list, not {t}"),
                        );
                        if ty == IrType::String {
                            d = d.with_note(
                                "the length of a string is `strings.len` (`import strings.len`)",
                            );
                        }
                        self.diagnostics.push(d);
                    }
                    let ty = self.error_ty();
                    return self.mk(ExprKind::Unit, ty, span);
                }
                self.mk(ExprKind::Len(Box::new(value)), IrType::Index, span)
            }
            "is_some" | "unwrap" => {
                let hint = expected
                    .filter(|_| name == "unwrap")
                    .map(|x| IrType::option(x.clone()));
                let value = self.expr(&arg.value, hint.as_ref());
                let ty = self.shallow(&value.ty);
                let IrType::Option(payload) = ty else {
                    if let Some(t) = self.show_unless_poisoned(&ty) {
                        self.error(
                            "T001",
                            arg.value.span,
                            format!("`{name}` takes an option, not {t}"),
                        );
                    }
                    let ty = self.error_ty();
                    return self.mk(ExprKind::Unit, ty, span);
                };
                if name == "is_some" {
                    self.mk(ExprKind::IsSome(Box::new(value)), IrType::Bool, span)
                } else {
                    self.mk(ExprKind::Unwrap(Box::new(value)), *payload, span)
                }
            }
            "data" => {
                let value = self.expr(&arg.value, None);
                self.mk(ExprKind::Data(Box::new(value)), IrType::Data, span)
            }
            _ => {
                let value = self.expr(&arg.value, expected);
                let ty = value.ty.clone();
                self.mk(ExprKind::Clone(Box::new(value)), ty, span)
            }
        }
    }

    fn user_call(
        &mut self,
        callable: Callable,
        callee: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
        expected: Option<&IrType>,
    ) -> Expr {
        let sig = self.resolved.signature(&callable);
        let before = self.diagnostics.len();
        let checked = self.user_call_checked(&callable, &sig, callee, args, span, expected);
        let arg_spans: Vec<Span> = args.iter().flat_map(|a| [a.span, a.value.span]).collect();
        let declared = match &callable {
            Callable::Function(f) => self.resolved.functions[*f].span,
            Callable::Native { rider, name } => {
                self.resolved.riders[*rider]
                    .native(name)
                    .expect("scopes name only declared natives")
                    .span
            }
        };
        let hidden_builtin = BUILTINS
            .contains(&callee.name.as_str())
            .then(|| self.import_of(&callee.name))
            .flatten();
        for d in &mut self.diagnostics[before..] {
            // The call's own complaints: its arity, an argument's mode or type.
            let own = match d.code {
                "F001" => d.span == span,
                "F002" | "T001" | "F009" => arg_spans.contains(&d.span),
                _ => false,
            };
            if !own {
                continue;
            }
            d.secondary.push((declared, declared_here(&callee.name)));
            if let Some((module, import)) = &hidden_builtin {
                d.secondary.push((
                    *import,
                    format!("this import hides the built-in `{}`", callee.name),
                ));
                let help = format!(
                    "`{name}` here is `{module}.{name}`; for the built-in, import it under another name: `import {module}.{name} as {module}_{name}`",
                    name = callee.name
                );
                if !d.notes.iter().any(|n| n.contains(&help)) {
                    d.notes.push(format!("help: {help}"));
                }
            }
        }
        checked
    }

    /// The module (or rider) and the `import` line that bring `name` into this file.
    fn import_of(&self, name: &str) -> Option<(String, Span)> {
        self.resolved.files[self.file]
            .ast
            .items
            .iter()
            .find_map(|item| match item {
                Item::Import {
                    from,
                    name: n,
                    alias,
                    span,
                } if alias.as_ref().unwrap_or(n).name == name => Some((from.name.clone(), *span)),
                _ => None,
            })
    }

    fn user_call_checked(
        &mut self,
        callable: &Callable,
        sig: &Signature,
        callee: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
        expected: Option<&IrType>,
    ) -> Expr {
        if !self.arity(&callee.name, sig.params.len(), args, span) {
            return self.bad_call(args, span);
        }
        let return_only = sig.return_position_params();
        let type_args: Vec<IrType> = sig
            .type_params
            .iter()
            .enumerate()
            .map(|(i, tp)| {
                let origin = if return_only.contains(&(i as u32)) {
                    Origin::ReturnParam {
                        span,
                        callee: callee.name.clone(),
                        param: tp.name.clone(),
                    }
                } else {
                    Origin::Param {
                        span,
                        callee: callee.name.clone(),
                        param: tp.name.clone(),
                    }
                };
                self.fresh(VarKind::General, origin)
            })
            .collect();
        let result = sig.result.substitute(&type_args);
        if let Some(x) = expected {
            self.unify(&result, x);
        }
        let mut hir_args = Vec::new();
        for (arg, param) in args.iter().zip(&sig.params) {
            if arg.mode != param.mode {
                self.mode_error(&callee.name, &param.name, param.mode, arg);
            }
            let want = param.ty.substitute(&type_args);
            let value = match param.mode {
                ParamMode::Mut | ParamMode::Out => {
                    let Some(local) = self.place_arg(arg) else {
                        continue;
                    };
                    let lty = self.locals[local.index()].ty.clone();
                    if !self.unify(&lty, &want) {
                        let (w, g) = (self.show(&want), self.show(&lty));
                        self.error("T001", arg.value.span, format!("expected {w}, found {g}"));
                    }
                    self.mk(ExprKind::Local(local), lty, arg.value.span)
                }
                ParamMode::In | ParamMode::Ref => self.expr_coerce(&arg.value, &want),
            };
            hir_args.push(Arg {
                mode: param.mode,
                value,
                span: arg.span,
            });
        }
        for (tp, ty) in sig.type_params.iter().zip(&type_args) {
            if tp.class != TypeClass::Any {
                self.obligations.push(Obligation::Class {
                    ty: ty.clone(),
                    class: tp.class,
                    span,
                    callee: callee.name.clone(),
                    param: tp.name.clone(),
                });
            }
        }
        if hir_args.len() != sig.params.len() {
            let ty = self.error_ty();
            return self.mk(ExprKind::Unit, ty, span);
        }
        let callee = match callable {
            Callable::Function(f) => Callee::Function(*f),
            Callable::Native { rider, name } => Callee::Native {
                rider: *rider,
                name: name.clone(),
            },
        };
        self.mk(
            ExprKind::Call {
                callee,
                type_args,
                args: hir_args,
            },
            result,
            span,
        )
    }
}

impl FnChecker<'_> {
    /// The position and type of `field` in the record `ty`; `None`, reported (`R002`),
    /// when `ty` is not a record or has no such field.
    fn record_field(&mut self, ty: &IrType, field: &ast::Ident) -> Option<(usize, IrType)> {
        if let IrType::Record(record) = ty {
            if let Some(index) = record.field_index(&field.name) {
                return Some((index, record.fields[index].clone()));
            }
        }
        if !self.poisoned_or_error(ty) {
            let t = self.show(ty);
            let mut d = Diagnostic::error(
                "R002",
                field.span,
                format!("{t} has no field `{}`", field.name),
            )
            .with_label("no such field");
            d = match ty {
                IrType::Record(record) => {
                    if let Some(near) =
                        suggest::similar(&field.name, record.field_names.iter().map(String::as_str))
                    {
                        d = d.with_help(format!("a field with a similar name exists: `{near}`"));
                    }
                    d.with_note(format!("note: {}", record_fields_note(record)))
                }
                IrType::Tuple(fs) => d.with_help(fields_help(fs.len())),
                _ => d.with_note("only records have named fields"),
            };
            self.diagnostics.push(d);
        }
        None
    }

    /// Checks a value given for field `field` of `record` against its type: a mismatch
    /// is `R006`.
    pub(super) fn field_coerce(
        &mut self,
        value: &ast::Expr,
        expected: &IrType,
        record: &str,
        field: &str,
    ) -> Expr {
        self.part_coerce(value, expected, "R006", |want, got| {
            format!("field `{field}` of `{record}` is {want}, found {got}")
        })
    }

    /// Checks a value given for a part of a value (a record's field, a variant's payload
    /// field) against its type: a mismatch is `code`, worded by `message(want, got)`.
    pub(super) fn part_coerce(
        &mut self,
        value: &ast::Expr,
        expected: &IrType,
        code: &'static str,
        message: impl FnOnce(&str, &str) -> String,
    ) -> Expr {
        let out = self.expr(value, Some(expected));
        if !self.unify(&out.ty, expected)
            && !self.poisoned_or_error(&out.ty)
            && !self.poisoned_or_error(expected)
        {
            let (want, got) = (self.show(expected), self.show(&out.ty));
            self.diagnostics.push(
                Diagnostic::error(code, value.span, message(&want, &got))
                    .with_label(format!("this is {got}")),
            );
        }
        out
    }

    /// `Point(x: 1.0, y: 2.0)`: every field, each once, in the declaration's order (so
    /// that the values are evaluated in the order they are written). Built as the tuple
    /// of its fields, with the record's type.
    fn construct(
        &mut self,
        name: &ast::Ident,
        given: &[(ast::Ident, ast::Expr)],
        span: Span,
    ) -> Expr {
        let Some(IrType::Record(record)) = self.resolved.record_scopes[self.file]
            .get(&name.name)
            .cloned()
        else {
            let mut d = Diagnostic::error("R001", name.span, format!("no record `{}`", name.name))
                .with_label("not a record type");
            let known = self.resolved.record_scopes[self.file]
                .keys()
                .map(String::as_str);
            if let Some(near) = suggest::similar(&name.name, known) {
                d = d.with_help(format!("a record with a similar name exists: `{near}`"));
            }
            self.diagnostics.push(d);
            for (_, value) in given {
                self.expr(value, None);
            }
            let ty = self.error_ty();
            return self.mk(ExprKind::Unit, ty, span);
        };
        let mut ok = true;
        let mut seen: Vec<(usize, Span)> = Vec::new();
        let mut elems = Vec::new();
        for (field, value) in given {
            let Some(index) = record.field_index(&field.name) else {
                self.record_field(&IrType::Record(record.clone()), field);
                self.expr(value, None);
                ok = false;
                continue;
            };
            if let Some((_, first)) = seen.iter().find(|(i, _)| *i == index) {
                self.diagnostics.push(
                    Diagnostic::error(
                        "R004",
                        field.span,
                        format!("field `{}` is given twice", field.name),
                    )
                    .with_secondary(*first, "first given here"),
                );
                self.expr(value, None);
                ok = false;
                continue;
            }
            if let Some(&(last, _)) = seen.last() {
                if index < last && ok {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "R009",
                            field.span,
                            format!(
                                "field `{}` is given after `{}`, which `{}` declares after it",
                                field.name, record.field_names[last], record.name
                            ),
                        )
                        .with_label("out of order")
                        .with_help(format!(
                            "give the fields in the declaration's order: {}",
                            record_fields_list(&record)
                        )),
                    );
                    ok = false;
                }
            }
            seen.push((index, field.span));
            let fty = record.fields[index].clone();
            elems.push(self.field_coerce(value, &fty, &record.name, &field.name));
        }
        let missing: Vec<&str> = record
            .field_names
            .iter()
            .enumerate()
            .filter(|(i, _)| !seen.iter().any(|(j, _)| j == i))
            .map(|(_, n)| n.as_str())
            .collect();
        if ok && !missing.is_empty() {
            let list = missing.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>();
            self.diagnostics.push(
                Diagnostic::error(
                    "R003",
                    span,
                    format!(
                        "`{}` needs every field: {} missing",
                        record.name,
                        list.join(", ")
                    ),
                )
                .with_label(format!("{} not given", list.join(", ")))
                .with_note(format!("note: {}", record_fields_note(&record))),
            );
            ok = false;
        }
        if !ok {
            let ty = self.error_ty();
            return self.mk(ExprKind::Unit, ty, span);
        }
        self.mk(ExprKind::Tuple(elems), IrType::Record(record), span)
    }
}

/// `x: f64, y: f64`: a record's fields as its declaration has them.
fn record_fields_list(record: &datalove_ir::RecordType) -> String {
    record
        .field_names
        .iter()
        .zip(&record.fields)
        .map(|(n, t)| format!("`{n}: {t}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn record_fields_note(record: &datalove_ir::RecordType) -> String {
    format!(
        "`{}` has the fields {}",
        record.name,
        record_fields_list(record)
    )
}

/// What fields a tuple of `n` fields has.
fn fields_help(n: usize) -> String {
    match n {
        1 => "its one field is `.0`".to_string(),
        n => format!("its fields are `.0` to `.{}`", n - 1),
    }
}

fn display_name(ir_name: &str) -> &str {
    ir_name.rsplit('.').next().unwrap_or(ir_name)
}

/// Whether control cannot reach the end of these statements.
fn diverges(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        S::Ret(_) => true,
        S::If {
            then_body,
            otherwise,
            ..
        } => diverges(then_body) && diverges(otherwise),
        S::Loop { cond: None, body } => !breaks(body),
        S::Match { arms, .. } => !arms.is_empty() && arms.iter().all(|a| diverges(&a.body)),
        _ => false,
    })
}

/// Whether a `break` in these statements leaves the loop they are the body of.
fn breaks(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        S::Break => true,
        S::If {
            then_body,
            otherwise,
            ..
        } => breaks(then_body) || breaks(otherwise),
        S::Match { arms, .. } => arms.iter().any(|a| breaks(&a.body)),
        _ => false,
    })
}

/// Whether `ty` mentions a variable poisoned by an earlier error.
fn contains_error_unit(vars: &[Var], ty: &IrType) -> bool {
    match ty {
        IrType::Param(n) if *n >= VAR_BASE => {
            let v = &vars[(*n - VAR_BASE) as usize];
            matches!(v.origin, Origin::Error)
                || v.binding
                    .as_ref()
                    .is_some_and(|b| contains_error_unit(vars, b))
        }
        IrType::List(e) | IrType::Option(e) => contains_error_unit(vars, e),
        IrType::Tuple(fs) => fs.iter().any(|f| contains_error_unit(vars, f)),
        IrType::Map(k, v) => contains_error_unit(vars, k) || contains_error_unit(vars, v),
        IrType::Enum(e) => e.args.iter().any(|a| contains_error_unit(vars, a)),
        _ => false,
    }
}

/// Substitutes bound variables, leaving unbound ones in place.
fn zonk_partial(vars: &[Var], ty: &IrType) -> IrType {
    substitute_vars(vars, ty, Unbound::Keep)
}

/// Substitutes every variable; one left open (after an error) becomes unit.
fn zonk(vars: &[Var], ty: &IrType) -> IrType {
    substitute_vars(vars, ty, Unbound::Unit)
}

/// What [`substitute_vars`] puts where a variable is still unbound.
#[derive(Clone, Copy)]
enum Unbound {
    Keep,
    Unit,
}

fn substitute_vars(vars: &[Var], ty: &IrType, unbound: Unbound) -> IrType {
    match ty {
        IrType::Param(n) if *n >= VAR_BASE => match &vars[(*n - VAR_BASE) as usize].binding {
            Some(b) => substitute_vars(vars, b, unbound),
            None => match unbound {
                Unbound::Keep => ty.clone(),
                Unbound::Unit => IrType::Unit,
            },
        },
        IrType::Enum(e) if e.args.is_empty() => ty.clone(),
        _ => ty.map_children(|t| substitute_vars(vars, t, unbound)),
    }
}

fn zonk_block(vars: &[Var], block: &mut Block) {
    for s in &mut block.stmts {
        match &mut s.kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    zonk_expr(vars, e);
                }
            }
            StmtKind::Set { value, .. } => zonk_expr(vars, value),
            StmtKind::SetIndex { index, value, .. } => {
                zonk_expr(vars, index);
                zonk_expr(vars, value);
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                zonk_expr(vars, cond);
                zonk_block(vars, then_body);
                zonk_block(vars, else_body);
            }
            StmtKind::Loop { cond, body, .. } => {
                if let Some(c) = cond {
                    zonk_expr(vars, c);
                }
                zonk_block(vars, body);
            }
            StmtKind::Block(b) => zonk_block(vars, b),
            StmtKind::Match { scrutinee, arms } => {
                zonk_expr(vars, scrutinee);
                arms.iter_mut().for_each(|a| zonk_block(vars, &mut a.body));
            }
            StmtKind::Ret(Some(e)) | StmtKind::Debuglog(e) | StmtKind::Expr(e) => {
                zonk_expr(vars, e)
            }
            StmtKind::Ret(None) | StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

fn zonk_expr(vars: &[Var], e: &mut Expr) {
    e.ty = zonk(vars, &e.ty);
    match &mut e.kind {
        ExprKind::List(es) | ExprKind::Tuple(es) | ExprKind::Variant { args: es, .. } => {
            es.iter_mut().for_each(|x| zonk_expr(vars, x))
        }
        ExprKind::Field(x, _)
        | ExprKind::Some(x)
        | ExprKind::Len(x)
        | ExprKind::IsSome(x)
        | ExprKind::Unwrap(x)
        | ExprKind::Data(x)
        | ExprKind::Clone(x)
        | ExprKind::Neg(x)
        | ExprKind::Not(x)
        | ExprKind::Push { value: x, .. }
        | ExprKind::Try(x)
        | ExprKind::Cast { value: x, .. } => zonk_expr(vars, x),
        ExprKind::Index(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::Compare(_, a, b)
        | ExprKind::And(a, b)
        | ExprKind::Or(a, b)
        | ExprKind::Concat(a, b) => {
            zonk_expr(vars, a);
            zonk_expr(vars, b);
        }
        ExprKind::Call {
            type_args, args, ..
        } => {
            for t in type_args.iter_mut() {
                *t = zonk(vars, t);
            }
            for a in args {
                zonk_expr(vars, &mut a.value);
            }
        }
        ExprKind::Local(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::None => {}
    }
}

/// The function of the `bigint` module an arithmetic operator on bigints is: the one
/// decision behind both the lowering (`FnChecker::bigint_operator`) and the help of
/// `T002`. The operands are passed `ref`.
fn bigint_function(op: &str, need: Need) -> Option<&'static str> {
    Some(match (op, need) {
        ("-", Need::Signed) => "neg",
        ("+", _) => "add",
        ("-", _) => "sub",
        ("*", _) => "mul",
        ("/", _) => "div",
        ("%", _) => "rem",
        _ => return None,
    })
}
