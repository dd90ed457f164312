//! `probe`: the conformance suite's test rider.
//!
//! Its natives exist to be called by the suite's cases (`conformance/cases/`), on every
//! backend, through the one C ABI:
//!
//! - `probe_args0` .. `probe_args14`: one native per parameter count. Parameter `i` of
//!   `probe_argsN` has the mode and type of entry `(i + N) % 20` of the
//!   `spec` list below (the `probe_args!` invocations spell each one out). Each checks every
//!   descriptor (kind, size, element kind) and fails naming the argument when one is
//!   wrong, applies its mode's effect (`mut`: an `i32` is incremented, a `[u8]` gets its
//!   position pushed, a string gets `+<position>` appended; `out`: a `u16` gets `1000 +
//!   position`, a string `out<position>`; `in`: an owned string, list or data is dropped
//!   through the runtime) and returns a text describing every argument:
//!   `0:u32=30, 1:mut i32=-69, 2:i64=-30000000002`.
//! - `probe_max_words`: 14 parameters and a trailing descriptor, the 32-word maximum.
//! - `probe_default`, `probe_sample`, `probe_pair`, `probe_triple`: return-position type
//!   parameters (1, 2 and 3 trailing descriptors), checked against the result's.
//! - `probe_fail*`, `probe_panic*`: failures with a message, and panics the guard turns
//!   into a failure status.
//! - Natives that call back into the runtime, and generic ones that read and write
//!   values only through their descriptors.

// Every native's safety contract is the one ABI's (`docs/abi.md`), not its own.
#![allow(clippy::missing_safety_doc)]

use std::ffi::c_void;
use std::fmt::Write as _;
use std::mem::MaybeUninit;

use datalove_rti::call;
use datalove_rti::rider_helpers::{
    check, clone_value, data_borrow, drop_string, drop_value, expect_kind, format_value,
    init_value, make_string, new_string, read_int, write_int, Failure, StringMut,
};
use datalove_rti::rtdt::{self, AnyMut, AnyOut, AnyOwned, AnyRef, RtHandle};
use datalove_rti::tydesc::{kind_layout, I64_TYDESC, STRING_TYDESC, U16_TYDESC, U64_TYDESC};
use datalove_rti::{same_tydesc, RtStatus, TyDesc, TyKind};

include!(concat!(env!("OUT_DIR"), "/datalove_rider.rs"));

datalove_rti::export_rider!(probe);

// ---------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------

/// A string's bytes in double quotes, with `"`, `\`, newline, tab and NUL escaped.
fn quoted(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for c in String::from_utf8_lossy(bytes).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The elements of a list, as a typed slice view.
///
/// # Safety
/// `list` must hold elements of `T`'s layout.
unsafe fn elements<T>(list: &rtdt::List) -> &[T] {
    let (ptr, len, _) = list.raw_parts();
    if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr.cast::<T>(), len)
    }
}

fn joined<T>(items: &[T], show: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = items.iter().map(show).collect();
    format!("[{}]", parts.join(", "))
}

fn describe_td(td: &TyDesc) -> String {
    // SAFETY: every descriptor a native receives is well formed.
    let name = unsafe { td.type_name() };
    format!("{name} (size {})", td.size)
}

// ---------------------------------------------------------------------------------------
// probe_args0 .. probe_args14
// ---------------------------------------------------------------------------------------

/// What one parameter of the cycle must be described as. The cycle is the order of
/// the constants in `spec`: parameter `i` of `probe_argsN` is entry `(i + N) % 20`.
struct Spec {
    mode: &'static str,
    ty: &'static str,
    kind: TyKind,
    elem: Option<TyKind>,
}

#[allow(non_upper_case_globals)]
mod spec {
    use super::Spec;
    use datalove_rti::TyKind;

    const fn s(mode: &'static str, ty: &'static str, kind: TyKind, elem: Option<TyKind>) -> Spec {
        Spec {
            mode,
            ty,
            kind,
            elem,
        }
    }

    pub const U8: Spec = s("in", "u8", TyKind::U8, None);
    pub const I16: Spec = s("in", "i16", TyKind::I16, None);
    pub const RefStr: Spec = s("ref", "string", TyKind::String, None);
    pub const U32: Spec = s("in", "u32", TyKind::U32, None);
    pub const MutI32: Spec = s("mut", "i32", TyKind::I32, None);
    pub const I64: Spec = s("in", "i64", TyKind::I64, None);
    pub const F64: Spec = s("in", "f64", TyKind::F64, None);
    pub const InStr: Spec = s("in", "string", TyKind::String, None);
    pub const Bool: Spec = s("in", "bool", TyKind::Bool, None);
    pub const MutListU8: Spec = s("mut", "[u8]", TyKind::List, Some(TyKind::U8));
    pub const F32: Spec = s("in", "f32", TyKind::F32, None);
    pub const OutU16: Spec = s("out", "u16", TyKind::U16, None);
    pub const Index: Spec = s("in", "index", TyKind::Index, None);
    pub const OutStr: Spec = s("out", "string", TyKind::String, None);
    pub const U64: Spec = s("in", "u64", TyKind::U64, None);
    pub const I8: Spec = s("in", "i8", TyKind::I8, None);
    pub const MutStr: Spec = s("mut", "string", TyKind::String, None);
    pub const InListStr: Spec = s("in", "[string]", TyKind::List, Some(TyKind::String));
    pub const RefListI64: Spec = s("ref", "[i64]", TyKind::List, Some(TyKind::I64));
    pub const InData: Spec = s("in", "data", TyKind::Data, None);
}

/// The Rust type of a cycle entry's value word (what `rider.dli` makes it).
macro_rules! arg_type {
    (U8) => { &u8 };
    (I16) => { &i16 };
    (RefStr) => { &rtdt::String };
    (U32) => { &u32 };
    (MutI32) => { &mut i32 };
    (I64) => { &i64 };
    (F64) => { &f64 };
    (InStr) => { &mut rtdt::String };
    (Bool) => { &bool };
    (MutListU8) => { &mut rtdt::List };
    (F32) => { &f32 };
    (OutU16) => { &mut MaybeUninit<u16> };
    (Index) => { &rtdt::Index };
    (OutStr) => { &mut MaybeUninit<rtdt::String> };
    (U64) => { &u64 };
    (I8) => { &i8 };
    (MutStr) => { &mut rtdt::String };
    (InListStr) => { &mut rtdt::List };
    (RefListI64) => { &rtdt::List };
    (InData) => { &mut rtdt::Data };
}

