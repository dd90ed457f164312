//! The native-call ABI, interpreter side: `c_words` lays a call out as a flat array of
//! pointer-sized words (from the `NativeContext`'s word layout), and `call_c` calls the
//! native through the exact `extern "C-unwind"` function type of that many words.

use std::ffi::c_void;

use datalove_ir::native::{NativeWord, MAX_C_WORDS};
use datalove_ir::{Arg, NativeContext, SlotId};
use datalove_rti::status::STATUS_OK;
use datalove_rti::{RtStatus, TyKind};

use crate::desc::{scalar_static, DescRef};
use crate::error::InterpError;
use crate::exec::{desc_of, Machine, UNIT_SCRATCH};
use crate::lower::FuncLowering;
use crate::ops::{NativeCall, NativeName, Op, Opnd, ShortWords, WordPatch, SHORT_CALL};

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

macro_rules! short_arities {
    ($($n:literal $name:ident => ($($i:literal),*)),* $(,)?) => {
        $(
            #[doc = concat!("Calls `function` with the ", stringify!($n), " words of a short call")]
            /// (`ShortWords`), each computed from the frame address where it is passed;
            /// word 0 is `rt`. The fast form's `Op::NativeS3` .. `Op::NativeS8` call these.
            ///
            /// # Safety
            /// As for `call_c`, with a native of this many words.
            #[inline(always)]
            pub unsafe fn $name(
                function: *const c_void,
                rt: usize,
                w: &ShortWords,
                frame: usize,
            ) -> RtStatus {
                let word = |i: usize| w.base[i].wrapping_add(frame & w.mask[i]);
                let f: unsafe extern "C-unwind" fn(usize $(, short_arities!(@ty $i))*) -> RtStatus =
                    std::mem::transmute(function);
                f(rt $(, word($i))*)
            }
        )*

        /// The `call_short_N` of a short call of `count` words (3 to `SHORT_CALL`), for
        /// a generic `Op::CallNative` (the fast form calls it directly).
        ///
        /// # Safety
        /// As for `call_c`, with `count` the native's word count.
        #[inline(always)]
        pub unsafe fn call_short(
            function: *const c_void,
            rt: usize,
            w: &ShortWords,
            frame: usize,
            count: u32,
        ) -> RtStatus {
            match count {
                $($n => $name(function, rt, w, frame),)*
                n => panic!("a short native call of {n} words"),
            }
        }
    };
    (@ty $i:literal) => { usize };
}

short_arities! {
    3 call_short_3 => (1, 2),
    4 call_short_4 => (1, 2, 3),
    5 call_short_5 => (1, 2, 3, 4),
    6 call_short_6 => (1, 2, 3, 4, 5),
    7 call_short_7 => (1, 2, 3, 4, 5, 6),
    8 call_short_8 => (1, 2, 3, 4, 5, 6, 7),
}

/// The words of a call in registers, when it can be (`ShortWords`).
fn short_words(laid_out: &[Result<usize, WordPatch>]) -> Option<ShortWords> {
    if laid_out.len() > SHORT_CALL {
        return None;
    }
    let mut w = ShortWords {
        base: [0; SHORT_CALL],
        mask: [0; SHORT_CALL],
    };
    for (i, word) in laid_out.iter().enumerate().skip(1) {
        match *word {
            Ok(v) => w.base[i] = v,
            Err(WordPatch::Direct(o)) => (w.base[i], w.mask[i]) = (o as usize, usize::MAX),
            Err(_) => return None,
        }
    }
    Some(w)
}

fn padded_words(count: usize) -> usize {
    if count <= SHORT_CALL {
        SHORT_CALL
    } else {
        datalove_ir::MAX_C_WORDS
    }
}

