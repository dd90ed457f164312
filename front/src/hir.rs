//! The typed tree the type checker produces and the ownership checker and lowering read:
//! every name resolved (locals to [`LocalId`], callees to functions or natives), every
//! expression typed with an [`IrType`] over the enclosing function's type parameters.

use datalove_ir::diag::Span;
use datalove_ir::program::{BinaryOp, CompareOp};
use datalove_ir::types::{IrType, ParamMode, TypeParam};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

impl LocalId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Every function of the compilation, the script body included.
#[derive(Clone, Debug, Default)]
pub struct HirProgram {
    pub functions: Vec<HirFunction>,
    /// The index of the script body in `functions`, when the root is a script.
    pub entry: Option<usize>,
}

#[derive(Clone, Debug)]
pub enum LocalKind {
    Let,
    /// The variable of a `for` loop over a range, or over a list `ref` or moving: a
    /// `let` of each iteration.
    For,
    /// The variable of a `for` loop over a list of owned elements that nothing in the
    /// loop's body can change (the list is a temporary, moved into the loop, or a
    /// variable the body never names): a `let` of each iteration that is a view of the
    /// element (`list_get.view`), so reading it clones nothing. A use that takes it
    /// (moves it) takes a clone; it is never dropped.
    ForView,
    Var,
    Param(ParamMode),
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: IrType,
    pub kind: LocalKind,
    pub span: Span,
}

impl Local {
    /// Whether `set` may assign it.
    pub fn assignable(&self) -> bool {
        matches!(
            self.kind,
            LocalKind::Var | LocalKind::Param(ParamMode::Mut | ParamMode::Out)
        )
    }
}

#[derive(Clone, Debug)]
pub struct HirFunction {
    /// The IR name: `module.name` for a module's functions, `name` for a script's.
    pub name: String,
    pub type_params: Vec<TypeParam>,
    /// The parameters, as locals `0..params.len()`.
    pub params: Vec<LocalId>,
    pub result: IrType,
    pub locals: Vec<Local>,
    pub body: Block,
    pub span: Span,
    /// Where the body ends (its implicit `ret`).
    pub end_span: Span,
}

impl HirFunction {
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.index()]
    }
}

/// A sequence of statements and the locals it declares (dropped at its end).
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub declared: Vec<LocalId>,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// Declares `local` (already in the enclosing block's `declared`), initialized or not.
    Let {
        local: LocalId,
        init: Option<Expr>,
    },
    Set {
        local: LocalId,
        value: Expr,
    },
    SetIndex {
        local: LocalId,
        index: Expr,
        value: Expr,
    },
    If {
        cond: Expr,
        then_body: Block,
        else_body: Block,
    },
    Loop {
        cond: Option<Expr>,
        body: Block,
        /// The locals initialized at the loop's head on every iteration; filled in by
        /// the ownership checker (a fixpoint over the body) and followed by lowering.
        head_init: Vec<LocalId>,
    },
    /// A block of its own: its locals are dropped at its end. The front end writes one
    /// around what it expands a statement into (a `for` loop, a nested `set`).
    Block(Block),
    /// `match`: the scrutinee is consumed (a variable of an owned type is moved), then
    /// the arm for its variant runs; the arms cover every variant (checked).
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

/// One arm of a `match`.
#[derive(Clone, Debug)]
pub struct MatchArm {
    /// The variant the arm takes (its payload moved into `binders`), or `None` for the
    /// `_` arm, which takes every variant no earlier arm names and drops the value.
    pub variant: Option<u32>,
    /// One per payload field: the `let` local it is moved into, or `None` (`_`: dropped).
    pub binders: Vec<Option<LocalId>>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: IrType,
    pub span: Span,
}

/// Which function a call reaches.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A function of the program, by index into [`HirProgram::functions`].
    Function(usize),
    /// A native: the rider (index into the compilation's riders) and its name.
    Native { rider: usize, name: String },
}

