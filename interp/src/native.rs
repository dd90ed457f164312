//! The native-call ABI, interpreter side: `c_words` lays a call out as a flat array of
//! pointer-sized words (from the `NativeContext`'s word layout), and `call_c` calls the
//! native through the exact `extern "C-unwind"` function type of that many words.

use std::ffi::c_void;

use datalove_ir::native::{NativeWord, MAX_C_WORDS};
use datalove_ir::NativeContext;
use datalove_rti::RtStatus;

/// Lays out the words of a call of `ctx`: `rt`, a pointer and descriptor per argument,
/// the result pointer and descriptor, the trailing descriptors. `arg`, `result` and
/// `trailing` give each word's value; the order and count are `ctx.words()`'s, so the
/// length is always `ctx.word_count()`. The interpreter lays out a template of word
/// sources once, when it lowers the call, and reads the values from it at each call.
pub fn c_words<T: Copy>(
    ctx: &NativeContext,
    rt: T,
    mut arg: impl FnMut(usize) -> (T, T),
    result: (T, T),
    mut trailing: impl FnMut(usize) -> T,
) -> Vec<T> {
    let mut words = Vec::with_capacity(ctx.word_count());
    for word in ctx.words() {
        words.push(match word {
            NativeWord::Runtime => rt,
            NativeWord::ArgPointer(i) => arg(i).0,
            NativeWord::ArgDescriptor(i) => arg(i).1,
            NativeWord::ResultPointer => result.0,
            NativeWord::ResultDescriptor => result.1,
            NativeWord::TrailingDescriptor(i) => trailing(i),
        });
    }
    words
}

macro_rules! arities {
    ($($n:literal => ($($w:ident),*)),* $(,)?) => {
        /// The number of words of the function type `call_c` uses for a call of `words`
        /// words (the same number; `None` past the limit or below the minimum of 3).
        pub fn chosen_arity(words: usize) -> Option<usize> {
            match words {
                $($n => Some($n),)*
                _ => None,
            }
        }

        /// Calls `function` with `words` as its arguments, through the function type of
        /// exactly that many pointer-sized parameters returning the status byte.
        ///
        /// # Safety
        /// `function` must be a native whose C signature takes `words.len()` pointer-sized
        /// arguments, and each word must be what that native expects.
        pub unsafe fn call_c(function: *const c_void, words: &[usize]) -> RtStatus {
            match words.len() {
                $($n => {
                    let f: unsafe extern "C-unwind" fn($(arities!(@ty $w)),*) -> RtStatus =
                        std::mem::transmute(function);
                    let [$($w),*] = words else { unreachable!() };
                    f($(*$w),*)
                })*
                n => panic!("a native call of {n} words: the IR verifier admits 3 to {MAX_C_WORDS}"),
            }
        }
    };
    (@ty $w:ident) => { usize };
}

arities! {
    3 => (w0, w1, w2),
    4 => (w0, w1, w2, w3),
    5 => (w0, w1, w2, w3, w4),
    6 => (w0, w1, w2, w3, w4, w5),
    7 => (w0, w1, w2, w3, w4, w5, w6),
    8 => (w0, w1, w2, w3, w4, w5, w6, w7),
    9 => (w0, w1, w2, w3, w4, w5, w6, w7, w8),
    10 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9),
    11 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10),
    12 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11),
    13 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12),
    14 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13),
    15 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14),
    16 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15),
    17 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16),
    18 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17),
    19 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18),
    20 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19),
    21 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20),
    22 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21),
    23 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22),
    24 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23),
    25 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24),
    26 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25),
    27 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26),
    28 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27),
    29 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27, w28),
    30 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27, w28, w29),
    31 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27, w28, w29, w30),
    32 => (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27, w28, w29, w30, w31),
}
