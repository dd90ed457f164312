//! The Cranelift JIT backend: the program is lowered by `datalove-clif` into a
//! `JITModule` and run in-process. Natives are resolved from the loaded rider libraries
//! through the JIT's symbol lookup function; the JIT's memory is freed when the
//! [`JitProgram`] is dropped, which must happen before the rider libraries are unloaded.
//!
//! ```text
//! resolve natives → lower (datalove-clif) → finalize → run entry(rt)
//! ```

use std::collections::HashMap;

use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::default_libcall_names;
use datalove_clif::{lower_program, ClifError, LowerOptions};
use datalove_ir::Program;
use datalove_rti::RtHeader;

pub use datalove_ir::native::NativeResolver;

/// The address space reserved for one program's code and data (far more than any
/// program needs: a 10x benchmark program takes under a MiB).
pub const JIT_ARENA_BYTES: usize = 128 << 20;

/// Why the JIT could not take a program.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("{0}")]
    Lower(ClifError),
    /// A native's implementation could not be found (the message names rider and symbol).
    #[error("{0}")]
    Native(String),
    /// Cranelift could not set up or finish the module.
    #[error("the JIT failed: {0}")]
    Module(String),
}

/// A program compiled into executable memory.
pub struct JitProgram {
    module: Option<JITModule>,
    entry: unsafe extern "C" fn(*mut RtHeader),
}

/// Shims for the C library functions lowered code may call, so that the JIT does not
/// depend on what the host process happens to have loaded: each symbol with its address.
fn libm_shims() -> [(&'static str, usize); 8] {
    macro_rules! shim {
        ($name:literal, |$($a:ident: $t:ty),+| -> $r:ty $body:block) => {{
            extern "C" fn shim($($a: $t),+) -> $r $body
            ($name, shim as *const () as usize)
        }};
    }
    [
        shim!("fmod", |a: f64, b: f64| -> f64 { a % b }),
        shim!("fmodf", |a: f32, b: f32| -> f32 { a % b }),
        shim!("trunc", |a: f64| -> f64 { a.trunc() }),
        shim!("truncf", |a: f32| -> f32 { a.trunc() }),
        // `floor`/`ceil` on a machine without an instruction for them (x86-64 before
        // SSE4.1).
        shim!("floor", |a: f64| -> f64 { a.floor() }),
        shim!("floorf", |a: f32| -> f32 { a.floor() }),
        shim!("ceil", |a: f64| -> f64 { a.ceil() }),
        shim!("ceilf", |a: f32| -> f32 { a.ceil() }),
    ]
}

/// Compiles `program`, resolving each native through `resolve`.
pub fn compile(
    program: &Program,
    resolve: &mut NativeResolver<'_>,
) -> Result<JitProgram, JitError> {
    // Admitted first (as `lower_program` does again), so that nothing of IR the verifier
    // refuses is resolved or compiled.
    datalove_ir::verify::admit(program)
        .map_err(|refused| JitError::Lower(ClifError::Unverified(refused.to_string())))?;
    // Every native is resolved up front, so a missing one is a clear error, not a panic
    // inside the JIT's linker.
    let mut symbols: HashMap<String, usize> = HashMap::new();
    for native in program.native_calls() {
        if !symbols.contains_key(native.symbol()) {
            let address = resolve(native).map_err(JitError::Native)?;
            symbols.insert(native.symbol().to_string(), address as usize);
        }
    }
    for (name, address) in libm_shims() {
        symbols.insert(name.to_string(), address);
    }
    let mut builder = JITBuilder::with_flags(datalove_clif::CODEGEN_FLAGS, default_libcall_names())
        .map_err(|e| JitError::Module(e.to_string()))?;
    builder.symbol_lookup_fn(Box::new(move |name| {
        symbols.get(name).map(|a| *a as *const u8)
    }));
    // Code and data in one reserved region: a program's functions call each other and
    // reach its descriptors PC-relatively (aarch64 `bl`: ±128 MiB, `adrp`: ±4 GiB), and
    // separate mappings can land farther apart than that once the address space is
    // fragmented (1 GiB program stacks, many modules in one process). Only reserved, not
    // committed; where even the reservation is refused (`ulimit -v`), the JIT maps
    // pages as it goes.
    if let Ok(arena) = ArenaMemoryProvider::new_with_size(JIT_ARENA_BYTES) {
        builder.memory_provider(Box::new(arena));
    }
    let mut module = JITModule::new(builder);
    let lowered = match lower_program(&mut module, program, LowerOptions::default()) {
        Ok(l) => l,
        Err(e) => {
            // SAFETY: nothing of the module has run.
            unsafe { module.free_memory() };
            return Err(JitError::Lower(e));
        }
    };
    if let Err(e) = module.finalize_definitions() {
        // SAFETY: nothing of the module has run.
        unsafe { module.free_memory() };
        return Err(JitError::Module(e.to_string()));
    }
    let code = module.get_finalized_function(lowered.entry);
    // SAFETY: the entry is lowered with the signature `extern "C" fn(rt)`.
    let entry =
        unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut RtHeader)>(code) };
    Ok(JitProgram {
        module: Some(module),
        entry,
    })
}

impl JitProgram {
    /// Runs the program's entry on runtime `rt`. When it returns, the runtime holds the
    /// outcome.
    ///
    /// # Safety
    /// `rt` must be a live runtime whose `stack_limit` is set for the current thread, and
    /// the natives resolved at compile time must still be loaded.
    pub unsafe fn run(&self, rt: *mut RtHeader) {
        (self.entry)(rt)
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the program is not running (`run` borrows `self`), and no pointer
            // into the module's memory outlives it.
            unsafe { module.free_memory() };
        }
    }
}
