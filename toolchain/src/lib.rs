//! The system C toolchain the aot and c backends build executables with, decided in ONE
//! place: the target ([`Target`]: its triple, its C compiler, how its programs are
//! started), whether the compiler works here (a probe, run once per target and process,
//! behind `Backend::unavailable_reason`), and the one link command (the program's object
//! or C, the ONE runtime staticlib and the system libraries the runtime needs), with the
//! riders placed beside the executable.

mod compiler;
mod elf;
mod link;
mod scratch;
mod target;

pub use compiler::{
    link_flags, probe, probe_target, remember_probe, unavailable_without_c_compiler, CCompiler,
};
pub use elf::{elf_machine, elf_machine_of, machine_name, EM_AARCH64, EM_X86_64};
pub use link::{
    is_rider_destination, link, link_library, place_riders, rider_destination, run_compiler,
    same_file, LinkError, LinkInputs, RiderPlacement, LIBRARY_ENTRY_SYMBOL,
    LIBRARY_MANIFEST_SYMBOL, LIBRARY_SLOTS_SYMBOL,
};
pub use scratch::{process_dir, remove_stale_dirs};
pub use target::{find_program, Target, SUPPORTED_TRIPLES};
