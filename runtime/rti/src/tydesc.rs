//! Type descriptors (`dtlv_tydesc_t`): what every pointer that crosses the ABI travels with.

use crate::layout::{compute_layout, Layout};

abi_enum! {
    /// The kind of value a descriptor describes. The discriminants are part of the ABI.
    /// Its `name` is the surface-language spelling of a scalar kind (and the head word of
    /// the others).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum TyKind {
        Unit = 0 => "unit",
        Bool = 1 => "bool",
        U8 = 2 => "u8",
        U16 = 3 => "u16",
        U32 = 4 => "u32",
        U64 = 5 => "u64",
        I8 = 6 => "i8",
        I16 = 7 => "i16",
        I32 = 8 => "i32",
        I64 = 9 => "i64",
        F32 = 10 => "f32",
        F64 = 11 => "f64",
        Index = 12 => "index",
        String = 13 => "string",
        List = 14 => "list",
        Option = 15 => "option",
        Tuple = 16 => "tuple",
        Data = 17 => "data",
        /// `map[K, V]`: `elem` is the entry tuple `(K, V)`, whose two fields (also the
        /// map's own `fields`) are the key and the value.
        Map = 18 => "map",
        /// An arbitrary-precision integer (`rtdt::BigInt`).
        BigInt = 19 => "bigint",
        Record = 20 => "record",
        /// A tagged union: a `u32` tag (the variant's index) at 0; `fields` has one entry
        /// per variant, its payload as a tuple at the shared payload offset.
        Enum = 21 => "enum",
    }
}

impl TyKind {
    /// Every scalar kind: the kinds declared first, up to `Index` (which is what makes
    /// [`TyKind::is_scalar`] a comparison).
    pub const ALL_SCALARS: [TyKind; TyKind::Index as usize + 1] =
        *TyKind::ALL.first_chunk().unwrap();

    /// Scalars have a fixed layout, no heap part, and are copy.
    pub fn is_scalar(self) -> bool {
        (self as u32) <= TyKind::Index as u32
    }

    pub fn is_integer(self) -> bool {
        matches!(
            self,
            TyKind::U8
                | TyKind::U16
                | TyKind::U32
                | TyKind::U64
                | TyKind::I8
                | TyKind::I16
                | TyKind::I32
                | TyKind::I64
                | TyKind::Index
        )
    }

    pub fn is_signed(self) -> bool {
        matches!(self, TyKind::I8 | TyKind::I16 | TyKind::I32 | TyKind::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, TyKind::F32 | TyKind::F64)
    }

    /// The range of an integer kind (`index` included), as `i128`; `None` otherwise.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            TyKind::U8 => (0, u8::MAX as i128),
            TyKind::U16 => (0, u16::MAX as i128),
            TyKind::U32 => (0, u32::MAX as i128),
            TyKind::U64 | TyKind::Index => (0, u64::MAX as i128),
            TyKind::I8 => (i8::MIN as i128, i8::MAX as i128),
            TyKind::I16 => (i16::MIN as i128, i16::MAX as i128),
            TyKind::I32 => (i32::MIN as i128, i32::MAX as i128),
            TyKind::I64 => (i64::MIN as i128, i64::MAX as i128),
            _ => return None,
        })
    }
}

/// `flags` bit: the value is plain bytes; copying it is a `memcpy` and dropping it is nothing.
pub const TYDESC_COPY: u32 = 1;

/// One field of a tuple: its descriptor and its byte offset.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TyField {
    pub desc: *const TyDesc,
    pub offset: usize,
}

