//! The fast form: a pass over a function's lowered operations, run once when the program
//! is lowered, that replaces what it can with operations specialized by type and operand
//! kind (`Op::AddI64`, `Op::BrLtU64K`, ...) so the dispatch loop decides nothing again
//! per operation. What it does not cover keeps its generic operation, which stays the
//! reference for its semantics.
//!
//! - An operation is specialized when every operand is a direct frame offset (no
//!   indirection) and its type is one the fast form names (64-bit integers, `f64`,
//!   8- and 1-byte copies, list elements of a copy type of 8 or 1 bytes).
//! - Sequences are fused into their first operation: `Const` then the arithmetic or
//!   comparison that reads it as its right operand (the constant becomes an immediate;
//!   it is still written to its slot), a comparison and the branch on its result. The
//!   covered operations stay in place behind the fused one; nothing jumps into the
//!   middle of a block, so only falling through skips them.
//! - Jumps are threaded: a jump to a jump goes to the final target, and a jump to an
//!   operation that ends its own path (a branch, a fused compare-and-branch, a return)
//!   becomes a copy of it.
//!
//! Every fast operation writes exactly what the generic ones it replaces would, and
//! fails with the same error.

use datalove_ir::{BinaryOp, CompareOp, UnaryOp};
use datalove_rti::TyKind;

use crate::desc::DescRef;
use crate::ops::{
    Binary, Bound, CallOne, CallThen, Checked, CheckedK, Compare, CompareBranch, CompareBranchK,
    ConvertDiv, DepthThen, Element, ElementBranch, ElementMove, ElementPush, F64Pair, F64Step,
    GetThen, IndexGet, MulThen, MulThenSet, NativeShort, Op, Opnd, ParamPass, Prefixed, Slots,
    Step, StepBranch, StepCall, Targets, Then, ThenBranch, ThenCopy, WithK,
};

/// The offset of a direct operand.
fn direct(o: Opnd) -> Option<u32> {
    (o.0 & Opnd::INDIRECT == 0).then_some(o.0)
}

/// The three offsets of a direct binary operation.
fn direct3(d: Opnd, a: Opnd, b: Opnd) -> Option<(u32, u32, u32)> {
    Some((direct(d)?, direct(a)?, direct(b)?))
}

fn targets(t: u32, e: u32) -> Targets {
    Targets { t, e }
}

/// The 64-bit class of a scalar kind, for the fast arithmetic and comparisons.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    I64,
    U64,
    F64,
}

fn class(ty: TyKind) -> Option<Class> {
    match ty {
        TyKind::I64 => Some(Class::I64),
        TyKind::U64 | TyKind::Index => Some(Class::U64),
        TyKind::F64 => Some(Class::F64),
        _ => None,
    }
}

/// A comparison normalized to `a op b` with `op` one of `==`, `!=`, `<`, `<=`.
fn normalize(op: CompareOp, a: u32, b: u32) -> (CompareOp, u32, u32) {
    match op {
        CompareOp::Gt => (CompareOp::Lt, b, a),
        CompareOp::Ge => (CompareOp::Le, b, a),
        other => (other, a, b),
    }
}

/// `b op a` as `a swapped b`.
fn swapped(op: CompareOp) -> CompareOp {
    match op {
        CompareOp::Lt => CompareOp::Gt,
        CompareOp::Le => CompareOp::Ge,
        CompareOp::Gt => CompareOp::Lt,
        CompareOp::Ge => CompareOp::Le,
        other => other,
    }
}

/// The fast variants comparing `class` values by `op`: writing the bool, that fused with
/// the branch on it, and that with a constant right operand. The first two exist for
/// `==`, `!=`, `<`, `<=`: for `>` and `>=` they are `<` and `<=`, on the operands
/// exchanged (`normalize`).
type Comparisons = (
    fn(Slots) -> Op,
    fn(CompareBranch) -> Op,
    fn(CompareBranchK) -> Op,
);

fn comparisons(class: Class, op: CompareOp) -> Comparisons {
    match (class, op) {
        (Class::I64, CompareOp::Eq) => (Op::EqI64, Op::BrEqI64, Op::BrEqI64K),
        (Class::U64, CompareOp::Eq) => (Op::EqU64, Op::BrEqU64, Op::BrEqU64K),
        (Class::F64, CompareOp::Eq) => (Op::EqF64, Op::BrEqF64, Op::BrEqF64K),
        (Class::I64, CompareOp::Ne) => (Op::NeI64, Op::BrNeI64, Op::BrNeI64K),
        (Class::U64, CompareOp::Ne) => (Op::NeU64, Op::BrNeU64, Op::BrNeU64K),
        (Class::F64, CompareOp::Ne) => (Op::NeF64, Op::BrNeF64, Op::BrNeF64K),
        (Class::I64, CompareOp::Lt) => (Op::LtI64, Op::BrLtI64, Op::BrLtI64K),
        (Class::U64, CompareOp::Lt) => (Op::LtU64, Op::BrLtU64, Op::BrLtU64K),
        (Class::F64, CompareOp::Lt) => (Op::LtF64, Op::BrLtF64, Op::BrLtF64K),
        (Class::I64, CompareOp::Le) => (Op::LeI64, Op::BrLeI64, Op::BrLeI64K),
        (Class::U64, CompareOp::Le) => (Op::LeU64, Op::BrLeU64, Op::BrLeU64K),
        (Class::F64, CompareOp::Le) => (Op::LeF64, Op::BrLeF64, Op::BrLeF64K),
        (Class::I64, CompareOp::Gt) => (Op::LtI64, Op::BrLtI64, Op::BrGtI64K),
        (Class::U64, CompareOp::Gt) => (Op::LtU64, Op::BrLtU64, Op::BrGtU64K),
        (Class::F64, CompareOp::Gt) => (Op::LtF64, Op::BrLtF64, Op::BrGtF64K),
        (Class::I64, CompareOp::Ge) => (Op::LeI64, Op::BrLeI64, Op::BrGeI64K),
        (Class::U64, CompareOp::Ge) => (Op::LeU64, Op::BrLeU64, Op::BrGeU64K),
        (Class::F64, CompareOp::Ge) => (Op::LeF64, Op::BrLeF64, Op::BrGeF64K),
    }
}

fn compare(o: &Compare) -> Option<Op> {
    let (d, a, b) = direct3(o.dst, o.a, o.b)?;
    let (op, a, b) = normalize(o.op, a, b);
    Some(comparisons(class(o.ty)?, op).0(Slots { d, a, b }))
}

