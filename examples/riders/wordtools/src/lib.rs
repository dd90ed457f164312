//! The natives `rider.dli` declares. Each runs inside `guard_failure`, which turns an
//! `Err` into a failure status with its message and a panic into one too, so nothing
//! unwinds into the caller.

// The safety contract of every native is the ABI's (docs/abi.md).
#![allow(clippy::missing_safety_doc)]

use std::mem::MaybeUninit;

use datalove_rti::rider_helpers::{guard_failure, make_string};
use datalove_rti::rtdt::{self, RtHandle};
use datalove_rti::TyDesc;

// The signature checks and the ABI-version export, written by build.rs.
include!(concat!(env!("OUT_DIR"), "/datalove_rider.rs"));

#[no_mangle]
pub unsafe extern "C-unwind" fn dlr_wordtools__count_words(
    rt: RtHandle,
    text: &rtdt::String,
    _text_td: &TyDesc,
    result_out: &mut MaybeUninit<u64>,
    _result_td: &TyDesc,
) -> u8 {
    guard_failure(rt, || {
        result_out.write(text.as_str().split_whitespace().count() as u64);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C-unwind" fn dlr_wordtools__nth_word(
    rt: RtHandle,
    text: &rtdt::String,
    _text_td: &TyDesc,
    n: &rtdt::Index,
    _n_td: &TyDesc,
    result_out: &mut MaybeUninit<rtdt::String>,
    _result_td: &TyDesc,
) -> u8 {
    guard_failure(rt, || {
        let words: Vec<&str> = text.as_str().split_whitespace().collect();
        let Some(word) = words.get(n.0 as usize) else {
            return Err(format!("no word {} in a text of {} words", n.0, words.len()).into());
        };
        make_string(rt, word, result_out)
    })
}
