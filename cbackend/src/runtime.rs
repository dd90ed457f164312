//! Calls of runtime entries. Compiled code reaches the runtime ONLY through the table
//! `rt` points at: an entry that takes `rt` through the header's `static inline
//! dtlv_rti_*` wrapper (which reads `rt->table`), one that takes none as
//! `DTLV_RTI_TABLE(rt)->entry(...)`. The header fields (`abandoning`, `stack_limit`,
//! `shadow_top`) are read in place, as every backend does.

use crate::writer::RT;

pub use datalove_rti::Entry;

/// The C expression calling `entry` with `args` (after `rt`, for an entry that takes it).
pub fn call(entry: Entry, args: &[&str]) -> String {
    if entry.takes_rt() {
        let mut all = vec![RT];
        all.extend_from_slice(args);
        format!("dtlv_rti_{}({})", entry.name(), all.join(", "))
    } else {
        format!(
            "DTLV_RTI_TABLE({RT})->{}({})",
            entry.name(),
            args.join(", ")
        )
    }
}

/// `rt->abandoning != 0`.
pub fn abandoning() -> String {
    format!("DTLV_C_ABANDONING({RT})")
}

/// Whether fewer than `bytes` are left between this function's stack pointer (read
/// anywhere in its own frame: `DTLV_C_STACK_POINTER` in dtlv_c.h) and `rt->stack_limit`.
pub fn no_stack_room(bytes: usize) -> String {
    format!("DTLV_C_NO_STACK_ROOM({RT}, {bytes}u)")
}

/// `rt->depth_left`, as a place.
pub fn depth_left() -> String {
    format!("DTLV_C_HEADER({RT})->depth_left")
}

/// `rt->shadow_top`.
pub fn shadow_top() -> String {
    format!("DTLV_C_HEADER({RT})->shadow_top")
}
