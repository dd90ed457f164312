//! The Cranelift AOT backend: the program is lowered by `datalove-clif` into an
//! `ObjectModule` (position independent), with a generated `main` that runs the script
//! entry through the runtime's C API, and the system C compiler links the object, the
//! ONE runtime staticlib into an executable, with the riders placed beside it.
//!
//! ```text
//! lower (datalove-clif) → main → emit .o → cc .o libdatalove_rt.a → exe (+ riders beside)
//! ```
//!
//! The generated `main` is `return dtlv_rt_run_linked(entry, 0, manifest, slots);`: the
//! runtime loads each rider from the executable's directory, checks its ABI version and
//! fills the native slots the code calls through, then creates the runtime on a thread
//! with the program stack every backend uses, runs the entry, and `dtlv_rt_finish`
//! prints the error and leak lines (leaks checked with `DATALOVE_CHECK_LEAKS=1`) and
//! gives the exit code.

use std::path::Path;

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, Type, UserFuncName, Value};
use cranelift_codegen::isa::{self, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{default_libcall_names, Linkage, Module};
use cranelift_object::{ObjectBuilder, ObjectModule};
use datalove_clif::{lower_program, ClifError, LowerOptions, NativeSlots};
use datalove_ir::Program;

/// The C API function the generated `main` calls.
pub const RUN_MAIN_SYMBOL: &str = "dtlv_rt_run_linked";

#[derive(Debug, thiserror::Error)]
pub enum AotError {
    #[error("{0}")]
    Lower(ClifError),
    /// The target is unknown or Cranelift could not set it up.
    #[error("target: {0}")]
    Target(String),
    /// Cranelift could not write the object.
    #[error("writing the object: {0}")]
    Object(String),
    /// Writing a file or starting the C compiler failed.
    #[error("{0}")]
    Io(String),
    /// The C compiler refused to link (its stderr follows).
    #[error("linking failed: {0}")]
    Link(String),
}

/// The ISA for `triple` (`None`: this machine), position independent.
pub fn target_isa(triple: Option<&str>) -> Result<OwnedTargetIsa, AotError> {
    let mut flags = settings::builder();
    for &(name, value) in [("is_pic", "true")]
        .iter()
        .chain(datalove_clif::CODEGEN_FLAGS)
    {
        flags
            .set(name, value)
            .map_err(|e| AotError::Target(e.to_string()))?;
    }
    let builder = match triple {
        None => cranelift_native::builder().map_err(|e| AotError::Target(e.to_string()))?,
        Some(t) => isa::lookup_by_name(t).map_err(|e| AotError::Target(format!("{t}: {e}")))?,
    };
    builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| AotError::Target(e.to_string()))
}

fn new_module(triple: Option<&str>) -> Result<ObjectModule, AotError> {
    let builder = ObjectBuilder::new(
        target_isa(triple)?,
        "datalove_program",
        default_libcall_names(),
    )
    .map_err(|e| AotError::Object(e.to_string()))?;
    Ok(ObjectModule::new(builder))
}

/// How an executable's code is lowered: natives through the slots the runtime fills.
const EXECUTABLE: LowerOptions = LowerOptions {
    keep_clif_text: false,
    native_slots: true,
};

/// The object file of `program` with its `main`, for `triple` (`None`: this machine).
pub fn emit_object(program: &Program, triple: Option<&str>) -> Result<Vec<u8>, AotError> {
    emit_linked_object(program, triple, define_main)
}

/// The object of `program`, lowered for linking (natives through slots), with what
/// `define` adds from the entry and the slots: an executable's `main` or a library's
/// exports.
fn emit_linked_object(
    program: &Program,
    triple: Option<&str>,
    define: impl FnOnce(
        &mut ObjectModule,
        cranelift_module::FuncId,
        &NativeSlots,
    ) -> Result<(), AotError>,
) -> Result<Vec<u8>, AotError> {
    let mut module = new_module(triple)?;
    let lowered = lower_program(&mut module, program, EXECUTABLE).map_err(AotError::Lower)?;
    let slots = lowered
        .native_slots
        .as_ref()
        .expect("linked code calls its natives through slots");
    define(&mut module, lowered.entry, slots)?;
    module
        .finish()
        .emit()
        .map_err(|e| AotError::Object(e.to_string()))
}

