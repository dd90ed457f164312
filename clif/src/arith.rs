//! Checked arithmetic, comparisons and casts, exactly as `interp/src/arith.rs`: overflow
//! and division by zero (and `MIN / -1`, `MIN % -1` as overflow), shift amounts outside
//! `0..bits` as overflow, checked casts (integer out of range: overflow; float NaN or out
//! of range: invalid cast), unchecked float-to-integer casts saturating with NaN to 0.
//! Failures branch to the instruction's abandon block after `raise_arith`; nothing traps.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, InstructionData, Opcode, Signature, Type, Value,
};
use cranelift_module::{Linkage, Module};
use datalove_ir::{BinaryOp, BlockId, CompareOp, UnaryOp};
use datalove_rti::status::cast_ty;
use datalove_rti::{ArithOp, ErrorKind, TyKind};

use crate::lower::Fx;
use crate::runtime::Entry;

/// The CLIF type a scalar kind lives in (unit and bool in a byte, index in 64 bits).
pub fn scalar_type(kind: TyKind) -> Type {
    match kind {
        TyKind::Unit | TyKind::Bool | TyKind::U8 | TyKind::I8 => types::I8,
        TyKind::U16 | TyKind::I16 => types::I16,
        TyKind::U32 | TyKind::I32 => types::I32,
        TyKind::U64 | TyKind::I64 | TyKind::Index => types::I64,
        TyKind::F32 => types::F32,
        TyKind::F64 => types::F64,
        other => panic!("{other:?} is not a scalar"),
    }
}

fn bits(kind: TyKind) -> u32 {
    scalar_type(kind).bits()
}

/// Whether an unsigned `from`, widened to 64 bits, is below 2^63 (every kind narrower than
/// 64 bits), so that the signed conversion reads it exactly.
fn wide_is_zero_extended(from: TyKind) -> bool {
    bits(from) < 64
}

/// The range of an integer kind, as `i128`.
impl<M: Module> Fx<'_, '_, M> {
    /// Branches to `abandon` after `raise_arith(kind, op, ty)` when `cond` is nonzero.
    fn arith_fail(
        &mut self,
        cond: Value,
        abandon: Option<BlockId>,
        kind: ErrorKind,
        op: ArithOp,
        ty: u32,
    ) {
        let abandon = abandon.expect("a fallible instruction has an abandon block");
        self.fail_if(cond, abandon, |fx| {
            let rt = fx.rt;
            let k = fx.b.ins().iconst(types::I32, kind as i64);
            let o = fx.b.ins().iconst(types::I32, op as i64);
            let t = fx.b.ins().iconst(types::I32, ty as i64);
            fx.call_rt(Entry::RaiseArith, &[rt, k, o, t]);
        });
    }

