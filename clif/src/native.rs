//! The native-call ABI, Cranelift side: a native is an imported function named
//! `NativeContext::symbol()` (the JIT), or the address in its native slot (an
//! executable, `datalove_ir::lowering::NativeLinks`), taking `word_count()` pointer-sized words and returning the
//! status byte; the words are laid out by `NativeContext::words()`, and the status is
//! tested after every call (`!= 1`: `native_failed`, then the abandon block).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, FuncRef, InstBuilder, SigRef, Signature, StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_module::{Linkage, Module};
use datalove_ir::native::NativeWord;
use datalove_ir::{Arg, BlockId, IrType, NativeContext, ParamMode, SlotId};
use datalove_rti::status::STATUS_OK;

use crate::lower::{trusted, Fx};
use crate::runtime::Entry;

/// The C signature of a native: `word_count()` pointer-sized parameters, an `i8` status.
pub fn build_native_signature(native: &NativeContext, call_conv: CallConv) -> Signature {
    build_native_signature_with_pointer(native, call_conv, types::I64)
}

/// [`build_native_signature`] for a target whose pointers are `ptr`.
pub fn build_native_signature_with_pointer(
    native: &NativeContext,
    call_conv: CallConv,
    ptr: cranelift_codegen::ir::Type,
) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params
        .extend((0..native.word_count()).map(|_| AbiParam::new(ptr)));
    sig.returns.push(AbiParam::new(types::I8));
    sig
}

/// How a native is reached: an imported function (the JIT resolves it), or the address
/// loaded from its native slot (an executable: filled by the runtime at start).
enum Callee {
    Direct(FuncRef),
    Slot(SigRef, Value),
}

impl<M: Module> Fx<'_, '_, M> {
    fn native_callee(&mut self, native: &NativeContext, sig: Signature) -> Callee {
        let Some((slots, slot)) = self
            .statics
            .native_slots
            .as_ref()
            .map(|s| (s.slots, s.links.slot(native.symbol())))
        else {
            let id = self
                .module
                .declare_function(native.symbol(), Linkage::Import, &sig)
                .unwrap_or_else(|e| panic!("declaring native {}: {e}", native.symbol()));
            return Callee::Direct(self.module.declare_func_in_func(id, self.b.func));
        };
        let base = self.data_addr(slots);
        let offset = (slot * self.ptr.bytes() as usize) as i32;
        let address = self.b.ins().load(self.ptr, trusted(), base, offset);
        Callee::Slot(self.b.import_signature(sig), address)
    }

    /// One call of a native: the words, the call, the status test.
    pub fn native_call(
        &mut self,
        dst: Option<SlotId>,
        native: &NativeContext,
        args: &[Arg],
        abandon: BlockId,
    ) {
        let sig = build_native_signature_with_pointer(native, self.call_conv, self.ptr);
        let callee = self.native_callee(native, sig);
        let arg_words: Vec<(Value, Value)> = args
            .iter()
            .map(|a| {
                let ty = self.slot_ty(a.slot).clone();
                let at = match a.mode {
                    ParamMode::Mut | ParamMode::Out => self.addr(a.slot),
                    ParamMode::In | ParamMode::Ref => self.read_addr(a.slot),
                };
                (at, self.desc(&ty))
            })
            .collect();
        let result = match dst {
            Some(d) => {
                let ty = self.slot_ty(d).clone();
                (self.addr(d), self.desc(&ty))
            }
            None => {
                let scratch = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    8,
                    3,
                ));
                let at = self.b.ins().stack_addr(self.ptr, scratch, 0);
                (at, self.desc(&IrType::Unit))
            }
        };
        let trailing: Vec<Value> = native
            .undetermined_bindings
            .iter()
            .map(|t| self.desc(t))
            .collect();
        let words: Vec<Value> = native
            .words()
            .into_iter()
            .map(|w| match w {
                NativeWord::Runtime => self.rt,
                NativeWord::ArgPointer(i) => arg_words[i].0,
                NativeWord::ArgDescriptor(i) => arg_words[i].1,
                NativeWord::ResultPointer => result.0,
                NativeWord::ResultDescriptor => result.1,
                NativeWord::TrailingDescriptor(i) => trailing[i],
            })
            .collect();
        debug_assert_eq!(words.len(), native.word_count());
        let call = match callee {
            Callee::Direct(f) => self.b.ins().call(f, &words),
            Callee::Slot(sig, address) => self.b.ins().call_indirect(sig, address, &words),
        };
        let status = self.b.inst_results(call)[0];
        // A failure status, or OK from a native that raised an error: both fail. Two
        // branches, each a compare and a conditional jump to its own cold block (the
        // second only after an OK status), so the path that does not fail combines
        // nothing in a register.
        let failed = self
            .b
            .ins()
            .icmp_imm_u(IntCC::NotEqual, status, STATUS_OK as i64);
        let (rider, function) = (native.rider().to_string(), native.function().to_string());
        let written = self.func.owned_call_results(dst, args);
        let report = self.b.create_block();
        let undo = self.b.create_block();
        let done = self.b.create_block();
        let ok = self.b.create_block();
        let cont = self.b.create_block();
        for cold in [report, undo, done] {
            self.b.set_cold_block(cold);
        }
        self.b.ins().brif(failed, report, &[], ok, &[]);
        self.b.switch_to_block(ok);
        let abandoning = self.load_abandoning();
        self.b.ins().brif(abandoning, undo, &[], cont, &[]);
        self.b.switch_to_block(report);
        let (r, rl) = self.bytes_addr(rider.as_bytes());
        let (f, fl) = self.bytes_addr(function.as_bytes());
        let rt = self.rt;
        self.call_rt(Entry::NativeFailed, &[rt, r, rl, f, fl, status]);
        self.b.ins().jump(done, &[]);
        // OK but abandoning: what the native wrote is dropped.
        self.b.switch_to_block(undo);
        for slot in written {
            let ty = self.slot_ty(slot).clone();
            let d = self.desc(&ty);
            let at = self.addr(slot);
            self.call_rt(Entry::Drop, &[rt, at, d]);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.take_abandon(abandon);
        self.b.switch_to_block(cont);
    }
}
