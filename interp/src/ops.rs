//! The interpreter's compact form: per function, a flat vector of operations over
//! resolved frame operands, with jump targets as operation indices.

use std::ffi::c_void;

use datalove_ir::{BinaryOp, CompareOp, UnaryOp};
use datalove_rti::TyKind;

use crate::desc::{DescRef, GenericEntry};

/// A frame operand: a byte offset into the frame, with the top bit set when the frame
/// holds a pointer to the value there instead of the value (parameters passed by
/// reference, values sized at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opnd(pub u32);

impl Opnd {
    pub const INDIRECT: u32 = 1 << 31;

    pub fn direct(offset: u32) -> Opnd {
        Opnd(offset)
    }

    pub fn indirect(offset: u32) -> Opnd {
        Opnd(offset | Opnd::INDIRECT)
    }

    /// The value's address in `frame`.
    ///
    /// # Safety
    /// `frame` must be a frame of the function the operand was resolved for.
    #[inline(always)]
    pub unsafe fn addr(self, frame: *mut u8) -> *mut u8 {
        if self.0 & Opnd::INDIRECT == 0 {
            frame.add(self.0 as usize)
        } else {
            *(frame.add((self.0 & !Opnd::INDIRECT) as usize) as *mut *mut u8)
        }
    }
}

/// How a caller hands one argument to a function.
#[derive(Clone, Copy, Debug)]
pub enum ParamPass {
    /// Copied into the callee's frame (a concrete `in` parameter): `size` bytes at `offset`.
    Value { offset: u32, size: u32 },
    /// The caller's address stored in the callee's frame at `offset`.
    Address { offset: u32 },
}

/// One word of a native call that changes from call to call, written into the call
/// site's prepared words before each call.
#[derive(Clone, Copy, Debug)]
pub enum WordPatch {
    /// The runtime.
    Rt,
    /// The address of a value at a direct frame offset.
    Direct(u32),
    /// The address a frame holds at this offset (a `ref`/`mut`/`out` parameter, a value
    /// sized at run time).
    Indirect(u32),
    /// Entry `n` of the frame's descriptor table.
    FrameDesc(u32),
}

/// The words of a short native call as a formula of the frame address: word `i` (past the
/// runtime, word 0) is `base[i] + (frame & mask[i])`, so a fixed word has mask 0 and its
/// value in `base`, and a direct frame address has mask all-ones and its offset in `base`.
#[derive(Clone, Copy, Debug)]
pub struct ShortWords {
    pub base: [usize; SHORT_CALL],
    pub mask: [usize; SHORT_CALL],
}

/// The most words a call passed in registers (`ShortWords`) has; longer calls, and calls
/// with indirect or descriptor-table words, fill a prepared array.
pub const SHORT_CALL: usize = 8;

/// A native call site, prepared when it is lowered.
#[derive(Clone, Debug)]
pub struct NativeCall {
    pub function: *const c_void,
    /// The call's words: every word that is the same at every call (static descriptors,
    /// the place for a unit result) is in place. Padded with zeros to a fixed length
    /// (`count` words are the call's).
    pub words: Box<[usize]>,
    pub count: u32,
    /// The words that change, written before each call.
    pub patches: Box<[(u32, WordPatch)]>,
    /// The call in registers, when it has at most `SHORT_CALL` words and every word that
    /// changes is the runtime or a direct frame address (most calls): nothing is copied
    /// or stored, each word is computed where it is passed.
    pub short: Option<ShortWords>,
    pub native: u32,
    /// What the native initialized (result, `out` arguments) that owns memory: dropped
    /// when it returned OK while the runtime is abandoning (it raised).
    pub written: Box<[(Opnd, DescRef)]>,
}

#[derive(Clone, Debug)]
pub struct CallArg {
    pub src: Opnd,
    pub pass: ParamPass,
}

#[derive(Clone, Debug)]
#[repr(u32)]
pub enum Op {
    // ---- scalars, on concrete types ----
    /// Writes the low `size` bytes of `bits`.
    Const {
        dst: Opnd,
        bits: u64,
        size: u8,
    },
    /// `size` bytes from `src` to `dst` (a copy or a move of a concrete type).
    Mov {
        dst: Opnd,
        src: Opnd,
        size: u32,
    },
    Unary(Unary),
    Binary(Binary),
    Compare(Compare),
    Cast(Cast),
    Jump(u32),
    Branch {
        cond: Opnd,
        then_pc: u32,
        else_pc: u32,
    },

