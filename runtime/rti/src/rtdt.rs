//! The value types a native names in its Rust signature. Their layouts are the ones
//! `layout.rs` computes; their fields are private so that what a native holds keeps the
//! runtime's invariants (a `String`'s bytes are UTF-8).

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::header::RtHeader;

/// The runtime handle a native receives first: a pointer at runtime state that starts
/// with [`RtHeader`]. Never null.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct RtHandle(NonNull<RtHeader>);

impl RtHandle {
    /// # Safety
    /// `ptr` must point at live runtime state that begins with an `RtHeader`.
    pub unsafe fn from_raw(ptr: *mut RtHeader) -> RtHandle {
        RtHandle(NonNull::new(ptr).expect("a null runtime handle"))
    }

    pub fn as_ptr(self) -> *mut RtHeader {
        self.0.as_ptr()
    }
}

/// Checks, at compile time, that each named field of a value type lies at the offset
/// `layout.rs` gives compiled code for it: `parts_at!(List: ptr = LIST_PTR_OFFSET, ...)`.
macro_rules! parts_at {
    ($ty:ident: $($field:ident = $offset:ident),+ $(,)?) => {
        const _: () = {
            $(assert!(std::mem::offset_of!($ty, $field) == crate::layout::$offset);)+
        };
    };
}

/// A string: `{ ptr, len, cap }` over UTF-8 bytes owned by the runtime. Length
/// delimited: an interior NUL is an ordinary character.
#[repr(C)]
#[derive(Debug)]
pub struct String {
    ptr: *mut u8,
    len: usize,
    cap: usize,
}

// A string's parts stand where a list's do: compiled code reads a string's length with
// the same load as a list's (`ir` `ListLen`).
parts_at!(String: ptr = LIST_PTR_OFFSET, len = LIST_LEN_OFFSET, cap = LIST_CAP_OFFSET);

/// What a `{ ptr, len, cap }` head answers alike for a string and a list: the empty
/// one, its length and its raw parts.
macro_rules! buffer_head {
    ($name:ident) => {
        impl $name {
            /// The empty one; owns nothing.
            pub const EMPTY: $name = $name {
                ptr: std::ptr::null_mut(),
                len: 0,
                cap: 0,
            };

            pub fn len(&self) -> usize {
                self.len
            }

            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            pub fn raw_parts(&self) -> (*mut u8, usize, usize) {
                (self.ptr, self.len, self.cap)
            }
        }
    };
}

buffer_head!(String);
buffer_head!(List);

impl String {
    pub fn as_bytes(&self) -> &[u8] {
        if self.len == 0 {
            &[]
        } else {
            // SAFETY: a String is only ever built by the runtime over `len` live bytes.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: the runtime refuses bytes that are not UTF-8 wherever they come in, and
        // `StringMut` keeps a changed string UTF-8.
        unsafe { std::str::from_utf8_unchecked(self.as_bytes()) }
    }

    /// The raw parts, for the runtime that owns the buffer.
    pub fn into_raw_parts(self) -> (*mut u8, usize, usize) {
        (self.ptr, self.len, self.cap)
    }

    /// # Safety
    /// `ptr` must be a buffer of `cap` bytes allocated by the runtime whose first `len`
    /// bytes are UTF-8 (or null with `len == cap == 0`).
    pub unsafe fn from_raw_parts(ptr: *mut u8, len: usize, cap: usize) -> String {
        String { ptr, len, cap }
    }
}

/// A map: a handle the runtime owns (null for a map that has never held an entry). Its
/// entries are kept in key order, by the runtime's total order over values; read and
/// change one only through the runtime's `map_*` entries. Key and value types travel in
/// the descriptor beside it (`TyDesc::map_parts`).
#[repr(C)]
#[derive(Debug)]
pub struct Map {
    handle: *mut c_void,
}

impl Map {
    /// # Safety
    /// `handle` must be null or a map handle made by the runtime.
    pub unsafe fn from_raw(handle: *mut c_void) -> Map {
        Map { handle }
    }

    pub fn raw(&self) -> *mut c_void {
        self.handle
    }