/// A type descriptor (`dtlv_tydesc_t` in C).
///
/// `elem` is the element of a list and the payload of an option (null otherwise);
/// `payload_offset` is where an option's payload starts (the tag is the first byte);
/// `fields`/`field_count` describe a tuple or a record; `names` is a record's name and
/// field names (null for every other kind): the record's name, then each field's name in
/// order, each followed by a NUL byte (`"Point\0x\0y\0"`). A record is laid out as the
/// tuple of its fields. An enum has one `fields` entry per variant (its payload as a
/// tuple, the empty tuple for none, at the shared payload offset, also in
/// `payload_offset`) and `names` its name and variant names (`"Shape\0Circle\0Rect\0"`). `names` is the last field, so a rider built before records
/// (which never makes or reads a record descriptor) still reads every other field where
/// it was. Descriptors are compared structurally
/// ([`same_tydesc`]), never by address: a descriptor made at run time and one the
/// compiler emitted for the same type are interchangeable.
#[repr(C)]
#[derive(Debug)]
pub struct TyDesc {
    pub kind: TyKind,
    pub flags: u32,
    pub size: usize,
    pub align: usize,
    pub elem: *const TyDesc,
    pub payload_offset: usize,
    pub field_count: usize,
    pub fields: *const TyField,
    pub names: *const u8,
}

// Descriptors are immutable once built; the raw pointers inside point at other immutable
// descriptors, so sharing them between threads is sound.
unsafe impl Sync for TyDesc {}
unsafe impl Send for TyDesc {}
unsafe impl Sync for TyField {}
unsafe impl Send for TyField {}

impl TyDesc {
    /// The descriptor of a scalar kind, as a constant.
    pub const fn scalar(kind: TyKind, size: usize, align: usize) -> TyDesc {
        TyDesc {
            kind,
            flags: TYDESC_COPY,
            size,
            align,
            elem: std::ptr::null(),
            payload_offset: 0,
            field_count: 0,
            fields: std::ptr::null(),
            names: std::ptr::null(),
        }
    }

    pub fn is_copy(&self) -> bool {
        self.flags & TYDESC_COPY != 0
    }

    pub fn layout(&self) -> Layout {
        Layout {
            size: self.size,
            align: self.align,
        }
    }

    /// The list element or option payload.
    ///
    /// # Safety
    /// `self` must be a well-formed descriptor.
    #[inline]
    pub unsafe fn elem(&self) -> &TyDesc {
        debug_assert!(!self.elem.is_null());
        &*self.elem
    }

    /// A record's name and its field names, in order, or an enum's name and its variant
    /// names (empty for any other kind).
    ///
    /// # Safety
    /// `self` must be a well-formed descriptor.
    pub unsafe fn record_names(&self) -> Vec<&str> {
        if !matches!(self.kind, TyKind::Record | TyKind::Enum) || self.names.is_null() {
            return Vec::new();
        }
        let mut names = Vec::with_capacity(self.field_count + 1);
        let mut at = self.names;
        for _ in 0..=self.field_count {
            let name = std::ffi::CStr::from_ptr(at.cast());
            at = at.add(name.to_bytes().len() + 1);
            names.push(std::str::from_utf8(name.to_bytes()).unwrap_or("?"));
        }
        names
    }

