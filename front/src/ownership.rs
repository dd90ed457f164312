//! The ownership checker: follows which locals hold a value along every path and
//! refuses use after move, use before initialization, assignment to what is not a `var`,
//! `mut`/`out` on what is not a `var`, moving out of a borrowed parameter, an `out`
//! parameter left unwritten, and one value passed as `mut`/`out` and as another argument
//! of the same call (`D010`).
//!
//! An operand that is a variable is read in place when its operation runs, after the
//! operation's other operands are evaluated (`s == take(s)`, `f(ref s, s)`,
//! `push(mut xs, f(xs))`): while those are evaluated the variable is *lent*, and moving
//! it then is a use after move (`D001`), since the operation would read what was moved.
//!
//! A loop's head is analysed to a fixpoint; the locals initialized there on every
//! iteration are recorded in the loop (`head_init`) for lowering to follow.

use std::rc::Rc;

use super::hir::*;
use datalove_ir::diag::{Diagnostic, Span};
use datalove_ir::types::ParamMode;

/// Checks every function, filling in each loop's `head_init`.
pub fn check(program: &mut HirProgram, diagnostics: &mut Vec<Diagnostic>) {
    for f in &mut program.functions {
        check_function(f, diagnostics);
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    Init,
    Uninit,
    /// Moved at this span (on some path).
    Moved(Span),
}

/// The state of every local, or `None` where control cannot reach.
type State = Option<Locals>;

/// Locals per shared chunk of [`Locals`].
const CHUNK: usize = 64;

/// The state of every local, in chunks that copies share until one of them changes: a
/// copy at a branch costs one pointer per 64 locals, and a meet skips the chunks that
/// neither side changed, so many branches over many locals stay cheap.
#[derive(Clone, Debug)]
struct Locals {
    chunks: Vec<Rc<[St; CHUNK]>>,
}

impl Locals {
    fn new(states: impl Iterator<Item = St>) -> Locals {
        let states: Vec<St> = states.collect();
        let chunks = states
            .chunks(CHUNK)
            .map(|c| {
                let mut chunk = [St::Uninit; CHUNK];
                chunk[..c.len()].copy_from_slice(c);
                Rc::new(chunk)
            })
            .collect();
        Locals { chunks }
    }

    fn get(&self, i: usize) -> St {
        self.chunks[i / CHUNK][i % CHUNK]
    }

    fn set(&mut self, i: usize, value: St) {
        if self.get(i) != value {
            Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK] = value;
        }
    }
}

impl PartialEq for Locals {
    fn eq(&self, other: &Locals) -> bool {
        self.chunks
            .iter()
            .zip(&other.chunks)
            .all(|(a, b)| Rc::ptr_eq(a, b) || a == b)
    }
}

fn meet_one(x: St, y: St) -> St {
    match (x, y) {
        (St::Init, St::Init) => St::Init,
        (St::Moved(s), _) | (_, St::Moved(s)) => St::Moved(s),
        _ => St::Uninit,
    }
}

fn meet(a: &State, b: &State) -> State {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(a), Some(b)) => Some(Locals {
            chunks: a
                .chunks
                .iter()
                .zip(&b.chunks)
                .map(|(x, y)| {
                    if Rc::ptr_eq(x, y) {
                        x.clone()
                    } else {
                        Rc::new(std::array::from_fn(|i| meet_one(x[i], y[i])))
                    }
                })
                .collect(),
        }),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// The value is taken (a copy value is copied).
    Consume,
    /// The value is read in place.
    Read,
}

struct LoopCtx {
    breaks: Vec<State>,
    continues: Vec<State>,
}

struct Checker<'a> {
    locals: &'a [Local],
    /// The `out` parameters, which every return checks.
    outs: Vec<usize>,
    loops: Vec<LoopCtx>,
    diagnostics: &'a mut Vec<Diagnostic>,
    /// Variables an operation still being evaluated will read in place, and where.
    lent: Vec<(LocalId, Span)>,
}

fn check_function(f: &mut HirFunction, diagnostics: &mut Vec<Diagnostic>) {
    let locals = f.locals.clone();
    let mut state: State = Some(Locals::new(locals.iter().map(|l| match l.kind {
        LocalKind::Param(ParamMode::Out) => St::Uninit,
        LocalKind::Param(_) => St::Init,
        _ => St::Uninit,
    })));
    let outs = (0..locals.len())
        .filter(|&i| matches!(locals[i].kind, LocalKind::Param(ParamMode::Out)))
        .collect();
    let mut c = Checker {
        locals: &locals,
        outs,
        loops: Vec::new(),
        diagnostics,
        lent: Vec::new(),
    };
    c.block(&mut f.body, &mut state);
    c.outs_written(&state, f.end_span, "the end of the function");
}

