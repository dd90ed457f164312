//! Functions, blocks and instructions: one IR function becomes one CLIF function.
//!
//! Slots: a concrete scalar whose address is never needed is a cranelift `Variable`; any
//! other concrete slot is a stack slot; a slot whose type mentions a type parameter lives
//! on the shadow stack (pushed on entry, sized by its descriptor, popped on every exit);
//! a `ref`/`mut`/`out` parameter is the caller's address. IR blocks map one to one onto
//! CLIF blocks; a fallible instruction's failure branches to its abandon block.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, AliasRegionData, Block, GlobalValue, InstBuilder, MemFlagsData, SigRef,
    Signature, StackSlot, StackSlotData, StackSlotKind, Type, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::{DataId, FuncId as ClifFuncId, Module};
use datalove_ir::lowering::{value_op, ValueOp};
use datalove_ir::{
    print::print_inst, BlockId, ConstValue, Function, InstKind, IrType, ParamMode, Program, SlotId,
    Terminator,
};
use datalove_rti::status::STATUS_OUT_OF_BOUNDS;
use datalove_rti::{ErrorKind, TyKind};

use crate::arith::scalar_type;
use crate::desc::{Statics, FIELD_OFF_DESC, FIELD_OFF_OFFSET, FIELD_SIZE, OFF_FIELDS, OFF_PAYLOAD};
use crate::runtime::Entry;

/// Flags for accesses the lowering knows to be aligned and in bounds.
pub fn trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}

pub use datalove_ir::lowering::{
    call_words, list_elem_inline, param_pass, program_words, result_pass, CallWord, ListHeaderPlan,
    Pass, ProgramWord, ResultPass, SlotHome,
};
use datalove_rti::layout::{LIST_CAP_OFFSET, LIST_LEN_OFFSET, LIST_PTR_OFFSET};

/// The alias region of the inline loads of a list's header (`ptr`, `len`): nothing
/// compiled code stores is tagged with it, so only a store without a region (any store
/// but an inline element's) or a call (every runtime entry, every program function,
/// every native: all may grow or replace a list) ends what Cranelift knows of a
/// header. An inline element store (region [`LIST_ELEMS_REGION`]) writes into a list's
/// buffer, never into a header, so a header loaded before it is still valid after it:
/// Cranelift's redundant-load elimination then reuses the `ptr` and `len` loaded before
/// a loop inside it.
pub const LIST_HEADER_REGION: u32 = 1;
/// The alias region of the inline loads and stores of list elements of copy scalar
/// types ([`list_elem_inline`]): every access compiled code makes to such an element
/// is tagged with it (the runtime reaches them only inside calls).
pub const LIST_ELEMS_REGION: u32 = 2;

/// The signature of a program function: `(rt, depth, one word per parameter,
/// [ret_ptr], one descriptor per type parameter) -> ([scalar result], status)`
/// (`datalove_ir::lowering::ProgramWord`); the status is an `i8`, nonzero when the
/// function abandoned.
pub fn program_signature(f: &Function, call_conv: CallConv, ptr: Type) -> Signature {
    let mut sig = Signature::new(call_conv);
    for word in program_words(f) {
        sig.params.push(AbiParam::new(match word {
            ProgramWord::Param(_, Pass::Value(kind)) => scalar_type(kind),
            _ => ptr,
        }));
    }
    if let ResultPass::Value(kind) = result_pass(&f.result) {
        sig.returns.push(AbiParam::new(scalar_type(kind)));
    }
    sig.returns.push(AbiParam::new(types::I8));
    sig
}

/// Where a slot lives.
#[derive(Clone, Copy, Debug)]
pub enum Place {
    Var(Variable),
    Stack(StackSlot),
    /// At an address: the caller's (`ref`/`mut`/`out`) or the shadow stack's.
    Ptr(Value),
}

/// The lowering context of one function, threaded through every lowering method.
pub struct Fx<'a, 'b, M: Module> {
    pub module: &'a mut M,
    pub statics: &'a mut Statics,
    pub program: &'a Program,
    pub func: &'a Function,
    pub functions: &'a [ClifFuncId],
    pub b: FunctionBuilder<'b>,
    pub ptr: Type,
    pub call_conv: CallConv,
    pub rt: Value,
    /// The call depth left (the second word, with `NO_ROOM_BIT` set after the room
    /// test when there is no room): what this function's calls test.
    pub depth: Variable,
    pub places: Vec<Option<Place>>,
    pub tparams: Vec<Value>,
    pub generic_descs: Vec<(IrType, Value)>,
    pub blocks: Vec<Block>,
    pub shadow_mark: Option<Value>,
    pub ret_ptr: Option<Value>,
    pub entry_sigs: HashMap<Entry, SigRef>,
    pub data_gvs: HashMap<DataId, GlobalValue>,
    /// The lists whose `ptr` and `len` live in variables
    /// (`Function::list_header_plan`): `(list, ptr, len)`.
    pub list_headers: Vec<(SlotId, Variable, Variable)>,
    pub list_plan: ListHeaderPlan,
    /// `(index of the first CLIF instruction, comment lines)`, for `emit clif`.
    pub comments: Vec<(usize, Vec<String>)>,
    /// The location of the instruction being lowered (`Program::error_site`): its
    /// failure paths report it (`error_at`) before they take its abandon block.
    pub site: Option<String>,
}

fn stack_slot_data(size: usize, align: usize) -> StackSlotData {
    StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        size.max(1) as u32,
        align.max(1).trailing_zeros() as u8,
    )
}

/// Lowers function `index` of `program` into `ctx.func`. Returns the comments for
/// `emit clif`.
#[allow(clippy::too_many_arguments)]
pub fn lower_function<M: Module>(
    module: &mut M,
    statics: &mut Statics,
    program: &Program,
    index: usize,
    functions: &[ClifFuncId],
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
) -> Vec<(usize, Vec<String>)> {
    let f = &program.functions[index];
    let ptr = module.target_config().pointer_type();
    let call_conv = module.isa().default_call_conv();
    ctx.func.signature = program_signature(f, call_conv, ptr);
    ctx.func.name = UserFuncName::user(0, functions[index].as_u32());
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let rt = params[0];
    let depth = b.declare_var(ptr);
    b.def_var(depth, params[1]);
    let blocks = (0..f.blocks.len()).map(|_| b.create_block()).collect();
    let mut fx = Fx {
        module,
        statics,
        program,
        func: f,
        functions,
        b,
        ptr,
        call_conv,
        rt,
        depth,
        places: vec![None; f.slots.len()],
        tparams: Vec::new(),
        generic_descs: Vec::new(),
        blocks,
        shadow_mark: None,
        ret_ptr: None,
        entry_sigs: HashMap::new(),
        data_gvs: HashMap::new(),
        list_headers: Vec::new(),
        list_plan: ListHeaderPlan::default(),
        comments: Vec::new(),
        site: None,
    };
    fx.prologue(&params);
    let plan = fx.list_plan.clone();
    let room_test = f.room_test(program);
    for (bi, block) in f.blocks.iter().enumerate() {
        fx.b.switch_to_block(fx.blocks[bi]);
        if let Some(test) = room_test.filter(|t| t.block.index() == bi) {
            fx.test_room(test.room);
        }
        let mut heading = Some(format!("b{bi}:"));
        fx.reload_list_headers(&plan.at_block[bi]);
        for (ii, inst) in block.insts.iter().enumerate() {
            let mut text = print_inst(program, f, &inst.kind);
            if let Some(a) = inst.abandon {
                text.push_str(&format!(" else abandon {a}"));
            }
            fx.comment(heading.take(), text);
            fx.site = program.error_site(inst);
            fx.inst(&inst.kind, inst.abandon);
            fx.reload_list_headers(&plan.after_inst[bi][ii]);
        }
        fx.comment(
            heading.take(),
            datalove_ir::lowering::terminator_text(&block.term),
        );
        fx.terminator(&block.term);
    }
    let comments = std::mem::take(&mut fx.comments);
    fx.b.seal_all_blocks();
    let config = fx.module.target_config();
    fx.b.finalize(config);
    comments
}

