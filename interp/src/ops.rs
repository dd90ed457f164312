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

/// One word of a native call.
#[derive(Clone, Copy, Debug)]
pub enum WordSrc {
    Rt,
    Addr(Opnd),
    Desc(DescRef),
    /// A place for a unit result nobody keeps.
    UnitScratch,
}

#[derive(Clone, Debug)]
pub struct CallArg {
    pub src: Opnd,
    pub pass: ParamPass,
}

#[derive(Clone, Debug)]
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
    Unary {
        op: UnaryOp,
        ty: TyKind,
        dst: Opnd,
        src: Opnd,
        fail: u32,
    },
    Binary {
        op: BinaryOp,
        ty: TyKind,
        dst: Opnd,
        a: Opnd,
        b: Opnd,
        fail: u32,
    },
    Compare {
        op: CompareOp,
        ty: TyKind,
        dst: Opnd,
        a: Opnd,
        b: Opnd,
    },
    Cast {
        from: TyKind,
        to: TyKind,
        checked: bool,
        dst: Opnd,
        src: Opnd,
        fail: u32,
    },
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
    MakeList {
        dst: Opnd,
        elem: DescRef,
        elems: Box<[Opnd]>,
    },
    ListLen {
        dst: Opnd,
        list: Opnd,
    },
    ListGet {
        dst: Opnd,
        list: Opnd,
        index: Opnd,
        elem: DescRef,
        fail: u32,
    },
    ListSet {
        list: Opnd,
        index: Opnd,
        value: Opnd,
        elem: DescRef,
        fail: u32,
    },
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
    Call {
        callee: u32,
        args: Box<[CallArg]>,
        type_args: Box<[DescRef]>,
        dst: Option<Opnd>,
        /// The owned `in` arguments, in the caller's terms: dropped when the callee cannot
        /// get a frame.
        in_drops: Box<[(Opnd, DescRef)]>,
        fail: u32,
    },
    CallNative {
        function: *const c_void,
        words: Box<[WordSrc]>,
        native: u32,
        /// What the native initialized (result, `out` arguments) that owns memory:
        /// dropped when it returned OK while the runtime is abandoning (it raised).
        written: Box<[(Opnd, DescRef)]>,
        fail: u32,
    },
    /// Returns, moving the value (sized by its descriptor) to the caller's destination.
    Return {
        src: Option<(Opnd, DescRef)>,
    },
    Abandon,
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
}

/// A native's names, for the error a failing status becomes.
pub struct NativeName {
    pub rider: String,
    pub function: String,
}
