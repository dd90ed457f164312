//! The natives `rider.dli` declares, written with `datalove_rti::natives!`: each is an
//! `extern "C-unwind"` function of the native-call ABI whose body runs inside
//! `guard_failure`, which turns an `Err` into a failure status with its message and a
//! panic into one too, so nothing unwinds into the caller.

// The safety contract of every native is the ABI's (docs/abi.md).
#![allow(clippy::missing_safety_doc)]

use std::mem::MaybeUninit;

use datalove_rti::rider_helpers::make_string;
use datalove_rti::rtdt;

// The signature checks and the ABI-version export, written by build.rs.
include!(concat!(env!("OUT_DIR"), "/datalove_rider.rs"));

datalove_rti::natives! {
    fn dlr_wordtools__count_words(
        rt,
        text: &rtdt::String, _text_td,
        result_out: &mut MaybeUninit<u64>, _result_td,
    ) {
        result_out.write(text.as_str().split_whitespace().count() as u64);
        Ok(())
    }

    fn dlr_wordtools__nth_word(
        rt,
        text: &rtdt::String, _text_td,
        n: &rtdt::Index, _n_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let words: Vec<&str> = text.as_str().split_whitespace().collect();
        let Some(word) = words.get(n.0 as usize) else {
            return Err(format!("no word {} in a text of {} words", n.0, words.len()).into());
        };
        make_string(rt, word, result_out)
    }
}
