//! The parser: tokens to the syntax tree of one file. A statement that does not parse
//! is reported and skipped to the end of its line, so one run reports many mistakes.

use super::ast::*;
use super::lexer::{lex, Kw, Tok, Token};
use crate::diag::{Diagnostic, FileId, Span};
use crate::types::ParamMode;

/// Deeper nesting than this is refused (S009) rather than overflowing the stack.
const MAX_DEPTH: u32 = 128;

/// Parses one file. Any diagnostic means the tree is incomplete.
pub fn parse(file: FileId, kind: SourceKind, text: &str) -> (SourceFile, Vec<Diagnostic>) {
    let (tokens, mut diagnostics) = lex(file, text);
    let mut parser = Parser {
        tokens,
        pos: 0,
        depth: 0,
        diagnostics: Vec::new(),
    };
    let items = parser.items();
    diagnostics.append(&mut parser.diagnostics);
    (SourceFile { file, kind, items }, diagnostics)
}

/// A parse failure: already reported, the caller recovers.
struct Failed;

type PResult<T> = Result<T, Failed>;

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: u32,
    diagnostics: Vec<Diagnostic>,
}

/// Binary operators by precedence, loosest first; each level is left-associative except
/// comparisons, which do not chain.
const LEVELS: &[&[(&str, BinOp)]] = &[
    &[("or", BinOp::Or)],
    &[("and", BinOp::And)],
    &[
        ("==", BinOp::Eq),
        ("!=", BinOp::Ne),
        ("<", BinOp::Lt),
        ("<=", BinOp::Le),
        (">", BinOp::Gt),
        (">=", BinOp::Ge),
    ],
    &[("|", BinOp::BitOr)],
    &[("^", BinOp::BitXor)],
    &[("&", BinOp::BitAnd)],
    &[("<<", BinOp::Shl), (">>", BinOp::Shr)],
    &[
        ("+", BinOp::Add),
        ("-", BinOp::Sub),
        ("+%", BinOp::WrappingAdd),
        ("-%", BinOp::WrappingSub),
        ("++", BinOp::Concat),
    ],
    &[
        ("*", BinOp::Mul),
        ("/", BinOp::Div),
        ("%", BinOp::Rem),
        ("*%", BinOp::WrappingMul),
    ],
];

const COMPARISON_LEVEL: usize = 2;

