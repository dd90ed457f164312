//! Lists: `len` elements of `size(T)` bytes each at `i * size(T)` in a counted buffer
//! of `cap` elements. The element descriptor travels beside the list, never in it.
//! The empty list owns nothing. Elements of size 0 (unit, the empty tuple) need no
//! buffer: only `len` changes.
//!
//! Moves in (push, set, insert) make the value the list's whatever the status: an
//! index past the end destroys it and returns `STATUS_OUT_OF_BOUNDS`.

use std::ffi::c_void;

use datalove_rti::rtdt::List;
use datalove_rti::rtdt::String as RtString;
use datalove_rti::status::{
    RtStatus, STATUS_EMPTY, STATUS_FAILED, STATUS_OK, STATUS_OUT_OF_BOUNDS,
};
use datalove_rti::table::{Rt, Td};
use datalove_rti::{TyDesc, TyKind};

use crate::errors::bounds_detail;
use crate::state::Runtime;

/// The message `list_pop` sets on an empty list.
pub const POP_EMPTY_MESSAGE: &str = "pop from an empty list";

/// Where element `index` of a list of `td` values is (any address for a zero-size one).
///
/// # Safety
/// `index` within the buffer.
pub(crate) unsafe fn elem_ptr(list: &List, td: &TyDesc, index: usize) -> *mut u8 {
    let (ptr, _, _) = list.raw_parts();
    if td.size == 0 {
        return std::ptr::without_provenance_mut(td.align.max(1));
    }
    ptr.add(index * td.size)
}

/// Where `list_set` and `list_insert` move a value in at an index.
#[derive(Clone, Copy)]
enum MoveIn {
    /// Over the element there, which is dropped.
    Replace,
    /// Before the element there, or at the end (`index == len`).
    Insert,
}

impl MoveIn {
    /// How many indices a list of `len` elements offers.
    fn positions(self, len: usize) -> usize {
        match self {
            MoveIn::Replace => len,
            MoveIn::Insert => len + 1,
        }
    }
}

/// Moves element `index` (which `list` has) out to `out` and closes the gap: `list_pop`
/// and `list_remove`.
///
/// # Safety
/// `out` has room for a `td` value.
unsafe fn take_out(list: &mut List, td: &TyDesc, index: usize, out: *mut u8) -> RtStatus {
    let (ptr, len, cap) = list.raw_parts();
    if td.size != 0 {
        let at = elem_ptr(list, td, index);
        std::ptr::copy_nonoverlapping(at, out, td.size);
        std::ptr::copy(at.add(td.size), at, (len - index - 1) * td.size);
    }
    list.set_raw_parts(ptr, len - 1, cap);
    STATUS_OK
}

impl Runtime {
    /// A new empty list with room for `capacity` elements of `td`.
    pub(crate) fn new_list(&self, td: &TyDesc, capacity: usize) -> List {
        if capacity == 0 || td.size == 0 {
            return List::EMPTY;
        }
        let bytes = capacity
            .checked_mul(td.size)
            .unwrap_or_else(|| self.out_of_memory(usize::MAX));
        let ptr = self.alloc(bytes, td.align);
        // SAFETY: a fresh buffer of `capacity` elements, none of them live yet.
        unsafe { List::from_raw_parts(ptr, 0, capacity) }
    }

    /// Makes room for one more element.
    pub(crate) unsafe fn list_reserve_one(&self, list: &mut List, td: &TyDesc) {
        let (ptr, len, cap) = list.raw_parts();
        if td.size == 0 || len < cap {
            return;
        }
        let new_cap = (cap * 2).max(4);
        let ptr = self.realloc(ptr, cap * td.size, new_cap * td.size, td.align);
        list.set_raw_parts(ptr, len, new_cap);
    }