/// A comparison fused with the branch on its result.
fn compare_branch(o: &Compare, to: Targets) -> Option<Op> {
    let (d, a, b) = direct3(o.dst, o.a, o.b)?;
    let (op, a, b) = normalize(o.op, a, b);
    Some(comparisons(class(o.ty)?, op).1(CompareBranch {
        d,
        a,
        b,
        to,
    }))
}

/// `Const k` into `kd`, a comparison of `a` with it and the branch on the result (an
/// `f64` constant is fused later, by `const_then_branch`).
fn compare_const_branch(o: &Compare, with_k: WithK, to: Targets) -> Option<Op> {
    let WithK { d, a, k, kd } = with_k;
    match class(o.ty)? {
        Class::F64 => None,
        c => Some(comparisons(c, o.op).2(CompareBranchK { d, a, k, kd, to })),
    }
}

/// The fast variants of arithmetic on `class` values by `op`: on two operands, and with
/// a constant right operand.
enum Arithmetic {
    /// Checked (integers).
    Checked(fn(Checked) -> Op, fn(CheckedK) -> Op),
    /// Unchecked (`f64`; an integer division by a positive constant, which can neither
    /// divide by zero nor overflow, with no form on two operands).
    Plain(Option<fn(Slots) -> Op>, fn(WithK) -> Op),
}

fn arithmetic(class: Class, op: BinaryOp) -> Option<Arithmetic> {
    use Arithmetic::{Checked, Plain};
    Some(match (class, op) {
        (Class::I64, BinaryOp::Add) => Checked(Op::AddI64, Op::AddI64K),
        (Class::I64, BinaryOp::Sub) => Checked(Op::SubI64, Op::SubI64K),
        (Class::I64, BinaryOp::Mul) => Checked(Op::MulI64, Op::MulI64K),
        (Class::U64, BinaryOp::Add) => Checked(Op::AddU64, Op::AddU64K),
        (Class::U64, BinaryOp::Sub) => Checked(Op::SubU64, Op::SubU64K),
        (Class::U64, BinaryOp::Mul) => Checked(Op::MulU64, Op::MulU64K),
        (Class::F64, BinaryOp::Add) => Plain(Some(Op::AddF64), Op::AddF64K),
        (Class::F64, BinaryOp::Sub) => Plain(Some(Op::SubF64), Op::SubF64K),
        (Class::F64, BinaryOp::Mul) => Plain(Some(Op::MulF64), Op::MulF64K),
        (Class::F64, BinaryOp::Div) => Plain(Some(Op::DivF64), Op::DivF64K),
        (Class::I64, BinaryOp::Div) => Plain(None, Op::DivI64K),
        (Class::I64, BinaryOp::Rem) => Plain(None, Op::RemI64K),
        (Class::U64, BinaryOp::Div) => Plain(None, Op::DivU64K),
        (Class::U64, BinaryOp::Rem) => Plain(None, Op::RemU64K),
        _ => return None,
    })
}

fn binary(o: &Binary) -> Option<Op> {
    let (op, ty, fail) = (o.op, o.ty, o.fail);
    let (d, a, b) = direct3(o.dst, o.a, o.b)?;
    let slots = Slots { d, a, b };
    if ty == TyKind::Bool {
        return match op {
            BinaryOp::And | BinaryOp::BitAnd => Some(Op::AndB(slots)),
            BinaryOp::Or | BinaryOp::BitOr => Some(Op::OrB(slots)),
            _ => None,
        };
    }
    Some(match arithmetic(class(ty)?, op)? {
        Arithmetic::Checked(checked, _) => checked(Checked { d, a, b, ty, fail }),
        Arithmetic::Plain(plain, _) => plain?(slots),
    })
}

/// `Const k` into `kd`, then `d = a op k` (`o` is the operation on two operands).
fn binary_const(binary: &Binary, o: WithK) -> Option<Op> {
    let class = class(binary.ty)?;
    Some(match arithmetic(class, binary.op)? {
        Arithmetic::Checked(_, checked) => checked(o.checked(binary.ty, binary.fail)),
        Arithmetic::Plain(Some(_), plain) => plain(o),
        // A positive divisor: no division by zero, no `MIN / -1`; a power of two, a
        // shift or a mask.
        Arithmetic::Plain(None, divide) => match (class, binary.op) {
            (Class::I64, _) if (o.k as i64) <= 0 => return None,
            (Class::U64, _) if o.k == 0 => return None,
            _ if !o.k.is_power_of_two() => divide(o),
            (Class::I64, BinaryOp::Div) => Op::DivI64P2(o),
            (Class::I64, BinaryOp::Rem) => Op::RemI64P2(o),
            (Class::U64, BinaryOp::Div) => Op::DivU64P2(o),
            (Class::U64, BinaryOp::Rem) => Op::RemU64P2(o),
            _ => return None,
        },
    })
}

/// The size of a list element of a copy type with a static descriptor.
fn copy_elem_size(elem: DescRef) -> Option<usize> {
    match elem {
        // SAFETY: a static descriptor lives as long as the interpreter.
        DescRef::Static(p) => unsafe { (*p).is_copy().then_some((*p).size) },
        DescRef::Frame(_) => None,
    }
}

/// A list element read or written in place: `family` is `[8 bytes, 1 byte]` for a list
/// in the frame, then the same for a list whose address the frame holds.
fn element(
    list: Opnd,
    index: Opnd,
    value: Opnd,
    elem: DescRef,
    fail: u32,
    family: [fn(Element) -> Op; 4],
) -> Option<Op> {
    let list_at = list.0 & !Opnd::INDIRECT;
    let (index, value) = (direct(index)?, direct(value)?);
    let width = match copy_elem_size(elem)? {
        8 => 0,
        1 => 1,
        _ => return None,
    };
    let indirect = direct(list).is_none() as usize;
    Some(family[2 * indirect + width](Element {
        list: list_at,
        index,
        value,
        fail,
    }))
}

