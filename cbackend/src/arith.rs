//! Arithmetic, comparison and conversion in C: checked operations test their operands
//! (or use the compiler's overflow builtins) and raise the runtime's arithmetic errors,
//! with the same kinds and words as every backend; unchecked ones wrap.

use datalove_ir::*;
use datalove_rti::status::cast_ty;
use datalove_rti::{ArithOp, ErrorKind, TyKind};

use crate::emit::Fx;
use crate::runtime::{call, Entry};
use crate::writer::*;

impl Fx<'_> {
    pub(crate) fn unary(
        &mut self,
        dst: SlotId,
        op: UnaryOp,
        src: SlotId,
        abandon: Option<BlockId>,
    ) {
        let kind = self.kind(src);
        let x = self.read(src);
        let ct = scalar_ctype(kind);
        let value = if kind == TyKind::Bool {
            format!("(uint8_t)({x} == 0)")
        } else if kind.is_float() {
            // The float suffix of <math.h>'s functions.
            let f = if kind == TyKind::F32 { "f" } else { "" };
            match op {
                UnaryOp::Sqrt => format!("sqrt{f}({x})"),
                UnaryOp::Floor => format!("floor{f}({x})"),
                UnaryOp::Ceil => format!("ceil{f}({x})"),
                UnaryOp::Abs => format!("fabs{f}({x})"),
                _ => format!("-{x}"),
            }
        } else {
            match op {
                UnaryOp::Neg => {
                    let overflow = if kind.is_signed() {
                        let (min, _) = kind.int_range().expect("an integer kind");
                        format!("{x} == {}", int_literal(kind, min))
                    } else {
                        format!("{x} != 0")
                    };
                    let raise = Self::raise_arith(ErrorKind::Overflow, ArithOp::Neg, kind as u32);
                    self.fail_if(&overflow, abandon.expect("fallible"), Some(raise));
                    format!("({ct})(UINT64_C(0) - (uint64_t){x})")
                }
                UnaryOp::WrappingNeg => format!("({ct})(UINT64_C(0) - (uint64_t){x})"),
                UnaryOp::BitNot => format!("({ct})~{x}"),
                UnaryOp::Not | UnaryOp::Sqrt | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Abs => {
                    unreachable!("verified: {op:?} on an integer")
                }
            }
        };
        self.write(dst, &value);
    }

    pub(crate) fn binary(
        &mut self,
        dst: SlotId,
        op: BinaryOp,
        lhs: SlotId,
        rhs: SlotId,
        abandon: Option<BlockId>,
    ) {
        let kind = self.kind(lhs);
        let ct = scalar_ctype(kind);
        let (a, b) = (self.read(lhs), self.read(rhs));
        if kind == TyKind::Bool {
            let c = match op {
                BinaryOp::And | BinaryOp::BitAnd => "&",
                BinaryOp::Or | BinaryOp::BitOr => "|",
                BinaryOp::BitXor => "^",
                _ => unreachable!("verified: {op:?} on a bool"),
            };
            self.write(dst, &format!("(uint8_t)({a} {c} {b})"));
            return;
        }
        if kind.is_float() {
            let value = match op {
                BinaryOp::Add => format!("{a} + {b}"),
                BinaryOp::Sub => format!("{a} - {b}"),
                BinaryOp::Mul => format!("{a} * {b}"),
                BinaryOp::Div => format!("{a} / {b}"),
                // C's fmod is Rust's `%` on floats.
                BinaryOp::Rem if kind == TyKind::F32 => format!("fmodf({a}, {b})"),
                BinaryOp::Rem => format!("fmod({a}, {b})"),
                _ => unreachable!("verified: {op:?} on a float"),
            };
            self.write(dst, &value);
            return;
        }
        let aop = op.arith_op();
        let overflow = Self::raise_arith(ErrorKind::Overflow, aop, kind as u32);
        let value = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                self.w.open("");
                self.w.stmt(format!("{ct} r"));
                self.fail_if(
                    &format!("{}({a}, {b}, &r)", overflow_builtin(op)),
                    abandon.expect("fallible"),
                    Some(overflow),
                );
                self.write(dst, "r");
                self.w.close();
                return;
            }
            BinaryOp::NoWrapAdd | BinaryOp::NoWrapSub | BinaryOp::NoWrapMul => {
                // Proved not to overflow (`ir::ranges`): the checked form, its failure
                // unreachable, so gcc knows what the check told it (a loop counter
                // that does not wrap) without the failure path.
                let checked = op.checked_form().expect("a nowrap operation");
                self.w.open("");
                self.w.stmt(format!("{ct} r"));
                self.w.stmt(format!(
                    "if ({}({a}, {b}, &r)) __builtin_unreachable()",
                    overflow_builtin(checked)
                ));
                self.write(dst, "r");
                self.w.close();
                return;
            }
            BinaryOp::Div | BinaryOp::Rem => {
                let abandon = abandon.expect("fallible");
                let zero = Self::raise_arith(ErrorKind::DivisionByZero, aop, kind as u32);
                self.fail_if(&format!("{b} == 0"), abandon, Some(zero));
                if kind.is_signed() {
                    let (min, _) = kind.int_range().expect("an integer kind");
                    let cond = format!("{a} == {} && {b} == ({ct})-1", int_literal(kind, min));
                    self.fail_if(&cond, abandon, Some(overflow));
                }
                let c = if op == BinaryOp::Div { "/" } else { "%" };
                format!("({ct})({a} {c} {b})")
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                // Unsigned: a negative amount is huge, so out of range too.
                let bits = kind_bits(kind);
                self.fail_if(
                    &format!("(uint64_t){b} >= {bits}u"),
                    abandon.expect("fallible"),
                    Some(overflow),
                );
                if op == BinaryOp::Shl {
                    format!("({ct})((uint64_t){a} << {b})")
                } else {
                    format!("({ct})({a} >> {b})")
                }
            }
            BinaryOp::WrappingAdd => format!("({ct})((uint64_t){a} + (uint64_t){b})"),
            BinaryOp::WrappingSub => format!("({ct})((uint64_t){a} - (uint64_t){b})"),
            BinaryOp::WrappingMul => format!("({ct})((uint64_t){a} * (uint64_t){b})"),
            BinaryOp::BitAnd => format!("({ct})({a} & {b})"),
            BinaryOp::BitOr => format!("({ct})({a} | {b})"),
            BinaryOp::BitXor => format!("({ct})({a} ^ {b})"),
            BinaryOp::And | BinaryOp::Or => {
                unreachable!("verified: boolean operator on an integer")
            }
        };
        self.write(dst, &value);
    }

    pub(crate) fn compare(&mut self, dst: SlotId, op: CompareOp, lhs: SlotId, rhs: SlotId) {
        let ty = self.ty(lhs).clone();
        let c = op.symbol();
        let value = if ty == IrType::Unit {
            let equal = matches!(op, CompareOp::Eq | CompareOp::Le | CompareOp::Ge);
            format!("(uint8_t){}", equal as u8)
        } else if ty.is_scalar() {
            // Floats by IEEE: a NaN is unordered, and only `!=` holds.
            format!("(uint8_t)({} {c} {})", self.read(lhs), self.read(rhs))
        } else if ty == IrType::String {
            // Strings by their bytes (`docs/backends.md`): equality inline, the order
            // by the runtime's `string_cmp`, neither through the descriptor.
            let (a, b) = (self.addr(lhs), self.addr(rhs));
            let (a, b) = (
                format!("((const dtlv_string_t *)({a}))"),
                format!("((const dtlv_string_t *)({b}))"),
            );
            let equal = format!(
                "({a}->len == {b}->len && ({a}->len == 0 || memcmp({a}->ptr, {b}->ptr, {a}->len) == 0))"
            );
            match op {
                CompareOp::Eq => format!("(uint8_t){equal}"),
                CompareOp::Ne => format!("(uint8_t)!{equal}"),
                _ => format!("(uint8_t)({} {c} 0)", call(Entry::StringCmp, &[&a, &b])),
            }
        } else {
            let td = self.desc(&ty);
            let (a, b) = (self.addr(lhs), self.addr(rhs));
            match op {
                CompareOp::Eq => format!("(uint8_t)({} != 0)", call(Entry::Eq, &[&a, &b, &td])),
                CompareOp::Ne => format!("(uint8_t)({} == 0)", call(Entry::Eq, &[&a, &b, &td])),
                _ => format!("(uint8_t)({} {c} 0)", call(Entry::Cmp, &[&a, &b, &td])),
            }
        };
        self.write(dst, &value);
    }

    pub(crate) fn cast(
        &mut self,
        dst: SlotId,
        src: SlotId,
        checked: bool,
        abandon: Option<BlockId>,
    ) {
        let (from, to) = (self.kind(src), self.kind(dst));
        let x = self.read(src);
        let ct = scalar_ctype(to);
        let value = match (from.is_float(), to.is_float()) {
            (false, false) => {
                if checked {
                    if let Some(cond) = int_out_of_range(from, to, &x) {
                        let raise = Self::raise_arith(
                            ErrorKind::Overflow,
                            ArithOp::Cast,
                            cast_ty(from, to),
                        );
                        self.fail_if(&cond, abandon.expect("fallible"), Some(raise));
                    }
                }
                format!("({ct}){x}")
            }
            (false, true) => format!("({ct}){x}"),
            (true, false) => {
                let wide = format!("(double){x}");
                let (lo, hi) = to.int_range().expect("an integer kind");
                if checked {
                    let hi_exact = (hi as f64) as i128 == hi;
                    let cond = format!(
                        "!dtlv_c_float_cast_ok({wide}, {}, {}, {})",
                        hex_float(lo as f64),
                        hex_float(hi as f64),
                        hi_exact as u8
                    );
                    let raise =
                        Self::raise_arith(ErrorKind::InvalidCast, ArithOp::Cast, cast_ty(from, to));
                    self.fail_if(&cond, abandon.expect("fallible"), Some(raise));
                }
                if to.is_signed() {
                    format!(
                        "({ct})dtlv_c_f64_to_signed_sat({wide}, {}, {})",
                        int_literal(TyKind::I64, lo),
                        int_literal(TyKind::I64, hi)
                    )
                } else {
                    format!(
                        "({ct})dtlv_c_f64_to_unsigned_sat({wide}, {})",
                        int_literal(TyKind::U64, hi)
                    )
                }
            }
            (true, true) => format!("({ct}){x}"),
        };
        self.write(dst, &value);
    }
}

