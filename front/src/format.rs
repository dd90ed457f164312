//! `format("n = {}, mean = {:.2}", n, mean)`: a string built from a literal template
//! and values, which the type checker expands into `++` of the template's pieces and
//! each value's text, written by the standard modules' conversion functions
//! (`fixedint.to_string`, `floats.to_string`, `floats.to_string_fixed`, and for any
//! other value `describe.to_string`, the runtime's formatter), so every backend formats
//! alike through the runtime.
//!
//! The resolver loads `fixedint`, `floats` and `describe` for a file that calls `format` (and does
//! not define or import a `format` of its own).

use super::ast::{self, ExprKind as A, Item, StmtKind as S};
use datalove_ir::diag::Span;

/// The name of the built-in.
pub const FORMAT: &str = "format";

/// The modules whose functions `format` calls.
pub const MODULES: &[&str] = &["fixedint", "floats", "describe"];

/// One piece of a template.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Text(String),
    /// `{}`: the next value, in its shortest text.
    Value,
    /// `{:.N}`: the next value, a float, with exactly N digits after the point.
    Fixed(u32),
}

/// The pieces of `template`, or why it is malformed (with the byte offset in the
/// template where the problem starts).
pub fn pieces(template: &str) -> Result<Vec<Piece>, (usize, String)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = template.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut spec = String::new();
                let mut closed = false;
                for (_, d) in chars.by_ref() {
                    if d == '}' {
                        closed = true;
                        break;
                    }
                    spec.push(d);
                }
                if !closed {
                    return Err((
                        at,
                        "a `{` that no `}` closes (write `{{` for a brace)".into(),
                    ));
                }
                let piece = match spec.as_str() {
                    "" => Piece::Value,
                    s => match s.strip_prefix(":.").and_then(|n| n.parse::<u32>().ok()) {
                        Some(n) => Piece::Fixed(n),
                        None => {
                            return Err((
                                at,
                                format!(
                                    "unknown placeholder `{{{spec}}}`: write `{{}}` or `{{:.N}}`"
                                ),
                            ))
                        }
                    },
                };
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(piece);
            }
            '}' => {
                return Err((
                    at,
                    "a `}` that no `{` opens (write `}}` for a brace)".into(),
                ))
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// Where `file` first calls the built-in `format`; `None` when it does not (or defines
/// or imports a `format` of its own).
pub fn first_call(file: &ast::SourceFile) -> Option<Span> {
    let own = file.items.iter().any(|item| match item {
        Item::Fun(f) => f.name.name == FORMAT,
        Item::Import { name, alias, .. } => alias.as_ref().unwrap_or(name).name == FORMAT,
        _ => false,
    });
    if own {
        return None;
    }
    file.items.iter().find_map(|item| match item {
        Item::Fun(f) => f.body.iter().find_map(stmt_call),
        Item::Stmt(s) => stmt_call(s),
        _ => None,
    })
}

fn stmt_call(s: &ast::Stmt) -> Option<Span> {
    let exprs = |es: &[&ast::Expr]| es.iter().find_map(|e| expr_call(e));
    match &s.kind {
        S::Let { init, .. } => init.as_ref().and_then(expr_call),
        S::Set { path, value, .. } => path
            .iter()
            .find_map(|p| match p {
                ast::SetStep::Index(e) => expr_call(e),
                ast::SetStep::Field(..) | ast::SetStep::Named(_) => None,
            })
            .or_else(|| expr_call(value)),
        S::If {
            cond,
            then_body,
            otherwise,
        } => expr_call(cond)
            .or_else(|| then_body.iter().find_map(stmt_call))
            .or_else(|| otherwise.iter().find_map(stmt_call)),
        S::Loop { cond, body } => cond
            .as_ref()
            .and_then(expr_call)
            .or_else(|| body.iter().find_map(stmt_call)),
        S::For { source, body, .. } => match source {
            ast::ForSource::Range(a, b) => exprs(&[a, b]),
            ast::ForSource::List { list, .. } => expr_call(list),
        }
        .or_else(|| body.iter().find_map(stmt_call)),
        S::Match { scrutinee, arms } => {
            expr_call(scrutinee).or_else(|| arms.iter().flat_map(|a| &a.body).find_map(stmt_call))
        }
        S::Ret(e) => e.as_ref().and_then(expr_call),
        S::Debuglog(e) | S::Expr(e) => expr_call(e),
        S::Break | S::Continue => None,
    }
}

fn expr_call(e: &ast::Expr) -> Option<Span> {
    match &e.kind {
        A::Call { callee, args } => {
            if callee.name == FORMAT {
                Some(callee.span)
            } else {
                args.iter().find_map(|a| expr_call(&a.value))
            }
        }
        A::Name(_) | A::Int(..) | A::Float(..) | A::Str(_) | A::Bool(_) | A::Unit | A::None => None,
        A::List(es) | A::Tuple(es) => es.iter().find_map(expr_call),
        A::Field(x, _) | A::NamedField(x, _) | A::Some(x) | A::Try(x) | A::Neg(x) | A::Not(x) => {
            expr_call(x)
        }
        A::Variant { args, .. } => args.iter().find_map(expr_call),
        A::Construct { fields, .. } => fields.iter().find_map(|(_, e)| expr_call(e)),
        A::Cast { value, .. } => expr_call(value),
        A::Index(a, b) | A::Binary(_, a, b) => expr_call(a).or_else(|| expr_call(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_split_into_pieces() {
        assert_eq!(
            pieces("n={} x={:.3}!").unwrap(),
            vec![
                Piece::Text("n=".into()),
                Piece::Value,
                Piece::Text(" x=".into()),
                Piece::Fixed(3),
                Piece::Text("!".into()),
            ]
        );
        assert_eq!(pieces("{{}}").unwrap(), vec![Piece::Text("{}".into())]);
        assert_eq!(pieces("").unwrap(), vec![]);
        assert_eq!(pieces("a{").unwrap_err().0, 1);
        assert_eq!(pieces("ab}").unwrap_err().0, 2);
        assert!(pieces("{x}")
            .unwrap_err()
            .1
            .contains("unknown placeholder `{x}`"));
    }
}
