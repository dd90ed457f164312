//! Wrappers that reach the runtime's entry points through the table `rt` points at.
//! `call::dtlv_rti_string_len(rt, s)` reads the table off `rt` and calls through it,
//! passing `rt` on.

use crate::header::RtHeader;
use crate::rtdt::RtHandle;
use crate::table::{RtiTable, ABI_VERSION};

/// The table behind `rt`, checked: its ABI version is this crate's and it is at least as
/// long as this crate's `RtiTable`. A table that fails either check is a runtime bug or a
/// rider loaded into the wrong host; both are refused loudly.
///
/// # Safety
/// `rt` must be a live runtime handle.
pub unsafe fn table<'a>(rt: RtHandle) -> &'a RtiTable {
    let header: &RtHeader = &*rt.as_ptr();
    let table = &*header.table;
    assert!(
        table.abi_version == ABI_VERSION && table.struct_size >= std::mem::size_of::<RtiTable>(),
        "datalove runtime table has ABI {} (size {}); this rider was built for ABI {} (size {})",
        table.abi_version,
        table.struct_size,
        ABI_VERSION,
        std::mem::size_of::<RtiTable>()
    );
    table
}
