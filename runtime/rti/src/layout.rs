//! The one layout function. Every size, alignment and offset of a datalove value is
//! computed here: the IR, the runtime, every backend and (through a test) the C header
//! agree because they all ask this file.
//!
//! Targets are 64-bit (x86-64, aarch64): pointers and `index` are 8 bytes.
//!
//! | type | layout |
//! |---|---|
//! | unit | size 0, align 1 |
//! | bool, u8, i8 | 1 byte (bool is 0 or 1) |
//! | u16/i16, u32/i32/f32, u64/i64/f64/index | natural size and alignment |
//! | string | `{ ptr, len, cap }`, 24 bytes, align 8 (UTF-8 bytes, length delimited) |
//! | `[T]` | `{ ptr, len, cap }`, 24 bytes, align 8; elements at `i * size(T)` |
//! | `?T` | tag byte (0 none, 1 some) at 0, payload at `align_up(1, align(T))` |
//! | tuple, record | fields in declaration order, each at the next multiple of its alignment |
//! | data | `{ desc, word }`, 16 bytes, align 8 |
//! | bigint | `{ ptr, len, negative }`, 24 bytes, align 8: `len` little-endian `u64` limbs of the magnitude |
//! | `map[K, V]` | one pointer, 8 bytes, align 8: a handle the runtime owns (null: empty) |
//! | enum | `u32` tag (the variant's index, in declaration order) at 0; every variant's payload, laid out as a tuple, at one shared offset `align_up(4, max payload align)`; size rounded up to the alignment |
//!
//! Every size is a multiple of its alignment, so an array stride is the size.

use crate::tydesc::TyKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub size: usize,
    pub align: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputedLayout {
    pub layout: Layout,
}

pub const POINTER_SIZE: usize = 8;

/// Where the parts of a list (and of a string) are: `{ ptr, len, cap }`, one word each.
/// Compiled code reads a list's length and reaches its elements inline from these
/// (`ptr + i * size(T)`); `rtdt::List` is held to them at compile time and the C
/// header's `dtlv_list_t` by the header test.
pub const LIST_PTR_OFFSET: usize = 0;
pub const LIST_LEN_OFFSET: usize = POINTER_SIZE;
pub const LIST_CAP_OFFSET: usize = 2 * POINTER_SIZE;

/// The most bytes one buffer (a list's elements, a string's bytes) holds: `isize::MAX`,
/// the most any allocation can be (Rust's `Layout`, C's `ptrdiff_t`). The runtime refuses
/// a list or string that would be larger; `datalove_ir::ranges` builds on it (an index
/// below a list's length is below [`max_buffer_elements`] of its element size).
pub const MAX_BUFFER_BYTES: usize = isize::MAX as usize;

/// The most elements of `size` bytes a buffer holds ([`MAX_BUFFER_BYTES`]); elements of
/// size 0 take no room, so a list of them may have any length (`u64::MAX`).
pub const fn max_buffer_elements(size: usize) -> u64 {
    match size {
        0 => u64::MAX,
        _ => (MAX_BUFFER_BYTES / size) as u64,
    }
}

/// Where the parts of a bigint are: `{ ptr, len, negative }`, one word each. `ptr` is
/// `len` little-endian 64-bit limbs of the magnitude in a counted runtime buffer of
/// exactly `len` limbs, the top one never zero; zero is `len == 0` (null `ptr`, owns
/// nothing) and never negative; `negative` is 0 or 1. `rtdt::BigInt` is held to these
/// at compile time and the C header's `dtlv_bigint_t` by the header test.
pub const BIGINT_PTR_OFFSET: usize = 0;
pub const BIGINT_LEN_OFFSET: usize = POINTER_SIZE;
pub const BIGINT_NEGATIVE_OFFSET: usize = 2 * POINTER_SIZE;

pub const fn align_up(value: usize, align: usize) -> usize {
    (value + align - 1) & !(align - 1)
}