/// One call of a `probe_argsN`: the description being written.
struct Args {
    rt: RtHandle,
    native: &'static str,
    text: String,
}

impl Args {
    fn new(rt: RtHandle, native: &'static str) -> Args {
        Args {
            rt,
            native,
            text: String::new(),
        }
    }

    fn check_result(&self, td: &TyDesc) -> Result<(), Failure> {
        if td.kind != TyKind::String || td.size != kind_layout(TyKind::String).size {
            return Err(Failure::type_mismatch(format!(
                "{}: the result should be described as string, but its descriptor says {}",
                self.native,
                describe_td(td)
            )));
        }
        Ok(())
    }

    /// Fails naming the argument when its descriptor is not the spec's.
    fn check(&self, position: usize, name: &str, td: &TyDesc, spec: &Spec) -> Result<(), Failure> {
        let size = kind_layout(spec.kind).size;
        // SAFETY: a list descriptor's element is well formed.
        let elem_ok = spec
            .elem
            .is_none_or(|k| !td.elem.is_null() && unsafe { td.elem() }.kind == k);
        if td.kind == spec.kind && td.size == size && elem_ok {
            return Ok(());
        }
        Err(Failure::type_mismatch(format!(
            "{}: argument {position} ({name}) should be described as {} (size {size}), but its descriptor says {}",
            self.native,
            spec.ty,
            describe_td(td)
        )))
    }

    /// Appends `<position>:<mode> <type>=<value>` (no mode word for `in`).
    fn entry(&mut self, position: usize, spec: &Spec, value: Option<String>) {
        if !self.text.is_empty() {
            self.text.push_str(", ");
        }
        let mode = if spec.mode == "in" {
            String::new()
        } else {
            format!("{} ", spec.mode)
        };
        let _ = write!(self.text, "{position}:{mode}{}", spec.ty);
        if let Some(value) = value {
            let _ = write!(self.text, "={value}");
        }
    }
}

/// Each cycle entry's effect: describe the argument, then do what its mode asks.
#[allow(non_snake_case)]
mod apply {
    use super::*;

    type R = Result<(), Failure>;

    /// The entries that are only described, with the value `$value` (of the argument
    /// `$p`): nothing else to do for their mode.
    macro_rules! described {
        ($($kind:ident($p:ident) => $value:expr;)*) => {$(
            pub unsafe fn $kind(a: &mut Args, i: usize, $p: arg_type!($kind), _td: &TyDesc) -> R {
                a.entry(i, &spec::$kind, Some($value));
                Ok(())
            }
        )*};
    }

    described! {
        U8(p) => p.to_string();
        I16(p) => p.to_string();
        RefStr(p) => quoted(p.as_bytes());
        U32(p) => p.to_string();
        I64(p) => p.to_string();
        F64(p) => format!("{p:?}");
        Bool(p) => p.to_string();
        F32(p) => format!("{p:?}");
        Index(p) => p.0.to_string();
        U64(p) => p.to_string();
        I8(p) => p.to_string();
        RefListI64(p) => joined(elements::<i64>(p), i64::to_string);
    }

    pub unsafe fn MutI32(a: &mut Args, i: usize, p: &mut i32, _td: &TyDesc) -> R {
        a.entry(i, &spec::MutI32, Some(p.to_string()));
        *p = p.wrapping_add(1);
        Ok(())
    }
    pub unsafe fn InStr(a: &mut Args, i: usize, p: &mut rtdt::String, td: &TyDesc) -> R {
        a.entry(i, &spec::InStr, Some(quoted(p.as_bytes())));
        drop_value(a.rt, &(p as *mut rtdt::String as *mut u8), td);
        Ok(())
    }
    pub unsafe fn MutListU8(a: &mut Args, i: usize, p: &mut rtdt::List, td: &TyDesc) -> R {
        a.entry(
            i,
            &spec::MutListU8,
            Some(joined(elements::<u8>(p), u8::to_string)),
        );
        let mut value = i as u8;
        check(
            a.rt,
            call::dtlv_rti_list_push(a.rt, p, td.elem(), (&mut value as *mut u8).cast()),
        )
    }
    pub unsafe fn OutU16(a: &mut Args, i: usize, p: &mut MaybeUninit<u16>, _td: &TyDesc) -> R {
        a.entry(i, &spec::OutU16, None);
        p.write(1000 + i as u16);
        Ok(())
    }
    pub unsafe fn OutStr(
        a: &mut Args,
        i: usize,
        p: &mut MaybeUninit<rtdt::String>,
        _td: &TyDesc,
    ) -> R {
        a.entry(i, &spec::OutStr, None);
        make_string(a.rt, &format!("out{i}"), p)
    }
    pub unsafe fn MutStr(a: &mut Args, i: usize, p: &mut rtdt::String, _td: &TyDesc) -> R {
        a.entry(i, &spec::MutStr, Some(quoted(p.as_bytes())));
        StringMut::new(a.rt, p).push_str(&format!("+{i}"))
    }
    pub unsafe fn InListStr(a: &mut Args, i: usize, p: &mut rtdt::List, td: &TyDesc) -> R {
        let text = joined(elements::<rtdt::String>(p), |s| quoted(s.as_bytes()));
        a.entry(i, &spec::InListStr, Some(text));
        drop_value(a.rt, &(p as *mut rtdt::List as *mut u8), td);
        Ok(())
    }
    pub unsafe fn InData(a: &mut Args, i: usize, p: &mut rtdt::Data, td: &TyDesc) -> R {
        let mut name = MaybeUninit::uninit();
        check(a.rt, call::dtlv_rti_data_type_name(a.rt, p, &mut name))?;
        let name = name.assume_init();
        let type_name = name.as_str().to_owned();
        drop_string(a.rt, name);
        let value = format_value(a.rt, &(p as *const rtdt::Data as *const u8), td)?;
        a.entry(i, &spec::InData, Some(format!("data({type_name}:{value})")));
        drop_value(a.rt, &(p as *mut rtdt::Data as *mut u8), td);
        Ok(())
    }
}