fn kind_bits(kind: TyKind) -> u32 {
    let layout = datalove_rti::tydesc::kind_layout(kind);
    (layout.size * 8) as u32
}

/// The condition under which integer `x` of kind `from` is outside `to`'s range, or
/// `None` when `to` holds every value of `from`.
fn int_out_of_range(from: TyKind, to: TyKind, x: &str) -> Option<String> {
    let (flo, fhi) = from.int_range().expect("an integer kind");
    let (tlo, thi) = to.int_range().expect("an integer kind");
    let below = flo < tlo;
    let above = fhi > thi;
    let value = if from.is_signed() {
        format!("(int64_t){x}")
    } else {
        format!("(uint64_t){x}")
    };
    let mut conds = Vec::new();
    if below {
        // Only a signed source goes below a target's minimum.
        conds.push(format!("{value} < {}", int_literal(TyKind::I64, tlo)));
    }
    if above {
        if from.is_signed() {
            conds.push(format!("{value} > {}", int_literal(TyKind::I64, thi)));
        } else {
            conds.push(format!("{value} > {}", int_literal(TyKind::U64, thi)));
        }
    }
    (!conds.is_empty()).then(|| conds.join(" || "))
}

/// The gcc builtin that computes a checked `add`, `sub` or `mul` and says whether it
/// overflowed.
fn overflow_builtin(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "__builtin_add_overflow",
        BinaryOp::Sub => "__builtin_sub_overflow",
        _ => "__builtin_mul_overflow",
    }
}
