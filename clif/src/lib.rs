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

/// The Cranelift settings both Cranelift backends compile with (`clif-aot` adds
/// `is_pic`; `cranelift-jit` sets it off itself).
///
/// Functions start on a 64-byte boundary: where a hot function lands modulo 64 moved
/// fib's time by 26% on an Intel Xeon (x86-64, the same code at 0x..c0 and 0x..e0), so
/// without it a change anywhere in a program could move every other function's speed.
/// The alignment makes each function's speed its own. (gcc aligns to 16.)
pub const CODEGEN_FLAGS: &[(&str, &str)] =
    &[("opt_level", "speed"), ("log2_min_function_alignment", "6")];

/// What lowering produced in the module.
pub struct Lowered {
    /// What a host calls to run the program: `extern "C" fn(rt)`, the wrapper
    /// (`ENTRY_WRAPPER_SYMBOL`) that calls the script body with `rt->depth_left`.
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
    let entry = define_entry_wrapper(module, functions[program.entry().index()])?;
    Ok(Lowered {
        entry,
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

/// Declares and defines the entry wrapper (`datalove_ir::lowering::ENTRY_WRAPPER_SYMBOL`):
/// `void entry(void *rt) { program_entry(rt, min(rt->depth_left, DEPTH_MAX)); }`, the
/// status ignored.
fn define_entry_wrapper<M: Module>(
    module: &mut M,
    entry: ClifFuncId,
) -> Result<ClifFuncId, ClifError> {
    use cranelift_codegen::ir::InstBuilder;
    let sig = entry_signature(module);
    let symbol = datalove_ir::lowering::ENTRY_WRAPPER_SYMBOL;
    let id = module
        .declare_function(symbol, Linkage::Local, &sig)
        .map_err(|e| ClifError::module(symbol, e))?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    let ptr = module.target_config().pointer_type();
    let mut fctx = FunctionBuilderContext::new();
    let mut b = cranelift_frontend::FunctionBuilder::new(&mut ctx.func, &mut fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let rt = b.block_params(block)[0];
    let depth_left = b.ins().load(
        ptr,
        lower::trusted(),
        rt,
        datalove_rti::header::RT_HEADER_DEPTH_LEFT_OFFSET as i32,
    );
    // At most `DEPTH_MAX`: the depth word's top bit is `NO_ROOM_BIT`.
    let most = b.ins().iconst(ptr, datalove_ir::lowering::DEPTH_MAX as i64);
    let depth = b.ins().umin(depth_left, most);
    let entry_ref = module.declare_func_in_func(entry, b.func);
    b.ins().call(entry_ref, &[rt, depth]);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(module.target_config());
    module
        .define_function(id, &mut ctx)
        .map_err(|e| ClifError::module(symbol, format!("{e:?}")))?;
    Ok(id)
}