impl<M: Module> Fx<'_, '_, M> {
    fn comment(&mut self, heading: Option<String>, text: String) {
        let at = self.b.func.dfg.num_insts();
        let lines: Vec<String> = heading.into_iter().chain(Some(text)).collect();
        match self.comments.last_mut() {
            Some((last, existing)) if *last == at => existing.extend(lines),
            _ => self.comments.push((at, lines)),
        }
    }

    pub fn slot_ty(&self, slot: SlotId) -> &IrType {
        self.func.slot_type(slot)
    }

    fn kind(&self, slot: SlotId) -> TyKind {
        self.slot_ty(slot)
            .kind()
            .expect("a concrete scalar, as verified")
    }

    /// Entry: descriptor table, stack check, shadow-stack storage, `in` parameters copied
    /// into the function's own storage; then a jump to the IR entry block.
    fn prologue(&mut self, params: &[Value]) {
        let f = self.func;
        let taken = f.address_needed(self.program);
        // Incoming words after `rt` and the depth.
        let mut next = 2;
        let mut incoming = Vec::new();
        for _ in &f.params {
            incoming.push(params[next]);
            next += 1;
        }
        if result_pass(&f.result) == ResultPass::Pointer {
            self.ret_ptr = Some(params[next]);
            next += 1;
        }
        self.tparams = params[next..next + f.type_params.len()].to_vec();
        // Places, from each slot's one home (`Function::slot_homes`).
        let homes = f.slot_homes();
        for (i, slot) in f.slots.iter().enumerate() {
            let id = SlotId(i as u32);
            let place = match homes[i] {
                SlotHome::Caller => {
                    let p = f
                        .params
                        .iter()
                        .position(|p| p.slot == id)
                        .expect("a parameter");
                    Some(Place::Ptr(incoming[p]))
                }
                SlotHome::Shadow => None, // shadow stack, below
                SlotHome::Value | SlotHome::Own => {
                    let layout = slot.ty.layout().expect("a concrete type");
                    if slot.ty.is_scalar() && !taken[i] {
                        let var = self
                            .b
                            .declare_var(scalar_type(slot.ty.kind().expect("scalar")));
                        Some(Place::Var(var))
                    } else {
                        Some(Place::Stack(self.b.create_sized_stack_slot(
                            stack_slot_data(layout.size, layout.align),
                        )))
                    }
                }
            };
            self.places[i] = place;
            if let Some(Place::Var(var)) = place {
                let ty = scalar_type(slot.ty.kind().expect("scalar"));
                let zero = self.zero(ty);
                self.b.def_var(var, zero);
            }
        }
        self.build_generic_descs();
        // The owned `in` parameters, still at the caller's address (dropped if the function
        // cannot start).
        let owned_in: Vec<(Value, IrType)> = f
            .params
            .iter()
            .zip(&incoming)
            .filter(|(p, _)| p.mode == ParamMode::In && !f.slot_type(p.slot).is_copy())
            .map(|(p, v)| (*v, f.slot_type(p.slot).clone()))
            .collect();
        let rt = self.rt;
        // Shadow-stack storage for slots sized at run time.
        let shadow_slots: Vec<SlotId> = (0..f.slots.len())
            .map(|i| SlotId(i as u32))
            .filter(|s| self.places[s.index()].is_none())
            .collect();
        if !shadow_slots.is_empty() {
            let mark = self.load_shadow_top();
            self.shadow_mark = Some(mark);
            for slot in &shadow_slots {
                let ty = self.slot_ty(*slot).clone();
                let d = self.desc(&ty);
                let size = self.desc_size(d);
                let align = self.desc_align(d);
                let p = self
                    .call_rt(Entry::ShadowPush, &[rt, size, align])
                    .expect("shadow_push returns an address");
                let full = self.b.ins().icmp_imm_s(IntCC::Equal, p, 0);
                let full_block = self.b.create_block();
                self.b.set_cold_block(full_block);
                let ok = self.b.create_block();
                self.b.ins().brif(full, full_block, &[], ok, &[]);
                self.b.switch_to_block(full_block);
                self.call_rt(Entry::ShadowPop, &[rt, mark]);
                self.drop_in_place(&owned_in);
                self.return_abandoned();
                self.b.switch_to_block(ok);
                self.places[slot.index()] = Some(Place::Ptr(p));
            }
        }
        // `in` parameters into the function's own storage.
        for (p, value) in f.params.iter().zip(&incoming) {
            if p.mode != ParamMode::In
                || matches!(self.places[p.slot.index()], Some(Place::Ptr(at)) if at == *value)
            {
                continue;
            }
            match param_pass(p.mode, f.slot_type(p.slot)) {
                Pass::Value(_) => self.write(p.slot, *value),
                Pass::Address => self.copy_from(p.slot, *value),
            }
        }
        // The cached list headers, loaded once here and again after whatever may
        // change them.
        self.list_plan = f.list_header_plan();
        for list in self.list_plan.lists.clone() {
            let ptr_var = self.b.declare_var(self.ptr);
            let len_var = self.b.declare_var(self.ptr);
            let zero = self.b.ins().iconst(self.ptr, 0);
            self.b.def_var(ptr_var, zero);
            self.b.def_var(len_var, zero);
            self.list_headers.push((list, ptr_var, len_var));
        }
        let at_entry = self.list_plan.at_entry.clone();
        self.reload_list_headers(&at_entry);
        let first = self.blocks[f.entry.index()];
        self.b.ins().jump(first, &[]);
    }

    /// The stack room for the calls this function makes, tested once, where
    /// `Function::room_test` says: when there is none, `NO_ROOM_BIT` is set in the depth
    /// word, so that each of those calls fails its depth test. A compare and a branch
    /// to a cold block that sets the bit: measured on fib, the branch-free form (a
    /// select and an or, with the bit's constant loaded) cost four instructions more on
    /// every call.
    fn test_room(&mut self, room: usize) {
        let sp = self.b.ins().get_stack_pointer(self.ptr);
        let limit = self.load_stack_limit();
        let bottom = self.b.ins().iadd_imm_s(sp, -(room as i64));
        let no_room = self.b.ins().icmp(IntCC::UnsignedLessThan, bottom, limit);
        let mark = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(mark);
        self.b.ins().brif(no_room, mark, &[], cont, &[]);
        self.b.switch_to_block(mark);
        let depth = self.b.use_var(self.depth);
        let marked = self
            .b
            .ins()
            .bor_imm_s(depth, datalove_ir::lowering::NO_ROOM_BIT as i64);
        self.b.def_var(self.depth, marked);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// On a path that refuses a call for want of `needed` depth (or of stack room):
    /// stores in `rt->depth_left` the depth left, `NO_ROOM_BIT` cleared, or 0 when that
    /// is less than `needed`; the runtime names the depth limit only when it reads 0
    /// there (docs/abi.md, section 12).
    fn store_depth_for_raise(&mut self, needed: u32) {
        let depth = self.b.use_var(self.depth);
        let real = self
            .b
            .ins()
            .band_imm_s(depth, datalove_ir::lowering::DEPTH_MAX as i64);
        let too_deep = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, real, i64::from(needed));
        let zero = self.b.ins().iconst(self.ptr, 0);
        let left = self.b.ins().select(too_deep, zero, real);
        self.store_depth_left(left);
    }

