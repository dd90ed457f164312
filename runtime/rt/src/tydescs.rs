//! Descriptors made at run time, interned structurally: asking twice for `[?u8]`, with
//! any descriptors of `?u8`, gives the same descriptor. Children are interned first, so
//! a descriptor is keyed by its kind and its (interned) children's addresses. Scalars,
//! `string` and `data` intern to the constants in `datalove_rti::tydesc`. Interned
//! descriptors live until the runtime is destroyed; they are runtime bookkeeping and
//! not counted as program allocations.
//!
//! Also here: the layout queries that take no `rt` (`field_offset`, `field_tydesc`,
//! `payload_offset`, `payload_tydesc`).

use std::cell::{Cell, RefCell};

use hashbrown::HashTable;

use datalove_rti::layout::{compute_layout, Layout};
use datalove_rti::table::{Rt, Td};
use datalove_rti::tydesc::{BIGINT_TYDESC, DATA_TYDESC, STRING_TYDESC, TYDESC_COPY};
use datalove_rti::{packed_tydesc, same_tydesc, TyDesc, TyField, TyKind};

use crate::state::Runtime;

/// What an interned descriptor is made of: its kind and its interned children's
/// addresses (and a record's or enum's names), as it is stored.
#[derive(PartialEq, Eq)]
enum Key {
    List(usize),
    Option(usize),
    Tuple(Box<[usize]>),
    /// A record or an enum (the kind), by names and fields.
    Named(TyKind, Box<[u8]>, Box<[usize]>),
    Map(usize),
}

/// A [`Key`] as it is asked for: borrowed, so a lookup that finds its descriptor (every
/// generic call asks again for the descriptors of its type arguments) allocates nothing.
#[derive(Clone, Copy)]
enum KeyRef<'a> {
    List(usize),
    Option(usize),
    Tuple(&'a [usize]),
    Named(TyKind, &'a [u8], &'a [usize]),
    Map(usize),
}

impl KeyRef<'_> {
    fn hash(self) -> u64 {
        let mut h = WordHasher::default();
        match self {
            KeyRef::List(e) => h.write_words(1, &[e]),
            KeyRef::Option(p) => h.write_words(2, &[p]),
            KeyRef::Tuple(fields) => h.write_words(3, fields),
            KeyRef::Named(kind, names, fields) => {
                h.write_words(4 + kind as u64, fields);
                h.write(names);
            }
            KeyRef::Map(entry) => h.write_words(5, &[entry]),
        }
        h.finish()
    }

    fn is(self, key: &Key) -> bool {
        match (self, key) {
            (KeyRef::List(a), Key::List(b))
            | (KeyRef::Option(a), Key::Option(b))
            | (KeyRef::Map(a), Key::Map(b)) => a == *b,
            (KeyRef::Tuple(a), Key::Tuple(b)) => a == &b[..],
            (KeyRef::Named(ka, na, fa), Key::Named(kb, nb, fb)) => {
                ka == *kb && na == &nb[..] && fa == &fb[..]
            }
            _ => false,
        }
    }

    fn to_owned(self) -> Key {
        match self {
            KeyRef::List(e) => Key::List(e),
            KeyRef::Option(p) => Key::Option(p),
            KeyRef::Tuple(fields) => Key::Tuple(fields.into()),
            KeyRef::Named(kind, names, fields) => Key::Named(kind, names.into(), fields.into()),
            KeyRef::Map(entry) => Key::Map(entry),
        }
    }
}

struct Interned {
    key: Key,
    /// [`KeyRef::hash`] of `key`, kept for the table's growth.
    hash: u64,
    desc: Box<TyDesc>,
    _fields: Box<[TyField]>,
    _names: Box<[u8]>,
}

/// A descriptor being made, before the interner keys it.
struct Made {
    desc: Box<TyDesc>,
    fields: Box<[TyField]>,
    names: Box<[u8]>,
}

