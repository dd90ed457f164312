//! Bigints in the runtime: made from limbs in the one form, cloned, dropped, ordered,
//! formatted and held in a data, by descriptor like every other value.

mod common;

use std::cmp::Ordering;
use std::mem::MaybeUninit;

use common::{mut_ptr, ptr, Fixture};
use datalove_rti::call;
use datalove_rti::rtdt::{self, Data};
use datalove_rti::status::STATUS_OK;
use datalove_rti::tydesc::{BIGINT_TYDESC, DATA_TYDESC};

fn bigint(fx: &Fixture, negative: bool, limbs: &[u64]) -> rtdt::BigInt {
    let mut out = MaybeUninit::uninit();
    let status = unsafe { call::dtlv_rti_bigint_from_limbs(fx.h(), negative, limbs, &mut out) };
    assert_eq!(status, STATUS_OK);
    unsafe { out.assume_init() }
}

#[test]
fn limbs_are_kept_in_one_form() {
    let fx = Fixture::new();
    let zero = bigint(&fx, true, &[0, 0]);
    assert!(
        zero.is_zero() && !zero.is_negative(),
        "zero is not negative"
    );
    assert_eq!(fx.live(), 0, "zero owns nothing");
    let n = bigint(&fx, true, &[5, 1, 0, 0]);
    assert_eq!(n.limbs(), &[5, 1], "high zero limbs are dropped");
    assert!(n.is_negative());
    assert_eq!(fx.live(), 1);
    fx.drop_all([zero, n], &BIGINT_TYDESC);
}

#[test]
fn format_is_decimal_and_order_is_numeric() {
    let fx = Fixture::new();
    let values = [
        bigint(&fx, true, &[0, 1]),
        bigint(&fx, true, &[7]),
        bigint(&fx, false, &[]),
        bigint(&fx, false, &[u64::MAX]),
        bigint(&fx, false, &[0, 1]),
    ];
    let texts: Vec<String> = values
        .iter()
        .map(|v| fx.format(ptr(v), &BIGINT_TYDESC))
        .collect();
    assert_eq!(
        texts,
        [
            "-18446744073709551616",
            "-7",
            "0",
            "18446744073709551615",
            "18446744073709551616"
        ]
    );
    for (i, a) in values.iter().enumerate() {
        for (j, b) in values.iter().enumerate() {
            let order = unsafe { call::dtlv_rti_cmp(fx.h(), ptr(a), ptr(b), &BIGINT_TYDESC) };
            assert_eq!(order, i.cmp(&j), "{} vs {}", texts[i], texts[j]);
        }
    }
    fx.drop_all(values, &BIGINT_TYDESC);
}

#[test]
fn clone_is_deep_and_a_data_boxes_one() {
    let fx = Fixture::new();
    let n = bigint(&fx, false, &[1, 2, 3]);
    let mut copy = MaybeUninit::<rtdt::BigInt>::uninit();
    let status =
        unsafe { call::dtlv_rti_clone(fx.h(), ptr(&n), &BIGINT_TYDESC, copy.as_mut_ptr().cast()) };
    assert_eq!(status, STATUS_OK);
    let mut copy = unsafe { copy.assume_init() };
    assert_ne!(
        copy.raw_parts().0,
        n.raw_parts().0,
        "a clone owns its own limbs"
    );
    let same = unsafe { call::dtlv_rti_cmp(fx.h(), ptr(&n), ptr(&copy), &BIGINT_TYDESC) };
    assert_eq!(same, Ordering::Equal);
    let mut d = MaybeUninit::<Data>::uninit();
    // The data takes the clone over (its bytes are moved in; `rtdt::BigInt` has no drop).
    let status =
        unsafe { call::dtlv_rti_data_make(fx.h(), mut_ptr(&mut copy), &BIGINT_TYDESC, &mut d) };
    assert_eq!(status, STATUS_OK);
    let d = unsafe { d.assume_init() };
    assert_eq!(
        fx.format(ptr(&d), &DATA_TYDESC),
        fx.format(ptr(&n), &BIGINT_TYDESC)
    );
    fx.drop_value(d, &DATA_TYDESC);
    fx.drop_value(n, &BIGINT_TYDESC);
}
