//! The shadow stack: a fixed region for values whose size is known only at run time
//! (locals of a type parameter). `shadow_top` and `shadow_limit` live in the header so
//! compiled code can reserve in place; `shadow_push` is the checked way, raising
//! `shadow stack exhausted` when the region is full. The region is runtime bookkeeping,
//! not a counted program allocation.

use std::alloc::Layout;

use datalove_rti::layout::align_up;
use datalove_rti::table::Rt;
use datalove_rti::ErrorKind;

use crate::errors::shadow_detail;
use crate::state::Runtime;

/// The region's base alignment: every push with an alignment up to this is exact.
pub const SHADOW_ALIGN: usize = 16;

pub(crate) struct ShadowRegion {
    base: *mut u8,
    size: usize,
}

impl ShadowRegion {
    pub(crate) fn new(size: usize) -> ShadowRegion {
        if size == 0 {
            return ShadowRegion {
                base: std::ptr::without_provenance_mut(SHADOW_ALIGN),
                size: 0,
            };
        }
        let layout = Layout::from_size_align(size, SHADOW_ALIGN).expect("a shadow stack size");
        // SAFETY: nonzero size.
        let base = unsafe { std::alloc::alloc(layout) };
        if base.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        ShadowRegion { base, size }
    }

    /// `(first byte, one past the last)`.
    pub(crate) fn bounds(&self) -> (*mut u8, *mut u8) {
        (self.base, self.base.wrapping_add(self.size))
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }
}

impl Drop for ShadowRegion {
    fn drop(&mut self) {
        if self.size != 0 {
            // SAFETY: allocated in `new` with this layout.
            unsafe {
                std::alloc::dealloc(
                    self.base,
                    Layout::from_size_align_unchecked(self.size, SHADOW_ALIGN),
                )
            }
        }
    }
}

impl Runtime {
    /// Bytes of shadow stack in use.
    pub fn shadow_used(&self) -> usize {
        // SAFETY: the header is live.
        let top = unsafe { (*self.header_ptr()).shadow_top };
        top as usize - self.shadow.bounds().0 as usize
    }

    /// Reserves `size` bytes at `align`; null (and the error raised) when full.
    pub fn shadow_reserve(&self, size: usize, align: usize) -> *mut u8 {
        let header = self.header_ptr();
        let align = align.max(1);
        // SAFETY: the header is live.
        let (top, limit) = unsafe { ((*header).shadow_top, (*header).shadow_limit) };
        let (base, _) = self.shadow.bounds();
        let used = top as usize - base as usize;
        let start = align_up(base as usize + used, align) - base as usize;
        let fits = align.is_power_of_two()
            && start
                .checked_add(size)
                .is_some_and(|end| end <= limit as usize - base as usize);
        if !fits {
            self.raise(
                ErrorKind::ShadowStackExhausted,
                shadow_detail(self.shadow.size()),
            );
            return std::ptr::null_mut();
        }
        let at = base.wrapping_add(start);
        // SAFETY: as above.
        unsafe { (*header).shadow_top = at.wrapping_add(size) };
        at
    }

    /// Releases everything reserved since `mark`. A mark outside the region is ignored.
    pub fn shadow_release(&self, mark: *mut u8) {
        let (base, limit) = self.shadow.bounds();
        if (mark as usize) < base as usize || mark as usize > limit as usize {
            return;
        }
        // SAFETY: the header is live.
        unsafe { (*self.header_ptr()).shadow_top = mark };
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn shadow_push(rt: Rt, size: usize, align: usize) -> *mut u8 {
    Runtime::from_handle(rt).shadow_reserve(size, align)
}

pub(crate) unsafe extern "C" fn shadow_pop(rt: Rt, mark: *mut u8) {
    Runtime::from_handle(rt).shadow_release(mark)
}