    /// The tuple's (or record's) fields.
    ///
    /// # Safety
    /// `self` must be a well-formed descriptor.
    #[inline]
    pub unsafe fn fields(&self) -> &[TyField] {
        if self.field_count == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.fields, self.field_count)
        }
    }

    /// The variant an enum value holds: its index (the `u32` tag at offset 0) and its
    /// `fields` entry (the payload's tuple descriptor and offset).
    ///
    /// # Safety
    /// `self` must be a well-formed enum descriptor and `value` an initialized value of it.
    pub unsafe fn variant(&self, value: *const u8) -> (usize, &TyField) {
        let tag = value.cast::<u32>().read() as usize;
        (tag, &self.fields()[tag])
    }

    /// The payload fields of an enum's variant `tag`: each one's offset from the start of
    /// the enum value, and its descriptor.
    ///
    /// # Safety
    /// `self` must be a well-formed enum descriptor with a variant `tag`.
    pub unsafe fn variant_fields(&self, tag: usize) -> impl Iterator<Item = (usize, &TyDesc)> {
        let payload = &self.fields()[tag];
        (*payload.desc)
            .fields()
            .iter()
            .map(move |field| (payload.offset + field.offset, &*field.desc))
    }

    /// A map's key and value descriptors (the fields of its entry tuple).
    ///
    /// # Safety
    /// `self` must be a well-formed map descriptor.
    #[inline]
    pub unsafe fn map_parts(&self) -> (&TyDesc, &TyDesc) {
        let fields = self.elem().fields();
        (&*fields[0].desc, &*fields[1].desc)
    }

    /// The surface spelling of the type: `u8`, `[string]`, `?(i32, f64)`, `data`.
    ///
    /// # Safety
    /// `self` must be a well-formed descriptor.
    pub unsafe fn type_name(&self) -> String {
        let mut out = String::new();
        self.write_type_name(&mut out);
        out
    }

    unsafe fn write_type_name(&self, out: &mut String) {
        match self.kind {
            TyKind::List => {
                out.push('[');
                self.elem().write_type_name(out);
                out.push(']');
            }
            TyKind::Option => {
                out.push('?');
                self.elem().write_type_name(out);
            }
            TyKind::Map => {
                let (key, value) = self.map_parts();
                out.push_str("map[");
                key.write_type_name(out);
                out.push_str(", ");
                value.write_type_name(out);
                out.push(']');
            }
            TyKind::Tuple => {
                out.push('(');
                for (i, field) in self.fields().iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    (*field.desc).write_type_name(out);
                }
                if self.field_count == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            TyKind::Record | TyKind::Enum => out.push_str(
                self.record_names()
                    .first()
                    .copied()
                    .unwrap_or(self.kind.name()),
            ),
            kind => out.push_str(kind.name()),
        }
    }
}

/// Structural equality of two descriptors.
///
/// # Safety
/// Both must be well-formed descriptors.
///
/// Inlined where it is asked (every generic call's descriptors are checked with it, and
/// the two are most often one descriptor, or two of a scalar or a string made in
/// different places): the walk of the children is a call of its own.
#[inline]
pub unsafe fn same_tydesc(a: &TyDesc, b: &TyDesc) -> bool {
    if std::ptr::eq(a, b) {
        return true;
    }
    if a.kind != b.kind || a.size != b.size || a.align != b.align || a.flags != b.flags {
        return false;
    }
    match a.kind {
        TyKind::List
        | TyKind::Option
        | TyKind::Map
        | TyKind::Tuple
        | TyKind::Record
        | TyKind::Enum => same_children(a, b),
        _ => true,
    }
}

/// [`same_tydesc`] of two descriptors of one kind with children.
///
/// # Safety
/// Both must be well-formed descriptors.
#[inline(never)]
unsafe fn same_children(a: &TyDesc, b: &TyDesc) -> bool {
    match a.kind {
        TyKind::List | TyKind::Option | TyKind::Map => same_tydesc(a.elem(), b.elem()),
        TyKind::Record | TyKind::Enum if a.record_names() != b.record_names() => false,
        TyKind::Tuple | TyKind::Record | TyKind::Enum => {
            a.field_count == b.field_count
                && a.fields()
                    .iter()
                    .zip(b.fields())
                    .all(|(fa, fb)| fa.offset == fb.offset && same_tydesc(&*fa.desc, &*fb.desc))
        }
        _ => true,
    }
}

/// The layout of a scalar kind (and of the fixed-size heads of string, list and data).
pub fn kind_layout(kind: TyKind) -> Layout {
    compute_layout(kind, &[], &mut []).layout
}

/// The constant descriptor of each kind a `data` packs, and [`packed_tydesc`] over them.
macro_rules! packed {
    ($($name:ident = $kind:ident),* $(,)?) => {
        $(
            #[doc = concat!("The runtime's constant descriptor for `", stringify!($kind), "`.")]
            pub static $name: TyDesc = constant_tydesc(TyKind::$kind, false);
        )*

        /// The constant descriptor of a type packed into a `data` (every scalar kind), as
        /// `dtlv_rti_data_borrow` lends it. `None` for kinds a data keeps on the heap.
        pub fn packed_tydesc(kind: TyKind) -> Option<&'static TyDesc> {
            match kind {
                $(TyKind::$kind => Some(&$name),)*
                _ => None,
            }
        }
    };
}