/// The fast form of one operation alone.
fn single(op: &Op) -> Option<Op> {
    Some(match op {
        Op::CallNative { call, fail } if call.short.is_some() => {
            let make: Make<NativeShort> = match call.count {
                3 => Op::NativeS3,
                4 => Op::NativeS4,
                5 => Op::NativeS5,
                6 => Op::NativeS6,
                7 => Op::NativeS7,
                8 => Op::NativeS8,
                _ => return None,
            };
            make(NativeShort {
                call: call.clone(),
                fail: *fail,
            })
        }
        Op::Const { dst, bits, size: 8 } => Op::ConstW {
            dst: direct(*dst)?,
            bits: *bits,
        },
        Op::Const { dst, bits, size: 1 } => Op::ConstB {
            dst: direct(*dst)?,
            bits: *bits as u8,
        },
        Op::Mov { dst, src, size: 8 } => Op::MovW {
            dst: direct(*dst)?,
            src: direct(*src)?,
        },
        Op::Mov { dst, src, size: 1 } => Op::MovB {
            dst: direct(*dst)?,
            src: direct(*src)?,
        },
        Op::Binary(o) => binary(o)?,
        Op::Unary(o) if o.ty == TyKind::F64 => {
            let (d, s) = (direct(o.dst)?, direct(o.src)?);
            match o.op {
                UnaryOp::Sqrt => Op::SqrtF64 { d, s },
                UnaryOp::Abs => Op::AbsF64 { d, s },
                UnaryOp::Neg => Op::NegF64 { d, s },
                UnaryOp::Floor => Op::FloorF64 { d, s },
                UnaryOp::Ceil => Op::CeilF64 { d, s },
                _ => return None,
            }
        }
        Op::Compare(o) => compare(o)?,
        Op::Branch {
            cond,
            then_pc,
            else_pc,
        } => Op::BranchD {
            cond: direct(*cond)?,
            t: *then_pc,
            e: *else_pc,
        },
        Op::ListGet(o) => {
            let gets = [Op::GetW, Op::GetB, Op::GetWI, Op::GetBI];
            element(o.list, o.index, o.dst, o.elem, o.fail, gets)?
        }
        Op::ListSet(o) => {
            let sets = [Op::SetW, Op::SetB, Op::SetWI, Op::SetBI];
            element(o.list, o.index, o.value, o.elem, o.fail, sets)?
        }
        Op::ListPush { list, value, elem } => {
            let DescRef::Static(td) = *elem else {
                return None;
            };
            let width = match copy_elem_size(*elem)? {
                8 => 0,
                1 => 1,
                _ => return None,
            };
            let indirect = direct(*list).is_none() as usize;
            let pushes = [Op::PushW, Op::PushB, Op::PushWI, Op::PushBI];
            pushes[2 * indirect + width](ElementPush {
                list: list.0 & !Opnd::INDIRECT,
                value: direct(*value)?,
                elem: td,
            })
        }
        Op::Cast(o) => {
            let (d, s) = (direct(o.dst)?, direct(o.src)?);
            let ty = datalove_rti::status::cast_ty(o.from, o.to);
            // An unchecked conversion never takes its abandon target.
            let fail = if o.checked { o.fail } else { u32::MAX };
            if o.from == TyKind::Bool {
                return matches!(class(o.to)?, Class::I64 | Class::U64)
                    .then_some(Op::BoolToW { d, s });
            }
            match (class(o.from)?, class(o.to)?) {
                (Class::I64, Class::F64) => Op::I64ToF64 { d, s },
                (Class::U64, Class::F64) => Op::U64ToF64 { d, s },
                (Class::I64, Class::U64) => Op::I64ToU64 { d, s, ty, fail },
                (Class::U64, Class::I64) => Op::U64ToI64 { d, s, ty, fail },
                (Class::I64, Class::I64) | (Class::U64, Class::U64) => Op::MovW { dst: d, src: s },
                _ => return None,
            }
        }
        Op::Call(call) if call.type_args.is_empty() && call.in_drops.is_empty() => {
            let args = call
                .args
                .iter()
                .map(|arg| match arg.pass {
                    ParamPass::Value { offset, size } => Some((direct(arg.src)?, offset, size)),
                    ParamPass::Address { .. } => None,
                })
                .collect::<Option<Box<[_]>>>()?;
            let dst = match call.dst {
                Some(d) => Some(direct(d)?),
                None => None,
            };
            if let [(src, offset, 8)] = *args {
                return Some(Op::CallW1(CallOne {
                    callee: call.callee,
                    src,
                    offset,
                    dst: dst.unwrap_or(u32::MAX),
                    depth: call.depth,
                    fail: call.fail,
                }));
            }
            Op::CallV {
                callee: call.callee,
                args,
                dst,
                depth: call.depth,
                fail: call.fail,
            }
        }
        Op::Return {
            src: Some((src, DescRef::Static(p))),
        } if copy_elem_size(DescRef::Static(*p)) == Some(8) => Op::RetW { src: direct(*src)? },
        _ => return None,
    })
}

/// The fast form of the sequence starting at `ops[i]`, fused where it can be, and how
/// many operations it stands for.
fn fused(ops: &[Op], i: usize) -> Option<(Op, usize)> {
    let next = ops.get(i + 1);
    let after = ops.get(i + 2);
    match (&ops[i], next) {
        // A constant, and the operation that takes it as its right operand.
        (
            Op::Const {
                dst: kd,
                bits,
                size: 8,
            },
            Some(second),
        ) => {
            // `d = a op k`, the constant written at `kd`.
            let with_k = |d: Opnd, a: Opnd| {
                let (d, a, kd) = (direct(d)?, direct(a)?, direct(*kd)?);
                Some(WithK { d, a, k: *bits, kd })
            };
            // `k + b`, `k * b` on floats: the same as `b + k`, `b * k`.
            let commutes =
                |o: &Binary| o.ty == TyKind::F64 && matches!(o.op, BinaryOp::Add | BinaryOp::Mul);
            let op = match second {
                Op::Binary(o) if o.b == *kd => binary_const(o, with_k(o.dst, o.a)?)?,
                Op::Binary(o) if o.a == *kd && o.b != *kd && commutes(o) => {
                    binary_const(o, with_k(o.dst, o.b)?)?
                }
                Op::Compare(o) if o.b == *kd => match after {
                    Some(Op::Branch {
                        cond,
                        then_pc,
                        else_pc,
                    }) if *cond == o.dst => {
                        let fused = compare_const_branch(
                            o,
                            with_k(o.dst, o.a)?,
                            targets(*then_pc, *else_pc),
                        );
                        return Some((fused?, 3));
                    }
                    _ => return None,
                },
                _ => return None,
            };
            Some((op, 2))
        }
        // An `f64` product and the sum or difference that takes it.
        (Op::Binary(m), Some(Op::Binary(o)))
            if m.op == BinaryOp::Mul
                && m.ty == TyKind::F64
                && o.ty == TyKind::F64
                && (o.a == m.dst) != (o.b == m.dst) =>
        {
            let c = if o.a == m.dst { o.b } else { o.a };
            let (t, a, b) = direct3(m.dst, m.a, m.b)?;
            let (c, d) = (direct(c)?, direct(o.dst)?);
            let then = MulThen { t, a, b, c, d };
            let op = match o.op {
                BinaryOp::Add => Op::MulAddF64(then),
                BinaryOp::Sub if o.a == m.dst => Op::MulSubF64(then),
                BinaryOp::Sub => Op::MulRsubF64(then),
                _ => return None,
            };
            Some((op, 2))
        }
        // A comparison and the branch on its result.
        (
            Op::Compare(o),
            Some(Op::Branch {
                cond,
                then_pc,
                else_pc,
            }),
        ) if *cond == o.dst => Some((compare_branch(o, targets(*then_pc, *else_pc))?, 2)),
        _ => None,
    }
}