/// The module's signature taking `params` and returning `returns`.
fn signature(module: &ObjectModule, params: &[Type], returns: &[Type]) -> Signature {
    let mut sig = module.make_signature();
    sig.params
        .extend(params.iter().map(|&ty| AbiParam::new(ty)));
    sig.returns
        .extend(returns.iter().map(|&ty| AbiParam::new(ty)));
    sig
}

/// Declares `name` as an export of signature `sig` and defines it as one block whose
/// instructions `body` writes, given the function's parameters.
fn define_export(
    module: &mut ObjectModule,
    name: &str,
    sig: Signature,
    body: impl FnOnce(&mut ObjectModule, &mut FunctionBuilder<'_>, &[Value]),
) -> Result<(), AotError> {
    let id = module
        .declare_function(name, Linkage::Export, &sig)
        .map_err(|e| AotError::Object(e.to_string()))?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let params = b.block_params(block).to_vec();
        body(module, &mut b, &params);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    module
        .define_function(id, &mut ctx)
        .map_err(|e| AotError::Object(format!("{name}: {e:?}")))
}

/// The CLIF of `program` with the IR it came from as comments (`datalove emit clif`), as
/// the executable for `triple` (`None`: this machine) has it.
pub fn emit_clif(program: &Program, triple: Option<&str>) -> Result<String, AotError> {
    let mut module = new_module(triple)?;
    let lowered = lower_program(
        &mut module,
        program,
        LowerOptions {
            keep_clif_text: true,
            ..EXECUTABLE
        },
    )
    .map_err(AotError::Lower)?;
    Ok(lowered.clif_text.unwrap_or_default())
}

/// `int main(int argc, char **argv) { return dtlv_rt_run_linked(entry, 0, manifest, slots); }`
fn define_main(
    module: &mut ObjectModule,
    entry: cranelift_module::FuncId,
    slots: &NativeSlots,
) -> Result<(), AotError> {
    let ptr = module.target_config().pointer_type();
    let run_sig = signature(module, &[ptr; 4], &[types::I32]);
    let run_main = module
        .declare_function(RUN_MAIN_SYMBOL, Linkage::Import, &run_sig)
        .map_err(|e| AotError::Object(e.to_string()))?;
    let main_sig = signature(module, &[types::I32, ptr], &[types::I32]);
    define_export(module, "main", main_sig, |module, b, _| {
        let entry_ref = module.declare_func_in_func(entry, b.func);
        let run_ref = module.declare_func_in_func(run_main, b.func);
        let entry_addr = b.ins().func_addr(ptr, entry_ref);
        let default_stack = b.ins().iconst(ptr, 0);
        let manifest = module.declare_data_in_func(slots.manifest, b.func);
        let manifest = b.ins().symbol_value(ptr, manifest);
        let slot_array = module.declare_data_in_func(slots.slots, b.func);
        let slot_array = b.ins().symbol_value(ptr, slot_array);
        let call = b
            .ins()
            .call(run_ref, &[entry_addr, default_stack, manifest, slot_array]);
        let code = b.inst_results(call)[0];
        b.ins().return_(&[code]);
    })
}

/// The object of `program` as a shared library for `triple` (`None`: this machine): no
/// `main`, but the exports `datalove_toolchain::LIBRARY_*_SYMBOL` name (the entry, the
/// rider manifest, the native slots), for a host that loads it in-process.
pub fn emit_library_object(program: &Program, triple: Option<&str>) -> Result<Vec<u8>, AotError> {
    emit_linked_object(program, triple, define_library_exports)
}

/// `void entry(void *rt) { program_entry(rt); }`, `const uint8_t *manifest(void)` and
/// `void **slots(void)`, exported.
fn define_library_exports(
    module: &mut ObjectModule,
    entry: cranelift_module::FuncId,
    slots: &NativeSlots,
) -> Result<(), AotError> {
    use datalove_toolchain::{LIBRARY_ENTRY_SYMBOL, LIBRARY_MANIFEST_SYMBOL, LIBRARY_SLOTS_SYMBOL};
    let ptr = module.target_config().pointer_type();
    let exports = [
        (LIBRARY_ENTRY_SYMBOL, 1, 0),
        (LIBRARY_MANIFEST_SYMBOL, 0, 1),
        (LIBRARY_SLOTS_SYMBOL, 0, 1),
    ];
    for (k, (name, params, returns)) in exports.into_iter().enumerate() {
        let sig = signature(module, &vec![ptr; params], &vec![ptr; returns]);
        define_export(module, name, sig, |module, b, params| match k {
            0 => {
                let rt = params[0];
                let entry_ref = module.declare_func_in_func(entry, b.func);
                b.ins().call(entry_ref, &[rt]);
                b.ins().return_(&[]);
            }
            _ => {
                let data = if k == 1 { slots.manifest } else { slots.slots };
                let data = module.declare_data_in_func(data, b.func);
                let address = b.ins().symbol_value(ptr, data);
                b.ins().return_(&[address]);
            }
        })?;
    }
    Ok(())
}

/// Builds the shared library `out` from `program` for `target` (see
/// [`emit_library_object`], `datalove_toolchain::link_library`): it carries no runtime
/// and no rider; the process that loads it gives both.
pub fn build_library(
    program: &Program,
    target: &datalove_toolchain::Target,
    out: &Path,
) -> Result<(), AotError> {
    let triple = (!target.is_current()).then(|| target.triple());
    let object = emit_library_object(program, triple)?;
    let object_path = std::path::PathBuf::from(format!("{}.o", out.display()));
    std::fs::write(&object_path, &object)
        .map_err(|e| AotError::Io(format!("cannot write {}: {e}", object_path.display())))?;
    let result =
        datalove_toolchain::link_library(&[object_path.as_os_str().to_owned()], target, out)
            .map_err(link_error);
    let _ = std::fs::remove_file(&object_path);
    result
}

fn link_error(e: datalove_toolchain::LinkError) -> AotError {
    match e {
        datalove_toolchain::LinkError::Io(m) => AotError::Io(m),
        datalove_toolchain::LinkError::Failed { stderr, .. } => AotError::Link(stderr),
    }
}

pub use datalove_toolchain::LinkInputs;

/// Builds the executable `out` from `program` for `inputs.target`: the object, then the
/// target's C compiler links it, and the riders are placed beside it.
pub fn build_executable(
    program: &Program,
    inputs: &LinkInputs,
    out: &Path,
) -> Result<(), AotError> {
    // The current target: this machine's ISA with the CPU features it has.
    let triple = (!inputs.target.is_current()).then(|| inputs.target.triple());
    let object = emit_object(program, triple)?;
    let object_path = std::path::PathBuf::from(format!("{}.o", out.display()));
    std::fs::write(&object_path, &object)
        .map_err(|e| AotError::Io(format!("cannot write {}: {e}", object_path.display())))?;
    let result = link(&object_path, inputs, out);
    let _ = std::fs::remove_file(&object_path);
    result
}

/// Links `object` with the runtime into `out` with the target's C compiler and places
/// the riders beside it (the one link command, `datalove_toolchain::link`).
pub fn link(object: &Path, inputs: &LinkInputs, out: &Path) -> Result<(), AotError> {
    datalove_toolchain::link(&[object.as_os_str().to_owned()], inputs, out).map_err(link_error)
}
