//! Any value through its descriptor: clone, drop, equality, order and formatting. The
//! four backends all come here, so they cannot format or compare differently.
//!
//! **Order** (`cmp`, and `eq` is `cmp == 0`): integers and `index` numerically; `false <
//! true`; floats by IEEE total order (`f64::total_cmp`: `-0.0 < 0.0`) except that every
//! NaN is one value, equal to any other NaN and after everything else (after `inf`);
//! strings by bytes (code point order); lists lexicographically; `none < some(_)`, then
//! payloads; tuples and records field by field; bigints numerically; data by the spelling of the held type, then (same
//! type) by value.
//!
//! **Formatting** (`format`, `debuglog`): integers, bigints and `index` in decimal; `f64` as Rust's
//! `{:?}` (`1.0`, `0.1`, `1e300`, `inf`, `-inf`, `NaN`), `f32` as `{:?}` of the `f32`;
//! `true`/`false`; unit `()`; a string at top level prints its bytes unchanged (interior
//! NUL included); a string inside a list, option, tuple (or a data inside one of those)
//! prints quoted, with `"`, `\`, newline, tab and NUL escaped as `\"`, `\\`, `\n`, `\t`,
//! `\0`; lists `[1, 2, 3]`; options `some(3)` / `none`; tuples `(1, "a")`, one field
//! `(1,)`, none `()`; records `Point { x: 1.0, y: 2.0 }`; a data prints exactly as the value it holds would in its place
//! (so a data holding a string prints the string raw at top level, quoted inside a list).

use std::cmp::Ordering;
use std::ffi::c_void;

use datalove_rti::order::{compare_scalar, Leaf};
use datalove_rti::rtdt::{BigInt, Data, List, Map, String as RtString};
use datalove_rti::status::{RtStatus, STATUS_OK};
use datalove_rti::table::{Rt, Td};
use datalove_rti::{TyDesc, TyKind};

use crate::bigints::{compare_bigints, format_bigint};
use crate::state::Runtime;
use crate::strings::ordering_i32;

/// A `T` read from `p`, which need not be aligned for it.
pub(crate) unsafe fn read<T: Copy>(p: *const u8) -> T {
    p.cast::<T>().read_unaligned()
}

/// Escapes a string nested in an aggregate.
fn push_quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0 => out.extend_from_slice(b"\\0"),
            b => out.push(b),
        }
    }
    out.push(b'"');
}

/// The f64 text: Rust's `{:?}`.
pub fn format_f64(v: f64) -> String {
    format!("{v:?}")
}

/// The f32 text: Rust's `{:?}` of the f32.
pub fn format_f32(v: f32) -> String {
    format!("{v:?}")
}

/// Whether a data's value is packed into its word (every scalar kind) or boxed.
pub(crate) fn is_packed(td: &TyDesc) -> bool {
    td.kind.is_scalar()
}

/// A pointer at the value a data holds: into its word when packed, else at its box.
pub(crate) unsafe fn data_value_ptr(data: &Data) -> (*const u8, &TyDesc) {
    let (desc, word) = data.raw_parts();
    let td = &*desc;
    if is_packed(td) {
        ((data as *const Data).cast::<u8>().add(8), td)
    } else {
        (std::ptr::with_exposed_provenance::<u8>(word as usize), td)
    }
}

