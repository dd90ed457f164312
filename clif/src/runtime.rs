//! Calls of runtime entry points: through the table `rt` points at (`rt->table`, then the
//! entry at its `offset_of!` in [`RtiTable`], both loaded at the call). Compiled code
//! imports no runtime symbol.

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, Type, Value};
use cranelift_module::Module;
use datalove_rti::header::{
    RT_HEADER_ABANDONING_OFFSET, RT_HEADER_DEPTH_LEFT_OFFSET, RT_HEADER_SHADOW_TOP_OFFSET,
    RT_HEADER_STACK_LIMIT_OFFSET, RT_HEADER_TABLE_OFFSET,
};
use datalove_rti::Word;

use crate::lower::{trusted, Fx};

pub use datalove_rti::Entry;

/// The Cranelift signature of a runtime entry in `call_conv`, pointers being `ptr`: its
/// shape comes from the one entry list (`datalove_rti::table`).
pub fn entry_signature(
    entry: Entry,
    ptr: Type,
    call_conv: cranelift_codegen::isa::CallConv,
) -> Signature {
    let ty = |w: Word| match w {
        Word::Pointer => ptr,
        Word::Byte => types::I8,
        Word::Int32 => types::I32,
        Word::Int64 => types::I64,
    };
    let mut sig = Signature::new(call_conv);
    for &(_, w) in entry.params() {
        let p = AbiParam::new(ty(w));
        // A Rust `u8` parameter is read as zero-extended by the callee.
        sig.params.push(if w == Word::Byte { p.uext() } else { p });
    }
    if let Some(w) = entry.result() {
        sig.returns.push(AbiParam::new(ty(w)));
    }
    sig
}

impl<M: Module> Fx<'_, '_, M> {
    /// Calls `entry` with `args`; its result, if it has one.
    pub fn call_rt(&mut self, entry: Entry, args: &[Value]) -> Option<Value> {
        let sig = match self.entry_sigs.get(&entry) {
            Some(s) => *s,
            None => {
                let s = self
                    .b
                    .import_signature(entry_signature(entry, self.ptr, self.call_conv));
                self.entry_sigs.insert(entry, s);
                s
            }
        };
        // `rt->table` is loaded where it is used, not in the prologue: most runtime
        // calls are on cold paths, and a hot function keeps no register for it.
        let table = self.load_table(self.rt);
        let callee = self
            .b
            .ins()
            .load(self.ptr, trusted(), table, entry.offset() as i32);
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