    /// Moves the value at `value` onto the end.
    pub(crate) unsafe fn list_push_value(&self, list: &mut List, td: &TyDesc, value: *const u8) {
        self.list_reserve_one(list, td);
        let (ptr, len, cap) = list.raw_parts();
        std::ptr::copy_nonoverlapping(value, elem_ptr(list, td, len), td.size);
        list.set_raw_parts(ptr, len + 1, cap);
    }

    /// Drops every element and frees the buffer.
    pub(crate) unsafe fn free_list(&self, list: &List, td: &TyDesc) {
        let (ptr, len, cap) = list.raw_parts();
        if td.kind == TyKind::String && len > 0 {
            // The common owned element, without the descriptor's walk: a string frees
            // its buffer, if it owns one (a part or a constant owns none).
            // SAFETY: a list of `len > 0` strings holds them at `ptr`, one after another.
            let strings = std::slice::from_raw_parts(ptr.cast::<RtString>(), len);
            for s in strings {
                let (bytes, _, owned) = s.raw_parts();
                if owned != 0 {
                    self.free(bytes, owned, 1);
                }
            }
        } else if !td.is_copy() {
            for i in 0..len {
                self.drop_value(elem_ptr(list, td, i), td);
            }
        }
        if td.size != 0 {
            self.free(ptr, cap * td.size, td.align);
        }
    }

    /// A list of `len` elements of `td`, each a clone of the value at `value`, which is
    /// moved in (it becomes the last element; `len` 0 destroys it). `None`, with the
    /// value destroyed, when `len` elements do not fit in the address space.
    pub(crate) unsafe fn list_filled_value(
        &self,
        td: &TyDesc,
        len: usize,
        value: *mut u8,
    ) -> Option<List> {
        if len == 0 {
            self.drop_value(value, td);
            return Some(List::EMPTY);
        }
        if td.size == 0 {
            // Nothing to store; the one value stands for all of them.
            self.drop_value(value, td);
            let mut list = List::EMPTY;
            let (ptr, _, _) = list.raw_parts();
            list.set_raw_parts(ptr, len, 0);
            return Some(list);
        }
        let fits = len
            .checked_mul(td.size)
            .is_some_and(|bytes| bytes <= datalove_rti::layout::MAX_BUFFER_BYTES);
        if !fits {
            self.drop_value(value, td);
            return None;
        }
        let mut list = self.new_list(td, len);
        let (base, _, cap) = list.raw_parts();
        if td.is_copy() {
            // Copy the value once, then double the filled prefix: a few large copies.
            std::ptr::copy_nonoverlapping(value.cast_const(), base, td.size);
            let total = len * td.size;
            let mut filled = td.size;
            while filled < total {
                let chunk = filled.min(total - filled);
                std::ptr::copy_nonoverlapping(base.cast_const(), base.add(filled), chunk);
                filled += chunk;
            }
        } else {
            for i in 0..len - 1 {
                self.clone_value(value.cast_const(), td, base.add(i * td.size));
            }
            std::ptr::copy_nonoverlapping(
                value.cast_const(),
                base.add((len - 1) * td.size),
                td.size,
            );
        }
        list.set_raw_parts(base, len, cap);
        Some(list)
    }

    /// Moves the value at `value` into `list` at `index`, where `how` says: an index
    /// past the last one `how` takes destroys the value and is refused.
    unsafe fn list_move_in(
        &self,
        list: &mut List,
        td: &TyDesc,
        index: usize,
        value: *mut u8,
        how: MoveIn,
    ) -> RtStatus {
        let len = list.len();
        if index >= how.positions(len) {
            self.drop_value(value, td);
            return self.refuse_index(index, len);
        }
        match how {
            MoveIn::Replace => {
                let slot = elem_ptr(list, td, index);
                self.drop_value(slot, td);
                std::ptr::copy_nonoverlapping(value.cast_const(), slot, td.size);
            }
            MoveIn::Insert => {
                self.list_reserve_one(list, td);
                let (ptr, _, cap) = list.raw_parts();
                if td.size != 0 {
                    let at = elem_ptr(list, td, index);
                    std::ptr::copy(at, at.add(td.size), (len - index) * td.size);
                    std::ptr::copy_nonoverlapping(value.cast_const(), at, td.size);
                }
                list.set_raw_parts(ptr, len + 1, cap);
            }
        }
        STATUS_OK
    }