macro_rules! probe_args {
    ($symbol:ident, $native:literal; $($p:ident $p_td:ident: $kind:ident),* $(,)?) => {
        datalove_rti::natives! {
            #[allow(unused_mut, unused_assignments, unused_variables)]
            fn $symbol(
                rt,
                $($p: arg_type!($kind), $p_td,)*
                result_out: &mut MaybeUninit<rtdt::String>, result_td,
            ) {
                let mut args = Args::new(rt, $native);
                args.check_result(result_td)?;
                // Every descriptor first, so a wrong one fails before anything is changed.
                let mut position = 0usize;
                $(
                    args.check(position, stringify!($p), $p_td, &spec::$kind)?;
                    position += 1;
                )*
                let mut position = 0usize;
                $(
                    apply::$kind(&mut args, position, $p, $p_td)?;
                    position += 1;
                )*
                if args.text.is_empty() {
                    args.text.push_str("no arguments");
                }
                make_string(rt, &args.text, result_out)
            }
        }
    };
}

probe_args!(dlr_probe__probe_args0, "probe_args0"; );
probe_args!(dlr_probe__probe_args1, "probe_args1"; p0 p0_td: I16);
probe_args!(dlr_probe__probe_args2, "probe_args2"; p0 p0_td: RefStr, p1 p1_td: U32);
probe_args!(dlr_probe__probe_args3, "probe_args3"; p0 p0_td: U32, p1 p1_td: MutI32, p2 p2_td: I64);
probe_args!(dlr_probe__probe_args4, "probe_args4"; p0 p0_td: MutI32, p1 p1_td: I64, p2 p2_td: F64, p3 p3_td: InStr);
probe_args!(dlr_probe__probe_args5, "probe_args5"; p0 p0_td: I64, p1 p1_td: F64, p2 p2_td: InStr, p3 p3_td: Bool, p4 p4_td: MutListU8);
probe_args!(dlr_probe__probe_args6, "probe_args6"; p0 p0_td: F64, p1 p1_td: InStr, p2 p2_td: Bool, p3 p3_td: MutListU8, p4 p4_td: F32, p5 p5_td: OutU16);
probe_args!(dlr_probe__probe_args7, "probe_args7"; p0 p0_td: InStr, p1 p1_td: Bool, p2 p2_td: MutListU8, p3 p3_td: F32, p4 p4_td: OutU16, p5 p5_td: Index, p6 p6_td: OutStr);
probe_args!(dlr_probe__probe_args8, "probe_args8"; p0 p0_td: Bool, p1 p1_td: MutListU8, p2 p2_td: F32, p3 p3_td: OutU16, p4 p4_td: Index, p5 p5_td: OutStr, p6 p6_td: U64, p7 p7_td: I8);
probe_args!(dlr_probe__probe_args9, "probe_args9"; p0 p0_td: MutListU8, p1 p1_td: F32, p2 p2_td: OutU16, p3 p3_td: Index, p4 p4_td: OutStr, p5 p5_td: U64, p6 p6_td: I8, p7 p7_td: MutStr, p8 p8_td: InListStr);
probe_args!(dlr_probe__probe_args10, "probe_args10"; p0 p0_td: F32, p1 p1_td: OutU16, p2 p2_td: Index, p3 p3_td: OutStr, p4 p4_td: U64, p5 p5_td: I8, p6 p6_td: MutStr, p7 p7_td: InListStr, p8 p8_td: RefListI64, p9 p9_td: InData);
probe_args!(dlr_probe__probe_args11, "probe_args11"; p0 p0_td: OutU16, p1 p1_td: Index, p2 p2_td: OutStr, p3 p3_td: U64, p4 p4_td: I8, p5 p5_td: MutStr, p6 p6_td: InListStr, p7 p7_td: RefListI64, p8 p8_td: InData, p9 p9_td: U8, p10 p10_td: I16);
probe_args!(dlr_probe__probe_args12, "probe_args12"; p0 p0_td: Index, p1 p1_td: OutStr, p2 p2_td: U64, p3 p3_td: I8, p4 p4_td: MutStr, p5 p5_td: InListStr, p6 p6_td: RefListI64, p7 p7_td: InData, p8 p8_td: U8, p9 p9_td: I16, p10 p10_td: RefStr, p11 p11_td: U32);
probe_args!(dlr_probe__probe_args13, "probe_args13"; p0 p0_td: OutStr, p1 p1_td: U64, p2 p2_td: I8, p3 p3_td: MutStr, p4 p4_td: InListStr, p5 p5_td: RefListI64, p6 p6_td: InData, p7 p7_td: U8, p8 p8_td: I16, p9 p9_td: RefStr, p10 p10_td: U32, p11 p11_td: MutI32, p12 p12_td: I64);
probe_args!(dlr_probe__probe_args14, "probe_args14"; p0 p0_td: U64, p1 p1_td: I8, p2 p2_td: MutStr, p3 p3_td: InListStr, p4 p4_td: RefListI64, p5 p5_td: InData, p6 p6_td: U8, p7 p7_td: I16, p8 p8_td: RefStr, p9 p9_td: U32, p10 p10_td: MutI32, p11 p11_td: I64, p12 p12_td: F64, p13 p13_td: InStr);

// ---------------------------------------------------------------------------------------
// Values through descriptors
// ---------------------------------------------------------------------------------------

/// Scratch room for one value of `td` (aligned to 8, the largest alignment of any type).
fn scratch(td: &TyDesc) -> Result<Vec<u64>, Failure> {
    if td.align > 8 {
        return Err(Failure::failed(format!(
            "probe: a {} aligned to {} is more than the probe rider handles",
            describe_td(td),
            td.align
        )));
    }
    Ok(vec![0u64; td.size.div_ceil(8).max(1)])
}