    /// `a op b` on scalars of kind `kind`.
    pub fn binary(
        &mut self,
        op: BinaryOp,
        kind: TyKind,
        a: Value,
        b: Value,
        abandon: Option<BlockId>,
    ) -> Value {
        if kind == TyKind::Bool {
            return match op {
                BinaryOp::And | BinaryOp::BitAnd => self.b.ins().band(a, b),
                BinaryOp::Or | BinaryOp::BitOr => self.b.ins().bor(a, b),
                BinaryOp::BitXor => self.b.ins().bxor(a, b),
                _ => unreachable!("verified: {op:?} on a bool"),
            };
        }
        if kind.is_float() {
            return match op {
                BinaryOp::Add => self.b.ins().fadd(a, b),
                BinaryOp::Sub => self.b.ins().fsub(a, b),
                BinaryOp::Mul => self.b.ins().fmul(a, b),
                BinaryOp::Div => self.b.ins().fdiv(a, b),
                BinaryOp::Rem => self.float_rem(kind, a, b),
                _ => unreachable!("verified: {op:?} on a float"),
            };
        }
        let signed = kind.is_signed();
        let aop = op.arith_op();
        let ty = kind as u32;
        let overflow = |fx: &mut Self, of: Value| {
            fx.arith_fail(of, abandon, ErrorKind::Overflow, aop, ty);
        };
        match op {
            BinaryOp::Add | BinaryOp::Sub
                if self.iconst_of(b).is_some()
                    || (op == BinaryOp::Add && self.iconst_of(a).is_some()) =>
            {
                // A constant operand `c`: `x + c` or `x - c` overflows exactly when `x`
                // is past a bound known now (`x > MAX - c` for `x + c`, c > 0, and so
                // on). One compare of `x` with an immediate, made before the operation
                // so that nothing but `x` need stay live, and a branch on it, where
                // `*_overflow` would set a register from the flag and test it.
                let (x, c) = match self.iconst_of(b) {
                    Some(c) => (a, c as i128),
                    None => (b, self.iconst_of(a).expect("a constant") as i128),
                };
                // Every bound below is within the kind's range.
                let (min, max) = kind.int_range().expect("an integer kind");
                // The signed constant as the operand's unsigned value for unsigned kinds.
                let c = if signed { c } else { c.rem_euclid(max + 1) };
                let delta = if op == BinaryOp::Add { c } else { -c };
                let bound = if delta > 0 {
                    Some((IntCC::SignedGreaterThan, max - delta))
                } else if delta < 0 {
                    Some((IntCC::SignedLessThan, min - delta))
                } else {
                    None
                };
                let imm = |bound: i128| {
                    if signed {
                        bound as i64
                    } else {
                        bound as u64 as i64
                    }
                };
                if let Some((cc, bound)) = bound {
                    let cc = match (signed, cc) {
                        (true, cc) => cc,
                        (false, IntCC::SignedGreaterThan) => IntCC::UnsignedGreaterThan,
                        (false, _) => IntCC::UnsignedLessThan,
                    };
                    let of = if signed {
                        self.b.ins().icmp_imm_s(cc, x, imm(bound))
                    } else {
                        self.b.ins().icmp_imm_u(cc, x, imm(bound))
                    };
                    overflow(self, of);
                }
                let ins = self.b.ins();
                match op {
                    BinaryOp::Add if x == a => ins.iadd(a, b),
                    BinaryOp::Add => ins.iadd(b, a),
                    _ => ins.isub(a, b),
                }
            }
            BinaryOp::Add if !signed => {
                // Unsigned: the sum wrapped below `b`. A compare the branch uses directly
                // (`cmp`/`jb`), where `uadd_overflow` would set a register from the carry
                // and test it.
                let r = self.b.ins().iadd(a, b);
                let of = self.b.ins().icmp(IntCC::UnsignedLessThan, r, b);
                overflow(self, of);
                r
            }
            BinaryOp::Sub if !signed => {
                let of = self.b.ins().icmp(IntCC::UnsignedLessThan, a, b);
                overflow(self, of);
                self.b.ins().isub(a, b)
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                let ins = self.b.ins();
                let (r, of) = match (op, signed) {
                    (BinaryOp::Add, true) => ins.sadd_overflow(a, b),
                    (BinaryOp::Add, false) => ins.uadd_overflow(a, b),
                    (BinaryOp::Sub, true) => ins.ssub_overflow(a, b),
                    (BinaryOp::Sub, false) => ins.usub_overflow(a, b),
                    (_, true) => ins.smul_overflow(a, b),
                    (_, false) => ins.umul_overflow(a, b),
                };
                overflow(self, of);
                r
            }
            BinaryOp::Div | BinaryOp::Rem => {
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                self.arith_fail(zero, abandon, ErrorKind::DivisionByZero, aop, ty);
                if signed {
                    let (min, _) = kind.int_range().expect("an integer kind");
                    let is_min = self.b.ins().icmp_imm_s(IntCC::Equal, a, min as i64);
                    let is_minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                    let of = self.b.ins().band(is_min, is_minus_one);
                    overflow(self, of);
                }
                let ins = self.b.ins();
                match (op, signed) {
                    (BinaryOp::Div, true) => ins.sdiv(a, b),
                    (BinaryOp::Div, false) => ins.udiv(a, b),
                    (_, true) => ins.srem(a, b),
                    (_, false) => ins.urem(a, b),
                }
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                // Unsigned compare: a negative amount is huge, so out of range too.
                let of = self.b.ins().icmp_imm_u(
                    IntCC::UnsignedGreaterThanOrEqual,
                    b,
                    bits(kind) as i64,
                );
                overflow(self, of);
                match (op, signed) {
                    (BinaryOp::Shl, _) => self.b.ins().ishl(a, b),
                    (_, true) => self.b.ins().sshr(a, b),
                    (_, false) => self.b.ins().ushr(a, b),
                }
            }
            BinaryOp::WrappingAdd | BinaryOp::NoWrapAdd => self.b.ins().iadd(a, b),
            BinaryOp::WrappingSub | BinaryOp::NoWrapSub => self.b.ins().isub(a, b),
            BinaryOp::WrappingMul | BinaryOp::NoWrapMul => self.b.ins().imul(a, b),
            BinaryOp::BitAnd => self.b.ins().band(a, b),
            BinaryOp::BitOr => self.b.ins().bor(a, b),
            BinaryOp::BitXor => self.b.ins().bxor(a, b),
            BinaryOp::And | BinaryOp::Or => {
                unreachable!("verified: boolean operator on an integer")
            }
        }
    }

