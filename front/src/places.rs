//! What the type checker expands into the statements every later pass already knows:
//! `for` loops, and `set` of a part of a variable (`set t.0 = v`, `set m[i][j] = v`).
//!
//! A `for` loop becomes a block that holds its hidden counters (named with a `#`, which
//! no source name can contain) and a `loop while` over them:
//!
//! ```text
//! for i in a..b          { var next = a; let stop = b
//!   body                   loop while next < stop
//! end for                    let i = next; set next = next + 1; body  end loop }
//! ```
//!
//! A list loop walks the indices `0..len(xs)` (the length as the loop starts) the same
//! way, with the element `xs[k]` as the loop variable: a `let` copy for `for x in xs`
//! (the list is moved into the loop's block first) and `for x in ref xs`; for
//! `for x in mut xs` the variable is the element itself, a [`Place`]: reading it reads
//! `xs[k]`, `set x = v` is `set xs[k] = v`.
//!
//! `set` of a part writes the part's container back: `set m[i][j] = v` is
//! `{ let i' = i; let j' = j; var row = m[i']; set row[j'] = v; set m[i'] = row }`, and a
//! tuple field is written by setting the tuple whole: `set t = (v, t.1)`.

use super::*;

/// One step from a value to a part of it.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// The element at the index this local holds.
    Index(LocalId),
    /// A tuple's field.
    Field(u32),
}

/// A part of a variable: `base`, then `steps`, each with the type it reaches.
#[derive(Clone, Debug)]
pub(super) struct Place {
    pub base: LocalId,
    pub steps: Vec<(Step, IrType)>,
}

impl Place {
    fn ty<'p>(&'p self, locals: &'p [Local]) -> &'p IrType {
        self.steps
            .last()
            .map_or(&locals[self.base.index()].ty, |(_, t)| t)
    }
}

