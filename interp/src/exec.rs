//! The dispatch loop. A call of a program function is a recursive call of [`Machine::run`]
//! on a fresh frame from the frame stack ([`crate::frames`]); every fallible operation jumps to its abandon
//! target when it fails or leaves the runtime abandoning.

use std::ffi::c_void;
use std::ptr;

use datalove_ir::CompareOp;
use datalove_rti::status::{STATUS_OK, STATUS_OUT_OF_BOUNDS};
use datalove_rti::table::{RtiTable, Td};
use datalove_rti::{ArithOp, ErrorKind, RtHeader, TyKind};

use crate::arith;
use crate::desc::{DescRef, GenericEntry};
use crate::ops::*;

/// What runs a lowered program: the functions, the frame arena, the runtime.
pub struct Machine<'p> {
    pub funcs: &'p [CFunc],
    pub desc_bases: &'p [u32],
    pub natives: &'p [crate::ops::NativeName],
    pub rt: *mut RtHeader,
    pub table: &'p RtiTable,
    pub frames: crate::frames::Frames,
}

#[inline(always)]
pub(crate) unsafe fn desc_of(frame: *mut u8, base: u32, d: DescRef) -> Td {
    match d {
        DescRef::Static(p) => p,
        DescRef::Frame(i) => *(frame.add(base as usize + 8 * i as usize) as *const Td),
    }
}

/// The address of element `index` (read at frame offset `index`) of the list at `list`,
/// whose elements are `size` bytes; or the index and the length when it is out of
/// bounds. Read from the list's layout (`datalove_rti::rtdt::List`).
#[inline(always)]
unsafe fn list_elem(
    list: *mut u8,
    index: u32,
    frame: *mut u8,
    size: usize,
) -> Result<*mut u8, (u64, u64)> {
    let list = &*(list as *const datalove_rti::rtdt::List);
    let (p, len, _) = list.raw_parts();
    let i = (frame.add(index as usize) as *const u64).read();
    if i < len as u64 {
        Ok(p.add(i as usize * size))
    } else {
        Err((i, len as u64))
    }
}

/// Where the dispatch loop goes after a generic operation.
enum Flow {
    /// The next operation.
    Next,
    /// Operation `n` (a jump, or an abandon target).
    Goto(usize),
    /// Out of the function.
    Return,
}

/// A place for unit results nobody keeps.
pub(crate) static mut UNIT_SCRATCH: u64 = 0;

