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

mod arith;
mod desc;
mod error;
mod exec;
mod fast;
mod frames;
mod lower;
mod native;
mod ops;
mod runtime;

use datalove_ir::verify::admit;
use datalove_ir::Program;
use datalove_rti::RtHeader;

pub use error::InterpError;
pub use lower::NativeResolver;
pub use native::{c_words, call_c, chosen_arity};

/// The most bytes of frame memory a run may use by default: 1 GiB, as much as the
/// compiled backends' native stack (`datalove_rt::PROGRAM_STACK_SIZE`; the facade's
/// tests hold the two equal), so that huge frames run out at a similar depth
/// everywhere. It is allocated as it is needed ([`frames`]).
pub const DEFAULT_ARENA_BYTES: usize = 1 << 30;

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
        let machine = exec::Machine {
            funcs: &self.lowered.funcs,
            desc_bases: &self.lowered.desc_bases,
            natives: &self.lowered.natives,
            rt,
            table: &*(*rt).table,
            frames: frames::Frames::new(arena_bytes),
        };
        machine.run_entry(self.entry);
    }

    /// The operations each function was lowered to, one a line, numbered as jumps and
    /// abandon targets name them: what `datalove emit interp` prints. `program` is the
    /// one this interpreter was compiled from (for the functions' names).
    pub fn listing(&self, program: &Program) -> String {
        use std::fmt::Write;
        let mut text = String::new();
        for (f, func) in self.lowered.funcs.iter().zip(&program.functions) {
            let _ = writeln!(
                text,
                "function {} (frame {} bytes)",
                func.name, f.frame_size
            );
            for (pc, op) in f.ops.iter().enumerate() {
                let _ = writeln!(text, "{pc:5}  {op:?}");
            }
        }
        text
    }
}