    // ---- anything, through descriptors ----
    /// A move of a value sized by its descriptor.
    MovDyn {
        dst: Opnd,
        src: Opnd,
        desc: DescRef,
    },
    /// Compares through the runtime's `eq`/`cmp`.
    CompareDyn {
        op: CompareOp,
        desc: DescRef,
        dst: Opnd,
        a: Opnd,
        b: Opnd,
    },
    ConstStr {
        dst: Opnd,
        bytes: Box<[u8]>,
    },
    Clone {
        dst: Opnd,
        src: Opnd,
        desc: DescRef,
    },
    Drop {
        slot: Opnd,
        desc: DescRef,
    },
    /// The drop of a string: the runtime's only when it owns a buffer
    /// (`ValueOp::DropString`).
    DropString {
        slot: Opnd,
    },
    Concat {
        dst: Opnd,
        a: Opnd,
        b: Opnd,
    },
    MakeTuple {
        dst: Opnd,
        desc: DescRef,
        fields: Box<[Opnd]>,
    },
    TupleField {
        dst: Opnd,
        src: Opnd,
        desc: DescRef,
        index: u32,
    },
    Unpack {
        src: Opnd,
        desc: DescRef,
        dsts: Box<[Opnd]>,
    },
    /// Writes the tag and moves each payload field in: `(field, offset in the enum,
    /// size)`, offsets from the one layout function.
    MakeVariant {
        dst: Opnd,
        tag: u32,
        fields: Box<[(Opnd, u32, u32)]>,
    },
    /// `dst: u32` = the tag of the enum at `src`.
    VariantTag {
        dst: Opnd,
        src: Opnd,
    },
    /// Moves each payload field out: `(destination, offset in the enum, size)`.
    TakeVariant {
        src: Opnd,
        dsts: Box<[(Opnd, u32, u32)]>,
    },
    /// `MakeVariant` of an enum laid out at run time: offsets and sizes from its
    /// descriptor (`fields[tag]`, the payload tuple).
    MakeVariantDyn {
        dst: Opnd,
        desc: DescRef,
        tag: u32,
        fields: Box<[Opnd]>,
    },
    /// `TakeVariant` of an enum laid out at run time.
    TakeVariantDyn {
        src: Opnd,
        desc: DescRef,
        tag: u32,
        dsts: Box<[Opnd]>,
    },
    MakeList {
        dst: Opnd,
        elem: DescRef,
        elems: Box<[Opnd]>,
    },
    ListLen {
        dst: Opnd,
        list: Opnd,
    },
    /// `dst: [string]` = the pieces of `string` by `sep` (`None`: by whitespace), each a
    /// head over `string`'s bytes that owns nothing (the runtime's `string_parts`).
    StrParts {
        dst: Opnd,
        string: Opnd,
        sep: Option<Opnd>,
    },
    /// `dst: index` = the entries of the map at `map` (the runtime's `map_len`).
    MapLen {
        dst: Opnd,
        map: Opnd,
    },
    /// `dst` = the bytes of entry `index` of the map at `map` (of descriptor `map_desc`),
    /// a view: the map keeps what they own; past the end, the bounds error.
    MapEntry {
        dst: Opnd,
        map: Opnd,
        index: Opnd,
        map_desc: DescRef,
        fail: u32,
    },
    ListGet(ListGet),
    /// `dst` = bytes `start..end` of `string`: a string of their own, or (`view`) a head
    /// over `string`'s bytes that owns nothing; the runtime's `string_part` checks the
    /// slice and raises its error.
    StrSlice {
        dst: Opnd,
        string: Opnd,
        start: Opnd,
        end: Opnd,
        view: bool,
        fail: u32,
    },
    ListSet(ListSet),
    ListPush {
        list: Opnd,
        value: Opnd,
        elem: DescRef,
    },
    MakeSome {
        dst: Opnd,
        value: Opnd,
        desc: DescRef,
    },
    MakeNone {
        dst: Opnd,
        desc: DescRef,
    },
    IsSome {
        dst: Opnd,
        src: Opnd,
    },
    Unwrap {
        dst: Opnd,
        src: Opnd,
        desc: DescRef,
        fail: u32,
    },
    MakeData {
        dst: Opnd,
        value: Opnd,
        desc: DescRef,
    },
    Debuglog {
        src: Opnd,
        desc: DescRef,
    },
    /// Boxed: the generic call's payload is the largest, and every operation is as large
    /// as the largest payload.
    Call(Box<Call>),
    CallNative {
        call: Box<NativeCall>,
        fail: u32,
    },
    /// Returns, moving the value (sized by its descriptor) to the caller's destination.
    Return {
        src: Option<(Opnd, DescRef)>,
    },
    Abandon,
    /// A failure path's stub (after every block): reports site `site` of the function
    /// (`CFunc::sites`) to the runtime (`error_at`), then goes to the abandon target
    /// `next`. A fallible operation with a location fails to its stub.
    Site {
        site: u32,
        next: u32,
    },
    /// Fails with `stack overflow` when less than `depth` call depth is left (IR
    /// `check_depth`).
    CheckDepth {
        depth: u32,
        fail: u32,
    },
    /// Reports site `site` (`CFunc::sites`) to the runtime (`error_at`) and goes on
    /// (IR `called_from`, on a failure path).
    CalledFrom {
        site: u32,
    },

