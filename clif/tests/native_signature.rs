//! `build_native_signature` derives from `NativeContext::word_count()` and nothing else:
//! every parameter count from 0 to 14 with 0 to 3 trailing descriptors.

use cranelift_codegen::ir::types;
use cranelift_codegen::isa::CallConv;
use datalove_clif::build_native_signature;
use datalove_ir::IrType;

fn native(params: usize, trailing: usize) -> datalove_ir::NativeContext {
    use datalove_test_support::{every_mode, native_context, native_decl};
    let name = format!("n{params}_{trailing}");
    native_context(
        "law",
        native_decl(&name, params, trailing, every_mode, IrType::U32),
    )
}

#[test]
fn signature_has_word_count_pointer_params_and_a_status_byte() {
    for params in 0..=14 {
        for trailing in 0..=3 {
            let ctx = native(params, trailing);
            assert_eq!(ctx.undetermined_type_params.len(), trailing);
            let sig = build_native_signature(&ctx, CallConv::SystemV);
            assert_eq!(
                sig.params.len(),
                ctx.word_count(),
                "{params} params, {trailing} trailing"
            );
            assert_eq!(ctx.word_count(), 1 + 2 * params + 2 + trailing);
            assert!(sig.params.iter().all(|p| p.value_type == types::I64));
            assert_eq!(sig.returns.len(), 1);
            assert_eq!(sig.returns[0].value_type, types::I8);
            assert_eq!(sig.call_conv, CallConv::SystemV);
        }
    }
}
