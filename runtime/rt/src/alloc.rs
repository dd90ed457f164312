//! Counted allocation. Every heap allocation a program makes (string and list buffers,
//! data boxes, a rider's `alloc`) goes through here and is counted; what the runtime
//! keeps for itself (interned descriptors, the shadow stack, output buffers) is not.
//!
//! A zero-size allocation is no allocation: it returns a dangling pointer aligned to
//! `align`, counts nothing, and freeing it does nothing.

use std::alloc::{handle_alloc_error, Layout};
use std::cell::Cell;

use datalove_rti::table::Rt;
use datalove_rti::AllocStats;

use crate::state::Runtime;

#[derive(Default)]
pub(crate) struct Counts {
    live: Cell<usize>,
    total: Cell<usize>,
    live_bytes: Cell<usize>,
}

impl Counts {
    pub(crate) fn stats(&self) -> AllocStats {
        AllocStats {
            live: self.live.get(),
            total: self.total.get(),
            live_bytes: self.live_bytes.get(),
        }
    }
}

fn layout(size: usize, align: usize) -> Option<Layout> {
    Layout::from_size_align(size, align).ok()
}

fn dangling(align: usize) -> *mut u8 {
    std::ptr::without_provenance_mut(align)
}

impl Runtime {
    /// A counted allocation of `size` bytes at `align`. Aborts (as Rust does) when the
    /// system has no memory; `None` only for an impossible size or alignment.
    pub(crate) fn try_alloc(&self, size: usize, align: usize) -> Option<*mut u8> {
        let layout = layout(size, align)?;
        if size == 0 {
            return Some(dangling(align));
        }
        // SAFETY: `layout` has a nonzero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            handle_alloc_error(layout);
        }
        let c = &self.counts;
        c.live.set(c.live.get() + 1);
        c.total.set(c.total.get() + 1);
        c.live_bytes.set(c.live_bytes.get() + size);
        Some(ptr)
    }

    /// As [`Runtime::try_alloc`] for sizes the runtime computed itself, which are
    /// always possible.
    pub(crate) fn alloc(&self, size: usize, align: usize) -> *mut u8 {
        match self.try_alloc(size, align) {
            Some(ptr) => ptr,
            None => handle_alloc_error(Layout::new::<u8>()),
        }
    }

    /// Frees what [`Runtime::alloc`] returned.
    ///
    /// # Safety
    /// `ptr` must come from `alloc(size, align)` on this runtime and not be freed yet.
    pub(crate) unsafe fn free(&self, ptr: *mut u8, size: usize, align: usize) {
        if size == 0 || ptr.is_null() {
            return;
        }
        let Some(layout) = layout(size, align) else {
            return;
        };
        std::alloc::dealloc(ptr, layout);
        let c = &self.counts;
        c.live.set(c.live.get().saturating_sub(1));
        c.live_bytes.set(c.live_bytes.get().saturating_sub(size));
    }

    /// Grows or shrinks an allocation; one allocation before, one after.
    ///
    /// # Safety
    /// As for [`Runtime::free`] with `old_size`.
    pub(crate) unsafe fn realloc(
        &self,
        ptr: *mut u8,
        old_size: usize,
        new_size: usize,
        align: usize,
    ) -> *mut u8 {
        if old_size == 0 || ptr.is_null() {
            return self.alloc(new_size, align);
        }
        if new_size == 0 {
            self.free(ptr, old_size, align);
            return dangling(align);
        }
        let Some(old) = layout(old_size, align) else {
            handle_alloc_error(Layout::new::<u8>());
        };
        if layout(new_size, align).is_none() {
            handle_alloc_error(old);
        }
        let new = std::alloc::realloc(ptr, old, new_size);
        if new.is_null() {
            handle_alloc_error(Layout::from_size_align_unchecked(new_size, align));
        }
        let c = &self.counts;
        c.live_bytes
            .set(c.live_bytes.get().saturating_sub(old_size) + new_size);
        new
    }
}

// ---- table entries ----

/// `alloc`: null for a size or alignment `Layout` refuses (alignment not a power of two).
pub(crate) unsafe extern "C" fn alloc(rt: Rt, size: usize, align: usize) -> *mut u8 {
    Runtime::from_handle(rt)
        .try_alloc(size, align)
        .unwrap_or(std::ptr::null_mut())
}

pub(crate) unsafe extern "C" fn free(rt: Rt, ptr: *mut u8, size: usize, align: usize) {
    Runtime::from_handle(rt).free(ptr, size, align)
}

pub(crate) unsafe extern "C" fn alloc_stats(rt: Rt, out: *mut AllocStats) {
    if !out.is_null() {
        out.write(Runtime::from_handle(rt).alloc_stats());
    }
}