    // ---- the fast form (`crate::fast`): concrete scalars at direct frame offsets ----
    // Each replaces the generic operation(s) above when its operands are frame slots
    // (no indirection) of the type it names, so the hot path tests neither. A fused
    // operation stands in place of the first operation of its sequence; the ones it
    // covers stay behind it, unreached by falling through. The payloads (below) are
    // shared by the variants of one shape; the dispatch loop runs each family through
    // one macro (`exec.rs`).
    /// 8 bytes of constant.
    ConstW {
        dst: u32,
        bits: u64,
    },
    /// 1 byte of constant (bool, u8, i8).
    ConstB {
        dst: u32,
        bits: u8,
    },
    /// An 8-byte copy.
    MovW {
        dst: u32,
        src: u32,
    },
    /// A 1-byte copy.
    MovB {
        dst: u32,
        src: u32,
    },
    /// Checked 64-bit arithmetic (`i64`; `u64` or `index`, named by `ty` in an error).
    AddI64(Checked),
    SubI64(Checked),
    MulI64(Checked),
    AddU64(Checked),
    SubU64(Checked),
    MulU64(Checked),
    /// `Const k` into `kd`, then checked `d = a op k`: two operations in one.
    AddI64K(CheckedK),
    SubI64K(CheckedK),
    MulI64K(CheckedK),
    AddU64K(CheckedK),
    SubU64K(CheckedK),
    MulU64K(CheckedK),
    /// `Const k` into `kd`, then `d = a op k` where `k` can neither divide by zero nor
    /// overflow a division (`k > 0`).
    DivI64K(WithK),
    RemI64K(WithK),
    DivU64K(WithK),
    RemU64K(WithK),
    /// The same by a power of two `k`: a shift or a mask, not a division.
    DivI64P2(WithK),
    RemI64P2(WithK),
    DivU64P2(WithK),
    RemU64P2(WithK),
    /// IEEE `f64` arithmetic.
    AddF64(Slots),
    SubF64(Slots),
    MulF64(Slots),
    DivF64(Slots),
    /// `Const k` into `kd`, then `d = a op k` on `f64` (for `+` and `*` the constant may
    /// have been either operand: both are commutative in IEEE arithmetic).
    AddF64K(WithK),
    SubF64K(WithK),
    MulF64K(WithK),
    DivF64K(WithK),
    /// Comparisons writing a bool at `d` (`>`/`>=` are `<`/`<=` with the operands swapped).
    EqI64(Slots),
    NeI64(Slots),
    LtI64(Slots),
    LeI64(Slots),
    EqU64(Slots),
    NeU64(Slots),
    LtU64(Slots),
    LeU64(Slots),
    EqF64(Slots),
    NeF64(Slots),
    LtF64(Slots),
    LeF64(Slots),
    /// A comparison and the branch on it: writes the bool at `d` and jumps.
    BrEqI64(CompareBranch),
    BrNeI64(CompareBranch),
    BrLtI64(CompareBranch),
    BrLeI64(CompareBranch),
    BrEqU64(CompareBranch),
    BrNeU64(CompareBranch),
    BrLtU64(CompareBranch),
    BrLeU64(CompareBranch),
    BrEqF64(CompareBranch),
    BrNeF64(CompareBranch),
    BrLtF64(CompareBranch),
    BrLeF64(CompareBranch),
    /// `Const k` into `kd`, the comparison of `a` with it into `d`, and the branch on it
    /// (`k` holds an `f64`'s bits for the `F64` ones).
    BrEqI64K(CompareBranchK),
    BrNeI64K(CompareBranchK),
    BrLtI64K(CompareBranchK),
    BrLeI64K(CompareBranchK),
    BrGtI64K(CompareBranchK),
    BrGeI64K(CompareBranchK),
    BrEqU64K(CompareBranchK),
    BrNeU64K(CompareBranchK),
    BrLtU64K(CompareBranchK),
    BrLeU64K(CompareBranchK),
    BrGtU64K(CompareBranchK),
    BrGeU64K(CompareBranchK),
    BrEqF64K(CompareBranchK),
    BrNeF64K(CompareBranchK),
    BrLtF64K(CompareBranchK),
    BrLeF64K(CompareBranchK),
    BrGtF64K(CompareBranchK),
    BrGeF64K(CompareBranchK),
    /// A branch on a bool in the frame.
    BranchD {
        cond: u32,
        t: u32,
        e: u32,
    },
    /// A list element of a copy type, 8 or 1 bytes, read or written in place from the
    /// list's layout (`{ ptr, len, cap }`), with the bounds error of `ListGet`/`ListSet`.
    GetW(Element),
    GetB(Element),
    SetW(Element),
    SetB(Element),
    /// The same with the list at an indirect operand (a `ref`/`mut` parameter): the
    /// frame holds the list's address at `list`.
    GetWI(Element),
    GetBI(Element),
    SetWI(Element),
    SetBI(Element),
    /// `ListPush` of a copy element of 8 or 1 bytes: written at the end in place while
    /// the buffer has room, else the runtime's `list_push` (which grows it); `..I` with
    /// the list at an indirect operand.
    PushW(ElementPush),
    PushB(ElementPush),
    PushWI(ElementPush),
    PushBI(ElementPush),
    /// Boolean `and`/`or` of two evaluated bools.
    AndB(Slots),
    OrB(Slots),
    /// Conversions that cannot fail: a `bool` to a 64-bit integer (0 or 1: a step
    /// `ir::ifconv` made of a branch), a 64-bit integer to `f64`.
    BoolToW {
        d: u32,
        s: u32,
    },
    I64ToF64 {
        d: u32,
        s: u32,
    },
    U64ToF64 {
        d: u32,
        s: u32,
    },
    /// `f64` operations the hardware does in one instruction: `d = op s`.
    SqrtF64 {
        d: u32,
        s: u32,
    },
    AbsF64 {
        d: u32,
        s: u32,
    },
    NegF64 {
        d: u32,
        s: u32,
    },
    FloorF64 {
        d: u32,
        s: u32,
    },
    CeilF64 {
        d: u32,
        s: u32,
    },
    /// Between `i64` and `u64`/`index`: checked (`ty` is the error's `cast_ty`) or not.
    I64ToU64 {
        d: u32,
        s: u32,
        ty: u32,
        fail: u32,
    },
    U64ToI64 {
        d: u32,
        s: u32,
        ty: u32,
        fail: u32,
    },
    /// An operation above followed by the copy of its result to `m` (`set x = x + 1`
    /// lowers to `t = add x, 1; x = copy t`): writes both.
    IncI64(ThenCopy<CheckedK>),
    IncU64(ThenCopy<CheckedK>),
    AddI64M(ThenCopy<Checked>),
    SubI64M(ThenCopy<Checked>),
    AddU64M(ThenCopy<Checked>),
    AddF64M(ThenCopy<Slots>),
    SubF64M(ThenCopy<Slots>),
    MulF64M(ThenCopy<Slots>),
    /// An `f64` product and the sum or difference that takes it (`t = a * b` then
    /// `d = t + c`, `d = c + t`, `d = t - c` or `d = c - t`): both written, the product
    /// carried in a register to the second operation. Two roundings, as the two
    /// operations make (no fused multiply-add).
    MulAddF64(MulThen),
    MulSubF64(MulThen),
    MulRsubF64(MulThen),
    MulAddF64M(ThenCopy<MulThen>),
    MulSubF64M(ThenCopy<MulThen>),
    MulRsubF64M(ThenCopy<MulThen>),
    /// `f64` arithmetic and the test of its result against a constant after it (`tr +
    /// ti <= 4.0`): both written, the result carried in a register to the test.
    AddF64BrLtK(ThenBranch),
    AddF64BrLeK(ThenBranch),
    AddF64BrGtK(ThenBranch),
    AddF64BrGeK(ThenBranch),
    SubF64BrLtK(ThenBranch),
    SubF64BrLeK(ThenBranch),
    SubF64BrGtK(ThenBranch),
    SubF64BrGeK(ThenBranch),
    MulF64BrLtK(ThenBranch),
    MulF64BrLeK(ThenBranch),
    MulF64BrGtK(ThenBranch),
    MulF64BrGeK(ThenBranch),
    /// A counter's step and the loop's test after it (`set i = i + 1` then `loop while
    /// i < n`): the step's operations, the copy of its result, and the compare-and-branch
    /// that reads the result, in one. `Inc..`: a constant step; `Add..`: a step in a slot;
    /// `..K`: a constant bound.
    IncBrEqI64(StepBranch),
    IncBrNeI64(StepBranch),
    IncBrLtI64(StepBranch),
    IncBrLeI64(StepBranch),
    IncBrEqU64(StepBranch),
    IncBrNeU64(StepBranch),
    IncBrLtU64(StepBranch),
    IncBrLeU64(StepBranch),
    IncBrEqI64K(StepBranch),
    IncBrNeI64K(StepBranch),
    IncBrLtI64K(StepBranch),
    IncBrLeI64K(StepBranch),
    IncBrEqU64K(StepBranch),
    IncBrNeU64K(StepBranch),
    IncBrLtU64K(StepBranch),
    IncBrLeU64K(StepBranch),
    AddBrEqI64(StepBranch),
    AddBrNeI64(StepBranch),
    AddBrLtI64(StepBranch),
    AddBrLeI64(StepBranch),
    AddBrEqU64(StepBranch),
    AddBrNeU64(StepBranch),
    AddBrLtU64(StepBranch),
    AddBrLeU64(StepBranch),
    AddBrEqI64K(StepBranch),
    AddBrNeI64K(StepBranch),
    AddBrLtI64K(StepBranch),
    AddBrLeI64K(StepBranch),
    AddBrEqU64K(StepBranch),
    AddBrNeU64K(StepBranch),
    AddBrLtU64K(StepBranch),
    AddBrLeU64K(StepBranch),
    /// A checked subtraction of a constant and the test of its result after it
    /// (`fib(n - 1)` behind `if n - 1 < 2`, `set i = i - 1` then `loop while i > 0`):
    /// as `IncBr..`, but it subtracts, and an overflow is a subtraction's.
    SubBrEqI64(StepBranch),
    SubBrNeI64(StepBranch),
    SubBrLtI64(StepBranch),
    SubBrLeI64(StepBranch),
    SubBrEqU64(StepBranch),
    SubBrNeU64(StepBranch),
    SubBrLtU64(StepBranch),
    SubBrLeU64(StepBranch),
    SubBrEqI64K(StepBranch),
    SubBrNeI64K(StepBranch),
    SubBrLtI64K(StepBranch),
    SubBrLeI64K(StepBranch),
    SubBrEqU64K(StepBranch),
    SubBrNeU64K(StepBranch),
    SubBrLtU64K(StepBranch),
    SubBrLeU64K(StepBranch),
    /// A call-depth test (`CheckDepth`), then a constant subtracted and the test of the
    /// difference (`SubBr..`): an inlined recursive call, whose depth test now stands
    /// before its argument's `n - 1` and its base case's `n - 1 < 2`.
    DepthSubBrEqI64(DepthThen<StepBranch>),
    DepthSubBrNeI64(DepthThen<StepBranch>),
    DepthSubBrLtI64(DepthThen<StepBranch>),
    DepthSubBrLeI64(DepthThen<StepBranch>),
    DepthSubBrEqU64(DepthThen<StepBranch>),
    DepthSubBrNeU64(DepthThen<StepBranch>),
    DepthSubBrLtU64(DepthThen<StepBranch>),
    DepthSubBrLeU64(DepthThen<StepBranch>),
    DepthSubBrEqI64K(DepthThen<StepBranch>),
    DepthSubBrNeI64K(DepthThen<StepBranch>),
    DepthSubBrLtI64K(DepthThen<StepBranch>),
    DepthSubBrLeI64K(DepthThen<StepBranch>),
    DepthSubBrEqU64K(DepthThen<StepBranch>),
    DepthSubBrNeU64K(DepthThen<StepBranch>),
    DepthSubBrLtU64K(DepthThen<StepBranch>),
    DepthSubBrLeU64K(DepthThen<StepBranch>),
    /// An index computed by a checked `+` and the 8-byte element read at it (`b[bi +
    /// 3]`): `K` a constant step, `I` the list's address in the frame.
    AddKGetW(IndexGet),
    AddKGetWI(IndexGet),
    AddGetW(IndexGet),
    AddGetWI(IndexGet),
    /// The same with a checked `-` (`perm[k - m]`, `xs[i - 1]`).
    SubKGetW(IndexGet),
    SubKGetWI(IndexGet),
    SubGetW(IndexGet),
    SubGetWI(IndexGet),
    /// An element read and the element write after it (`set a[i] = b[j]`), both lists
    /// in the frame or both reached through an address there (`..I`).
    MoveW(ElementMove),
    MoveWI(ElementMove),
    MoveB(ElementMove),
    MoveBI(ElementMove),
    /// Two checked `+` in a row (`i + j + 1`, `s + i + 1`): both written, as the two
    /// operations write them, in one dispatch. `K`: the second adds a constant.
    AddAddI64(Then<Checked>),
    AddAddU64(Then<Checked>),
    AddAddKI64(Then<CheckedK>),
    AddAddKU64(Then<CheckedK>),
    /// A checked `*` and the division of its product by a power of two after it
    /// (`n * (n + 1) / 2`).
    MulDivP2I64(Then<WithK>),
    MulDivP2U64(Then<WithK>),
    /// A conversion to `f64` and the `f64` division after it (`1.0 / (n as f64)`).
    I64ToF64Div(ConvertDiv),
    U64ToF64Div(ConvertDiv),
    /// Two `f64` operations in a row, `+`, `-` or `*` each (`tr - ti + cr`, `zr * zr`
    /// then `zi * zi`): each reads its operands from their slots, writes its result and
    /// its copy (`m`), as it would alone; one dispatch. `PairSubAddF64` is `-` then `+`.
    PairAddAddF64(F64Pair),
    PairAddSubF64(F64Pair),
    PairAddMulF64(F64Pair),
    PairSubAddF64(F64Pair),
    PairSubSubF64(F64Pair),
    PairSubMulF64(F64Pair),
    PairMulAddF64(F64Pair),
    PairMulSubF64(F64Pair),
    PairMulMulF64(F64Pair),
    /// An `f64` product and sum or difference (`MulAddF64`, ..), then the 8-byte element
    /// write of its result (`set b[k] = b[k] - x * y`); `..I` the list's address in the
    /// frame.
    MulAddSetW(MulThenSet),
    MulAddSetWI(MulThenSet),
    MulSubSetW(MulThenSet),
    MulSubSetWI(MulThenSet),
    MulRsubSetW(MulThenSet),
    MulRsubSetWI(MulThenSet),
    /// An `f64` product, then one of the operations above that starts with a product
    /// (`dx * mass * mag`, its sum or difference, and perhaps the element write of it):
    /// `MulMulRsubSetWI` is a `MulF64` then `MulRsubSetWI`.
    MulMulAddF64(Prefixed<MulThen>),
    MulMulSubF64(Prefixed<MulThen>),
    MulMulRsubF64(Prefixed<MulThen>),
    MulMulAddSetW(Prefixed<MulThenSet>),
    MulMulAddSetWI(Prefixed<MulThenSet>),
    MulMulSubSetW(Prefixed<MulThenSet>),
    MulMulSubSetWI(Prefixed<MulThenSet>),
    MulMulRsubSetW(Prefixed<MulThenSet>),
    MulMulRsubSetWI(Prefixed<MulThenSet>),
    /// An 8-byte element read, then an `f64` product and the sum that takes it (`sum +
    /// a * u[j]`, with the copy of the result: `..M..`); `..I` the list's address in the
    /// frame.
    GetMulAddW(GetThen<MulThen>),
    GetMulAddWI(GetThen<MulThen>),
    GetMulAddMW(GetThen<ThenCopy<MulThen>>),
    GetMulAddMWI(GetThen<ThenCopy<MulThen>>),
    /// A `bool` element read and the branch on it (`if flags[k]`); `..I` the list's
    /// address in the frame.
    GetBBr(ElementBranch),
    GetBIBr(ElementBranch),
    /// A native call in registers (`NativeCall::short`) of 3 to 8 words: the function
    /// type is chosen by the variant, not by a test of the count.
    NativeS3(NativeShort),
    NativeS4(NativeShort),
    NativeS5(NativeShort),
    NativeS6(NativeShort),
    NativeS7(NativeShort),
    NativeS8(NativeShort),
    /// A call whose arguments are all concrete values at direct offsets, with no type
    /// arguments: `(src, callee offset, size)` per argument.
    CallV {
        callee: u32,
        args: Box<[(u32, u32, u32)]>,
        /// The result's place (null when the result is not kept).
        dst: Option<u32>,
        /// The call depth the call takes (IR `call ... depth`).
        depth: u32,
        fail: u32,
    },
    /// `CallV` with one argument, of 8 bytes: no loop over the arguments.
    CallW1(CallOne),
    /// A checked `+` or `-` of a constant and the one-argument call that takes its result
    /// (`fib(n - 1)`).
    AddKCallI64(StepCall),
    SubKCallI64(StepCall),
    AddKCallU64(StepCall),
    SubKCallU64(StepCall),
    /// A one-argument call, then the checked `+` that takes its result and the copy of
    /// the sum (`s = s + f(x)`, `fib(n - 1) + fib(n - 2)`): three operations.
    CallAddI64M(CallThen<ThenCopy<Checked>>),
    CallAddU64M(CallThen<ThenCopy<Checked>>),
    /// Returns an 8-byte value from a direct offset.
    RetW {
        src: u32,
    },
    /// A checked `i64` operation and the return of its result (`ret fib(n - 1) + fib(n -
    /// 2)`): one operation that ends its path, so a jump to it becomes a copy of it.
    AddRetI64(Checked),
    SubRetI64(Checked),
    MulRetI64(Checked),
}