/// Fails unless `a` and `b` describe the same type.
unsafe fn expect_same(native: &str, what: &str, a: &TyDesc, b: &TyDesc) -> Result<(), Failure> {
    if same_tydesc(a, b) {
        Ok(())
    } else {
        Err(Failure::type_mismatch(format!(
            "{native}: {what}: {} is not {}",
            describe_td(a),
            describe_td(b)
        )))
    }
}

/// The value at `p` written out by walking its descriptor: `u8:5`, `string:"a"`,
/// `list[i32:1,i32:2]`, `some(f64:0.5)`, `none`, `tuple(bool:true,index:3)`, `data(...)`,
/// `record P{x=f64:1.0}`, `map{u8:1=>string:"a"}`, `bigint:-0,1` (sign, then limbs).
///
/// # Safety
/// `p` must hold an initialized value of `td`.
unsafe fn walk(rt: RtHandle, p: *const u8, td: &TyDesc, out: &mut String) -> Result<(), Failure> {
    let kind = td.kind;
    match kind {
        TyKind::Unit => out.push_str("unit"),
        TyKind::Bool => {
            let _ = write!(out, "bool:{}", *p != 0);
        }
        TyKind::F32 => {
            let _ = write!(out, "f32:{:?}", p.cast::<f32>().read_unaligned());
        }
        TyKind::F64 => {
            let _ = write!(out, "f64:{:?}", p.cast::<f64>().read_unaligned());
        }
        k if k.is_integer() => {
            let _ = write!(out, "{}:{}", k.name(), read_int(&p, td)?);
        }
        TyKind::String => {
            let s = &*p.cast::<rtdt::String>();
            let _ = write!(out, "string:{}", quoted(s.as_bytes()));
        }
        TyKind::List => {
            let list = &*p.cast::<rtdt::List>();
            let elem = td.elem();
            out.push_str("list[");
            for i in 0..call::dtlv_rti_list_len(rt, list) {
                if i > 0 {
                    out.push(',');
                }
                let at = call::dtlv_rti_list_at(rt, list, elem, i);
                walk(rt, at.cast(), elem, out)?;
            }
            out.push(']');
        }
        TyKind::Option => {
            if *p == 0 {
                out.push_str("none");
            } else {
                out.push_str("some(");
                walk(rt, p.add(td.payload_offset), td.elem(), out)?;
                out.push(')');
            }
        }
        TyKind::Record => {
            // A record through its descriptor: the names travel with the fields.
            let names = td.record_names();
            let _ = write!(out, "record {}{{", names[0]);
            for (i, field) in td.fields().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}=", names[i + 1]);
                walk(rt, p.add(field.offset), &*field.desc, out)?;
            }
            out.push('}');
        }
        TyKind::Enum => {
            // An enum through its descriptor: the tag picks the variant's payload tuple.
            let (tag, payload) = td.variant(p);
            let _ = write!(
                out,
                "enum {}.{}=",
                td.record_names()[0],
                td.record_names()[tag + 1]
            );
            walk(rt, p.add(payload.offset), &*payload.desc, out)?;
        }
        TyKind::Tuple => {
            out.push_str("tuple(");
            for (i, field) in td.fields().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                walk(rt, p.add(field.offset), &*field.desc, out)?;
            }
            out.push(')');
        }
        TyKind::Data => {
            let mut word = 0u64;
            let (held, held_td) = data_borrow(rt, &*p.cast::<rtdt::Data>(), &mut word);
            out.push_str("data(");
            walk(rt, held.cast(), held_td, out)?;
            out.push(')');
        }
        TyKind::BigInt => {
            let b = &*p.cast::<rtdt::BigInt>();
            let sign = if b.is_negative() { "-" } else { "" };
            let _ = write!(out, "bigint:{sign}{}", joined(b.limbs(), u64::to_string));
        }
        TyKind::Map => {
            // A map through its descriptor: each entry where the runtime keeps it (in the
            // order of keys), its key and value where the entry tuple's fields say.
            let m = &*p.cast::<rtdt::Map>();
            let fields = td.fields();
            out.push_str("map{");
            for i in 0..call::dtlv_rti_map_len(rt, m) {
                if i > 0 {
                    out.push(',');
                }
                let entry = call::dtlv_rti_map_entry_at(rt, m, td, i).cast::<u8>();
                walk(rt, entry.add(fields[0].offset), &*fields[0].desc, out)?;
                out.push_str("=>");
                walk(rt, entry.add(fields[1].offset), &*fields[1].desc, out)?;
            }
            out.push('}');
        }
        other => unreachable!("every kind is matched above: {other:?}"),
    }
    Ok(())
}