/// `op` followed by `x = copy d` of its result, when `next` (the operation after those
/// `op` stands for) is that copy.
fn with_copy(op: Op, next: Option<&Op>) -> Result<Op, Op> {
    let Some(&Op::Mov { dst, src, size: 8 }) = next else {
        return Err(op);
    };
    let (Some(m), Some(src)) = (direct(dst), direct(src)) else {
        return Err(op);
    };
    Ok(match op {
        Op::AddI64K(op) if op.d == src => Op::IncI64(ThenCopy { op, m }),
        Op::AddU64K(op) if op.d == src => Op::IncU64(ThenCopy { op, m }),
        Op::AddI64(op) if op.d == src => Op::AddI64M(ThenCopy { op, m }),
        Op::SubI64(op) if op.d == src => Op::SubI64M(ThenCopy { op, m }),
        Op::AddU64(op) if op.d == src => Op::AddU64M(ThenCopy { op, m }),
        Op::AddF64(op) if op.d == src => Op::AddF64M(ThenCopy { op, m }),
        Op::SubF64(op) if op.d == src => Op::SubF64M(ThenCopy { op, m }),
        Op::MulF64(op) if op.d == src => Op::MulF64M(ThenCopy { op, m }),
        Op::MulAddF64(op) if op.d == src => Op::MulAddF64M(ThenCopy { op, m }),
        Op::MulSubF64(op) if op.d == src => Op::MulSubF64M(ThenCopy { op, m }),
        Op::MulRsubF64(op) if op.d == src => Op::MulRsubF64M(ThenCopy { op, m }),
        other => return Err(other),
    })
}

/// A checked `i64` `+`, `-` or `*` and the return of its result after it: one
/// operation (`Op::AddRetI64`, ..).
fn arith_then_return(op: &Op, next: &Op) -> Option<Op> {
    let &Op::RetW { src } = next else {
        return None;
    };
    let (make, o): (Make<Checked>, _) = match *op {
        Op::AddI64(o) => (Op::AddRetI64, o),
        Op::SubI64(o) => (Op::SubRetI64, o),
        Op::MulI64(o) => (Op::MulRetI64, o),
        _ => return None,
    };
    (o.d == src).then(|| make(o))
}

/// The branch targets of `op` (not its abandon target, not a jump's): those of a branch
/// and of a fused comparison and branch.
fn branch_targets(op: &mut Op) -> Option<(&mut u32, &mut u32)> {
    match op {
        Op::Branch {
            then_pc, else_pc, ..
        } => Some((then_pc, else_pc)),
        Op::BranchD { t, e, .. } => Some((t, e)),
        Op::BrEqI64(CompareBranch { to, .. })
        | Op::BrNeI64(CompareBranch { to, .. })
        | Op::BrLtI64(CompareBranch { to, .. })
        | Op::BrLeI64(CompareBranch { to, .. })
        | Op::BrEqU64(CompareBranch { to, .. })
        | Op::BrNeU64(CompareBranch { to, .. })
        | Op::BrLtU64(CompareBranch { to, .. })
        | Op::BrLeU64(CompareBranch { to, .. })
        | Op::BrEqF64(CompareBranch { to, .. })
        | Op::BrNeF64(CompareBranch { to, .. })
        | Op::BrLtF64(CompareBranch { to, .. })
        | Op::BrLeF64(CompareBranch { to, .. })
        | Op::BrEqI64K(CompareBranchK { to, .. })
        | Op::BrNeI64K(CompareBranchK { to, .. })
        | Op::BrLtI64K(CompareBranchK { to, .. })
        | Op::BrLeI64K(CompareBranchK { to, .. })
        | Op::BrGtI64K(CompareBranchK { to, .. })
        | Op::BrGeI64K(CompareBranchK { to, .. })
        | Op::BrEqU64K(CompareBranchK { to, .. })
        | Op::BrNeU64K(CompareBranchK { to, .. })
        | Op::BrLtU64K(CompareBranchK { to, .. })
        | Op::BrLeU64K(CompareBranchK { to, .. })
        | Op::BrGtU64K(CompareBranchK { to, .. })
        | Op::BrGeU64K(CompareBranchK { to, .. })
        | Op::BrEqF64K(CompareBranchK { to, .. })
        | Op::BrNeF64K(CompareBranchK { to, .. })
        | Op::BrLtF64K(CompareBranchK { to, .. })
        | Op::BrLeF64K(CompareBranchK { to, .. })
        | Op::BrGtF64K(CompareBranchK { to, .. })
        | Op::BrGeF64K(CompareBranchK { to, .. }) => Some((&mut to.t, &mut to.e)),
        _ => None,
    }
}

/// Whether an operation's next operation does not depend on where it stands (it always
/// jumps or returns), so a jump to it may be replaced by a copy of it.
fn ends_path(op: &mut Op) -> bool {
    matches!(
        op,
        Op::Jump(_)
            | Op::Return { .. }
            | Op::RetW { .. }
            | Op::AddRetI64(_)
            | Op::SubRetI64(_)
            | Op::MulRetI64(_)
            | Op::Abandon
    ) || branch_targets(op).is_some()
}

/// The final target of a jump to `t` (through jumps to jumps; a cycle of jumps is
/// left as it is).
fn thread(ops: &[Op], mut t: u32) -> u32 {
    for _ in 0..ops.len() {
        match ops[t as usize] {
            Op::Jump(next) if next != t => t = next,
            _ => break,
        }
    }
    t
}

/// An 8-byte constant followed by a fused float compare-and-branch that reads it as one
/// operand, fused (`x <= 4.0`): the constant becomes an immediate.
fn const_then_branch(op: &Op, next: &Op) -> Option<Op> {
    let &Op::ConstW { dst: kd, bits: k } = op else {
        return None;
    };
    let (op, CompareBranch { d, a, b, to }) = match *next {
        Op::BrEqF64(o) => (CompareOp::Eq, o),
        Op::BrNeF64(o) => (CompareOp::Ne, o),
        Op::BrLtF64(o) => (CompareOp::Lt, o),
        Op::BrLeF64(o) => (CompareOp::Le, o),
        _ => return None,
    };
    // `x op k`, or `k op x`, which is `x swapped k`.
    let (a, op) = match (a == kd, b == kd) {
        (false, true) => (a, op),
        (true, false) => (b, swapped(op)),
        _ => return None,
    };
    Some(comparisons(Class::F64, op).2(CompareBranchK {
        d,
        a,
        k,
        kd,
        to,
    }))
}

