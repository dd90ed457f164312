//! The IR-to-CLIF lowering shared by the Cranelift backends, generic over
//! `cranelift_module::Module`: `clif-jit` hands it a `JITModule`, `clif-aot` an
//! `ObjectModule`. The calling convention between program functions is in
//! `docs/backends.md`.
//!
//! ```text
//! admit (the verifier) → declare functions → lower each (lower.rs) → define
//! ```

mod arith;
mod desc;
mod error;
mod lower;
mod native;
mod print;
mod runtime;

use cranelift_codegen::ir::{AbiParam, Signature};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};
use datalove_ir::verify::admit;
use datalove_ir::Program;

pub use desc::NativeSlots;
pub use error::ClifError;
pub use lower::program_signature;
pub use native::build_native_signature;

/// What lowering produced in the module.
pub struct Lowered {
    /// The script body: `extern "C" fn(rt)`.
    pub entry: ClifFuncId,
    /// Every function the entry reaches, by its index in
    /// `datalove_ir::lowering::reachable_program`.
    pub functions: Vec<ClifFuncId>,
    /// The CLIF text with IR comments, when asked for.
    pub clif_text: Option<String>,
    /// With [`LowerOptions::native_slots`]: the rider manifest and the native slots
    /// (data objects) the executable's `main` hands to `dtlv_rt_run_linked`.
    pub native_slots: Option<desc::NativeSlots>,
}

/// Options of the lowering.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// Keep the CLIF of every function as text (`datalove emit clif`).
    pub keep_clif_text: bool,
    /// Call natives through slots the runtime fills at start (executables: the aot
    /// backend) instead of as imported functions (the JIT, which resolves them itself).
    pub native_slots: bool,
}

/// Lowers and defines every function of `program` its entry reaches in `module`.
pub fn lower_program<M: Module>(
    module: &mut M,
    program: &Program,
    options: LowerOptions,
) -> Result<Lowered, ClifError> {
    admit(program).map_err(|refused| ClifError::Unverified(refused.to_string()))?;
    // Only what the entry reaches is compiled.
    let reached = datalove_ir::lowering::reachable_program(program);
    let program = &reached;
    let functions = declare_functions(module, program)?;
    let mut statics = desc::Statics::default();
    if options.native_slots {
        statics.native_slots = Some(
            desc::NativeSlots::define(module, program)
                .map_err(|e| ClifError::module("the native slots", e))?,
        );
    }
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut text = options.keep_clif_text.then(String::new);
    for (i, f) in program.functions.iter().enumerate() {
        let comments = lower::lower_function(
            module,
            &mut statics,
            program,
            i,
            &functions,
            &mut ctx,
            &mut fctx,
        );
        if let Some(text) = &mut text {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&print::function_text(
                &format!("fn{i} {}", f.name),
                &ctx.func,
                &comments,
            ));
        }
        module
            .define_function(functions[i], &mut ctx)
            .map_err(|e| ClifError::module(&f.name, format!("{e:?}")))?;
        module.clear_context(&mut ctx);
    }
    Ok(Lowered {
        entry: functions[program.entry().index()],
        functions,
        clif_text: text,
        native_slots: statics.native_slots,
    })
}

pub use datalove_ir::lowering::function_symbol;

fn declare_functions<M: Module>(
    module: &mut M,
    program: &Program,
) -> Result<Vec<ClifFuncId>, ClifError> {
    let ptr = module.target_config().pointer_type();
    let call_conv = module.isa().default_call_conv();
    program
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let sig = program_signature(f, call_conv, ptr);
            module
                .declare_function(&function_symbol(i, &f.name), Linkage::Local, &sig)
                .map_err(|e| ClifError::module(&f.name, e))
        })
        .collect()
}

/// The signature of the script entry as a C function: `void entry(void *rt)`.
pub fn entry_signature<M: Module>(module: &M) -> Signature {
    let mut sig = module.make_signature();
    sig.params
        .push(AbiParam::new(module.target_config().pointer_type()));
    sig
}