#[derive(Clone, Debug)]
pub struct Arg {
    pub mode: ParamMode,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Local(LocalId),
    Int(i128),
    Float(f64),
    Str(String),
    Bool(bool),
    Unit,
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Field(Box<Expr>, u32),
    Some(Box<Expr>),
    None,
    /// Variant `variant` of the enum the expression's type is, its payload moved in.
    Variant {
        variant: u32,
        args: Vec<Expr>,
    },
    /// `e?` on an enum of variants `ok(T)` and `err(E)`: the `ok` payload, or else a
    /// return of `err(payload)` in the function's own result type (also such an enum).
    Try(Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Len(Box<Expr>),
    Push {
        list: LocalId,
        value: Box<Expr>,
    },
    IsSome(Box<Expr>),
    Unwrap(Box<Expr>),
    Data(Box<Expr>),
    Clone(Box<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Compare(CompareOp, Box<Expr>, Box<Expr>),
    /// Short-circuit `and` / `or`.
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    Cast {
        value: Box<Expr>,
        checked: bool,
    },
    Call {
        callee: Callee,
        /// The callee's type parameters bound in the caller's terms.
        type_args: Vec<IrType>,
        args: Vec<Arg>,
    },
}

impl Expr {
    /// The expressions this one is made of, in evaluation order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Local(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::None => Vec::new(),
            ExprKind::List(es) | ExprKind::Tuple(es) | ExprKind::Variant { args: es, .. } => {
                es.iter().collect()
            }
            ExprKind::Field(x, _)
            | ExprKind::Some(x)
            | ExprKind::Try(x)
            | ExprKind::Len(x)
            | ExprKind::IsSome(x)
            | ExprKind::Unwrap(x)
            | ExprKind::Data(x)
            | ExprKind::Clone(x)
            | ExprKind::Neg(x)
            | ExprKind::Not(x)
            | ExprKind::Push { value: x, .. }
            | ExprKind::Cast { value: x, .. } => vec![&**x],
            ExprKind::Index(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Compare(_, a, b)
            | ExprKind::And(a, b)
            | ExprKind::Or(a, b)
            | ExprKind::Concat(a, b) => vec![&**a, &**b],
            ExprKind::Call { args, .. } => args.iter().map(|a| &a.value).collect(),
        }
    }

    /// Whether the expression names local `l` anywhere (reads, moves or changes it).
    pub fn mentions(&self, l: LocalId) -> bool {
        match &self.kind {
            ExprKind::Local(x) => *x == l,
            ExprKind::Push { list, .. } if *list == l => true,
            _ => self.children().into_iter().any(|e| e.mentions(l)),
        }
    }
}

impl Stmt {
    /// Whether the statement (or any it holds) names local `l`.
    pub fn mentions(&self, l: LocalId) -> bool {
        let block = |b: &Block| b.stmts.iter().any(|s| s.mentions(l));
        match &self.kind {
            StmtKind::Let { local, init } => {
                *local == l || init.as_ref().is_some_and(|e| e.mentions(l))
            }
            StmtKind::Set { local, value } => *local == l || value.mentions(l),
            StmtKind::SetIndex {
                local,
                index,
                value,
            } => *local == l || index.mentions(l) || value.mentions(l),
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => cond.mentions(l) || block(then_body) || block(else_body),
            StmtKind::Loop { cond, body, .. } => {
                cond.as_ref().is_some_and(|c| c.mentions(l)) || block(body)
            }
            StmtKind::Block(b) => block(b),
            StmtKind::Match { scrutinee, arms } => {
                scrutinee.mentions(l) || arms.iter().any(|a| block(&a.body))
            }
            StmtKind::Ret(e) => e.as_ref().is_some_and(|e| e.mentions(l)),
            StmtKind::Debuglog(e) | StmtKind::Expr(e) => e.mentions(l),
            StmtKind::Break | StmtKind::Continue => false,
        }
    }
}

impl ExprKind {
    /// The local an expression names directly, if it is one.
    pub fn as_local(&self) -> Option<LocalId> {
        match self {
            ExprKind::Local(l) => Some(*l),
            _ => None,
        }
    }
}
