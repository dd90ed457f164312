//! The native-call ABI, C side: the prototype of a native (exactly `word_count()`
//! parameters, laid out by `NativeContext::words()`), and the words of one call, made
//! through the native's slot (`datalove_ir::lowering::NativeLinks`), which the runtime
//! fills at start.

use datalove_ir::native::NativeWord;
use datalove_ir::{Arg, BlockId, IrType, NativeContext, SlotId};

use crate::emit::Fx;
use crate::runtime::{self, call, Entry};
use crate::writer::*;

/// The C prototype of a native:
///
/// ```c
/// uint8_t dlr_R__F(void *rt, void *a0, const dtlv_tydesc_t *t0, ...,
///                  void *result_out, const dtlv_tydesc_t *result_td,
///                  const dtlv_tydesc_t *s0, ...);
/// ```
pub fn native_declaration(native: &NativeContext) -> String {
    format!(
        "uint8_t {}({});",
        native.symbol(),
        native_parameters(native)
    )
}

/// The function type of a native's slot in an executable:
/// `typedef uint8_t dlr_R__F_fn(<the prototype's parameters>);`.
pub fn native_typedef(native: &NativeContext) -> String {
    format!(
        "typedef uint8_t {}({});",
        native_type_name(native),
        native_parameters(native)
    )
}

/// `dlr_R__F_fn`: the name of [`native_typedef`]'s type.
pub fn native_type_name(native: &NativeContext) -> String {
    format!("{}_fn", native.symbol())
}

/// The prototype's parameters, comma separated.
fn native_parameters(native: &NativeContext) -> String {
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
    params.join(", ")
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

impl Fx<'_> {
    /// One call of a native: the words, the call, the status test, and the test of
    /// `abandoning` after an OK status.
    pub(crate) fn native_call(
        &mut self,
        dst: Option<SlotId>,
        native: &NativeContext,
        args: &[Arg],
        abandon: BlockId,
    ) {
        self.natives
            .entry(native.symbol().to_string())
            .or_insert_with(|| native_typedef(native));
        let arg_words: Vec<(String, String)> = args
            .iter()
            .map(|a| (self.addr(a.slot), self.slot_desc(a.slot)))
            .collect();
        let result = match dst {
            Some(d) => (self.addr(d), self.slot_desc(d)),
            None => {
                self.unit_scratch = true;
                (format!("(void *)&{UNIT_SCRATCH}"), self.desc(&IrType::Unit))
            }
        };
        let trailing: Vec<String> = native
            .undetermined_bindings
            .iter()
            .map(|t| self.desc(t))
            .collect();
        let words = call_words(
            native,
            RT,
            |i| arg_words[i].clone(),
            result,
            |i| trailing[i].clone(),
        );
        debug_assert_eq!(words.len(), native.word_count());
        self.w.open("");
        self.w.stmt(format!(
            "dtlv_status_t status = (({} *){NATIVE_SLOTS}[{}])({})",
            native_type_name(native),
            self.links.slot(native.symbol()),
            words.join(", ")
        ));
        let failed = call(
            Entry::NativeFailed,
            &[
                &bytes_and_len(native.rider().as_bytes()),
                &bytes_and_len(native.function().as_bytes()),
                "status",
            ],
        );
        self.fail_if("status != DTLV_STATUS_OK", abandon, Some(failed));
        // OK from a native that raised an error: a failure all the same, and what it
        // wrote is dropped.
        let written = self.func.owned_call_results(dst, args);
        self.w.open(format!("if ({})", runtime::abandoning()));
        for slot in written {
            let (at, td) = (self.addr(slot), self.slot_desc(slot));
            self.w.stmt(call(Entry::Drop, &[&at, &td]));
        }
        self.take_abandon(abandon);
        self.w.close();
        self.w.close();
    }
}