/// A 64-bit constant's bits as the `i32` they sign-extend from, if they do.
fn small(k: u64) -> Option<i32> {
    let narrow = k as i64 as i32;
    (narrow as i64 as u64 == k).then_some(narrow)
}

/// How a counter steps: by a constant added, by a slot added, or by a constant
/// subtracted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stepping {
    AddK,
    Add,
    SubK,
}

/// A counter's step (`IncI64`, `AddU64M`, `SubI64K`, ..): its class, its parts, how it
/// steps, and how many operations it stands for. A step without a copy of its result
/// (`AddI64K`, `SubI64K`) copies it onto itself.
fn step_of(op: &Op) -> Option<(Class, Step, Stepping, usize)> {
    let (class, stepping, covers) = match op {
        Op::IncI64(_) => (Class::I64, Stepping::AddK, 3),
        Op::IncU64(_) => (Class::U64, Stepping::AddK, 3),
        Op::AddI64K(_) => (Class::I64, Stepping::AddK, 2),
        Op::AddU64K(_) => (Class::U64, Stepping::AddK, 2),
        Op::SubI64K(_) => (Class::I64, Stepping::SubK, 2),
        Op::SubU64K(_) => (Class::U64, Stepping::SubK, 2),
        Op::AddI64M(_) => (Class::I64, Stepping::Add, 2),
        Op::AddU64M(_) => (Class::U64, Stepping::Add, 2),
        _ => return None,
    };
    let constant = |o: CheckedK, m| {
        Some(Step {
            d: o.d,
            a: o.a,
            m,
            step: o.kd,
            k: small(o.k)?,
            ty: o.ty,
            fail: o.fail,
        })
    };
    let step = match *op {
        Op::AddI64K(o) | Op::AddU64K(o) | Op::SubI64K(o) | Op::SubU64K(o) => constant(o, o.d)?,
        Op::IncI64(ThenCopy { op: o, m }) | Op::IncU64(ThenCopy { op: o, m }) => constant(o, m)?,
        Op::AddI64M(ThenCopy { op: o, m }) | Op::AddU64M(ThenCopy { op: o, m }) => Step {
            d: o.d,
            a: o.a,
            m,
            step: o.b,
            k: 0,
            ty: o.ty,
            fail: o.fail,
        },
        _ => return None,
    };
    Some((class, step, stepping, covers))
}

/// A fused compare-and-branch of 64-bit integers by `==`, `!=`, `<` or `<=`: its class,
/// operator, left operand, its bound, and whether the bound is a constant.
fn test_of(op: &Op) -> Option<(Class, CompareOp, u32, Bound, bool)> {
    use Class::{I64, U64};
    use CompareOp::{Eq, Le, Lt, Ne};
    // The bound: `b` read from its slot, or the constant `k` written at `b` first.
    let bound = |d, b, k, to| Bound { d, b, k, to };
    let slots = |o: CompareBranch| (o.a, bound(o.d, o.b, 0, o.to), false);
    let constant = |o: CompareBranchK| Some((o.a, bound(o.d, o.kd, small(o.k)?, o.to), true));
    // Each pair: the test on two slots, and on a slot and a constant.
    macro_rules! tests {
        ($($slots:ident $constant:ident: $class:ident $cmp:ident,)*) => {
            match *op {
                $(
                    Op::$slots(o) => ($class, $cmp, slots(o)),
                    Op::$constant(o) => ($class, $cmp, constant(o)?),
                )*
                _ => return None,
            }
        };
    }
    let (class, cmp, (left, bound, constant_bound)) = tests! {
        BrEqI64 BrEqI64K: I64 Eq,
        BrNeI64 BrNeI64K: I64 Ne,
        BrLtI64 BrLtI64K: I64 Lt,
        BrLeI64 BrLeI64K: I64 Le,
        BrEqU64 BrEqU64K: U64 Eq,
        BrNeU64 BrNeU64K: U64 Ne,
        BrLtU64 BrLtU64K: U64 Lt,
        BrLeU64 BrLeU64K: U64 Le,
    };
    Some((class, cmp, left, bound, constant_bound))
}

/// The fused step-and-test variant: `[constant step][constant bound]`, each by class
/// (`I64`, `U64`) and operator (`==`, `!=`, `<`, `<=`).
type StepFamily = [[fn(StepBranch) -> Op; 4]; 2];

const STEP_BRANCHES: [[StepFamily; 2]; 2] = [
    [
        [
            [
                Op::AddBrEqI64,
                Op::AddBrNeI64,
                Op::AddBrLtI64,
                Op::AddBrLeI64,
            ],
            [
                Op::AddBrEqU64,
                Op::AddBrNeU64,
                Op::AddBrLtU64,
                Op::AddBrLeU64,
            ],
        ],
        [
            [
                Op::AddBrEqI64K,
                Op::AddBrNeI64K,
                Op::AddBrLtI64K,
                Op::AddBrLeI64K,
            ],
            [
                Op::AddBrEqU64K,
                Op::AddBrNeU64K,
                Op::AddBrLtU64K,
                Op::AddBrLeU64K,
            ],
        ],
    ],
    [
        [
            [
                Op::IncBrEqI64,
                Op::IncBrNeI64,
                Op::IncBrLtI64,
                Op::IncBrLeI64,
            ],
            [
                Op::IncBrEqU64,
                Op::IncBrNeU64,
                Op::IncBrLtU64,
                Op::IncBrLeU64,
            ],
        ],
        [
            [
                Op::IncBrEqI64K,
                Op::IncBrNeI64K,
                Op::IncBrLtI64K,
                Op::IncBrLeI64K,
            ],
            [
                Op::IncBrEqU64K,
                Op::IncBrNeU64K,
                Op::IncBrLtU64K,
                Op::IncBrLeU64K,
            ],
        ],
    ],
];

/// The fused subtract-a-constant-and-test variant, `[constant bound]`, as a
/// [`StepFamily`].
const SUB_STEP_BRANCHES: [StepFamily; 2] = [
    [
        [
            Op::SubBrEqI64,
            Op::SubBrNeI64,
            Op::SubBrLtI64,
            Op::SubBrLeI64,
        ],
        [
            Op::SubBrEqU64,
            Op::SubBrNeU64,
            Op::SubBrLtU64,
            Op::SubBrLeU64,
        ],
    ],
    [
        [
            Op::SubBrEqI64K,
            Op::SubBrNeI64K,
            Op::SubBrLtI64K,
            Op::SubBrLeI64K,
        ],
        [
            Op::SubBrEqU64K,
            Op::SubBrNeU64K,
            Op::SubBrLtU64K,
            Op::SubBrLeU64K,
        ],
    ],
];

