//! `native_declaration` derives from `NativeContext::word_count()` and nothing else:
//! every parameter count from 0 to 14 with 0 to 3 trailing descriptors, and every
//! prototype is C the compiler accepts against the ABI header.

mod common;

use datalove_cbackend::native_declaration;
use datalove_ir::{IrType, NativeContext};

fn native(params: usize, trailing: usize) -> NativeContext {
    use datalove_test_support::{every_mode, native_context, native_decl};
    let name = format!("n{params}_{trailing}");
    native_context(
        "law",
        native_decl(&name, params, trailing, every_mode, IrType::U32),
    )
}

/// The parameters between the prototype's parentheses.
fn parameters(prototype: &str) -> Vec<String> {
    let open = prototype.find('(').expect("an opening parenthesis");
    let close = prototype.rfind(')').expect("a closing parenthesis");
    prototype[open + 1..close]
        .split(", ")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_prototype_has_exactly_word_count_parameters() {
    let mut all = String::from("#include \"datalove_rti.h\"\n");
    for params in 0..=14 {
        for trailing in 0..=3 {
            let ctx = native(params, trailing);
            assert_eq!(ctx.undetermined_type_params.len(), trailing);
            let prototype = native_declaration(&ctx);
            let words = parameters(&prototype);
            assert_eq!(
                words.len(),
                ctx.word_count(),
                "{params} params, {trailing} trailing: {prototype}"
            );
            assert_eq!(ctx.word_count(), 1 + 2 * params + 2 + trailing);
            assert!(prototype.starts_with(&format!("uint8_t dlr_law__n{params}_{trailing}(")));
            assert_eq!(words[0], "void *rt");
            for i in 0..params {
                assert_eq!(words[1 + 2 * i], format!("void *a{i}"));
                assert_eq!(words[2 + 2 * i], format!("const dtlv_tydesc_t *t{i}"));
            }
            assert_eq!(words[1 + 2 * params], "void *result_out");
            assert_eq!(words[2 + 2 * params], "const dtlv_tydesc_t *result_td");
            for i in 0..trailing {
                assert_eq!(
                    words[3 + 2 * params + i],
                    format!("const dtlv_tydesc_t *s{i}")
                );
            }
            all.push_str(&prototype);
            all.push('\n');
        }
    }
    // Every prototype is C.
    if datalove_toolchain::unavailable_without_c_compiler("compiling the prototypes") {
        return;
    }
    let dir = common::scratch("prototypes");
    common::write_headers(&dir);
    let c = dir.join("prototypes.c");
    std::fs::write(&c, &all).expect("write");
    datalove_test_support::run_to_success(
        datalove_cbackend::compiler()
            .command()
            .args(["-std=gnu11", "-fsyntax-only", "-Wall", "-Werror"])
            .arg(format!("-I{}", dir.display()))
            .arg(&c),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