/// Writes the probe's sample value of `td` at `out`: each integer kind its bit width
/// (signed ones negative: `i16` is -16), `index` 12, `f32` 0.5, `f64` 0.25, `true`,
/// `"sample"`, a list of one sample element, `some(sample)`, a tuple (or record) of
/// samples, a data holding the `u16` 16, the bigint -2^64 and a map of one entry, the
/// key's sample to the value's.
///
/// # Safety
/// `out` must have room for a value of `td`.
unsafe fn write_sample(rt: RtHandle, out: *mut u8, td: &TyDesc) -> Result<(), Failure> {
    match td.kind {
        TyKind::Unit => {}
        TyKind::Bool => out.write(1),
        TyKind::F32 => out.cast::<f32>().write_unaligned(0.5),
        TyKind::F64 => out.cast::<f64>().write_unaligned(0.25),
        TyKind::Index => write_int(&out, td, 12)?,
        k if k.is_integer() => {
            let bits = 8 * td.size as i128;
            write_int(&out, td, if k.is_signed() { -bits } else { bits })?;
        }
        TyKind::String => {
            make_string(rt, "sample", &mut *out.cast::<MaybeUninit<rtdt::String>>())?;
        }
        TyKind::List => {
            let elem = td.elem();
            let list = &mut *out.cast::<MaybeUninit<rtdt::List>>();
            check(rt, call::dtlv_rti_list_new(rt, elem, 1, list))?;
            let mut room = scratch(elem)?;
            let value: *mut u8 = room.as_mut_ptr().cast();
            write_sample(rt, value, elem)?;
            check(
                rt,
                call::dtlv_rti_list_push(rt, list.assume_init_mut(), elem, value.cast()),
            )?;
        }
        TyKind::Option => {
            init_value(rt, &out, td);
            write_sample(rt, out.add(td.payload_offset), td.elem())?;
            out.write(1);
        }
        TyKind::Tuple | TyKind::Record => {
            for field in td.fields() {
                write_sample(rt, out.add(field.offset), &*field.desc)?;
            }
        }
        TyKind::Enum => {
            // The last variant (so that a reader that assumes the first one shows it),
            // its payload sampled field by field.
            let tag = td.field_count.checked_sub(1).ok_or_else(|| {
                Failure::failed("probe_sample: an enum without variants".to_string())
            })?;
            let payload = &td.fields()[tag];
            write_sample(rt, out.add(payload.offset), &*payload.desc)?;
            out.cast::<u32>().write_unaligned(tag as u32);
        }
        TyKind::Map => {
            // One entry, the key's sample to the value's, moved in by `map_insert`.
            let fields = td.fields();
            let (key_td, value_td) = (&*fields[0].desc, &*fields[1].desc);
            let mut key = scratch(key_td)?;
            let mut value = scratch(value_td)?;
            write_sample(rt, key.as_mut_ptr().cast(), key_td)?;
            if let Err(failure) = write_sample(rt, value.as_mut_ptr().cast(), value_td) {
                call::dtlv_rti_drop(rt, key.as_mut_ptr().cast(), key_td);
                return Err(failure);
            }
            let mut map = rtdt::Map::from_raw(std::ptr::null_mut());
            let status = call::dtlv_rti_map_insert(
                rt,
                &mut map,
                td,
                key.as_mut_ptr().cast(),
                value.as_mut_ptr().cast(),
            );
            if let Err(failure) = check(rt, status) {
                call::dtlv_rti_drop(rt, (&mut map as *mut rtdt::Map).cast(), td);
                return Err(failure);
            }
            out.cast::<rtdt::Map>().write(map);
        }
        TyKind::Data => {
            let mut value = 16u16;
            check(
                rt,
                call::dtlv_rti_data_make(
                    rt,
                    (&mut value as *mut u16).cast(),
                    &U16_TYDESC,
                    &mut *out.cast::<MaybeUninit<rtdt::Data>>(),
                ),
            )?;
        }
        TyKind::BigInt => {
            // -2^64: two limbs, so a reader that takes only the low word shows it.
            let b = &mut *out.cast::<MaybeUninit<rtdt::BigInt>>();
            check(rt, call::dtlv_rti_bigint_from_limbs(rt, true, &[0, 1], b))?;
        }
        other => unreachable!("every kind is matched above: {other:?}"),
    }
    Ok(())
}

/// Checks that `tuple` is a tuple whose fields are described by `parts`, in order.
unsafe fn expect_fields(native: &str, tuple: &TyDesc, parts: &[&TyDesc]) -> Result<(), Failure> {
    if tuple.kind != TyKind::Tuple || tuple.field_count != parts.len() {
        return Err(Failure::type_mismatch(format!(
            "{native}: the result should be a tuple of {}, but its descriptor says {}",
            parts.len(),
            describe_td(tuple)
        )));
    }
    for (i, (field, part)) in tuple.fields().iter().zip(parts).enumerate() {
        let what = format!("trailing descriptor {i} against result field {i}");
        expect_same(native, &what, part, &*field.desc)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The widest call and return-position type parameters
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// `sum(a_i * (i + 1))` as a `T`: every argument counts, each at its own weight, so a
    /// swapped or dropped word changes the answer. Fails when the sum does not fit in `T`.
    fn dlr_probe__probe_max_words(
        rt,
        a0: &u8, _a0_td,
        a1: &u8, _a1_td,
        a2: &u8, _a2_td,
        a3: &u8, _a3_td,
        a4: &u8, _a4_td,
        a5: &u8, _a5_td,
        a6: &u8, _a6_td,
        a7: &u8, _a7_td,
        a8: &u8, _a8_td,
        a9: &u8, _a9_td,
        a10: &u8, _a10_td,
        a11: &u8, _a11_td,
        a12: &u8, _a12_td,
        a13: &u8, _a13_td,
        result_out: AnyOut<'_>, result_td
        ; t_td
    ) {
        expect_same(
            "probe_max_words",
            "trailing descriptor T against the result",
            t_td,
            result_td,
        )?;
        let args = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13];
        let sum: i128 = args
            .iter()
            .enumerate()
            .map(|(i, a)| **a as i128 * (i as i128 + 1))
            .sum();
        write_int(&result_out, result_td, sum)
            .map_err(|f| Failure::failed(format!("probe_max_words: {}", f.message)))
    }

    fn dlr_probe__probe_default(rt, result_out: AnyOut<'_>, result_td; t_td) {
        expect_same(
            "probe_default",
            "trailing descriptor T against the result",
            t_td,
            result_td,
        )?;
        init_value(rt, &result_out, t_td);
        Ok(())
    }

    fn dlr_probe__probe_sample(rt, result_out: AnyOut<'_>, result_td; t_td) {
        expect_same(
            "probe_sample",
            "trailing descriptor T against the result",
            t_td,
            result_td,
        )?;
        write_sample(rt, result_out.as_ptr(), t_td)
    }

    fn dlr_probe__probe_pair(rt, result_out: AnyOut<'_>, result_td; a_td, b_td) {
        expect_fields("probe_pair", result_td, &[a_td, b_td])?;
        write_sample(rt, result_out.as_ptr(), result_td)
    }

    fn dlr_probe__probe_triple(rt, result_out: AnyOut<'_>, result_td; a_td, b_td, c_td) {
        expect_fields("probe_triple", result_td, &[a_td, b_td, c_td])?;
        write_sample(rt, result_out.as_ptr(), result_td)
    }
}