/// The layout of a kind with no children (scalars and the fixed heads of string,
/// list and data). `const` so that the runtime's constant descriptors use it too.
pub const fn scalar_layout_const(kind: TyKind) -> Layout {
    let (size, align) = match kind {
        TyKind::Unit => (0, 1),
        TyKind::Bool | TyKind::U8 | TyKind::I8 => (1, 1),
        TyKind::U16 | TyKind::I16 => (2, 2),
        TyKind::U32 | TyKind::I32 | TyKind::F32 => (4, 4),
        TyKind::U64 | TyKind::I64 | TyKind::F64 | TyKind::Index => (8, 8),
        TyKind::String | TyKind::List | TyKind::BigInt => (3 * POINTER_SIZE, POINTER_SIZE),
        TyKind::Data => (2 * POINTER_SIZE, POINTER_SIZE),
        TyKind::Map => (POINTER_SIZE, POINTER_SIZE),
        // An option or tuple needs its children: see `compute_layout`.
        TyKind::Option | TyKind::Tuple | TyKind::Record | TyKind::Enum => (0, 1),
    };
    Layout { size, align }
}

/// Computes the layout of a value of `kind` whose children have the given layouts:
/// the element of a list, the payload of an option, the fields of a tuple. For an
/// option `offsets[0]` receives the payload offset; for a tuple `offsets[i]` receives
/// field `i`'s offset. For an enum `children` are its variants' payloads (each laid out
/// as a tuple) and every `offsets[i]` receives the one payload offset they share.
/// `offsets` must be as long as `children` for those three kinds.
pub fn compute_layout(kind: TyKind, children: &[Layout], offsets: &mut [usize]) -> ComputedLayout {
    let layout = match kind {
        TyKind::Option => {
            assert_eq!(children.len(), 1, "an option has one payload");
            let payload = children[0];
            let align = payload.align.max(1);
            let payload_offset = align_up(1, align);
            offsets[0] = payload_offset;
            Layout {
                size: align_up(payload_offset + payload.size, align),
                align,
            }
        }
        TyKind::Tuple | TyKind::Record => {
            assert_eq!(children.len(), offsets.len(), "one offset per tuple field");
            let mut size = 0usize;
            let mut align = 1usize;
            for (field, offset) in children.iter().zip(offsets.iter_mut()) {
                size = align_up(size, field.align);
                *offset = size;
                size += field.size;
                align = align.max(field.align);
            }
            Layout {
                size: align_up(size, align),
                align,
            }
        }
        TyKind::Enum => {
            assert_eq!(children.len(), offsets.len(), "one offset per enum variant");
            let align = children.iter().map(|p| p.align).fold(4, usize::max);
            let payload_offset = align_up(4, align);
            let payload = children.iter().map(|p| p.size).max().unwrap_or(0);
            offsets.iter_mut().for_each(|o| *o = payload_offset);
            Layout {
                size: align_up(payload_offset + payload, align),
                align,
            }
        }
        _ => scalar_layout_const(kind),
    };
    ComputedLayout { layout }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_payload_follows_the_tag_at_its_alignment() {
        let mut off = [0];
        let l = compute_layout(
            TyKind::Option,
            &[scalar_layout_const(TyKind::U32)],
            &mut off,
        );
        assert_eq!((l.layout.size, l.layout.align, off[0]), (8, 4, 4));
        let l = compute_layout(
            TyKind::Option,
            &[scalar_layout_const(TyKind::Unit)],
            &mut off,
        );
        assert_eq!((l.layout.size, l.layout.align, off[0]), (1, 1, 1));
        let l = compute_layout(
            TyKind::Option,
            &[scalar_layout_const(TyKind::String)],
            &mut off,
        );
        assert_eq!((l.layout.size, l.layout.align, off[0]), (32, 8, 8));
    }

    #[test]
    fn tuple_fields_in_order_with_padding() {
        let fields = [
            scalar_layout_const(TyKind::U8),
            scalar_layout_const(TyKind::U64),
            scalar_layout_const(TyKind::U16),
        ];
        let mut off = [0; 3];
        let l = compute_layout(TyKind::Tuple, &fields, &mut off);
        assert_eq!(off, [0, 8, 16]);
        assert_eq!((l.layout.size, l.layout.align), (24, 8));
        let l = compute_layout(TyKind::Tuple, &[], &mut []);
        assert_eq!((l.layout.size, l.layout.align), (0, 1));
    }
}