impl Runtime {
    /// Deep copy of the `td` value at `src` into `dst`.
    ///
    /// # Safety
    /// `src` initialized, `dst` with room for a `td` value; both of this runtime.
    pub unsafe fn clone_value(&self, src: *const u8, td: &TyDesc, dst: *mut u8) {
        if td.is_copy() {
            std::ptr::copy_nonoverlapping(src, dst, td.size);
            return;
        }
        match td.kind {
            TyKind::String => {
                let s = &*src.cast::<RtString>();
                dst.cast::<RtString>()
                    .write(self.string_from_utf8(s.as_bytes()));
            }
            TyKind::List => {
                let copy = self.clone_list(&*src.cast::<List>(), td.elem());
                dst.cast::<List>().write(copy);
            }
            TyKind::Map => {
                let copy = self.clone_map(&*src.cast::<Map>(), td);
                dst.cast::<Map>().write(copy);
            }
            TyKind::Option => {
                let tag = *src;
                std::ptr::write_bytes(dst, 0, td.size);
                *dst = tag;
                if tag != 0 {
                    let off = td.payload_offset;
                    self.clone_value(src.add(off), td.elem(), dst.add(off));
                }
            }
            TyKind::Tuple | TyKind::Record => {
                // Padding is copied too, so a clone is byte-identical where it can be.
                std::ptr::copy_nonoverlapping(src, dst, td.size);
                for field in td.fields() {
                    self.clone_value(src.add(field.offset), &*field.desc, dst.add(field.offset));
                }
            }
            TyKind::Enum => {
                std::ptr::copy_nonoverlapping(src, dst, td.size);
                let (_, payload) = td.variant(src);
                let off = payload.offset;
                self.clone_value(src.add(off), &*payload.desc, dst.add(off));
            }
            TyKind::Data => {
                let data = &*src.cast::<Data>();
                let (desc, word) = data.raw_parts();
                let held = &*desc;
                if is_packed(held) {
                    dst.cast::<Data>().write(Data::from_raw_parts(desc, word));
                } else {
                    let boxed = self.alloc(held.size, held.align);
                    let (value, _) = data_value_ptr(data);
                    self.clone_value(value, held, boxed);
                    dst.cast::<Data>()
                        .write(Data::from_raw_parts(desc, boxed.expose_provenance() as u64));
                }
            }
            TyKind::BigInt => {
                let b = &*src.cast::<BigInt>();
                dst.cast::<BigInt>().write(self.clone_bigint(b));
            }
            _ => std::ptr::copy_nonoverlapping(src, dst, td.size),
        }
    }

    /// Frees what the `td` value at `value` owns.
    ///
    /// # Safety
    /// `value` initialized, of this runtime, not used again.
    pub unsafe fn drop_value(&self, value: *mut u8, td: &TyDesc) {
        if td.is_copy() {
            return;
        }
        match td.kind {
            TyKind::String => {
                let s = value.cast::<RtString>().read();
                self.free_string(s);
            }
            TyKind::List => {
                let list = value.cast::<List>().read();
                self.free_list(&list, td.elem());
            }
            TyKind::Map => {
                let map = value.cast::<Map>().read();
                self.free_map(map, td);
            }
            TyKind::Option if *value != 0 => {
                self.drop_value(value.add(td.payload_offset), td.elem());
            }
            TyKind::Tuple | TyKind::Record => {
                for field in td.fields() {
                    self.drop_value(value.add(field.offset), &*field.desc);
                }
            }
            TyKind::Enum => {
                let (_, payload) = td.variant(value);
                self.drop_value(value.add(payload.offset), &*payload.desc);
            }
            TyKind::Data => {
                let data = value.cast::<Data>().read();
                let (desc, _) = data.raw_parts();
                let held = &*desc;
                if !is_packed(held) {
                    let (boxed, _) = data_value_ptr(&data);
                    let boxed = boxed.cast_mut();
                    self.drop_value(boxed, held);
                    self.free(boxed, held.size, held.align);
                }
            }
            TyKind::BigInt => self.free_bigint(&*value.cast::<BigInt>()),
            _ => {}
        }
    }