/// A counter's step at `ops[i]` and the compare-and-branch it falls through to, when
/// that reads the stepped value on the left: one operation (`Op::IncBrLtI64`, ..). The
/// operations both stand for stay in place behind it.
fn step_then_test(ops: &[Op], i: usize) -> Option<Op> {
    let (class, step, stepping, covers) = step_of(&ops[i])?;
    let (test_class, cmp, left, br, constant_bound) = test_of(ops.get(i + covers)?)?;
    // The test reads the stepped value on the left; a constant bound must not be
    // written over it (the fused form compares the value it computed).
    let reads_step = left == step.d || left == step.m;
    if test_class != class || !reads_step || (constant_bound && br.b == left) {
        return None;
    }
    let by_op = match cmp {
        CompareOp::Eq => 0,
        CompareOp::Ne => 1,
        CompareOp::Lt => 2,
        _ => 3,
    };
    let family = match stepping {
        Stepping::Add => STEP_BRANCHES[0][constant_bound as usize],
        Stepping::AddK => STEP_BRANCHES[1][constant_bound as usize],
        Stepping::SubK => SUB_STEP_BRANCHES[constant_bound as usize],
    };
    Some(family[(class == Class::U64) as usize][by_op](StepBranch {
        step,
        br,
    }))
}

/// A checked `+` or `-` of 64-bit unsigned integers at `ops[i]` and the 8-byte element
/// read it falls through to, at the result: one operation (`Op::AddKGetW`,
/// `Op::SubGetW`, ..). The operations both stand for stay in place behind it.
fn index_then_get(ops: &[Op], i: usize) -> Option<Op> {
    let with_k = |o: CheckedK| {
        let (d, a, b, ty, fail) = (o.d, o.a, o.kd, o.ty, o.fail);
        Some((Checked { d, a, b, ty, fail }, true, small(o.k)?, 2))
    };
    let (sub, (o, step, k, covers)) = match ops[i] {
        Op::AddU64K(o) => (false, with_k(o)?),
        Op::AddU64(o) => (false, (o, false, 0, 1)),
        Op::SubU64K(o) => (true, with_k(o)?),
        Op::SubU64(o) => (true, (o, false, 0, 1)),
        _ => return None,
    };
    let (get, indirect) = match *ops.get(i + covers)? {
        Op::GetW(get) => (get, false),
        Op::GetWI(get) => (get, true),
        _ => return None,
    };
    if get.index != o.d {
        return None;
    }
    let fused = IndexGet {
        d: o.d,
        a: o.a,
        step: o.b,
        k,
        ty: o.ty,
        fail: o.fail,
        get,
    };
    Some(match (sub, step, indirect) {
        (false, true, false) => Op::AddKGetW(fused),
        (false, true, true) => Op::AddKGetWI(fused),
        (false, false, false) => Op::AddGetW(fused),
        (false, false, true) => Op::AddGetWI(fused),
        (true, true, false) => Op::SubKGetW(fused),
        (true, true, true) => Op::SubKGetWI(fused),
        (true, false, false) => Op::SubGetW(fused),
        (true, false, true) => Op::SubGetWI(fused),
    })
}

/// An element read at `ops[i]` and the element write after it, on lists reached the
/// same way and elements of one size (`set a[i] = b[j]`): one operation (`Op::MoveW`,
/// ..).
fn get_then_set(ops: &[Op], i: usize) -> Option<Op> {
    let mv = |get, set| ElementMove { get, set };
    Some(match (&ops[i], ops.get(i + 1)?) {
        (&Op::GetW(get), &Op::SetW(set)) => Op::MoveW(mv(get, set)),
        (&Op::GetWI(get), &Op::SetWI(set)) => Op::MoveWI(mv(get, set)),
        (&Op::GetB(get), &Op::SetB(set)) => Op::MoveB(mv(get, set)),
        (&Op::GetBI(get), &Op::SetBI(set)) => Op::MoveBI(mv(get, set)),
        _ => return None,
    })
}

/// An operation variant, as the function that makes it from its payload.
type Make<P> = fn(P) -> Op;

/// `f64` arithmetic at `ops[i]` and the compare-and-branch after it that tests its
/// result against a constant: one operation (`Op::AddF64BrLeK`, ..).
fn arith_then_test(ops: &[Op], i: usize) -> Option<Op> {
    let (op, arith) = match ops[i] {
        Op::AddF64(op) => (op, 0),
        Op::SubF64(op) => (op, 1),
        Op::MulF64(op) => (op, 2),
        _ => return None,
    };
    let (br, test) = match *ops.get(i + 1)? {
        Op::BrLtF64K(br) => (br, 0),
        Op::BrLeF64K(br) => (br, 1),
        Op::BrGtF64K(br) => (br, 2),
        Op::BrGeF64K(br) => (br, 3),
        _ => return None,
    };
    // The test reads the result, and its constant is not written over it.
    if br.a != op.d || br.kd == op.d {
        return None;
    }
    let family: [[Make<ThenBranch>; 4]; 3] = [
        [
            Op::AddF64BrLtK,
            Op::AddF64BrLeK,
            Op::AddF64BrGtK,
            Op::AddF64BrGeK,
        ],
        [
            Op::SubF64BrLtK,
            Op::SubF64BrLeK,
            Op::SubF64BrGtK,
            Op::SubF64BrGeK,
        ],
        [
            Op::MulF64BrLtK,
            Op::MulF64BrLeK,
            Op::MulF64BrGtK,
            Op::MulF64BrGeK,
        ],
    ];
    Some(family[arith][test](ThenBranch { op, br }))
}

/// Two operations in a row at `ops[i]` that one dispatch runs, each as it would alone:
/// a checked `+` and the checked `+` after it (`Op::AddAddI64`, `Op::AddAddKU64`, ..),
/// a checked `*` and the division of its product by a power of two
/// (`Op::MulDivP2U64`, ..), a conversion to `f64` and the division after it
/// (`Op::U64ToF64Div`, ..).
fn two_in_a_row(ops: &[Op], i: usize) -> Option<Op> {
    let convert_div = |c, s, div| ConvertDiv { c, s, div };
    Some(match (&ops[i], ops.get(i + 1)?) {
        (&Op::AddI64(first), &Op::AddI64(then)) => Op::AddAddI64(Then { first, then }),
        (&Op::AddU64(first), &Op::AddU64(then)) => Op::AddAddU64(Then { first, then }),
        (&Op::AddI64(first), &Op::AddI64K(then)) => Op::AddAddKI64(Then { first, then }),
        (&Op::AddU64(first), &Op::AddU64K(then)) => Op::AddAddKU64(Then { first, then }),
        (&Op::MulI64(first), &Op::DivI64P2(then)) => Op::MulDivP2I64(Then { first, then }),
        (&Op::MulU64(first), &Op::DivU64P2(then)) => Op::MulDivP2U64(Then { first, then }),
        (&Op::I64ToF64 { d, s }, &Op::DivF64(div)) => Op::I64ToF64Div(convert_div(d, s, div)),
        (&Op::U64ToF64 { d, s }, &Op::DivF64(div)) => Op::U64ToF64Div(convert_div(d, s, div)),
        _ => return None,
    })
}

