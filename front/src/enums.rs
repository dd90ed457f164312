//! Enums in the type checker: variant construction (`Shape.Circle(1.5)`, `Shape.Empty`),
//! `match` with its exhaustiveness check, and `e?` (the `E` codes).

use super::*;

impl FnChecker<'_> {
    /// The enum type `name` names in this file, if it is one.
    fn enum_named(&self, name: &str) -> Option<IrType> {
        match self.resolved.record_scopes[self.file].get(name) {
            Some(ty @ IrType::Enum(_)) => Some(ty.clone()),
            _ => None,
        }
    }

    /// Whether `Name.x` (with `Name` not a variable) names an enum's variant.
    pub(super) fn is_enum_path(&self, base: &ast::Expr) -> bool {
        match &base.kind {
            A::Name(n) => self.lookup(n).is_none() && self.enum_named(n).is_some(),
            _ => false,
        }
    }

    /// `Shape.Circle(1.5)`, or `Shape.Empty` (`args` `None`): variant `variant` of the
    /// enum `enum_name`, each payload field checked against its declared type. A generic
    /// enum's instance comes from the expected type (`let r: result[i64, string] =
    /// result.ok(5)`).
    pub(super) fn variant(
        &mut self,
        enum_name: &ast::Ident,
        variant: &ast::Ident,
        args: Option<&[ast::Expr]>,
        expected: Option<&IrType>,
        span: Span,
    ) -> Expr {
        let given = args.unwrap_or(&[]);
        let fail = |this: &mut Self| {
            for a in given {
                this.expr(a, None);
            }
            let ty = this.error_ty();
            this.mk(ExprKind::Unit, ty, span)
        };
        let Some(mut ty) = self.enum_named(&enum_name.name) else {
            let mut d = Diagnostic::error(
                "E001",
                enum_name.span,
                format!("no enum `{}`", enum_name.name),
            )
            .with_label("not an enum type");
            let enums = self.resolved.record_scopes[self.file]
                .iter()
                .filter(|(_, t)| matches!(t, IrType::Enum(_)))
                .map(|(n, _)| n.as_str());
            if let Some(near) = suggest::similar(&enum_name.name, enums) {
                d = d.with_help(format!("an enum with a similar name exists: `{near}`"));
            }
            self.diagnostics.push(d);
            return fail(self);
        };
        if ty.mentions_param() {
            // A generic enum: its instance is the one expected.
            let instance = |e: &EnumType| e.name == enum_name.name && !e.args.is_empty();
            match expected.map(|t| self.resolve(t)) {
                Some(IrType::Enum(e)) if instance(&e) => ty = IrType::Enum(e),
                _ => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E009",
                            span,
                            format!(
                                "which `{}` this builds is not known here",
                                enum_name.name
                            ),
                        )
                        .with_label("needs an expected type")
                        .with_help(format!(
                            "give it one: `let r: {}[...] = ...`, an argument, or a `ret` of a function returning one",
                            enum_name.name
                        )),
                    );
                    return fail(self);
                }
            }
        }
        let IrType::Enum(e) = &ty else {
            unreachable!("enum_named gives enums")
        };
        let Some(index) = e.variant_index(&variant.name) else {
            self.unknown_variant(e, variant);
            return fail(self);
        };
        let payload = e.variant_fields(index);
        if given.len() != payload.len() || (args.is_none() && !payload.is_empty()) {
            self.payload_count(e, index, given.len(), variant.span, "a construction");
            return fail(self);
        }
        let what = format!("{}.{}", e.name, variant.name);
        let args = given
            .iter()
            .zip(&payload)
            .enumerate()
            .map(|(i, (a, t))| self.payload_coerce(a, t, &what, i))
            .collect();
        self.mk(
            ExprKind::Variant {
                variant: index as u32,
                args,
            },
            ty,
            span,
        )
    }

    /// Checks payload field `index` of variant `what` against its type: a mismatch is
    /// `E010`.
    fn payload_coerce(
        &mut self,
        value: &ast::Expr,
        expected: &IrType,
        what: &str,
        index: usize,
    ) -> Expr {
        self.part_coerce(value, expected, "E010", |want, got| {
            format!("payload field {index} of `{what}` is {want}, found {got}")
        })
    }

    /// E001: `e` has no variant `variant`.
    fn unknown_variant(&mut self, e: &EnumType, variant: &ast::Ident) {
        let mut d = Diagnostic::error(
            "E001",
            variant.span,
            format!("enum `{}` has no variant `{}`", e.name, variant.name),
        )
        .with_label("no such variant");
        if let Some(near) =
            suggest::similar(&variant.name, e.variant_names.iter().map(String::as_str))
        {
            d = d.with_help(format!("a variant with a similar name exists: `{near}`"));
        }
        self.diagnostics.push(d.with_note(format!(
            "its variants: {}",
            e.variant_names
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }

    /// E002: variant `index` of `e` carries another number of fields than `found`.
    fn payload_count(&mut self, e: &EnumType, index: usize, found: usize, at: Span, what: &str) {
        let want = e.declared_variants[index].len();
        let name = &e.variant_names[index];
        let written = if want == 0 {
            format!("`{name}`")
        } else {
            let blanks = vec!["_"; want].join(", ");
            format!("`{name}({blanks})`")
        };
        self.diagnostics.push(
            Diagnostic::error(
                "E002",
                at,
                format!(
                    "variant `{name}` of `{}` carries {want} field{}, {what} gives {found}",
                    e.name,
                    if want == 1 { "" } else { "s" }
                ),
            )
            .with_label("wrong number of payload fields")
            .with_help(format!("write it as {written}")),
        );
    }

    /// `match e` ... `end match`: the scrutinee must be an enum; every arm names a
    /// variant of it once (or is the last, `_`), binding each payload field, and the
    /// arms together cover every variant.
    pub(super) fn match_stmt(&mut self, scrutinee: &ast::Expr, arms: &[ast::MatchArm]) -> StmtKind {
        let scrutinee = self.expr(scrutinee, None);
        self.finish_stmt();
        let ty = self.resolve(&scrutinee.ty);
        let e = match &ty {
            IrType::Enum(e) => Some((**e).clone()),
            _ => {
                if !self.poisoned_or_error(&ty) {
                    let t = self.show(&ty);
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E006",
                            scrutinee.span,
                            format!("`match` takes an enum, found {t}"),
                        )
                        .with_label(format!("this is {t}")),
                    );
                }
                None
            }
        };
        let mut covered: Vec<Option<Span>> =
            vec![None; e.as_ref().map_or(0, |e| e.variant_count())];
        let mut wildcard: Option<Span> = None;
        let mut out = Vec::new();
        for arm in arms {
            let at = match &arm.pattern {
                ast::Pattern::Wildcard(s) => *s,
                ast::Pattern::Variant { name, .. } => name.span,
            };
            if let Some(first) = wildcard {
                self.diagnostics.push(
                    Diagnostic::error("E004", at, "this arm can never run")
                        .with_label("unreachable arm")
                        .with_secondary(first, "`case _` above takes every other variant"),
                );
            }
            self.scopes.push(Vec::new());
            let mut binders = Vec::new();
            let mut variant = None;
            match (&arm.pattern, &e) {
                (ast::Pattern::Wildcard(s), Some(e)) => {
                    if wildcard.is_none() && covered.iter().all(Option::is_some) {
                        self.diagnostics.push(
                            Diagnostic::error("E004", *s, "this arm can never run")
                                .with_label("every variant is matched above")
                                .with_note(format!("`{}` has no other variant", e.name)),
                        );
                    }
                    wildcard = wildcard.or(Some(*s));
                }
                (ast::Pattern::Wildcard(_), None) => {}
                (
                    ast::Pattern::Variant {
                        name,
                        binders: names,
                    },
                    Some(e),
                ) => {
                    match e.variant_index(&name.name) {
                        None => self.unknown_variant(e, name),
                        Some(index) => {
                            if let Some(first) = covered[index] {
                                self.diagnostics.push(
                                    Diagnostic::error(
                                        "E004",
                                        name.span,
                                        format!("variant `{}` is matched twice", name.name),
                                    )
                                    .with_label("this arm can never run")
                                    .with_secondary(first, "first matched here"),
                                );
                            }
                            covered[index] = covered[index].or(Some(name.span));
                            if names.len() != e.declared_variants[index].len() {
                                self.payload_count(
                                    e,
                                    index,
                                    names.len(),
                                    name.span,
                                    "this pattern",
                                );
                                // Declared anyway, so that the arm's uses are not
                                // reported as unknown names.
                                for b in names.iter().filter(|b| b.name != "_") {
                                    let ty = self.error_ty();
                                    self.declare(b, ty, LocalKind::Let);
                                }
                            } else {
                                variant = Some(index as u32);
                                for (b, t) in names.iter().zip(&e.variant_fields(index)) {
                                    binders.push(
                                        (b.name != "_")
                                            .then(|| self.declare(b, t.clone(), LocalKind::Let)),
                                    );
                                }
                            }
                        }
                    }
                }
                (ast::Pattern::Variant { .. }, None) => {}
            }
            let body = self.block(&arm.body, false);
            self.pop_scope();
            // An arm that failed to check keeps its body checked but is left out.
            let keep = match &arm.pattern {
                ast::Pattern::Wildcard(_) => true,
                ast::Pattern::Variant { .. } => variant.is_some(),
            };
            if keep {
                out.push(MatchArm {
                    variant,
                    binders,
                    body,
                    span: arm.span,
                });
            }
        }
        if let (Some(e), None) = (&e, wildcard) {
            let missing: Vec<String> = covered
                .iter()
                .enumerate()
                .filter(|(_, c)| c.is_none())
                .map(|(i, _)| format!("`{}`", e.variant_names[i]))
                .collect();
            if !missing.is_empty() {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E003",
                        scrutinee.span,
                        format!(
                            "this `match` does not handle {} of `{}`",
                            missing.join(", "),
                            e.name
                        ),
                    )
                    .with_label("not every variant is matched")
                    .with_help("add an arm for each (`case V(...)`), or `case _` for the rest"),
                );
            }
        }
        StmtKind::Match {
            scrutinee,
            arms: out,
        }
    }

    /// `e?`: `e` is an enum of variants `ok(T)` and `err(E)` and the function returns
    /// such an enum with the same `E`; the value is the `ok` payload, a `T`.
    pub(super) fn try_expr(&mut self, value: &ast::Expr, span: Span) -> Expr {
        let value = self.expr(value, None);
        let ty = self.resolve(&value.ty);
        let result = self.sig.result.clone();
        let fail = |this: &mut Self, d: Diagnostic| {
            this.diagnostics.push(d);
            let ty = this.error_ty();
            this.mk(ExprKind::Unit, ty, span)
        };
        if self.poisoned_or_error(&ty) {
            let ty = self.error_ty();
            return self.mk(ExprKind::Unit, ty, span);
        }
        let Some((ok, err)) = ok_err(&ty) else {
            let t = self.show(&ty);
            let d = Diagnostic::error("E007", value.span, format!("`?` takes a result, found {t}"))
                .with_label(format!("this is {t}"))
                .with_note("`?` works on an enum whose variants are `ok(T)` and `err(E)`, such as the standard `result`");
            return fail(self, d);
        };
        let Some((_, result_err)) = ok_err(&result) else {
            let shown = self.show(&result);
            let d = Diagnostic::error(
                "E007",
                span,
                "`?` outside a function that returns a result",
            )
            .with_label(format!("the function returns {shown}"))
            .with_note("on an `err`, `?` returns it to the caller, so the function must return a result with the same error type");
            return fail(self, d);
        };
        if result_err != err {
            let (want, got) = (self.show(&result_err), self.show(&err));
            let d = Diagnostic::error(
                "E007",
                span,
                format!(
                    "`?` passes on an error of type {got}, but the function's errors are {want}"
                ),
            )
            .with_label("error types differ");
            return fail(self, d);
        }
        self.mk(ExprKind::Try(Box::new(value)), ok, span)
    }
}

/// The `ok` and `err` payload types of an enum whose variants are exactly `ok(T)` and
/// `err(E)` (the standard `result` at any instance).
pub(super) fn ok_err(ty: &IrType) -> Option<(IrType, IrType)> {
    let IrType::Enum(e) = ty else { return None };
    match (&e.variant_names[..], &e.all_variant_fields()[..]) {
        ([ok, err], [o, r]) if ok == "ok" && err == "err" && o.len() == 1 && r.len() == 1 => {
            Some((o[0].clone(), r[0].clone()))
        }
        _ => None,
    }
}