// ---------------------------------------------------------------------------------------
// Failing and panicking
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    fn dlr_probe__probe_fail(
        rt,
        why: &rtdt::String, _why_td,
        _result_out: &mut MaybeUninit<i32>, _result_td,
    ) {
        Err(Failure::failed(why.as_str()))
    }

    /// Takes `s` and `xs` over `in`, drops both (they are the native's whatever it
    /// returns), then fails with `why`.
    fn dlr_probe__probe_fail_owned(
        rt,
        s: &mut rtdt::String, s_td,
        xs: &mut rtdt::List, xs_td,
        why: &rtdt::String, _why_td,
        _result_out: &mut MaybeUninit<i32>, _result_td,
    ) {
        drop_value(rt, &(s as *mut rtdt::String as *mut u8), s_td);
        drop_value(rt, &(xs as *mut rtdt::List as *mut u8), xs_td);
        Err(Failure::failed(why.as_str()))
    }

    fn dlr_probe__probe_panic(rt, _result_out: &mut MaybeUninit<i32>, _result_td) {
        panic!("probe_panic was asked to panic")
    }

    /// Pushes 99 onto the caller's list (the runtime's now, whatever happens), then panics.
    fn dlr_probe__probe_panic_after_push(
        rt,
        xs: &mut rtdt::List, xs_td,
        _result_out: &mut MaybeUninit<i32>, _result_td,
    ) {
        let mut value = 99u8;
        check(
            rt,
            call::dtlv_rti_list_push(rt, xs, xs_td.elem(), (&mut value as *mut u8).cast()),
        )?;
        panic!("after pushing 99 the list has {} elements", xs.len())
    }
}

/// Fails with a message no error line may print raw: two lines, a tab, a NUL and two
/// bytes that are not UTF-8 (set through the table directly: the `&str` wrappers cannot
/// carry them).
#[no_mangle]
pub unsafe extern "C-unwind" fn dlr_probe__probe_fail_bytes(
    rt: RtHandle,
    _result_out: &mut MaybeUninit<i32>,
    _result_td: &TyDesc,
) -> RtStatus {
    let message: &[u8] = b"line one\nline two\tafter a tab\0after a NUL \xff\xfe end";
    (call::table(rt).error_set)(rt.as_ptr(), message.as_ptr(), message.len());
    datalove_rti::status::STATUS_FAILED
}

datalove_rti::natives! {
    /// Panics with a message of two lines.
    fn dlr_probe__probe_panic_lines(rt, _result_out: &mut MaybeUninit<i32>, _result_td) {
        panic!("first line\nsecond line")
    }

    /// Raises `why` as an index-out-of-bounds error through the runtime, then writes its
    /// result and `note` and returns OK anyway: the caller must treat it as a failure and
    /// drop both strings.
    fn dlr_probe__probe_raise_ok(
        rt,
        why: &rtdt::String, _why_td,
        note: &mut MaybeUninit<rtdt::String>, _note_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        call::dtlv_rti_raise(rt, datalove_rti::ErrorKind::IndexOutOfBounds, why.as_str());
        make_string(rt, "a note nobody reads", note)?;
        make_string(rt, "a result nobody reads", result_out)
    }
}

/// Writes to an address nothing is mapped at: SIGSEGV, here, in this native's own code.
#[no_mangle]
pub unsafe extern "C-unwind" fn dlr_probe__probe_segv(
    _rt: RtHandle,
    _result_out: &mut MaybeUninit<i32>,
    _result_td: &TyDesc,
) -> RtStatus {
    std::ptr::write_volatile(std::ptr::without_provenance_mut::<u8>(16), 1);
    datalove_rti::status::STATUS_OK
}

/// Calls `abort()`: SIGABRT, raised inside libc on this native's behalf.
#[no_mangle]
pub unsafe extern "C-unwind" fn dlr_probe__probe_abort(
    _rt: RtHandle,
    _result_out: &mut MaybeUninit<i32>,
    _result_td: &TyDesc,
) -> RtStatus {
    std::process::abort()
}