impl FuncLowering<'_, '_> {
    /// Lowers one native call: its template of C words, laid out by `c_words` from
    /// `NativeContext::words()`, the resolved function, and what to drop when it
    /// returns OK after raising.
    pub(crate) fn native_call(
        &mut self,
        dst: Option<SlotId>,
        native: &NativeContext,
        args: &[Arg],
        fail: u32,
    ) -> Result<Op, InterpError> {
        let function = (self.resolve)(native).map_err(InterpError::Native)?;
        // Each word is a value fixed now (`Ok`) or a patch written at each call (`Err`).
        type Word = Result<usize, WordPatch>;
        let place = |o: Opnd| -> Word {
            if o.0 & Opnd::INDIRECT == 0 {
                Err(WordPatch::Direct(o.0))
            } else {
                Err(WordPatch::Indirect(o.0 & !Opnd::INDIRECT))
            }
        };
        let descriptor = |d: DescRef| -> Word {
            match d {
                DescRef::Static(p) => Ok(p as usize),
                DescRef::Frame(n) => Err(WordPatch::FrameDesc(n)),
            }
        };
        let arg_words: Vec<(Word, Word)> = args
            .iter()
            .map(|a| (place(self.at(a.slot)), descriptor(self.slot_desc(a.slot))))
            .collect();
        let result = match dst {
            Some(d) => (place(self.at(d)), descriptor(self.slot_desc(d))),
            None => (
                Ok(std::ptr::addr_of_mut!(UNIT_SCRATCH) as usize),
                Ok(scalar_static(TyKind::Unit) as usize),
            ),
        };
        let trailing: Vec<Word> = native
            .undetermined_bindings
            .iter()
            .map(|t| descriptor(self.desc(t)))
            .collect();
        let laid_out = c_words(
            native,
            Err(WordPatch::Rt),
            |i| arg_words[i],
            result,
            |i| trailing[i],
        );
        // Padded to a fixed length, so a call copies them without a length-driven loop.
        let mut words: Vec<usize> = laid_out.iter().map(|w| w.unwrap_or(0)).collect();
        words.resize(padded_words(words.len()), 0);
        let patches: Vec<(u32, WordPatch)> = laid_out
            .iter()
            .enumerate()
            .filter_map(|(i, w)| w.err().map(|p| (i as u32, p)))
            .collect();
        debug_assert_eq!(laid_out.len(), native.word_count());
        debug_assert!(matches!(laid_out[0], Err(WordPatch::Rt)));
        let short = short_words(&laid_out);
        self.natives.push(NativeName {
            rider: native.rider().to_string(),
            function: native.function().to_string(),
        });
        let written = self
            .func
            .owned_call_results(dst, args)
            .into_iter()
            .map(|s| (self.at(s), self.slot_desc(s)))
            .collect();
        Ok(Op::CallNative {
            call: Box::new(NativeCall {
                function,
                words: words.into(),
                patches: patches.into(),
                short,
                count: laid_out.len() as u32,
                native: self.natives.len() as u32 - 1,
                written,
            }),
            fail,
        })
    }
}

impl Machine<'_> {
    /// Runs one native call: fills the prepared word template, calls through the exact
    /// function type of its word count, and reads the status and then `abandoning` (a
    /// native that raised and returned OK has failed, and what it wrote is dropped).
    /// `false` when the call failed (the error is recorded).
    ///
    /// # Safety
    /// As for `Machine::run`; `frame` is the calling function's.
    pub(crate) unsafe fn call_native(&self, frame: *mut u8, base: u32, call: &NativeCall) -> bool {
        if let Some(w) = &call.short {
            let status = call_short(
                call.function,
                self.rt as usize,
                w,
                frame as usize,
                call.count,
            );
            return self.native_returned(call, frame, base, status);
        }
        if call.words.len() == SHORT_CALL {
            self.call_native_n::<SHORT_CALL>(frame, base, call)
        } else {
            self.call_native_n::<{ datalove_ir::MAX_C_WORDS }>(frame, base, call)
        }
    }

    /// `call_native` for a call whose prepared words are padded to `N`.
    #[inline(always)]
    unsafe fn call_native_n<const N: usize>(
        &self,
        frame: *mut u8,
        base: u32,
        call: &NativeCall,
    ) -> bool {
        let rt = self.rt;
        let mut buf: [usize; N] = *(call.words.as_ptr() as *const [usize; N]);
        for &(i, patch) in call.patches.iter() {
            *buf.get_unchecked_mut(i as usize) = match patch {
                WordPatch::Rt => rt as usize,
                WordPatch::Direct(o) => frame.add(o as usize) as usize,
                WordPatch::Indirect(o) => *(frame.add(o as usize) as *const usize),
                WordPatch::FrameDesc(d) => desc_of(frame, base, DescRef::Frame(d)) as usize,
            };
        }
        let status = call_c(call.function, buf.get_unchecked(..call.count as usize));
        self.native_returned(call, frame, base, status)
    }

    /// After a native returned `status`: records a failure, or drops what it wrote when it
    /// raised; `false` when the call failed.
    #[inline(always)]
    pub(crate) unsafe fn native_returned(
        &self,
        call: &NativeCall,
        frame: *mut u8,
        base: u32,
        status: RtStatus,
    ) -> bool {
        if status != STATUS_OK {
            self.native_failed(call.native, status);
            return false;
        }
        if self.abandoning() {
            self.drop_owned(frame, base, &call.written);
            return false;
        }
        true
    }

    /// Records the failure of native `native` with `status`.
    #[cold]
    unsafe fn native_failed(&self, native: u32, status: RtStatus) {
        let name = &self.natives[native as usize];
        (self.table.native_failed)(
            self.rt,
            name.rider.as_ptr(),
            name.rider.len(),
            name.function.as_ptr(),
            name.function.len(),
            status,
        );
    }
}
