//! Calls of runtime entries. Compiled code reaches the runtime ONLY through the table
//! `rt` points at: an entry that takes `rt` through the header's `static inline
//! dtlv_rti_*` wrapper (which reads `rt->table`), one that takes none as
//! `DTLV_RTI_TABLE(rt)->entry(...)`. The header fields (`abandoning`, `stack_limit`,
//! `shadow_top`) are read in place, as every backend does.

use crate::writer::RT;

/// The runtime entries emitted C calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Init,
    Clone,
    Drop,
    Eq,
    Cmp,
    Debuglog,
    StringFromBytes,
    StringConcat,
    ListNew,
    ListLen,
    ListPush,
    ListGet,
    ListSet,
    DataMake,
    NativeFailed,
    Raise,
    RaiseArith,
    RaiseBounds,
    RaiseStackOverflow,
    ShadowPush,
    ShadowPop,
    TydescList,
    TydescOption,
    TydescTuple,
}

impl Entry {
    /// The entry's name in `RtiTable` (and, after `dtlv_rti_`, its wrapper's).
    pub fn name(self) -> &'static str {
        match self {
            Entry::Init => "init",
            Entry::Clone => "clone",
            Entry::Drop => "drop",
            Entry::Eq => "eq",
            Entry::Cmp => "cmp",
            Entry::Debuglog => "debuglog",
            Entry::StringFromBytes => "string_from_bytes",
            Entry::StringConcat => "string_concat",
            Entry::ListNew => "list_new",
            Entry::ListLen => "list_len",
            Entry::ListPush => "list_push",
            Entry::ListGet => "list_get",
            Entry::ListSet => "list_set",
            Entry::DataMake => "data_make",
            Entry::NativeFailed => "native_failed",
            Entry::Raise => "raise",
            Entry::RaiseArith => "raise_arith",
            Entry::RaiseBounds => "raise_bounds",
            Entry::RaiseStackOverflow => "raise_stack_overflow",
            Entry::ShadowPush => "shadow_push",
            Entry::ShadowPop => "shadow_pop",
            Entry::TydescList => "tydesc_list",
            Entry::TydescOption => "tydesc_option",
            Entry::TydescTuple => "tydesc_tuple",
        }
    }

    /// Whether the entry takes `rt` (and so has a wrapper).
    fn takes_rt(self) -> bool {
        !matches!(self, Entry::Init)
    }
}

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

/// Whether fewer than `bytes` are left between this function's frame address and
/// `rt->stack_limit`.
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
