//! The syntax tree, as parsed: names are still strings and nothing is typed yet.

use datalove_ir::diag::{FileId, Span};
use datalove_ir::types::ParamMode;
use datalove_ir::{BinaryOp, CompareOp};

/// What a source file is, from its extension: a `.dfm` module or a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    Script,
    Module,
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    pub file: FileId,
    pub kind: SourceKind,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    /// `require rider NAME`
    Require {
        rider: Ident,
        span: Span,
    },
    /// `import FROM.NAME` or `import FROM.NAME as ALIAS`
    Import {
        from: Ident,
        name: Ident,
        alias: Option<Ident>,
        span: Span,
    },
    Fun(FunDecl),
    /// `record NAME` / `field: T` lines / `end record`
    Record(RecordDecl),
    /// `enum NAME<T, ...>` / one variant a line (`Circle(f64)`, `Empty`) / `end enum`
    Enum(EnumDecl),
    /// A top-level statement: part of a script's body.
    Stmt(Stmt),
}

#[derive(Clone, Debug)]
pub struct FunDecl {
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub params: Vec<Param>,
    pub result: Option<TypeExpr>,
    /// `where { T is CLASS, ... }`
    pub constraints: Vec<(Ident, Ident)>,
    pub body: Vec<Stmt>,
    pub span: Span,
    /// Where `end fun` is: the implicit return at the end of the body.
    pub end_span: Span,
}

/// A record declaration: its name and its fields, in order.
#[derive(Clone, Debug)]
pub struct RecordDecl {
    pub name: Ident,
    pub fields: Vec<(Ident, TypeExpr)>,
    pub span: Span,
}

/// An enum declaration: its name, type parameters and variants, in order.
#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub name: Ident,
    pub type_params: Vec<Ident>,
    /// Each variant's name and payload types (none for a variant without payload).
    pub variants: Vec<(Ident, Vec<TypeExpr>)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub mode: ParamMode,
    pub name: Ident,
    pub ty: TypeExpr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TypeExprKind {
    /// A scalar, `string`, `data`, `index` or a type parameter.
    Named(String),
    Unit,
    List(Box<TypeExpr>),
    Option(Box<TypeExpr>),
    Tuple(Vec<TypeExpr>),
    /// `map[K, V]`.
    Map(Box<TypeExpr>, Box<TypeExpr>),
    /// `NAME[A, B]`: a generic enum at type arguments (`result[i64, string]`).
    Applied(String, Vec<TypeExpr>),
}

