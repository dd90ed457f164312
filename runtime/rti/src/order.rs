//! The runtime's order over values, decided once per type: [`OrderPlan::of`] reads a
//! descriptor once and gives a plan that orders two values of that type without walking
//! the descriptor again. Scalars, strings and tuples or records made of them (nested
//! ones flattened to a list of fields) are ordered directly; every other type says
//! [`OrderPlan::General`], and the caller falls back to the runtime's walk
//! (`Runtime::compare_values`, or `dtlv_rti_cmp` from a rider). The runtime's walk
//! uses the same scalar and string order ([`compare_scalar`], [`float_order`]), so the
//! two cannot disagree.
//!
//! The order itself (docs/language.md, "Order"): integers and `index` numerically;
//! `false < true`; floats by IEEE total order (`-0.0 < 0.0`) except that every NaN is
//! one value, equal to any other NaN and after everything else; strings by bytes.

use std::cmp::Ordering;

use crate::rtdt::String as RtString;
use crate::tydesc::{TyDesc, TyKind};

/// The float order: IEEE total order, all NaNs one value after everything.
pub fn float_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.total_cmp(&b),
    }
}

/// How one scalar or string field is ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// `unit`: every value is equal.
    Unit,
    /// `bool` and `u8`: one byte, unsigned.
    U8,
    U16,
    U32,
    /// `u64` and `index`.
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    String,
}

impl Leaf {
    /// The leaf order of a kind, when it has one.
    #[inline]
    pub fn of(kind: TyKind) -> Option<Leaf> {
        Some(match kind {
            TyKind::Unit => Leaf::Unit,
            TyKind::Bool | TyKind::U8 => Leaf::U8,
            TyKind::U16 => Leaf::U16,
            TyKind::U32 => Leaf::U32,
            TyKind::U64 | TyKind::Index => Leaf::U64,
            TyKind::I8 => Leaf::I8,
            TyKind::I16 => Leaf::I16,
            TyKind::I32 => Leaf::I32,
            TyKind::I64 => Leaf::I64,
            TyKind::F32 => Leaf::F32,
            TyKind::F64 => Leaf::F64,
            TyKind::String => Leaf::String,
            _ => return None,
        })
    }

    /// Whether two values ordered equal are the same bytes, so that no stable order
    /// can tell them apart (every leaf but the floats, whose NaNs are one value).
    pub fn equal_means_identical(self) -> bool {
        !matches!(self, Leaf::F32 | Leaf::F64)
    }
}

unsafe fn read<T: Copy>(p: *const u8) -> T {
    p.cast::<T>().read_unaligned()
}

/// The order of two values of one leaf kind.
///
/// # Safety
/// `a` and `b` point at initialized values of the kind `leaf` stands for.
#[inline]
pub unsafe fn compare_scalar(leaf: Leaf, a: *const u8, b: *const u8) -> Ordering {
    match leaf {
        Leaf::Unit => Ordering::Equal,
        Leaf::U8 => (*a).cmp(&*b),
        Leaf::U16 => read::<u16>(a).cmp(&read(b)),
        Leaf::U32 => read::<u32>(a).cmp(&read(b)),
        Leaf::U64 => read::<u64>(a).cmp(&read(b)),
        Leaf::I8 => read::<i8>(a).cmp(&read(b)),
        Leaf::I16 => read::<i16>(a).cmp(&read(b)),
        Leaf::I32 => read::<i32>(a).cmp(&read(b)),
        Leaf::I64 => read::<i64>(a).cmp(&read(b)),
        Leaf::F32 => float_order(f64::from(read::<f32>(a)), f64::from(read::<f32>(b))),
        Leaf::F64 => float_order(read(a), read(b)),
        Leaf::String => {
            let (a, b) = (&*a.cast::<RtString>(), &*b.cast::<RtString>());
            a.as_bytes().cmp(b.as_bytes())
        }
    }
}

/// The most fields a flattened tuple or record plan holds; a wider one is ordered by
/// the general walk.
pub const MAX_PLAN_FIELDS: usize = 8;

/// One field of a flattened plan: where it is and how it is ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanField {
    pub offset: usize,
    pub leaf: Leaf,
}

/// How two values of one type are ordered (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderPlan {
    /// A scalar or a string, compared directly.
    Leaf(Leaf),
    /// A tuple or record whose fields, nested ones flattened in order, are all leaves:
    /// compared field after field.
    Fields {
        count: usize,
        fields: [PlanField; MAX_PLAN_FIELDS],
    },
    /// Anything else: the runtime's walk over the descriptor.
    General,
}

