//! Counted allocation. Every heap allocation a program makes (string and list buffers,
//! data boxes, a rider's `alloc`) goes through here and is counted; what the runtime
//! keeps for itself (interned descriptors, the shadow stack, output buffers) is not.
//!
//! A zero-size allocation is no allocation: it returns a dangling pointer aligned to
//! `align`, counts nothing, and freeing it does nothing.
//!
//! Out of memory (the system refuses an allocation, or the program's live bytes would
//! pass [`RuntimeOptions::memory_limit`](crate::RuntimeOptions)) ends the program at
//! once, on every backend alike: what it printed is flushed, then the one line
//! `error: out of memory: cannot allocate N bytes (M bytes live)` goes to stderr and the
//! process exits with 101. Nothing after it runs, so no drop runs either: an allocation
//! that fails deep inside a runtime entry has no error path to unwind through.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use datalove_rti::table::Rt;
use datalove_rti::AllocStats;

use crate::state::Runtime;

/// The process's allocator wherever the runtime is linked with its default feature
/// `exit-on-out-of-memory` (the `datalove` CLI, which runs the interpreter and the JIT
/// in its own process, and every aot and c executable through the runtime staticlib):
/// the system's, except that an allocation it refuses ends the program with the
/// runtime's one `out of memory` line and exit 101 (`crate::crash::allocation_refused`)
/// instead of Rust's `memory allocation of N bytes failed` and an abort. So every
/// allocation, the runtime's own small ones included, fails the same way on every
/// backend. An embedder with a global allocator of its own turns the feature off
/// (`default-features = false` on `datalove`); its process then fails as Rust does.
pub struct ExitOnOutOfMemory;

// SAFETY: every call is the system allocator's, with the same layout; a null it returns
// never reaches the caller.
unsafe impl GlobalAlloc for ExitOnOutOfMemory {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if ptr.is_null() {
            crate::crash::allocation_refused(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        if ptr.is_null() {
            crate::crash::allocation_refused(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = System.realloc(ptr, layout, new_size);
        if moved.is_null() {
            crate::crash::allocation_refused(new_size);
        }
        moved
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[cfg(feature = "exit-on-out-of-memory")]
#[global_allocator]
static EXIT_ON_OUT_OF_MEMORY: ExitOnOutOfMemory = ExitOnOutOfMemory;

#[derive(Default)]
pub(crate) struct Counts {
    live: Cell<usize>,
    total: Cell<usize>,
    live_bytes: Cell<usize>,
}

impl Counts {
    pub(crate) fn live_bytes(&self) -> usize {
        self.live_bytes.get()
    }

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
    /// Ends the program for an allocation of `size` bytes that cannot be made (see the
    /// module doc).
    pub fn out_of_memory(&self, size: usize) -> ! {
        let detail = format!(
            "cannot allocate {size} bytes ({} bytes live)",
            self.counts.live_bytes.get()
        );
        self.die(datalove_rti::ErrorKind::OutOfMemory, &detail)
    }

    /// Whether `more` bytes fit under the memory limit.
    fn within_limit(&self, more: usize) -> bool {
        match self.options.memory_limit {
            Some(limit) => self.counts.live_bytes.get().saturating_add(more) <= limit,
            None => true,
        }
    }

    /// A counted allocation of `size` bytes at `align`; out of memory ends the program.
    /// `None` only for an impossible size or alignment.
    pub(crate) fn try_alloc(&self, size: usize, align: usize) -> Option<*mut u8> {
        if size == 0 {
            return layout(1, align).map(|_| dangling(align));
        }
        let Some(layout) = layout(size, align) else {
            // Only a size past `isize::MAX` with a valid alignment gets here: no system
            // could give it.
            if align.is_power_of_two() {
                self.out_of_memory(size);
            }
            return None;
        };
        if !self.within_limit(size) {
            self.out_of_memory(size);
        }
        // SAFETY: `layout` has a nonzero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            self.out_of_memory(size);
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
            None => panic!("the runtime computed an impossible layout: {size} bytes at {align}"),
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
        let old = layout(old_size, align).expect("a live allocation has a valid layout");
        if layout(new_size, align).is_none()
            || (new_size > old_size && !self.within_limit(new_size - old_size))
        {
            self.out_of_memory(new_size);
        }
        let new = std::alloc::realloc(ptr, old, new_size);
        if new.is_null() {
            self.out_of_memory(new_size);
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