    fn drop_in_place(&mut self, values: &[(Value, IrType)]) {
        for (at, ty) in values {
            let d = self.desc(ty);
            let rt = self.rt;
            self.call_rt(Entry::Drop, &[rt, *at, d]);
        }
    }

    fn zero(&mut self, ty: Type) -> Value {
        match ty {
            types::F32 => self.b.ins().f32const(0.0),
            types::F64 => self.b.ins().f64const(0.0),
            t => self.b.ins().iconst(t, 0),
        }
    }

    /// Returns `result` (the scalar result, when the signature has one) and the status
    /// `abandoned`.
    fn return_with(&mut self, result: Option<Value>, abandoned: bool) {
        let status = self.b.ins().iconst(types::I8, i64::from(abandoned));
        let values: Vec<Value> = result.into_iter().chain([status]).collect();
        self.b.ins().return_(&values);
    }

    /// Returns from an abandoning path: a zero result when the signature has one, and a
    /// nonzero status.
    fn return_abandoned(&mut self) {
        let zero = match result_pass(&self.func.result) {
            ResultPass::Value(kind) => Some(self.zero(scalar_type(kind))),
            _ => None,
        };
        self.return_with(zero, true);
    }

    fn pop_shadow(&mut self) {
        if let Some(mark) = self.shadow_mark {
            let rt = self.rt;
            self.call_rt(Entry::ShadowPop, &[rt, mark]);
        }
    }