impl Made {
    /// The descriptor of a list or an option: one child, `elem` (the payload of an option,
    /// at `payload_offset`), no fields, no names.
    fn with_elem(
        kind: TyKind,
        flags: u32,
        l: Layout,
        elem: *const TyDesc,
        payload_offset: usize,
    ) -> Made {
        Made {
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
            fields: Box::new([]),
            names: Box::new([]),
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

impl WordHasher {
    fn write_words(&mut self, tag: u64, words: &[usize]) {
        self.write_u64(tag);
        for &w in words {
            self.write_u64(w as u64);
        }
    }

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

    fn finish(&self) -> u64 {
        // The table picks buckets from the high bits and tags from the top seven: fold
        // the low bits, which the multiply mixes best, up into them.
        self.0 ^ (self.0 >> 29)
    }
}

#[derive(Default)]
pub(crate) struct Interner {
    table: RefCell<HashTable<Interned>>,
    memo: Memo,
}

/// What a constructor was last asked for, by the addresses it was given: a generic
/// function asks for the same `map[K, V]` (or `?V`, `[T]`) from the same descriptors at
/// every call, and a structural lookup (intern the children, hash, compare) costs a few
/// hundred instructions where this costs a few dozen. An address alone proves nothing (a
/// rider may describe a type in a temporary, and another descriptor may later stand at
/// its address), so an entry is used only when its descriptor's children are
/// structurally the descriptors asked with ([`same_tydesc`], which is the interner's own
/// equality): a stale entry is a miss, never a wrong answer.
struct Memo {
    entries: [Cell<MemoEntry>; MEMO_ENTRIES],
}

const MEMO_ENTRIES: usize = 64;

#[derive(Clone, Copy)]
struct MemoEntry {
    op: u8,
    a: usize,
    b: usize,
    made: *const TyDesc,
}

const MEMO_LIST: u8 = 1;
const MEMO_OPTION: u8 = 2;
const MEMO_MAP: u8 = 3;

impl Default for Memo {
    fn default() -> Memo {
        let empty = MemoEntry {
            op: 0,
            a: 0,
            b: 0,
            made: std::ptr::null(),
        };
        Memo {
            entries: std::array::from_fn(|_| Cell::new(empty)),
        }
    }
}

impl Memo {
    fn slot(&self, op: u8, a: usize, b: usize) -> &Cell<MemoEntry> {
        let h = ((a as u64) ^ (b as u64).rotate_left(23) ^ u64::from(op))
            .wrapping_mul(0x9e_37_79_b9_7f_4a_7c_15);
        &self.entries[(h >> 58) as usize % MEMO_ENTRIES]
    }

    /// The descriptor last made for `op` of `a` and `b`, when `same` says its children
    /// are still structurally those.
    fn recall(
        &self,
        op: u8,
        a: usize,
        b: usize,
        same: impl FnOnce(&TyDesc) -> bool,
    ) -> Option<*const TyDesc> {
        let e = self.slot(op, a, b).get();
        // SAFETY: `made` is an interned descriptor, alive as long as the runtime.
        (e.op == op && e.a == a && e.b == b && same(unsafe { &*e.made })).then_some(e.made)
    }

    fn remember(&self, op: u8, a: usize, b: usize, made: *const TyDesc) {
        self.slot(op, a, b).set(MemoEntry { op, a, b, made });
    }
}

impl Interner {
    pub(crate) fn len(&self) -> usize {
        self.table.borrow().len()
    }

    fn get_or_make(&self, key: KeyRef<'_>, make: impl FnOnce() -> Made) -> *const TyDesc {
        let hash = key.hash();
        if let Some(found) = self.table.borrow().find(hash, |i| key.is(&i.key)) {
            return &*found.desc;
        }
        let made = make();
        let ptr: *const TyDesc = &*made.desc;
        let interned = Interned {
            key: key.to_owned(),
            hash,
            desc: made.desc,
            _fields: made.fields,
            _names: made.names,
        };
        self.table
            .borrow_mut()
            .insert_unique(hash, interned, |i| i.hash);
        ptr
    }
}

/// Up to this many children are interned into an array on the stack.
const FEW: usize = 8;

/// Runs `with` on the interned addresses of `fields`, kept on the stack when there are
/// few of them.
///
/// # Safety
/// Every field must be well formed.
unsafe fn with_interned<R>(
    rt: &Runtime,
    fields: &[&TyDesc],
    with: impl FnOnce(&[usize]) -> R,
) -> R {
    if fields.len() <= FEW {
        let mut few = [0usize; FEW];
        for (at, f) in few.iter_mut().zip(fields) {
            *at = rt.intern_tydesc(f) as *const TyDesc as usize;
        }
        with(&few[..fields.len()])
    } else {
        let many: Vec<usize> = fields
            .iter()
            .map(|f| rt.intern_tydesc(f) as *const TyDesc as usize)
            .collect();
        with(&many)
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
        let asked = elem as *const TyDesc as usize;
        let memo = &self.tydescs.memo;
        if let Some(made) = memo.recall(MEMO_LIST, asked, 0, |d| same_tydesc(d.elem(), elem)) {
            return &*made;
        }
        let made = self.tydesc_list_interned(elem);
        memo.remember(MEMO_LIST, asked, 0, made);
        made
    }

    unsafe fn tydesc_list_interned(&self, elem: &TyDesc) -> &TyDesc {
        let elem = self.intern_tydesc(elem) as *const TyDesc;
        let ptr = self.tydescs.get_or_make(KeyRef::List(elem as usize), || {
            let l = compute_layout(TyKind::List, &[(*elem).layout()], &mut []).layout;
            Made::with_elem(TyKind::List, 0, l, elem, 0)
        });
        &*ptr
    }

    /// The interned `?payload`.
    ///
    /// # Safety
    /// `payload` must be well formed.
    pub unsafe fn tydesc_option(&self, payload: &TyDesc) -> &TyDesc {
        let asked = payload as *const TyDesc as usize;
        let memo = &self.tydescs.memo;
        let same = |d: &TyDesc| same_tydesc(d.elem(), payload);
        if let Some(made) = memo.recall(MEMO_OPTION, asked, 0, same) {
            return &*made;
        }
        let made = self.tydesc_option_interned(payload);
        memo.remember(MEMO_OPTION, asked, 0, made);
        made
    }

    unsafe fn tydesc_option_interned(&self, payload: &TyDesc) -> &TyDesc {
        let payload = self.intern_tydesc(payload) as *const TyDesc;
        let ptr = self
            .tydescs
            .get_or_make(KeyRef::Option(payload as usize), || {
                let mut offsets = [0usize];
                let l = compute_layout(TyKind::Option, &[(*payload).layout()], &mut offsets).layout;
                let flags = (*payload).flags & TYDESC_COPY;
                Made::with_elem(TyKind::Option, flags, l, payload, offsets[0])
            });
        &*ptr
    }

    /// The interned tuple of `fields`.
    ///
    /// # Safety
    /// Every field must be well formed.
    pub unsafe fn tydesc_tuple(&self, fields: &[&TyDesc]) -> &TyDesc {
        with_interned(self, fields, |interned| {
            &*self.tydescs.get_or_make(KeyRef::Tuple(interned), || {
                fields_interned(TyKind::Tuple, interned)
            })
        })
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
        with_interned(self, fields, |interned| {
            &*self
                .tydescs
                .get_or_make(KeyRef::Named(kind, &bytes, interned), || {
                    let mut made = fields_interned(kind, interned);
                    made.names = bytes.clone().into_boxed_slice();
                    made.desc.names = made.names.as_ptr();
                    made
                })
        })
    }

    /// The interned `map[key, value]`: its `elem` is the interned entry tuple `(key,
    /// value)` and its `fields` that tuple's two fields.
    ///
    /// # Safety
    /// `key` and `value` must be well formed.
    pub unsafe fn tydesc_map(&self, key: &TyDesc, value: &TyDesc) -> &TyDesc {
        let (a, b) = (
            key as *const TyDesc as usize,
            value as *const TyDesc as usize,
        );
        let memo = &self.tydescs.memo;
        let same = |d: &TyDesc| {
            let (k, v) = d.map_parts();
            same_tydesc(k, key) && same_tydesc(v, value)
        };
        if let Some(made) = memo.recall(MEMO_MAP, a, b, same) {
            return &*made;
        }
        let made = self.tydesc_map_interned(key, value);
        memo.remember(MEMO_MAP, a, b, made);
        made
    }

    unsafe fn tydesc_map_interned(&self, key: &TyDesc, value: &TyDesc) -> &TyDesc {
        let entry = self.tydesc_tuple(&[key, value]) as *const TyDesc;
        let ptr = self.tydescs.get_or_make(KeyRef::Map(entry as usize), || {
            let l = compute_layout(TyKind::Map, &[], &mut []).layout;
            Made {
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
                fields: Box::new([]),
                names: Box::new([]),
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
unsafe fn fields_interned(kind: TyKind, interned: &[usize]) -> Made {
    let interned: Vec<*const TyDesc> = interned.iter().map(|&f| f as *const TyDesc).collect();
    let layouts: Vec<Layout> = interned.iter().map(|&f| (*f).layout()).collect();
    let mut offsets = vec![0usize; layouts.len()];
    let l = compute_layout(kind, &layouts, &mut offsets).layout;
    let copy = interned.iter().all(|&f| (*f).is_copy());
    let entries: Box<[TyField]> = interned
        .iter()
        .zip(&offsets)
        .map(|(&desc, &offset)| TyField { desc, offset })
        .collect();
    Made {
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
        fields: entries,
        names: Box::new([]),
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