packed! {
    UNIT_TYDESC = Unit,
    BOOL_TYDESC = Bool,
    U8_TYDESC = U8,
    U16_TYDESC = U16,
    U32_TYDESC = U32,
    U64_TYDESC = U64,
    I8_TYDESC = I8,
    I16_TYDESC = I16,
    I32_TYDESC = I32,
    I64_TYDESC = I64,
    F32_TYDESC = F32,
    F64_TYDESC = F64,
    INDEX_TYDESC = Index,
}

/// The runtime's constant descriptor for `string` (not copy: it owns its bytes).
pub static STRING_TYDESC: TyDesc = constant_tydesc(TyKind::String, true);

/// The runtime's constant descriptor for `bigint` (not copy: it owns its limbs).
pub static BIGINT_TYDESC: TyDesc = {
    let l = crate::layout::scalar_layout_const(TyKind::BigInt);
    TyDesc {
        flags: 0,
        ..TyDesc::scalar(TyKind::BigInt, l.size, l.align)
    }
};

/// The runtime's constant descriptor for `data` (not copy: it may own a box).
pub static DATA_TYDESC: TyDesc = constant_tydesc(TyKind::Data, true);

/// The constant descriptor of a scalar kind, or of the head of a string or a data, which
/// `owns` memory (so is not copy).
const fn constant_tydesc(kind: TyKind, owns: bool) -> TyDesc {
    let l = crate::layout::scalar_layout_const(kind);
    let desc = TyDesc::scalar(kind, l.size, l.align);
    if owns {
        TyDesc { flags: 0, ..desc }
    } else {
        desc
    }
}

/// A descriptor whose children it owns, for code that builds descriptors at run time
/// or in tests (the runtime interns its own; the compiler emits static ones).
pub struct OwnedTyDesc {
    desc: Box<TyDesc>,
    _children: Vec<OwnedTyDesc>,
    _fields: Vec<TyField>,
    _names: Vec<u8>,
}

