//! Calls of runtime entry points: through the table `rt` points at (`rt->table`, then the
//! entry at its `offset_of!` in [`RtiTable`]). Compiled code imports no runtime symbol.

use std::mem::offset_of;

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, Type, Value};
use cranelift_module::Module;
use datalove_rti::header::{
    RT_HEADER_ABANDONING_OFFSET, RT_HEADER_DEPTH_LEFT_OFFSET, RT_HEADER_SHADOW_TOP_OFFSET,
    RT_HEADER_STACK_LIMIT_OFFSET, RT_HEADER_TABLE_OFFSET,
};
use datalove_rti::RtiTable;

use crate::lower::{trusted, Fx};

/// The runtime entry points compiled code calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    Init,
    Clone,
    Drop,
    Eq,
    Cmp,
    Debuglog,
    StringFromBytes,
    StringConcat,
    ListNew,
    ListLen,
    ListPush,
    ListGet,
    ListSet,
    DataMake,
    NativeFailed,
    Raise,
    RaiseArith,
    RaiseBounds,
    RaiseStackOverflow,
    ShadowPush,
    ShadowPop,
    TydescList,
    TydescOption,
    TydescTuple,
}

/// A parameter or result of an entry: a pointer-sized word or an integer of a width.
#[derive(Clone, Copy)]
enum W {
    P,
    B,
    I32,
    I64,
}

impl Entry {
    /// The entry's byte offset in the table.
    pub fn offset(self) -> i32 {
        let offset = match self {
            Entry::Init => offset_of!(RtiTable, init),
            Entry::Clone => offset_of!(RtiTable, clone),
            Entry::Drop => offset_of!(RtiTable, drop),
            Entry::Eq => offset_of!(RtiTable, eq),
            Entry::Cmp => offset_of!(RtiTable, cmp),
            Entry::Debuglog => offset_of!(RtiTable, debuglog),
            Entry::StringFromBytes => offset_of!(RtiTable, string_from_bytes),
            Entry::StringConcat => offset_of!(RtiTable, string_concat),
            Entry::ListNew => offset_of!(RtiTable, list_new),
            Entry::ListLen => offset_of!(RtiTable, list_len),
            Entry::ListPush => offset_of!(RtiTable, list_push),
            Entry::ListGet => offset_of!(RtiTable, list_get),
            Entry::ListSet => offset_of!(RtiTable, list_set),
            Entry::DataMake => offset_of!(RtiTable, data_make),
            Entry::NativeFailed => offset_of!(RtiTable, native_failed),
            Entry::Raise => offset_of!(RtiTable, raise),
            Entry::RaiseArith => offset_of!(RtiTable, raise_arith),
            Entry::RaiseBounds => offset_of!(RtiTable, raise_bounds),
            Entry::RaiseStackOverflow => offset_of!(RtiTable, raise_stack_overflow),
            Entry::ShadowPush => offset_of!(RtiTable, shadow_push),
            Entry::ShadowPop => offset_of!(RtiTable, shadow_pop),
            Entry::TydescList => offset_of!(RtiTable, tydesc_list),
            Entry::TydescOption => offset_of!(RtiTable, tydesc_option),
            Entry::TydescTuple => offset_of!(RtiTable, tydesc_tuple),
        };
        offset as i32
    }