// The generic operations' payloads that the fast form reads too (`crate::fast`).

/// `dst = op src` on a concrete scalar type (checked where `op` can fail).
#[derive(Clone, Debug)]
pub struct Unary {
    pub op: UnaryOp,
    pub ty: TyKind,
    pub dst: Opnd,
    pub src: Opnd,
    pub fail: u32,
}

/// `dst = a op b` on a concrete scalar type (checked where `op` can fail).
#[derive(Clone, Debug)]
pub struct Binary {
    pub op: BinaryOp,
    pub ty: TyKind,
    pub dst: Opnd,
    pub a: Opnd,
    pub b: Opnd,
    pub fail: u32,
}

/// `dst = a op b`, a bool, on a concrete scalar type.
#[derive(Clone, Debug)]
pub struct Compare {
    pub op: CompareOp,
    pub ty: TyKind,
    pub dst: Opnd,
    pub a: Opnd,
    pub b: Opnd,
}

/// `dst` = `src` converted from `from` to `to`, checked or not.
#[derive(Clone, Debug)]
pub struct Cast {
    pub from: TyKind,
    pub to: TyKind,
    pub checked: bool,
    pub dst: Opnd,
    pub src: Opnd,
    pub fail: u32,
}

/// `dst` = a clone of element `index` of `list`; the bounds error past its end.
#[derive(Clone, Debug)]
pub struct ListGet {
    pub dst: Opnd,
    pub list: Opnd,
    pub index: Opnd,
    pub elem: DescRef,
    pub fail: u32,
    /// The element's bytes without a clone (`list_get.view`).
    pub view: bool,
}