    /// `a % b` on floats: C's `fmod`/`fmodf`, which is what Rust's `%` is.
    fn float_rem(&mut self, kind: TyKind, a: Value, b: Value) -> Value {
        let (name, ty) = if kind == TyKind::F32 {
            ("fmodf", types::F32)
        } else {
            ("fmod", types::F64)
        };
        let mut sig = Signature::new(self.call_conv);
        sig.params.push(AbiParam::new(ty));
        sig.params.push(AbiParam::new(ty));
        sig.returns.push(AbiParam::new(ty));
        let id = self
            .module
            .declare_function(name, Linkage::Import, &sig)
            .unwrap_or_else(|e| panic!("declaring {name}: {e}"));
        let callee = self.module.declare_func_in_func(id, self.b.func);
        let call = self.b.ins().call(callee, &[a, b]);
        self.b.inst_results(call)[0]
    }

    /// The value of `v` when it is an integer constant (`iconst`), sign-extended from
    /// its type's width.
    fn iconst_of(&self, v: Value) -> Option<i64> {
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(v).inst()?;
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => {
                let shift = 64 - dfg.value_type(v).bits();
                Some((imm.bits() << shift) >> shift)
            }
            _ => None,
        }
    }

    /// `op x` on a scalar of kind `kind`.
    pub fn unary(
        &mut self,
        op: UnaryOp,
        kind: TyKind,
        x: Value,
        abandon: Option<BlockId>,
    ) -> Value {
        if kind == TyKind::Bool {
            return self.b.ins().icmp_imm_s(IntCC::Equal, x, 0);
        }
        if kind.is_float() {
            return match op {
                UnaryOp::Sqrt => self.b.ins().sqrt(x),
                UnaryOp::Floor => self.b.ins().floor(x),
                UnaryOp::Ceil => self.b.ins().ceil(x),
                UnaryOp::Abs => self.b.ins().fabs(x),
                _ => self.b.ins().fneg(x),
            };
        }
        match op {
            UnaryOp::Neg => {
                let of = if kind.is_signed() {
                    let (min, _) = kind.int_range().expect("an integer kind");
                    self.b.ins().icmp_imm_s(IntCC::Equal, x, min as i64)
                } else {
                    self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
                };
                self.arith_fail(of, abandon, ErrorKind::Overflow, ArithOp::Neg, kind as u32);
                self.b.ins().ineg(x)
            }
            UnaryOp::WrappingNeg => self.b.ins().ineg(x),
            UnaryOp::BitNot => self.b.ins().bnot(x),
            UnaryOp::Not | UnaryOp::Sqrt | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Abs => {
                unreachable!("verified: {op:?} on an integer")
            }
        }
    }

    /// `a op b` on scalars (floats by IEEE: a NaN is unordered); an `i8` 0 or 1.
    pub fn compare_scalar(&mut self, op: CompareOp, kind: TyKind, a: Value, b: Value) -> Value {
        if kind == TyKind::Unit {
            let equal = matches!(op, CompareOp::Eq | CompareOp::Le | CompareOp::Ge);
            return self.b.ins().iconst(types::I8, equal as i64);
        }
        if kind.is_float() {
            let cc = match op {
                CompareOp::Eq => FloatCC::Equal,
                CompareOp::Ne => FloatCC::NotEqual,
                CompareOp::Lt => FloatCC::LessThan,
                CompareOp::Le => FloatCC::LessThanOrEqual,
                CompareOp::Gt => FloatCC::GreaterThan,
                CompareOp::Ge => FloatCC::GreaterThanOrEqual,
            };
            return self.b.ins().fcmp(cc, a, b);
        }
        let cc = int_cc(op, kind.is_signed());
        self.b.ins().icmp(cc, a, b)
    }

    /// Applies the `i32` ordering the runtime's `cmp` returned.
    pub fn compare_ordering(&mut self, op: CompareOp, ordering: Value) -> Value {
        self.b.ins().icmp_imm_s(int_cc(op, true), ordering, 0)
    }

    /// Converts `x` from `from` to `to`.
    pub fn cast(
        &mut self,
        from: TyKind,
        to: TyKind,
        checked: bool,
        x: Value,
        abandon: Option<BlockId>,
    ) -> Value {
        match (from.is_float(), to.is_float()) {
            (false, false) => {
                if checked {
                    let of = self.int_out_of_range(from, to, x);
                    self.arith_fail(
                        of,
                        abandon,
                        ErrorKind::Overflow,
                        ArithOp::Cast,
                        cast_ty(from, to),
                    );
                }
                self.int_resize(from, to, x)
            }
            (false, true) => {
                let wide = self.int_resize(
                    from,
                    if from.is_signed() {
                        TyKind::I64
                    } else {
                        TyKind::U64
                    },
                    x,
                );
                let ty = scalar_type(to);
                if from.is_signed() || wide_is_zero_extended(from) {
                    self.b.ins().fcvt_from_sint(ty, wide)
                } else {
                    self.u64_to_float(ty, wide)
                }
            }
            (true, false) => {
                let x = if from == TyKind::F32 {
                    self.b.ins().fpromote(types::F64, x)
                } else {
                    x
                };
                let (lo, hi) = to.int_range().expect("an integer kind");
                if checked {
                    let t = self.b.ins().trunc(x);
                    let lo_f = self.b.ins().f64const(lo as f64);
                    let hi_f = self.b.ins().f64const(hi as f64);
                    let above_lo = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, lo_f);
                    // `hi` of a 64-bit kind is not a float: its float is one past the range.
                    let below_hi = if (hi as f64) as i128 == hi {
                        self.b.ins().fcmp(FloatCC::LessThanOrEqual, t, hi_f)
                    } else {
                        self.b.ins().fcmp(FloatCC::LessThan, t, hi_f)
                    };
                    let ok = self.b.ins().band(above_lo, below_hi);
                    let bad = self.b.ins().icmp_imm_s(IntCC::Equal, ok, 0);
                    self.arith_fail(
                        bad,
                        abandon,
                        ErrorKind::InvalidCast,
                        ArithOp::Cast,
                        cast_ty(from, to),
                    );
                }
                match to {
                    TyKind::I64 => self.b.ins().fcvt_to_sint_sat(types::I64, x),
                    TyKind::U64 | TyKind::Index => self.b.ins().fcvt_to_uint_sat(types::I64, x),
                    _ => {
                        let wide = self.b.ins().fcvt_to_sint_sat(types::I64, x);
                        let lo_v = self.b.ins().iconst(types::I64, lo as i64);
                        let hi_v = self.b.ins().iconst(types::I64, hi as i64);
                        let clamped = self.b.ins().smax(wide, lo_v);
                        let clamped = self.b.ins().smin(clamped, hi_v);
                        let ty = scalar_type(to);
                        if ty == types::I64 {
                            clamped
                        } else {
                            self.b.ins().ireduce(ty, clamped)
                        }
                    }
                }
            }
            (true, true) => match (from, to) {
                (TyKind::F32, TyKind::F64) => self.b.ins().fpromote(types::F64, x),
                (TyKind::F64, TyKind::F32) => self.b.ins().fdemote(types::F32, x),
                _ => x,
            },
        }
    }

    /// Whether integer `x` of kind `from` is outside `to`'s range (an `i8` 0 or 1).
    fn int_out_of_range(&mut self, from: TyKind, to: TyKind, x: Value) -> Value {
        let (fb, tb) = (bits(from), bits(to));
        let (fs, ts) = (from.is_signed(), to.is_signed());
        let (_, to_max) = to.int_range().expect("an integer kind");
        match (fs, ts) {
            _ if fs == ts && tb >= fb => self.b.ins().iconst(types::I8, 0),
            (false, true) if tb > fb => self.b.ins().iconst(types::I8, 0),
            (false, false) | (true, true) => {
                // Narrowing within one signedness: round trip through the target.
                let narrow = self.b.ins().ireduce(scalar_type(to), x);
                let back = if fs {
                    self.b.ins().sextend(scalar_type(from), narrow)
                } else {
                    self.b.ins().uextend(scalar_type(from), narrow)
                };
                self.b.ins().icmp(IntCC::NotEqual, back, x)
            }
            (false, true) => self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThan, x, to_max as i64),
            (true, false) => {
                let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                if tb >= fb {
                    negative
                } else {
                    let big = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedGreaterThan, x, to_max as i64);
                    self.b.ins().bor(negative, big)
                }
            }
        }
    }

    /// An unsigned 64-bit integer to `ty` (`f32` or `f64`), rounded as `fcvt_from_uint`
    /// rounds, by the signed conversion: below 2^63 directly; at 2^63 and above, half
    /// the value (its low bit kept as a sticky bit, so it rounds the same) converted,
    /// then doubled. Cranelift 0.135 lowers `fcvt_from_uint` on x64 to a `cvtsi2sd`
    /// that merges into the old value of its destination register: a false dependency
    /// on whatever wrote that register last, which in a loop chains each iteration to
    /// the one before (spectral-norm's `1.0 / (.. as f64)` waited for the previous
    /// iteration's division). Its signed conversion starts from a zeroed register.
    ///
    /// The values from 2^63 up take a cold block of their own, so that the usual case
    /// is one conversion, a test and a branch.
    fn u64_to_float(&mut self, ty: Type, x: Value) -> Value {
        let out = self.b.declare_var(ty);
        let below = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, x, 0);
        let direct = self.b.ins().fcvt_from_sint(ty, x);
        self.b.def_var(out, direct);
        let (high, join) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(high);
        self.b.ins().brif(below, join, &[], high, &[]);
        self.b.switch_to_block(high);
        let sticky = self.b.ins().band_imm_u(x, 1);
        let shifted = self.b.ins().ushr_imm_u(x, 1);
        let half = self.b.ins().bor(shifted, sticky);
        let half = self.b.ins().fcvt_from_sint(ty, half);
        let twice = self.b.ins().fadd(half, half);
        self.b.def_var(out, twice);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.use_var(out)
    }

    /// Truncates or extends (by `from`'s signedness) an integer to `to`'s width.
    fn int_resize(&mut self, from: TyKind, to: TyKind, x: Value) -> Value {
        let (fty, tty) = (scalar_type(from), scalar_type(to));
        if tty.bits() < fty.bits() {
            self.b.ins().ireduce(tty, x)
        } else if tty.bits() > fty.bits() {
            if from.is_signed() {
                self.b.ins().sextend(tty, x)
            } else {
                self.b.ins().uextend(tty, x)
            }
        } else {
            x
        }
    }
}

fn int_cc(op: CompareOp, signed: bool) -> IntCC {
    match (op, signed) {
        (CompareOp::Eq, _) => IntCC::Equal,
        (CompareOp::Ne, _) => IntCC::NotEqual,
        (CompareOp::Lt, true) => IntCC::SignedLessThan,
        (CompareOp::Le, true) => IntCC::SignedLessThanOrEqual,
        (CompareOp::Gt, true) => IntCC::SignedGreaterThan,
        (CompareOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (CompareOp::Lt, false) => IntCC::UnsignedLessThan,
        (CompareOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (CompareOp::Gt, false) => IntCC::UnsignedGreaterThan,
        (CompareOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
    }
}
