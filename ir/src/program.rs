//! The IR: a program of functions, each a CFG of blocks over typed slots.
//!
//! Everything is decided here, once: every copy, move, clone and drop is an instruction,
//! and every fallible instruction names the block taken when the runtime is abandoning
//! (that block runs the drops owed and ends in [`Terminator::Abandon`]). Backends follow
//! the IR; none of them infers ownership.
//!
//! Slots are typed places. A slot is initialized or not at each point; the verifier
//! tracks it. Parameters are slots too: an `in` parameter is owned by the function, a
//! `ref`/`mut`/`out` parameter names the caller's place.

use std::fmt;

use crate::native::NativeContext;
use crate::types::{IrType, ParamMode, TypeParam};

macro_rules! id {
    ($name:ident, $prefix:literal) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id!(FuncId, "fn");
id!(SlotId, "s");
id!(BlockId, "b");

/// A whole program: its functions and the script body that runs first.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub functions: Vec<Function>,
    /// The script body: no parameters, no type parameters, unit result.
    pub entry: Option<FuncId>,
    /// The riders the program's natives come from.
    pub riders: Vec<String>,
    /// Source files, for interleaving source lines into dumps.
    pub files: Vec<SourceText>,
}

#[derive(Clone, Debug)]
pub struct SourceText {
    pub name: String,
    pub text: String,
}

impl Program {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    pub fn entry(&self) -> FuncId {
        self.entry.expect("program has no entry function")
    }

    /// The text of where `inst` is, as a runtime error reports it (`FILE:LINE:COL`,
    /// `datalove_rti::SourceLoc`), for a fallible instruction of a program that carries
    /// locations; `None` otherwise. Every backend hands exactly this text to the runtime
    /// (`error_at`) on the instruction's failure path, before its abandon block: for the
    /// failing instruction (the arithmetic, the list access, the unwrap, the native call,
    /// the call refused for stack overflow) it is the error's location, for a call the
    /// error propagated out of it is one entry of the chain of calls. A `called_from`
    /// (not fallible: it stands on a failure path) has its site too.
    pub fn error_site(&self, inst: &Inst) -> Option<String> {
        if !matches!(inst.kind, InstKind::CalledFrom) {
            inst.abandon?;
        }
        let loc = inst.loc?;
        let file = self.files.get(loc.file as usize)?;
        Some(datalove_rti::SourceLoc::new(file.name.as_str(), loc.line, loc.col).to_string())
    }

    /// Every native call site in the program, in function and block order.
    pub fn native_calls(&self) -> impl Iterator<Item = &NativeContext> {
        self.functions.iter().flat_map(|f| {
            f.blocks.iter().flat_map(|b| {
                b.insts.iter().filter_map(|i| match &i.kind {
                    InstKind::CallNative { native, .. } => Some(&**native),
                    _ => None,
                })
            })
        })
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub type_params: Vec<TypeParam>,
    pub params: Vec<Param>,
    pub result: IrType,
    pub slots: Vec<Slot>,
    pub blocks: Vec<Block>,
    /// The first block; always `BlockId(0)` for built functions.
    pub entry: BlockId,
}

impl Function {
    pub fn slot(&self, id: SlotId) -> &Slot {
        &self.slots[id.index()]
    }