/// The bytes of a record descriptor's `names`: the record's name, then each field's
/// name, each followed by a NUL byte.
pub fn record_names_bytes(name: &str, field_names: &[&str]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for part in std::iter::once(&name).chain(field_names) {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    bytes
}

impl OwnedTyDesc {
    pub fn scalar(kind: TyKind) -> OwnedTyDesc {
        assert!(kind.is_scalar() || matches!(kind, TyKind::String | TyKind::Data | TyKind::BigInt));
        let layout = kind_layout(kind);
        let flags = if kind.is_scalar() { TYDESC_COPY } else { 0 };
        OwnedTyDesc {
            desc: Box::new(TyDesc {
                flags,
                ..TyDesc::scalar(kind, layout.size, layout.align)
            }),
            _children: Vec::new(),
            _fields: Vec::new(),
            _names: Vec::new(),
        }
    }

    pub fn string() -> OwnedTyDesc {
        OwnedTyDesc::scalar(TyKind::String)
    }

    pub fn data() -> OwnedTyDesc {
        OwnedTyDesc::scalar(TyKind::Data)
    }

    pub fn bigint() -> OwnedTyDesc {
        OwnedTyDesc::scalar(TyKind::BigInt)
    }

    pub fn list(elem: OwnedTyDesc) -> OwnedTyDesc {
        let computed = compute_layout(TyKind::List, &[elem.layout()], &mut []);
        let desc = Box::new(TyDesc {
            kind: TyKind::List,
            flags: 0,
            size: computed.layout.size,
            align: computed.layout.align,
            elem: &*elem.desc,
            payload_offset: 0,
            field_count: 0,
            fields: std::ptr::null(),
            names: std::ptr::null(),
        });
        OwnedTyDesc {
            desc,
            _children: vec![elem],
            _fields: Vec::new(),
            _names: Vec::new(),
        }
    }

    /// `map[key, value]`: `elem` is the entry tuple `(key, value)`, `fields` its fields.
    pub fn map(key: OwnedTyDesc, value: OwnedTyDesc) -> OwnedTyDesc {
        let entry = OwnedTyDesc::tuple(vec![key, value]);
        let layout = kind_layout(TyKind::Map);
        let desc = Box::new(TyDesc {
            kind: TyKind::Map,
            flags: 0,
            size: layout.size,
            align: layout.align,
            elem: &*entry.desc,
            payload_offset: 0,
            field_count: entry.desc.field_count,
            fields: entry.desc.fields,
            names: std::ptr::null(),
        });
        OwnedTyDesc {
            desc,
            _children: vec![entry],
            _fields: Vec::new(),
            _names: Vec::new(),
        }
    }

    pub fn option(payload: OwnedTyDesc) -> OwnedTyDesc {
        let mut offsets = [0usize; 1];
        let computed = compute_layout(TyKind::Option, &[payload.layout()], &mut offsets);
        let desc = Box::new(TyDesc {
            kind: TyKind::Option,
            flags: payload.flags & TYDESC_COPY,
            size: computed.layout.size,
            align: computed.layout.align,
            elem: &*payload.desc,
            payload_offset: offsets[0],
            field_count: 0,
            fields: std::ptr::null(),
            names: std::ptr::null(),
        });
        OwnedTyDesc {
            desc,
            _children: vec![payload],
            _fields: Vec::new(),
            _names: Vec::new(),
        }
    }

    pub fn tuple(fields: Vec<OwnedTyDesc>) -> OwnedTyDesc {
        OwnedTyDesc::with_fields(TyKind::Tuple, fields)
    }

    /// A tuple, or an enum (`fields` its variants' payloads), laid out by
    /// `compute_layout` for `kind`, without names.
    fn with_fields(kind: TyKind, fields: Vec<OwnedTyDesc>) -> OwnedTyDesc {
        let layouts: Vec<Layout> = fields.iter().map(|f| f.layout()).collect();
        let mut offsets = vec![0usize; fields.len()];
        let computed = compute_layout(kind, &layouts, &mut offsets);
        let copy = fields.iter().all(|f| f.is_copy());
        let field_entries: Vec<TyField> = fields
            .iter()
            .zip(&offsets)
            .map(|(f, &offset)| TyField {
                desc: &*f.desc,
                offset,
            })
            .collect();
        let payload_offset = match kind {
            TyKind::Enum => offsets.first().copied().unwrap_or(4),
            _ => 0,
        };
        let desc = Box::new(TyDesc {
            kind,
            flags: if copy { TYDESC_COPY } else { 0 },
            size: computed.layout.size,
            align: computed.layout.align,
            elem: std::ptr::null(),
            payload_offset,
            field_count: field_entries.len(),
            fields: field_entries.as_ptr(),
            names: std::ptr::null(),
        });
        OwnedTyDesc {
            desc,
            _children: fields,
            _fields: field_entries,
            _names: Vec::new(),
        }
    }

    /// A record: laid out as the tuple of its fields, with its name and field names.
    pub fn record(name: &str, field_names: &[&str], fields: Vec<OwnedTyDesc>) -> OwnedTyDesc {
        assert_eq!(field_names.len(), fields.len(), "one name per record field");
        let mut made = OwnedTyDesc::tuple(fields);
        made._names = record_names_bytes(name, field_names);
        made.desc.kind = TyKind::Record;
        made.desc.names = made._names.as_ptr();
        made
    }

    /// An enum: a `u32` tag, then each variant's payload (a tuple) at one shared offset.
    pub fn enumeration(
        name: &str,
        variant_names: &[&str],
        payloads: Vec<OwnedTyDesc>,
    ) -> OwnedTyDesc {
        assert_eq!(variant_names.len(), payloads.len(), "one name per variant");
        let mut made = OwnedTyDesc::with_fields(TyKind::Enum, payloads);
        made._names = record_names_bytes(name, variant_names);
        made.desc.names = made._names.as_ptr();
        made
    }
}

impl std::ops::Deref for OwnedTyDesc {
    type Target = TyDesc;
    fn deref(&self) -> &TyDesc {
        &self.desc
    }
}