    /// When `cond` is nonzero: `raise`, then the IR block `abandon`.
    /// A view of bytes `from..to` of the string at `s` written to `d` inline, then a
    /// jump to `done`, when the slice is not empty and passes the runtime's checks
    /// (`from < to <= len`, both ends on a character boundary: `docs/backends.md`,
    /// string parts); otherwise the current block goes on (cold), for the runtime's
    /// `string_part` to decide and raise its error.
    fn slice_view_inline(&mut self, s: Value, from: Value, to: Value, d: Value, done: Block) {
        let flags = trusted();
        let len = self
            .b
            .ins()
            .load(self.ptr, flags, s, LIST_LEN_OFFSET as i32);
        let base = self
            .b
            .ins()
            .load(self.ptr, flags, s, LIST_PTR_OFFSET as i32);
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        // Continues in a new block when `cond` holds, else goes to `slow`.
        let test = |fx: &mut Self, cond: Value| {
            let next = fx.b.create_block();
            fx.b.ins().brif(cond, next, &[], slow, &[]);
            fx.b.switch_to_block(next);
        };
        let ordered = self.b.ins().icmp(IntCC::UnsignedLessThan, from, to);
        test(self, ordered);
        let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, to, len);
        test(self, within);
        // Not a continuation byte (`10xxxxxx`) where a piece starts or ends.
        let starts_char = |fx: &mut Self, at: Value| {
            let p = fx.b.ins().iadd(base, at);
            let byte = fx.b.ins().uload8(types::I32, flags, p, 0);
            let top = fx.b.ins().band_imm_u(byte, 0xC0);
            fx.b.ins().icmp_imm_u(IntCC::NotEqual, top, 0x80)
        };
        let first = starts_char(self, from);
        test(self, first);
        let (at_end, inside) = (self.b.create_block(), self.b.create_block());
        let ends_at_len = self.b.ins().icmp(IntCC::Equal, to, len);
        self.b.ins().brif(ends_at_len, at_end, &[], inside, &[]);
        self.b.switch_to_block(inside);
        let last = starts_char(self, to);
        self.b.ins().brif(last, at_end, &[], slow, &[]);
        self.b.switch_to_block(at_end);
        let ptr = self.b.ins().iadd(base, from);
        let bytes = self.b.ins().isub(to, from);
        let zero = self.b.ins().iconst(self.ptr, 0);
        self.b.ins().store(flags, ptr, d, LIST_PTR_OFFSET as i32);
        self.b.ins().store(flags, bytes, d, LIST_LEN_OFFSET as i32);
        self.b.ins().store(flags, zero, d, LIST_CAP_OFFSET as i32);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(slow);
    }

    pub fn fail_if(&mut self, cond: Value, abandon: BlockId, raise: impl FnOnce(&mut Self)) {
        self.fail_if_any(&[cond], abandon, raise)
    }

    /// When any of `conds` is nonzero: `raise`, then the IR block `abandon`. One
    /// branch per condition (each a compare and a conditional jump), none of them
    /// combined into a register first.
    pub fn fail_if_any(
        &mut self,
        conds: &[Value],
        abandon: BlockId,
        raise: impl FnOnce(&mut Self),
    ) {
        let fail = self.b.create_block();
        self.b.set_cold_block(fail);
        for cond in conds {
            let cont = self.b.create_block();
            self.b.ins().brif(*cond, fail, &[], cont, &[]);
            self.b.switch_to_block(cont);
        }
        let cont = self.b.current_block().expect("a block");
        self.b.switch_to_block(fail);
        raise(self);
        self.take_abandon(abandon);
        self.b.switch_to_block(cont);
    }

    /// Ends the current (failure-path) block: reports the instruction's site, when it
    /// has one (`error_at`), and jumps to the IR block `abandon`.
    pub fn take_abandon(&mut self, abandon: BlockId) {
        if let Some(site) = self.site.clone() {
            let (s, len) = self.bytes_addr(site.as_bytes());
            let rt = self.rt;
            self.call_rt(Entry::ErrorAt, &[rt, s, len]);
        }
        let target = self.blocks[abandon.index()];
        self.b.ins().jump(target, &[]);
    }

    // ---------------------------------------------------------------- slots

    /// The address of a slot in memory.
    pub fn addr(&mut self, slot: SlotId) -> Value {
        match self.places[slot.index()].expect("every slot has a place") {
            Place::Stack(ss) => self.b.ins().stack_addr(self.ptr, ss, 0),
            Place::Ptr(p) => p,
            Place::Var(_) => panic!(
                "`{}`: the address of {slot}, which lives in a variable",
                self.func.name
            ),
        }
    }

    /// An address at which the slot's value is read (by a use that only reads it): the
    /// slot's own, or for a slot in a variable a scratch copy made here
    /// (`Function::address_needed`).
    pub fn read_addr(&mut self, slot: SlotId) -> Value {
        match self.places[slot.index()] {
            Some(Place::Var(_)) => {
                let ty = self.slot_ty(slot).clone();
                let layout = ty.layout().expect("a concrete scalar");
                let ss = self
                    .b
                    .create_sized_stack_slot(stack_slot_data(layout.size, layout.align));
                let at = self.b.ins().stack_addr(self.ptr, ss, 0);
                if ty != IrType::Unit {
                    let v = self.read(slot);
                    self.b.ins().store(trusted(), v, at, 0);
                }
                at
            }
            _ => self.addr(slot),
        }
    }

    /// The value of a concrete scalar slot.
    pub fn read(&mut self, slot: SlotId) -> Value {
        let ty = scalar_type(self.kind(slot));
        match self.places[slot.index()].expect("every slot has a place") {
            Place::Var(v) => self.b.use_var(v),
            Place::Stack(ss) => self.b.ins().stack_load(self.ptr, ty, ss, 0),
            Place::Ptr(p) => self.b.ins().load(ty, trusted(), p, 0),
        }
    }

    /// Writes a concrete scalar slot.
    pub fn write(&mut self, slot: SlotId, value: Value) {
        match self.places[slot.index()].expect("every slot has a place") {
            Place::Var(v) => self.b.def_var(v, value),
            Place::Stack(ss) => {
                self.b.ins().stack_store(self.ptr, value, ss, 0);
            }
            Place::Ptr(p) => {
                self.b.ins().store(trusted(), value, p, 0);
            }
        }
    }

    /// `size` bytes from `src` to `dst`: static when the type is concrete.
    fn copy_bytes(&mut self, ty: &IrType, dst: Value, src: Value) {
        match ty.layout() {
            Some(layout) => {
                let config = self.module.target_config();
                let align = layout.align.clamp(1, 8) as u8;
                self.b.emit_small_memory_copy(
                    config,
                    dst,
                    src,
                    layout.size as u64,
                    align,
                    align,
                    true,
                    MemFlagsData::new(),
                );
            }
            None => {
                let d = self.desc(ty);
                let size = self.desc_size(d);
                let config = self.module.target_config();
                self.b.call_memcpy(config, dst, src, size);
            }
        }
    }

    /// Writes the slot's value at `dst` (a move or copy out of the slot).
    pub fn copy_into(&mut self, dst: Value, slot: SlotId) {
        let ty = self.slot_ty(slot).clone();
        if ty.is_scalar() {
            if ty != IrType::Unit {
                let v = self.read(slot);
                self.b.ins().store(trusted(), v, dst, 0);
            }
        } else {
            let src = self.addr(slot);
            self.copy_bytes(&ty, dst, src);
        }
    }

    /// Sets the slot from the value at `src`.
    pub fn copy_from(&mut self, slot: SlotId, src: Value) {
        let ty = self.slot_ty(slot).clone();
        if ty.is_scalar() {
            if ty != IrType::Unit {
                let ty = scalar_type(self.kind(slot));
                let v = self.b.ins().load(ty, trusted(), src, 0);
                self.write(slot, v);
            }
        } else {
            let dst = self.addr(slot);
            self.copy_bytes(&ty, dst, src);
        }
    }

    fn mov(&mut self, dst: SlotId, src: SlotId) {
        let ty = self.slot_ty(src).clone();
        if ty.is_scalar() {
            let v = self.read(src);
            self.write(dst, v);
        } else {
            let (d, s) = (self.addr(dst), self.addr(src));
            self.copy_bytes(&ty, d, s);
        }
    }

    /// The byte offset of field `index` of a tuple of type `ty`.
    /// Calls `f` with the address of each of the first `count` fields of the tuple in
    /// `tuple`, in order.
    fn each_field(
        &mut self,
        tuple: SlotId,
        count: usize,
        mut f: impl FnMut(&mut Self, usize, Value),
    ) {
        let ty = self.slot_ty(tuple).clone();
        let base = self.addr(tuple);
        for i in 0..count {
            let off = self.field_offset(&ty, i);
            let at = self.b.ins().iadd(base, off);
            f(self, i, at);
        }
    }

    fn field_offset(&mut self, ty: &IrType, index: usize) -> Value {
        match ty.layout_with_offsets() {
            Some((_, offsets)) => self.iconst_ptr(offsets[index] as i64),
            None => {
                let d = self.desc(ty);
                let fields = self.b.ins().load(self.ptr, trusted(), d, OFF_FIELDS);
                self.b.ins().load(
                    self.ptr,
                    trusted(),
                    fields,
                    index as i32 * FIELD_SIZE + FIELD_OFF_OFFSET,
                )
            }
        }
    }

    /// The payload offset of an option of type `ty`.
    fn payload_offset(&mut self, ty: &IrType) -> Value {
        match ty.layout_with_offsets() {
            Some((_, offsets)) => self.iconst_ptr(offsets[0] as i64),
            None => {
                let d = self.desc(ty);
                self.b.ins().load(self.ptr, trusted(), d, OFF_PAYLOAD)
            }
        }
    }

    /// Trusted flags in the alias region `user_id` ([`LIST_HEADER_REGION`],
    /// [`LIST_ELEMS_REGION`]).
    fn region_flags(&mut self, user_id: u32) -> MemFlagsData {
        let description = if user_id == LIST_HEADER_REGION {
            "list header"
        } else {
            "list elements"
        };
        let region = self.b.func.dfg.alias_regions.insert(AliasRegionData {
            user_id,
            description: description.into(),
        });
        trusted().with_alias_region(Some(region))
    }

    /// Loads the `ptr` and `len` of the cached list headers `which` (indices into
    /// `list_headers`) into their variables, where `Function::list_header_plan` says.
    fn reload_list_headers(&mut self, which: &[usize]) {
        if which.is_empty() {
            return;
        }
        let flags = self.region_flags(LIST_HEADER_REGION);
        for &k in which {
            let (list, ptr_var, len_var) = self.list_headers[k];
            let l = self.addr(list);
            let p = self
                .b
                .ins()
                .load(self.ptr, flags, l, LIST_PTR_OFFSET as i32);
            let n = self
                .b
                .ins()
                .load(self.ptr, flags, l, LIST_LEN_OFFSET as i32);
            self.b.def_var(ptr_var, p);
            self.b.def_var(len_var, n);
        }
    }

    /// The cached header of `list`: `(ptr, len)`.
    fn list_header(&mut self, list: SlotId) -> (Value, Value) {
        let (_, p, n) = *self
            .list_headers
            .iter()
            .find(|(l, _, _)| *l == list)
            .expect("every list read inline has a cached header");
        (self.b.use_var(p), self.b.use_var(n))
    }

    /// The length of `list` (`LIST_LEN_OFFSET`, cached).
    fn list_len(&mut self, list: SlotId) -> Value {
        self.list_header(list).1
    }

    /// The length a bounds check of `list` (at address `addr`) compares with: the cached
    /// header's for inline elements of type `elem`, else loaded afresh (the runtime
    /// entry that follows reads the list itself).
    fn bounds_len(&mut self, list: SlotId, addr: Value, elem: &IrType) -> Value {
        if list_elem_inline(elem) {
            self.list_len(list)
        } else {
            let flags = self.region_flags(LIST_HEADER_REGION);
            self.b
                .ins()
                .load(self.ptr, flags, addr, LIST_LEN_OFFSET as i32)
        }
    }

    /// The address of element `i` (in bounds) of `list` whose elements are of the
    /// inline element type `elem` ([`list_elem_inline`]): `ptr + i * size`.
    fn list_elem_addr(&mut self, list: SlotId, i: Value, elem: &IrType) -> Value {
        let base = self.list_header(list).0;
        self.elem_at(base, i, elem)
    }

    /// `base + i * size` of an inline element type.
    fn elem_at(&mut self, base: Value, i: Value, elem: &IrType) -> Value {
        let size = elem.layout().expect("a concrete element").size as i64;
        // Every scalar's size is a power of two.
        let off = match size {
            1 => i,
            _ => self.b.ins().ishl_imm_u(i, size.trailing_zeros() as i64),
        };
        self.b.ins().iadd(base, off)
    }

    /// `list_push` of a scalar element: stored at `ptr + len * size` and counted while
    /// the buffer has room; only a full buffer calls the runtime (cold), which grows it
    /// and moves the value in. The header is written without an alias region, so every
    /// cached header is reloaded after it (`Function::list_header_plan`).
    fn push_inline(&mut self, l: Value, value: SlotId, ty: &IrType) {
        let flags = self.region_flags(LIST_HEADER_REGION);
        let len = self
            .b
            .ins()
            .load(self.ptr, flags, l, LIST_LEN_OFFSET as i32);
        let cap = self
            .b
            .ins()
            .load(self.ptr, flags, l, LIST_CAP_OFFSET as i32);
        let full = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, len, cap);
        let (room, grow, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.set_cold_block(grow);
        self.b.ins().brif(full, grow, &[], room, &[]);
        self.b.switch_to_block(room);
        let base = self
            .b
            .ins()
            .load(self.ptr, flags, l, LIST_PTR_OFFSET as i32);
        let at = self.elem_at(base, len, ty);
        let v = self.read(value);
        let elems = self.region_flags(LIST_ELEMS_REGION);
        self.b.ins().store(elems, v, at, 0);
        let more = self.b.ins().iadd_imm_s(len, 1);
        self.b
            .ins()
            .store(trusted(), more, l, LIST_LEN_OFFSET as i32);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(grow);
        let ed = self.desc(ty);
        let v = self.read_addr(value);
        let rt = self.rt;
        self.call_rt(Entry::ListPush, &[rt, l, ed, v]);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    // ---------------------------------------------------------------- instructions

    fn inst(&mut self, kind: &InstKind, abandon: Option<BlockId>) {
        use InstKind as K;
        let rt = self.rt;
        match kind {
            K::Const { dst, value } => match value {
                ConstValue::Unit => {}
                ConstValue::Bool(v) => {
                    let c = self.b.ins().iconst(types::I8, *v as i64);
                    self.write(*dst, c);
                }
                ConstValue::Int(v) => {
                    let ty = scalar_type(self.kind(*dst));
                    let c = self.b.ins().iconst(ty, *v as i64);
                    self.write(*dst, c);
                }
                ConstValue::Float(x) => {
                    let c = if self.kind(*dst) == TyKind::F32 {
                        self.b.ins().f32const(*x as f32)
                    } else {
                        self.b.ins().f64const(*x)
                    };
                    self.write(*dst, c);
                }
                ConstValue::Str(s) => {
                    // A head over the constant's bytes in the module's data, owning
                    // nothing (`cap` 0: `docs/abi.md`, strings); the empty string's
                    // `ptr` is null.
                    let (bytes, len) = if s.is_empty() {
                        (self.iconst_ptr(0), self.iconst_ptr(0))
                    } else {
                        self.bytes_addr(s.as_bytes())
                    };
                    let zero = self.iconst_ptr(0);
                    let d = self.addr(*dst);
                    // Without an alias region, as every store of a header (see
                    // `LIST_HEADER_REGION`).
                    let flags = trusted();
                    self.b.ins().store(flags, bytes, d, LIST_PTR_OFFSET as i32);
                    self.b.ins().store(flags, len, d, LIST_LEN_OFFSET as i32);
                    self.b.ins().store(flags, zero, d, LIST_CAP_OFFSET as i32);
                }
            },
            K::Copy { .. } | K::Move { .. } | K::Clone { .. } | K::Drop { .. } => {
                match value_op(self.func, kind).expect("a value instruction") {
                    ValueOp::Bits { dst, src } => self.mov(dst, src),
                    ValueOp::Clone { dst, src } => {
                        let (s, d) = (self.addr(src), self.addr(dst));
                        let td = self.desc(&self.slot_ty(src).clone());
                        self.call_rt(Entry::Clone, &[rt, s, td, d]);
                    }
                    ValueOp::Drop { slot } => {
                        let at = self.addr(slot);
                        let td = self.desc(&self.slot_ty(slot).clone());
                        self.call_rt(Entry::Drop, &[rt, at, td]);
                    }
                    ValueOp::DropString { slot } => {
                        let at = self.addr(slot);
                        let cap =
                            self.b
                                .ins()
                                .load(self.ptr, trusted(), at, LIST_CAP_OFFSET as i32);
                        let (owns, done) = (self.b.create_block(), self.b.create_block());
                        self.b.ins().brif(cap, owns, &[], done, &[]);
                        self.b.switch_to_block(owns);
                        let td = self.desc(&IrType::String);
                        self.call_rt(Entry::Drop, &[rt, at, td]);
                        self.b.ins().jump(done, &[]);
                        self.b.switch_to_block(done);
                    }
                    ValueOp::Nothing => {}
                }
            }
            K::Unary { dst, op, src } => {
                let kind = self.kind(*src);
                let x = self.read(*src);
                let r = self.unary(*op, kind, x, abandon);
                self.write(*dst, r);
            }
            K::Binary { dst, op, lhs, rhs } => {
                let kind = self.kind(*lhs);
                let (a, b) = (self.read(*lhs), self.read(*rhs));
                let r = self.binary(*op, kind, a, b, abandon);
                self.write(*dst, r);
            }
            K::Compare { dst, op, lhs, rhs } => {
                let ty = self.slot_ty(*lhs).clone();
                let r = if ty.is_scalar() {
                    let kind = self.kind(*lhs);
                    let (a, b) = (self.read(*lhs), self.read(*rhs));
                    self.compare_scalar(*op, kind, a, b)
                } else if ty == IrType::String {
                    // Strings by their bytes (`docs/backends.md`): the runtime's
                    // `string_eq` and `string_cmp`, not through the descriptor.
                    let (a, b) = (self.addr(*lhs), self.addr(*rhs));
                    match op {
                        datalove_ir::CompareOp::Eq | datalove_ir::CompareOp::Ne => {
                            let eq = self
                                .call_rt(Entry::StringEq, &[rt, a, b])
                                .expect("string_eq");
                            let cc = if *op == datalove_ir::CompareOp::Eq {
                                IntCC::NotEqual
                            } else {
                                IntCC::Equal
                            };
                            self.b.ins().icmp_imm_s(cc, eq, 0)
                        }
                        _ => {
                            let ord = self
                                .call_rt(Entry::StringCmp, &[rt, a, b])
                                .expect("string_cmp");
                            self.compare_ordering(*op, ord)
                        }
                    }
                } else {
                    let (a, b) = (self.addr(*lhs), self.addr(*rhs));
                    let td = self.desc(&ty);
                    match op {
                        datalove_ir::CompareOp::Eq | datalove_ir::CompareOp::Ne => {
                            let eq = self.call_rt(Entry::Eq, &[rt, a, b, td]).expect("eq");
                            let cc = if *op == datalove_ir::CompareOp::Eq {
                                IntCC::NotEqual
                            } else {
                                IntCC::Equal
                            };
                            self.b.ins().icmp_imm_s(cc, eq, 0)
                        }
                        _ => {
                            let ord = self.call_rt(Entry::Cmp, &[rt, a, b, td]).expect("cmp");
                            self.compare_ordering(*op, ord)
                        }
                    }
                };
                self.write(*dst, r);
            }
            K::Cast { dst, src, checked } => {
                let (from, to) = (self.kind(*src), self.kind(*dst));
                let x = self.read(*src);
                let r = self.cast(from, to, *checked, x, abandon);
                self.write(*dst, r);
            }
            K::Concat { dst, lhs, rhs } if dst == lhs => {
                // An append in place: inline while the buffer has room (`docs/backends.md`),
                // else the runtime grows it.
                let (t, s) = (self.addr(*rhs), self.addr(*dst));
                let flags = trusted();
                let cap = self
                    .b
                    .ins()
                    .load(self.ptr, flags, s, LIST_CAP_OFFSET as i32);
                let len = self
                    .b
                    .ins()
                    .load(self.ptr, flags, s, LIST_LEN_OFFSET as i32);
                let more = self
                    .b
                    .ins()
                    .load(self.ptr, flags, t, LIST_LEN_OFFSET as i32);
                let owns = self.b.ins().icmp_imm_u(IntCC::NotEqual, cap, 0);
                let some = self.b.ins().icmp_imm_u(IntCC::NotEqual, more, 0);
                let room = self.b.ins().isub(cap, len);
                let fits = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedLessThanOrEqual, more, room);
                let both = self.b.ins().band(owns, some);
                let fast = self.b.ins().band(both, fits);
                let (append, grow, done) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.set_cold_block(grow);
                self.b.ins().brif(fast, append, &[], grow, &[]);
                self.b.switch_to_block(append);
                let base = self
                    .b
                    .ins()
                    .load(self.ptr, flags, s, LIST_PTR_OFFSET as i32);
                let from = self
                    .b
                    .ins()
                    .load(self.ptr, flags, t, LIST_PTR_OFFSET as i32);
                let at = self.b.ins().iadd(base, len);
                let config = self.module.target_config();
                self.b.call_memcpy(config, at, from, more);
                let grown = self.b.ins().iadd(len, more);
                self.b.ins().store(flags, grown, s, LIST_LEN_OFFSET as i32);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(grow);
                self.call_rt(Entry::StringConcat, &[rt, s, t, s]);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
            }
            K::Concat { dst, lhs, rhs } => {
                let (a, b, d) = (self.addr(*lhs), self.addr(*rhs), self.addr(*dst));
                self.call_rt(Entry::StringConcat, &[rt, a, b, d]);
            }
            K::MakeTuple { dst, fields } => {
                self.each_field(*dst, fields.len(), |fx, i, at| fx.copy_into(at, fields[i]));
            }
            K::TupleField { dst, src, index } => {
                let ty = self.slot_ty(*src).clone();
                let field_types = ty.fields().expect("verified: a tuple or record");
                let field_ty = field_types[*index as usize].clone();
                let base = self.addr(*src);
                let off = self.field_offset(&ty, *index as usize);
                let at = self.b.ins().iadd(base, off);
                if field_ty.is_copy() {
                    self.copy_from(*dst, at);
                } else {
                    let td = if ty.mentions_param() {
                        // The tuple descriptor's own field descriptor, as the interpreter reads it.
                        let d = self.desc(&ty);
                        let fields = self.b.ins().load(self.ptr, trusted(), d, OFF_FIELDS);
                        self.b.ins().load(
                            self.ptr,
                            trusted(),
                            fields,
                            *index as i32 * FIELD_SIZE + FIELD_OFF_DESC,
                        )
                    } else {
                        self.desc(&field_ty)
                    };
                    let d = self.addr(*dst);
                    self.call_rt(Entry::Clone, &[rt, at, td, d]);
                }
            }
            K::Unpack { src, dsts } => {
                self.each_field(*src, dsts.len(), |fx, i, at| fx.copy_from(dsts[i], at));
            }
            K::MakeVariant {
                dst,
                variant,
                fields,
            } => datalove_ir::lowering::make_variant(self, *dst, *variant, fields),
            K::VariantTag { dst, src } => {
                let s = self.addr(*src);
                let tag = self.b.ins().load(types::I32, trusted(), s, 0);
                self.write(*dst, tag);
            }
            K::TakeVariant { src, variant, dsts } => {
                datalove_ir::lowering::take_variant(self, *src, *variant, dsts)
            }
            K::MakeList { dst, elems } => {
                let IrType::List(elem) = self.slot_ty(*dst).clone() else {
                    unreachable!("verified: a list")
                };
                let ed = self.desc(&elem);
                let d = self.addr(*dst);
                let n = self.iconst_ptr(elems.len() as i64);
                self.call_rt(Entry::ListNew, &[rt, ed, n, d]);
                for e in elems {
                    let v = self.read_addr(*e);
                    self.call_rt(Entry::ListPush, &[rt, d, ed, v]);
                }
            }
            K::ListLen { dst, list } => {
                let n = self.list_len(*list);
                self.write(*dst, n);
            }
            K::StrParts { dst, string, sep } => {
                let (s, d) = (self.addr(*string), self.addr(*dst));
                let sep = match sep {
                    Some(sep) => self.addr(*sep),
                    None => self.b.ins().iconst(self.ptr, 0),
                };
                self.call_rt(Entry::StringParts, &[rt, s, sep, d]);
            }
            K::MapLen { dst, map } => {
                let m = self.addr(*map);
                let n = self
                    .call_rt(Entry::MapLen, &[rt, m])
                    .expect("map_len gives");
                self.write(*dst, n);
            }
            K::MapEntry { dst, map, index } => {
                // The entry's bytes, found by the runtime (one step from the entry
                // before); the map keeps what they own. Null: past the end.
                let abandon = abandon.expect("fallible");
                let i = self.read(*index);
                let m = self.addr(*map);
                let map_ty = self.slot_ty(*map).clone();
                let md = self.desc(&map_ty);
                let at = self
                    .call_rt(Entry::MapEntryAt, &[rt, m, md, i])
                    .expect("map_entry_at gives");
                let missing = self.b.ins().icmp_imm_u(IntCC::Equal, at, 0);
                self.fail_if(missing, abandon, |fx| {
                    let m = fx.addr(*map);
                    let len = fx.call_rt(Entry::MapLen, &[rt, m]).expect("map_len gives");
                    fx.call_rt(Entry::RaiseBounds, &[rt, i, len]);
                });
                let ty = self.slot_ty(*dst).clone();
                let d = self.addr(*dst);
                self.copy_bytes(&ty, d, at);
            }
            K::ListGet {
                dst,
                list,
                index,
                view,
                ..
            } => {
                let abandon = abandon.expect("fallible");
                let i = self.read(*index);
                let ty = self.slot_ty(*dst).clone();
                let l = self.addr(*list);
                if datalove_ir::lowering::tests_index(kind, &ty) {
                    let len = self.bounds_len(*list, l, &ty);
                    let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
                    self.fail_if(out, abandon, |fx| {
                        fx.call_rt(Entry::RaiseBounds, &[rt, i, len]);
                    });
                }
                if list_elem_inline(&ty) {
                    let at = self.list_elem_addr(*list, i, &ty);
                    let flags = self.region_flags(LIST_ELEMS_REGION);
                    let t = scalar_type(self.kind(*dst));
                    let v = self.b.ins().load(t, flags, at, 0);
                    self.write(*dst, v);
                } else if *view {
                    // The element's bytes, `ptr + i * size`; the list keeps what they own.
                    let flags = self.region_flags(LIST_HEADER_REGION);
                    let base = self
                        .b
                        .ins()
                        .load(self.ptr, flags, l, LIST_PTR_OFFSET as i32);
                    let size = match ty.layout() {
                        Some(layout) => self.iconst_ptr(layout.size as i64),
                        None => {
                            let ed = self.desc(&ty);
                            self.desc_size(ed)
                        }
                    };
                    let off = self.b.ins().imul(i, size);
                    let src = self.b.ins().iadd(base, off);
                    let d = self.addr(*dst);
                    self.copy_bytes(&ty, d, src);
                } else {
                    let ed = self.desc(&ty);
                    let d = self.addr(*dst);
                    self.call_rt(Entry::ListGet, &[rt, l, ed, i, d]);
                }
            }
            K::StrSlice {
                dst,
                string,
                start,
                end,
                view,
            } => {
                // The runtime checks the slice and raises its error: a status other
                // than `STATUS_OK` only goes to the abandon block.
                let abandon = abandon.expect("fallible");
                let (s, d) = (self.addr(*string), self.addr(*dst));
                let (from, to) = (self.read(*start), self.read(*end));
                let done = self.b.create_block();
                if *view {
                    self.slice_view_inline(s, from, to, d, done);
                }
                let v = self.b.ins().iconst(types::I8, i64::from(*view));
                let status = self
                    .call_rt(Entry::StringPart, &[rt, s, from, to, v, d])
                    .expect("string_part returns a status");
                let refused = self.b.ins().icmp_imm_u(
                    IntCC::NotEqual,
                    status,
                    i64::from(datalove_rti::status::STATUS_OK),
                );
                self.fail_if(refused, abandon, |_| {});
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
            }
            K::ListSet {
                list, index, value, ..
            } => {
                let abandon = abandon.expect("fallible");
                let i = self.read(*index);
                let l = self.addr(*list);
                let ty = self.slot_ty(*value).clone();
                if list_elem_inline(&ty) {
                    // A copy value: nothing to destroy when the index is refused.
                    if datalove_ir::lowering::tests_index(kind, &ty) {
                        let len = self.bounds_len(*list, l, &ty);
                        let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
                        self.fail_if(out, abandon, |fx| {
                            fx.call_rt(Entry::RaiseBounds, &[rt, i, len]);
                        });
                    }
                    let at = self.list_elem_addr(*list, i, &ty);
                    let flags = self.region_flags(LIST_ELEMS_REGION);
                    let v = self.read(*value);
                    self.b.ins().store(flags, v, at, 0);
                } else {
                    // The value is moved in whatever the status: a refused one is destroyed.
                    let len = self.bounds_len(*list, l, &ty);
                    let ed = self.desc(&ty);
                    let v = self.addr(*value);
                    let status = self
                        .call_rt(Entry::ListSet, &[rt, l, ed, i, v])
                        .expect("list_set");
                    let refused =
                        self.b
                            .ins()
                            .icmp_imm_s(IntCC::Equal, status, STATUS_OUT_OF_BOUNDS as i64);
                    let past = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
                    let out = self.b.ins().bor(refused, past);
                    self.fail_if(out, abandon, |fx| {
                        fx.call_rt(Entry::RaiseBounds, &[rt, i, len]);
                    });
                }
            }
            K::ListPush { list, value } => {
                let ty = self.slot_ty(*value).clone();
                let l = self.addr(*list);
                if list_elem_inline(&ty) {
                    self.push_inline(l, *value, &ty);
                } else {
                    let ed = self.desc(&ty);
                    let v = self.read_addr(*value);
                    self.call_rt(Entry::ListPush, &[rt, l, ed, v]);
                }
            }
            K::MakeSome { dst, value } => {
                let ty = self.slot_ty(*dst).clone();
                let d = self.addr(*dst);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.ins().store(trusted(), one, d, 0);
                let off = self.payload_offset(&ty);
                let at = self.b.ins().iadd(d, off);
                self.copy_into(at, *value);
            }
            K::MakeNone { dst } => {
                let ty = self.slot_ty(*dst).clone();
                let td = self.desc(&ty);
                let d = self.addr(*dst);
                self.call_rt(Entry::Init, &[d, td]);
            }
            K::IsSome { dst, src } => {
                let s = self.addr(*src);
                let tag = self.b.ins().load(types::I8, trusted(), s, 0);
                let r = self.b.ins().icmp_imm_s(IntCC::NotEqual, tag, 0);
                self.write(*dst, r);
            }
            K::Unwrap { dst, src } => {
                let abandon = abandon.expect("fallible");
                let ty = self.slot_ty(*src).clone();
                let s = self.addr(*src);
                let tag = self.b.ins().load(types::I8, trusted(), s, 0);
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, tag, 0);
                self.fail_if(none, abandon, |fx| {
                    // An empty detail: the runtime words the error.
                    let k = fx.b.ins().iconst(types::I32, ErrorKind::UnwrapNone as i64);
                    let null = fx.b.ins().iconst(fx.ptr, 0);
                    fx.call_rt(Entry::Raise, &[rt, k, null, null]);
                });
                let off = self.payload_offset(&ty);
                let at = self.b.ins().iadd(s, off);
                self.copy_from(*dst, at);
            }
            K::MakeData { dst, value } => {
                let ty = self.slot_ty(*value).clone();
                let td = self.desc(&ty);
                let (v, d) = (self.read_addr(*value), self.addr(*dst));
                self.call_rt(Entry::DataMake, &[rt, v, td, d]);
            }
            K::Debuglog { src } => {
                let ty = self.slot_ty(*src).clone();
                let td = self.desc(&ty);
                let s = self.read_addr(*src);
                self.call_rt(Entry::Debuglog, &[rt, s, td]);
            }
            K::Call { .. } => self.program_call(
                kind.as_program_call().expect("a call"),
                abandon.expect("fallible"),
            ),
            K::CheckDepth { depth: needed } => {
                // Signed: `NO_ROOM_BIT` fails it too.
                let depth = self.b.use_var(self.depth);
                let no_depth =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::SignedLessThan, depth, i64::from(*needed));
                self.fail_if(no_depth, abandon.expect("fallible"), |fx| {
                    let rt = fx.rt;
                    fx.store_depth_for_raise(*needed);
                    fx.call_rt(Entry::RaiseStackOverflow, &[rt]);
                });
            }
            K::CalledFrom => {
                if let Some(site) = self.site.clone() {
                    let (s, len) = self.bytes_addr(site.as_bytes());
                    self.call_rt(Entry::ErrorAt, &[rt, s, len]);
                }
            }
            K::CallNative { dst, native, args } => {
                self.native_call(*dst, native, args, abandon.expect("fallible"))
            }
        }
    }

    fn program_call(&mut self, call: datalove_ir::ProgramCall, abandon: BlockId) {
        let (dst, func, args, depth_taken) = (call.dst, call.func, call.args, call.depth);
        let callee = self.program.function(func);
        let result = result_pass(&callee.result);
        let depth = self.b.use_var(self.depth);
        let fewer = self.b.ins().iadd_imm_s(depth, -i64::from(depth_taken));
        let words = call_words(callee, args, call.type_args, dst, |w| match w {
            CallWord::Depth => fewer,
            w => self.call_word(w),
        });
        let id = self.functions[func.index()];
        let callee_ref = self.module.declare_func_in_func(id, self.b.func);
        self.call_may_start(callee, args, depth_taken, abandon);
        let call = self.b.ins().call(callee_ref, &words);
        let results = self.b.inst_results(call).to_vec();
        if let (ResultPass::Value(_), Some(d)) = (result, dst) {
            self.write(d, results[0]);
        }
        let abandoning = *results.last().expect("a status");
        if self.site.is_some() {
            self.fail_if(abandoning, abandon, |_| {});
        } else {
            let target = self.blocks[abandon.index()];
            let cont = self.b.create_block();
            self.b.ins().brif(abandoning, target, &[], cont, &[]);
            self.b.switch_to_block(cont);
        }
    }

    /// The value of one word of a program call.
    fn call_word(&mut self, word: CallWord) -> Value {
        match word {
            CallWord::Runtime => self.rt,
            CallWord::Depth => unreachable!("the depth word is made by `program_call`"),
            CallWord::Value(slot) => self.read(slot),
            CallWord::Address(slot) => self.addr(slot),
            CallWord::ReadAddress(slot) => self.read_addr(slot),
            CallWord::Desc(ty) => self.desc(ty),
        }
    }

    /// Before a program call: when no call depth is left or the stack has no room for
    /// the callee's frame (`Function::frame_bytes`), raise `stack overflow`, drop the
    /// arguments the call would have handed over and take the abandon path. Deep
    /// recursion is a runtime error, never a crash, and the test runs in a frame known
    /// to fit, before the callee reserves its own. The room for a callee tested
    /// once (`room_tested_on_entry`) is in the depth word already (`test_room`):
    /// such a call makes one signed compare.
    fn call_may_start(
        &mut self,
        callee: &datalove_ir::Function,
        args: &[datalove_ir::Arg],
        depth_taken: u32,
        abandon: BlockId,
    ) {
        let depth = self.b.use_var(self.depth);
        let mut refused =
            vec![self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedLessThan, depth, i64::from(depth_taken))];
        if !datalove_ir::lowering::room_tested_on_entry(callee) {
            let sp = self.b.ins().get_stack_pointer(self.ptr);
            let limit = self.load_stack_limit();
            // Bounded, so that the subtraction cannot wrap below zero.
            let frame = callee.frame_bytes().min(1 << 40) as i64;
            let bottom = self.b.ins().iadd_imm_s(sp, -frame);
            refused.push(self.b.ins().icmp(IntCC::UnsignedLessThan, bottom, limit));
        }
        let moved: Vec<SlotId> = self.func.moved_args(args);
        self.fail_if_any(&refused, abandon, |fx| {
            let rt = fx.rt;
            fx.store_depth_for_raise(depth_taken);
            fx.call_rt(Entry::RaiseStackOverflow, &[rt]);
            for slot in moved {
                let ty = fx.slot_ty(slot).clone();
                let d = fx.desc(&ty);
                let at = fx.addr(slot);
                fx.call_rt(Entry::Drop, &[rt, at, d]);
            }
        });
    }

    fn terminator(&mut self, term: &Terminator) {
        match term {
            Terminator::Jump(b) => {
                let t = self.blocks[b.index()];
                self.b.ins().jump(t, &[]);
            }
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                let c = self.read(*cond);
                let (t, e) = (
                    self.blocks[then_block.index()],
                    self.blocks[else_block.index()],
                );
                self.b.ins().brif(c, t, &[], e, &[]);
            }
            Terminator::Return(result) => match (result_pass(&self.func.result), result) {
                (ResultPass::Value(_), Some(s)) => {
                    let v = self.read(*s);
                    self.pop_shadow();
                    self.return_with(Some(v), false);
                }
                (ResultPass::Pointer, Some(s)) => {
                    let ret = self.ret_ptr.expect("a pointer result has ret_ptr");
                    self.copy_into(ret, *s);
                    self.pop_shadow();
                    self.return_with(None, false);
                }
                _ => {
                    self.pop_shadow();
                    self.return_with(None, false);
                }
            },
            Terminator::Abandon => {
                self.pop_shadow();
                self.return_abandoned();
            }
            Terminator::Unterminated => {
                panic!("`{}`: an unterminated block in verified IR", self.func.name)
            }
        }
    }
}