    fn refuse_index(&self, index: usize, len: usize) -> RtStatus {
        self.refuse(
            STATUS_OUT_OF_BOUNDS,
            bounds_detail(index as u64, len as u64),
        )
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn list_new(
    rt: Rt,
    elem_td: Td,
    capacity: usize,
    out: *mut List,
) -> RtStatus {
    out.write(Runtime::from_handle(rt).new_list(&*elem_td, capacity));
    STATUS_OK
}

pub(crate) unsafe extern "C" fn list_len(_rt: Rt, list: *const List) -> usize {
    (*list).len()
}

pub(crate) unsafe extern "C" fn list_push(
    rt: Rt,
    list: *mut List,
    elem_td: Td,
    value: *mut c_void,
) -> RtStatus {
    Runtime::from_handle(rt).list_push_value(&mut *list, &*elem_td, value.cast());
    STATUS_OK
}

pub(crate) unsafe extern "C" fn list_pop(
    rt: Rt,
    list: *mut List,
    elem_td: Td,
    out: *mut c_void,
) -> RtStatus {
    let list = &mut *list;
    match list.len().checked_sub(1) {
        Some(last) => take_out(list, &*elem_td, last, out.cast()),
        None => Runtime::from_handle(rt).refuse(STATUS_EMPTY, POP_EMPTY_MESSAGE),
    }
}

pub(crate) unsafe extern "C" fn list_get(
    rt: Rt,
    list: *const List,
    elem_td: Td,
    index: usize,
    out: *mut c_void,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (list, td) = (&*list, &*elem_td);
    if index >= list.len() {
        return rt.refuse_index(index, list.len());
    }
    rt.clone_value(elem_ptr(list, td, index), td, out.cast());
    STATUS_OK
}

pub(crate) unsafe extern "C" fn list_at(
    _rt: Rt,
    list: *const List,
    elem_td: Td,
    index: usize,
) -> *mut c_void {
    let list = &*list;
    if index >= list.len() {
        return std::ptr::null_mut();
    }
    elem_ptr(list, &*elem_td, index).cast()
}

/// `list_set` and `list_insert`: one signature and one body, which differ only in
/// where the value goes.
macro_rules! move_in_entries {
    ($($entry:ident => $how:expr;)*) => {$(
        pub(crate) unsafe extern "C" fn $entry(
            rt: Rt,
            list: *mut List,
            elem_td: Td,
            index: usize,
            value: *mut c_void,
        ) -> RtStatus {
            let rt = Runtime::from_handle(rt);
            rt.list_move_in(&mut *list, &*elem_td, index, value.cast(), $how)
        }
    )*};
}

move_in_entries! {
    list_set => MoveIn::Replace;
    list_insert => MoveIn::Insert;
}

pub(crate) unsafe extern "C" fn list_remove(
    rt: Rt,
    list: *mut List,
    elem_td: Td,
    index: usize,
    out: *mut c_void,
) -> RtStatus {
    let list = &mut *list;
    if index >= list.len() {
        return Runtime::from_handle(rt).refuse_index(index, list.len());
    }
    take_out(list, &*elem_td, index, out.cast())
}

pub(crate) unsafe extern "C" fn list_filled(
    rt: Rt,
    elem_td: Td,
    len: usize,
    value: *mut c_void,
    out: *mut List,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let td = &*elem_td;
    match rt.list_filled_value(td, len, value.cast()) {
        Some(list) => {
            out.write(list);
            STATUS_OK
        }
        None => rt.refuse(
            STATUS_FAILED,
            format!(
                "a list of {len} elements of {} does not fit in memory",
                td.type_name()
            ),
        ),
    }
}
