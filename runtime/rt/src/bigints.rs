//! Bigints: a sign and a magnitude of little-endian 64-bit limbs in a counted buffer of
//! exactly `len` limbs (`datalove_rti::layout`, `BIGINT_*_OFFSET`). The runtime keeps
//! every bigint in one form (no high zero limb; zero owns nothing and is not negative),
//! so equal numbers are equal bytes of limbs and a native may read the limbs as they are.
//! Arithmetic is the std rider's (with `num-bigint`); the runtime makes, clones, drops,
//! orders and formats them, as it does every other value.

use std::cmp::Ordering;

use datalove_rti::rtdt::BigInt;
use datalove_rti::status::{RtStatus, STATUS_OK};
use datalove_rti::table::Rt;
use num_bigint::{BigInt as NumBigInt, BigUint, Sign};

use crate::state::Runtime;

const LIMB: usize = std::mem::size_of::<u64>();

impl Runtime {
    /// A new bigint of the magnitude `limbs` (high zero limbs dropped) and the sign
    /// `negative` (ignored for zero).
    pub fn bigint_from_limbs(&self, negative: bool, limbs: &[u64]) -> BigInt {
        let used = limbs.iter().rposition(|&l| l != 0).map_or(0, |top| top + 1);
        if used == 0 {
            return BigInt::ZERO;
        }
        let ptr = self.alloc(used * LIMB, LIMB).cast::<u64>();
        // SAFETY: `ptr` has room for `used` limbs; the top one is not zero.
        unsafe {
            std::ptr::copy_nonoverlapping(limbs.as_ptr(), ptr, used);
            BigInt::from_raw_parts(ptr, used, negative)
        }
    }

    /// Frees a bigint's limbs.
    pub(crate) fn free_bigint(&self, b: &BigInt) {
        let (ptr, len, _) = b.raw_parts();
        // SAFETY: a bigint's limbs are a counted allocation of exactly `len` limbs.
        unsafe { self.free(ptr.cast(), len * LIMB, LIMB) }
    }

    pub(crate) fn clone_bigint(&self, b: &BigInt) -> BigInt {
        self.bigint_from_limbs(b.is_negative(), b.limbs())
    }
}

/// The order of two bigints: numeric.
pub fn compare_bigints(a: &BigInt, b: &BigInt) -> Ordering {
    let magnitude = || {
        let (la, lb) = (a.limbs(), b.limbs());
        la.len()
            .cmp(&lb.len())
            .then_with(|| la.iter().rev().cmp(lb.iter().rev()))
    };
    match (a.is_negative(), b.is_negative()) {
        (false, false) => magnitude(),
        (true, true) => magnitude().reverse(),
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
    }
}

/// A bigint as `num-bigint` holds it, to compute or to format with.
pub fn to_num_bigint(b: &BigInt) -> NumBigInt {
    let bytes: Vec<u8> = b.limbs().iter().flat_map(|l| l.to_le_bytes()).collect();
    let sign = if b.is_negative() {
        Sign::Minus
    } else {
        Sign::Plus
    };
    NumBigInt::from_biguint(sign, BigUint::from_bytes_le(&bytes))
}

/// The decimal text of a bigint: `-` and the digits, no leading zeros.
pub fn format_bigint(b: &BigInt) -> String {
    to_num_bigint(b).to_string()
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn bigint_from_limbs(
    rt: Rt,
    negative: u8,
    limbs: *const u64,
    len: usize,
    out: *mut BigInt,
) -> RtStatus {
    let limbs = if len == 0 || limbs.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(limbs, len)
    };
    out.write(Runtime::from_handle(rt).bigint_from_limbs(negative != 0, limbs));
    STATUS_OK
}
