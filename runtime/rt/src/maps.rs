//! Maps: a handle (one pointer) to a counted `List` of entry tuples `(key, value)`, kept
//! sorted by key in the runtime's total order over values (`compare_values`), so every
//! backend iterates, formats and compares a map alike. The null handle is the empty map
//! (what `init` writes), which owns nothing; the first insert allocates the list head.
//! The map descriptor's `elem` is the entry tuple's descriptor, whose two fields are the
//! key (at offset 0) and the value.
//!
//! Moves in (`map_insert`) make key and value the map's whatever happens: a key already
//! present keeps its entry, whose old value is dropped and replaced, and the key handed
//! in is dropped.

use std::cmp::Ordering;
use std::ffi::c_void;
use std::mem::{align_of, size_of};

use datalove_rti::rtdt::{List, Map};
use datalove_rti::status::{RtStatus, STATUS_NOT_FOUND, STATUS_OK};
use datalove_rti::table::{Rt, Td};
use datalove_rti::{TyDesc, TyField};

use crate::lists::elem_ptr;
use crate::state::Runtime;

/// The message `map_remove` sets for a key the map does not have.
pub const KEY_NOT_FOUND_MESSAGE: &str = "key not found";

/// The entry tuple, key field and value field of a map descriptor.
unsafe fn map_parts(map_td: &TyDesc) -> (&TyDesc, &TyField, &TyField) {
    let entry = map_td.elem();
    let fields = entry.fields();
    (entry, &fields[0], &fields[1])
}

impl Runtime {
    /// The entry list of a map (a view of the empty list for the empty map).
    ///
    /// # Safety
    /// `map` a live map of this runtime; the view is valid until the map changes.
    pub(crate) unsafe fn map_entries(&self, map: &Map) -> List {
        let head = map.raw().cast::<List>();
        if head.is_null() {
            List::EMPTY
        } else {
            let (ptr, len, cap) = (*head).raw_parts();
            List::from_raw_parts(ptr, len, cap)
        }
    }

