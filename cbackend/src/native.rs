//! The native-call ABI, C side: the prototype of a native (exactly `word_count()`
//! parameters, laid out by `NativeContext::words()`), and the words of one call.

use datalove_ir::native::NativeWord;
use datalove_ir::NativeContext;

/// The C prototype of a native:
///
/// ```c
/// uint8_t dlr_R__F(void *rt, void *a0, const dtlv_tydesc_t *t0, ...,
///                  void *result_out, const dtlv_tydesc_t *result_td,
///                  const dtlv_tydesc_t *s0, ...);
/// ```
pub fn native_declaration(native: &NativeContext) -> String {
    let params: Vec<String> = native
        .words()
        .into_iter()
        .map(|word| match word {
            NativeWord::Runtime => "void *rt".to_string(),
            NativeWord::ArgPointer(i) => format!("void *a{i}"),
            NativeWord::ArgDescriptor(i) => format!("const dtlv_tydesc_t *t{i}"),
            NativeWord::ResultPointer => "void *result_out".to_string(),
            NativeWord::ResultDescriptor => "const dtlv_tydesc_t *result_td".to_string(),
            NativeWord::TrailingDescriptor(i) => format!("const dtlv_tydesc_t *s{i}"),
        })
        .collect();
    format!("uint8_t {}({});", native.symbol(), params.join(", "))
}

/// The arguments of one call, in word order: `arg(i)` gives argument `i`'s address and
/// descriptor, `result` the destination's, `trailing(i)` the descriptor bound to
/// undetermined type parameter `i`.
pub fn call_words(
    native: &NativeContext,
    rt: &str,
    arg: impl Fn(usize) -> (String, String),
    result: (String, String),
    trailing: impl Fn(usize) -> String,
) -> Vec<String> {
    native
        .words()
        .into_iter()
        .map(|word| match word {
            NativeWord::Runtime => rt.to_string(),
            NativeWord::ArgPointer(i) => arg(i).0,
            NativeWord::ArgDescriptor(i) => arg(i).1,
            NativeWord::ResultPointer => result.0.clone(),
            NativeWord::ResultDescriptor => result.1.clone(),
            NativeWord::TrailingDescriptor(i) => trailing(i),
        })
        .collect()
}
