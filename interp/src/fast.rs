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

use datalove_ir::{BinaryOp, CompareOp};
use datalove_rti::TyKind;

use crate::desc::DescRef;
use crate::ops::{Op, Opnd, ParamPass};

/// The offset of a direct operand.
fn direct(o: Opnd) -> Option<u32> {
    (o.0 & Opnd::INDIRECT == 0).then_some(o.0)
}

/// The three offsets of a direct binary operation.
fn direct3(d: Opnd, a: Opnd, b: Opnd) -> Option<(u32, u32, u32)> {
    Some((direct(d)?, direct(a)?, direct(b)?))
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

fn compare(op: CompareOp, ty: TyKind, d: Opnd, a: Opnd, b: Opnd) -> Option<Op> {
    let (d, a, b) = direct3(d, a, b)?;
    let (op, a, b) = normalize(op, a, b);
    Some(match (class(ty)?, op) {
        (Class::I64, CompareOp::Eq) => Op::EqI64 { d, a, b },
        (Class::I64, CompareOp::Ne) => Op::NeI64 { d, a, b },
        (Class::I64, CompareOp::Lt) => Op::LtI64 { d, a, b },
        (Class::I64, _) => Op::LeI64 { d, a, b },
        (Class::U64, CompareOp::Eq) => Op::EqU64 { d, a, b },
        (Class::U64, CompareOp::Ne) => Op::NeU64 { d, a, b },
        (Class::U64, CompareOp::Lt) => Op::LtU64 { d, a, b },
        (Class::U64, _) => Op::LeU64 { d, a, b },
        (Class::F64, CompareOp::Eq) => Op::EqF64 { d, a, b },
        (Class::F64, CompareOp::Ne) => Op::NeF64 { d, a, b },
        (Class::F64, CompareOp::Lt) => Op::LtF64 { d, a, b },
        (Class::F64, _) => Op::LeF64 { d, a, b },
    })
}

/// A comparison fused with the branch on its result.
fn compare_branch(
    op: CompareOp,
    ty: TyKind,
    d: Opnd,
    a: Opnd,
    b: Opnd,
    t: u32,
    e: u32,
) -> Option<Op> {
    let (d, a, b) = direct3(d, a, b)?;
    let (op, a, b) = normalize(op, a, b);
    Some(match (class(ty)?, op) {
        (Class::I64, CompareOp::Eq) => Op::BrEqI64 { d, a, b, t, e },
        (Class::I64, CompareOp::Ne) => Op::BrNeI64 { d, a, b, t, e },
        (Class::I64, CompareOp::Lt) => Op::BrLtI64 { d, a, b, t, e },
        (Class::I64, _) => Op::BrLeI64 { d, a, b, t, e },
        (Class::U64, CompareOp::Eq) => Op::BrEqU64 { d, a, b, t, e },
        (Class::U64, CompareOp::Ne) => Op::BrNeU64 { d, a, b, t, e },
        (Class::U64, CompareOp::Lt) => Op::BrLtU64 { d, a, b, t, e },
        (Class::U64, _) => Op::BrLeU64 { d, a, b, t, e },
        (Class::F64, CompareOp::Eq) => Op::BrEqF64 { d, a, b, t, e },
        (Class::F64, CompareOp::Ne) => Op::BrNeF64 { d, a, b, t, e },
        (Class::F64, CompareOp::Lt) => Op::BrLtF64 { d, a, b, t, e },
        (Class::F64, _) => Op::BrLeF64 { d, a, b, t, e },
    })
}

/// `Const k` into `kd`, a comparison of `a` with it and the branch on the result.
#[allow(clippy::too_many_arguments)]
fn compare_const_branch(
    op: CompareOp,
    ty: TyKind,
    d: Opnd,
    a: Opnd,
    k: u64,
    kd: u32,
    t: u32,
    e: u32,
) -> Option<Op> {
    let (d, a) = (direct(d)?, direct(a)?);
    Some(match (class(ty)?, op) {
        (Class::I64, CompareOp::Eq) => Op::BrEqI64K { d, a, k, kd, t, e },
        (Class::I64, CompareOp::Ne) => Op::BrNeI64K { d, a, k, kd, t, e },
        (Class::I64, CompareOp::Lt) => Op::BrLtI64K { d, a, k, kd, t, e },
        (Class::I64, CompareOp::Le) => Op::BrLeI64K { d, a, k, kd, t, e },
        (Class::I64, CompareOp::Gt) => Op::BrGtI64K { d, a, k, kd, t, e },
        (Class::I64, CompareOp::Ge) => Op::BrGeI64K { d, a, k, kd, t, e },
        (Class::U64, CompareOp::Eq) => Op::BrEqU64K { d, a, k, kd, t, e },
        (Class::U64, CompareOp::Ne) => Op::BrNeU64K { d, a, k, kd, t, e },
        (Class::U64, CompareOp::Lt) => Op::BrLtU64K { d, a, k, kd, t, e },
        (Class::U64, CompareOp::Le) => Op::BrLeU64K { d, a, k, kd, t, e },
        (Class::U64, CompareOp::Gt) => Op::BrGtU64K { d, a, k, kd, t, e },
        (Class::U64, CompareOp::Ge) => Op::BrGeU64K { d, a, k, kd, t, e },
        (Class::F64, _) => return None,
    })
}

fn binary(op: BinaryOp, ty: TyKind, d: Opnd, a: Opnd, b: Opnd, fail: u32) -> Option<Op> {
    let (d, a, b) = direct3(d, a, b)?;
    if ty == TyKind::Bool {
        return match op {
            BinaryOp::And | BinaryOp::BitAnd => Some(Op::AndB { d, a, b }),
            BinaryOp::Or | BinaryOp::BitOr => Some(Op::OrB { d, a, b }),
            _ => None,
        };
    }
    Some(match (class(ty)?, op) {
        (Class::I64, BinaryOp::Add) => Op::AddI64 { d, a, b, fail },
        (Class::I64, BinaryOp::Sub) => Op::SubI64 { d, a, b, fail },
        (Class::I64, BinaryOp::Mul) => Op::MulI64 { d, a, b, fail },
        (Class::U64, BinaryOp::Add) => Op::AddU64 { d, a, b, ty, fail },
        (Class::U64, BinaryOp::Sub) => Op::SubU64 { d, a, b, ty, fail },
        (Class::U64, BinaryOp::Mul) => Op::MulU64 { d, a, b, ty, fail },
        (Class::F64, BinaryOp::Add) => Op::AddF64 { d, a, b },
        (Class::F64, BinaryOp::Sub) => Op::SubF64 { d, a, b },
        (Class::F64, BinaryOp::Mul) => Op::MulF64 { d, a, b },
        (Class::F64, BinaryOp::Div) => Op::DivF64 { d, a, b },
        _ => return None,
    })
}

/// `Const k` into `kd`, then `d = a op k`.
fn binary_const(
    op: BinaryOp,
    ty: TyKind,
    d: Opnd,
    a: Opnd,
    k: u64,
    kd: u32,
    fail: u32,
) -> Option<Op> {
    let (d, a) = (direct(d)?, direct(a)?);
    Some(match (class(ty)?, op) {
        (Class::I64, BinaryOp::Add) => Op::AddI64K { d, a, k, kd, fail },
        (Class::I64, BinaryOp::Sub) => Op::SubI64K { d, a, k, kd, fail },
        (Class::U64, BinaryOp::Add) => Op::AddU64K {
            d,
            a,
            k,
            kd,
            ty,
            fail,
        },
        (Class::U64, BinaryOp::Sub) => Op::SubU64K {
            d,
            a,
            k,
            kd,
            ty,
            fail,
        },
        (Class::I64, BinaryOp::Mul) => Op::MulI64K { d, a, k, kd, fail },
        (Class::U64, BinaryOp::Mul) => Op::MulU64K {
            d,
            a,
            k,
            kd,
            ty,
            fail,
        },
        (Class::F64, BinaryOp::Add) => Op::AddF64K { d, a, k, kd },
        (Class::F64, BinaryOp::Sub) => Op::SubF64K { d, a, k, kd },
        (Class::F64, BinaryOp::Mul) => Op::MulF64K { d, a, k, kd },
        (Class::F64, BinaryOp::Div) => Op::DivF64K { d, a, k, kd },
        // A positive divisor: no division by zero, no `MIN / -1`.
        (Class::I64, BinaryOp::Div) if (k as i64) > 0 => Op::DivI64K { d, a, k, kd },
        (Class::I64, BinaryOp::Rem) if (k as i64) > 0 => Op::RemI64K { d, a, k, kd },
        (Class::U64, BinaryOp::Div) if k > 0 => Op::DivU64K { d, a, k, kd },
        (Class::U64, BinaryOp::Rem) if k > 0 => Op::RemU64K { d, a, k, kd },
        _ => return None,
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

/// The fast form of one operation alone.
fn single(op: &Op) -> Option<Op> {
    Some(match op {
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
        Op::Binary {
            op,
            ty,
            dst,
            a,
            b,
            fail,
        } => binary(*op, *ty, *dst, *a, *b, *fail)?,
        Op::Compare { op, ty, dst, a, b } => compare(*op, *ty, *dst, *a, *b)?,
        Op::Branch {
            cond,
            then_pc,
            else_pc,
        } => Op::BranchD {
            cond: direct(*cond)?,
            t: *then_pc,
            e: *else_pc,
        },
        Op::ListGet {
            dst,
            list,
            index,
            elem,
            fail,
        } => {
            let (dst, index, fail) = (direct(*dst)?, direct(*index)?, *fail);
            let size = copy_elem_size(*elem)?;
            let at = list.0 & !Opnd::INDIRECT;
            match (direct(*list).is_some(), size) {
                (true, 8) => Op::GetW {
                    dst,
                    list: at,
                    index,
                    fail,
                },
                (true, 1) => Op::GetB {
                    dst,
                    list: at,
                    index,
                    fail,
                },
                (false, 8) => Op::GetWI {
                    dst,
                    list: at,
                    index,
                    fail,
                },
                (false, 1) => Op::GetBI {
                    dst,
                    list: at,
                    index,
                    fail,
                },
                _ => return None,
            }
        }
        Op::ListSet {
            list,
            index,
            value,
            elem,
            fail,
        } => {
            let (index, value, fail) = (direct(*index)?, direct(*value)?, *fail);
            let size = copy_elem_size(*elem)?;
            let at = list.0 & !Opnd::INDIRECT;
            match (direct(*list).is_some(), size) {
                (true, 8) => Op::SetW {
                    list: at,
                    index,
                    value,
                    fail,
                },
                (true, 1) => Op::SetB {
                    list: at,
                    index,
                    value,
                    fail,
                },
                (false, 8) => Op::SetWI {
                    list: at,
                    index,
                    value,
                    fail,
                },
                (false, 1) => Op::SetBI {
                    list: at,
                    index,
                    value,
                    fail,
                },
                _ => return None,
            }
        }
        Op::Cast {
            from,
            to,
            checked,
            dst,
            src,
            fail,
        } => {
            let (d, s) = (direct(*dst)?, direct(*src)?);
            let ty = datalove_rti::status::cast_ty(*from, *to);
            // An unchecked conversion never takes its abandon target.
            let fail = if *checked { *fail } else { u32::MAX };
            match (class(*from)?, class(*to)?) {
                (Class::I64, Class::F64) => Op::I64ToF64 { d, s },
                (Class::U64, Class::F64) => Op::U64ToF64 { d, s },
                (Class::I64, Class::U64) => Op::I64ToU64 { d, s, ty, fail },
                (Class::U64, Class::I64) => Op::U64ToI64 { d, s, ty, fail },
                (Class::I64, Class::I64) | (Class::U64, Class::U64) => Op::MovW { dst: d, src: s },
                _ => return None,
            }
        }
        Op::Call {
            callee,
            args,
            type_args,
            dst,
            in_drops,
            fail,
        } if type_args.is_empty() && in_drops.is_empty() => {
            let args = args
                .iter()
                .map(|arg| match arg.pass {
                    ParamPass::Value { offset, size } => Some((direct(arg.src)?, offset, size)),
                    ParamPass::Address { .. } => None,
                })
                .collect::<Option<Box<[_]>>>()?;
            let dst = match dst {
                Some(d) => Some(direct(*d)?),
                None => None,
            };
            Op::CallV {
                callee: *callee,
                args,
                dst,
                fail: *fail,
            }
        }
        Op::Return {
            src: Some((src, DescRef::Static(p))),
        } if copy_elem_size(DescRef::Static(*p)) == Some(8) => Op::RetW { src: direct(*src)? },
        _ => return None,
    })
}

/// The fast form of the sequence starting at `ops[i]`, fused where it can be.
fn fused(ops: &[Op], i: usize) -> Option<Op> {
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
            let kd_off = direct(*kd)?;
            match second {
                Op::Binary {
                    op,
                    ty,
                    dst,
                    a,
                    b,
                    fail,
                } if b == kd => binary_const(*op, *ty, *dst, *a, *bits, kd_off, *fail),
                // `k + b`, `k * b` on floats: the same as `b + k`, `b * k`.
                Op::Binary {
                    op: op @ (BinaryOp::Add | BinaryOp::Mul),
                    ty: TyKind::F64,
                    dst,
                    a,
                    b,
                    fail,
                } if a == kd && b != kd => {
                    binary_const(*op, TyKind::F64, *dst, *b, *bits, kd_off, *fail)
                }
                Op::Compare { op, ty, dst, a, b } if b == kd => match after {
                    Some(Op::Branch {
                        cond,
                        then_pc,
                        else_pc,
                    }) if cond == dst => {
                        compare_const_branch(*op, *ty, *dst, *a, *bits, kd_off, *then_pc, *else_pc)
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        // A comparison and the branch on its result.
        (
            Op::Compare { op, ty, dst, a, b },
            Some(Op::Branch {
                cond,
                then_pc,
                else_pc,
            }),
        ) if cond == dst => compare_branch(*op, *ty, *dst, *a, *b, *then_pc, *else_pc),
        _ => None,
    }
}

/// `op` (standing for `covers` operations) followed by `x = copy d` of its result, when
/// `next` is that copy.
fn with_copy(op: Op, next: Option<&Op>) -> Result<Op, Op> {
    let Some(&Op::Mov { dst, src, size: 8 }) = next else {
        return Err(op);
    };
    let (Some(m), Some(src)) = (direct(dst), direct(src)) else {
        return Err(op);
    };
    Ok(match op {
        Op::AddI64K { d, a, k, kd, fail } if d == src => Op::IncI64 {
            d,
            a,
            k,
            kd,
            m,
            fail,
        },
        Op::AddU64K {
            d,
            a,
            k,
            kd,
            ty,
            fail,
        } if d == src => Op::IncU64 {
            d,
            a,
            k,
            kd,
            m,
            ty,
            fail,
        },
        Op::AddI64 { d, a, b, fail } if d == src => Op::AddI64M { d, a, b, m, fail },
        Op::SubI64 { d, a, b, fail } if d == src => Op::SubI64M { d, a, b, m, fail },
        Op::AddU64 { d, a, b, ty, fail } if d == src => Op::AddU64M {
            d,
            a,
            b,
            m,
            ty,
            fail,
        },
        Op::AddF64 { d, a, b } if d == src => Op::AddF64M { d, a, b, m },
        Op::SubF64 { d, a, b } if d == src => Op::SubF64M { d, a, b, m },
        Op::MulF64 { d, a, b } if d == src => Op::MulF64M { d, a, b, m },
        other => return Err(other),
    })
}

/// How many operations a fast operation stands for when it falls through.
fn covers(op: &Op) -> usize {
    match op {
        Op::AddI64K { .. }
        | Op::SubI64K { .. }
        | Op::AddU64K { .. }
        | Op::SubU64K { .. }
        | Op::MulI64K { .. }
        | Op::MulU64K { .. }
        | Op::DivI64K { .. }
        | Op::RemI64K { .. }
        | Op::DivU64K { .. }
        | Op::RemU64K { .. }
        | Op::AddF64K { .. }
        | Op::SubF64K { .. }
        | Op::MulF64K { .. }
        | Op::DivF64K { .. }
        | Op::AddI64M { .. }
        | Op::SubI64M { .. }
        | Op::AddU64M { .. }
        | Op::AddF64M { .. }
        | Op::SubF64M { .. }
        | Op::MulF64M { .. } => 2,
        Op::IncI64 { .. } | Op::IncU64 { .. } => 3,
        _ => 1,
    }
}

/// Whether an operation's next operation does not depend on where it stands (it always
/// jumps or returns), so a jump to it may be replaced by a copy of it.
fn ends_path(op: &Op) -> bool {
    matches!(
        op,
        Op::Jump(_)
            | Op::Branch { .. }
            | Op::BranchD { .. }
            | Op::Return { .. }
            | Op::RetW { .. }
            | Op::Abandon
            | Op::BrEqI64 { .. }
            | Op::BrNeI64 { .. }
            | Op::BrLtI64 { .. }
            | Op::BrLeI64 { .. }
            | Op::BrEqU64 { .. }
            | Op::BrNeU64 { .. }
            | Op::BrLtU64 { .. }
            | Op::BrLeU64 { .. }
            | Op::BrEqF64 { .. }
            | Op::BrNeF64 { .. }
            | Op::BrLtF64 { .. }
            | Op::BrLeF64 { .. }
            | Op::BrEqI64K { .. }
            | Op::BrNeI64K { .. }
            | Op::BrLtI64K { .. }
            | Op::BrLeI64K { .. }
            | Op::BrGtI64K { .. }
            | Op::BrGeI64K { .. }
            | Op::BrEqU64K { .. }
            | Op::BrNeU64K { .. }
            | Op::BrLtU64K { .. }
            | Op::BrLeU64K { .. }
            | Op::BrGtU64K { .. }
            | Op::BrGeU64K { .. }
            | Op::BrEqF64K { .. }
            | Op::BrNeF64K { .. }
            | Op::BrLtF64K { .. }
            | Op::BrLeF64K { .. }
            | Op::BrGtF64K { .. }
            | Op::BrGeF64K { .. }
    )
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

/// Calls `f` on each branch target of `op` (not its abandon target, not a jump's).
fn branch_targets(op: &mut Op, mut f: impl FnMut(&mut u32)) {
    match op {
        Op::Branch {
            then_pc, else_pc, ..
        } => {
            f(then_pc);
            f(else_pc);
        }
        Op::BranchD { t, e, .. }
        | Op::BrEqI64 { t, e, .. }
        | Op::BrNeI64 { t, e, .. }
        | Op::BrLtI64 { t, e, .. }
        | Op::BrLeI64 { t, e, .. }
        | Op::BrEqU64 { t, e, .. }
        | Op::BrNeU64 { t, e, .. }
        | Op::BrLtU64 { t, e, .. }
        | Op::BrLeU64 { t, e, .. }
        | Op::BrEqF64 { t, e, .. }
        | Op::BrNeF64 { t, e, .. }
        | Op::BrLtF64 { t, e, .. }
        | Op::BrLeF64 { t, e, .. }
        | Op::BrEqI64K { t, e, .. }
        | Op::BrNeI64K { t, e, .. }
        | Op::BrLtI64K { t, e, .. }
        | Op::BrLeI64K { t, e, .. }
        | Op::BrGtI64K { t, e, .. }
        | Op::BrGeI64K { t, e, .. }
        | Op::BrEqU64K { t, e, .. }
        | Op::BrNeU64K { t, e, .. }
        | Op::BrLtU64K { t, e, .. }
        | Op::BrLeU64K { t, e, .. }
        | Op::BrGtU64K { t, e, .. }
        | Op::BrGeU64K { t, e, .. }
        | Op::BrEqF64K { t, e, .. }
        | Op::BrNeF64K { t, e, .. }
        | Op::BrLtF64K { t, e, .. }
        | Op::BrLeF64K { t, e, .. }
        | Op::BrGtF64K { t, e, .. }
        | Op::BrGeF64K { t, e, .. } => {
            f(t);
            f(e);
        }
        _ => {}
    }
}

/// A fast comparison followed by the branch on its result (a jump to a branch, copied
/// in place by threading), fused.
fn then_branch(op: &Op, next: &Op) -> Option<Op> {
    let &Op::BranchD { cond, t, e } = next else {
        return None;
    };
    let fused = match *op {
        Op::EqI64 { d, a, b } => Op::BrEqI64 { d, a, b, t, e },
        Op::NeI64 { d, a, b } => Op::BrNeI64 { d, a, b, t, e },
        Op::LtI64 { d, a, b } => Op::BrLtI64 { d, a, b, t, e },
        Op::LeI64 { d, a, b } => Op::BrLeI64 { d, a, b, t, e },
        Op::EqU64 { d, a, b } => Op::BrEqU64 { d, a, b, t, e },
        Op::NeU64 { d, a, b } => Op::BrNeU64 { d, a, b, t, e },
        Op::LtU64 { d, a, b } => Op::BrLtU64 { d, a, b, t, e },
        Op::LeU64 { d, a, b } => Op::BrLeU64 { d, a, b, t, e },
        Op::EqF64 { d, a, b } => Op::BrEqF64 { d, a, b, t, e },
        Op::NeF64 { d, a, b } => Op::BrNeF64 { d, a, b, t, e },
        Op::LtF64 { d, a, b } => Op::BrLtF64 { d, a, b, t, e },
        Op::LeF64 { d, a, b } => Op::BrLeF64 { d, a, b, t, e },
        _ => return None,
    };
    let (Op::BrEqI64 { d, .. }
    | Op::BrNeI64 { d, .. }
    | Op::BrLtI64 { d, .. }
    | Op::BrLeI64 { d, .. }
    | Op::BrEqU64 { d, .. }
    | Op::BrNeU64 { d, .. }
    | Op::BrLtU64 { d, .. }
    | Op::BrLeU64 { d, .. }
    | Op::BrEqF64 { d, .. }
    | Op::BrNeF64 { d, .. }
    | Op::BrLtF64 { d, .. }
    | Op::BrLeF64 { d, .. }) = fused
    else {
        unreachable!()
    };
    (d == cond).then_some(fused)
}

/// An 8-byte constant followed by a fused float compare-and-branch that reads it as one
/// operand, fused (`x <= 4.0`): the constant becomes an immediate.
fn const_then_branch(op: &Op, next: &Op) -> Option<Op> {
    let &Op::ConstW { dst: kd, bits: k } = op else {
        return None;
    };
    // The comparison, and the same with its operands exchanged.
    let (d, a, b, t, e, op, swapped) = match *next {
        Op::BrEqF64 { d, a, b, t, e } => (d, a, b, t, e, CompareOp::Eq, CompareOp::Eq),
        Op::BrNeF64 { d, a, b, t, e } => (d, a, b, t, e, CompareOp::Ne, CompareOp::Ne),
        Op::BrLtF64 { d, a, b, t, e } => (d, a, b, t, e, CompareOp::Lt, CompareOp::Gt),
        Op::BrLeF64 { d, a, b, t, e } => (d, a, b, t, e, CompareOp::Le, CompareOp::Ge),
        _ => return None,
    };
    // `x op k`, or `k op x`, which is `x swapped k`.
    let (a, op) = match (a == kd, b == kd) {
        (false, true) => (a, op),
        (true, false) => (b, swapped),
        _ => return None,
    };
    Some(match op {
        CompareOp::Eq => Op::BrEqF64K { d, a, k, kd, t, e },
        CompareOp::Ne => Op::BrNeF64K { d, a, k, kd, t, e },
        CompareOp::Lt => Op::BrLtF64K { d, a, k, kd, t, e },
        CompareOp::Le => Op::BrLeF64K { d, a, k, kd, t, e },
        CompareOp::Gt => Op::BrGtF64K { d, a, k, kd, t, e },
        CompareOp::Ge => Op::BrGeF64K { d, a, k, kd, t, e },
    })
}

/// Rewrites `ops` into the fast form (see the module's comment).
pub fn specialize(ops: &mut [Op]) {
    for i in 0..ops.len() {
        if let Some(op) = fused(ops, i).or_else(|| single(&ops[i])) {
            let next = ops.get(i + covers(&op));
            ops[i] = with_copy(op, next).unwrap_or_else(|op| op);
        }
    }
    // Jump threading: branch targets first, then jumps, which may become a copy of the
    // branch they reach.
    for i in 0..ops.len() {
        // Taken out while its targets are threaded (a target that is this operation
        // itself reads as no jump, which it is not).
        let mut op = std::mem::replace(&mut ops[i], Op::Abandon);
        branch_targets(&mut op, |t| *t = thread(ops, *t));
        ops[i] = op;
    }
    for i in 0..ops.len() {
        if let Op::Jump(t) = ops[i] {
            let t = thread(ops, t);
            ops[i] = if ends_path(&ops[t as usize]) {
                ops[t as usize].clone()
            } else {
                Op::Jump(t)
            };
        }
    }
    // A comparison whose block jumped to the branch on it now stands before a copy of
    // that branch: one operation.
    for i in 0..ops.len().saturating_sub(1) {
        if let Some(op) = then_branch(&ops[i], &ops[i + 1]) {
            ops[i] = op;
        }
    }
    for i in 0..ops.len().saturating_sub(1) {
        if let Some(op) = const_then_branch(&ops[i], &ops[i + 1]) {
            ops[i] = op;
        }
    }
}