    /// Parameters and result, as declared in [`RtiTable`].
    fn shape(self) -> (&'static [W], Option<W>) {
        use W::*;
        match self {
            Entry::Init => (&[P, P], None),
            Entry::Clone => (&[P, P, P, P], Some(B)),
            Entry::Drop => (&[P, P, P], None),
            Entry::Eq => (&[P, P, P, P], Some(B)),
            Entry::Cmp => (&[P, P, P, P], Some(I32)),
            Entry::Debuglog => (&[P, P, P], None),
            Entry::StringFromBytes => (&[P, P, P, P], Some(B)),
            Entry::StringConcat => (&[P, P, P, P], Some(B)),
            Entry::ListNew => (&[P, P, P, P], Some(B)),
            Entry::ListLen => (&[P, P], Some(P)),
            Entry::ListPush => (&[P, P, P, P], Some(B)),
            Entry::ListGet => (&[P, P, P, P, P], Some(B)),
            Entry::ListSet => (&[P, P, P, P, P], Some(B)),
            Entry::DataMake => (&[P, P, P, P], Some(B)),
            Entry::NativeFailed => (&[P, P, P, P, P, B], None),
            Entry::Raise => (&[P, I32, P, P], None),
            Entry::RaiseArith => (&[P, I32, I32, I32], None),
            Entry::RaiseBounds => (&[P, I64, I64], None),
            Entry::RaiseStackOverflow => (&[P], None),
            Entry::ShadowPush => (&[P, P, P], Some(P)),
            Entry::ShadowPop => (&[P, P], None),
            Entry::TydescList => (&[P, P], Some(P)),
            Entry::TydescOption => (&[P, P], Some(P)),
            Entry::TydescTuple => (&[P, P, P], Some(P)),
        }
    }

    /// The entry's signature in `call_conv`, pointers being `ptr`.
    pub fn signature(self, ptr: Type, call_conv: cranelift_codegen::isa::CallConv) -> Signature {
        let ty = |w: W| match w {
            W::P => ptr,
            W::B => types::I8,
            W::I32 => types::I32,
            W::I64 => types::I64,
        };
        let (params, result) = self.shape();
        let mut sig = Signature::new(call_conv);
        for &w in params {
            let p = AbiParam::new(ty(w));
            // A Rust `u8` parameter is read as zero-extended by the callee.
            sig.params
                .push(if matches!(w, W::B) { p.uext() } else { p });
        }
        if let Some(w) = result {
            sig.returns.push(AbiParam::new(ty(w)));
        }
        sig
    }
}

impl<M: Module> Fx<'_, '_, M> {
    /// Calls `entry` with `args`; its result, if it has one.
    pub fn call_rt(&mut self, entry: Entry, args: &[Value]) -> Option<Value> {
        let sig = match self.entry_sigs.get(&entry) {
            Some(s) => *s,
            None => {
                let s = self
                    .b
                    .import_signature(entry.signature(self.ptr, self.call_conv));
                self.entry_sigs.insert(entry, s);
                s
            }
        };
        let callee = self
            .b
            .ins()
            .load(self.ptr, trusted(), self.table, entry.offset());
        let call = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(call).first().copied()
    }

    /// `rt->table`.
    pub fn load_table(&mut self, rt: Value) -> Value {
        self.b
            .ins()
            .load(self.ptr, trusted(), rt, RT_HEADER_TABLE_OFFSET as i32)
    }

    /// `rt->abandoning` (an `i8`).
    pub fn load_abandoning(&mut self) -> Value {
        self.b.ins().load(
            types::I8,
            trusted(),
            self.rt,
            RT_HEADER_ABANDONING_OFFSET as i32,
        )
    }

    pub fn load_stack_limit(&mut self) -> Value {
        self.b.ins().load(
            self.ptr,
            trusted(),
            self.rt,
            RT_HEADER_STACK_LIMIT_OFFSET as i32,
        )
    }

    /// `rt->depth_left`.
    pub fn load_depth_left(&mut self) -> Value {
        self.b.ins().load(
            self.ptr,
            trusted(),
            self.rt,
            RT_HEADER_DEPTH_LEFT_OFFSET as i32,
        )
    }

    /// `rt->depth_left = value`.
    pub fn store_depth_left(&mut self, value: Value) {
        self.b.ins().store(
            trusted(),
            value,
            self.rt,
            RT_HEADER_DEPTH_LEFT_OFFSET as i32,
        );
    }

    pub fn load_shadow_top(&mut self) -> Value {
        self.b.ins().load(
            self.ptr,
            trusted(),
            self.rt,
            RT_HEADER_SHADOW_TOP_OFFSET as i32,
        )
    }

    pub fn iconst_ptr(&mut self, v: i64) -> Value {
        self.b.ins().iconst(self.ptr, v)
    }
}
