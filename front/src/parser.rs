//! The parser: tokens to the syntax tree of one file. A statement that does not parse
//! is reported and skipped to the end of its line, so one run reports many mistakes.

use super::ast::*;
use super::lexer::{lex, Kw, Tok, Token};
use datalove_ir::diag::{Diagnostic, FileId, Span};
use datalove_ir::types::ParamMode;

/// Deeper nesting than this is refused (S009) rather than overflowing the stack: no
/// statement, expression or type may sit inside more than this many constructs. What
/// opens a level is listed in `docs/language.md` ("Nesting"); every pass after the
/// parser recurses at most this deep.
pub const MAX_DEPTH: u32 = 128;

/// Parses one file. Any diagnostic means the tree is incomplete.
pub fn parse(file: FileId, kind: SourceKind, text: &str) -> (SourceFile, Vec<Diagnostic>) {
    let (tokens, mut diagnostics) = lex(file, text);
    let mut parser = Parser {
        tokens,
        pos: 0,
        depth: 0,
        diagnostics: Vec::new(),
        keyword_names: Vec::new(),
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
    /// Keywords reported as written where a name belongs.
    keyword_names: Vec<Kw>,
}

/// Binary operators by precedence, loosest first; each level is left-associative except
/// comparisons, which do not chain. Each is written as [`BinOp::symbol`] spells it.
const LEVELS: &[&[BinOp]] = {
    use datalove_ir::{BinaryOp as B, CompareOp as C};
    use BinOp::{Arith as A, Compare};
    &[
        &[BinOp::Or],
        &[BinOp::And],
        &[
            Compare(C::Eq),
            Compare(C::Ne),
            Compare(C::Lt),
            Compare(C::Le),
            Compare(C::Gt),
            Compare(C::Ge),
        ],
        &[A(B::BitOr)],
        &[A(B::BitXor)],
        &[A(B::BitAnd)],
        &[A(B::Shl), A(B::Shr)],
        &[
            A(B::Add),
            A(B::Sub),
            A(B::WrappingAdd),
            A(B::WrappingSub),
            BinOp::Concat,
        ],
        &[A(B::Mul), A(B::Div), A(B::Rem), A(B::WrappingMul)],
    ]
};

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

    /// Whether the token after the current one is the punctuation `p`.
    fn next_is_punct(&self, p: &str) -> bool {
        matches!(self.tokens.get(self.pos + 1).map(|t| &t.tok), Some(Tok::Punct(q)) if *q == p)
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
        // A keyword already reported as used for a name: what it breaks further on
        // (`debuglog out`, `set out = 1`, `f(out)`) is that same mistake, said once.
        let misused = |tok: &Tok| matches!(tok, Tok::Kw(k) if self.keyword_names.contains(k));
        if misused(self.peek()) || (self.pos > 0 && misused(&self.tokens[self.pos - 1].tok)) {
            return Failed;
        }
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
            Tok::Kw(kw) => {
                let span = self.span();
                Err(self.keyword_as_name(kw, span, what))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// S005 for a keyword written where a name belongs, said once per keyword: the
    /// places that keyword breaks afterwards report nothing more.
    fn keyword_as_name(&mut self, kw: Kw, span: Span, what: &str) -> Failed {
        if self.keyword_names.contains(&kw) {
            return Failed;
        }
        self.keyword_names.push(kw);
        let word = kw.word();
        let role = match kw {
            Kw::In | Kw::Ref | Kw::Mut | Kw::Out => " (a parameter mode)",
            _ => "",
        };
        self.error("S005", span, format!("expected {what}, found `{word}`"))
            .into_label(self, &format!("{what}, not a keyword"));
        if let Some(d) = self.diagnostics.last_mut() {
            d.notes.push(format!(
                "help: `{word}` is a keyword{role} and cannot be a name: rename it, e.g. `{word}_value`"
            ));
        }
        Failed
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

    /// One level deeper, for what the construct opened at `opened` holds; refused past
    /// [`MAX_DEPTH`] with S009 at `opened`. The level lasts until the enclosing
    /// [`Parser::nested`] returns: a chain of operators (binary, postfix, casts) opens
    /// one level per operator for the rest of the chain, since each operator puts the
    /// chain so far one level deeper in the tree.
    fn enter(&mut self, opened: Span) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep(opened));
        }
        Ok(())
    }

    fn too_deep(&mut self, opened: Span) -> Failed {
        let d = Diagnostic::error(
            "S009",
            opened,
            format!("nesting deeper than {MAX_DEPTH} levels"),
        )
        .with_label(format!("this opens level {}", MAX_DEPTH + 1))
        .with_note("split the expression with `let`, or the block into functions");
        self.diagnostics.push(d);
        Failed
    }

    /// Runs `f` one level deeper (for the construct opened at `opened`), restoring the
    /// depth afterwards whatever it returns.
    fn nested<T>(&mut self, opened: Span, f: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        let base = self.depth;
        let result = self.enter(opened).and_then(|()| f(self));
        self.depth = base;
        result
    }

    /// The statements of a block opened by the keyword at `opened` (`if`, `else`,
    /// `loop`), one level deeper. A block too deep is reported once and skipped whole,
    /// through the `end` that closes it, so its contents add nothing more.
    fn nested_block(&mut self, opened: Span, terminators: &[Kw]) -> PResult<Vec<Stmt>> {
        if self.depth >= MAX_DEPTH {
            let failed = self.too_deep(opened);
            self.skip_block();
            return Err(failed);
        }
        self.depth += 1;
        let body = self.block(terminators);
        self.depth -= 1;
        Ok(body)
    }

    /// Ends the header line of a block (`if c`, `loop while c`) whose expression parsed
    /// as `parsed`. A header that does not parse takes its block with it: the block is
    /// skipped through its `end`, so that its statements and `end` are not read as if
    /// they stood outside.
    fn block_header<T>(&mut self, parsed: PResult<T>) -> PResult<T> {
        let result = parsed.and_then(|value| self.end_of_line().map(|()| value));
        if result.is_err() {
            self.skip_block();
        }
        result
    }

    /// Skips to just after the `end KW` that closes the block the cursor is in, counting
    /// the blocks opened on the way (without parsing them).
    fn skip_block(&mut self) {
        let mut open = 1u32;
        let mut after_else = false;
        while *self.peek() != Tok::Eof {
            let tok = self.bump().tok;
            match tok {
                Tok::Kw(Kw::If) if !after_else => open += 1,
                Tok::Kw(Kw::Loop | Kw::For | Kw::Match) => open += 1,
                Tok::Kw(Kw::End) => {
                    open -= 1;
                    if open == 0 {
                        if matches!(self.peek(), Tok::Kw(_)) {
                            self.bump();
                        }
                        return;
                    }
                }
                _ => {}
            }
            after_else = tok == Tok::Kw(Kw::Else);
        }
    }

    // ------------------------------------------------------------ items

    fn items(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            if *self.peek() == Tok::Eof {
                return items;
            }
            self.one_or_skip_line(&mut items, Self::item);
        }
    }

    /// Parses one `T` with `parse` into `out`; after a failure, skips the rest of the line
    /// (and at least one token), so that a caller's loop always moves on.
    fn one_or_skip_line<T>(&mut self, out: &mut Vec<T>, parse: fn(&mut Self) -> PResult<T>) {
        let start = self.pos;
        match parse(self) {
            Ok(one) => out.push(one),
            Err(Failed) => {
                if self.pos == start {
                    self.bump();
                }
                self.skip_line();
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
            Tok::Kw(Kw::Record) => Ok(Item::Record(self.record()?)),
            Tok::Kw(Kw::Enum) => Ok(Item::Enum(self.enum_decl()?)),
            _ => Ok(Item::Stmt(self.stmt()?)),
        }
    }

    /// `record NAME`, then one `field: T` a line, then `end record`.
    fn record(&mut self) -> PResult<RecordDecl> {
        let start = self.expect_kw(Kw::Record)?;
        let name = self.ident("a record name")?;
        let span = start.to(name.span);
        self.end_of_line()?;
        let fields = self.declaration_lines(
            Kw::Record,
            start,
            "a field (`name: type`): a record has at least one",
            |p| {
                let field = p.ident("a field name")?;
                p.expect_punct(":")?;
                Ok((field, p.type_expr()?))
            },
        )?;
        Ok(RecordDecl { name, fields, span })
    }

    /// `enum NAME` (or `enum NAME<T, E>`), then one variant a line (`Empty`,
    /// `Circle(f64)`), then `end enum`.
    fn enum_decl(&mut self) -> PResult<EnumDecl> {
        let start = self.expect_kw(Kw::Enum)?;
        let name = self.ident("an enum name")?;
        let type_params = self.type_params()?;
        let span = start.to(self.prev_span());
        self.end_of_line()?;
        let variants = self.declaration_lines(
            Kw::Enum,
            start,
            "a variant (`Name` or `Name(type, ...)`): an enum has at least one",
            |p| {
                let variant = p.ident("a variant name")?;
                let mut payload = Vec::new();
                if p.at_punct("(") {
                    let open = p.bump().span;
                    let (types, _, _) = p.elements(open, ")", Parser::type_expr_h)?;
                    p.expect_punct(")")?;
                    payload = types;
                }
                Ok((variant, payload))
            },
        )?;
        Ok(EnumDecl {
            name,
            type_params,
            variants,
            span,
        })
    }

    /// `<T, E>` after the name of a generic function or enum (a trailing comma allowed),
    /// or nothing.
    fn type_params(&mut self) -> PResult<Vec<Ident>> {
        let mut type_params = Vec::new();
        if self.eat_punct("<") {
            loop {
                type_params.push(self.ident("a type parameter name")?);
                if !self.eat_punct(",") || self.at_punct(">") {
                    break;
                }
            }
            self.expect_punct(">")?;
        }
        Ok(type_params)
    }

    /// The body of a record or enum declaration opened at `opened`: one entry a line,
    /// each read by `entry`, up to `end KW`. An empty body is the error `missing`.
    fn declaration_lines<T>(
        &mut self,
        kw: Kw,
        opened: Span,
        missing: &str,
        mut entry: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut entries = Vec::new();
        loop {
            self.skip_newlines();
            if self.at_kw(Kw::End) || *self.peek() == Tok::Eof {
                break;
            }
            let read = entry(self)?;
            self.end_of_line()?;
            entries.push(read);
        }
        if entries.is_empty() && self.at_kw(Kw::End) {
            return Err(self.expected(missing));
        }
        self.end(kw, opened)?;
        Ok(entries)
    }

    fn fun(&mut self) -> PResult<FunDecl> {
        let start = self.expect_kw(Kw::Fun)?;
        let name = self.ident("a function name")?;
        let type_params = self.type_params()?;
        self.expect_punct("(")?;
        let mut params = Vec::new();
        while !self.at_punct(")") {
            let pstart = self.span();
            let mode = self.mode();
            if self.at_punct(":") && pstart != self.span() {
                // `fun f(out: u8)`: the mode keyword was meant as the name.
                let Tok::Kw(kw) = self.tokens[self.pos - 1].tok else {
                    unreachable!("a mode is a keyword");
                };
                return Err(self.keyword_as_name(kw, pstart, "a parameter name"));
            }
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

    /// Reports `diagnostic` about a construct opened at `opened` and not closed as it
    /// should be, with `note` at the opening.
    fn unclosed(&mut self, diagnostic: Diagnostic, opened: Span, note: String) -> Failed {
        self.diagnostics
            .push(diagnostic.with_secondary(opened, note));
        Failed
    }

    /// `end KW`, closing a construct opened at `opened`.
    fn end(&mut self, kw: Kw, opened: Span) -> PResult<Span> {
        let word = kw.word();
        if !self.at_kw(Kw::End) {
            let found = self.peek().describe();
            return Err(self.unclosed(
                Diagnostic::error(
                    "S006",
                    self.span(),
                    format!("expected `end {word}`, found {found}"),
                ),
                opened,
                format!("this `{word}` is not closed"),
            ));
        }
        let start = self.bump().span;
        if !self.at_kw(kw) {
            let found = self.peek().describe();
            return Err(self.unclosed(
                Diagnostic::error(
                    "S007",
                    start.to(self.span()),
                    format!("expected `end {word}`, found `end` {found}"),
                ),
                opened,
                format!("this `{word}` is what is open"),
            ));
        }
        let span = start.to(self.bump().span);
        self.end_of_line()?;
        Ok(span)
    }

    // ------------------------------------------------------------ types

    /// A type at the current level; what it is built of (a list's element, an
    /// option's payload, a tuple's fields) is one level deeper.
    fn type_expr(&mut self) -> PResult<TypeExpr> {
        self.type_expr_h().map(|(t, _)| t)
    }

    /// A type and its height (as for expressions: `u8` is 0, `[u8]` is 1).
    fn type_expr_h(&mut self) -> PResult<(TypeExpr, u32)> {
        let start = self.span();
        match self.peek().clone() {
            Tok::Ident(name) if name == "map" && self.next_is_punct("[") => {
                self.bump();
                let open = self.span();
                self.bump();
                let (mut args, h, _) = self.elements(open, "]", Parser::type_expr_h)?;
                let end = self.expect_punct("]")?;
                let span = start.to(end);
                if args.len() != 2 {
                    return Err(self
                        .error(
                            "S014",
                            span,
                            format!(
                                "a map type takes a key type and a value type, found {} type{}",
                                args.len(),
                                if args.len() == 1 { "" } else { "s" }
                            ),
                        )
                        .into_label(self, "a key type and a value type"));
                }
                let value = args.pop().expect("two");
                let key = args.pop().expect("two");
                Ok((
                    TypeExpr {
                        kind: TypeExprKind::Map(Box::new(key), Box::new(value)),
                        span,
                    },
                    h + 1,
                ))
            }
            Tok::Ident(name) if self.next_is_punct("[") => {
                self.bump();
                let open = self.span();
                self.bump();
                let (args, h, _) = self.elements(open, "]", Parser::type_expr_h)?;
                let end = self.expect_punct("]")?;
                Ok((
                    TypeExpr {
                        kind: TypeExprKind::Applied(name, args),
                        span: start.to(end),
                    },
                    h + 1,
                ))
            }
            Tok::Ident(name) => {
                self.bump();
                Ok((
                    TypeExpr {
                        kind: TypeExprKind::Named(name),
                        span: start,
                    },
                    0,
                ))
            }
            Tok::Punct("[") => {
                self.bump();
                let (elem, h) = self.nested(start, Parser::type_expr_h)?;
                let end = self.expect_punct("]")?;
                Ok((
                    TypeExpr {
                        kind: TypeExprKind::List(Box::new(elem)),
                        span: start.to(end),
                    },
                    h + 1,
                ))
            }
            Tok::Punct("?") => {
                self.bump();
                let (payload, h) = self.nested(start, Parser::type_expr_h)?;
                let span = start.to(payload.span);
                Ok((
                    TypeExpr {
                        kind: TypeExprKind::Option(Box::new(payload)),
                        span,
                    },
                    h + 1,
                ))
            }
            Tok::Punct("(") => {
                self.bump();
                let (mut fields, h, trailing_comma) =
                    self.elements(start, ")", Parser::type_expr_h)?;
                let end = self.expect_punct(")")?;
                let span = start.to(end);
                let kind = match fields.len() {
                    0 => TypeExprKind::Unit,
                    // `(T)` is `T`, a level deeper like any parenthesized expression.
                    1 if !trailing_comma => {
                        return Ok((fields.pop().expect("one field"), h + 1));
                    }
                    _ => TypeExprKind::Tuple(fields),
                };
                let height = if matches!(kind, TypeExprKind::Unit) {
                    0
                } else {
                    h + 1
                };
                Ok((TypeExpr { kind, span }, height))
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
            self.one_or_skip_line(&mut stmts, Self::stmt);
        }
    }

    /// A statement at the current level (a block's statements are one level deeper than
    /// the statement that opens the block).
    fn stmt(&mut self) -> PResult<Stmt> {
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
                let base = self.depth;
                let path = self.set_path();
                self.depth = base;
                let path = path?;
                if self.at_punct("(") {
                    let span = self.span();
                    return Err(self.error(
                        "S008",
                        span,
                        "only a variable, or an element or field of one, can be set",
                    ));
                }
                self.expect_punct("=")?;
                let value = self.expr()?;
                StmtKind::Set {
                    target,
                    path,
                    value,
                }
            }
            Tok::Kw(Kw::If) => return self.if_stmt(),
            Tok::Kw(Kw::Match) => return self.match_stmt(),
            Tok::Kw(Kw::Loop) => {
                self.bump();
                let header = if self.eat_kw(Kw::While) {
                    self.expr().map(Some)
                } else {
                    Ok(None)
                };
                let cond = self.block_header(header)?;
                let body = self.nested_block(start, &[Kw::End])?;
                let end = self.end(Kw::Loop, start)?;
                return Ok(Stmt {
                    kind: StmtKind::Loop { cond, body },
                    span: start.to(end),
                });
            }
            Tok::Kw(Kw::For) => {
                self.bump();
                let header = self.for_header();
                let (name, source) = self.block_header(header)?;
                let body = self.nested_block(start, &[Kw::End])?;
                let end = self.end(Kw::For, start)?;
                return Ok(Stmt {
                    kind: StmtKind::For { name, source, body },
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

    /// The indexes and fields after `set NAME`: each step opens a level (its index sits
    /// at that level), so step 129 is too deep, as in an expression `x[0]...[0]`.
    fn set_path(&mut self) -> PResult<Vec<SetStep>> {
        let mut path = Vec::new();
        loop {
            if self.at_punct("[") {
                let open = self.bump().span;
                self.enter(open)?;
                path.push(SetStep::Index(self.expr()?));
                self.expect_punct("]")?;
            } else if self.at_punct(".") {
                let dot = self.bump().span;
                self.enter(dot)?;
                if let Tok::Ident(_) = self.peek() {
                    path.push(SetStep::Named(self.ident("a field name")?));
                    continue;
                }
                let Tok::Int(n, None) = *self.peek() else {
                    return Err(self.expected("a tuple field number or a record field name"));
                };
                let at = self.bump().span;
                let Ok(n) = u32::try_from(n) else {
                    return Err(self.error("S004", at, "tuple field number too large"));
                };
                path.push(SetStep::Field(n, at));
            } else {
                return Ok(path);
            }
        }
    }

    /// `NAME in a..b` or `NAME in (ref|mut)? xs`, after `for`.
    fn for_header(&mut self) -> PResult<(Ident, ForSource)> {
        let name = self.ident("a name for the loop variable")?;
        self.expect_kw(Kw::In)?;
        if self.at_kw(Kw::Out) {
            let span = self.span();
            return Err(self.error(
                "S013",
                span,
                "a `for` loop walks a list `ref`, `mut` or by moving it, never `out`",
            ));
        }
        let mode = self.mode();
        let first = self.expr()?;
        if self.at_punct("..") {
            if mode != ParamMode::In {
                let span = self.span();
                return Err(self.error(
                    "S013",
                    span,
                    format!("a range is not a list: `{mode}` does not apply to it"),
                ));
            }
            self.bump();
            let stop = self.expr()?;
            return Ok((name, ForSource::Range(first, stop)));
        }
        Ok((name, ForSource::List { mode, list: first }))
    }

    /// `if c ... else if c ... else ... end if`
    /// `match e`, then arms (`case Pattern` and its statements), then `end match`.
    fn match_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_kw(Kw::Match)?;
        let header = self.expr();
        let scrutinee = self.block_header(header)?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines();
            if !self.at_kw(Kw::Case) {
                break;
            }
            let case = self.bump().span;
            let header = self.pattern();
            let pattern = self.block_header(header)?;
            let body = self.nested_block(case, &[Kw::End, Kw::Case])?;
            let span = case.to(self.prev_span());
            arms.push(MatchArm {
                pattern,
                body,
                span,
            });
        }
        let end = self.end(Kw::Match, start)?;
        Ok(Stmt {
            kind: StmtKind::Match { scrutinee, arms },
            span: start.to(end),
        })
    }

    /// `_`, `NAME` or `NAME(a, _, c)`, after `case`.
    fn pattern(&mut self) -> PResult<Pattern> {
        let name = self.ident("a variant name or `_`")?;
        if name.name == "_" {
            return Ok(Pattern::Wildcard(name.span));
        }
        let mut binders = Vec::new();
        if self.eat_punct("(") {
            if !self.at_punct(")") {
                loop {
                    binders.push(self.ident("a name for a payload field, or `_`")?);
                    if !self.eat_punct(",") || self.at_punct(")") {
                        break;
                    }
                }
            }
            self.expect_punct(")")?;
        }
        Ok(Pattern::Variant { name, binders })
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_kw(Kw::If)?;
        let (kind, end) = self.if_rest(start, start)?;
        Ok(Stmt {
            kind,
            span: start.to(end),
        })
    }

    /// The rest of an `if` whose keyword is at `keyword` (an `else if` chain closes
    /// with the `end if` of its first `if`, at `opened`).
    fn if_rest(&mut self, opened: Span, keyword: Span) -> PResult<(StmtKind, Span)> {
        let header = self.expr();
        let cond = self.block_header(header)?;
        let then_body = self.nested_block(keyword, &[Kw::End, Kw::Else])?;
        let (otherwise, end) = if self.at_kw(Kw::Else) {
            let else_span = self.bump().span;
            if self.at_kw(Kw::If) {
                // `else if` is an `if` inside the `else`: one level deeper.
                let if_span = self.bump().span;
                let (nested, end) = self.nested(else_span, |p| p.if_rest(opened, if_span))?;
                let otherwise = vec![Stmt {
                    kind: nested,
                    span: else_span.to(end),
                }];
                (otherwise, end)
            } else {
                self.end_of_line()?;
                let otherwise = self.nested_block(else_span, &[Kw::End])?;
                (otherwise, self.end(Kw::If, opened)?)
            }
        } else {
            (Vec::new(), self.end(Kw::If, opened)?)
        };
        Ok((
            StmtKind::If {
                cond,
                then_body,
                otherwise,
            },
            end,
        ))
    }

    // ------------------------------------------------------------ expressions
    //
    // Every expression function returns the expression and its height: how many levels
    // its deepest part sits below it (a name or literal is 0, `(x)` and `-x` are 1,
    // `a + b + c` is 2 for `a`). A construct parsed at level `d` (`self.depth`) keeps
    // `d + height <= MAX_DEPTH`: what a construct holds is parsed one level deeper
    // (`nested`), and where a chain wraps what was already parsed (`a + b` around `a`,
    // `x[i]` around `x`, `e as T` around `e`) the wrapped part is checked as it goes one
    // level down (`deepen`).

    /// An expression at the current level.
    fn expr(&mut self) -> PResult<Expr> {
        self.expr_h().map(|(e, _)| e)
    }

    fn expr_h(&mut self) -> PResult<(Expr, u32)> {
        self.binary(0)
    }

    /// `what`, of height `height` at the current level, becomes the operand of a
    /// construct written at `at`: it goes one level deeper.
    fn deepen(&mut self, height: u32, at: Span) -> PResult<u32> {
        if self.depth + 1 + height > MAX_DEPTH {
            return Err(self.too_deep(at));
        }
        Ok(height + 1)
    }

    /// Precedence climbing over [`LEVELS`]: operators at `min_level` or tighter.
    fn binary(&mut self, min_level: usize) -> PResult<(Expr, u32)> {
        let (mut lhs, mut height) = if min_level <= COMPARISON_LEVEL && self.at_kw(Kw::Not) {
            // `not` binds looser than comparisons: `not a == b` is `not (a == b)`.
            let start = self.bump().span;
            let (operand, h) = self.nested(start, |p| p.binary(COMPARISON_LEVEL))?;
            let span = start.to(operand.span);
            (
                Expr {
                    kind: ExprKind::Not(Box::new(operand)),
                    span,
                },
                h + 1,
            )
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
            let op_span = self.bump().span;
            let lhs_height = self.deepen(height, op_span)?;
            let (rhs, rhs_height) = self.nested(op_span, |p| p.binary(level + 1))?;
            height = lhs_height.max(rhs_height + 1);
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok((lhs, height))
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
                .find(|op| op.symbol() == word)
                .map(|op| (*op, level))
        })
    }

    /// A prefix expression followed by any casts: `-x as u8` is `(-x) as u8`.
    fn unary(&mut self) -> PResult<(Expr, u32)> {
        let operand = self.prefix()?;
        self.casts(operand)
    }

    fn prefix(&mut self) -> PResult<(Expr, u32)> {
        if !self.at_punct("-") {
            return self.postfix();
        }
        let start = self.bump().span;
        // Only a literal token written right after the `-` makes a negative literal;
        // `-(5)` and `- 5` are negations.
        let adjacent =
            matches!(self.peek(), Tok::Int(..) | Tok::Float(..)) && self.span().start == start.end;
        // A negative literal is no deeper than a literal; otherwise the operand is one
        // level down.
        let (operand, h) = if adjacent {
            self.prefix()?
        } else {
            self.nested(start, Parser::prefix)?
        };
        let span = start.to(operand.span);
        // `-7i32` is a literal, so that the most negative value can be written.
        let (kind, height) = match operand.kind {
            ExprKind::Int(v, suffix) if adjacent => (ExprKind::Int(-v, suffix), 0),
            ExprKind::Float(v, suffix) if adjacent => (ExprKind::Float(-v, suffix), 0),
            kind => {
                let height = if adjacent {
                    self.deepen(h, start)?
                } else {
                    h + 1
                };
                let operand = Expr {
                    kind,
                    span: operand.span,
                };
                (ExprKind::Neg(Box::new(operand)), height)
            }
        };
        Ok((Expr { kind, span }, height))
    }

    /// `e as T` and `e as! T`, binding tighter than any binary operator.
    fn casts(&mut self, (mut value, mut height): (Expr, u32)) -> PResult<(Expr, u32)> {
        loop {
            let as_span = self.span();
            let checked = if self.eat_kw(Kw::As) {
                true
            } else if self.eat_punct("as!") {
                false
            } else {
                return Ok((value, height));
            };
            height = self.deepen(height, as_span)?;
            let (ty, type_height) = self.nested(as_span, Parser::type_expr_h)?;
            height = height.max(type_height + 1);
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

    fn postfix(&mut self) -> PResult<(Expr, u32)> {
        let (mut e, mut height) = self.primary()?;
        loop {
            if self.at_punct("[") {
                let open = self.bump().span;
                height = self.deepen(height, open)?;
                let (index, index_height) = self.nested(open, Parser::expr_h)?;
                height = height.max(index_height + 1);
                let end = self.expect_punct("]")?;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(index)),
                    span,
                };
            } else if self.at_punct(".") {
                let dot = self.bump().span;
                height = self.deepen(height, dot)?;
                if let Tok::Ident(_) = self.peek() {
                    let field = self.ident("a field name")?;
                    if let (ExprKind::Name(enum_name), true) = (&e.kind, self.at_punct("(")) {
                        // `Shape.Circle(1.5)`: a variant with its payload.
                        let enum_name = Ident {
                            name: enum_name.clone(),
                            span: e.span,
                        };
                        let open = self.bump().span;
                        let (args, h, _) = self.elements(open, ")", Parser::expr_h)?;
                        let end = self.expect_punct(")")?;
                        height = height.max(h + 1);
                        e = Expr {
                            kind: ExprKind::Variant {
                                enum_name,
                                variant: field,
                                args,
                            },
                            span: e.span.to(end),
                        };
                        continue;
                    }
                    let span = e.span.to(field.span);
                    e = Expr {
                        kind: ExprKind::NamedField(Box::new(e), field),
                        span,
                    };
                    continue;
                }
                let Tok::Int(n, None) = *self.peek() else {
                    return Err(self.expected("a tuple field number or a record field name"));
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
            } else if self.at_punct("?") {
                let end = self.bump().span;
                height = self.deepen(height, end)?;
                let span = e.span.to(end);
                e = Expr {
                    kind: ExprKind::Try(Box::new(e)),
                    span,
                };
            } else {
                return Ok((e, height));
            }
        }
    }

    /// The expressions of a bracketed list opened at `open`, up to `close`, each one
    /// level deeper; with the height of the tallest and whether a comma ended the list.
    fn elements<T>(
        &mut self,
        open: Span,
        close: &str,
        mut element: impl FnMut(&mut Parser) -> PResult<(T, u32)>,
    ) -> PResult<(Vec<T>, u32, bool)> {
        let mut elems = Vec::new();
        let mut height = 0;
        let mut trailing_comma = false;
        while !self.at_punct(close) {
            let (e, h) = self.nested(open, &mut element)?;
            elems.push(e);
            height = height.max(h);
            trailing_comma = self.eat_punct(",");
            if !trailing_comma {
                break;
            }
        }
        Ok((elems, height, trailing_comma))
    }

    fn primary(&mut self) -> PResult<(Expr, u32)> {
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
                let open = self.expect_punct("(")?;
                let (value, h) = self.nested(open, Parser::expr_h)?;
                let end = self.expect_punct(")")?;
                return Ok((
                    Expr {
                        kind: ExprKind::Some(Box::new(value)),
                        span: start.to(end),
                    },
                    h + 1,
                ));
            }
            Tok::Ident(name) => {
                self.bump();
                if self.at_punct("(") {
                    let callee = Ident { name, span: start };
                    let open = self.bump().span;
                    if self.at_field_init() {
                        let (fields, h, _) = self.elements(open, ")", Parser::field_init)?;
                        let end = self.expect_punct(")")?;
                        return Ok((
                            Expr {
                                kind: ExprKind::Construct {
                                    record: callee,
                                    fields,
                                },
                                span: start.to(end),
                            },
                            h + 1,
                        ));
                    }
                    let (args, h, _) = self.elements(open, ")", Parser::arg)?;
                    let end = self.expect_punct(")")?;
                    let height = if args.is_empty() { 0 } else { h + 1 };
                    return Ok((
                        Expr {
                            kind: ExprKind::Call { callee, args },
                            span: start.to(end),
                        },
                        height,
                    ));
                }
                ExprKind::Name(name)
            }
            Tok::Punct("(") => {
                self.bump();
                let (mut elems, h, trailing_comma) = self.elements(start, ")", Parser::expr_h)?;
                let end = self.expect_punct(")")?;
                let span = start.to(end);
                return Ok(match elems.len() {
                    0 => (
                        Expr {
                            kind: ExprKind::Unit,
                            span,
                        },
                        0,
                    ),
                    // Parentheses make no node, but they are a level all the same.
                    1 if !trailing_comma => {
                        let mut inner = elems.pop().expect("one element");
                        inner.span = span;
                        (inner, h + 1)
                    }
                    _ => (
                        Expr {
                            kind: ExprKind::Tuple(elems),
                            span,
                        },
                        h + 1,
                    ),
                });
            }
            Tok::Punct("[") => {
                self.bump();
                let (elems, h, _) = self.elements(start, "]", Parser::expr_h)?;
                let end = self.expect_punct("]")?;
                let height = if elems.is_empty() { 0 } else { h + 1 };
                return Ok((
                    Expr {
                        kind: ExprKind::List(elems),
                        span: start.to(end),
                    },
                    height,
                ));
            }
            Tok::Kw(kw) => return Err(self.keyword_as_name(kw, start, "an expression")),
            _ => return Err(self.expected("an expression")),
        };
        Ok((Expr { kind, span: start }, 0))
    }

    /// Whether a `NAME:` starts here: the first field of a record construction.
    fn at_field_init(&self) -> bool {
        matches!(self.peek(), Tok::Ident(_))
            && matches!(self.tokens.get(self.pos + 1), Some(t) if t.tok == Tok::Punct(":"))
    }

    /// `NAME: value`, one field of a record construction.
    fn field_init(&mut self) -> PResult<((Ident, Expr), u32)> {
        let name = self.ident("a field name (`name: value`)")?;
        self.expect_punct(":")?;
        let (value, h) = self.expr_h()?;
        Ok(((name, value), h))
    }

    fn arg(&mut self) -> PResult<(Arg, u32)> {
        let start = self.span();
        let mode = self.mode();
        let (value, h) = self.expr_h()?;
        Ok((
            Arg {
                mode,
                span: start.to(value.span),
                value,
            },
            h,
        ))
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

    /// The expression of `text`'s one statement, a `debuglog`.
    fn debuglog_expr(text: &str) -> Expr {
        let mut f = parse_ok(text);
        match f.items.remove(0) {
            Item::Stmt(Stmt {
                kind: StmtKind::Debuglog(e),
                ..
            }) => e,
            other => panic!("not a debuglog: {other:?}"),
        }
    }

    #[test]
    fn negative_literal_and_precedence() {
        let e = debuglog_expr("debuglog -7i32 + 2 * 3\n");
        let ExprKind::Binary(BinOp::Arith(datalove_ir::BinaryOp::Add), lhs, rhs) = &e.kind else {
            panic!("not an add: {e:?}");
        };
        assert!(matches!(&lhs.kind, ExprKind::Int(-7, Some(s)) if s == "i32"));
        assert!(matches!(
            rhs.kind,
            ExprKind::Binary(BinOp::Arith(datalove_ir::BinaryOp::Mul), _, _)
        ));
    }

    #[test]
    fn nested_tuple_fields() {
        let e = debuglog_expr("debuglog t.0.1\n");
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