/// Moves `value` into element `index` of `list`; the bounds error past its end.
#[derive(Clone, Debug)]
pub struct ListSet {
    pub list: Opnd,
    pub index: Opnd,
    pub value: Opnd,
    pub elem: DescRef,
    pub fail: u32,
}

/// A call of program function `callee`.
#[derive(Clone, Debug)]
pub struct Call {
    pub callee: u32,
    pub args: Box<[CallArg]>,
    pub type_args: Box<[DescRef]>,
    pub dst: Option<Opnd>,
    /// The owned `in` arguments, in the caller's terms: dropped when the callee cannot
    /// get a frame.
    pub in_drops: Box<[(Opnd, DescRef)]>,
    /// The call depth the call takes (IR `call ... depth`).
    pub depth: u32,
    pub fail: u32,
}

// The fast form's payloads: frame offsets (`d` the result, `a` and `b` the operands),
// operation indices (`t`, `e` the branch targets, `fail` the abandon target).

/// `d = a op b`.
#[derive(Clone, Copy, Debug)]
pub struct Slots {
    pub d: u32,
    pub a: u32,
    pub b: u32,
}

/// `t = a * b`, then `d = t op c` (or `c op t`).
#[derive(Clone, Copy, Debug)]
pub struct MulThen {
    pub t: u32,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub d: u32,
}

