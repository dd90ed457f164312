//! The interpreter: the first backend, and the reference the others are held to.
//!
//! Verified IR is lowered once ([`lower`]) into a compact register form ([`ops`]):
//! every slot resolved to a frame offset, every descriptor resolved, every native call
//! laid out as a template of C words with its function pointer. [`exec`] dispatches it.
//! Natives are called through [`native::call_c`], one exact function type per word
//! count, and every status is read.
//!
//! ```text
//! admit (the verifier) → lower (frames, descriptors, natives) → run (dispatch loop, frame arena)
//! ```

pub mod arith;
pub mod desc;
pub mod error;
pub mod exec;
pub mod lower;
pub mod native;
pub mod ops;

use std::cell::Cell;

use datalove_ir::verify::admit;
use datalove_ir::Program;
use datalove_rti::RtHeader;

pub use error::InterpError;
pub use lower::NativeResolver;

/// The bytes of frame arena a run gets by default (reserved lazily by the system).
pub const DEFAULT_ARENA_BYTES: usize = 256 << 20;

/// A program ready to run.
pub struct Interpreter {
    lowered: lower::Lowered,
    entry: usize,
}

/// Verifies and lowers `program`, resolving each native call through `resolve`.
pub fn compile(
    program: &Program,
    resolve: &mut NativeResolver<'_>,
) -> Result<Interpreter, InterpError> {
    admit(program).map_err(|refused| InterpError::Unverified(refused.to_string()))?;
    let lowered = lower::lower_program(program, resolve)?;
    Ok(Interpreter {
        lowered,
        entry: program.entry().index(),
    })
}

impl Interpreter {
    /// Runs the program's entry on runtime `rt`. When it returns, the runtime holds the
    /// outcome: its output, and the error if one was raised.
    ///
    /// # Safety
    /// `rt` must be a live runtime whose `stack_limit` is set for the current thread, and
    /// the natives resolved at compile time must still be loaded.
    pub unsafe fn run(&self, rt: *mut RtHeader, arena_bytes: usize) {
        let mut arena = vec![0u128; arena_bytes.div_ceil(16)];
        let machine = exec::Machine {
            funcs: &self.lowered.funcs,
            desc_bases: &self.lowered.desc_bases,
            natives: &self.lowered.natives,
            rt,
            table: &*(*rt).table,
            arena: arena.as_mut_ptr() as *mut u8,
            arena_len: arena.len() * 16,
            arena_top: Cell::new(0),
        };
        machine.run_entry(self.entry);
    }
}