impl FnChecker<'_> {
    /// A local no source name can reach.
    fn hidden(&mut self, what: &str, ty: IrType, kind: LocalKind, span: Span) -> LocalId {
        let name = ast::Ident {
            name: format!("{what}#{}", self.locals.len()),
            span,
        };
        self.declare(&name, ty, kind)
    }

    fn local_expr(&self, l: LocalId, span: Span) -> Expr {
        self.mk(ExprKind::Local(l), self.locals[l.index()].ty.clone(), span)
    }

    /// Reads `place` (a copy, or a clone of an owned part).
    pub(super) fn place_expr(&self, place: &Place, span: Span) -> Expr {
        let mut e = self.local_expr(place.base, span);
        for (step, ty) in &place.steps {
            let kind = match step {
                Step::Index(k) => ExprKind::Index(Box::new(e), Box::new(self.local_expr(*k, span))),
                Step::Field(n) => ExprKind::Field(Box::new(e), *n),
            };
            e = self.mk(kind, ty.clone(), span);
        }
        e
    }

    /// The locals of the scope just closed that are dropped at its end: not parameters,
    /// not the places a `for ... in mut` variable names.
    pub(super) fn owned_locals(&self, closed: Vec<LocalId>) -> Vec<LocalId> {
        closed
            .into_iter()
            .filter(|l| {
                !matches!(self.locals[l.index()].kind, LocalKind::Param(_))
                    && !self.places.contains_key(l)
            })
            .collect()
    }

    /// Runs `f` in a scope of its own and returns what it made as a block statement.
    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Vec<Stmt>) -> StmtKind {
        self.scopes.push(Vec::new());
        let stmts = f(self);
        let closed = self.pop_scope();
        StmtKind::Block(Block {
            stmts,
            declared: self.owned_locals(closed),
        })
    }

    /// The name of the record whose field the last step of `place` is, if it is one.
    fn set_record(&self, place: &Place) -> Option<String> {
        let container = match place.steps.len() {
            0 => return None,
            1 => &self.locals[place.base.index()].ty,
            n => &place.steps[n - 2].1,
        };
        match self.shallow(container) {
            IrType::Record(record) => Some(record.name.clone()),
            _ => None,
        }
    }

    /// The statements that write `value` over the part `steps` of `base`.
    fn assign(
        &mut self,
        base: LocalId,
        steps: &[(Step, IrType)],
        value: Expr,
        span: Span,
    ) -> Vec<Stmt> {
        let stmt = |kind| Stmt { kind, span };
        match steps {
            [] => vec![stmt(StmtKind::Set { local: base, value })],
            [(Step::Index(k), _)] => {
                let index = self.local_expr(*k, span);
                vec![stmt(StmtKind::SetIndex {
                    local: base,
                    index,
                    value,
                })]
            }
            [(Step::Field(n), _)] => {
                let tuple_ty = self.shallow(&self.locals[base.index()].ty.clone());
                let fields = tuple_ty
                    .fields()
                    .expect("a field step is taken only from a tuple or record")
                    .to_vec();
                let mut value = Some(value);
                let elems = fields
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| {
                        if i == *n as usize {
                            value.take().expect("one field is set")
                        } else {
                            let whole = self.local_expr(base, span);
                            self.mk(ExprKind::Field(Box::new(whole), i as u32), ty.clone(), span)
                        }
                    })
                    .collect();
                let tuple = self.mk(ExprKind::Tuple(elems), tuple_ty, span);
                vec![stmt(StmtKind::Set {
                    local: base,
                    value: tuple,
                })]
            }
            [first, rest @ ..] => {
                let part = self.hidden("part", first.1.clone(), LocalKind::Var, span);
                let read = self.place_expr(
                    &Place {
                        base,
                        steps: vec![first.clone()],
                    },
                    span,
                );
                let mut out = vec![stmt(StmtKind::Let {
                    local: part,
                    init: Some(read),
                })];
                out.extend(self.assign(part, rest, value, span));
                let back = self.local_expr(part, span);
                out.extend(self.assign(base, std::slice::from_ref(first), back, span));
                out
            }
        }
    }

    /// `set TARGET PATH = value`: the variable (or `for ... in mut` element) `target`,
    /// then each index or field of `path`.
    pub(super) fn set_place(
        &mut self,
        target: &ast::Ident,
        path: &[ast::SetStep],
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtKind> {
        let Some(local) = self.lookup_local(target) else {
            for step in path {
                if let ast::SetStep::Index(e) = step {
                    self.expr(e, None);
                }
            }
            self.expr(value, None);
            self.finish_stmt();
            return None;
        };
        let place = self.places.get(&local).cloned().unwrap_or(Place {
            base: local,
            steps: Vec::new(),
        });
        if path.is_empty() && place.steps.is_empty() {
            let ty = self.locals[local.index()].ty.clone();
            let value = self.expr_coerce(value, &ty);
            self.finish_stmt();
            return Some(StmtKind::Set { local, value });
        }
        Some(self.scoped(|c| {
            let mut stmts = Vec::new();
            let mut place = place;
            let mut ok = true;
            for step in path {
                let container = c.shallow(&place.ty(&c.locals).clone());
                match (step, container) {
                    (ast::SetStep::Index(e), IrType::List(elem)) => {
                        let index = c.expr_coerce(e, &IrType::Index);
                        let k = c.hidden("index", IrType::Index, LocalKind::Let, e.span);
                        stmts.push(Stmt {
                            kind: StmtKind::Let {
                                local: k,
                                init: Some(index),
                            },
                            span: e.span,
                        });
                        place.steps.push((Step::Index(k), *elem));
                    }
                    (ast::SetStep::Named(field), container) => {
                        match c.record_field(&container, field) {
                            Some((index, fty)) => {
                                place.steps.push((Step::Field(index as u32), fty));
                            }
                            None => {
                                ok = false;
                                break;
                            }
                        }
                    }
                    (ast::SetStep::Field(n, _), IrType::Tuple(fields))
                        if (*n as usize) < fields.len() =>
                    {
                        place
                            .steps
                            .push((Step::Field(*n), fields[*n as usize].clone()));
                    }
                    (step, other) => {
                        if let Some(t) = c.show_unless_poisoned(&other) {
                            let d = match step {
                                ast::SetStep::Index(e) => {
                                    c.expr(e, None);
                                    Diagnostic::error(
                                        "T007",
                                        e.span,
                                        format!("this is {t}, not a list"),
                                    )
                                }
                                ast::SetStep::Named(_) => unreachable!("matched above"),
                                ast::SetStep::Field(n, at) => {
                                    let d = Diagnostic::error(
                                        "T008",
                                        *at,
                                        format!("{t} has no field {n}"),
                                    );
                                    match &other {
                                        IrType::Tuple(fs) => d.with_help(fields_help(fs.len())),
                                        _ => d,
                                    }
                                }
                            };
                            c.diagnostics.push(d);
                        }
                        ok = false;
                        break;
                    }
                }
            }
            let want = place.ty(&c.locals).clone();
            let value = match (ok, path.last(), c.set_record(&place)) {
                (true, Some(ast::SetStep::Named(field)), Some(record)) => {
                    c.field_coerce(value, &want, &record, &field.name)
                }
                (true, ..) => c.expr_coerce(value, &want),
                _ => c.expr(value, None),
            };
            c.finish_stmt();
            if ok {
                let steps = place.steps.clone();
                stmts.extend(c.assign(place.base, &steps, value, span));
            }
            stmts
        }))
    }

    /// `for NAME in SOURCE ... end for`.
    pub(super) fn for_loop(
        &mut self,
        name: &ast::Ident,
        source: &ast::ForSource,
        body: &[ast::Stmt],
        span: Span,
    ) -> StmtKind {
        self.scoped(|c| c.for_block(name, source, body, span))
    }

    fn for_block(
        &mut self,
        name: &ast::Ident,
        source: &ast::ForSource,
        body: &[ast::Stmt],
        span: Span,
    ) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let at = name.span;
        let stmt = |kind, span| Stmt { kind, span };
        // What the loop walks: the range's bounds, or the list's place and element type.
        let (start, stop, list) = match source {
            ast::ForSource::Range(a, b) => {
                let start = self.expr(a, None);
                let stop = self.expr_coerce(b, &start.ty);
                self.obligations.push(Obligation::Arith {
                    ty: start.ty.clone(),
                    op: "..",
                    need: Need::Integer,
                    span: a.span.to(b.span),
                });
                self.finish_stmt();
                (start, stop, None)
            }
            ast::ForSource::List { mode, list } => {
                let Some(place) = self.for_list(*mode, list, &mut stmts) else {
                    self.finish_stmt();
                    return stmts;
                };
                let list_ty = self.shallow(&place.ty(&self.locals).clone());
                let elem = match list_ty {
                    IrType::List(elem) => *elem,
                    other => {
                        if let Some(t) = self.show_unless_poisoned(&other) {
                            self.error(
                                "T007",
                                list.span,
                                format!("`for` walks a list or a range `a..b`, not {t}"),
                            );
                        }
                        self.finish_stmt();
                        return stmts;
                    }
                };
                let whole = self.place_expr(&place, list.span);
                let len = self.mk(ExprKind::Len(Box::new(whole)), IrType::Index, list.span);
                let zero = self.mk(ExprKind::Int(0), IrType::Index, list.span);
                self.finish_stmt();
                (zero, len, Some((*mode, place, elem)))
            }
        };
        let ty = start.ty.clone();
        let source_span = start.span.to(stop.span);
        let next = self.hidden("next", ty.clone(), LocalKind::Var, at);
        let end = self.hidden("stop", ty.clone(), LocalKind::Let, at);
        stmts.push(stmt(
            StmtKind::Let {
                local: next,
                init: Some(start),
            },
            source_span,
        ));
        stmts.push(stmt(
            StmtKind::Let {
                local: end,
                init: Some(stop),
            },
            source_span,
        ));
        let cond = self.mk(
            ExprKind::Compare(
                CompareOp::Lt,
                Box::new(self.local_expr(next, at)),
                Box::new(self.local_expr(end, at)),
            ),
            IrType::Bool,
            at,
        );

        self.scopes.push(Vec::new());
        self.loop_depth += 1;
        let mut inner = Vec::new();
        let current = match &list {
            None => self.declare(name, ty.clone(), LocalKind::For),
            Some(_) => self.hidden("index", ty.clone(), LocalKind::Let, at),
        };
        inner.push(stmt(
            StmtKind::Let {
                local: current,
                init: Some(self.local_expr(next, at)),
            },
            at,
        ));
        let one = self.mk(ExprKind::Int(1), ty.clone(), at);
        let step = self.mk(
            ExprKind::Binary(
                BinaryOp::Add,
                Box::new(self.local_expr(next, at)),
                Box::new(one),
            ),
            ty,
            at,
        );
        inner.push(stmt(
            StmtKind::Set {
                local: next,
                value: step,
            },
            at,
        ));
        // The variable of a `ref` or moving loop over a list, and the list's own local.
        let mut element_of = None;
        if let Some((mode, place, elem)) = list {
            let base = place.base;
            let whole_local = place.steps.is_empty();
            let mut element = place;
            element.steps.push((Step::Index(current), elem.clone()));
            if mode == ParamMode::Mut {
                let x = self.declare(name, elem, LocalKind::Var);
                self.places.insert(x, element);
            } else {
                let read = self.place_expr(&element, at);
                let owned = !elem.is_copy();
                let x = self.declare(name, elem, LocalKind::For);
                inner.push(stmt(
                    StmtKind::Let {
                        local: x,
                        init: Some(read),
                    },
                    at,
                ));
                if owned && whole_local {
                    element_of = Some((x, base));
                }
            }
        }
        let body_from = inner.len();
        for s in body {
            if let Some(s) = self.stmt(s) {
                inner.push(s);
            }
        }
        // A body that never names the list cannot change it: the variable is then a view
        // of each element, not a clone (a hidden list, which no body can name, always).
        if let Some((x, list)) = element_of {
            if !inner[body_from..].iter().any(|s| s.mentions(list)) {
                self.locals[x.index()].kind = LocalKind::ForView;
            }
        }
        self.loop_depth -= 1;
        let closed = self.pop_scope();
        let body = Block {
            stmts: inner,
            declared: self.owned_locals(closed),
        };
        stmts.push(stmt(
            StmtKind::Loop {
                cond: Some(cond),
                body,
                head_init: Vec::new(),
            },
            span,
        ));
        stmts
    }

    /// The place a list loop walks; a list that is not walked in place is first moved
    /// (or, for `ref`, evaluated) into a hidden `let` of the loop's block.
    fn for_list(
        &mut self,
        mode: ParamMode,
        list: &ast::Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Option<Place> {
        let named = match &list.kind {
            A::Name(n) => self.lookup(n),
            _ => None,
        };
        match (mode, named) {
            (ParamMode::Mut, Some(l)) => {
                let place = self.places.get(&l).cloned().unwrap_or(Place {
                    base: l,
                    steps: Vec::new(),
                });
                let base = &self.locals[place.base.index()];
                if !base.assignable() {
                    let why = match base.kind {
                        LocalKind::Param(ParamMode::Ref) => {
                            "it is a `ref` parameter, which is only read"
                        }
                        LocalKind::Param(_) => {
                            "it is an `in` parameter; copy it into a `var` to change it"
                        }
                        LocalKind::For | LocalKind::ForView => {
                            "it is the variable of a `for` loop; copy it into a `var` to change it"
                        }
                        _ => "it is declared with `let`; declare it with `var` to change it",
                    };
                    let d = Diagnostic::error(
                        "D004",
                        list.span,
                        format!("cannot walk `{}` as `mut`: {why}", base.name),
                    )
                    .with_secondary(base.span, "declared here")
                    .with_help(format!(
                        "walk it `ref` to read it: `for ... in ref {}`",
                        base.name
                    ));
                    self.diagnostics.push(d);
                    return None;
                }
                Some(place)
            }
            (ParamMode::Mut, None) => {
                if let A::Name(n) = &list.kind {
                    self.lookup_local(&ast::Ident {
                        name: n.clone(),
                        span: list.span,
                    });
                    return None;
                }
                self.diagnostics.push(
                    Diagnostic::error(
                        "F009",
                        list.span,
                        "a `for ... in mut` loop walks a variable",
                    )
                    .with_label("not a variable")
                    .with_help("put the list in a `var` first, or walk it `ref`"),
                );
                self.expr(list, None);
                None
            }
            (ParamMode::In, Some(l))
                if matches!(
                    self.locals[l.index()].kind,
                    LocalKind::Param(ParamMode::Ref | ParamMode::Mut)
                ) =>
            {
                // Moving a borrowed list into the loop: say how to walk it instead.
                let param = &self.locals[l.index()];
                let LocalKind::Param(mode) = param.kind else {
                    unreachable!("matched above");
                };
                let d = Diagnostic::error(
                    "D005",
                    list.span,
                    format!("cannot move `{}` out of a `{mode}` parameter", param.name),
                )
                .with_label("`for x in xs` moves the list into the loop")
                .with_secondary(param.span, "declared here")
                .with_help(format!(
                    "walk it without moving it: `for ... in ref {}`{}",
                    param.name,
                    if mode == ParamMode::Mut {
                        format!(", or `for ... in mut {}` to change it", param.name)
                    } else {
                        String::new()
                    }
                ));
                self.diagnostics.push(d);
                None
            }
            (ParamMode::Ref, Some(l)) if !self.places.contains_key(&l) => Some(Place {
                base: l,
                steps: Vec::new(),
            }),
            (ParamMode::In | ParamMode::Ref, _) => {
                let value = self.expr(list, None);
                let kind = if mode == ParamMode::Ref {
                    "ref list"
                } else {
                    "list"
                };
                let l = self.hidden(kind, value.ty.clone(), LocalKind::Let, list.span);
                stmts.push(Stmt {
                    kind: StmtKind::Let {
                        local: l,
                        init: Some(value),
                    },
                    span: list.span,
                });
                Some(Place {
                    base: l,
                    steps: Vec::new(),
                })
            }
            (ParamMode::Out, _) => unreachable!("the parser refuses `for ... in out`"),
        }
    }
}
