//! The interpreter's frame memory: a stack of chunks that grows on demand, up to a
//! limit. Frames are taken and given back in LIFO order; a frame never spans two
//! chunks. Nothing is reserved up front, so a small program touches only one small
//! chunk, and an address-space limit (`ulimit -v`) does not stop it from starting.
//!
//! Running out (the limit reached, or the system refusing a chunk) is the caller's
//! `stack overflow` — the interpreter's frames are its stack, as the native stack is
//! the compiled backends'.

use std::alloc::Layout;
use std::cell::UnsafeCell;

/// The size of the first chunk; each later one doubles, up to [`MAX_CHUNK`].
const FIRST_CHUNK: usize = 64 * 1024;
const MAX_CHUNK: usize = 64 << 20;
const ALIGN: usize = 16;

/// Where the stack was before a frame was taken (give it back with [`Frames::pop`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    chunk: usize,
    top: usize,
}

struct Chunk {
    base: *mut u8,
    len: usize,
}

struct State {
    chunks: Vec<Chunk>,
    /// The chunk frames are taken from, and the first free byte in it.
    current: usize,
    top: usize,
    /// The current chunk's base and length (null and 0 before the first), for the
    /// common case of a frame that fits in it.
    base: *mut u8,
    len: usize,
    /// Bytes of all chunks allocated.
    allocated: usize,
}

/// The frame stack of one run. Its state is only touched by `push` and `pop`, which
/// call nothing that could reach it again, so a plain cell suffices.
pub struct Frames {
    state: UnsafeCell<State>,
    limit: usize,
}

impl Frames {
    /// An empty frame stack that will hold at most `limit` bytes of chunks.
    pub fn new(limit: usize) -> Frames {
        Frames {
            state: UnsafeCell::new(State {
                chunks: Vec::new(),
                current: 0,
                top: 0,
                base: std::ptr::null_mut(),
                len: 0,
                allocated: 0,
            }),
            limit,
        }
    }

    /// A zeroed-on-first-use, 16-aligned frame of `size` bytes (a multiple of 16, as
    /// every frame's size is) and the mark to give it back with; `None` when the limit
    /// is reached or the system has no memory.
    #[inline(always)]
    pub fn push(&self, size: usize) -> Option<(*mut u8, Mark)> {
        debug_assert!(size.is_multiple_of(ALIGN), "a frame's size is 16-aligned");
        // SAFETY: see `Frames`: no other reference to the state is live.
        let s = unsafe { &mut *self.state.get() };
        let mark = Mark {
            chunk: s.current,
            top: s.top,
        };
        // Every size is a multiple of 16, so the top stays 16-aligned.
        let start = s.top;
        if start + size <= s.len {
            s.top = start + size;
            return Some((s.base.wrapping_add(start), mark));
        }
        self.push_chunk(size, mark)
    }

    /// `push` when the frame does not fit in the current chunk: the next chunk.
    #[cold]
    fn push_chunk(&self, size: usize, mark: Mark) -> Option<(*mut u8, Mark)> {
        // SAFETY: as in `push`.
        let s = unsafe { &mut *self.state.get() };
        // The next chunk, reused if big enough, or a new one.
        let next = if s.chunks.is_empty() {
            0
        } else {
            s.current + 1
        };
        while s.chunks.len() > next && s.chunks[next].len < size {
            // Too small for this frame: freed, so a bigger one takes its place.
            let chunk = s.chunks.pop().expect("a chunk");
            s.allocated -= chunk.len;
            // SAFETY: allocated below with this length and alignment.
            unsafe { std::alloc::dealloc(chunk.base, layout(chunk.len)) };
        }
        if s.chunks.len() == next {
            let wanted = s
                .chunks
                .last()
                .map_or(FIRST_CHUNK, |c| (c.len * 2).min(MAX_CHUNK))
                .max(size.next_multiple_of(ALIGN));
            if s.allocated.saturating_add(wanted) > self.limit {
                return None;
            }
            // SAFETY: a nonzero size (at least FIRST_CHUNK).
            let base = unsafe { std::alloc::alloc_zeroed(layout(wanted)) };
            if base.is_null() {
                return None;
            }
            s.chunks.push(Chunk { base, len: wanted });
            s.allocated += wanted;
        }
        s.current = next;
        s.top = size;
        s.base = s.chunks[next].base;
        s.len = s.chunks[next].len;
        Some((s.base, mark))
    }

    /// Gives back every frame taken since `mark`.
    #[inline(always)]
    pub fn pop(&self, mark: Mark) {
        // SAFETY: as in `push`.
        let s = unsafe { &mut *self.state.get() };
        if s.current != mark.chunk {
            s.base = s.chunks[mark.chunk].base;
            s.len = s.chunks[mark.chunk].len;
        }
        s.current = mark.chunk;
        s.top = mark.top;
    }
}

fn layout(len: usize) -> Layout {
    Layout::from_size_align(len, ALIGN).expect("a chunk's layout")
}

impl Drop for Frames {
    fn drop(&mut self) {
        for chunk in self.state.get_mut().chunks.drain(..) {
            // SAFETY: each chunk was allocated with this length and alignment.
            unsafe { std::alloc::dealloc(chunk.base, layout(chunk.len)) };
        }
    }
}
