//! The C backend: a verified program is emitted as one C file (in the style of wasm2c:
//! typed helpers, one place for names and indentation, sections in one declared order),
//! which the system C compiler compiles and links with the ONE runtime staticlib and
//! the rider libraries into an executable. Its `main` is `dtlv_rt_run_main(entry, 0)`,
//! so the runtime decides the outcome (output, error line, exit code, leaks) as for
//! every backend. See `docs/cbackend.md`.
//!
//! ```text
//! admit (the verifier) → emit C (emit.rs) → cc program.c libdatalove_rt.a -ldlr_<rider>... → exe
//! ```

mod arith;
mod compile;
mod desc;
mod emit;
mod error;
mod native;
mod runtime;
mod writer;

use std::path::Path;

use datalove_ir::verify::admit;
use datalove_ir::Program;

pub use compile::{compiler, LinkInputs, C_FLAGS};
pub use desc::StaticDescs;
pub use error::CError;
pub use native::native_declaration;
pub use writer::hex_float;

/// The ABI header the emitted C includes, as the runtime ships it.
pub const RTI_HEADER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../runtime/include/datalove_rti.h"
));
pub const RTI_HEADER_NAME: &str = "datalove_rti.h";

/// The backend's own helpers (`c/dtlv_c.h`), which the emitted C includes too.
pub const HELPERS_HEADER: &str = include_str!("../c/dtlv_c.h");
pub const HELPERS_HEADER_NAME: &str = "dtlv_c.h";

/// The C of `program` (`datalove emit c`): each IR instruction as a comment above the C
/// it lowered to.
pub fn emit_c(program: &Program) -> Result<String, CError> {
    admit(program).map_err(|refused| CError::Unverified(refused.to_string()))?;
    Ok(emit::emit_program(program))
}

/// Builds the shared library `out` from `program` for `target`: its C without `main`
/// but with the library exports (`datalove_toolchain::LIBRARY_*_SYMBOL`), compiled with
/// `-shared -fPIC` and no runtime: the process that loads it gives the runtime (through
/// the table `rt` points at) and fills its native slots.
pub fn build_library(
    program: &Program,
    target: &datalove_toolchain::Target,
    out: &Path,
) -> Result<(), CError> {
    admit(program).map_err(|refused| CError::Unverified(refused.to_string()))?;
    let source = emit::emit_library(program);
    compile::compile_library(&source, target, out)
}

/// Builds the executable `out` from `program`: emit, then compile and link.
pub fn build_executable(program: &Program, inputs: &LinkInputs, out: &Path) -> Result<(), CError> {
    let source = emit_c(program)?;
    compile::compile_and_link(&source, inputs, out)
}