/// Checked `d = a op b`; `ty` names the type in an overflow error.
#[derive(Clone, Copy, Debug)]
pub struct Checked {
    pub d: u32,
    pub a: u32,
    pub b: u32,
    pub ty: TyKind,
    pub fail: u32,
}

/// `Const k` into `kd`, then `d = a op k`.
#[derive(Clone, Copy, Debug)]
pub struct WithK {
    pub d: u32,
    pub a: u32,
    pub k: u64,
    pub kd: u32,
}

impl WithK {
    /// The same operation, checked.
    pub fn checked(self, ty: TyKind, fail: u32) -> CheckedK {
        let WithK { d, a, k, kd } = self;
        CheckedK {
            d,
            a,
            k,
            kd,
            ty,
            fail,
        }
    }
}

/// `Const k` into `kd`, then checked `d = a op k`.
#[derive(Clone, Copy, Debug)]
pub struct CheckedK {
    pub d: u32,
    pub a: u32,
    pub k: u64,
    pub kd: u32,
    pub ty: TyKind,
    pub fail: u32,
}

/// `d = a op b`, then the branch on it.
#[derive(Clone, Copy, Debug)]
pub struct CompareBranch {
    pub d: u32,
    pub a: u32,
    pub b: u32,
    pub to: Targets,
}

