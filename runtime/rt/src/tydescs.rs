//! Descriptors made at run time, interned structurally: asking twice for `[?u8]`, with
//! any descriptors of `?u8`, gives the same descriptor. Children are interned first, so
//! a descriptor is keyed by its kind and its (interned) children's addresses. Scalars,
//! `string` and `data` intern to the constants in `datalove_rti::tydesc`. Interned
//! descriptors live until the runtime is destroyed; they are runtime bookkeeping and
//! not counted as program allocations.
//!
//! Also here: the layout queries that take no `rt` (`field_offset`, `field_tydesc`,
//! `payload_offset`, `payload_tydesc`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use datalove_rti::layout::{compute_layout, Layout};
use datalove_rti::table::{Rt, Td};
use datalove_rti::tydesc::{BIGINT_TYDESC, DATA_TYDESC, STRING_TYDESC, TYDESC_COPY};
use datalove_rti::{packed_tydesc, TyDesc, TyField, TyKind};

use crate::state::Runtime;

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    List(usize),
    Option(usize),
    Tuple(Vec<usize>),
    /// A record or an enum (the kind), by names and fields.
    Named(TyKind, Vec<u8>, Vec<usize>),
    Map(usize),
}

struct Interned {
    desc: Box<TyDesc>,
    _fields: Box<[TyField]>,
    _names: Box<[u8]>,
}

impl Interned {
    /// The descriptor of a list or an option: one child, `elem` (the payload of an option,
    /// at `payload_offset`), no fields, no names.
    fn with_elem(
        kind: TyKind,
        flags: u32,
        l: Layout,
        elem: *const TyDesc,
        payload_offset: usize,
    ) -> Interned {
        Interned {
            desc: Box::new(TyDesc {
                kind,
                flags,
                size: l.size,
                align: l.align,
                elem,
                payload_offset,
                field_count: 0,
                fields: std::ptr::null(),
                names: std::ptr::null(),
            }),
            _fields: Box::new([]),
            _names: Box::new([]),
        }
    }
}

/// The interner's hash: its keys are kinds, descriptor addresses and names, made by the
/// runtime and compiled code, never by an adversary, and every generic call of a program
/// looks its descriptors up (`maps.insert<K, V>` asks for `map[K, V]` at each call), so
/// a multiply-and-rotate word hash rather than SipHash (measured: SipHash was 11% of
/// the interpreter's time on wordfreq).
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Default)]
pub(crate) struct Interner {
    table: RefCell<HashMap<Key, Interned, BuildHasherDefault<WordHasher>>>,
}

impl Interner {
    pub(crate) fn len(&self) -> usize {
        self.table.borrow().len()
    }

    fn get_or_make(&self, key: Key, make: impl FnOnce() -> Interned) -> *const TyDesc {
        if let Some(found) = self.table.borrow().get(&key) {
            return &*found.desc;
        }
        let interned = make();
        let ptr: *const TyDesc = &*interned.desc;
        self.table.borrow_mut().insert(key, interned);
        ptr
    }
}

impl Runtime {
    /// How many descriptors have been interned (lists, options, tuples and records).
    pub fn interned_tydescs(&self) -> usize {
        self.tydescs.len()
    }

    /// The interned descriptor structurally equal to `td`.
    ///
    /// # Safety
    /// `td` must be well formed.
    pub unsafe fn intern_tydesc(&self, td: &TyDesc) -> &TyDesc {
        match td.kind {
            TyKind::String => &STRING_TYDESC,
            TyKind::Data => &DATA_TYDESC,
            TyKind::BigInt => &BIGINT_TYDESC,
            TyKind::List => self.tydesc_list(td.elem()),
            TyKind::Option => self.tydesc_option(td.elem()),
            TyKind::Tuple => {
                let fields: Vec<&TyDesc> = td.fields().iter().map(|f| &*f.desc).collect();
                self.tydesc_tuple(&fields)
            }
            TyKind::Record | TyKind::Enum => self.tydesc_record(td),
            TyKind::Map => {
                let (key, value) = td.map_parts();
                self.tydesc_map(key, value)
            }
            kind => packed_tydesc(kind).expect("every scalar kind has a constant descriptor"),
        }
    }