    /// Where `key` is, or where it would be inserted.
    unsafe fn map_search(
        &self,
        map: &Map,
        map_td: &TyDesc,
        key: *const u8,
    ) -> Result<usize, usize> {
        let (entry_td, key_field, _) = map_parts(map_td);
        let entries = self.map_entries(map);
        let (mut lo, mut hi) = (0usize, entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let at = elem_ptr(&entries, entry_td, mid).add(key_field.offset);
            match self.compare_values(at, key, &*key_field.desc) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// A deep copy of a map.
    ///
    /// # Safety
    /// `map` a live `map_td` map of this runtime.
    pub(crate) unsafe fn clone_map(&self, map: &Map, map_td: &TyDesc) -> Map {
        if map.raw().is_null() {
            return Map::from_raw(std::ptr::null_mut());
        }
        let copy = self.clone_list(&self.map_entries(map), map_td.elem());
        self.new_map_head(copy)
    }

    /// Drops every entry and frees the map.
    ///
    /// # Safety
    /// `map` a live `map_td` map of this runtime, not used again.
    pub(crate) unsafe fn free_map(&self, map: Map, map_td: &TyDesc) {
        let head = map.raw().cast::<List>();
        if head.is_null() {
            return;
        }
        self.free_list(&*head, map_td.elem());
        self.free(head.cast(), size_of::<List>(), align_of::<List>());
    }

    unsafe fn new_map_head(&self, entries: List) -> Map {
        let head = self
            .alloc(size_of::<List>(), align_of::<List>())
            .cast::<List>();
        head.write(entries);
        Map::from_raw(head.cast())
    }

    /// Moves `key` and `value` in (see the module doc).
    ///
    /// # Safety
    /// `map` a live `map_td` map; `key` and `value` initialized values of its key and
    /// value types, the map's afterwards.
    pub(crate) unsafe fn map_insert_value(
        &self,
        map: &mut Map,
        map_td: &TyDesc,
        key: *mut u8,
        value: *mut u8,
    ) {
        let (entry_td, key_field, value_field) = map_parts(map_td);
        let value_td = &*value_field.desc;
        match self.map_search(map, map_td, key) {
            Ok(i) => {
                let head = &*map.raw().cast::<List>();
                let slot = elem_ptr(head, entry_td, i).add(value_field.offset);
                self.drop_value(slot, value_td);
                std::ptr::copy_nonoverlapping(value, slot, value_td.size);
                self.drop_value(key, &*key_field.desc);
            }
            Err(i) => {
                if map.raw().is_null() {
                    map.set_raw(self.new_map_head(List::EMPTY).raw());
                }
                let head = &mut *map.raw().cast::<List>();
                self.list_reserve_one(head, entry_td);
                let (ptr, len, cap) = head.raw_parts();
                if entry_td.size != 0 {
                    let at = elem_ptr(head, entry_td, i);
                    std::ptr::copy(at, at.add(entry_td.size), (len - i) * entry_td.size);
                    let key_td = &*key_field.desc;
                    std::ptr::copy_nonoverlapping(key, at.add(key_field.offset), key_td.size);
                    std::ptr::copy_nonoverlapping(value, at.add(value_field.offset), value_td.size);
                }
                head.set_raw_parts(ptr, len + 1, cap);
            }
        }
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn map_len(rt: Rt, map: *const Map) -> usize {
    Runtime::from_handle(rt).map_entries(&*map).len()
}

pub(crate) unsafe extern "C" fn map_insert(
    rt: Rt,
    map: *mut Map,
    map_td: Td,
    key: *mut c_void,
    value: *mut c_void,
) -> RtStatus {
    Runtime::from_handle(rt).map_insert_value(&mut *map, &*map_td, key.cast(), value.cast());
    STATUS_OK
}

pub(crate) unsafe extern "C" fn map_find(
    rt: Rt,
    map: *const Map,
    map_td: Td,
    key: *const c_void,
) -> *mut c_void {
    let rt = Runtime::from_handle(rt);
    let (map, map_td) = (&*map, &*map_td);
    match rt.map_search(map, map_td, key.cast()) {
        Ok(i) => {
            let (entry_td, _, value_field) = map_parts(map_td);
            elem_ptr(&rt.map_entries(map), entry_td, i)
                .add(value_field.offset)
                .cast()
        }
        Err(_) => std::ptr::null_mut(),
    }
}

pub(crate) unsafe extern "C" fn map_remove(
    rt: Rt,
    map: *mut Map,
    map_td: Td,
    key: *const c_void,
    out: *mut c_void,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let (map, map_td) = (&mut *map, &*map_td);
    let Ok(i) = rt.map_search(map, map_td, key.cast()) else {
        return rt.refuse(STATUS_NOT_FOUND, KEY_NOT_FOUND_MESSAGE);
    };
    let (entry_td, key_field, value_field) = map_parts(map_td);
    let head = &mut *map.raw().cast::<List>();
    let (ptr, len, cap) = head.raw_parts();
    let at = elem_ptr(head, entry_td, i);
    let value_td = &*value_field.desc;
    std::ptr::copy_nonoverlapping(at.add(value_field.offset), out.cast(), value_td.size);
    rt.drop_value(at.add(key_field.offset), &*key_field.desc);
    if entry_td.size != 0 {
        std::ptr::copy(at.add(entry_td.size), at, (len - i - 1) * entry_td.size);
    }
    head.set_raw_parts(ptr, len - 1, cap);
    STATUS_OK
}

pub(crate) unsafe extern "C" fn map_entry_at(
    rt: Rt,
    map: *const Map,
    map_td: Td,
    index: usize,
) -> *mut c_void {
    let entries = Runtime::from_handle(rt).map_entries(&*map);
    if index >= entries.len() {
        return std::ptr::null_mut();
    }
    elem_ptr(&entries, (*map_td).elem(), index).cast()
}