/// An enum's parts as Cranelift values: a payload field is its address.
impl<M: Module> datalove_ir::lowering::VariantParts for Fx<'_, '_, M> {
    type Field = Value;

    /// Constant offsets from the enum's address when it is concrete, else read from its
    /// descriptor (`fields[variant]`: the payload tuple and its offset).
    fn variant_fields(&mut self, e: SlotId, variant: u32, n: usize) -> Vec<Value> {
        let ty = self.slot_ty(e).clone();
        let base = self.addr(e);
        if let Some(offsets) = ty.variant_field_offsets(variant as usize) {
            return offsets
                .into_iter()
                .map(|o| self.b.ins().iadd_imm_u(base, o as i64))
                .collect();
        }
        let d = self.desc(&ty);
        let fields = self.b.ins().load(self.ptr, trusted(), d, OFF_FIELDS);
        let at = variant as i32 * FIELD_SIZE;
        let payload = self
            .b
            .ins()
            .load(self.ptr, trusted(), fields, at + FIELD_OFF_DESC);
        let offset = self
            .b
            .ins()
            .load(self.ptr, trusted(), fields, at + FIELD_OFF_OFFSET);
        let start = self.b.ins().iadd(base, offset);
        let payload_fields = self.b.ins().load(self.ptr, trusted(), payload, OFF_FIELDS);
        (0..n)
            .map(|i| {
                let off = self.b.ins().load(
                    self.ptr,
                    trusted(),
                    payload_fields,
                    i as i32 * FIELD_SIZE + FIELD_OFF_OFFSET,
                );
                self.b.ins().iadd(start, off)
            })
            .collect()
    }

    fn store_tag(&mut self, e: SlotId, tag: u32) {
        let d = self.addr(e);
        let tag = self.b.ins().iconst(types::I32, i64::from(tag));
        self.b.ins().store(trusted(), tag, d, 0);
    }

    fn copy_to_field(&mut self, field: Value, src: SlotId) {
        self.copy_into(field, src);
    }

    fn copy_from_field(&mut self, dst: SlotId, field: Value) {
        self.copy_from(dst, field);
    }
}