/// The `f64` `+`, `-` or `*` at `ops[i]` (0, 1, 2), with the copy of its result when
/// one is fused to it, and how many operations it stands for.
fn f64_step(op: &Op) -> Option<(usize, F64Step, u32)> {
    let step = |o: Slots, m| F64Step {
        d: o.d,
        a: o.a,
        b: o.b,
        m,
    };
    Some(match *op {
        Op::AddF64(o) => (0, step(o, o.d), 1),
        Op::SubF64(o) => (1, step(o, o.d), 1),
        Op::MulF64(o) => (2, step(o, o.d), 1),
        Op::AddF64M(ThenCopy { op, m }) => (0, step(op, m), 2),
        Op::SubF64M(ThenCopy { op, m }) => (1, step(op, m), 2),
        Op::MulF64M(ThenCopy { op, m }) => (2, step(op, m), 2),
        _ => return None,
    })
}

/// Two `f64` operations in a row at `ops[i]`, each `+`, `-` or `*`, with or without the
/// copy of its result: one operation (`Op::PairSubAddF64`, ..).
fn f64_pair(ops: &[Op], i: usize) -> Option<Op> {
    let (x, first, covers) = f64_step(&ops[i])?;
    let (y, then, more) = f64_step(ops.get(i + covers as usize)?)?;
    let family: [[Make<F64Pair>; 3]; 3] = [
        [Op::PairAddAddF64, Op::PairAddSubF64, Op::PairAddMulF64],
        [Op::PairSubAddF64, Op::PairSubSubF64, Op::PairSubMulF64],
        [Op::PairMulAddF64, Op::PairMulSubF64, Op::PairMulMulF64],
    ];
    Some(family[x][y](F64Pair {
        first,
        then,
        covers: covers + more,
    }))
}

/// Which product-and-sum `op` is (`Op::MulAddF64` 0, `Op::MulSubF64` 1,
/// `Op::MulRsubF64` 2), and its payload.
fn product_sum(op: &Op) -> Option<(usize, MulThen)> {
    Some(match *op {
        Op::MulAddF64(o) => (0, o),
        Op::MulSubF64(o) => (1, o),
        Op::MulRsubF64(o) => (2, o),
        _ => return None,
    })
}

/// The 8-byte element write of `sum`'s result right after the product-and-sum `sum` at
/// `ops[i]` (which stands for two operations): which (`Op::SetW` 0, `Op::SetWI` 1), and
/// its payload.
fn write_of_sum(ops: &[Op], i: usize, sum: &MulThen) -> Option<(usize, Element)> {
    let (which, set) = match *ops.get(i + 2)? {
        Op::SetW(set) => (0, set),
        Op::SetWI(set) => (1, set),
        _ => return None,
    };
    (set.value == sum.d).then_some((which, set))
}

/// An `f64` product and the sum or difference that takes it at `ops[i]`, and the 8-byte
/// element write of its result after them (`set b[k] = b[k] - x * y`): one operation
/// (`Op::MulRsubSetWI`, ..).
fn mul_then_set(ops: &[Op], i: usize) -> Option<Op> {
    let (x, op) = product_sum(&ops[i])?;
    let (y, set) = write_of_sum(ops, i, &op)?;
    let family: [[Make<MulThenSet>; 2]; 3] = [
        [Op::MulAddSetW, Op::MulAddSetWI],
        [Op::MulSubSetW, Op::MulSubSetWI],
        [Op::MulRsubSetW, Op::MulRsubSetWI],
    ];
    Some(family[x][y](MulThenSet { op, set }))
}

/// An `f64` product at `ops[i]`, then a product-and-sum after it, perhaps with the
/// element write of its result (`set b[k] = b[k] - dx * mass * mag`): one operation
/// (`Op::MulMulRsubSetWI`, ..).
fn mul_then_mul(ops: &[Op], i: usize) -> Option<Op> {
    let Op::MulF64(mul) = ops[i] else {
        return None;
    };
    let (x, op) = product_sum(ops.get(i + 1)?)?;
    Some(match write_of_sum(ops, i + 1, &op) {
        Some((y, set)) => {
            let family: [[Make<Prefixed<MulThenSet>>; 2]; 3] = [
                [Op::MulMulAddSetW, Op::MulMulAddSetWI],
                [Op::MulMulSubSetW, Op::MulMulSubSetWI],
                [Op::MulMulRsubSetW, Op::MulMulRsubSetWI],
            ];
            family[x][y](Prefixed {
                mul,
                then: MulThenSet { op, set },
            })
        }
        None => {
            let family: [Make<Prefixed<MulThen>>; 3] =
                [Op::MulMulAddF64, Op::MulMulSubF64, Op::MulMulRsubF64];
            family[x](Prefixed { mul, then: op })
        }
    })
}

/// An 8-byte element read at `ops[i]`, then an `f64` product and the sum that takes it
/// (`sum + a * u[j]`): one operation (`Op::GetMulAddWI`, ..).
fn get_then_mul_add(ops: &[Op], i: usize) -> Option<Op> {
    let (get, indirect) = match ops[i] {
        Op::GetW(get) => (get, false),
        Op::GetWI(get) => (get, true),
        _ => return None,
    };
    Some(match (ops.get(i + 1)?, indirect) {
        (&Op::MulAddF64(then), false) => Op::GetMulAddW(GetThen { get, then }),
        (&Op::MulAddF64(then), true) => Op::GetMulAddWI(GetThen { get, then }),
        (&Op::MulAddF64M(then), false) => Op::GetMulAddMW(GetThen { get, then }),
        (&Op::MulAddF64M(then), true) => Op::GetMulAddMWI(GetThen { get, then }),
        _ => return None,
    })
}