/// `Const k` into `kd`, `d = a op k`, then the branch on it.
#[derive(Clone, Copy, Debug)]
pub struct CompareBranchK {
    pub d: u32,
    pub a: u32,
    pub k: u64,
    pub kd: u32,
    pub to: Targets,
}

/// A branch's targets: `t` when its condition holds, else `e`.
#[derive(Clone, Copy, Debug)]
pub struct Targets {
    pub t: u32,
    pub e: u32,
}

/// Element `index` (the frame offset of an `index`) of the list at `list`, read into
/// `value` or written from it.
#[derive(Clone, Copy, Debug)]
pub struct Element {
    pub list: u32,
    pub index: u32,
    pub value: u32,
    pub fail: u32,
}

/// A list push in place: the list (in the frame, or its address there), the value's
/// slot, and the element's static descriptor for the runtime's `list_push`.
#[derive(Clone, Copy, Debug)]
pub struct ElementPush {
    pub list: u32,
    pub value: u32,
    pub elem: *const datalove_rti::TyDesc,
}

/// An element read (`get`), then an element write (`set`).
#[derive(Clone, Copy, Debug)]
pub struct ElementMove {
    pub get: Element,
    pub set: Element,
}

/// Checked `d = a + step`, its result copied to `m`: `step` is the step's slot, or,
/// for a constant step, where the constant `k` (sign-extended) is written first.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub d: u32,
    pub a: u32,
    pub m: u32,
    pub step: u32,
    pub k: i32,
    pub ty: TyKind,
    pub fail: u32,
}

/// `d = (the stepped value) op b`, then the branch on it: `b` is the bound's slot, or,
/// for a constant bound, where the constant `k` (sign-extended) is written first.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    pub d: u32,
    pub b: u32,
    pub k: i32,
    pub to: Targets,
}

/// Checked `d = a + step` (`step` the slot of the step, or where the constant `k`,
/// sign-extended, is written first), then the element at index `d` read (`get.index`
/// is `d`).
#[derive(Clone, Copy, Debug)]
pub struct IndexGet {
    pub d: u32,
    pub a: u32,
    pub step: u32,
    pub k: i32,
    pub ty: TyKind,
    pub fail: u32,
    pub get: Element,
}