    /// # Safety
    /// Only the runtime changes a map's handle.
    pub unsafe fn set_raw(&mut self, handle: *mut c_void) {
        self.handle = handle;
    }
}

/// A list: `{ ptr, len, cap }` over elements laid out at `i * size(T)`. The element type
/// travels in the descriptor beside it.
#[repr(C)]
#[derive(Debug)]
pub struct List {
    ptr: *mut u8,
    len: usize,
    cap: usize,
}

// The one description of a list's parts (`layout.rs`) is this struct's.
parts_at!(List: ptr = LIST_PTR_OFFSET, len = LIST_LEN_OFFSET, cap = LIST_CAP_OFFSET);

impl List {
    /// # Safety
    /// As for [`String::from_raw_parts`], with `cap` counted in elements.
    pub unsafe fn from_raw_parts(ptr: *mut u8, len: usize, cap: usize) -> List {
        List { ptr, len, cap }
    }

    /// # Safety
    /// Only the runtime changes a list's parts.
    pub unsafe fn set_raw_parts(&mut self, ptr: *mut u8, len: usize, cap: usize) {
        self.ptr = ptr;
        self.len = len;
        self.cap = cap;
    }
}

/// A `data`: a value of any type with its descriptor. A scalar is packed into `word`
/// and `desc` is the runtime's constant for its kind; anything else is boxed on the
/// heap and `word` is the box's address.
#[repr(C)]
#[derive(Debug)]
pub struct Data {
    desc: *const crate::TyDesc,
    word: u64,
}

impl Data {
    pub fn raw_parts(&self) -> (*const crate::TyDesc, u64) {
        (self.desc, self.word)
    }

    /// # Safety
    /// Only the runtime makes a data.
    pub unsafe fn from_raw_parts(desc: *const crate::TyDesc, word: u64) -> Data {
        Data { desc, word }
    }
}

/// A `bigint`: `{ ptr, len, negative }`, the magnitude as `len` little-endian 64-bit
/// limbs in a runtime buffer (the top limb never zero; zero has no limbs and is never
/// negative). Only the runtime makes one (`dtlv_rti_bigint_from_limbs`), so what a
/// native reads is always in that form.
#[repr(C)]
#[derive(Debug)]
pub struct BigInt {
    ptr: *mut u64,
    len: usize,
    negative: usize,
}

// The one description of a bigint's parts (`layout.rs`) is this struct's.
parts_at!(
    BigInt: ptr = BIGINT_PTR_OFFSET,
    len = BIGINT_LEN_OFFSET,
    negative = BIGINT_NEGATIVE_OFFSET,
);

impl BigInt {
    /// Zero; owns nothing.
    pub const ZERO: BigInt = BigInt {
        ptr: std::ptr::null_mut(),
        len: 0,
        negative: 0,
    };

    /// The magnitude's limbs, least significant first; empty for zero.
    pub fn limbs(&self) -> &[u64] {
        if self.len == 0 {
            &[]
        } else {
            // SAFETY: a BigInt is only ever built by the runtime over `len` live limbs.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }

    pub fn is_negative(&self) -> bool {
        self.negative != 0
    }

    pub fn is_zero(&self) -> bool {
        self.len == 0
    }

    pub fn raw_parts(&self) -> (*mut u64, usize, bool) {
        (self.ptr, self.len, self.negative != 0)
    }

    /// # Safety
    /// `ptr` must be a runtime buffer of exactly `len` limbs, the top one not zero (or
    /// null with `len == 0` and `negative` false).
    pub unsafe fn from_raw_parts(ptr: *mut u64, len: usize, negative: bool) -> BigInt {
        BigInt {
            ptr,
            len,
            negative: negative as usize,
        }
    }
}

/// An `index`: a position or a length, 64 bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Index(pub u64);

macro_rules! any_pointer {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Debug)]
        pub struct $name<'a>(NonNull<u8>, PhantomData<&'a mut u8>);

        impl<'a> $name<'a> {
            /// # Safety
            /// `ptr` must be valid for what this pointer's mode allows, for `'a`.
            pub unsafe fn from_raw(ptr: *mut u8) -> $name<'a> {
                $name(NonNull::new(ptr).expect(concat!("a null ", stringify!($name))), PhantomData)
            }

            pub fn as_ptr(&self) -> *mut u8 {
                self.0.as_ptr()
            }
        }
    };
}

any_pointer!(
    /// A value at a type parameter (or an option or tuple) to read, through its descriptor.
    AnyRef
);
any_pointer!(
    /// A value at a type parameter (or an option or tuple) to change in place.
    AnyMut
);
any_pointer!(
    /// A value handed over `in`: the native owns it now and must move or drop it.
    AnyOwned
);
any_pointer!(
    /// Where a native writes a value of the descriptor's type.
    AnyOut
);