#[derive(Clone, Debug)]
pub struct TypeExpr {
    pub kind: TypeExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `let x: T = e` (`mutable: false`), `var x: T = e` or `var x: T` (`mutable: true`).
    Let {
        mutable: bool,
        name: Ident,
        ty: Option<TypeExpr>,
        init: Option<Expr>,
    },
    /// `set x = e`, `set xs[i] = e`, `set t.0 = e`, `set m[i][j] = e`: the variable and
    /// the path to the part of it that is set (empty: the whole variable).
    Set {
        target: Ident,
        path: Vec<SetStep>,
        value: Expr,
    },
    /// `if c ... else if c ... else ... end if`; an `else if` chain nests in `otherwise`.
    If {
        cond: Expr,
        then_body: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    /// `loop while c ... end loop`, or `loop ... end loop` (no condition).
    Loop {
        cond: Option<Expr>,
        body: Vec<Stmt>,
    },
    /// `for NAME in a..b` or `for NAME in (ref|mut)? xs`, to `end for`.
    For {
        name: Ident,
        source: ForSource,
        body: Vec<Stmt>,
    },
    /// `match e` / `case V(a, b)` ... / `case _` ... / `end match`.
    Match {
        scrutinee: Expr,
        arms: Vec<MatchArm>,
    },
    Break,
    Continue,
    Ret(Option<Expr>),
    Debuglog(Expr),
    Expr(Expr),
}

/// One arm of a `match`: its pattern and its statements.
#[derive(Clone, Debug)]
pub struct MatchArm {
    pub pattern: Pattern,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// What a `case` matches.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// `_`: every variant no earlier arm names.
    Wildcard(Span),
    /// `NAME` or `NAME(a, _, c)`: one variant, binding each payload field to a name (a
    /// `_` drops it).
    Variant { name: Ident, binders: Vec<Ident> },
}

/// One step of the path of a `set`: an element of a list, or a field of a tuple (with
/// where the field number is written).
#[derive(Clone, Debug)]
pub enum SetStep {
    Index(Expr),
    Field(u32, Span),
    /// `.name`: a field of a record.
    Named(Ident),
}

/// What a `for` loop walks.
#[derive(Clone, Debug)]
pub enum ForSource {
    /// `a..b`: the integers from `a` up to, not including, `b`.
    Range(Expr, Expr),
    /// The elements of a list: `ref xs` (read), `mut xs` (changed in place: `xs` is a
    /// variable) or `xs` (moved: the list is the loop's).
    List { mode: ParamMode, list: Expr },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// A binary operator as written. An arithmetic or bit operator and a comparison are the
/// IR's own; `and` and `or` (which skip their right side when the left decides) and `++`
/// are the language's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Arith(BinaryOp),
    Compare(CompareOp),
    And,
    Or,
    Concat,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Arith(op) => match op {
                BinaryOp::Add => "+",
                BinaryOp::Sub => "-",
                BinaryOp::Mul => "*",
                BinaryOp::Div => "/",
                BinaryOp::Rem => "%",
                BinaryOp::WrappingAdd => "+%",
                BinaryOp::WrappingSub => "-%",
                BinaryOp::WrappingMul => "*%",
                // Written by the range pass only, after the front end.
                BinaryOp::NoWrapAdd => "+",
                BinaryOp::NoWrapSub => "-",
                BinaryOp::NoWrapMul => "*",
                BinaryOp::BitAnd => "&",
                BinaryOp::BitOr => "|",
                BinaryOp::BitXor => "^",
                BinaryOp::Shl => "<<",
                BinaryOp::Shr => ">>",
                // The IR's `and` and `or` of two evaluated booleans: written as
                // `BinOp::And` and `BinOp::Or`.
                BinaryOp::And => "and",
                BinaryOp::Or => "or",
            },
            BinOp::Compare(op) => op.symbol(),
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Concat => "++",
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Name(String),
    /// The literal's value (negative when written `-7`) and its suffix.
    Int(i128, Option<String>),
    Float(f64, Option<String>),
    Str(String),
    Bool(bool),
    Unit,
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    /// `t.0`
    Field(Box<Expr>, u32),
    /// `p.x`: a field of a record, by name.
    NamedField(Box<Expr>, Ident),
    /// `Point(x: 1.0, y: 2.0)`: a record built from every field, each named once.
    Construct {
        record: Ident,
        fields: Vec<(Ident, Expr)>,
    },
    /// `Shape.Circle(1.5)`: a variant of an enum with its payload (`Shape.Empty`, without
    /// parentheses, parses as a field read and is told apart by the type checker).
    Variant {
        enum_name: Ident,
        variant: Ident,
        args: Vec<Expr>,
    },
    /// `e?`: the `ok` payload of a result, or a return of its `err` to the caller.
    Try(Box<Expr>),
    Some(Box<Expr>),
    None,
    /// `xs[i]`
    Index(Box<Expr>, Box<Expr>),
    /// A call `f(args)`: user functions, imports and built-ins alike.
    Call {
        callee: Ident,
        args: Vec<Arg>,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `e as T` (checked) and `e as! T` (unchecked).
    Cast {
        value: Box<Expr>,
        ty: TypeExpr,
        checked: bool,
    },
}

/// One argument of a call, with the mode written at the call site (`in` when none).
#[derive(Clone, Debug)]
pub struct Arg {
    pub mode: ParamMode,
    pub value: Expr,
    pub span: Span,
}