impl OrderPlan {
    /// The plan for values of `td`.
    ///
    /// # Safety
    /// `td` well formed.
    #[inline]
    pub unsafe fn of(td: &TyDesc) -> OrderPlan {
        if let Some(leaf) = Leaf::of(td.kind) {
            return OrderPlan::Leaf(leaf);
        }
        let mut fields = [PlanField {
            offset: 0,
            leaf: Leaf::Unit,
        }; MAX_PLAN_FIELDS];
        let mut count = 0;
        if flatten(td, 0, &mut fields, &mut count) {
            OrderPlan::Fields { count, fields }
        } else {
            OrderPlan::General
        }
    }

    /// Whether values this plan orders equal are always the same bytes (so a stable
    /// and an unstable sort give the same list).
    pub fn equal_means_identical(&self) -> bool {
        match self {
            OrderPlan::Leaf(leaf) => leaf.equal_means_identical(),
            OrderPlan::Fields { count, fields } => fields[..*count]
                .iter()
                .all(|f| f.leaf.equal_means_identical()),
            OrderPlan::General => false,
        }
    }

    /// The order of two values, or `None` for a [`OrderPlan::General`] plan.
    ///
    /// # Safety
    /// `a` and `b` point at initialized values of the type the plan was made for.
    #[inline]
    pub unsafe fn compare(&self, a: *const u8, b: *const u8) -> Option<Ordering> {
        match self {
            OrderPlan::Leaf(leaf) => Some(compare_scalar(*leaf, a, b)),
            OrderPlan::Fields { count, fields } => {
                for field in &fields[..*count] {
                    let o = compare_scalar(field.leaf, a.add(field.offset), b.add(field.offset));
                    if o != Ordering::Equal {
                        return Some(o);
                    }
                }
                Some(Ordering::Equal)
            }
            OrderPlan::General => None,
        }
    }
}

/// Appends the leaves of `td` (at `base`) to `fields`; false when `td` holds something
/// that is not a leaf, tuple or record, or more leaves than a plan holds.
unsafe fn flatten(
    td: &TyDesc,
    base: usize,
    fields: &mut [PlanField; MAX_PLAN_FIELDS],
    count: &mut usize,
) -> bool {
    if let Some(leaf) = Leaf::of(td.kind) {
        if *count == MAX_PLAN_FIELDS {
            return false;
        }
        fields[*count] = PlanField { offset: base, leaf };
        *count += 1;
        return true;
    }
    if !matches!(td.kind, TyKind::Tuple | TyKind::Record) {
        return false;
    }
    td.fields()
        .iter()
        .all(|field| flatten(&*field.desc, base + field.offset, fields, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tydesc::OwnedTyDesc;

    #[test]
    fn floats_order_nan_last_and_negative_zero_first() {
        assert_eq!(float_order(-0.0, 0.0), Ordering::Less);
        assert_eq!(float_order(f64::NAN, -f64::NAN), Ordering::Equal);
        assert_eq!(float_order(f64::INFINITY, f64::NAN), Ordering::Less);
        assert_eq!(float_order(f64::NAN, f64::NEG_INFINITY), Ordering::Greater);
    }

    #[test]
    fn scalars_strings_and_flat_tuples_have_direct_plans() {
        unsafe {
            assert_eq!(
                OrderPlan::of(&OwnedTyDesc::scalar(TyKind::Index)),
                OrderPlan::Leaf(Leaf::U64)
            );
            assert_eq!(
                OrderPlan::of(&OwnedTyDesc::string()),
                OrderPlan::Leaf(Leaf::String)
            );
            let inner =
                OwnedTyDesc::tuple(vec![OwnedTyDesc::scalar(TyKind::I8), OwnedTyDesc::string()]);
            let outer = OwnedTyDesc::tuple(vec![OwnedTyDesc::scalar(TyKind::F64), inner]);
            let OrderPlan::Fields { count, fields } = OrderPlan::of(&outer) else {
                panic!("a tuple of leaves is flattened");
            };
            let leaves: Vec<Leaf> = fields[..count].iter().map(|f| f.leaf).collect();
            assert_eq!(leaves, [Leaf::F64, Leaf::I8, Leaf::String]);
            assert!(
                !OrderPlan::of(&outer).equal_means_identical(),
                "a float field"
            );
            let list = OwnedTyDesc::list(OwnedTyDesc::scalar(TyKind::I64));
            assert_eq!(OrderPlan::of(&list), OrderPlan::General);
            let wide = OwnedTyDesc::tuple(
                (0..=MAX_PLAN_FIELDS)
                    .map(|_| OwnedTyDesc::scalar(TyKind::U8))
                    .collect(),
            );
            assert_eq!(OrderPlan::of(&wide), OrderPlan::General);
        }
    }
}
