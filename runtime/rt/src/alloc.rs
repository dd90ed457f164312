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
//!
//! Small blocks (up to [`POOL_MAX`] bytes at an alignment of at most 8: the strings,
//! short lists and boxes a program makes by the million) come from the runtime's own
//! [`Pool`]: one free list per size class of 8 bytes, carved from 64 KiB slabs. Taking
//! or returning one is a few instructions (the system allocator's are a hundred or more
//! on this workload, `docs/benchmarks.md`), a block has no header, and a `realloc`
//! within one class does not move. The counts above are of the blocks asked for, pooled
//! or not; a freed block goes back to its list, not to the system, so the process may
//! hold up to the program's peak of small blocks until the runtime is dropped, which
//! gives the slabs back (unless a block is still live: a leak then stays readable, as a
//! leaked system block does).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};

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

/// The largest block the [`Pool`] serves; larger ones are the system's.
pub(crate) const POOL_MAX: usize = 128;

/// The size classes: 8, 16, .., [`POOL_MAX`] bytes.
const POOL_CLASSES: usize = POOL_MAX / 8;

/// The bytes of one slab the pool carves blocks from.
const SLAB_BYTES: usize = 64 * 1024;

/// The runtime's small-block allocator (see the module doc). Each free block holds the
/// address of the next in its first 8 bytes; fresh blocks are cut from the current slab
/// (`bump` up to `end`) when a class has none free.
pub(crate) struct Pool {
    free: [Cell<*mut u8>; POOL_CLASSES],
    bump: Cell<*mut u8>,
    end: Cell<*mut u8>,
    slabs: RefCell<Vec<*mut u8>>,
    /// Blocks handed out and not yet returned.
    live: Cell<usize>,
}

impl Default for Pool {
    fn default() -> Pool {
        Pool {
            free: std::array::from_fn(|_| Cell::new(std::ptr::null_mut())),
            bump: Cell::new(std::ptr::null_mut()),
            end: Cell::new(std::ptr::null_mut()),
            slabs: RefCell::new(Vec::new()),
            live: Cell::new(0),
        }
    }
}

fn slab_layout() -> Layout {
    Layout::from_size_align(SLAB_BYTES, 16).expect("a slab's layout is valid")
}

/// Whether a block of `size` bytes (nonzero) at `align` is the pool's.
#[inline]
fn pooled(size: usize, align: usize) -> bool {
    size <= POOL_MAX && align <= 8
}

/// The size class of a pooled `size` (1..=[`POOL_MAX`]).
#[inline]
fn class_of(size: usize) -> usize {
    (size - 1) >> 3
}

impl Pool {
    /// A block of class `class` (`8 * (class + 1)` bytes, 8-aligned); `None` when the
    /// system refuses a new slab.
    #[inline]
    fn take(&self, class: usize) -> Option<*mut u8> {
        let head = self.free[class].get();
        let block = if !head.is_null() {
            // SAFETY: a free block holds the next free block's address (or null) in its
            // first 8 bytes, 8-aligned, written by `give`.
            self.free[class].set(unsafe { head.cast::<*mut u8>().read() });
            head
        } else {
            self.carve(8 * (class + 1))?
        };
        self.live.set(self.live.get() + 1);
        Some(block)
    }

    /// A fresh block of `bytes` from the current slab, or from a new one.
    #[inline(never)]
    fn carve(&self, bytes: usize) -> Option<*mut u8> {
        let (bump, end) = (self.bump.get(), self.end.get());
        if (end as usize) - (bump as usize) >= bytes {
            // SAFETY: `bump + bytes` is within the current slab.
            self.bump.set(unsafe { bump.add(bytes) });
            return Some(bump);
        }
        // SAFETY: the layout has a nonzero size.
        let slab = unsafe { System.alloc(slab_layout()) };
        if slab.is_null() {
            return None;
        }
        self.slabs.borrow_mut().push(slab);
        // SAFETY: the slab has `SLAB_BYTES >= bytes` bytes.
        unsafe {
            self.bump.set(slab.add(bytes));
            self.end.set(slab.add(SLAB_BYTES));
        }
        Some(slab)
    }

    /// Returns a block of class `class` to its free list.
    ///
    /// # Safety
    /// `block` came from `take(class)` on this pool and is not in use.
    #[inline]
    unsafe fn give(&self, block: *mut u8, class: usize) {
        block.cast::<*mut u8>().write(self.free[class].get());
        self.free[class].set(block);
        self.live.set(self.live.get().saturating_sub(1));
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if self.live.get() != 0 {
            // A leaked block may still be read by whoever holds it: keep its slab.
            return;
        }
        for slab in self.slabs.get_mut().drain(..) {
            // SAFETY: every slab came from `System.alloc(slab_layout())` and no block of
            // it is live.
            unsafe { System.dealloc(slab, slab_layout()) };
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

    /// An uncounted block of `size > 0` bytes at `align` (a valid layout): the pool's
    /// or the system's; null when the system refuses.
    #[inline]
    fn raw_alloc(&self, size: usize, align: usize) -> *mut u8 {
        if pooled(size, align) {
            self.pool
                .take(class_of(size))
                .unwrap_or(std::ptr::null_mut())
        } else {
            // SAFETY: the layout is valid (the caller's) with a nonzero size.
            unsafe { std::alloc::alloc(Layout::from_size_align_unchecked(size, align)) }
        }
    }

    /// Gives back what [`Runtime::raw_alloc`] returned.
    ///
    /// # Safety
    /// `ptr` came from `raw_alloc(size, align)` on this runtime and is not in use.
    #[inline]
    unsafe fn raw_free(&self, ptr: *mut u8, size: usize, align: usize) {
        if pooled(size, align) {
            self.pool.give(ptr, class_of(size));
        } else {
            std::alloc::dealloc(ptr, Layout::from_size_align_unchecked(size, align));
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
        let ptr = self.raw_alloc(layout.size(), layout.align());
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
        if layout(size, align).is_none() {
            return;
        }
        self.raw_free(ptr, size, align);
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
        let new = match (pooled(old_size, align), pooled(new_size, align)) {
            (false, false) => std::alloc::realloc(ptr, old, new_size),
            (true, true) if class_of(old_size) == class_of(new_size) => ptr,
            _ => {
                // Into or out of the pool, or across its classes: a new block, the bytes
                // both hold copied, the old block given back.
                let new = self.raw_alloc(new_size, align);
                if !new.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, new, old_size.min(new_size));
                    self.raw_free(ptr, old_size, align);
                }
                new
            }
        };
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