    /// The interned `[elem]`.
    ///
    /// # Safety
    /// `elem` must be well formed.
    pub unsafe fn tydesc_list(&self, elem: &TyDesc) -> &TyDesc {
        let elem = self.intern_tydesc(elem) as *const TyDesc;
        let ptr = self.tydescs.get_or_make(Key::List(elem as usize), || {
            let l = compute_layout(TyKind::List, &[(*elem).layout()], &mut []).layout;
            Interned::with_elem(TyKind::List, 0, l, elem, 0)
        });
        &*ptr
    }

    /// The interned `?payload`.
    ///
    /// # Safety
    /// `payload` must be well formed.
    pub unsafe fn tydesc_option(&self, payload: &TyDesc) -> &TyDesc {
        let payload = self.intern_tydesc(payload) as *const TyDesc;
        let ptr = self.tydescs.get_or_make(Key::Option(payload as usize), || {
            let mut offsets = [0usize];
            let l = compute_layout(TyKind::Option, &[(*payload).layout()], &mut offsets).layout;
            let flags = (*payload).flags & TYDESC_COPY;
            Interned::with_elem(TyKind::Option, flags, l, payload, offsets[0])
        });
        &*ptr
    }

    /// The interned tuple of `fields`.
    ///
    /// # Safety
    /// Every field must be well formed.
    pub unsafe fn tydesc_tuple(&self, fields: &[&TyDesc]) -> &TyDesc {
        let interned: Vec<*const TyDesc> = fields
            .iter()
            .map(|f| self.intern_tydesc(f) as *const TyDesc)
            .collect();
        let key = Key::Tuple(interned.iter().map(|&p| p as usize).collect());
        &*self
            .tydescs
            .get_or_make(key, || fields_interned(TyKind::Tuple, &interned))
    }

    /// The interned record (or enum) structurally equal to `td`: its fields (an enum's
    /// variant payloads) interned, its names copied, so that it outlives the code that
    /// described it.
    ///
    /// # Safety
    /// `td` must be a well-formed record or enum descriptor.
    pub unsafe fn tydesc_record(&self, td: &TyDesc) -> &TyDesc {
        let fields: Vec<&TyDesc> = td.fields().iter().map(|f| &*f.desc).collect();
        let names = td.record_names();
        let bytes = datalove_rti::tydesc::record_names_bytes(names[0], &names[1..]);
        self.tydesc_named(td.kind, bytes, &fields)
    }

    /// The interned record or enum (`kind`) of `fields` (an enum's payload tuples) with
    /// the `names` bytes.
    ///
    /// # Safety
    /// Every field must be well formed; `bytes` one name per field and the type's, each
    /// NUL-terminated.
    pub unsafe fn tydesc_named(&self, kind: TyKind, bytes: Vec<u8>, fields: &[&TyDesc]) -> &TyDesc {
        let interned: Vec<*const TyDesc> = fields
            .iter()
            .map(|f| self.intern_tydesc(f) as *const TyDesc)
            .collect();
        let key = Key::Named(
            kind,
            bytes.clone(),
            interned.iter().map(|&p| p as usize).collect(),
        );
        let ptr = self.tydescs.get_or_make(key, || {
            let mut made = fields_interned(kind, &interned);
            made._names = bytes.into_boxed_slice();
            made.desc.names = made._names.as_ptr();
            made
        });
        &*ptr
    }

    /// The interned `map[key, value]`: its `elem` is the interned entry tuple `(key,
    /// value)` and its `fields` that tuple's two fields.
    ///
    /// # Safety
    /// `key` and `value` must be well formed.
    pub unsafe fn tydesc_map(&self, key: &TyDesc, value: &TyDesc) -> &TyDesc {
        let entry = self.tydesc_tuple(&[key, value]) as *const TyDesc;
        let ptr = self.tydescs.get_or_make(Key::Map(entry as usize), || {
            let l = compute_layout(TyKind::Map, &[], &mut []).layout;
            Interned {
                desc: Box::new(TyDesc {
                    kind: TyKind::Map,
                    flags: 0,
                    size: l.size,
                    align: l.align,
                    elem: entry,
                    payload_offset: 0,
                    field_count: (*entry).field_count,
                    fields: (*entry).fields,
                    names: std::ptr::null(),
                }),
                _fields: Box::new([]),
                _names: Box::new([]),
            }
        });
        &*ptr
    }
}

