//! Scalar arithmetic, comparisons and conversions with the error kinds every backend
//! reports: checked integer operations fail with `overflow` or `division by zero`,
//! checked float-to-integer conversions with `invalid cast`.

use datalove_ir::{BinaryOp, CompareOp, UnaryOp};
use datalove_rti::{ArithOp, ErrorKind, TyKind};

pub type ArithResult = Result<(), (ErrorKind, ArithOp)>;

unsafe fn rd<T: Copy>(p: *mut u8) -> T {
    (p as *const T).read()
}

unsafe fn wr<T>(p: *mut u8, v: T) {
    (p as *mut T).write(v)
}

trait Int: Copy + Ord {
    const BITS: u32;
    fn checked_add(self, o: Self) -> Option<Self>;
    fn checked_sub(self, o: Self) -> Option<Self>;
    fn checked_mul(self, o: Self) -> Option<Self>;
    fn checked_div(self, o: Self) -> Option<Self>;
    fn checked_rem(self, o: Self) -> Option<Self>;
    fn checked_neg(self) -> Option<Self>;
    fn wrapping_add(self, o: Self) -> Self;
    fn wrapping_sub(self, o: Self) -> Self;
    fn wrapping_mul(self, o: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
    fn shl(self, n: u32) -> Self;
    fn shr(self, n: u32) -> Self;
    fn is_zero(self) -> bool;
    fn to_i128(self) -> i128;
}

macro_rules! int_impl {
    ($($t:ty),*) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            fn checked_add(self, o: Self) -> Option<Self> { <$t>::checked_add(self, o) }
            fn checked_sub(self, o: Self) -> Option<Self> { <$t>::checked_sub(self, o) }
            fn checked_mul(self, o: Self) -> Option<Self> { <$t>::checked_mul(self, o) }
            fn checked_div(self, o: Self) -> Option<Self> { <$t>::checked_div(self, o) }
            fn checked_rem(self, o: Self) -> Option<Self> { <$t>::checked_rem(self, o) }
            fn checked_neg(self) -> Option<Self> { <$t>::checked_neg(self) }
            fn wrapping_add(self, o: Self) -> Self { <$t>::wrapping_add(self, o) }
            fn wrapping_sub(self, o: Self) -> Self { <$t>::wrapping_sub(self, o) }
            fn wrapping_mul(self, o: Self) -> Self { <$t>::wrapping_mul(self, o) }
            fn wrapping_neg(self) -> Self { <$t>::wrapping_neg(self) }
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
            fn not(self) -> Self { !self }
            fn shl(self, n: u32) -> Self { self << n }
            fn shr(self, n: u32) -> Self { self >> n }
            fn is_zero(self) -> bool { self == 0 }
            fn to_i128(self) -> i128 { self as i128 }
        }
    )*};
}
int_impl!(u8, u16, u32, u64, i8, i16, i32, i64);

#[inline(always)]
unsafe fn int_binary<T: Int>(op: BinaryOp, a: *mut u8, b: *mut u8, d: *mut u8) -> ArithResult {
    let (x, y): (T, T) = (rd(a), rd(b));
    let overflow = (ErrorKind::Overflow, op.arith_op());
    let r = match op {
        BinaryOp::Add => x.checked_add(y).ok_or(overflow)?,
        BinaryOp::Sub => x.checked_sub(y).ok_or(overflow)?,
        BinaryOp::Mul => x.checked_mul(y).ok_or(overflow)?,
        BinaryOp::Div | BinaryOp::Rem => {
            if y.is_zero() {
                return Err((ErrorKind::DivisionByZero, op.arith_op()));
            }
            let r = if op == BinaryOp::Div {
                x.checked_div(y)
            } else {
                x.checked_rem(y)
            };
            r.ok_or(overflow)?
        }
        BinaryOp::WrappingAdd | BinaryOp::NoWrapAdd => x.wrapping_add(y),
        BinaryOp::WrappingSub | BinaryOp::NoWrapSub => x.wrapping_sub(y),
        BinaryOp::WrappingMul | BinaryOp::NoWrapMul => x.wrapping_mul(y),
        BinaryOp::BitAnd => x.and(y),
        BinaryOp::BitOr => x.or(y),
        BinaryOp::BitXor => x.xor(y),
        BinaryOp::Shl | BinaryOp::Shr => {
            let n = y.to_i128();
            if !(0..T::BITS as i128).contains(&n) {
                return Err(overflow);
            }
            if op == BinaryOp::Shl {
                x.shl(n as u32)
            } else {
                x.shr(n as u32)
            }
        }
        BinaryOp::And | BinaryOp::Or => unreachable!("boolean operators on an integer"),
    };
    wr(d, r);
    Ok(())
}

macro_rules! float_binary {
    ($t:ty, $op:expr, $a:expr, $b:expr, $d:expr) => {{
        let (x, y): ($t, $t) = (rd($a), rd($b));
        let r = match $op {
            BinaryOp::Add => x + y,
            BinaryOp::Sub => x - y,
            BinaryOp::Mul => x * y,
            BinaryOp::Div => x / y,
            BinaryOp::Rem => x % y,
            _ => unreachable!("verified: no bitwise operator on a float"),
        };
        wr($d, r);
    }};
}

