//! The interpreter's side of the runtime: the header fields it reads in place and the
//! runtime entries it reaches through the table on behalf of the operations (the
//! operations themselves call `self.table.<entry>` directly, as compiled code does).

use std::ffi::c_void;
use std::ptr;

use crate::desc::DescRef;
use crate::exec::{desc_of, Machine};
use crate::ops::Opnd;

impl Machine<'_> {
    #[inline(always)]
    pub(crate) fn abandoning(&self) -> bool {
        // SAFETY: `rt` is the live runtime this machine was made for.
        unsafe { ptr::read_volatile(&(*self.rt).abandoning) != 0 }
    }

    /// Drops values whose descriptor does not say copy (the owned `in` parameters of a
    /// function that could not start).
    pub(crate) unsafe fn drop_owned(&self, frame: *mut u8, base: u32, values: &[(Opnd, DescRef)]) {
        for (o, d) in values {
            let desc = desc_of(frame, base, *d);
            if !(*desc).is_copy() {
                (self.table.drop)(self.rt, o.addr(frame) as *mut c_void, desc);
            }
        }
    }
}