// ---------------------------------------------------------------------------------------
// Calling back into the runtime
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// The parts joined by `sep`, built with `string_from_bytes` and `string_push`.
    fn dlr_probe__probe_join(
        rt,
        parts: &rtdt::List, parts_td,
        sep: &rtdt::String, _sep_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        expect_same(
            "probe_join",
            "the parts' element",
            parts_td.elem(),
            &STRING_TYDESC,
        )?;
        check(rt, call::dtlv_rti_string_from_bytes(rt, b"", result_out))?;
        let joined = result_out.assume_init_mut();
        for (i, part) in elements::<rtdt::String>(parts).iter().enumerate() {
            if i > 0 {
                check(
                    rt,
                    call::dtlv_rti_string_push(rt, joined, call::dtlv_rti_string_bytes(rt, sep)),
                )?;
            }
            check(
                rt,
                call::dtlv_rti_string_push(rt, joined, call::dtlv_rti_string_bytes(rt, part)),
            )?;
        }
        Ok(())
    }

    /// Pushes `from`, `from + 1`, ..., `to - 1`.
    fn dlr_probe__probe_push_range(
        rt,
        xs: &mut rtdt::List, xs_td,
        from: &u32, _from_td,
        to: &u32, _to_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        for mut v in *from..*to {
            check(
                rt,
                call::dtlv_rti_list_push(rt, xs, xs_td.elem(), (&mut v as *mut u32).cast()),
            )?;
        }
        Ok(())
    }

    /// `[data(n), data(s), data([n, n + 1])]`: a packed scalar, a boxed string and a boxed
    /// list whose descriptor the runtime interned.
    fn dlr_probe__probe_make_data(
        rt,
        n: &i64, _n_td,
        s: &rtdt::String, s_td,
        result_out: &mut MaybeUninit<rtdt::List>, result_td,
    ) {
        let data_td = result_td.elem();
        check(rt, call::dtlv_rti_list_new(rt, data_td, 3, result_out))?;
        let list = result_out.assume_init_mut();
        let mut push_data = |value: *mut c_void, td: &TyDesc| -> Result<(), Failure> {
            let mut data = MaybeUninit::<rtdt::Data>::uninit();
            check(rt, call::dtlv_rti_data_make(rt, value, td, &mut data))?;
            check(
                rt,
                call::dtlv_rti_list_push(rt, list, data_td, data.as_mut_ptr().cast()),
            )
        };
        let mut number = *n;
        push_data((&mut number as *mut i64).cast(), &I64_TYDESC)?;
        let mut text = MaybeUninit::<rtdt::String>::uninit();
        check(
            rt,
            call::dtlv_rti_clone(
                rt,
                (s as *const rtdt::String).cast(),
                s_td,
                text.as_mut_ptr().cast(),
            ),
        )?;
        push_data(text.as_mut_ptr().cast(), &STRING_TYDESC)?;
        let list_td = call::dtlv_rti_tydesc_list(rt, &I64_TYDESC);
        let mut numbers = MaybeUninit::<rtdt::List>::uninit();
        check(
            rt,
            call::dtlv_rti_list_new(rt, &I64_TYDESC, 2, &mut numbers),
        )?;
        for mut v in [*n, n.wrapping_add(1)] {
            check(
                rt,
                call::dtlv_rti_list_push(
                    rt,
                    numbers.assume_init_mut(),
                    &I64_TYDESC,
                    (&mut v as *mut i64).cast(),
                ),
            )?;
        }
        push_data(numbers.as_mut_ptr().cast(), list_td)
    }

    /// Writes `text ++ "!"` into `s`.
    fn dlr_probe__probe_set_string(
        rt,
        s: &mut MaybeUninit<rtdt::String>, _s_td,
        text: &rtdt::String, _text_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        make_string(rt, &format!("{}!", text.as_str()), s)
    }

    /// `t.0 + 1` and `t.1 ++ "+"`, in place, through the tuple's field offsets.
    fn dlr_probe__probe_bump_pair(
        rt,
        t: AnyMut<'_>, t_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        let fields = t_td.fields();
        if t_td.kind != TyKind::Tuple
            || fields.len() != 2
            || (*fields[0].desc).kind != TyKind::I32
            || (*fields[1].desc).kind != TyKind::String
        {
            return Err(Failure::type_mismatch(format!(
                "probe_bump_pair: argument t should be described as (i32, string), but its descriptor says {}",
                describe_td(t_td)
            )));
        }
        let number = t.as_ptr().add(fields[0].offset).cast::<i32>();
        number.write_unaligned(number.read_unaligned().wrapping_add(1));
        let text = &mut *t.as_ptr().add(fields[1].offset).cast::<rtdt::String>();
        StringMut::new(rt, text).push_str("+")
    }

    /// `none` becomes `some(0)`, `some(v)` becomes `some(v + 1)` (failing past `i64`'s top).
    fn dlr_probe__probe_bump_opt(
        rt,
        o: AnyMut<'_>, o_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        if o_td.kind != TyKind::Option || o_td.elem().kind != TyKind::I64 {
            return Err(Failure::type_mismatch(format!(
                "probe_bump_opt: argument o should be described as ?i64, but its descriptor says {}",
                describe_td(o_td)
            )));
        }
        let tag = o.as_ptr();
        let payload = tag.add(o_td.payload_offset).cast::<i64>();
        if *tag == 0 {
            payload.write_unaligned(0);
            tag.write(1);
        } else {
            let v = payload.read_unaligned();
            let next = v
                .checked_add(1)
                .ok_or_else(|| Failure::failed(format!("probe_bump_opt: {v} + 1 leaves i64")))?;
            payload.write_unaligned(next);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Generic: any type, through its descriptor
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    fn dlr_probe__probe_describe(
        rt,
        x: AnyRef<'_>, x_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let mut text = String::new();
        walk(rt, x.as_ptr(), x_td, &mut text)?;
        make_string(rt, &text, result_out)
    }

    fn dlr_probe__probe_type_name(
        rt,
        _x: AnyRef<'_>, x_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        check(rt, call::dtlv_rti_type_name(rt, x_td, result_out))
    }

    /// The size `x`'s descriptor gives; its address escapes to here, so every backend must
    /// keep the whole value in memory.
    fn dlr_probe__probe_size_of(
        rt,
        x: AnyRef<'_>, x_td,
        result_out: &mut MaybeUninit<rtdt::Index>, _result_td,
    ) {
        std::hint::black_box(x);
        result_out.write(rtdt::Index(x_td.size as u64));
        Ok(())
    }

    fn dlr_probe__probe_len(
        rt,
        xs: &rtdt::List, xs_td,
        result_out: &mut MaybeUninit<rtdt::Index>, _result_td,
    ) {
        if xs_td.kind != TyKind::List {
            return Err(Failure::type_mismatch(format!(
                "probe_len: argument xs should be a list, but its descriptor says {}",
                describe_td(xs_td)
            )));
        }
        result_out.write(rtdt::Index(call::dtlv_rti_list_len(rt, xs) as u64));
        Ok(())
    }

    fn dlr_probe__probe_first(
        rt,
        xs: &rtdt::List, xs_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        if result_td.kind != TyKind::Option {
            return Err(Failure::type_mismatch(format!(
                "probe_first: the result should be an option, but its descriptor says {}",
                describe_td(result_td)
            )));
        }
        let elem = xs_td.elem();
        expect_same(
            "probe_first",
            "the list's element against the result's payload",
            elem,
            result_td.elem(),
        )?;
        let out = result_out.as_ptr();
        init_value(rt, &out, result_td);
        if call::dtlv_rti_list_len(rt, xs) > 0 {
            let first = call::dtlv_rti_list_at(rt, xs, elem, 0);
            clone_value(rt, &first, elem, &out.add(result_td.payload_offset))?;
            out.write(1);
        }
        Ok(())
    }

    /// `n` clones of `x`, built with `list_new`, `clone` and `list_push`.
    fn dlr_probe__probe_repeat(
        rt,
        x: AnyRef<'_>, x_td,
        n: &rtdt::Index, _n_td,
        result_out: &mut MaybeUninit<rtdt::List>, result_td,
    ) {
        expect_same(
            "probe_repeat",
            "the result's element against x",
            result_td.elem(),
            x_td,
        )?;
        check(
            rt,
            call::dtlv_rti_list_new(rt, x_td, n.0 as usize, result_out),
        )?;
        let list = result_out.assume_init_mut();
        let mut room = scratch(x_td)?;
        let value: *mut u8 = room.as_mut_ptr().cast();
        for _ in 0..n.0 {
            clone_value(rt, &x, x_td, &value)?;
            check(rt, call::dtlv_rti_list_push(rt, list, x_td, value.cast()))?;
        }
        Ok(())
    }

    /// The payload of `o` if it has one (and `fallback` is dropped), else `fallback`.
    fn dlr_probe__probe_unwrap_or(
        rt,
        o: AnyOwned<'_>, o_td,
        fallback: AnyOwned<'_>, fallback_td,
        result_out: AnyOut<'_>, result_td,
    ) {
        if o_td.kind != TyKind::Option {
            return Err(Failure::type_mismatch(format!(
                "probe_unwrap_or: argument o should be an option, but its descriptor says {}",
                describe_td(o_td)
            )));
        }
        expect_same(
            "probe_unwrap_or",
            "o's payload against fallback",
            o_td.elem(),
            fallback_td,
        )?;
        expect_same(
            "probe_unwrap_or",
            "the result against fallback",
            result_td,
            fallback_td,
        )?;
        let size = fallback_td.size;
        if *o.as_ptr() != 0 {
            std::ptr::copy_nonoverlapping(
                o.as_ptr().add(o_td.payload_offset),
                result_out.as_ptr(),
                size,
            );
            drop_value(rt, &fallback, fallback_td);
        } else {
            std::ptr::copy_nonoverlapping(fallback.as_ptr(), result_out.as_ptr(), size);
        }
        Ok(())
    }

    fn dlr_probe__probe_swap(
        rt,
        a: AnyMut<'_>, a_td,
        b: AnyMut<'_>, b_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        expect_same("probe_swap", "a against b", a_td, b_td)?;
        std::ptr::swap_nonoverlapping(a.as_ptr(), b.as_ptr(), a_td.size);
        Ok(())
    }

    fn dlr_probe__probe_copy_out(
        rt,
        x: AnyRef<'_>, x_td,
        y: AnyOut<'_>, y_td,
        _result_out: &mut MaybeUninit<()>, _result_td,
    ) {
        expect_same("probe_copy_out", "x against y", x_td, y_td)?;
        clone_value(rt, &x, x_td, &y)
    }

    /// Describes a value handed over `in`, then drops it: it is the native's to destroy.
    fn dlr_probe__probe_take(
        rt,
        x: AnyOwned<'_>, x_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        let mut text = String::new();
        let walked = walk(rt, x.as_ptr(), x_td, &mut text);
        drop_value(rt, &x, x_td);
        walked?;
        make_string(rt, &format!("took {text}"), result_out)
    }
}