impl Checker<'_> {
    fn local(&self, l: LocalId) -> &Local {
        &self.locals[l.index()]
    }

    fn outs_written(&mut self, state: &State, at: Span, what: &str) {
        let Some(s) = state else { return };
        for &i in &self.outs {
            let l = &self.locals[i];
            if s.get(i) != St::Init {
                self.diagnostics.push(
                    Diagnostic::error(
                        "D006",
                        at,
                        format!(
                            "`out` parameter `{}` is not written on every path to {what}",
                            l.name
                        ),
                    )
                    .with_secondary(l.span, "declared here")
                    .with_note(format!("`set {} = ...` before returning", l.name)),
                );
            }
        }
    }

    fn block(&mut self, b: &mut Block, st: &mut State) {
        for s in &mut b.stmts {
            self.stmt(s, st);
        }
        if let Some(s) = st {
            for l in &b.declared {
                s.set(l.index(), St::Uninit);
            }
        }
    }

    fn stmt(&mut self, s: &mut Stmt, st: &mut State) {
        let span = s.span;
        match &mut s.kind {
            StmtKind::Let { local, init } => {
                if let Some(e) = init {
                    self.expr(e, st, Use::Consume);
                }
                let value = if init.is_some() { St::Init } else { St::Uninit };
                set(st, *local, value);
            }
            StmtKind::Set { local, value } => {
                self.expr(value, st, Use::Consume);
                self.assignable(*local, span, "assign to");
                set(st, *local, St::Init);
            }
            StmtKind::SetIndex {
                local,
                index,
                value,
            } => {
                self.assignable(*local, span, "change an element of");
                self.use_local(*local, span, st, Use::Read);
                let mark = self.lend_local(*local, span);
                self.expr(index, st, Use::Consume);
                self.expr(value, st, Use::Consume);
                self.lent.truncate(mark);
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                self.expr(cond, st, Use::Read);
                let mut then_st = st.clone();
                let mut else_st = st.clone();
                self.block(then_body, &mut then_st);
                self.block(else_body, &mut else_st);
                *st = meet(&then_st, &else_st);
            }
            StmtKind::Loop {
                cond,
                body,
                head_init,
            } => {
                let entry = st.clone();
                let mut head = entry.clone();
                let mark = self.diagnostics.len();
                let (exit, final_head) = loop {
                    self.diagnostics.truncate(mark);
                    let mut s = head.clone();
                    if let Some(c) = cond {
                        self.expr(c, &mut s, Use::Read);
                    }
                    let cond_false = if cond.is_some() { s.clone() } else { None };
                    self.loops.push(LoopCtx {
                        breaks: Vec::new(),
                        continues: Vec::new(),
                    });
                    self.block(body, &mut s);
                    let ctx = self.loops.pop().expect("pushed above");
                    let back = ctx.continues.iter().fold(s, |acc, c| meet(&acc, c));
                    let new_head = meet(&entry, &back);
                    if new_head == head {
                        let exit = ctx.breaks.iter().fold(cond_false, |acc, b| meet(&acc, b));
                        break (exit, head);
                    }
                    head = new_head;
                };
                *head_init = match &final_head {
                    Some(h) => (0..self.locals.len())
                        .filter(|&i| h.get(i) == St::Init)
                        .map(|i| LocalId(i as u32))
                        .collect(),
                    None => Vec::new(),
                };
                *st = exit;
            }
            StmtKind::Block(b) => self.block(b, st),
            StmtKind::Break => {
                let here = st.take();
                if let Some(ctx) = self.loops.last_mut() {
                    ctx.breaks.push(here);
                }
            }
            StmtKind::Continue => {
                let here = st.take();
                if let Some(ctx) = self.loops.last_mut() {
                    ctx.continues.push(here);
                }
            }
            StmtKind::Ret(value) => {
                if let Some(e) = value {
                    self.expr(e, st, Use::Consume);
                }
                self.outs_written(&st.clone(), span, "this `ret`");
                *st = None;
            }
            StmtKind::Match { scrutinee, arms } => {
                // The scrutinee is consumed: a variable of an owned type is moved.
                self.expr(scrutinee, st, Use::Consume);
                let mut out: State = None;
                for arm in arms {
                    let mut arm_st = st.clone();
                    for b in arm.binders.iter().flatten() {
                        set(&mut arm_st, *b, St::Init);
                    }
                    self.block(&mut arm.body, &mut arm_st);
                    if let Some(s) = &mut arm_st {
                        for b in arm.binders.iter().flatten() {
                            s.set(b.index(), St::Uninit);
                        }
                    }
                    out = meet(&out, &arm_st);
                }
                *st = out;
            }
            StmtKind::Debuglog(e) => self.expr(e, st, Use::Read),
            StmtKind::Expr(e) => self.expr(e, st, Use::Consume),
        }
    }

    /// Reports (D003/D004) when `local` may not be changed.
    fn assignable(&mut self, local: LocalId, span: Span, what: &str) {
        let l = self.local(local);
        if l.assignable() {
            return;
        }
        let (code, why) = match l.kind {
            LocalKind::Let => (
                "D003",
                "it is declared with `let`; declare it with `var` to change it",
            ),
            LocalKind::Param(ParamMode::Ref) => {
                ("D003", "it is a `ref` parameter, which is only read")
            }
            LocalKind::For | LocalKind::ForView => (
                "D003",
                "it is the variable of a `for` loop; copy it into a `var` to change it, or walk the list `mut` to change its elements",
            ),
            _ => (
                "D003",
                "it is an `in` parameter; copy it into a `var` to change it",
            ),
        };
        let code = if what.starts_with("pass") {
            "D004"
        } else {
            code
        };
        let name = l.name.clone();
        let decl = l.span;
        self.diagnostics.push(
            Diagnostic::error(code, span, format!("cannot {what} `{name}`: {why}"))
                .with_secondary(decl, "declared here"),
        );
    }

    fn use_local(&mut self, local: LocalId, span: Span, st: &mut State, how: Use) {
        let Some(s) = st else { return };
        let l = &self.locals[local.index()];
        match s.get(local.index()) {
            St::Init => {}
            St::Moved(at) => {
                let mut d = Diagnostic::error(
                    "D001",
                    span,
                    format!("use of `{}` after it was moved", l.name),
                )
                .with_label("used here after the move")
                .with_secondary(at, "moved here");
                if at.start >= span.start {
                    d = d.with_note("the move happens in an earlier iteration of the loop");
                }
                d = d.with_note(format!(
                    "pass it `ref` to lend it, or `clone({})` to keep a copy",
                    l.name
                ));
                self.diagnostics.push(d);
                s.set(local.index(), St::Init);
            }
            St::Uninit => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "D002",
                        span,
                        format!("`{}` is used before it is initialized", l.name),
                    )
                    .with_label("not initialized on every path to here")
                    .with_secondary(l.span, "declared here"),
                );
                s.set(local.index(), St::Init);
            }
        }
        if how == Use::Consume && !l.ty.is_copy() {
            if let Some(&(_, lent_at)) = self.lent.iter().find(|(x, _)| *x == local) {
                let name = l.name.clone();
                self.diagnostics.push(
                    Diagnostic::error("D001", lent_at, format!("use of `{name}` after it was moved"))
                        .with_label("read here when the operation runs")
                        .with_secondary(span, "moved here, before that")
                        .with_note(format!(
                            "an operation reads a variable operand in place once its other operands are evaluated: pass `clone({name})` to keep a copy"
                        )),
                );
            }
            let l = &self.locals[local.index()];
            if let LocalKind::Param(mode @ (ParamMode::Ref | ParamMode::Mut)) = l.kind {
                self.diagnostics.push(
                    Diagnostic::error(
                        "D005",
                        span,
                        format!("cannot move `{}` out of a `{mode}` parameter", l.name),
                    )
                    .with_label("this would take the caller's value")
                    .with_note(format!("use `clone({})` for a copy of your own", l.name)),
                );
                return;
            }
            s.set(local.index(), St::Moved(span));
        }
    }

    fn expr(&mut self, e: &mut Expr, st: &mut State, how: Use) {
        let span = e.span;
        match &mut e.kind {
            ExprKind::Local(l) => self.use_local(*l, span, st, how),
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::None => {}
            ExprKind::List(es) | ExprKind::Tuple(es) => {
                for x in es {
                    self.expr(x, st, Use::Consume);
                }
            }
            ExprKind::Variant { args, .. } => {
                for a in args {
                    self.expr(a, st, Use::Consume);
                }
            }
            ExprKind::Try(x) => {
                // On an `err` the function returns: its `out` parameters must be written.
                self.expr(x, st, Use::Consume);
                self.outs_written(&st.clone(), span, "this `?`");
            }
            ExprKind::Some(x) | ExprKind::Data(x) | ExprKind::Unwrap(x) => {
                self.expr(x, st, Use::Consume)
            }
            ExprKind::Field(x, _)
            | ExprKind::Len(x)
            | ExprKind::IsSome(x)
            | ExprKind::Clone(x)
            | ExprKind::Neg(x)
            | ExprKind::Not(x)
            | ExprKind::Cast { value: x, .. } => self.expr(x, st, Use::Read),
            ExprKind::Index(base, index) => {
                self.expr(base, st, Use::Read);
                let mark = self.lend(base);
                self.expr(index, st, Use::Consume);
                self.lent.truncate(mark);
            }
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) | ExprKind::Concat(a, b) => {
                self.expr(a, st, Use::Read);
                let mark = self.lend(a);
                self.expr(b, st, Use::Read);
                self.lent.truncate(mark);
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.expr(a, st, Use::Read);
                let mut rhs = st.clone();
                self.expr(b, &mut rhs, Use::Read);
                *st = meet(st, &rhs);
            }
            ExprKind::Push { list, value } => {
                let list = *list;
                self.assignable_arg(list, span, ParamMode::Mut);
                self.use_local(list, span, st, Use::Read);
                let mark = self.lend_local(list, span);
                self.expr(value, st, Use::Consume);
                self.lent.truncate(mark);
            }
            ExprKind::Call { args, .. } => {
                for (i, a) in args.iter().enumerate() {
                    if !matches!(a.mode, ParamMode::Mut | ParamMode::Out) {
                        continue;
                    }
                    let Some(l) = a.value.kind.as_local() else {
                        continue;
                    };
                    for (j, b) in args.iter().enumerate() {
                        if i != j
                            && b.value.kind.as_local() == Some(l)
                            && (j > i || !matches!(b.mode, ParamMode::Mut | ParamMode::Out))
                        {
                            self.alias(l, b.span, a.span);
                        }
                    }
                }
                let mut outs = Vec::new();
                let mark = self.lent.len();
                for a in args.iter_mut() {
                    match a.mode {
                        ParamMode::In => self.expr(&mut a.value, st, Use::Consume),
                        ParamMode::Ref => {
                            self.expr(&mut a.value, st, Use::Read);
                            self.lend(&a.value);
                        }
                        ParamMode::Mut => {
                            if let Some(l) = a.value.kind.as_local() {
                                self.assignable_arg(l, a.span, ParamMode::Mut);
                                self.use_local(l, a.value.span, st, Use::Read);
                                self.lend_local(l, a.value.span);
                            }
                        }
                        ParamMode::Out => {
                            if let Some(l) = a.value.kind.as_local() {
                                self.assignable_arg(l, a.span, ParamMode::Out);
                                outs.push(l);
                            }
                        }
                    }
                }
                self.lent.truncate(mark);
                for l in outs {
                    set(st, l, St::Init);
                }
            }
        }
    }

    /// Lends `e` to the operation being evaluated when it is a variable of an owned type
    /// (read in place when the operation runs); returns the mark to truncate back to.
    fn lend(&mut self, e: &Expr) -> usize {
        let mark = self.lent.len();
        if let Some(l) = e.kind.as_local() {
            self.lend_local(l, e.span);
        }
        mark
    }

    fn lend_local(&mut self, local: LocalId, span: Span) -> usize {
        let mark = self.lent.len();
        if !self.local(local).ty.is_copy() {
            self.lent.push((local, span));
        }
        mark
    }

    /// D004: `mut`/`out` on what is not a `var` (and `out` on a `mut` parameter, which
    /// must stay initialized even if the call fails).
    fn assignable_arg(&mut self, local: LocalId, span: Span, mode: ParamMode) {
        let l = self.local(local);
        if mode == ParamMode::Out && matches!(l.kind, LocalKind::Param(ParamMode::Mut)) {
            let (name, decl) = (l.name.clone(), l.span);
            self.diagnostics.push(
                Diagnostic::error(
                    "D004",
                    span,
                    format!("cannot pass `mut` parameter `{name}` as `out`"),
                )
                .with_label("`out` would leave it empty if the call failed")
                .with_secondary(decl, "declared here")
                .with_note("pass it `mut`, or write into a `var` and `set` it"),
            );
            return;
        }
        self.assignable(local, span, &format!("pass as `{mode}`"));
    }

    fn alias(&mut self, local: LocalId, other: Span, exclusive: Span) {
        let name = self.local(local).name.clone();
        self.diagnostics.push(
            Diagnostic::error(
                "D010",
                other,
                format!("`{name}` is passed as `mut`/`out` and again in the same call"),
            )
            .with_label("second use of the same value")
            .with_secondary(exclusive, "passed for changing here")
            .with_note(format!("a value passed `mut` or `out` may be the call's only view of it: pass `clone({name})` or use a second variable")),
        );
    }
}

fn set(st: &mut State, local: LocalId, value: St) {
    if let Some(s) = st {
        s.set(local.index(), value);
    }
}