    pub fn slot_type(&self, id: SlotId) -> &IrType {
        &self.slots[id.index()].ty
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    /// The mode of a parameter slot, or `None` for a local.
    pub fn param_mode(&self, slot: SlotId) -> Option<ParamMode> {
        self.params.iter().find(|p| p.slot == slot).map(|p| p.mode)
    }

    pub fn type_param_names(&self) -> Vec<String> {
        self.type_params.iter().map(|t| t.name.clone()).collect()
    }

    pub fn is_generic(&self) -> bool {
        !self.type_params.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub mode: ParamMode,
    pub slot: SlotId,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The source name, for locals and parameters; `None` for temporaries.
    pub name: Option<String>,
    pub ty: IrType,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

/// Where an instruction came from: 1-based line and column in `Program::files[file]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug)]
pub struct Inst {
    pub kind: InstKind,
    /// For a fallible instruction: the block taken when it fails or the runtime is
    /// abandoning after it. Required exactly on fallible instructions.
    pub abandon: Option<BlockId>,
    pub loc: Option<Loc>,
}

/// A constant.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Unit,
    Bool(bool),
    /// An integer of the destination slot's type (`index` included), as its bits
    /// sign- or zero-extended to 128.
    Int(i128),
    /// A float of the destination slot's type.
    Float(f64),
    /// A string: the destination owns it as any string (to drop, move or grow); every
    /// backend makes it a head over the program's own bytes that owns no buffer
    /// (`docs/abi.md` §7.3), so it costs no allocation.
    Str(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Checked negation (signed integers; fallible) and float negation.
    Neg,
    /// Two's-complement negation that wraps.
    WrappingNeg,
    /// Boolean not.
    Not,
    /// Bitwise complement of an integer.
    BitNot,
    /// Float square root (IEEE, correctly rounded; a negative operand gives NaN).
    Sqrt,
    /// Float rounded toward negative infinity.
    Floor,
    /// Float rounded toward positive infinity.
    Ceil,
    /// Float absolute value (the sign bit cleared).
    Abs,
}

impl UnaryOp {
    /// The float operations every backend lowers to one instruction (the hardware's
    /// square root, rounding and sign-clearing), where a native would cost a call.
    pub fn is_float_math(self) -> bool {
        matches!(
            self,
            UnaryOp::Sqrt | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Abs
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// Checked on integers (fallible: overflow), IEEE on floats.
    Add,
    Sub,
    Mul,
    /// Checked on integers (fallible: division by zero, and overflow for `MIN / -1`).
    Div,
    Rem,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    /// Integer arithmetic proved not to overflow (`ir::ranges` rewrites a checked `Add`,
    /// `Sub` or `Mul` into these; the front end never writes them): infallible, and the
    /// exact result. A backend computes it as the wrapping operation, or as the checked
    /// one whose failure cannot happen, and may tell its compiler that it does not
    /// overflow (as LLVM's `nsw`/`nuw`).
    NoWrapAdd,
    NoWrapSub,
    NoWrapMul,
    BitAnd,
    BitOr,
    BitXor,
    /// Checked shifts: a shift amount at or past the bit width is an overflow.
    Shl,
    Shr,
    /// Boolean `and`/`or` (both sides already evaluated).
    And,
    Or,
}

impl BinaryOp {
    /// The operation an arithmetic error of this operator names (`raise_arith`'s `op`).
    /// Every backend reports through this one mapping.
    pub fn arith_op(self) -> datalove_rti::ArithOp {
        use datalove_rti::ArithOp;
        match self {
            BinaryOp::Add | BinaryOp::WrappingAdd | BinaryOp::NoWrapAdd => ArithOp::Add,
            BinaryOp::Sub | BinaryOp::WrappingSub | BinaryOp::NoWrapSub => ArithOp::Sub,
            BinaryOp::Mul | BinaryOp::WrappingMul | BinaryOp::NoWrapMul => ArithOp::Mul,
            BinaryOp::Div => ArithOp::Div,
            BinaryOp::Rem => ArithOp::Rem,
            BinaryOp::Shl => ArithOp::Shl,
            BinaryOp::Shr => ArithOp::Shr,
            // The rest cannot fail.
            BinaryOp::BitAnd
            | BinaryOp::BitOr
            | BinaryOp::BitXor
            | BinaryOp::And
            | BinaryOp::Or => ArithOp::Add,
        }
    }

    /// Whether the operator applies to integers only: wrapping arithmetic, bit operators
    /// and shifts.
    pub fn integers_only(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            WrappingAdd
                | WrappingSub
                | WrappingMul
                | NoWrapAdd
                | NoWrapSub
                | NoWrapMul
                | BitAnd
                | BitOr
                | BitXor
                | Shl
                | Shr
        )
    }

    /// The `nowrap_*` form of a checked `add`, `sub` or `mul`: what it becomes once
    /// proved not to overflow.
    pub fn no_wrap(self) -> Option<BinaryOp> {
        match self {
            BinaryOp::Add => Some(BinaryOp::NoWrapAdd),
            BinaryOp::Sub => Some(BinaryOp::NoWrapSub),
            BinaryOp::Mul => Some(BinaryOp::NoWrapMul),
            _ => None,
        }
    }

    /// The checked operation a `nowrap_*` one was, which computes the same (it cannot
    /// fail where the `nowrap_*` form stands).
    pub fn checked_form(self) -> Option<BinaryOp> {
        match self {
            BinaryOp::NoWrapAdd => Some(BinaryOp::Add),
            BinaryOp::NoWrapSub => Some(BinaryOp::Sub),
            BinaryOp::NoWrapMul => Some(BinaryOp::Mul),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::WrappingAdd => "wrapping_add",
            BinaryOp::WrappingSub => "wrapping_sub",
            BinaryOp::WrappingMul => "wrapping_mul",
            BinaryOp::NoWrapAdd => "nowrap_add",
            BinaryOp::NoWrapSub => "nowrap_sub",
            BinaryOp::NoWrapMul => "nowrap_mul",
            BinaryOp::BitAnd => "bitand",
            BinaryOp::BitOr => "bitor",
            BinaryOp::BitXor => "bitxor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    /// The operator as C and the text language write it (`==`, `<`, ...).
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

/// An argument of a call: the slot and how it is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    pub mode: ParamMode,
    pub slot: SlotId,
}

#[derive(Clone, Debug)]
pub enum InstKind {
    /// `dst = value`.
    Const { dst: SlotId, value: ConstValue },
    /// Bitwise copy of a copy value; `src` stays initialized.
    Copy { dst: SlotId, src: SlotId },
    /// Moves `src` into `dst`; `src` is uninitialized afterwards.
    Move { dst: SlotId, src: SlotId },
    /// Deep copy; `src` stays initialized.
    Clone { dst: SlotId, src: SlotId },
    /// Frees what the slot owns; the slot is uninitialized afterwards.
    Drop { slot: SlotId },
    Unary {
        dst: SlotId,
        op: UnaryOp,
        src: SlotId,
    },
    Binary {
        dst: SlotId,
        op: BinaryOp,
        lhs: SlotId,
        rhs: SlotId,
    },
    /// `dst: bool`. Scalars compare directly; anything else through the runtime's
    /// `eq`/`cmp` by descriptor.
    Compare {
        dst: SlotId,
        op: CompareOp,
        lhs: SlotId,
        rhs: SlotId,
    },
    /// Numeric conversion between the slots' types. Checked: a value out of the target's
    /// range (or a NaN) is fallible. Unchecked: integers truncate or extend, floats
    /// saturate. A `bool` converts (unchecked) to an integer type as 0 or 1; the front end
    /// never writes that, `ir::ifconv` does.
    Cast {
        dst: SlotId,
        src: SlotId,
        checked: bool,
    },
    /// `dst = lhs ++ rhs` for strings; both operands are read.
    Concat {
        dst: SlotId,
        lhs: SlotId,
        rhs: SlotId,
    },
    /// Builds a tuple (or a record: `dst`'s type says which), moving (or copying) each
    /// field in.
    MakeTuple { dst: SlotId, fields: Vec<SlotId> },
    /// Copies (copy type) or clones field `index` of `src` (a tuple or a record).
    TupleField {
        dst: SlotId,
        src: SlotId,
        index: u32,
    },
    /// Moves every field of `src` out; `src` is uninitialized afterwards.
    Unpack { src: SlotId, dsts: Vec<SlotId> },
    /// Builds variant `variant` of the enum `dst`, moving (or copying) each payload
    /// field in.
    MakeVariant {
        dst: SlotId,
        variant: u32,
        fields: Vec<SlotId>,
    },
    /// `dst: u32`: the variant `src` (an enum) holds, read inline from its tag.
    VariantTag { dst: SlotId, src: SlotId },
    /// Moves every payload field of `src` (an enum holding variant `variant`, which the
    /// code has checked) out; `src` is uninitialized afterwards.
    TakeVariant {
        src: SlotId,
        variant: u32,
        dsts: Vec<SlotId>,
    },
    /// Builds a list, moving (or copying) each element in.
    MakeList { dst: SlotId, elems: Vec<SlotId> },
    /// `dst: index`: the length of `list`, a list or a string (its bytes): the word at
    /// `LIST_LEN_OFFSET` of either, which share the `{ ptr, len, cap }` layout. The front
    /// end writes it for `len(xs)` and for the `std` native `string_len`
    /// ([`crate::lowering::native_inline`]).
    ListLen { dst: SlotId, list: SlotId },
    /// Copies or clones element `index` (an `index` slot) of `list`, a list or a string
    /// (byte `index`, a `u8`: the front end writes it for the `std` native
    /// `string_byte_at`). Fallible: out of bounds.
    /// `checked` is false where a pass proved the index in bounds (`crate::bounds`): a
    /// backend may then leave out its test (the instruction keeps its abandon block, so
    /// a backend that tests anyway behaves the same).
    ///
    /// `view` reads an owned element without cloning it: `dst` gets the element's bytes
    /// while the list keeps owning what they point to, so `dst` is a *view slot*, which
    /// only view reads write and which is only ever read: never moved, dropped, changed
    /// or passed `in`, `mut` or `out` (the verifier refuses each; a consumer clones it
    /// first). The view ends when `list` is written, moved, dropped or changed (the
    /// verifier then takes it as uninitialized), and no call is given it beside `list`
    /// passed `mut`, `out` or moved in. For a copy element a view is the same as a
    /// plain read.
    ListGet {
        dst: SlotId,
        list: SlotId,
        index: SlotId,
        checked: bool,
        view: bool,
    },
    /// `dst` = bytes `start..end` (two `index` slots) of the string `string`: the front
    /// end writes it for the `std` native `string_slice`. Fallible: past the end, for
    /// `start > end` or off a character boundary (`index out of bounds`, the detail
    /// naming the slice). With `view`, `dst` is a view slot of `string` as a
    /// `list_get.view`'s is of its list (it owns nothing: the same rules, the same end);
    /// [`crate::slices`] writes it where `dst` is only read before its drop.
    StrSlice {
        dst: SlotId,
        string: SlotId,
        start: SlotId,
        end: SlotId,
        view: bool,
    },
    /// `dst: [string]` = the pieces of the string `string` between the matches of the
    /// string `sep` (empty pieces kept; an empty `sep` gives one piece, the whole
    /// string), or with `sep` `None` the non-empty pieces between runs of Unicode
    /// whitespace: the `std` natives `string_split` and `string_split_whitespace`, except
    /// that no piece is a string of its own: each is a head over `string`'s bytes that
    /// owns nothing (the runtime's `string_parts`). `dst` owns its list and is dropped as
    /// any list is; it is *bound* to `string`: while `dst` is initialized, `string` (and
    /// what it is a view of) is only read, and `dst` itself is only read (never moved,
    /// changed or passed `mut`, `out` or `in`) and dropped, so no piece outlives the
    /// bytes it shows (the verifier's rule). [`crate::split_walks`] writes it for a loop
    /// over `strings.split(ref s, ref "sep")` that does not change `s`. Infallible.
    StrParts {
        dst: SlotId,
        string: SlotId,
        sep: Option<SlotId>,
    },
    /// `dst: index`: how many entries the map `map` holds (the runtime's `map_len`).
    MapLen { dst: SlotId, map: SlotId },
    /// `dst` = a view of entry `index` (an `index` slot) of the map `map`, in key order:
    /// the entry tuple `(K, V)`'s bytes, owning nothing, under the rules of a
    /// `list_get.view`'s (`map` unchanged while `dst` is live; see [`InstKind::view_made`]).
    /// [`crate::map_walks`] writes it for a loop over `maps.entries(ref m)` that does not
    /// change `m`, so the walk clones no entry. Fallible: out of bounds (the runtime's
    /// `map_entry_at`, one step from the entry before).
    MapEntry {
        dst: SlotId,
        map: SlotId,
        index: SlotId,
    },
    /// Moves `value` into element `index`. Fallible: out of bounds (the value is
    /// destroyed). `checked` as for `ListGet`.
    ListSet {
        list: SlotId,
        index: SlotId,
        value: SlotId,
        checked: bool,
    },
    /// Moves `value` onto the end of `list`.
    ListPush { list: SlotId, value: SlotId },
    /// `dst = some(value)`, moving `value` in.
    MakeSome { dst: SlotId, value: SlotId },
    /// `dst = none` (of `dst`'s type).
    MakeNone { dst: SlotId },
    /// `dst: bool`.
    IsSome { dst: SlotId, src: SlotId },
    /// Moves the payload of `src` into `dst`; `src` is uninitialized afterwards.
    /// Fallible: a none (then `src` stays initialized).
    Unwrap { dst: SlotId, src: SlotId },
    /// Moves `value` into a new data.
    MakeData { dst: SlotId, value: SlotId },
    /// A call of a function of this program. `type_args` binds the callee's type
    /// parameters, in the caller's terms. Fallible.
    Call {
        dst: Option<SlotId>,
        func: FuncId,
        type_args: Vec<IrType>,
        args: Vec<Arg>,
        /// The call-depth this call takes (`docs/abi.md`, section 12): 1, plus one for
        /// each call the inliner replaced by the body this call sits in, so a program
        /// fails at the same depth whatever was inlined. Never 0.
        depth: u32,
    },
    /// A call of a native. Fallible.
    CallNative {
        dst: Option<SlotId>,
        native: Box<NativeContext>,
        args: Vec<Arg>,
    },
    /// Prints the value (formatted by the runtime) and a newline.
    Debuglog { src: SlotId },
    /// Fails with `stack overflow` when less than `depth` call depth is left: the test
    /// a call of that depth makes before its callee starts, kept by the inliner where it
    /// put (part of) the body of a function that makes calls itself in place of a call
    /// of it. Fallible.
    CheckDepth { depth: u32 },
    /// Adds this instruction's location to the chain of calls of the error the runtime
    /// is abandoning with (`called from ...`), as a call that returns abandoning does.
    /// The inliner puts one on the failure path of each call it replaced by the body.
    CalledFrom,
}

/// The parts of a call of a program function ([`InstKind::as_program_call`]), as every
/// backend reads them.
#[derive(Clone, Copy, Debug)]
pub struct ProgramCall<'a> {
    pub dst: Option<SlotId>,
    pub func: FuncId,
    pub type_args: &'a [IrType],
    pub args: &'a [Arg],
    pub depth: u32,
}

impl InstKind {
    /// The parts of a `call` of a program function; `None` for any other instruction.
    pub fn as_program_call(&self) -> Option<ProgramCall<'_>> {
        match self {
            InstKind::Call {
                dst,
                func,
                type_args,
                args,
                depth,
            } => Some(ProgramCall {
                dst: *dst,
                func: *func,
                type_args,
                args,
                depth: *depth,
            }),
            _ => None,
        }
    }

    /// The view slot the instruction writes and the slot it is a view of: a
    /// `list_get.view` (of its list), a `str_slice.view` (of its string) or a `map_entry`
    /// (of its map).
    pub fn view_made(&self) -> Option<(SlotId, SlotId)> {
        match *self {
            InstKind::ListGet {
                dst,
                list,
                view: true,
                ..
            } => Some((dst, list)),
            InstKind::StrSlice {
                dst,
                string,
                view: true,
                ..
            } => Some((dst, string)),
            InstKind::MapEntry { dst, map, .. } => Some((dst, map)),
            _ => None,
        }
    }

    /// Whether the instruction can fail, and so needs an abandon block.
    pub fn is_fallible(&self, func: &Function) -> bool {
        match self {
            InstKind::Unary {
                op: UnaryOp::Neg,
                src,
                ..
            } => func.slot_type(*src).is_integer(),
            InstKind::Binary { op, lhs, .. } => {
                let ty = func.slot_type(*lhs);
                ty.is_integer()
                    && matches!(
                        op,
                        BinaryOp::Add
                            | BinaryOp::Sub
                            | BinaryOp::Mul
                            | BinaryOp::Div
                            | BinaryOp::Rem
                            | BinaryOp::Shl
                            | BinaryOp::Shr
                    )
            }
            InstKind::Cast { checked, .. } => *checked,
            InstKind::ListGet { .. }
            | InstKind::StrSlice { .. }
            | InstKind::MapEntry { .. }
            | InstKind::ListSet { .. }
            | InstKind::Unwrap { .. }
            | InstKind::Call { .. }
            | InstKind::CallNative { .. }
            | InstKind::CheckDepth { .. } => true,
            _ => false,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            InstKind::Const { .. } => "const",
            InstKind::Copy { .. } => "copy",
            InstKind::Move { .. } => "move",
            InstKind::Clone { .. } => "clone",
            InstKind::Drop { .. } => "drop",
            InstKind::Unary { .. } => "unary",
            InstKind::Binary { .. } => "binary",
            InstKind::Compare { .. } => "compare",
            InstKind::Cast { .. } => "cast",
            InstKind::Concat { .. } => "concat",
            InstKind::MakeTuple { .. } => "make_tuple",
            InstKind::TupleField { .. } => "tuple_field",
            InstKind::Unpack { .. } => "unpack",
            InstKind::MakeVariant { .. } => "make_variant",
            InstKind::VariantTag { .. } => "variant_tag",
            InstKind::TakeVariant { .. } => "take_variant",
            InstKind::MakeList { .. } => "make_list",
            InstKind::ListLen { .. } => "list_len",
            InstKind::ListGet { .. } => "list_get",
            InstKind::StrSlice { .. } => "str_slice",
            InstKind::MapLen { .. } => "map_len",
            InstKind::StrParts { .. } => "str_parts",
            InstKind::MapEntry { .. } => "map_entry",
            InstKind::ListSet { .. } => "list_set",
            InstKind::ListPush { .. } => "list_push",
            InstKind::MakeSome { .. } => "make_some",
            InstKind::MakeNone { .. } => "make_none",
            InstKind::IsSome { .. } => "is_some",
            InstKind::Unwrap { .. } => "unwrap",
            InstKind::MakeData { .. } => "make_data",
            InstKind::Call { .. } => "call",
            InstKind::CallNative { .. } => "call_native",
            InstKind::Debuglog { .. } => "debuglog",
            InstKind::CheckDepth { .. } => "check_depth",
            InstKind::CalledFrom => "called_from",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Terminator {
    Jump(BlockId),
    Branch {
        cond: SlotId,
        then_block: BlockId,
        else_block: BlockId,
    },
    /// Returns, moving the result out of the slot (`None` for a unit result).
    Return(Option<SlotId>),
    /// Returns while the runtime is abandoning: every owned slot has been dropped and no
    /// `out` parameter is initialized.
    Abandon,
    /// A block not yet terminated (only while building; the verifier rejects it).
    #[default]
    Unterminated,
}

impl Block {
    /// Every slot its instructions and its terminator name, in order (repeats kept).
    pub fn named_slots(&self) -> impl Iterator<Item = SlotId> + '_ {
        self.insts
            .iter()
            .flat_map(|inst| crate::verify::inst_slots(&inst.kind))
            .chain(self.term.slot())
    }
}

impl Terminator {
    /// The slot it reads: a branch's condition, a returned value.
    pub fn slot(&self) -> Option<SlotId> {
        match *self {
            Terminator::Branch { cond, .. } => Some(cond),
            Terminator::Return(r) => r,
            _ => None,
        }
    }

    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jump(b) => vec![*b],
            Terminator::Branch {
                then_block,
                else_block,
                ..
            } => vec![*then_block, *else_block],
            _ => Vec::new(),
        }
    }
}