/// `d = a op b` on a scalar of kind `ty`.
///
/// # Safety
/// The pointers must be at values of kind `ty`.
#[inline(always)]
pub unsafe fn binary(op: BinaryOp, ty: TyKind, a: *mut u8, b: *mut u8, d: *mut u8) -> ArithResult {
    match ty {
        TyKind::I64 => int_binary::<i64>(op, a, b, d),
        TyKind::I32 => int_binary::<i32>(op, a, b, d),
        TyKind::U64 | TyKind::Index => int_binary::<u64>(op, a, b, d),
        TyKind::U32 => int_binary::<u32>(op, a, b, d),
        TyKind::U8 => int_binary::<u8>(op, a, b, d),
        TyKind::U16 => int_binary::<u16>(op, a, b, d),
        TyKind::I8 => int_binary::<i8>(op, a, b, d),
        TyKind::I16 => int_binary::<i16>(op, a, b, d),
        TyKind::F64 => {
            float_binary!(f64, op, a, b, d);
            Ok(())
        }
        TyKind::F32 => {
            float_binary!(f32, op, a, b, d);
            Ok(())
        }
        TyKind::Bool => {
            let (x, y): (u8, u8) = (rd(a), rd(b));
            wr(
                d,
                match op {
                    BinaryOp::And | BinaryOp::BitAnd => x & y,
                    BinaryOp::Or | BinaryOp::BitOr => x | y,
                    BinaryOp::BitXor => x ^ y,
                    _ => unreachable!("verified: arithmetic on a bool"),
                },
            );
            Ok(())
        }
        _ => unreachable!("verified: arithmetic on {ty:?}"),
    }
}

unsafe fn int_unary<T: Int>(op: UnaryOp, s: *mut u8, d: *mut u8) -> ArithResult {
    let x: T = rd(s);
    let r = match op {
        UnaryOp::Neg => x.checked_neg().ok_or((ErrorKind::Overflow, ArithOp::Neg))?,
        UnaryOp::WrappingNeg => x.wrapping_neg(),
        UnaryOp::BitNot => x.not(),
        UnaryOp::Not | UnaryOp::Sqrt | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Abs => {
            unreachable!("verified")
        }
    };
    wr(d, r);
    Ok(())
}

/// `d = op s`.
///
/// One float unary operation, the same for `f64` and `f32`.
macro_rules! float_unary {
    ($t:ty, $op:expr, $s:expr, $d:expr) => {{
        let x = rd::<$t>($s);
        wr(
            $d,
            match $op {
                UnaryOp::Sqrt => x.sqrt(),
                UnaryOp::Floor => x.floor(),
                UnaryOp::Ceil => x.ceil(),
                UnaryOp::Abs => x.abs(),
                _ => -x,
            },
        );
        Ok(())
    }};
}

/// # Safety
/// The pointers must be at values of kind `ty`.
pub unsafe fn unary(op: UnaryOp, ty: TyKind, s: *mut u8, d: *mut u8) -> ArithResult {
    match ty {
        TyKind::Bool => {
            wr(d, (rd::<u8>(s) == 0) as u8);
            Ok(())
        }
        TyKind::F64 => float_unary!(f64, op, s, d),
        TyKind::F32 => float_unary!(f32, op, s, d),
        TyKind::I64 => int_unary::<i64>(op, s, d),
        TyKind::I32 => int_unary::<i32>(op, s, d),
        TyKind::I16 => int_unary::<i16>(op, s, d),
        TyKind::I8 => int_unary::<i8>(op, s, d),
        TyKind::U64 | TyKind::Index => int_unary::<u64>(op, s, d),
        TyKind::U32 => int_unary::<u32>(op, s, d),
        TyKind::U16 => int_unary::<u16>(op, s, d),
        TyKind::U8 => int_unary::<u8>(op, s, d),
        _ => unreachable!("verified: {op:?} on {ty:?}"),
    }
}

fn ordering_holds(op: CompareOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (op, ord) {
        (CompareOp::Ne, None) => true,
        (_, None) => false,
        (CompareOp::Eq, Some(o)) => o == Equal,
        (CompareOp::Ne, Some(o)) => o != Equal,
        (CompareOp::Lt, Some(o)) => o == Less,
        (CompareOp::Le, Some(o)) => o != Greater,
        (CompareOp::Gt, Some(o)) => o == Greater,
        (CompareOp::Ge, Some(o)) => o != Less,
    }
}