    /// The runtime's order of two `td` values (see the module doc).
    ///
    /// # Safety
    /// Both initialized.
    pub unsafe fn compare_values(&self, a: *const u8, b: *const u8, td: &TyDesc) -> Ordering {
        if let Some(leaf) = Leaf::of(td.kind) {
            return compare_scalar(leaf, a, b);
        }
        match td.kind {
            TyKind::List => self.compare_lists(&*a.cast::<List>(), &*b.cast::<List>(), td.elem()),
            TyKind::Map => self.compare_maps(&*a.cast::<Map>(), &*b.cast::<Map>(), td),
            TyKind::Option => match ((*a != 0), (*b != 0)) {
                (false, false) => Ordering::Equal,
                (false, true) => Ordering::Less,
                (true, false) => Ordering::Greater,
                (true, true) => {
                    let off = td.payload_offset;
                    self.compare_values(a.add(off), b.add(off), td.elem())
                }
            },
            TyKind::Tuple | TyKind::Record => {
                for field in td.fields() {
                    let o =
                        self.compare_values(a.add(field.offset), b.add(field.offset), &*field.desc);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            }
            TyKind::Enum => {
                let ((ta, payload), (tb, _)) = (td.variant(a), td.variant(b));
                ta.cmp(&tb).then_with(|| {
                    let off = payload.offset;
                    self.compare_values(a.add(off), b.add(off), &*payload.desc)
                })
            }
            TyKind::Data => {
                let (va, ta) = data_value_ptr(&*a.cast::<Data>());
                let (vb, tb) = data_value_ptr(&*b.cast::<Data>());
                if !datalove_rti::same_tydesc(ta, tb) {
                    let o = ta.type_name().cmp(&tb.type_name());
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                self.compare_values(va, vb, ta)
            }
            TyKind::BigInt => compare_bigints(&*a.cast::<BigInt>(), &*b.cast::<BigInt>()),
            kind => unreachable!("a {} value is a leaf, ordered above", kind.name()),
        }
    }

    /// Writes the text of the `td` value at `value` (see the module doc). `nested` is
    /// whether it sits inside an aggregate (strings are then quoted).
    ///
    /// # Safety
    /// `value` initialized.
    pub unsafe fn format_into(
        &self,
        out: &mut Vec<u8>,
        value: *const u8,
        td: &TyDesc,
        nested: bool,
    ) {
        use std::io::Write;
        let _ = match td.kind {
            TyKind::Unit => write!(out, "()"),
            TyKind::Bool => write!(out, "{}", *value != 0),
            TyKind::U8 => write!(out, "{}", *value),
            TyKind::U16 => write!(out, "{}", read::<u16>(value)),
            TyKind::U32 => write!(out, "{}", read::<u32>(value)),
            TyKind::U64 | TyKind::Index => write!(out, "{}", read::<u64>(value)),
            TyKind::I8 => write!(out, "{}", read::<i8>(value)),
            TyKind::I16 => write!(out, "{}", read::<i16>(value)),
            TyKind::I32 => write!(out, "{}", read::<i32>(value)),
            TyKind::I64 => write!(out, "{}", read::<i64>(value)),
            TyKind::F32 => write!(out, "{}", format_f32(read(value))),
            TyKind::F64 => write!(out, "{}", format_f64(read(value))),
            TyKind::String => {
                let s = &*value.cast::<RtString>();
                if nested {
                    push_quoted(out, s.as_bytes());
                } else {
                    out.extend_from_slice(s.as_bytes());
                }
                Ok(())
            }
            TyKind::List => {
                let list = &*value.cast::<List>();
                let elem = td.elem();
                let (p, len, _) = list.raw_parts();
                out.push(b'[');
                for i in 0..len {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    let e = if elem.size == 0 {
                        p
                    } else {
                        p.add(i * elem.size)
                    };
                    self.format_into(out, e, elem, true);
                }
                out.push(b']');
                Ok(())
            }
            TyKind::Map => {
                let (key, val) = (&td.elem().fields()[0], &td.elem().fields()[1]);
                out.push(b'{');
                let mut first = true;
                self.map_walk(&*value.cast::<Map>(), td, |entry| {
                    if !first {
                        out.extend_from_slice(b", ");
                    }
                    first = false;
                    self.format_into(out, entry.add(key.offset), &*key.desc, true);
                    out.extend_from_slice(b": ");
                    self.format_into(out, entry.add(val.offset), &*val.desc, true);
                });
                out.push(b'}');
                Ok(())
            }
            TyKind::Option => {
                if *value == 0 {
                    out.extend_from_slice(b"none");
                } else {
                    out.extend_from_slice(b"some(");
                    self.format_into(out, value.add(td.payload_offset), td.elem(), true);
                    out.push(b')');
                }
                Ok(())
            }
            TyKind::Record => {
                let names = td.record_names();
                out.extend_from_slice(names[0].as_bytes());
                out.extend_from_slice(b" {");
                for (i, field) in td.fields().iter().enumerate() {
                    out.extend_from_slice(if i > 0 { b", " } else { b" " });
                    out.extend_from_slice(names[i + 1].as_bytes());
                    out.extend_from_slice(b": ");
                    self.format_into(out, value.add(field.offset), &*field.desc, true);
                }
                out.extend_from_slice(if td.field_count > 0 { b" }" } else { b"}" });
                Ok(())
            }
            TyKind::Enum => {
                // `Circle(1.5)`, `Rect(2, 3)`; a variant without payload is its bare name.
                let (tag, payload) = td.variant(value);
                out.extend_from_slice(td.record_names()[tag + 1].as_bytes());
                if (*payload.desc).field_count > 0 {
                    out.push(b'(');
                    for (i, (offset, field_td)) in td.variant_fields(tag).enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        self.format_into(out, value.add(offset), field_td, true);
                    }
                    out.push(b')');
                }
                Ok(())
            }
            TyKind::Tuple => {
                out.push(b'(');
                for (i, field) in td.fields().iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    self.format_into(out, value.add(field.offset), &*field.desc, true);
                }
                if td.field_count == 1 {
                    out.push(b',');
                }
                out.push(b')');
                Ok(())
            }
            TyKind::Data => {
                let (held, held_td) = data_value_ptr(&*value.cast::<Data>());
                self.format_into(out, held, held_td, nested);
                Ok(())
            }
            TyKind::BigInt => write!(out, "{}", format_bigint(&*value.cast::<BigInt>())),
        };
    }