// ---------------------------------------------------------------------------------------
// Bigints (issue 16): built and read by a rider through the table and the one form
// ---------------------------------------------------------------------------------------

datalove_rti::natives! {
    /// The bigint of the magnitude `limbs` (least significant first) and the sign
    /// `negative`, made through the runtime (`bigint_from_limbs`).
    fn dlr_probe__probe_bigint(
        rt,
        limbs: &rtdt::List, limbs_td,
        negative: &bool, _negative_td,
        result_out: &mut MaybeUninit<rtdt::BigInt>, _result_td,
    ) {
        expect_same("probe_bigint", "the limbs' element", limbs_td.elem(), &U64_TYDESC)?;
        let limbs = elements::<u64>(limbs);
        check(rt, call::dtlv_rti_bigint_from_limbs(rt, *negative, limbs, result_out))
    }

    /// The sign and limbs of a bigint as the rider reads them: `(true, [0, 1])`.
    fn dlr_probe__probe_bigint_parts(
        rt,
        b: &rtdt::BigInt, b_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        if b_td.kind != TyKind::BigInt || b_td.size != kind_layout(TyKind::BigInt).size {
            return Err(Failure::type_mismatch(format!(
                "probe_bigint_parts: argument b should be a bigint, but its descriptor says {}",
                describe_td(b_td)
            )));
        }
        let text = format!("({}, {})", b.is_negative(), joined(b.limbs(), u64::to_string));
        make_string(rt, &text, result_out)
    }
}

// ---- maps ----

datalove_rti::natives! {
    /// `{i: "i*i"}` for `i < n`, inserted from the largest key down (the runtime orders
    /// them), every key and value moved into the map through `map_insert`.
    fn dlr_probe__probe_map_squares(
        rt,
        n: &u32, _n_td,
        result_out: &mut MaybeUninit<rtdt::Map>, result_td,
    ) {
        expect_kind(result_td, TyKind::Map)?;
        let mut map = rtdt::Map::from_raw(std::ptr::null_mut());
        for i in (0..*n).rev() {
            let mut key = i;
            let mut value = new_string(rt, &format!("{i}*{i}={}", i * i))?;
            let status = call::dtlv_rti_map_insert(
                rt,
                &mut map,
                result_td,
                (&mut key as *mut u32).cast(),
                (&mut value as *mut rtdt::String).cast(),
            );
            if let Err(failure) = check(rt, status) {
                call::dtlv_rti_drop(rt, (&mut map as *mut rtdt::Map).cast(), result_td);
                return Err(failure);
            }
        }
        result_out.write(map);
        Ok(())
    }

    /// `k=v;` per entry, in order: the entry tuple's fields give where the key and the
    /// value are and their descriptors, and the runtime formats each.
    fn dlr_probe__probe_map_entries(
        rt,
        m: &rtdt::Map, m_td,
        result_out: &mut MaybeUninit<rtdt::String>, _result_td,
    ) {
        expect_kind(m_td, TyKind::Map)?;
        let fields = m_td.fields();
        let mut text = String::new();
        for i in 0..call::dtlv_rti_map_len(rt, m) {
            let entry = call::dtlv_rti_map_entry_at(rt, m, m_td, i).cast::<u8>();
            let key = format_value(rt, &entry.add(fields[0].offset), &*fields[0].desc)?;
            let value = format_value(rt, &entry.add(fields[1].offset), &*fields[1].desc)?;
            let _ = write!(text, "{key}={value};");
        }
        result_out.write(new_string(rt, &text)?);
        Ok(())
    }
}