impl Parser {
    // ------------------------------------------------------------ token helpers

    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }

    fn at_kw(&self, kw: Kw) -> bool {
        *self.peek() == Tok::Kw(kw)
    }

    fn at_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat_kw(&mut self, kw: Kw) -> bool {
        let found = self.at_kw(kw);
        if found {
            self.bump();
        }
        found
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let found = self.at_punct(p);
        if found {
            self.bump();
        }
        found
    }

    fn error(&mut self, code: &'static str, span: Span, message: impl Into<String>) -> Failed {
        self.diagnostics
            .push(Diagnostic::error(code, span, message));
        Failed
    }

    fn expected(&mut self, what: &str) -> Failed {
        let found = self.peek().describe();
        let span = self.span();
        self.error("S005", span, format!("expected {what}, found {found}"))
            .into_label(self, what)
    }

    fn expect_kw(&mut self, kw: Kw) -> PResult<Span> {
        if self.at_kw(kw) {
            Ok(self.bump().span)
        } else {
            Err(self.expected(&format!("`{}`", kw.word())))
        }
    }

    fn expect_punct(&mut self, p: &str) -> PResult<Span> {
        if self.at_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.expected(&format!("`{p}`")))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().clone() {
            Tok::Ident(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            _ => Err(self.expected(what)),
        }
    }

    fn end_of_line(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.bump();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => Err(self.expected("the end of the line")),
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.bump();
        }
    }

    /// Recovery: skips to just after the next newline.
    fn skip_line(&mut self) {
        while !matches!(self.peek(), Tok::Newline | Tok::Eof) {
            self.bump();
        }
        self.skip_newlines();
    }

    /// One level deeper into the tree; refused past [`MAX_DEPTH`]. Every chain of
    /// operators counts a level per operator, so no tree outgrows the later passes'
    /// recursion either.
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let span = self.span();
            return Err(self.error("S009", span, "nesting too deep"));
        }
        Ok(())
    }

    /// Runs `f` one level deeper, restoring the depth afterwards whatever it returns.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        let base = self.depth;
        let result = self.enter().and_then(|()| f(self));
        self.depth = base;
        result
    }

    // ------------------------------------------------------------ items

    fn items(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            if *self.peek() == Tok::Eof {
                return items;
            }
            let start = self.pos;
            match self.item() {
                Ok(item) => items.push(item),
                Err(Failed) => {
                    if self.pos == start {
                        self.bump();
                    }
                    self.skip_line();
                }
            }
        }
    }

    fn item(&mut self) -> PResult<Item> {
        let start = self.span();
        match self.peek() {
            Tok::Kw(Kw::Require) => {
                self.bump();
                self.expect_kw(Kw::Rider)?;
                let rider = self.ident("a rider name")?;
                let span = start.to(rider.span);
                self.end_of_line()?;
                Ok(Item::Require { rider, span })
            }
            Tok::Kw(Kw::Import) => {
                self.bump();
                let from = self.ident("a module or rider name")?;
                self.expect_punct(".")?;
                let name = self.ident("a function name")?;
                let alias = if self.eat_kw(Kw::As) {
                    Some(self.ident("a name for the import")?)
                } else {
                    None
                };
                let span = start.to(self.prev_span());
                self.end_of_line()?;
                Ok(Item::Import {
                    from,
                    name,
                    alias,
                    span,
                })
            }
            Tok::Kw(Kw::Fun) => Ok(Item::Fun(self.fun()?)),
            _ => Ok(Item::Stmt(self.stmt()?)),
        }
    }

    fn fun(&mut self) -> PResult<FunDecl> {
        let start = self.expect_kw(Kw::Fun)?;
        let name = self.ident("a function name")?;
        let mut type_params = Vec::new();
        if self.eat_punct("<") {
            loop {
                type_params.push(self.ident("a type parameter name")?);
                if !self.eat_punct(",") {
                    break;
                }
                if self.at_punct(">") {
                    break;
                }
            }
            self.expect_punct(">")?;
        }
        self.expect_punct("(")?;
        let mut params = Vec::new();
        while !self.at_punct(")") {
            let pstart = self.span();
            let mode = self.mode();
            let pname = self.ident("a parameter name")?;
            self.expect_punct(":")?;
            let ty = self.type_expr()?;
            params.push(Param {
                mode,
                name: pname,
                span: pstart.to(ty.span),
                ty,
            });
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(")")?;
        let result = if self.eat_punct(":") {
            Some(self.type_expr()?)
        } else {
            None
        };
        let mut constraints = Vec::new();
        if self.eat_kw(Kw::Where) {
            self.expect_punct("{")?;
            while !self.at_punct("}") {
                let param = self.ident("a type parameter name")?;
                self.expect_kw(Kw::Is)?;
                let class = self.ident("a type class (any, fixedint, float)")?;
                constraints.push((param, class));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("}")?;
        }
        let span = start.to(self.prev_span());
        self.end_of_line()?;
        let body = self.block(&[Kw::End]);
        let end_span = self.end(Kw::Fun, start)?;
        Ok(FunDecl {
            name,
            type_params,
            params,
            result,
            constraints,
            body,
            span,
            end_span,
        })
    }

    fn mode(&mut self) -> ParamMode {
        let mode = match self.peek() {
            Tok::Kw(Kw::Ref) => ParamMode::Ref,
            Tok::Kw(Kw::Mut) => ParamMode::Mut,
            Tok::Kw(Kw::Out) => ParamMode::Out,
            Tok::Kw(Kw::In) => ParamMode::In,
            _ => return ParamMode::In,
        };
        self.bump();
        mode
    }

    /// `end KW`, closing a construct opened at `opened`.
    fn end(&mut self, kw: Kw, opened: Span) -> PResult<Span> {
        if !self.at_kw(Kw::End) {
            let span = self.span();
            let found = self.peek().describe();
            self.diagnostics.push(
                Diagnostic::error(
                    "S006",
                    span,
                    format!("expected `end {}`, found {found}", kw.word()),
                )
                .with_secondary(opened, format!("this `{}` is not closed", kw.word())),
            );
            return Err(Failed);
        }
        let start = self.bump().span;
        if !self.at_kw(kw) {
            let span = start.to(self.span());
            let found = self.peek().describe();
            self.diagnostics.push(
                Diagnostic::error(
                    "S007",
                    span,
                    format!("expected `end {}`, found `end` {found}", kw.word()),
                )
                .with_secondary(opened, format!("this `{}` is what is open", kw.word())),
            );
            return Err(Failed);
        }
        let span = start.to(self.bump().span);
        self.end_of_line()?;
        Ok(span)
    }

    // ------------------------------------------------------------ types

    fn type_expr(&mut self) -> PResult<TypeExpr> {
        self.nested(Parser::type_expr_inner)
    }

    fn type_expr_inner(&mut self) -> PResult<TypeExpr> {
        let start = self.span();
        match self.peek().clone() {
            Tok::Ident(name) => {
                self.bump();
                Ok(TypeExpr {
                    kind: TypeExprKind::Named(name),
                    span: start,
                })
            }
            Tok::Punct("[") => {
                self.bump();
                let elem = self.type_expr()?;
                let end = self.expect_punct("]")?;
                Ok(TypeExpr {
                    kind: TypeExprKind::List(Box::new(elem)),
                    span: start.to(end),
                })
            }
            Tok::Punct("?") => {
                self.bump();
                let payload = self.type_expr()?;
                let span = start.to(payload.span);
                Ok(TypeExpr {
                    kind: TypeExprKind::Option(Box::new(payload)),
                    span,
                })
            }
            Tok::Punct("(") => {
                self.bump();
                let mut fields = Vec::new();
                let mut trailing_comma = false;
                while !self.at_punct(")") {
                    fields.push(self.type_expr()?);
                    trailing_comma = self.eat_punct(",");
                    if !trailing_comma {
                        break;
                    }
                }
                let end = self.expect_punct(")")?;
                let span = start.to(end);
                let kind = match fields.len() {
                    0 => TypeExprKind::Unit,
                    1 if !trailing_comma => return Ok(fields.pop().expect("one field")),
                    _ => TypeExprKind::Tuple(fields),
                };
                Ok(TypeExpr { kind, span })
            }
            _ => Err(self.expected("a type")),
        }
    }

    // ------------------------------------------------------------ statements

    /// Statements up to (not including) one of `terminators` or `else`/`end`/EOF.
    fn block(&mut self, terminators: &[Kw]) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                Tok::Eof => return stmts,
                Tok::Kw(kw) if terminators.contains(kw) => return stmts,
                Tok::Kw(Kw::Fun) => return stmts,
                _ => {}
            }
            let start = self.pos;
            match self.stmt() {
                Ok(stmt) => stmts.push(stmt),
                Err(Failed) => {
                    if self.pos == start {
                        self.bump();
                    }
                    self.skip_line();
                }
            }
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.nested(Parser::stmt_inner)
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Kw(kw @ (Kw::Let | Kw::Var)) => {
                let mutable = *kw == Kw::Var;
                self.bump();
                let name = self.ident("a variable name")?;
                let ty = if self.eat_punct(":") {
                    Some(self.type_expr()?)
                } else {
                    None
                };
                let init = if self.eat_punct("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                if init.is_none() && (!mutable || ty.is_none()) {
                    return Err(self.expected("`=` and an initial value"));
                }
                StmtKind::Let {
                    mutable,
                    name,
                    ty,
                    init,
                }
            }
            Tok::Kw(Kw::Set) => {
                self.bump();
                let target = self.ident("a variable to set")?;
                if self.eat_punct("[") {
                    let index = self.expr()?;
                    self.expect_punct("]")?;
                    if self.at_punct("[") || self.at_punct(".") {
                        let span = self.span();
                        return Err(self.error(
                            "S008",
                            span,
                            "only a variable or one element of a list variable can be set",
                        ));
                    }
                    self.expect_punct("=")?;
                    let value = self.expr()?;
                    StmtKind::SetIndex {
                        target,
                        index,
                        value,
                    }
                } else {
                    if self.at_punct(".") {
                        let span = self.span();
                        return Err(self.error(
                            "S008",
                            span,
                            "only a variable or one element of a list variable can be set",
                        ));
                    }
                    self.expect_punct("=")?;
                    let value = self.expr()?;
                    StmtKind::Set { target, value }
                }
            }
            Tok::Kw(Kw::If) => return self.if_stmt(),
            Tok::Kw(Kw::Loop) => {
                self.bump();
                let cond = if self.eat_kw(Kw::While) {
                    Some(self.expr()?)
                } else {
                    None
                };
                self.end_of_line()?;
                let body = self.block(&[Kw::End]);
                let end = self.end(Kw::Loop, start)?;
                return Ok(Stmt {
                    kind: StmtKind::Loop { cond, body },
                    span: start.to(end),
                });
            }
            Tok::Kw(Kw::Break) => {
                self.bump();
                StmtKind::Break
            }
            Tok::Kw(Kw::Continue) => {
                self.bump();
                StmtKind::Continue
            }
            Tok::Kw(Kw::Ret) => {
                self.bump();
                if matches!(self.peek(), Tok::Newline | Tok::Eof) {
                    StmtKind::Ret(None)
                } else {
                    StmtKind::Ret(Some(self.expr()?))
                }
            }
            Tok::Kw(Kw::Debuglog) => {
                self.bump();
                StmtKind::Debuglog(self.expr()?)
            }
            Tok::Kw(Kw::Require | Kw::Import) => {
                let span = self.span();
                return Err(self.error(
                    "S010",
                    span,
                    "`require` and `import` belong at the top level of a file",
                ));
            }
            _ => StmtKind::Expr(self.expr()?),
        };
        let span = start.to(self.prev_span());
        self.end_of_line()?;
        Ok(Stmt { kind, span })
    }

    /// `if c ... else if c ... else ... end if`
    fn if_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_kw(Kw::If)?;
        let (kind, end) = self.if_rest(start)?;
        Ok(Stmt {
            kind,
            span: start.to(end),
        })
    }

    fn if_rest(&mut self, opened: Span) -> PResult<(StmtKind, Span)> {
        self.nested(|p| p.if_rest_inner(opened))
    }

    fn if_rest_inner(&mut self, opened: Span) -> PResult<(StmtKind, Span)> {
        let cond = self.expr()?;
        self.end_of_line()?;
        let then_body = self.block(&[Kw::End, Kw::Else]);
        if self.at_kw(Kw::Else) {
            let else_span = self.bump().span;
            if self.eat_kw(Kw::If) {
                let (nested, end) = self.if_rest(opened)?;
                let otherwise = vec![Stmt {
                    kind: nested,
                    span: else_span.to(end),
                }];
                return Ok((
                    StmtKind::If {
                        cond,
                        then_body,
                        otherwise,
                    },
                    end,
                ));
            }
            self.end_of_line()?;
            let otherwise = self.block(&[Kw::End]);
            let end = self.end(Kw::If, opened)?;
            return Ok((
                StmtKind::If {
                    cond,
                    then_body,
                    otherwise,
                },
                end,
            ));
        }
        let end = self.end(Kw::If, opened)?;
        Ok((
            StmtKind::If {
                cond,
                then_body,
                otherwise: Vec::new(),
            },
            end,
        ))
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.binary(0))
    }

    /// Precedence climbing over [`LEVELS`]: operators at `min_level` or tighter.
    fn binary(&mut self, min_level: usize) -> PResult<Expr> {
        let mut lhs = if min_level <= COMPARISON_LEVEL && self.at_kw(Kw::Not) {
            // `not` binds looser than comparisons: `not a == b` is `not (a == b)`.
            let start = self.bump().span;
            self.enter()?;
            let operand = self.binary(COMPARISON_LEVEL)?;
            let span = start.to(operand.span);
            Expr {
                kind: ExprKind::Not(Box::new(operand)),
                span,
            }
        } else {
            self.unary()?
        };
        let mut last_comparison: Option<BinOp> = None;
        while let Some((op, level)) = self.binary_op().filter(|(_, l)| *l >= min_level) {
            if level == COMPARISON_LEVEL {
                if let Some(prev) = last_comparison {
                    let span = self.span();
                    return Err(self.error(
                        "S011",
                        span,
                        format!(
                            "comparisons do not chain: parenthesize `{}` or `{}`",
                            prev.symbol(),
                            op.symbol()
                        ),
                    ));
                }
                last_comparison = Some(op);
            } else if level < COMPARISON_LEVEL {
                last_comparison = None;
            }
            self.bump();
            self.enter()?;
            let rhs = self.binary(level + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    /// The binary operator at the cursor and its level.
    fn binary_op(&self) -> Option<(BinOp, usize)> {
        let word = match self.peek() {
            Tok::Punct(p) => *p,
            Tok::Kw(Kw::And) => "and",
            Tok::Kw(Kw::Or) => "or",
            _ => return None,
        };
        LEVELS.iter().enumerate().find_map(|(level, ops)| {
            ops.iter()
                .find(|(sym, _)| *sym == word)
                .map(|(_, op)| (*op, level))
        })
    }

    /// A prefix expression followed by any casts: `-x as u8` is `(-x) as u8`.
    fn unary(&mut self) -> PResult<Expr> {
        let operand = self.prefix()?;
        self.casts(operand)
    }

    fn prefix(&mut self) -> PResult<Expr> {
        if !self.at_punct("-") {
            return self.postfix();
        }
        let start = self.bump().span;
        self.enter()?;
        // Only a literal token written right after the `-` makes a negative literal;
        // `-(5)` and `- 5` are negations.
        let adjacent =
            matches!(self.peek(), Tok::Int(..) | Tok::Float(..)) && self.span().start == start.end;
        let operand = self.prefix()?;
        let span = start.to(operand.span);
        // `-7i32` is a literal, so that the most negative value can be written.
        let kind = match operand.kind {
            ExprKind::Int(v, suffix) if adjacent => ExprKind::Int(-v, suffix),
            ExprKind::Float(v, suffix) if adjacent => ExprKind::Float(-v, suffix),
            kind => ExprKind::Neg(Box::new(Expr {
                kind,
                span: operand.span,
            })),
        };
        Ok(Expr { kind, span })
    }

    /// `e as T` and `e as! T`, binding tighter than any binary operator.
    fn casts(&mut self, mut value: Expr) -> PResult<Expr> {
        loop {
            let checked = if self.eat_kw(Kw::As) {
                true
            } else if self.eat_punct("as!") {
                false
            } else {
                return Ok(value);
            };
            self.enter()?;
            let ty = self.type_expr()?;
            let span = value.span.to(ty.span);
            value = Expr {
                kind: ExprKind::Cast {
                    value: Box::new(value),
                    ty,
                    checked,
                },
                span,
            };
        }
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.at_punct("[") || self.at_punct(".") {
                self.enter()?;
            }
            if self.eat_punct("[") {
                let index = self.expr()?;
                let end = self.expect_punct("]")?;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(index)),
                    span,
                };
            } else if self.at_punct(".") {
                self.bump();
                let Tok::Int(n, None) = *self.peek() else {
                    return Err(self.expected("a tuple field number"));
                };
                let end = self.bump().span;
                let span = e.span.to(end);
                let Ok(n) = u32::try_from(n) else {
                    return Err(self.error("S004", end, "tuple field number too large"));
                };
                e = Expr {
                    kind: ExprKind::Field(Box::new(e), n),
                    span,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Int(v, suffix) => {
                self.bump();
                let Ok(v) = i128::try_from(v) else {
                    return Err(self.error("S004", start, "integer literal too large"));
                };
                ExprKind::Int(v, suffix)
            }
            Tok::Float(v, suffix) => {
                self.bump();
                ExprKind::Float(v, suffix)
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            Tok::Kw(Kw::True) => {
                self.bump();
                ExprKind::Bool(true)
            }
            Tok::Kw(Kw::False) => {
                self.bump();
                ExprKind::Bool(false)
            }
            Tok::Kw(Kw::None) => {
                self.bump();
                ExprKind::None
            }
            Tok::Kw(Kw::Some) => {
                self.bump();
                self.expect_punct("(")?;
                let value = self.expr()?;
                let end = self.expect_punct(")")?;
                return Ok(Expr {
                    kind: ExprKind::Some(Box::new(value)),
                    span: start.to(end),
                });
            }
            Tok::Ident(name) => {
                self.bump();
                if self.at_punct("(") {
                    let callee = Ident { name, span: start };
                    self.bump();
                    let mut args = Vec::new();
                    while !self.at_punct(")") {
                        args.push(self.arg()?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    let end = self.expect_punct(")")?;
                    return Ok(Expr {
                        kind: ExprKind::Call { callee, args },
                        span: start.to(end),
                    });
                }
                ExprKind::Name(name)
            }
            Tok::Punct("(") => {
                self.bump();
                let mut elems = Vec::new();
                let mut trailing_comma = false;
                while !self.at_punct(")") {
                    elems.push(self.expr()?);
                    trailing_comma = self.eat_punct(",");
                    if !trailing_comma {
                        break;
                    }
                }
                let end = self.expect_punct(")")?;
                let span = start.to(end);
                return Ok(match elems.len() {
                    0 => Expr {
                        kind: ExprKind::Unit,
                        span,
                    },
                    1 if !trailing_comma => {
                        let mut inner = elems.pop().expect("one element");
                        inner.span = span;
                        inner
                    }
                    _ => Expr {
                        kind: ExprKind::Tuple(elems),
                        span,
                    },
                });
            }
            Tok::Punct("[") => {
                self.bump();
                let mut elems = Vec::new();
                while !self.at_punct("]") {
                    elems.push(self.expr()?);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                let end = self.expect_punct("]")?;
                return Ok(Expr {
                    kind: ExprKind::List(elems),
                    span: start.to(end),
                });
            }
            _ => return Err(self.expected("an expression")),
        };
        Ok(Expr { kind, span: start })
    }

    fn arg(&mut self) -> PResult<Arg> {
        let start = self.span();
        let mode = self.mode();
        let value = self.expr()?;
        Ok(Arg {
            mode,
            span: start.to(value.span),
            value,
        })
    }
}

impl Failed {
    /// Labels the diagnostic just reported with what was expected.
    fn into_label(self, parser: &mut Parser, what: &str) -> Failed {
        if let Some(d) = parser.diagnostics.last_mut() {
            d.label = Some(format!("expected {what}"));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> SourceFile {
        let (file, diags) = parse(FileId(0), SourceKind::Script, text);
        assert!(diags.is_empty(), "{diags:?}");
        file
    }

    #[test]
    fn negative_literal_and_precedence() {
        let f = parse_ok("debuglog -7i32 + 2 * 3\n");
        let Item::Stmt(Stmt {
            kind: StmtKind::Debuglog(e),
            ..
        }) = &f.items[0]
        else {
            panic!("not a debuglog: {:?}", f.items[0]);
        };
        let ExprKind::Binary(BinOp::Add, lhs, rhs) = &e.kind else {
            panic!("not an add: {e:?}");
        };
        assert!(matches!(&lhs.kind, ExprKind::Int(-7, Some(s)) if s == "i32"));
        assert!(matches!(rhs.kind, ExprKind::Binary(BinOp::Mul, _, _)));
    }

    #[test]
    fn nested_tuple_fields() {
        let f = parse_ok("debuglog t.0.1\n");
        let Item::Stmt(Stmt {
            kind: StmtKind::Debuglog(e),
            ..
        }) = &f.items[0]
        else {
            panic!("not a debuglog");
        };
        let ExprKind::Field(inner, 1) = &e.kind else {
            panic!("not field 1: {e:?}");
        };
        assert!(matches!(inner.kind, ExprKind::Field(_, 0)));
    }

    #[test]
    fn mismatched_end_is_s007() {
        let (_, diags) = parse(
            FileId(0),
            SourceKind::Script,
            "if true\n  debuglog 1\nend loop\n",
        );
        assert_eq!(diags[0].code, "S007");
    }
}
