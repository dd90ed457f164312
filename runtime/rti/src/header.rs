//! `RtHeader`: what any holder of an `rt` pointer may assume the runtime state starts with.

use crate::table::RtiTable;

/// The first bytes of the runtime state `rt` points at. Compiled code reads and writes
/// the fields after `table` in place; a rider reads only `table`.
#[repr(C)]
#[derive(Debug)]
pub struct RtHeader {
    /// The runtime's entry points.
    pub table: *const RtiTable,
    /// Nonzero while the program is unwinding for an error: every fallible operation is
    /// followed by a test of this byte, and the path taken when it is set runs the drops
    /// owed and returns.
    pub abandoning: u8,
    /// The lowest address the native stack may grow to; a function prologue that finds
    /// the stack pointer below it raises `stack overflow` instead of going on.
    pub stack_limit: usize,
    /// The next free byte of the shadow stack (values sized at run time).
    pub shadow_top: *mut u8,
    /// One past the shadow stack's last byte.
    pub shadow_limit: *mut u8,
    /// How many more program-function calls may start before the call-depth limit is
    /// reached. A caller tests it before every call of a program function (zero: raise
    /// `stack overflow`), stores it less one for the call and restores it after, so it
    /// counts the calls active at once the same way on every backend.
    pub depth_left: usize,
}

pub const RT_HEADER_TABLE_OFFSET: usize = 0;
pub const RT_HEADER_ABANDONING_OFFSET: usize = 8;
pub const RT_HEADER_STACK_LIMIT_OFFSET: usize = 16;
pub const RT_HEADER_SHADOW_TOP_OFFSET: usize = 24;
pub const RT_HEADER_SHADOW_LIMIT_OFFSET: usize = 32;
pub const RT_HEADER_DEPTH_LEFT_OFFSET: usize = 40;

const _: () = {
    assert!(std::mem::offset_of!(RtHeader, table) == RT_HEADER_TABLE_OFFSET);
    assert!(std::mem::offset_of!(RtHeader, abandoning) == RT_HEADER_ABANDONING_OFFSET);
    assert!(std::mem::offset_of!(RtHeader, stack_limit) == RT_HEADER_STACK_LIMIT_OFFSET);
    assert!(std::mem::offset_of!(RtHeader, shadow_top) == RT_HEADER_SHADOW_TOP_OFFSET);
    assert!(std::mem::offset_of!(RtHeader, shadow_limit) == RT_HEADER_SHADOW_LIMIT_OFFSET);
    assert!(std::mem::offset_of!(RtHeader, depth_left) == RT_HEADER_DEPTH_LEFT_OFFSET);
};