    /// The text `debuglog` prints for the value.
    ///
    /// # Safety
    /// `value` initialized.
    pub unsafe fn format_value(&self, value: *const u8, td: &TyDesc) -> Vec<u8> {
        let mut out = Vec::new();
        self.format_into(&mut out, value, td, false);
        out
    }

    /// Prints the value and a newline to the program's output.
    ///
    /// # Safety
    /// `value` initialized.
    pub unsafe fn debuglog_value(&self, value: *const u8, td: &TyDesc) {
        let text = self.format_value(value, td);
        if let Err(error) = self.output.write_line(&text) {
            self.output_failed(&error);
        }
    }
}

// ---- table entries ----

pub(crate) unsafe extern "C" fn clone(
    rt: Rt,
    src: *const c_void,
    td: Td,
    dst: *mut c_void,
) -> RtStatus {
    Runtime::from_handle(rt).clone_value(src.cast(), &*td, dst.cast());
    STATUS_OK
}

pub(crate) unsafe extern "C" fn drop(rt: Rt, value: *mut c_void, td: Td) {
    Runtime::from_handle(rt).drop_value(value.cast(), &*td)
}

pub(crate) unsafe extern "C" fn eq(rt: Rt, a: *const c_void, b: *const c_void, td: Td) -> u8 {
    (Runtime::from_handle(rt).compare_values(a.cast(), b.cast(), &*td) == Ordering::Equal) as u8
}

pub(crate) unsafe extern "C" fn cmp(rt: Rt, a: *const c_void, b: *const c_void, td: Td) -> i32 {
    ordering_i32(Runtime::from_handle(rt).compare_values(a.cast(), b.cast(), &*td))
}

pub(crate) unsafe extern "C" fn format(
    rt: Rt,
    value: *const c_void,
    td: Td,
    out: *mut RtString,
) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let text = rt.format_value(value.cast(), &*td);
    // Formatting joins UTF-8 strings and ASCII, so the text is UTF-8.
    out.write(rt.string_from_utf8(&text));
    STATUS_OK
}

pub(crate) unsafe extern "C" fn debuglog(rt: Rt, value: *const c_void, td: Td) {
    Runtime::from_handle(rt).debuglog_value(value.cast(), &*td)
}

impl Runtime {
    /// A deep copy of a list of `elem` values.
    ///
    /// # Safety
    /// `list` a live list of `elem` values of this runtime.
    pub(crate) unsafe fn clone_list(&self, list: &List, elem: &TyDesc) -> List {
        let mut copy = self.new_list(elem, list.len());
        let (sptr, len, _) = list.raw_parts();
        let (p, _, cap) = copy.raw_parts();
        if elem.is_copy() {
            if elem.size != 0 {
                std::ptr::copy_nonoverlapping(sptr, p, len * elem.size);
            }
        } else {
            for i in 0..len {
                self.clone_value(sptr.add(i * elem.size), elem, p.add(i * elem.size));
            }
        }
        copy.set_raw_parts(p, len, cap);
        copy
    }

    /// Lexicographic order of two lists of `elem` values (a prefix first).
    ///
    /// # Safety
    /// Both live lists of `elem` values.
    pub(crate) unsafe fn compare_lists(&self, la: &List, lb: &List, elem: &TyDesc) -> Ordering {
        let (na, nb) = (la.len(), lb.len());
        for i in 0..na.min(nb) {
            let ea = crate::lists::elem_ptr(la, elem, i).cast_const();
            let eb = crate::lists::elem_ptr(lb, elem, i).cast_const();
            let o = self.compare_values(ea, eb, elem);
            if o != Ordering::Equal {
                return o;
            }
        }
        na.cmp(&nb)
    }
}
