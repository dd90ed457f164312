//! The interpreter's native calls are held to `NativeContext::word_count()`.

use datalove_interp::{c_words, call_c, chosen_arity};
use datalove_ir::builder::ProgramBuilder;
use datalove_ir::native::{NativeDecl, RiderInterface};
use datalove_ir::*;

fn decl(params: usize, trailing: usize) -> NativeDecl {
    datalove_test_support::native_decl("f", params, trailing, |_| ParamMode::Ref, IrType::U64)
}

#[test]
fn c_words_and_the_chosen_arity_follow_the_word_count() {
    for params in 0..=14 {
        for trailing in 0..=3 {
            let ctx = RiderInterface::new("probe", vec![decl(params, trailing)])
                .context("f", vec![IrType::U8; trailing])
                .unwrap();
            let words = c_words(&ctx, 1usize, |i| (100 + i, 200 + i), (7, 8), |i| 300 + i);
            assert_eq!(
                words.len(),
                ctx.word_count(),
                "{params} params, {trailing} trailing"
            );
            if ctx.fits() {
                assert_eq!(chosen_arity(words.len()), Some(ctx.word_count()));
            } else {
                assert_eq!(chosen_arity(words.len()), None);
            }
            // The layout: rt, (ptr, desc) per argument, result, trailing descriptors.
            let mut expected = vec![1usize];
            for i in 0..params {
                expected.extend([100 + i, 200 + i]);
            }
            expected.extend([7, 8]);
            expected.extend((0..trailing).map(|i| 300 + i));
            assert_eq!(words, expected);
        }
    }
}

/// Sums its words after `rt` into the result slot (the last-but-one word).
unsafe extern "C-unwind" fn sum3(_rt: usize, out: usize, _td: usize) -> u8 {
    *(out as *mut u64) = 42;
    1
}

unsafe extern "C-unwind" fn echo32(
    _rt: usize,
    a0: usize,
    _d0: usize,
    a1: usize,
    _d1: usize,
    a2: usize,
    _d2: usize,
    a3: usize,
    _d3: usize,
    a4: usize,
    _d4: usize,
    a5: usize,
    _d5: usize,
    a6: usize,
    _d6: usize,
    a7: usize,
    _d7: usize,
    a8: usize,
    _d8: usize,
    a9: usize,
    _d9: usize,
    a10: usize,
    _d10: usize,
    a11: usize,
    _d11: usize,
    a12: usize,
    _d12: usize,
    a13: usize,
    _d13: usize,
    out: usize,
    _out_td: usize,
    trailing: usize,
) -> u8 {
    let sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + trailing;
    *(out as *mut usize) = sum;
    2
}

#[test]
fn call_c_passes_every_word_and_returns_the_status() {
    let mut out = 0u64;
    let status = unsafe { call_c(sum3 as *const _, &[0, &mut out as *mut u64 as usize, 0]) };
    assert_eq!((status, out), (1, 42));
    let mut result = 0usize;
    let mut words = vec![0usize];
    for i in 0..14 {
        words.extend([i + 1, 0]);
    }
    words.extend([&mut result as *mut usize as usize, 0, 1000]);
    assert_eq!(words.len(), 32);
    let status = unsafe { call_c(echo32 as *const _, &words) };
    assert_eq!((status, result), (2, 105 + 1000));
}

#[test]
fn a_33_word_native_is_refused_when_compiling_not_when_running() {
    let ctx = RiderInterface::new("probe", vec![decl(14, 2)])
        .context("f", vec![IrType::U8, IrType::U8])
        .unwrap();
    assert_eq!(ctx.word_count(), 33);
    let mut pb = ProgramBuilder::new();
    let main = pb.declare_function("main", vec![], vec![], IrType::Unit);
    let mut fb = pb.function(main);
    let args: Vec<Arg> = (0..14)
        .map(|_| Arg {
            mode: ParamMode::Ref,
            slot: fb.int(IrType::U64, 1),
        })
        .collect();
    let dst = fb.new_slot(IrType::U8);
    let abandon = fb.abandon_block(&[]);
    fb.inst(
        InstKind::CallNative {
            dst: Some(dst),
            native: Box::new(ctx),
            args,
        },
        Some(abandon),
    );
    fb.terminate(Terminator::Return(None));
    pb.set_entry(main);
    let program = pb.finish();
    let mut resolved = false;
    let err = datalove_interp::compile(&program, &mut |_| {
        resolved = true;
        Ok(std::ptr::null())
    })
    .err()
    .expect("refused");
    assert!(err.to_string().contains("33 C words"), "{err}");
    assert!(!resolved, "refused before any native was looked up");
}