/// A checked `+` or `-` of a constant at `ops[i]` and the one-argument call after it
/// that takes its result (`fib(n - 1)`): one operation (`Op::SubKCallI64`, ..).
fn step_then_call(ops: &[Op], i: usize) -> Option<Op> {
    let (make, step): (Make<StepCall>, _) = match ops[i] {
        Op::AddI64K(step) => (Op::AddKCallI64, step),
        Op::SubI64K(step) => (Op::SubKCallI64, step),
        Op::AddU64K(step) => (Op::AddKCallU64, step),
        Op::SubU64K(step) => (Op::SubKCallU64, step),
        _ => return None,
    };
    // The constant and the operation stand for two operations; the call comes after.
    let &Op::CallW1(call) = ops.get(i + 2)? else {
        return None;
    };
    (call.src == step.d).then(|| make(StepCall { step, call }))
}

/// A call-depth test at `ops[i]` and the subtract-and-test after it (fused already):
/// one operation (`Op::DepthSubBrLtI64K`, ..).
fn depth_then_test(ops: &[Op], i: usize) -> Option<Op> {
    let Op::CheckDepth { depth, fail } = ops[i] else {
        return None;
    };
    macro_rules! family {
        ($($sub:ident => $depth:ident,)*) => {
            match *ops.get(i + 1)? {
                $(Op::$sub(then) => Op::$depth(DepthThen { depth, fail, then }),)*
                _ => return None,
            }
        };
    }
    Some(family! {
        SubBrEqI64 => DepthSubBrEqI64,
        SubBrNeI64 => DepthSubBrNeI64,
        SubBrLtI64 => DepthSubBrLtI64,
        SubBrLeI64 => DepthSubBrLeI64,
        SubBrEqU64 => DepthSubBrEqU64,
        SubBrNeU64 => DepthSubBrNeU64,
        SubBrLtU64 => DepthSubBrLtU64,
        SubBrLeU64 => DepthSubBrLeU64,
        SubBrEqI64K => DepthSubBrEqI64K,
        SubBrNeI64K => DepthSubBrNeI64K,
        SubBrLtI64K => DepthSubBrLtI64K,
        SubBrLeI64K => DepthSubBrLeI64K,
        SubBrEqU64K => DepthSubBrEqU64K,
        SubBrNeU64K => DepthSubBrNeU64K,
        SubBrLtU64K => DepthSubBrLtU64K,
        SubBrLeU64K => DepthSubBrLeU64K,
    })
}

/// A one-argument call at `ops[i]` and the checked `+` (with the copy of its sum) after
/// it: one operation (`Op::CallAddI64M`, ..). The two stand in one block, so nothing
/// jumps between them.
fn call_then_add(ops: &[Op], i: usize) -> Option<Op> {
    let Op::CallW1(call) = ops[i] else {
        return None;
    };
    Some(match *ops.get(i + 1)? {
        Op::AddI64M(then) => Op::CallAddI64M(CallThen { call, then }),
        Op::AddU64M(then) => Op::CallAddU64M(CallThen { call, then }),
        _ => return None,
    })
}

/// A `bool` element read at `ops[i]` and the branch on it after it: one operation
/// (`Op::GetBBr`, `Op::GetBIBr`).
fn get_then_branch(ops: &[Op], i: usize) -> Option<Op> {
    let &Op::BranchD { cond, t, e } = ops.get(i + 1)? else {
        return None;
    };
    let branch = |get: Element| {
        (get.value == cond).then_some(ElementBranch {
            get,
            to: targets(t, e),
        })
    };
    Some(match ops[i] {
        Op::GetB(get) => Op::GetBBr(branch(get)?),
        Op::GetBI(get) => Op::GetBIBr(branch(get)?),
        _ => return None,
    })
}

/// Rewrites `ops` into the fast form (see the module's comment).
pub fn specialize(ops: &mut [Op]) {
    // The comparisons left on their own: fused below with a branch that threading brings
    // next to them.
    let mut compares = Vec::new();
    for i in 0..ops.len() {
        if let Some((op, covers)) = fused(ops, i).or_else(|| Some((single(&ops[i])?, 1))) {
            if let (Op::Compare(compare), 1) = (&ops[i], covers) {
                compares.push((i, compare.clone()));
            }
            ops[i] = with_copy(op, ops.get(i + covers)).unwrap_or_else(|op| op);
        }
    }
    // Before threading, so that a jump to the return of a result becomes a copy of both.
    for i in 0..ops.len().saturating_sub(1) {
        if let Some(op) = arith_then_return(&ops[i], &ops[i + 1]) {
            ops[i] = op;
        }
    }
    // Jump threading: branch targets first, then jumps, which may become a copy of the
    // branch they reach.
    for i in 0..ops.len() {
        // Taken out while its targets are threaded (a target that is this operation
        // itself reads as no jump, which it is not).
        let mut op = std::mem::replace(&mut ops[i], Op::Abandon);
        if let Some((t, e)) = branch_targets(&mut op) {
            (*t, *e) = (thread(ops, *t), thread(ops, *e));
        }
        ops[i] = op;
    }
    for i in 0..ops.len() {
        if let Op::Jump(t) = ops[i] {
            let t = thread(ops, t);
            ops[i] = if ends_path(&mut ops[t as usize]) {
                ops[t as usize].clone()
            } else {
                Op::Jump(t)
            };
        }
    }
    // A comparison whose block jumped to the branch on it now stands before a copy of
    // that branch: one operation.
    for (i, compare) in compares {
        if let Some(&Op::BranchD { cond, t, e }) = ops.get(i + 1) {
            if direct(compare.dst) == Some(cond) {
                ops[i] = compare_branch(&compare, targets(t, e)).expect("a fast comparison");
            }
        }
    }
    for i in 0..ops.len().saturating_sub(1) {
        if let Some(op) = const_then_branch(&ops[i], &ops[i + 1]) {
            ops[i] = op;
        }
    }
    // Last, once every test has its final form: a counter's step and the loop's test
    // after it. (No later rewrite reads the fused operation's targets.)
    for i in 0..ops.len() {
        let fused = step_then_test(ops, i)
            .or_else(|| index_then_get(ops, i))
            .or_else(|| arith_then_test(ops, i))
            .or_else(|| two_in_a_row(ops, i))
            .or_else(|| mul_then_mul(ops, i))
            .or_else(|| f64_pair(ops, i))
            .or_else(|| mul_then_set(ops, i))
            .or_else(|| get_then_mul_add(ops, i))
            .or_else(|| step_then_call(ops, i))
            .or_else(|| call_then_add(ops, i))
            .or_else(|| get_then_set(ops, i))
            .or_else(|| get_then_branch(ops, i));
        if let Some(op) = fused {
            ops[i] = op;
        }
    }
    // Then a depth test before a step and its test, now that those are one operation.
    for i in 0..ops.len() {
        if let Some(op) = depth_then_test(ops, i) {
            ops[i] = op;
        }
    }
}