impl Machine<'_> {
    /// Takes a frame of `size` bytes, 16-aligned; `None` when the frame memory is
    /// exhausted.
    fn push_frame(&self, size: usize) -> Option<(*mut u8, crate::frames::Mark)> {
        self.frames.push(size)
    }

    /// Runs the entry function on a fresh frame.
    ///
    /// # Safety
    /// The program must be verified and its natives the ones its calls declare.
    pub unsafe fn run_entry(&self, entry: usize) {
        let f = &self.funcs[entry];
        let Some((frame, saved)) = self.push_frame(f.frame_size) else {
            (self.table.raise_stack_overflow)(self.rt);
            return;
        };
        self.run(entry, frame, ptr::null_mut());
        self.frames.pop(saved);
    }

    /// Runs function `fi` on `frame`, whose parameters and type-parameter descriptors the
    /// caller has written; the result goes to `ret`.
    ///
    /// # Safety
    /// As for [`Machine::run_entry`].
    pub unsafe fn run(&self, fi: usize, frame: *mut u8, ret: *mut u8) {
        let f = &self.funcs[fi];
        let base = self.desc_bases[fi];
        let rt = self.rt;
        let t = self.table;
        // The frame's descriptor table: generic types, from the type arguments.
        for (i, entry) in f.generic_entries.iter().enumerate() {
            let desc = match entry {
                GenericEntry::List(e) => (t.tydesc_list)(rt, desc_of(frame, base, *e)),
                GenericEntry::Option(p) => (t.tydesc_option)(rt, desc_of(frame, base, *p)),
                GenericEntry::Tuple(fields) => {
                    let ds: Vec<Td> = fields.iter().map(|d| desc_of(frame, base, *d)).collect();
                    (t.tydesc_tuple)(rt, ds.as_ptr(), ds.len())
                }
                GenericEntry::Map(k, v) => {
                    (t.tydesc_map)(rt, desc_of(frame, base, *k), desc_of(frame, base, *v))
                }
            };
            *(frame.add(base as usize + 8 * (f.type_params + i)) as *mut Td) = desc;
        }
        if let Some(mark_at) = f.shadow_mark {
            *(frame.add(mark_at as usize) as *mut *mut u8) = (*rt).shadow_top;
            for (offset, d, copy_in) in &f.shadow_locals {
                let desc = desc_of(frame, base, *d);
                let p = (t.shadow_push)(rt, (*desc).size, (*desc).align);
                if p.is_null() {
                    (t.shadow_pop)(rt, *(frame.add(mark_at as usize) as *mut *mut u8));
                    self.drop_owned(frame, base, &f.entry_drops);
                    return;
                }
                let at = frame.add(*offset as usize) as *mut *mut u8;
                if *copy_in {
                    ptr::copy_nonoverlapping(*at, p, (*desc).size);
                }
                *at = p;
            }
        }
        let pop_shadow = || {
            if let Some(mark_at) = f.shadow_mark {
                (t.shadow_pop)(rt, *(frame.add(mark_at as usize) as *mut *mut u8));
            }
        };
        let ops = &f.ops[..];
        let mut pc = 0usize;
        // Loads and stores at direct frame offsets, for the fast form.
        macro_rules! ld {
            ($t:ty, $o:expr) => {
                (frame.add(*$o as usize) as *const $t).read()
            };
        }
        macro_rules! st {
            ($t:ty, $o:expr, $v:expr) => {
                (frame.add(*$o as usize) as *mut $t).write($v)
            };
        }
        // Checked 64-bit arithmetic: the result, or the error and the abandon target.
        macro_rules! checked {
            ($t:ty, $method:ident, $d:expr, $x:expr, $y:expr, $aop:expr, $ty:expr, $fail:expr) => {
                match <$t>::$method($x, $y) {
                    Some(v) => st!($t, $d, v),
                    None => {
                        (t.raise_arith)(rt, ErrorKind::Overflow as u32, $aop as u32, $ty as u32);
                        pc = *$fail as usize;
                        continue;
                    }
                }
            };
        }
        macro_rules! float {
            ($d:expr, $a:expr, $b:expr, $op:tt) => {
                st!(f64, $d, ld!(f64, $a) $op ld!(f64, $b))
            };
        }
        macro_rules! cmp {
            ($t:ty, $d:expr, $a:expr, $b:expr, $op:tt) => {
                st!(u8, $d, (ld!($t, $a) $op ld!($t, $b)) as u8)
            };
        }
        // A comparison written at `d`, then the branch on it.
        macro_rules! cmp_br {
            ($t:ty, $d:expr, $x:expr, $y:expr, $op:tt, $then:expr, $else:expr) => {{
                let c = ($x as $t) $op ($y as $t);
                st!(u8, $d, c as u8);
                pc = if c { *$then } else { *$else } as usize;
                continue;
            }};
        }
        // The same against a constant `k` (of `$t`'s bits), first written at `kd`.
        macro_rules! cmp_br_k {
            (f64, $d:expr, $a:expr, $k:expr, $kd:expr, $op:tt, $then:expr, $else:expr) => {{
                st!(u64, $kd, *$k);
                cmp_br!(
                    f64,
                    $d,
                    ld!(f64, $a),
                    f64::from_bits(*$k),
                    $op,
                    $then,
                    $else
                )
            }};
            ($t:ty, $d:expr, $a:expr, $k:expr, $kd:expr, $op:tt, $then:expr, $else:expr) => {{
                st!(u64, $kd, *$k);
                cmp_br!($t, $d, ld!($t, $a), *$k, $op, $then, $else)
            }};
        }
        loop {
            // SAFETY: lowering ends every block with a jump, branch or return, and every
            // target is an operation of this function.
            match ops.get_unchecked(pc) {
                Op::Jump(target) => {
                    pc = *target as usize;
                    continue;
                }
                Op::CallNative { call, fail } => {
                    if !self.call_native(frame, base, call) {
                        pc = *fail as usize;
                        continue;
                    }
                }
                // The generic operations, out of the loop's way.
                Op::Const { .. }
                | Op::Mov { .. }
                | Op::Unary { .. }
                | Op::Binary { .. }
                | Op::Compare { .. }
                | Op::Cast { .. }
                | Op::Branch { .. }
                | Op::MovDyn { .. }
                | Op::CompareDyn { .. }
                | Op::ConstStr { .. }
                | Op::Clone { .. }
                | Op::Drop { .. }
                | Op::Concat { .. }
                | Op::MakeTuple { .. }
                | Op::TupleField { .. }
                | Op::Unpack { .. }
                | Op::MakeList { .. }
                | Op::ListLen { .. }
                | Op::ListGet { .. }
                | Op::ListSet { .. }
                | Op::ListPush { .. }
                | Op::MakeSome { .. }
                | Op::MakeNone { .. }
                | Op::IsSome { .. }
                | Op::Unwrap { .. }
                | Op::MakeData { .. }
                | Op::Debuglog { .. }
                | Op::Call { .. }
                | Op::Return { .. }
                | Op::Abandon
                | Op::Site { .. } => match self.generic(ops.get_unchecked(pc), f, frame, base, ret)
                {
                    Flow::Next => {}
                    Flow::Goto(to) => {
                        pc = to;
                        continue;
                    }
                    Flow::Return => return,
                },
                // ---- the fast form ----
                Op::ConstW { dst, bits } => st!(u64, dst, *bits),
                Op::ConstB { dst, bits } => st!(u8, dst, *bits),
                Op::MovW { dst, src } => st!(u64, dst, ld!(u64, src)),
                Op::MovB { dst, src } => st!(u8, dst, ld!(u8, src)),
                Op::AddI64 { d, a, b, fail } => {
                    checked!(
                        i64,
                        checked_add,
                        d,
                        ld!(i64, a),
                        ld!(i64, b),
                        ArithOp::Add,
                        TyKind::I64,
                        fail
                    )
                }
                Op::SubI64 { d, a, b, fail } => {
                    checked!(
                        i64,
                        checked_sub,
                        d,
                        ld!(i64, a),
                        ld!(i64, b),
                        ArithOp::Sub,
                        TyKind::I64,
                        fail
                    )
                }
                Op::MulI64 { d, a, b, fail } => {
                    checked!(
                        i64,
                        checked_mul,
                        d,
                        ld!(i64, a),
                        ld!(i64, b),
                        ArithOp::Mul,
                        TyKind::I64,
                        fail
                    )
                }
                Op::AddU64 { d, a, b, ty, fail } => {
                    checked!(
                        u64,
                        checked_add,
                        d,
                        ld!(u64, a),
                        ld!(u64, b),
                        ArithOp::Add,
                        *ty,
                        fail
                    )
                }
                Op::SubU64 { d, a, b, ty, fail } => {
                    checked!(
                        u64,
                        checked_sub,
                        d,
                        ld!(u64, a),
                        ld!(u64, b),
                        ArithOp::Sub,
                        *ty,
                        fail
                    )
                }
                Op::MulU64 { d, a, b, ty, fail } => {
                    checked!(
                        u64,
                        checked_mul,
                        d,
                        ld!(u64, a),
                        ld!(u64, b),
                        ArithOp::Mul,
                        *ty,
                        fail
                    )
                }
                Op::AddI64K { d, a, k, kd, fail } => {
                    st!(u64, kd, *k);
                    checked!(
                        i64,
                        checked_add,
                        d,
                        ld!(i64, a),
                        *k as i64,
                        ArithOp::Add,
                        TyKind::I64,
                        fail
                    );
                    pc += 2;
                    continue;
                }
                Op::SubI64K { d, a, k, kd, fail } => {
                    st!(u64, kd, *k);
                    checked!(
                        i64,
                        checked_sub,
                        d,
                        ld!(i64, a),
                        *k as i64,
                        ArithOp::Sub,
                        TyKind::I64,
                        fail
                    );
                    pc += 2;
                    continue;
                }
                Op::AddU64K {
                    d,
                    a,
                    k,
                    kd,
                    ty,
                    fail,
                } => {
                    st!(u64, kd, *k);
                    checked!(
                        u64,
                        checked_add,
                        d,
                        ld!(u64, a),
                        *k,
                        ArithOp::Add,
                        *ty,
                        fail
                    );
                    pc += 2;
                    continue;
                }
                Op::SubU64K {
                    d,
                    a,
                    k,
                    kd,
                    ty,
                    fail,
                } => {
                    st!(u64, kd, *k);
                    checked!(
                        u64,
                        checked_sub,
                        d,
                        ld!(u64, a),
                        *k,
                        ArithOp::Sub,
                        *ty,
                        fail
                    );
                    pc += 2;
                    continue;
                }
                Op::AddF64 { d, a, b } => float!(d, a, b, +),
                Op::SubF64 { d, a, b } => float!(d, a, b, -),
                Op::MulF64 { d, a, b } => float!(d, a, b, *),
                Op::DivF64 { d, a, b } => float!(d, a, b, /),
                Op::EqI64 { d, a, b } => cmp!(i64, d, a, b, ==),
                Op::NeI64 { d, a, b } => cmp!(i64, d, a, b, !=),
                Op::LtI64 { d, a, b } => cmp!(i64, d, a, b, <),
                Op::LeI64 { d, a, b } => cmp!(i64, d, a, b, <=),
                Op::EqU64 { d, a, b } => cmp!(u64, d, a, b, ==),
                Op::NeU64 { d, a, b } => cmp!(u64, d, a, b, !=),
                Op::LtU64 { d, a, b } => cmp!(u64, d, a, b, <),
                Op::LeU64 { d, a, b } => cmp!(u64, d, a, b, <=),
                Op::EqF64 { d, a, b } => cmp!(f64, d, a, b, ==),
                Op::NeF64 { d, a, b } => cmp!(f64, d, a, b, !=),
                Op::LtF64 { d, a, b } => cmp!(f64, d, a, b, <),
                Op::LeF64 { d, a, b } => cmp!(f64, d, a, b, <=),
                Op::BrEqI64 { d, a, b, t: th, e } => {
                    cmp_br!(i64, d, ld!(i64, a), ld!(i64, b), ==, th, e)
                }
                Op::BrNeI64 { d, a, b, t: th, e } => {
                    cmp_br!(i64, d, ld!(i64, a), ld!(i64, b), !=, th, e)
                }
                Op::BrLtI64 { d, a, b, t: th, e } => {
                    cmp_br!(i64, d, ld!(i64, a), ld!(i64, b), <, th, e)
                }
                Op::BrLeI64 { d, a, b, t: th, e } => {
                    cmp_br!(i64, d, ld!(i64, a), ld!(i64, b), <=, th, e)
                }
                Op::BrEqU64 { d, a, b, t: th, e } => {
                    cmp_br!(u64, d, ld!(u64, a), ld!(u64, b), ==, th, e)
                }
                Op::BrNeU64 { d, a, b, t: th, e } => {
                    cmp_br!(u64, d, ld!(u64, a), ld!(u64, b), !=, th, e)
                }
                Op::BrLtU64 { d, a, b, t: th, e } => {
                    cmp_br!(u64, d, ld!(u64, a), ld!(u64, b), <, th, e)
                }
                Op::BrLeU64 { d, a, b, t: th, e } => {
                    cmp_br!(u64, d, ld!(u64, a), ld!(u64, b), <=, th, e)
                }
                Op::BrEqF64 { d, a, b, t: th, e } => {
                    cmp_br!(f64, d, ld!(f64, a), ld!(f64, b), ==, th, e)
                }
                Op::BrNeF64 { d, a, b, t: th, e } => {
                    cmp_br!(f64, d, ld!(f64, a), ld!(f64, b), !=, th, e)
                }
                Op::BrLtF64 { d, a, b, t: th, e } => {
                    cmp_br!(f64, d, ld!(f64, a), ld!(f64, b), <, th, e)
                }
                Op::BrLeF64 { d, a, b, t: th, e } => {
                    cmp_br!(f64, d, ld!(f64, a), ld!(f64, b), <=, th, e)
                }
                Op::BrEqI64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(i64, d, a, k, kd, ==, th, e),
                Op::BrNeI64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(i64, d, a, k, kd, !=, th, e),
                Op::BrLtI64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(i64, d, a, k, kd, <, th, e),
                Op::BrLeI64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(i64, d, a, k, kd, <=, th, e),
                Op::BrGtI64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(i64, d, a, k, kd, >, th, e),
                Op::BrGeI64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(i64, d, a, k, kd, >=, th, e),
                Op::BrEqU64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(u64, d, a, k, kd, ==, th, e),
                Op::BrNeU64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(u64, d, a, k, kd, !=, th, e),
                Op::BrLtU64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(u64, d, a, k, kd, <, th, e),
                Op::BrLeU64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(u64, d, a, k, kd, <=, th, e),
                Op::BrGtU64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(u64, d, a, k, kd, >, th, e),
                Op::BrGeU64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(u64, d, a, k, kd, >=, th, e),
                Op::BrEqF64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(f64, d, a, k, kd, ==, th, e),
                Op::BrNeF64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(f64, d, a, k, kd, !=, th, e),
                Op::BrLtF64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(f64, d, a, k, kd, <, th, e),
                Op::BrLeF64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(f64, d, a, k, kd, <=, th, e),
                Op::BrGtF64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(f64, d, a, k, kd, >, th, e),
                Op::BrGeF64K {
                    d,
                    a,
                    k,
                    kd,
                    t: th,
                    e,
                } => cmp_br_k!(f64, d, a, k, kd, >=, th, e),
                Op::BranchD { cond, t: th, e } => {
                    pc = if ld!(u8, cond) != 0 { *th } else { *e } as usize;
                    continue;
                }
                Op::GetW {
                    dst,
                    list,
                    index,
                    fail,
                } => match list_elem(frame.add(*list as usize), *index, frame, 8) {
                    Ok(p) => st!(u64, dst, (p as *const u64).read()),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::GetB {
                    dst,
                    list,
                    index,
                    fail,
                } => match list_elem(frame.add(*list as usize), *index, frame, 1) {
                    Ok(p) => st!(u8, dst, *p),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::SetW {
                    list,
                    index,
                    value,
                    fail,
                } => match list_elem(frame.add(*list as usize), *index, frame, 8) {
                    Ok(p) => (p as *mut u64).write(ld!(u64, value)),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::SetB {
                    list,
                    index,
                    value,
                    fail,
                } => match list_elem(frame.add(*list as usize), *index, frame, 1) {
                    Ok(p) => *p = ld!(u8, value),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::GetWI {
                    dst,
                    list,
                    index,
                    fail,
                } => match list_elem(ld!(*mut u8, list), *index, frame, 8) {
                    Ok(p) => st!(u64, dst, (p as *const u64).read()),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::GetBI {
                    dst,
                    list,
                    index,
                    fail,
                } => match list_elem(ld!(*mut u8, list), *index, frame, 1) {
                    Ok(p) => st!(u8, dst, *p),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::SetWI {
                    list,
                    index,
                    value,
                    fail,
                } => match list_elem(ld!(*mut u8, list), *index, frame, 8) {
                    Ok(p) => (p as *mut u64).write(ld!(u64, value)),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::SetBI {
                    list,
                    index,
                    value,
                    fail,
                } => match list_elem(ld!(*mut u8, list), *index, frame, 1) {
                    Ok(p) => *p = ld!(u8, value),
                    Err((i, len)) => {
                        (t.raise_bounds)(rt, i, len);
                        pc = *fail as usize;
                        continue;
                    }
                },
                Op::MulI64K { d, a, k, kd, fail } => {
                    st!(u64, kd, *k);
                    checked!(
                        i64,
                        checked_mul,
                        d,
                        ld!(i64, a),
                        *k as i64,
                        ArithOp::Mul,
                        TyKind::I64,
                        fail
                    );
                    pc += 2;
                    continue;
                }
                Op::MulU64K {
                    d,
                    a,
                    k,
                    kd,
                    ty,
                    fail,
                } => {
                    st!(u64, kd, *k);
                    checked!(
                        u64,
                        checked_mul,
                        d,
                        ld!(u64, a),
                        *k,
                        ArithOp::Mul,
                        *ty,
                        fail
                    );
                    pc += 2;
                    continue;
                }
                Op::DivI64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(i64, d, ld!(i64, a) / *k as i64);
                    pc += 2;
                    continue;
                }
                Op::RemI64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(i64, d, ld!(i64, a) % *k as i64);
                    pc += 2;
                    continue;
                }
                Op::DivU64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(u64, d, ld!(u64, a) / *k);
                    pc += 2;
                    continue;
                }
                Op::RemU64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(u64, d, ld!(u64, a) % *k);
                    pc += 2;
                    continue;
                }
                Op::AddF64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(f64, d, ld!(f64, a) + f64::from_bits(*k));
                    pc += 2;
                    continue;
                }
                Op::SubF64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(f64, d, ld!(f64, a) - f64::from_bits(*k));
                    pc += 2;
                    continue;
                }
                Op::MulF64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(f64, d, ld!(f64, a) * f64::from_bits(*k));
                    pc += 2;
                    continue;
                }
                Op::DivF64K { d, a, k, kd } => {
                    st!(u64, kd, *k);
                    st!(f64, d, ld!(f64, a) / f64::from_bits(*k));
                    pc += 2;
                    continue;
                }
                Op::AndB { d, a, b } => st!(u8, d, ld!(u8, a) & ld!(u8, b)),
                Op::OrB { d, a, b } => st!(u8, d, ld!(u8, a) | ld!(u8, b)),
                Op::I64ToF64 { d, s } => st!(f64, d, ld!(i64, s) as f64),
                Op::U64ToF64 { d, s } => st!(f64, d, ld!(u64, s) as f64),
                Op::I64ToU64 { d, s, ty, fail } => {
                    let v = ld!(i64, s);
                    if v < 0 && *fail != u32::MAX {
                        (t.raise_arith)(rt, ErrorKind::Overflow as u32, ArithOp::Cast as u32, *ty);
                        pc = *fail as usize;
                        continue;
                    }
                    st!(u64, d, v as u64);
                }
                Op::U64ToI64 { d, s, ty, fail } => {
                    let v = ld!(u64, s);
                    if v > i64::MAX as u64 && *fail != u32::MAX {
                        (t.raise_arith)(rt, ErrorKind::Overflow as u32, ArithOp::Cast as u32, *ty);
                        pc = *fail as usize;
                        continue;
                    }
                    st!(i64, d, v as i64);
                }
                Op::IncI64 {
                    d,
                    a,
                    k,
                    kd,
                    m,
                    fail,
                } => {
                    st!(u64, kd, *k);
                    checked!(
                        i64,
                        checked_add,
                        d,
                        ld!(i64, a),
                        *k as i64,
                        ArithOp::Add,
                        TyKind::I64,
                        fail
                    );
                    st!(u64, m, ld!(u64, d));
                    pc += 3;
                    continue;
                }
                Op::IncU64 {
                    d,
                    a,
                    k,
                    kd,
                    m,
                    ty,
                    fail,
                } => {
                    st!(u64, kd, *k);
                    checked!(
                        u64,
                        checked_add,
                        d,
                        ld!(u64, a),
                        *k,
                        ArithOp::Add,
                        *ty,
                        fail
                    );
                    st!(u64, m, ld!(u64, d));
                    pc += 3;
                    continue;
                }
                Op::AddI64M { d, a, b, m, fail } => {
                    checked!(
                        i64,
                        checked_add,
                        d,
                        ld!(i64, a),
                        ld!(i64, b),
                        ArithOp::Add,
                        TyKind::I64,
                        fail
                    );
                    st!(u64, m, ld!(u64, d));
                    pc += 2;
                    continue;
                }
                Op::SubI64M { d, a, b, m, fail } => {
                    checked!(
                        i64,
                        checked_sub,
                        d,
                        ld!(i64, a),
                        ld!(i64, b),
                        ArithOp::Sub,
                        TyKind::I64,
                        fail
                    );
                    st!(u64, m, ld!(u64, d));
                    pc += 2;
                    continue;
                }
                Op::AddU64M {
                    d,
                    a,
                    b,
                    m,
                    ty,
                    fail,
                } => {
                    checked!(
                        u64,
                        checked_add,
                        d,
                        ld!(u64, a),
                        ld!(u64, b),
                        ArithOp::Add,
                        *ty,
                        fail
                    );
                    st!(u64, m, ld!(u64, d));
                    pc += 2;
                    continue;
                }
                Op::AddF64M { d, a, b, m } => {
                    float!(d, a, b, +);
                    st!(u64, m, ld!(u64, d));
                    pc += 2;
                    continue;
                }
                Op::SubF64M { d, a, b, m } => {
                    float!(d, a, b, -);
                    st!(u64, m, ld!(u64, d));
                    pc += 2;
                    continue;
                }
                Op::MulF64M { d, a, b, m } => {
                    float!(d, a, b, *);
                    st!(u64, m, ld!(u64, d));
                    pc += 2;
                    continue;
                }
                Op::CallV {
                    callee,
                    args,
                    dst,
                    fail,
                } => {
                    let cf = self.funcs.get_unchecked(*callee as usize);
                    // The depth, native-stack and frame-memory tests of `Op::Call`.
                    let depth = (*rt).depth_left;
                    let marker = 0u8;
                    let no_room = (&marker as *const u8 as usize) < (*rt).stack_limit;
                    let pushed = if depth == 0 || no_room {
                        None
                    } else {
                        self.push_frame(cf.frame_size)
                    };
                    let Some((callee_frame, saved)) = pushed else {
                        (t.raise_stack_overflow)(rt);
                        pc = *fail as usize;
                        continue;
                    };
                    for &(src, offset, size) in args.iter() {
                        let to = callee_frame.add(offset as usize);
                        if size == 8 {
                            (to as *mut u64).write(ld!(u64, &src));
                        } else {
                            ptr::copy_nonoverlapping(frame.add(src as usize), to, size as usize);
                        }
                    }
                    let ret_ptr = match dst {
                        Some(d) => frame.add(*d as usize),
                        None => ptr::null_mut(),
                    };
                    (*self.rt).depth_left = depth - 1;
                    self.run(*callee as usize, callee_frame, ret_ptr);
                    (*self.rt).depth_left = depth;
                    self.frames.pop(saved);
                    if self.abandoning() {
                        pc = *fail as usize;
                        continue;
                    }
                }
                Op::RetW { src } => {
                    if !ret.is_null() {
                        (ret as *mut u64).write(ld!(u64, src));
                    }
                    pop_shadow();
                    return;
                }
            }
            pc += 1;
        }
    }

    /// Runs one generic operation (`crate::ops`' first section) of function `f` on
    /// `frame`: out of the dispatch loop, so the loop's registers serve the fast form.
    #[inline(never)]
    unsafe fn generic(&self, op: &Op, f: &CFunc, frame: *mut u8, base: u32, ret: *mut u8) -> Flow {
        let rt = self.rt;
        let t = self.table;
        let pop_shadow = || {
            if let Some(mark_at) = f.shadow_mark {
                (t.shadow_pop)(rt, *(frame.add(mark_at as usize) as *mut *mut u8));
            }
        };
        let a = |o: Opnd| o.addr(frame);
        let desc = |d: DescRef| desc_of(frame, base, d);
        match op {
            Op::Const { dst, bits, size } => {
                let p = a(*dst);
                match size {
                    1 => *p = *bits as u8,
                    2 => (p as *mut u16).write(*bits as u16),
                    4 => (p as *mut u32).write(*bits as u32),
                    _ => (p as *mut u64).write(*bits),
                }
            }
            Op::Mov { dst, src, size } => match size {
                8 => (a(*dst) as *mut u64).write((a(*src) as *const u64).read()),
                4 => (a(*dst) as *mut u32).write((a(*src) as *const u32).read()),
                1 => *a(*dst) = *a(*src),
                n => ptr::copy(a(*src), a(*dst), *n as usize),
            },
            Op::Binary {
                op,
                ty,
                dst,
                a: x,
                b: y,
                fail,
            } => {
                if let Err((kind, aop)) = arith::binary(*op, *ty, a(*x), a(*y), a(*dst)) {
                    (t.raise_arith)(rt, kind as u32, aop as u32, *ty as u32);
                    return Flow::Goto(*fail as usize);
                }
            }
            Op::Compare {
                op,
                ty,
                dst,
                a: x,
                b: y,
            } => {
                *a(*dst) = arith::compare(*op, *ty, a(*x), a(*y)) as u8;
            }
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                return Flow::Goto(if *a(*cond) != 0 { *then_pc } else { *else_pc } as usize);
            }
            Op::Unary {
                op,
                ty,
                dst,
                src,
                fail,
            } => {
                if let Err((kind, aop)) = arith::unary(*op, *ty, a(*src), a(*dst)) {
                    (t.raise_arith)(rt, kind as u32, aop as u32, *ty as u32);
                    return Flow::Goto(*fail as usize);
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
                if let Err((kind, aop)) = arith::cast(*from, *to, *checked, a(*src), a(*dst)) {
                    let ty = datalove_rti::status::cast_ty(*from, *to);
                    (t.raise_arith)(rt, kind as u32, aop as u32, ty);
                    return Flow::Goto(*fail as usize);
                }
            }
            Op::MovDyn { dst, src, desc: d } => {
                ptr::copy(a(*src), a(*dst), (*desc(*d)).size);
            }
            Op::CompareDyn {
                op,
                desc: d,
                dst,
                a: x,
                b: y,
            } => {
                let td = desc(*d);
                let r = match op {
                    CompareOp::Eq => {
                        (t.eq)(rt, a(*x) as *const c_void, a(*y) as *const c_void, td) != 0
                    }
                    CompareOp::Ne => {
                        (t.eq)(rt, a(*x) as *const c_void, a(*y) as *const c_void, td) == 0
                    }
                    _ => arith::compare_result(
                        *op,
                        (t.cmp)(rt, a(*x) as *const c_void, a(*y) as *const c_void, td),
                    ),
                };
                *a(*dst) = r as u8;
            }
            Op::ConstStr { dst, bytes } => {
                let status =
                    (t.string_from_bytes)(rt, bytes.as_ptr(), bytes.len(), a(*dst) as *mut _);
                assert_eq!(status, STATUS_OK, "a string constant is UTF-8");
            }
            Op::Clone { dst, src, desc: d } => {
                (t.clone)(
                    rt,
                    a(*src) as *const c_void,
                    desc(*d),
                    a(*dst) as *mut c_void,
                );
            }
            Op::Drop { slot, desc: d } => (t.drop)(rt, a(*slot) as *mut c_void, desc(*d)),
            Op::Concat { dst, a: x, b: y } => {
                (t.string_concat)(rt, a(*x) as *const _, a(*y) as *const _, a(*dst) as *mut _);
            }
            Op::MakeTuple {
                dst,
                desc: d,
                fields,
            } => {
                let td = &*desc(*d);
                let d0 = a(*dst);
                for (field, src) in td.fields().iter().zip(fields.iter()) {
                    ptr::copy(a(*src), d0.add(field.offset), (*field.desc).size);
                }
            }
            Op::TupleField {
                dst,
                src,
                desc: d,
                index,
            } => {
                let field = (*desc(*d)).fields()[*index as usize];
                let from = a(*src).add(field.offset);
                if (*field.desc).is_copy() {
                    ptr::copy(from, a(*dst), (*field.desc).size);
                } else {
                    (t.clone)(
                        rt,
                        from as *const c_void,
                        field.desc,
                        a(*dst) as *mut c_void,
                    );
                }
            }
            Op::Unpack { src, desc: d, dsts } => {
                let td = &*desc(*d);
                let s0 = a(*src);
                for (field, dst) in td.fields().iter().zip(dsts.iter()) {
                    ptr::copy(s0.add(field.offset), a(*dst), (*field.desc).size);
                }
            }
            Op::MakeList { dst, elem, elems } => {
                let ed = desc(*elem);
                (t.list_new)(rt, ed, elems.len(), a(*dst) as *mut _);
                for e in elems.iter() {
                    (t.list_push)(rt, a(*dst) as *mut _, ed, a(*e) as *mut c_void);
                }
            }
            Op::ListLen { dst, list } => {
                (a(*dst) as *mut u64).write((t.list_len)(rt, a(*list) as *const _) as u64);
            }
            Op::ListGet {
                dst,
                list,
                index,
                elem,
                fail,
            } => {
                let i = (a(*index) as *const u64).read();
                let len = (t.list_len)(rt, a(*list) as *const _);
                if i >= len as u64 {
                    (t.raise_bounds)(rt, i, len as u64);
                    return Flow::Goto(*fail as usize);
                }
                (t.list_get)(
                    rt,
                    a(*list) as *const _,
                    desc(*elem),
                    i as usize,
                    a(*dst) as *mut c_void,
                );
            }
            Op::ListSet {
                list,
                index,
                value,
                elem,
                fail,
            } => {
                let i = (a(*index) as *const u64).read();
                let len = (t.list_len)(rt, a(*list) as *const _);
                let status = (t.list_set)(
                    rt,
                    a(*list) as *mut _,
                    desc(*elem),
                    i as usize,
                    a(*value) as *mut c_void,
                );
                if status == STATUS_OUT_OF_BOUNDS || i >= len as u64 {
                    (t.raise_bounds)(rt, i, len as u64);
                    return Flow::Goto(*fail as usize);
                }
            }
            Op::ListPush { list, value, elem } => {
                (t.list_push)(
                    rt,
                    a(*list) as *mut _,
                    desc(*elem),
                    a(*value) as *mut c_void,
                );
            }
            Op::MakeSome {
                dst,
                value,
                desc: d,
            } => {
                let td = &*desc(*d);
                let p = a(*dst);
                *p = 1;
                ptr::copy(a(*value), p.add(td.payload_offset), (*td.elem).size);
            }
            Op::MakeNone { dst, desc: d } => (t.init)(a(*dst) as *mut c_void, desc(*d)),
            Op::IsSome { dst, src } => *a(*dst) = (*a(*src) != 0) as u8,
            Op::Unwrap {
                dst,
                src,
                desc: d,
                fail,
            } => {
                let p = a(*src);
                if *p == 0 {
                    // An empty detail: the runtime words the error.
                    (t.raise)(rt, ErrorKind::UnwrapNone as u32, ptr::null(), 0);
                    return Flow::Goto(*fail as usize);
                }
                let td = &*desc(*d);
                ptr::copy(p.add(td.payload_offset), a(*dst), (*td.elem).size);
            }
            Op::MakeData {
                dst,
                value,
                desc: d,
            } => {
                (t.data_make)(rt, a(*value) as *mut c_void, desc(*d), a(*dst) as *mut _);
            }
            Op::Debuglog { src, desc: d } => (t.debuglog)(rt, a(*src) as *const c_void, desc(*d)),
            Op::Call {
                callee,
                args,
                type_args,
                dst,
                in_drops,
                fail,
            } => {
                let cf = &self.funcs[*callee as usize];
                // Deep recursion is a runtime error, never a crash: the call-depth
                // limit, the native stack (this loop recurses once per call) and the
                // frame memory are tested before the callee starts.
                let depth = (*rt).depth_left;
                let marker = 0u8;
                let no_room = (&marker as *const u8 as usize) < (*rt).stack_limit;
                let pushed = if depth == 0 || no_room {
                    None
                } else {
                    self.push_frame(cf.frame_size)
                };
                let Some((callee_frame, saved)) = pushed else {
                    (t.raise_stack_overflow)(rt);
                    // The callee never started: the `in` arguments it would own are dropped
                    // here, as its entry would have dropped them.
                    self.drop_owned(frame, base, in_drops);
                    return Flow::Goto(*fail as usize);
                };
                for arg in args.iter() {
                    match arg.pass {
                        ParamPass::Value { offset, size } => ptr::copy_nonoverlapping(
                            a(arg.src),
                            callee_frame.add(offset as usize),
                            size as usize,
                        ),
                        ParamPass::Address { offset } => {
                            *(callee_frame.add(offset as usize) as *mut *mut u8) = a(arg.src)
                        }
                    }
                }
                let cbase = self.desc_bases[*callee as usize] as usize;
                for (i, d) in type_args.iter().enumerate() {
                    *(callee_frame.add(cbase + 8 * i) as *mut Td) = desc(*d);
                }
                let ret_ptr = dst.map(a).unwrap_or(ptr::null_mut());
                (*self.rt).depth_left = depth - 1;
                self.run(*callee as usize, callee_frame, ret_ptr);
                (*self.rt).depth_left = depth;
                self.frames.pop(saved);
                if self.abandoning() {
                    return Flow::Goto(*fail as usize);
                }
            }
            Op::Return { src } => {
                if let Some((s, d)) = src {
                    if !ret.is_null() {
                        ptr::copy(a(*s), ret, (*desc(*d)).size);
                    }
                }
                pop_shadow();
                return Flow::Return;
            }
            Op::Abandon => {
                pop_shadow();
                return Flow::Return;
            }
            Op::Site { site, next } => {
                let site = &f.sites[*site as usize];
                (t.error_at)(rt, site.as_ptr(), site.len());
                return Flow::Goto(*next as usize);
            }

            _ => unreachable!("a fast operation is run by the dispatch loop"),
        }
        Flow::Next
    }
}