/// A tuple, record or enum descriptor (`kind`) over interned `fields` (an enum's variant
/// payloads), without names.
///
/// # Safety
/// Every field must be well formed.
unsafe fn fields_interned(kind: TyKind, interned: &[*const TyDesc]) -> Interned {
    let layouts: Vec<Layout> = interned.iter().map(|&f| (*f).layout()).collect();
    let mut offsets = vec![0usize; layouts.len()];
    let l = compute_layout(kind, &layouts, &mut offsets).layout;
    let copy = interned.iter().all(|&f| (*f).is_copy());
    let entries: Box<[TyField]> = interned
        .iter()
        .zip(&offsets)
        .map(|(&desc, &offset)| TyField { desc, offset })
        .collect();
    Interned {
        desc: Box::new(TyDesc {
            kind,
            flags: if copy { TYDESC_COPY } else { 0 },
            size: l.size,
            align: l.align,
            elem: std::ptr::null(),
            payload_offset: if kind == TyKind::Enum {
                offsets.first().copied().unwrap_or(4)
            } else {
                0
            },
            field_count: entries.len(),
            fields: if entries.is_empty() {
                std::ptr::null()
            } else {
                entries.as_ptr()
            },
            names: std::ptr::null(),
        }),
        _fields: entries,
        _names: Box::new([]),
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn tydesc_list(rt: Rt, elem: Td) -> Td {
    Runtime::from_handle(rt).tydesc_list(&*elem)
}

pub(crate) unsafe extern "C" fn tydesc_map(rt: Rt, key: Td, value: Td) -> Td {
    Runtime::from_handle(rt).tydesc_map(&*key, &*value)
}

pub(crate) unsafe extern "C" fn tydesc_option(rt: Rt, payload: Td) -> Td {
    Runtime::from_handle(rt).tydesc_option(&*payload)
}

pub(crate) unsafe extern "C" fn tydesc_enum(
    rt: Rt,
    names: *const u8,
    names_len: usize,
    payloads: *const Td,
    count: usize,
) -> Td {
    let bytes = if names_len == 0 || names.is_null() {
        Vec::new()
    } else {
        std::slice::from_raw_parts(names, names_len).to_vec()
    };
    Runtime::from_handle(rt).tydesc_named(TyKind::Enum, bytes, &descs(payloads, count))
}

pub(crate) unsafe extern "C" fn tydesc_tuple(rt: Rt, fields: *const Td, count: usize) -> Td {
    Runtime::from_handle(rt).tydesc_tuple(&descs(fields, count))
}

/// The `count` descriptors at `at` (none when `count` is 0, whatever `at` is).
unsafe fn descs<'a>(at: *const Td, count: usize) -> Vec<&'a TyDesc> {
    if count == 0 || at.is_null() {
        return Vec::new();
    }
    std::slice::from_raw_parts(at, count)
        .iter()
        .map(|&f| &*f)
        .collect()
}

/// `usize::MAX` when `tuple_td` is not a tuple or `field` is past its last field.
pub(crate) unsafe extern "C" fn field_offset(tuple_td: Td, field: usize) -> usize {
    let td = &*tuple_td;
    if !matches!(td.kind, TyKind::Tuple | TyKind::Record) || field >= td.field_count {
        return usize::MAX;
    }
    td.fields()[field].offset
}

/// Null when `tuple_td` is not a tuple or `field` is past its last field.
pub(crate) unsafe extern "C" fn field_tydesc(tuple_td: Td, field: usize) -> Td {
    let td = &*tuple_td;
    if !matches!(td.kind, TyKind::Tuple | TyKind::Record) || field >= td.field_count {
        return std::ptr::null();
    }
    td.fields()[field].desc
}

/// `usize::MAX` when `option_td` is not an option.
pub(crate) unsafe extern "C" fn payload_offset(option_td: Td) -> usize {
    let td = &*option_td;
    if td.kind != TyKind::Option {
        return usize::MAX;
    }
    td.payload_offset
}

/// Null when `option_td` is not an option.
pub(crate) unsafe extern "C" fn payload_tydesc(option_td: Td) -> Td {
    let td = &*option_td;
    if td.kind != TyKind::Option {
        return std::ptr::null();
    }
    td.elem
}
