//! The type checker's side of `format` (see [`crate::format`]): the template's pieces
//! become string literals, each value the call of the conversion function for its type,
//! and the whole a chain of `++`.

use super::*;
use crate::format::{self, Piece};

/// What writes a value of some type.
enum Writer {
    /// A string is its own text.
    Itself,
    /// `fixedint.to_string`, from the value converted to this type first (an `index`
    /// is written as the `u64` it is).
    Int(Option<IrType>),
    Float,
    /// Any other value: `describe.to_string`, the runtime's formatter (what `debuglog`
    /// writes).
    Any,
}

impl FnChecker<'_> {
    /// `format(TEMPLATE, values...)`.
    pub(super) fn format_call(&mut self, args: &[ast::Arg], span: Span) -> Expr {
        let Some((first, values)) = args.split_first() else {
            self.diagnostics.push(
                Diagnostic::error("F012", span, "`format` needs a template string")
                    .with_help("write `format(\"n = {}\", n)`"),
            );
            return self.bad_call(args, span);
        };
        let A::Str(template) = &first.value.kind else {
            self.diagnostics.push(
                Diagnostic::error(
                    "F012",
                    first.value.span,
                    "the template of `format` is a string literal",
                )
                .with_label("not a string literal")
                .with_help("to join strings computed at run time, use `++`"),
            );
            return self.bad_call(args, span);
        };
        for arg in args {
            if arg.mode != ParamMode::In {
                self.mode_error(format::FORMAT, "values", ParamMode::In, arg);
            }
        }
        let pieces = match format::pieces(template) {
            Ok(p) => p,
            Err((_, why)) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "F012",
                        first.value.span,
                        format!("malformed template: {why}"),
                    )
                    .with_label("in this template"),
                );
                return self.bad_call(values, span);
            }
        };
        let holes = pieces
            .iter()
            .filter(|p| !matches!(p, Piece::Text(_)))
            .count();
        if holes != values.len() {
            let s = |n: usize| if n == 1 { "" } else { "s" };
            self.diagnostics.push(
                Diagnostic::error(
                    "F012",
                    span,
                    format!(
                        "the template has {holes} placeholder{}, but {} value{} {} given",
                        s(holes),
                        values.len(),
                        s(values.len()),
                        if values.len() == 1 { "is" } else { "are" }
                    ),
                )
                .with_secondary(first.value.span, "the template"),
            );
            return self.bad_call(values, span);
        }
        let mut values = values.iter();
        let mut whole: Option<Expr> = None;
        for piece in pieces {
            let part = match piece {
                Piece::Text(t) => self.mk(ExprKind::Str(t), IrType::String, first.value.span),
                Piece::Value | Piece::Fixed(_) => {
                    let arg = values.next().expect("as many values as placeholders");
                    let value = self.expr(&arg.value, None);
                    self.format_value(value, &piece)
                }
            };
            whole = Some(match whole {
                None => part,
                Some(left) => self.mk(
                    ExprKind::Concat(Box::new(left), Box::new(part)),
                    IrType::String,
                    span,
                ),
            });
        }
        match whole {
            Some(mut e) => {
                e.span = span;
                e
            }
            None => self.mk(ExprKind::Str(String::new()), IrType::String, span),
        }
    }

    /// The text of `value` for `piece`.
    fn format_value(&mut self, value: Expr, piece: &Piece) -> Expr {
        let at = value.span;
        let ty = self.shallow(&value.ty);
        let var_kind = Self::var_of(&ty).map(|v| self.vars[v].kind);
        let writer = match (&ty, var_kind) {
            _ if self.poisoned_or_error(&ty) => return value,
            (IrType::String, _) => Some(Writer::Itself),
            (IrType::Index, _) => Some(Writer::Int(Some(IrType::U64))),
            (t, _) if t.is_integer() => Some(Writer::Int(None)),
            (t, _) if t.is_float() => Some(Writer::Float),
            (_, Some(VarKind::Int)) => Some(Writer::Int(None)),
            (_, Some(VarKind::Float)) => Some(Writer::Float),
            // A value whose type is still open is left to the error that reports it.
            (_, Some(_)) => None,
            _ => Some(Writer::Any),
        };
        let fixed = match piece {
            Piece::Fixed(n) => Some(*n),
            _ => None,
        };
        let writer = match (writer, fixed) {
            (Some(Writer::Float), _) => Writer::Float,
            (Some(w), None) => w,
            (writer, fixed) => {
                let t = self.show(&ty);
                let refused = match (writer, fixed) {
                    (Some(_), Some(n)) => {
                        Diagnostic::error("T010", at, format!("`{{:.{n}}}` writes floats, not {t}"))
                            .with_help("write it with `{}`")
                    }
                    _ => Diagnostic::error("T010", at, format!("`format` cannot write {t}"))
                        .with_note("`format` writes a value whose type is known"),
                };
                self.diagnostics
                    .push(refused.with_label(format!("this is {t}")));
                return self.format_error(at);
            }
        };
        let (function, value, extra) = match (writer, fixed) {
            (Writer::Itself, _) => return value,
            (Writer::Int(cast), _) => {
                let value = match cast {
                    Some(to) => self.mk(
                        ExprKind::Cast {
                            value: Box::new(value),
                            checked: false,
                        },
                        to,
                        at,
                    ),
                    None => value,
                };
                ("fixedint.to_string", value, None)
            }
            (Writer::Float, None) => ("floats.to_string", value, None),
            (Writer::Any, _) => ("describe.to_string", value, None),
            (Writer::Float, Some(n)) => {
                let digits = self.mk(ExprKind::Int(i128::from(n)), IrType::U32, at);
                ("floats.to_string_fixed", value, Some(digits))
            }
        };
        let Some(f) = self.library_function(function) else {
            self.diagnostics.push(Diagnostic::error(
                "F012",
                at,
                format!("`format` writes this with `{function}`, which is not there"),
            ));
            return self.format_error(at);
        };
        let type_args = vec![value.ty.clone()];
        let mut args = vec![Arg {
            mode: if extra.is_some() {
                ParamMode::In
            } else {
                ParamMode::Ref
            },
            value,
            span: at,
        }];
        args.extend(extra.map(|digits| Arg {
            mode: ParamMode::In,
            value: digits,
            span: at,
        }));
        self.mk(
            ExprKind::Call {
                callee: Callee::Function(f),
                type_args,
                args,
            },
            IrType::String,
            at,
        )
    }

    /// Stands for a value `format` could not write (already reported).
    fn format_error(&mut self, at: Span) -> Expr {
        self.mk(ExprKind::Str(String::new()), IrType::String, at)
    }
}