/// `a op b` on scalars of kind `ty` (floats by IEEE: a NaN is unordered).
///
/// # Safety
/// The pointers must be at values of kind `ty`.
#[inline(always)]
pub unsafe fn compare(op: CompareOp, ty: TyKind, a: *mut u8, b: *mut u8) -> bool {
    let ord = match ty {
        TyKind::I64 => rd::<i64>(a).partial_cmp(&rd::<i64>(b)),
        TyKind::I32 => rd::<i32>(a).partial_cmp(&rd::<i32>(b)),
        TyKind::I16 => rd::<i16>(a).partial_cmp(&rd::<i16>(b)),
        TyKind::I8 => rd::<i8>(a).partial_cmp(&rd::<i8>(b)),
        TyKind::U64 | TyKind::Index => rd::<u64>(a).partial_cmp(&rd::<u64>(b)),
        TyKind::U32 => rd::<u32>(a).partial_cmp(&rd::<u32>(b)),
        TyKind::U16 => rd::<u16>(a).partial_cmp(&rd::<u16>(b)),
        TyKind::U8 | TyKind::Bool => rd::<u8>(a).partial_cmp(&rd::<u8>(b)),
        TyKind::F64 => rd::<f64>(a).partial_cmp(&rd::<f64>(b)),
        TyKind::F32 => rd::<f32>(a).partial_cmp(&rd::<f32>(b)),
        TyKind::Unit => Some(std::cmp::Ordering::Equal),
        _ => unreachable!("verified: a scalar comparison of {ty:?}"),
    };
    ordering_holds(op, ord)
}

/// Applies an ordering from the runtime's `cmp` (-1, 0, 1).
pub fn compare_result(op: CompareOp, cmp: i32) -> bool {
    ordering_holds(op, Some(cmp.cmp(&0)))
}

unsafe fn read_int(ty: TyKind, p: *mut u8) -> i128 {
    match ty {
        TyKind::I64 => rd::<i64>(p) as i128,
        TyKind::I32 => rd::<i32>(p) as i128,
        TyKind::I16 => rd::<i16>(p) as i128,
        TyKind::I8 => rd::<i8>(p) as i128,
        TyKind::U64 | TyKind::Index => rd::<u64>(p) as i128,
        TyKind::U32 => rd::<u32>(p) as i128,
        TyKind::U16 => rd::<u16>(p) as i128,
        // A `bool` is 0 or 1 (a cast of one to an integer).
        TyKind::U8 | TyKind::Bool => rd::<u8>(p) as i128,
        _ => unreachable!(),
    }
}

/// Writes the low bytes of `v` as an integer of kind `ty` (two's-complement truncation).
unsafe fn write_int(ty: TyKind, p: *mut u8, v: i128) {
    match ty {
        TyKind::I64 | TyKind::U64 | TyKind::Index => wr(p, v as u64),
        TyKind::I32 | TyKind::U32 => wr(p, v as u32),
        TyKind::I16 | TyKind::U16 => wr(p, v as u16),
        TyKind::I8 | TyKind::U8 => wr(p, v as u8),
        _ => unreachable!(),
    }
}

/// Converts between numeric kinds.
///
/// Checked: an integer out of the target's range is an `overflow`; a float that is NaN or
/// out of range after truncation toward zero is an `invalid cast`. Unchecked: integers
/// truncate or extend; floats to integers saturate (NaN becomes 0).
///
/// # Safety
/// `s` must be at a value of kind `from`, `d` at room for one of kind `to`.
pub unsafe fn cast(from: TyKind, to: TyKind, checked: bool, s: *mut u8, d: *mut u8) -> ArithResult {
    let float_from = from.is_float();
    let float_to = to.is_float();
    match (float_from, float_to) {
        (false, false) => {
            let v = read_int(from, s);
            let (lo, hi) = to.int_range().expect("an integer kind");
            if checked && !(lo..=hi).contains(&v) {
                return Err((ErrorKind::Overflow, ArithOp::Cast));
            }
            write_int(to, d, v);
        }
        (false, true) => {
            let v = read_int(from, s);
            if to == TyKind::F32 {
                wr(d, v as f32)
            } else {
                wr(d, v as f64)
            }
        }
        (true, false) => {
            let x = if from == TyKind::F32 {
                rd::<f32>(s) as f64
            } else {
                rd::<f64>(s)
            };
            let (lo, hi) = to.int_range().expect("an integer kind");
            if checked {
                let t = x.trunc();
                if x.is_nan()
                    || t < lo as f64
                    || t > hi as f64
                    || (t == hi as f64 && hi as f64 as i128 != hi)
                {
                    return Err((ErrorKind::InvalidCast, ArithOp::Cast));
                }
            }
            // `as` from f64 to i128 saturates and maps NaN to 0; then clamp to the target.
            let v = (x as i128).clamp(lo, hi);
            write_int(to, d, v);
        }
        (true, true) => {
            if from == TyKind::F32 && to == TyKind::F64 {
                wr(d, rd::<f32>(s) as f64)
            } else if from == TyKind::F64 && to == TyKind::F32 {
                wr(d, rd::<f64>(s) as f32)
            } else {
                std::ptr::copy_nonoverlapping(s, d, if to == TyKind::F32 { 4 } else { 8 })
            }
        }
    }
    Ok(())
}