/// `op.d = op.a (op) op.b`, then the compare-and-branch `br` on it (`br.a` is `op.d`).
#[derive(Clone, Copy, Debug)]
pub struct ThenBranch {
    pub op: Slots,
    pub br: CompareBranchK,
}

/// A checked integer operation, then the one after it (`then`), each with its own
/// operands and error.
#[derive(Clone, Copy, Debug)]
pub struct Then<T> {
    pub first: Checked,
    pub then: T,
}

/// `c = s as f64`, then `d = a / b` (on `f64`).
#[derive(Clone, Copy, Debug)]
pub struct ConvertDiv {
    pub c: u32,
    pub s: u32,
    pub div: Slots,
}

/// `d = a op b` on `f64`, the result also written to `m` (a copy after the operation,
/// or `d` itself when there is none).
#[derive(Clone, Copy, Debug)]
pub struct F64Step {
    pub d: u32,
    pub a: u32,
    pub b: u32,
    pub m: u32,
}

/// Two `f64` operations in a row; `covers` is how many operations the pair stands for
/// (each copy one more), all skipped after it.
#[derive(Clone, Copy, Debug)]
pub struct F64Pair {
    pub first: F64Step,
    pub then: F64Step,
    pub covers: u32,
}

/// `MulThen`, then the element write of its result (`set.value` is `op.d`).
#[derive(Clone, Copy, Debug)]
pub struct MulThenSet {
    pub op: MulThen,
    pub set: Element,
}

/// A call of `callee` with one 8-byte argument, copied from `src` to the callee's
/// `offset`; the result's place `dst` (`u32::MAX` when the result is not kept), the call
/// depth it takes and its abandon target.
#[derive(Clone, Copy, Debug)]
pub struct CallOne {
    pub callee: u32,
    pub src: u32,
    pub offset: u32,
    pub dst: u32,
    pub depth: u32,
    pub fail: u32,
}

/// A checked operation with a constant (`step`), then the call that takes its result
/// as its argument (`call.src` is `step.d`).
#[derive(Clone, Copy, Debug)]
pub struct StepCall {
    pub step: CheckedK,
    pub call: CallOne,
}

/// A call-depth test (`depth`, failing to `fail`), then the operation after it (`then`).
#[derive(Clone, Copy, Debug)]
pub struct DepthThen<T> {
    pub depth: u32,
    pub fail: u32,
    pub then: T,
}

/// A one-argument call (`call`), then the operation after it (`then`).
#[derive(Clone, Copy, Debug)]
pub struct CallThen<T> {
    pub call: CallOne,
    pub then: T,
}

/// An `f64` product `mul`, then the operation after it (`then`).
#[derive(Clone, Copy, Debug)]
pub struct Prefixed<T> {
    pub mul: Slots,
    pub then: T,
}

/// An element read (`get`), then the operation after it (`then`).
#[derive(Clone, Copy, Debug)]
pub struct GetThen<T> {
    pub get: Element,
    pub then: T,
}

/// An element read (`get`), then the branch on the value read.
#[derive(Clone, Copy, Debug)]
pub struct ElementBranch {
    pub get: Element,
    pub to: Targets,
}

/// A counter's step, then the loop's test on the stepped value.
#[derive(Clone, Copy, Debug)]
pub struct StepBranch {
    pub step: Step,
    pub br: Bound,
}

/// An operation, then its result's 8 bytes copied to `m`.
#[derive(Clone, Copy, Debug)]
pub struct ThenCopy<T> {
    pub op: T,
    pub m: u32,
}

/// A native call whose words go in registers (its `short` is there).
#[derive(Clone, Debug)]
pub struct NativeShort {
    pub call: Box<NativeCall>,
    pub fail: u32,
}

/// A function, lowered.
pub struct CFunc {
    pub ops: Vec<Op>,
    /// Bytes of frame: the descriptor table, then the slots.
    pub frame_size: usize,
    pub type_params: usize,
    /// Built on entry into descriptor-table entries `type_params..`.
    pub generic_entries: Vec<GenericEntry>,
    /// Locals sized at run time: each gets shadow-stack memory on entry, its address
    /// stored at the operand's offset.
    /// (A written `in` parameter sized at run time is one of them, `true`: its value is
    /// copied from the caller's place, whose address the operand held.)
    pub shadow_locals: Vec<(u32, DescRef, bool)>,
    /// Where the shadow-stack mark is kept, when there are shadow locals.
    pub shadow_mark: Option<u32>,
    /// The owned `in` parameters, dropped when the function fails on entry (shadow
    /// stack exhausted) before its body could own them.
    pub entry_drops: Vec<(Opnd, DescRef)>,
    /// The locations `Op::Site` reports (`Program::error_site`).
    pub sites: Vec<Box<[u8]>>,
}

/// A native's names, for the error a failing status becomes.
pub struct NativeName {
    pub rider: String,
    pub function: String,
}

// Every operation is as large as the largest, and the dispatch loop steps by it.
const _: () = assert!(std::mem::size_of::<Op>() == 64);
