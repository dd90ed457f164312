//! The lowering decisions every backend shares, made once here and read by the
//! interpreter, the Cranelift lowering and the C emitter: how a program function's
//! parameters and result travel ([`param_pass`], [`result_pass`]) and what a caller
//! passes for each word ([`call_words`]), the symbol of a
//! program function ([`function_symbol`]), the text of a terminator in every dump
//! ([`terminator_text`]), and, on [`Function`], which slots an instruction writes, what
//! a call hands over, what a native that returned OK wrote, and how much native stack a
//! call reserves; what a copy, move, clone or drop does ([`value_op`]); and the native
//! slots of an executable ([`NativeLinks`]).
//! `docs/architecture.md` tables each decision with its one file.

use datalove_rti::TyKind;

use crate::program::{Arg, BlockId, ConstValue, Function, InstKind, SlotId, Terminator};
use crate::types::{IrType, ParamMode};

/// How one parameter travels between program functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// A concrete scalar `in` parameter: by value.
    Value(TyKind),
    /// Everything else: the caller's address.
    Address,
}

/// How a program function's result travels back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultPass {
    /// Unit: nothing.
    Nothing,
    /// A concrete scalar: the function's return value.
    Value(TyKind),
    /// Anything else: written to the caller's result pointer.
    Pointer,
}

/// How a parameter of `mode` and `ty` is passed.
pub fn param_pass(mode: ParamMode, ty: &IrType) -> Pass {
    match ty.kind() {
        Some(kind) if mode == ParamMode::In && ty.is_scalar() => Pass::Value(kind),
        _ => Pass::Address,
    }
}

/// How a result of `ty` is returned.
pub fn result_pass(ty: &IrType) -> ResultPass {
    match (ty, ty.kind()) {
        (IrType::Unit, _) => ResultPass::Nothing,
        (t, Some(kind)) if t.is_scalar() => ResultPass::Value(kind),
        _ => ResultPass::Pointer,
    }
}

/// The symbol of program function `index` named `name` in an object or a C file:
/// unique by its index, readable by its name.
pub fn function_symbol(index: usize, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("dtlv_fn{index}_{clean}")
}

/// A function's one test of stack room for its calls ([`Function::room_test`]): at the
/// start of `block`, for `room` bytes below the stack pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomTest {
    pub block: BlockId,
    pub room: usize,
}

/// The largest callee frame whose room the caller tests once, on entry
/// ([`Function::entry_room`]), rather than before each call: 16 KiB, well inside the
/// safety margin below `stack_limit` (256 KiB), so a function that has no room for its
/// largest such callee is at most that far from the limit.
pub const ENTRY_TESTED_FRAME: usize = 16 * 1024;

/// Whether a call of `callee` is covered by its caller's entry test of stack room
/// ([`Function::entry_room`]); if not, the call tests its own room before it starts.
pub fn room_tested_on_entry(callee: &Function) -> bool {
    callee.frame_bytes() <= ENTRY_TESTED_FRAME
}

/// The bit a compiled function sets in its depth word ([`ProgramWord::Depth`]) when its
/// entry test finds no stack room for its calls ([`Function::entry_room`]). Calls test
/// the depth word as a *signed* number (`depth < d`), so one compare refuses a call
/// either way; the failure path reads the depth left with the bit cleared, to tell the
/// runtime which limit was reached. The entry wrapper passes at most `i64::MAX`, so the
/// bit is never set by the depth itself.
pub const NO_ROOM_BIT: u64 = 1 << 63;

/// The most depth a depth word holds (every bit but [`NO_ROOM_BIT`]): what the entry
/// wrapper passes at most, and the mask that clears the bit on a refusing path.
pub const DEPTH_MAX: u64 = NO_ROOM_BIT - 1;

/// The symbol of the function a host calls to run a program, `void entry(void *rt)`:
/// it calls the program's entry with the depth `rt->depth_left` holds
/// ([`ProgramWord::Depth`]) and ignores its status (the host reads `rt->abandoning`).
pub const ENTRY_WRAPPER_SYMBOL: &str = "dtlv_entry";

/// A terminator as every dump writes it (`emit ir`, the comments of `emit clif` and
/// `emit c`).
pub fn terminator_text(term: &Terminator) -> String {
    match term {
        Terminator::Jump(b) => format!("jump {b}"),
        Terminator::Branch {
            cond,
            then_block,
            else_block,
        } => format!("branch {cond}, {then_block}, {else_block}"),
        Terminator::Return(Some(s)) => format!("return {s}"),
        Terminator::Return(None) => "return".to_string(),
        Terminator::Abandon => "abandon".to_string(),
        Terminator::Unterminated => "<unterminated>".to_string(),
    }
}

impl Function {
    /// For each slot, whether some instruction writes it or changes it in place. A
    /// compiled backend reads an `in` parameter no instruction writes where the caller
    /// put it, and copies one that is written into the function's own storage on entry
    /// (the caller's place is the caller's).
    pub fn written_slots(&self) -> Vec<bool> {
        let mut w = vec![false; self.slots.len()];
        for block in &self.blocks {
            for inst in &block.insts {
                inst.kind.for_each_written(|s| w[s.index()] = true);
            }
        }
        w
    }

    /// The arguments of a call (of a program function or a native) that the call hands
    /// over: passed `in` and not of a copy type in this function. If a program call
    /// cannot start (call-depth limit, stack room), the caller drops these, since the
    /// callee that would have owned them never ran.
    pub fn moved_args(&self, args: &[Arg]) -> Vec<SlotId> {
        args.iter()
            .filter(|a| a.mode == ParamMode::In && !self.slot_type(a.slot).is_copy())
            .map(|a| a.slot)
            .collect()
    }

    /// The slots a native call that returned OK has initialized and that own memory:
    /// its result and its `out` arguments, of types that are not copy. A native that
    /// returns OK after raising an error (the runtime is abandoning) has failed all the
    /// same: the caller drops these, so its abandon path finds nothing written, as after
    /// a failure status.
    pub fn owned_call_results(&self, dst: Option<SlotId>, args: &[Arg]) -> Vec<SlotId> {
        dst.into_iter()
            .chain(
                args.iter()
                    .filter(|a| a.mode == ParamMode::Out)
                    .map(|a| a.slot),
            )
            .filter(|s| !self.slot_type(*s).is_copy())
            .collect()
    }

    /// The stack room this function tests once for the calls it makes: the
    /// largest [`frame_bytes`](Function::frame_bytes) among the program functions it
    /// calls whose frame is at most [`ENTRY_TESTED_FRAME`] ([`room_tested_on_entry`]);
    /// `None` when it calls none of those. A compiled backend tests it where
    /// [`room_test`](Function::room_test) says and, when there is no room, sets
    /// [`NO_ROOM_BIT`] in its depth word, so that every such call then fails its depth
    /// test; a call of a bigger frame tests its own room before it starts (docs/abi.md,
    /// section 12).
    pub fn entry_room(&self, program: &crate::program::Program) -> Option<usize> {
        self.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| i.kind.as_program_call())
            .map(|c| program.function(c.func))
            .filter(|callee| room_tested_on_entry(callee))
            .map(Function::frame_bytes)
            .max()
    }

    /// Where a compiled backend tests [`entry_room`](Function::entry_room): at the start
    /// of the nearest block that dominates every block making a call covered by it (or
    /// a `check_depth`), so that a path that makes no call (a recursion's base case)
    /// does not pay for the test. `None` when there is nothing to test.
    pub fn room_test(&self, program: &crate::program::Program) -> Option<RoomTest> {
        let room = self.entry_room(program)?;
        let idom = self.immediate_dominators();
        let reached = |b: usize| b == self.entry.index() || idom[b].is_some();
        let users = self.blocks.iter().enumerate().filter(|(bi, block)| {
            reached(*bi)
                && block.insts.iter().any(|i| match &i.kind {
                    InstKind::CheckDepth { .. } => true,
                    kind => kind
                        .as_program_call()
                        .is_some_and(|c| room_tested_on_entry(program.function(c.func))),
                })
        });
        let block = users
            .map(|(bi, _)| BlockId(bi as u32))
            .reduce(|a, b| self.common_dominator(&idom, a, b))?;
        Some(RoomTest { block, room })
    }

    /// The nearest block that dominates both `a` and `b` (`idom` from
    /// [`immediate_dominators`](Function::immediate_dominators); both reached).
    fn common_dominator(&self, idom: &[Option<BlockId>], a: BlockId, b: BlockId) -> BlockId {
        let mut above_a = vec![false; self.blocks.len()];
        let mut at = Some(a);
        while let Some(x) = at {
            above_a[x.index()] = true;
            at = idom[x.index()];
        }
        let mut at = b;
        while !above_a[at.index()] {
            at = idom[at.index()].expect("the entry dominates every block it reaches");
        }
        at
    }

    /// The natural loops: each header (a block a terminator jumps back to from a block
    /// it dominates) with its body, the header included (every block that reaches such
    /// a jump without passing the header). Every path into a body from outside it passes
    /// the header. `idom` from [`immediate_dominators`](Function::immediate_dominators).
    pub fn natural_loops(
        &self,
        idom: &[Option<BlockId>],
    ) -> std::collections::BTreeMap<BlockId, std::collections::BTreeSet<BlockId>> {
        let reached = |b: usize| b == self.entry.index() || idom[b].is_some();
        let dominates = |h: BlockId, b: BlockId| dominates(idom, h, b);
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (bi, block) in self.blocks.iter().enumerate().filter(|(b, _)| reached(*b)) {
            let abandons = block.insts.iter().filter_map(|i| i.abandon);
            for s in block.term.successors().into_iter().chain(abandons) {
                preds[s.index()].push(BlockId(bi as u32));
            }
        }
        let mut loops: std::collections::BTreeMap<BlockId, std::collections::BTreeSet<BlockId>> =
            Default::default();
        for (bi, block) in self.blocks.iter().enumerate().filter(|(b, _)| reached(*b)) {
            let tail = BlockId(bi as u32);
            for h in block.term.successors() {
                if !dominates(h, tail) {
                    continue;
                }
                let body = loops.entry(h).or_default();
                body.insert(h);
                let mut work = vec![tail];
                while let Some(b) = work.pop() {
                    if body.insert(b) {
                        work.extend(preds[b.index()].iter().copied());
                    }
                }
            }
        }
        loops
    }

    /// Each block's immediate dominator: `None` for the entry and for a block the entry
    /// does not reach. The edges are the terminators' and those to each instruction's
    /// abandon block. Cooper, Harvey and Kennedy's iteration over reverse postorder.
    pub fn immediate_dominators(&self) -> Vec<Option<BlockId>> {
        const UNSEEN: usize = usize::MAX;
        let n = self.blocks.len();
        let succs: Vec<Vec<usize>> = self
            .blocks
            .iter()
            .map(|b| {
                let mut s: Vec<usize> = b.term.successors().iter().map(|x| x.index()).collect();
                s.extend(b.insts.iter().filter_map(|i| i.abandon).map(|x| x.index()));
                s
            })
            .collect();
        // Postorder from the entry, without recursion.
        let entry = self.entry.index();
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut walk = vec![(entry, 0usize)];
        seen[entry] = true;
        while let Some(&(v, done)) = walk.last() {
            if let Some(&w) = succs[v].get(done) {
                walk.last_mut().expect("walking").1 += 1;
                if !seen[w] {
                    seen[w] = true;
                    walk.push((w, 0));
                }
                continue;
            }
            walk.pop();
            post.push(v);
        }
        let mut number = vec![UNSEEN; n];
        for (i, &b) in post.iter().enumerate() {
            number[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for (v, ss) in succs.iter().enumerate() {
            if number[v] != UNSEEN {
                for &w in ss {
                    preds[w].push(v);
                }
            }
        }
        let mut idom = vec![UNSEEN; n];
        idom[entry] = entry;
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while number[a] < number[b] {
                    a = idom[a];
                }
                while number[b] < number[a] {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev().filter(|&&b| b != entry) {
                let mut new = UNSEEN;
                for &p in &preds[b] {
                    if idom[p] != UNSEEN {
                        new = if new == UNSEEN {
                            p
                        } else {
                            intersect(&idom, p, new)
                        };
                    }
                }
                if idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        (0..n)
            .map(|b| (b != entry && idom[b] != UNSEEN).then(|| BlockId(idom[b] as u32)))
            .collect()
    }

    /// An upper bound of the native stack a call of this function reserves for its
    /// slots: every slot of a concrete type at its layout size (aligned), a pointer for
    /// one sized at run time (it lives on the shadow stack). Before each call of a
    /// program function, every compiled backend checks that the stack pointer less this
    /// many bytes is still above `stack_limit`, so that a frame of any size is refused
    /// before it is reserved; the safety margin below the limit covers what the bound
    /// leaves out (spills, saved registers, outgoing arguments).
    pub fn frame_bytes(&self) -> usize {
        self.slots
            .iter()
            .map(|slot| match slot.ty.layout() {
                Some(layout) => layout.size.next_multiple_of(layout.align.max(1)),
                None => std::mem::size_of::<usize>(),
            })
            .fold(0usize, usize::saturating_add)
    }
}

/// Where a function finds the descriptor of a type it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DescSource {
    /// A concrete type: its static descriptor, made once per program.
    Static(IrType),
    /// Type parameter `n`: the descriptor the caller passed.
    TypeParam(u32),
    /// Entry `n` of the function's generic table (after the type parameters), made on
    /// entry.
    Generic(usize),
}

/// How an entry of a function's generic table is made on entry, through the runtime's
/// interning entries (`tydesc_list`, `tydesc_option`, `tydesc_tuple`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenericDesc {
    List(DescSource),
    Option(DescSource),
    Tuple(Vec<DescSource>),
    /// `tydesc_map(key, value)`.
    Map(DescSource, DescSource),
    /// `tydesc_enum(names, payloads)`: the descriptor's `names` bytes (the enum's
    /// name, then each variant's, each NUL-terminated) and each variant's payload tuple.
    Enum(Vec<u8>, Vec<DescSource>),
}

/// A function's descriptor table: the type parameters' descriptors first (passed by
/// the caller), then every generic composite type the function names (its slots, the
/// type arguments of its calls, its natives' trailing bindings), components before the
/// types made of them. One plan, read by every backend, so that the tables agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DescPlan {
    pub type_params: usize,
    pub generic: Vec<(IrType, GenericDesc)>,
}

impl DescPlan {
    /// The plan of `f`.
    pub fn of(f: &Function) -> DescPlan {
        let mut needed = Vec::new();
        for slot in &f.slots {
            generic_types(&slot.ty, &mut needed);
        }
        for block in &f.blocks {
            for inst in &block.insts {
                match &inst.kind {
                    InstKind::Call { type_args, .. } => {
                        type_args.iter().for_each(|t| generic_types(t, &mut needed))
                    }
                    InstKind::CallNative { native, .. } => native
                        .undetermined_bindings
                        .iter()
                        .for_each(|t| generic_types(t, &mut needed)),
                    _ => {}
                }
            }
        }
        let mut plan = DescPlan {
            type_params: f.type_params.len(),
            generic: Vec::new(),
        };
        for ty in needed {
            let entry = match &ty {
                IrType::List(e) => GenericDesc::List(plan.source(e)),
                IrType::Option(p) => GenericDesc::Option(plan.source(p)),
                IrType::Tuple(fields) => {
                    GenericDesc::Tuple(fields.iter().map(|t| plan.source(t)).collect())
                }
                IrType::Map(k, v) => GenericDesc::Map(plan.source(k), plan.source(v)),
                IrType::Enum(e) => GenericDesc::Enum(
                    ty.descriptor_names().expect("an enum has names"),
                    (0..e.variant_count())
                        .map(|v| plan.source(&e.payload(v)))
                        .collect(),
                ),
                other => unreachable!("{other} is not a generic composite"),
            };
            plan.generic.push((ty, entry));
        }
        plan
    }

    /// Where the descriptor of `ty` (in the function's terms) is found.
    pub fn source(&self, ty: &IrType) -> DescSource {
        match ty {
            IrType::Param(n) => DescSource::TypeParam(*n),
            t if !t.mentions_param() => DescSource::Static(t.clone()),
            t => DescSource::Generic(
                self.generic
                    .iter()
                    .position(|(g, _)| g == t)
                    .unwrap_or_else(|| panic!("the descriptor plan has no entry for {t}")),
            ),
        }
    }

    /// The number of entries of the table, type parameters included.
    pub fn len(&self) -> usize {
        self.type_params + self.generic.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Every generic composite type `ty` needs, components first (`Param`s excluded: they
/// are the function's descriptor parameters).
fn generic_types(ty: &IrType, out: &mut Vec<IrType>) {
    if !ty.mentions_param() || matches!(ty, IrType::Param(_)) {
        return;
    }
    match ty {
        IrType::List(e) | IrType::Option(e) => generic_types(e, out),
        IrType::Tuple(fields) => fields.iter().for_each(|f| generic_types(f, out)),
        IrType::Map(k, v) => {
            generic_types(k, out);
            generic_types(v, out);
        }
        IrType::Enum(e) => (0..e.variant_count()).for_each(|v| generic_types(&e.payload(v), out)),
        _ => {}
    }
    if !out.contains(ty) {
        out.push(ty.clone());
    }
}

/// The native slots of an executable (aot, c): at start its runtime reads the rider
/// manifest (`datalove_rti::links`), loads each rider beside the executable, checks its
/// ABI version, and writes the address of every native into its slot; compiled code
/// calls a native through its slot. One order, read by both backends: the program's
/// riders in order (then any other rider a call names), each native symbol in the order
/// of its first call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeLinks {
    manifest: datalove_rti::RiderManifest,
    slots: std::collections::HashMap<String, usize>,
}

impl NativeLinks {
    pub fn of(program: &crate::program::Program) -> NativeLinks {
        let mut riders: Vec<(String, Vec<String>)> = program
            .riders
            .iter()
            .map(|r| (r.clone(), Vec::new()))
            .collect();
        let mut slots = std::collections::HashMap::new();
        for native in program.native_calls() {
            if slots.contains_key(native.symbol()) {
                continue;
            }
            let at = match riders.iter().position(|(r, _)| r == native.rider()) {
                Some(at) => at,
                None => {
                    riders.push((native.rider().to_string(), Vec::new()));
                    riders.len() - 1
                }
            };
            riders[at].1.push(native.symbol().to_string());
            slots.insert(native.symbol().to_string(), 0);
        }
        let mut next = 0;
        for (_, symbols) in &riders {
            for symbol in symbols {
                slots.insert(symbol.clone(), next);
                next += 1;
            }
        }
        NativeLinks {
            manifest: datalove_rti::RiderManifest { riders },
            slots,
        }
    }

    /// The slot of the native `symbol` (one the program calls).
    pub fn slot(&self, symbol: &str) -> usize {
        *self
            .slots
            .get(symbol)
            .unwrap_or_else(|| panic!("{symbol} is not a native the program calls"))
    }

    /// How many slots: one per native symbol.
    pub fn slot_count(&self) -> usize {
        self.manifest.slot_count()
    }

    pub fn manifest(&self) -> &datalove_rti::RiderManifest {
        &self.manifest
    }
}

/// Where a slot of a program function lives, one decision every backend reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotHome {
    /// A scalar `in` parameter: passed by value, held by the function (a Cranelift
    /// variable, a C parameter, the interpreter's frame).
    Value,
    /// Used where the caller put it: a `ref`, `mut` or `out` parameter, and an `in`
    /// parameter of a non-scalar type that no instruction writes (the callee owns the
    /// value but reads it in place).
    Caller,
    /// The function's own storage of the type's size (a stack slot or variable, a C
    /// local, the interpreter's frame). A written non-scalar `in` parameter lives here,
    /// copied in from the caller's place on entry.
    Own,
    /// Storage sized at run time, pushed on the shadow stack on entry. A written `in`
    /// parameter of such a type lives here too, copied in on entry.
    Shadow,
}

impl SlotHome {
    /// Whether the slot is an `in` parameter copied into its home on entry.
    pub fn copied_in(self, f: &Function, slot: SlotId) -> bool {
        matches!(self, SlotHome::Own | SlotHome::Shadow)
            && f.param_mode(slot) == Some(ParamMode::In)
    }
}

impl Function {
    /// Each slot's [`SlotHome`].
    pub fn slot_homes(&self) -> Vec<SlotHome> {
        let written = self.written_slots();
        self.slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let concrete = slot.ty.layout().is_some();
                match self.param_mode(SlotId(i as u32)) {
                    Some(ParamMode::In) if slot.ty.is_scalar() => SlotHome::Value,
                    Some(ParamMode::In) if !written[i] => SlotHome::Caller,
                    Some(ParamMode::Ref | ParamMode::Mut | ParamMode::Out) => SlotHome::Caller,
                    _ if concrete => SlotHome::Own,
                    _ => SlotHome::Shadow,
                }
            })
            .collect()
    }
}

/// One word of a program function's signature, in the one order every compiled backend
/// uses: the runtime, the call depth left, then one word per parameter (as
/// [`param_pass`] says), then the result pointer when the result travels through memory,
/// then one descriptor per type parameter.
///
/// What a program function returns is not a word: its scalar result first, when it has
/// one, then its *status*, nonzero when it abandoned. The status repeats the runtime's
/// `abandoning` flag (an abandoning function always follows a raise or a callee that
/// abandoned), so that the caller tests a register after the call instead of loading
/// the flag; a host that calls the entry reads the flag as before.
///
/// The depth is the number of program calls that may still be made (docs/abi.md,
/// section 12): a register, not `rt->depth_left`, so that a call neither loads nor
/// stores it. The host calls the entry through a wrapper `void entry(void *rt)` that
/// passes `rt->depth_left`; a caller that refuses a call stores the depth it had left in
/// `rt->depth_left` (0 when it was too small) before it raises, because the runtime
/// names the depth limit in its message only when it reads 0 there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramWord {
    Runtime,
    Depth,
    Param(usize, Pass),
    ResultPointer,
    TypeParam(usize),
}

/// The words of `f`'s signature, in order.
pub fn program_words(f: &Function) -> Vec<ProgramWord> {
    let mut words = vec![ProgramWord::Runtime, ProgramWord::Depth];
    words.extend(
        f.params
            .iter()
            .enumerate()
            .map(|(i, p)| ProgramWord::Param(i, param_pass(p.mode, f.slot_type(p.slot)))),
    );
    if result_pass(&f.result) == ResultPass::Pointer {
        words.push(ProgramWord::ResultPointer);
    }
    words.extend((0..f.type_params.len()).map(ProgramWord::TypeParam));
    words
}

/// One word a caller passes in a program call, whose words [`program_words`] orders:
/// what the caller's lowering reads for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallWord<'a> {
    /// The runtime.
    Runtime,
    /// The caller's depth left less the call's depth (`ProgramCall::depth`), which the
    /// caller tested before the call.
    Depth,
    /// The value of a slot (a parameter passed by value).
    Value(SlotId),
    /// The address of a slot the callee may write: a `mut` or `out` parameter passed by
    /// address, or the slot that receives a result travelling through memory.
    Address(SlotId),
    /// The address of a slot the callee only reads: an `in` or `ref` parameter passed
    /// by address (a backend may hand over a copy's address instead).
    ReadAddress(SlotId),
    /// The descriptor of a type argument.
    Desc(&'a IrType),
}

/// The words of a call of `callee` with `args` and `type_args`, in order, each as the
/// caller's lowering makes it (`word`); `dst` is the slot that receives the result
/// (verified present when the result is not unit).
pub fn call_words<'a, W>(
    callee: &Function,
    args: &[Arg],
    type_args: &'a [IrType],
    dst: Option<SlotId>,
    mut word: impl FnMut(CallWord<'a>) -> W,
) -> Vec<W> {
    program_words(callee)
        .into_iter()
        .map(|w| match w {
            ProgramWord::Runtime => CallWord::Runtime,
            ProgramWord::Depth => CallWord::Depth,
            ProgramWord::Param(i, Pass::Value(_)) => CallWord::Value(args[i].slot),
            ProgramWord::Param(i, Pass::Address) => match args[i].mode {
                ParamMode::Mut | ParamMode::Out => CallWord::Address(args[i].slot),
                ParamMode::In | ParamMode::Ref => CallWord::ReadAddress(args[i].slot),
            },
            ProgramWord::ResultPointer => {
                CallWord::Address(dst.expect("verified: a result that is not unit is kept"))
            }
            ProgramWord::TypeParam(n) => CallWord::Desc(&type_args[n]),
        })
        .map(&mut word)
        .collect()
}

/// What a value instruction (`copy`, `move`, `clone`, `drop`) does, decided once for
/// every backend ([`value_op`]): a value of a copy type is copied by its bits and owns
/// nothing to drop; any other clone or drop goes through the runtime's `clone`/`drop`
/// by the slot's descriptor. (A `move` is a bitwise copy of any type: the source is
/// uninitialized afterwards, so nothing is owned twice.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueOp {
    /// `dst` takes `src`'s bytes.
    Bits { dst: SlotId, src: SlotId },
    /// The runtime's `clone` of `src` (owned) into `dst`.
    Clone { dst: SlotId, src: SlotId },
    /// The runtime's `drop` of `slot` (owned).
    Drop { slot: SlotId },
    /// The drop of the string `slot`: the runtime's `drop` only when it owns a buffer
    /// (`cap`, at `LIST_CAP_OFFSET`, is not 0), so the drop of a constant, of a part
    /// (`str_parts`) or of the empty string is no call.
    DropString { slot: SlotId },
    /// Nothing: the drop of a copy value.
    Nothing,
}

/// The [`ValueOp`] of `kind` in `f`; `None` for any other instruction.
pub fn value_op(f: &Function, kind: &InstKind) -> Option<ValueOp> {
    let copy = |slot: SlotId| f.slot_type(slot).is_copy();
    Some(match *kind {
        InstKind::Copy { dst, src } | InstKind::Move { dst, src } => ValueOp::Bits { dst, src },
        InstKind::Clone { dst, src } if copy(src) => ValueOp::Bits { dst, src },
        InstKind::Clone { dst, src } => ValueOp::Clone { dst, src },
        InstKind::Drop { slot } if copy(slot) => ValueOp::Nothing,
        InstKind::Drop { slot } if *f.slot_type(slot) == IrType::String => {
            ValueOp::DropString { slot }
        }
        InstKind::Drop { slot } => ValueOp::Drop { slot },
        _ => return None,
    })
}

/// Whether compiled code reaches the elements of a `[elem]` inline, from the one layout
/// (`datalove_rti::layout::LIST_*_OFFSET`, elements at `ptr + i * size`), rather than
/// through the runtime's `list_get`/`list_set`: when the element is a scalar with bytes
/// (bool, integers, index, floats), which is copied in and out and never dropped. Its
/// length is read inline for every list. Read by clif and cbackend alike.
pub fn list_elem_inline(elem: &IrType) -> bool {
    elem.is_scalar() && *elem != IrType::Unit
}

/// Whether compiled code tests the index of the list access `kind` (a `list_get` or
/// `list_set` whose element is `elem`) before it reaches the element: always, but where
/// the element is reached inline ([`list_elem_inline`]) and the IR proved the index in
/// bounds (`checked: false`, [`crate::bounds`]). Read by clif and cbackend alike.
pub fn tests_index(kind: &InstKind, elem: &IrType) -> bool {
    let checked = match kind {
        InstKind::ListGet { checked, .. } | InstKind::ListSet { checked, .. } => *checked,
        _ => true,
    };
    checked || !list_elem_inline(elem)
}

/// Where compiled code keeps list headers in locals ([`Function::list_header_plan`]):
/// each list slot that an inline element access or `len` reads has its `ptr` and `len`
/// in locals, loaded from the header where they are live (read later on some path
/// before anything may change the header): on entry (after the prologue), after each
/// instruction that does not keep list headers ([`keeps_list_headers`]), and at the
/// start of each abandon block (a failure path may have run anything). So the locals
/// hold what memory holds wherever they are read, and a loop whose body only reads and
/// writes elements loads the header once, before the loop, as a C compiler does for a
/// local array.
#[derive(Clone, Debug, Default)]
pub struct ListHeaderPlan {
    /// The cached lists; the other fields index into it.
    pub lists: Vec<SlotId>,
    /// Loaded on entry.
    pub at_entry: Vec<usize>,
    /// Loaded at the start of each block (abandon blocks only).
    pub at_block: Vec<Vec<usize>>,
    /// Loaded after each instruction of each block.
    pub after_inst: Vec<Vec<Vec<usize>>>,
}

/// Whether instruction `kind` of `f` leaves every list header (`ptr`, `len`, `cap`) in
/// memory as it was, on the path where it completes: it calls nothing that could reach
/// a list (no runtime entry, program function or native) and writes no slot but a
/// scalar one. Inline element reads and writes qualify (they write into a list's
/// buffer, never into a header); so do scalar constants, moves, arithmetic, compares
/// and casts. Everything else may grow, replace or move a list. Its failure path (a
/// `raise_*` call, then the abandon block) is not covered: see
/// [`Function::list_header_plan`].
pub fn keeps_list_headers(f: &Function, kind: &InstKind) -> bool {
    let scalar = |s: &SlotId| f.slot_type(*s).is_scalar();
    match kind {
        InstKind::Const { dst, .. } => scalar(dst),
        InstKind::Copy { dst, src } | InstKind::Move { dst, src } => scalar(dst) && scalar(src),
        InstKind::Unary { dst, src, .. } | InstKind::Cast { dst, src, .. } => {
            scalar(dst) && scalar(src)
        }
        InstKind::Binary { dst, lhs, rhs, .. } | InstKind::Compare { dst, lhs, rhs, .. } => {
            scalar(dst) && scalar(lhs) && scalar(rhs)
        }
        InstKind::ListLen { dst, .. } => scalar(dst),
        InstKind::ListGet { dst, .. } => list_elem_inline(f.slot_type(*dst)),
        InstKind::ListSet { value, .. } => list_elem_inline(f.slot_type(*value)),
        InstKind::IsSome { dst, .. } | InstKind::VariantTag { dst, .. } => scalar(dst),
        _ => false,
    }
}

impl Function {
    /// The lists whose header (`ptr`, `len`) compiled code keeps in locals rather
    /// than reloading it at every inline access, and where it loads them
    /// ([`ListHeaderPlan`]). Decided here for clif and cbackend alike.
    pub fn list_header_plan(&self) -> ListHeaderPlan {
        let cached_use = |kind: &InstKind| match kind {
            InstKind::ListLen { list, .. } => Some(*list),
            InstKind::ListGet { list, dst, .. } if list_elem_inline(self.slot_type(*dst)) => {
                Some(*list)
            }
            InstKind::ListSet { list, value, .. } if list_elem_inline(self.slot_type(*value)) => {
                Some(*list)
            }
            _ => None,
        };
        let mut lists: Vec<SlotId> = Vec::new();
        for block in &self.blocks {
            for inst in &block.insts {
                if let Some(l) = cached_use(&inst.kind) {
                    if !lists.contains(&l) {
                        lists.push(l);
                    }
                }
            }
        }
        let n = self.blocks.len();
        let abandon_targets = self.abandon_targets();
        let index = |l: SlotId| lists.iter().position(|x| *x == l).expect("cached");
        // Backward liveness of the cached values: a use makes its list live, an
        // instruction that may change headers ends every list's liveness (it is reloaded
        // after it when live there), an abandon block reloads what is live in it.
        let mut live_in: Vec<Vec<bool>> = vec![vec![false; lists.len()]; n];
        let mut plan = ListHeaderPlan {
            lists: lists.clone(),
            at_entry: Vec::new(),
            at_block: vec![Vec::new(); n],
            after_inst: self
                .blocks
                .iter()
                .map(|b| vec![Vec::new(); b.insts.len()])
                .collect(),
        };
        if lists.is_empty() {
            return plan;
        }
        loop {
            let mut changed = false;
            for bi in (0..n).rev() {
                let block = &self.blocks[bi];
                let mut live = vec![false; lists.len()];
                for succ in block.term.successors() {
                    for (k, l) in live_in[succ.index()].iter().enumerate() {
                        live[k] |= *l;
                    }
                }
                for (ii, inst) in block.insts.iter().enumerate().rev() {
                    if !keeps_list_headers(self, &inst.kind) {
                        plan.after_inst[bi][ii] = (0..lists.len()).filter(|k| live[*k]).collect();
                        live = vec![false; lists.len()];
                    }
                    if let Some(l) = cached_use(&inst.kind) {
                        live[index(l)] = true;
                    }
                }
                if abandon_targets[bi] {
                    plan.at_block[bi] = (0..lists.len()).filter(|k| live[*k]).collect();
                    live = vec![false; lists.len()];
                }
                if live != live_in[bi] {
                    live_in[bi] = live;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        plan.at_entry = (0..lists.len())
            .filter(|k| live_in[self.entry.index()][*k])
            .collect();
        plan
    }

    /// For each block, whether it lies on a cycle of jumps and branches (a loop's
    /// blocks): Tarjan's strongly connected components, walked without recursion.
    pub fn blocks_in_cycles(&self) -> Vec<bool> {
        const UNSEEN: u32 = u32::MAX;
        let n = self.blocks.len();
        let succs: Vec<Vec<BlockId>> = self.blocks.iter().map(|b| b.term.successors()).collect();
        let (mut order, mut low) = (vec![UNSEEN; n], vec![0u32; n]);
        let mut on_stack = vec![false; n];
        let (mut stack, mut in_cycle) = (Vec::new(), vec![false; n]);
        let mut next = 0u32;
        for root in 0..n {
            if order[root] != UNSEEN {
                continue;
            }
            // Each block being walked, with how many of its successors are done.
            let mut walk = vec![(root, 0usize)];
            (order[root], low[root], on_stack[root]) = (next, next, true);
            stack.push(root);
            next += 1;
            while let Some(&(v, done)) = walk.last() {
                if let Some(w) = succs[v].get(done).map(|w| w.index()) {
                    walk.last_mut().expect("walking").1 += 1;
                    in_cycle[v] |= w == v;
                    if order[w] == UNSEEN {
                        (order[w], low[w], on_stack[w]) = (next, next, true);
                        stack.push(w);
                        next += 1;
                        walk.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(order[w]);
                    }
                    continue;
                }
                walk.pop();
                if let Some(&(u, _)) = walk.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == order[v] {
                    // `v` roots a component: the blocks above it on the stack.
                    let at = stack.iter().rposition(|&w| w == v).expect("on the stack");
                    let component = stack.split_off(at);
                    for &w in &component {
                        on_stack[w] = false;
                        in_cycle[w] |= component.len() > 1;
                    }
                }
            }
        }
        in_cycle
    }

    /// The loop constants: the `const` instructions of a scalar (a `bool`, an integer, a
    /// float) standing in a block on a cycle, of slots that every write in the whole
    /// function sets to that same constant (most often one write; a loop copied by
    /// [`crate::bounds`] writes it once in each copy). Such a slot holds its constant
    /// wherever it is read, so a backend may write it once on entry and drop those
    /// instructions from the loops. Parameters are never among them.
    pub fn loop_constants(&self) -> Vec<(BlockId, usize)> {
        /// What the writes of a slot seen so far set it to.
        #[derive(Clone, PartialEq)]
        enum Writes {
            None,
            Always(ConstValue),
            Varied,
        }
        let mut writes = vec![Writes::None; self.slots.len()];
        for block in &self.blocks {
            for inst in &block.insts {
                let constant = match &inst.kind {
                    InstKind::Const { value, .. }
                        if matches!(
                            value,
                            ConstValue::Bool(_) | ConstValue::Int(_) | ConstValue::Float(_)
                        ) =>
                    {
                        Some(value)
                    }
                    _ => None,
                };
                inst.kind.for_each_written(|s| {
                    let w = &mut writes[s.index()];
                    *w = match (&*w, constant) {
                        (Writes::None, Some(v)) => Writes::Always(v.clone()),
                        (Writes::Always(old), Some(v)) if old == v => Writes::Always(v.clone()),
                        _ => Writes::Varied,
                    };
                });
            }
        }
        for p in &self.params {
            writes[p.slot.index()] = Writes::Varied;
        }
        let in_cycle = self.blocks_in_cycles();
        let mut found = Vec::new();
        for (bi, block) in self.blocks.iter().enumerate() {
            if !in_cycle[bi] {
                continue;
            }
            for (ii, inst) in block.insts.iter().enumerate() {
                if let InstKind::Const { dst, .. } = &inst.kind {
                    if matches!(writes[dst.index()], Writes::Always(_)) {
                        found.push((BlockId(bi as u32), ii));
                    }
                }
            }
        }
        found
    }

    /// The blocks some instruction abandons to.
    pub fn abandon_targets(&self) -> Vec<bool> {
        let mut targets = vec![false; self.blocks.len()];
        for block in &self.blocks {
            for inst in &block.insts {
                if let Some(a) = inst.abandon {
                    targets[a.index()] = true;
                }
            }
        }
        targets
    }

    /// For each slot, whether compiled code needs its address to be its home: it is
    /// written through an address (a native's result or `mut`/`out` argument, a
    /// program function's `mut`/`out` argument or result through memory, a list entry
    /// that writes it). A concrete scalar slot that needs none lives in a register (a
    /// Cranelift variable); the others get memory. A use that only reads a value
    /// through an address (`debuglog`, a native's `in`/`ref` argument, a `ref`
    /// argument, a value pushed or boxed) is given a scratch copy at that use; an
    /// element read or written inline ([`list_elem_inline`]) needs no address.
    pub fn address_needed(&self, program: &crate::program::Program) -> Vec<bool> {
        let f = self;
        let mut taken = vec![false; f.slots.len()];
        let mut mark = |s: SlotId| taken[s.index()] = true;
        let inline = |s: SlotId| list_elem_inline(f.slot_type(s));
        for block in &f.blocks {
            for inst in &block.insts {
                let written = |mode: ParamMode| matches!(mode, ParamMode::Mut | ParamMode::Out);
                match &inst.kind {
                    InstKind::ListSet { value, .. } if !inline(*value) => mark(*value),
                    InstKind::ListGet { dst, .. } if !inline(*dst) => mark(*dst),
                    InstKind::CallNative { dst, args, .. } => {
                        args.iter()
                            .filter(|a| written(a.mode))
                            .for_each(|a| mark(a.slot));
                        dst.iter().for_each(|d| mark(*d));
                    }
                    InstKind::Call {
                        dst, func, args, ..
                    } => {
                        let callee = program.function(*func);
                        for (a, p) in args.iter().zip(&callee.params) {
                            if param_pass(p.mode, callee.slot_type(p.slot)) == Pass::Address
                                && written(p.mode)
                            {
                                mark(a.slot);
                            }
                        }
                        if result_pass(&callee.result) == ResultPass::Pointer {
                            dst.iter().for_each(|d| mark(*d));
                        }
                    }
                    _ => {}
                }
            }
        }
        taken
    }
}

/// Which functions the entry reaches through calls (the entry included): only these
/// are compiled. An imported module's other functions cost nothing.
pub fn reachable_functions(program: &crate::program::Program) -> Vec<bool> {
    let mut reached = vec![false; program.functions.len()];
    let Some(entry) = program.entry else {
        return vec![true; program.functions.len()];
    };
    let mut work = vec![entry];
    reached[entry.index()] = true;
    while let Some(id) = work.pop() {
        for block in &program.function(id).blocks {
            for inst in &block.insts {
                if let InstKind::Call { func, .. } = &inst.kind {
                    if !reached[func.index()] {
                        reached[func.index()] = true;
                        work.push(*func);
                    }
                }
            }
        }
    }
    reached
}

/// `program` with only the functions its entry reaches ([`reachable_functions`]), in
/// their order, every call and the entry renumbered. The compiled backends lower this
/// program, so an unreached function is neither compiled nor linked, nor are the
/// natives only it calls.
pub fn reachable_program(program: &crate::program::Program) -> crate::program::Program {
    use crate::program::{FuncId, Program};
    let reached = reachable_functions(program);
    let mut renumbered = vec![None; reached.len()];
    let mut next = 0u32;
    for (i, r) in reached.iter().enumerate() {
        if *r {
            renumbered[i] = Some(FuncId(next));
            next += 1;
        }
    }
    let new_id = |id: FuncId| renumbered[id.index()].expect("a reached function");
    let functions = program
        .functions
        .iter()
        .zip(&reached)
        .filter(|(_, r)| **r)
        .map(|(f, _)| {
            let mut f = f.clone();
            for block in &mut f.blocks {
                for inst in &mut block.insts {
                    if let InstKind::Call { func, .. } = &mut inst.kind {
                        *func = new_id(*func);
                    }
                }
            }
            f
        })
        .collect();
    Program {
        functions,
        entry: program.entry.map(new_id),
        riders: program.riders.clone(),
        files: program.files.clone(),
    }
}

/// What a native the IR computes itself is instead ([`native_inline`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeInline {
    /// One float instruction on an `f64` (`in`), for an `f64` result: `InstKind::Unary`.
    Float(crate::program::UnaryOp),
    /// The length of a string (`ref`), for an `index` result: `InstKind::ListLen`, the
    /// length word strings share with lists.
    Length,
    /// Byte `i` of a string (`ref`, then an `in` `index`), for a `u8` result:
    /// `InstKind::ListGet` of the string's bytes, bounds-checked as a list's element.
    Byte,
    /// Bytes `start..end` of a string (`ref`, then two `in` `index`es), for a `string`
    /// result: `InstKind::StrSlice`.
    Slice,
}

impl NativeInline {
    /// The parameters (mode and type, in order) and the result a call must have to be
    /// computed this way; a call of another shape stays a native call.
    pub fn signature(self) -> (Vec<(ParamMode, IrType)>, IrType) {
        match self {
            NativeInline::Float(_) => (vec![(ParamMode::In, IrType::F64)], IrType::F64),
            NativeInline::Length => (vec![(ParamMode::Ref, IrType::String)], IrType::Index),
            NativeInline::Byte => (
                vec![
                    (ParamMode::Ref, IrType::String),
                    (ParamMode::In, IrType::Index),
                ],
                IrType::U8,
            ),
            NativeInline::Slice => (
                vec![
                    (ParamMode::Ref, IrType::String),
                    (ParamMode::In, IrType::Index),
                    (ParamMode::In, IrType::Index),
                ],
                IrType::String,
            ),
        }
    }
}

/// The natives the IR computes without a call: a call of `rider.function` with the
/// argument and result [`NativeInline`] names is lowered by the front end to that IR
/// operation instead (a call whose value the program drops still has a destination, a
/// temporary, so it is lowered the same way), which every backend (and the interpreter)
/// computes inline: a float operation as the hardware does, a string's length or one of
/// its bytes read from its layout, a part of a string cut by the runtime's one entry for
/// it (`string_part`, which checks the slice as the native does). The std rider keeps
/// the natives for callers the front end does not lower: C, other riders, and IR built
/// by hand that calls them.
pub fn native_inline(rider: &str, function: &str) -> Option<NativeInline> {
    use crate::program::UnaryOp;
    match (rider, function) {
        ("std", "sqrt") => Some(NativeInline::Float(UnaryOp::Sqrt)),
        ("std", "floor") => Some(NativeInline::Float(UnaryOp::Floor)),
        ("std", "ceil") => Some(NativeInline::Float(UnaryOp::Ceil)),
        ("std", "fabs") => Some(NativeInline::Float(UnaryOp::Abs)),
        ("std", "string_len") => Some(NativeInline::Length),
        ("std", "string_byte_at") => Some(NativeInline::Byte),
        ("std", "string_slice") => Some(NativeInline::Slice),
        _ => None,
    }
}

/// How a backend reaches the parts of an enum value, for [`make_variant`] and
/// [`take_variant`], which hold the order of the work: the layout itself is
/// `runtime/rti`'s (`docs/abi.md` §7: the `u32` tag at offset 0, every payload field
/// where [`IrType::variant_field_offsets`] puts it, or, for a layout decided at run time,
/// where the enum's descriptor does).
pub trait VariantParts {
    /// Where a payload field is: an address, or the backend's expression of one.
    type Field;
    /// Where each of the `n` payload fields of variant `variant` of enum slot `e` is.
    fn variant_fields(&mut self, e: SlotId, variant: u32, n: usize) -> Vec<Self::Field>;
    /// Stores `tag` as the `u32` at offset 0 of enum slot `e`.
    fn store_tag(&mut self, e: SlotId, tag: u32);
    /// Copies (moves) slot `src` into payload field `field`.
    fn copy_to_field(&mut self, field: Self::Field, src: SlotId);
    /// Copies (moves) payload field `field` into slot `dst`.
    fn copy_from_field(&mut self, dst: SlotId, field: Self::Field);
}

/// `make_variant`: the tag, then each payload field moved in.
pub fn make_variant<P: VariantParts>(p: &mut P, dst: SlotId, variant: u32, fields: &[SlotId]) {
    p.store_tag(dst, variant);
    let places = p.variant_fields(dst, variant, fields.len());
    for (&field, place) in fields.iter().zip(places) {
        p.copy_to_field(place, field);
    }
}

/// `take_variant`: each payload field of variant `variant` moved out of `src`.
pub fn take_variant<P: VariantParts>(p: &mut P, src: SlotId, variant: u32, dsts: &[SlotId]) {
    let places = p.variant_fields(src, variant, dsts.len());
    for (&dst, place) in dsts.iter().zip(places) {
        p.copy_from_field(dst, place);
    }
}

impl InstKind {
    /// Calls `mark` with each slot the instruction writes or changes in place: its
    /// results, a list it grows or sets, and a call's `out` and `mut` arguments.
    pub fn for_each_written(&self, mut mark: impl FnMut(SlotId)) {
        use InstKind as K;
        match self {
            K::Const { dst, .. }
            | K::Copy { dst, .. }
            | K::Move { dst, .. }
            | K::Clone { dst, .. }
            | K::Unary { dst, .. }
            | K::Binary { dst, .. }
            | K::Compare { dst, .. }
            | K::Cast { dst, .. }
            | K::Concat { dst, .. }
            | K::MakeTuple { dst, .. }
            | K::MakeVariant { dst, .. }
            | K::VariantTag { dst, .. }
            | K::TupleField { dst, .. }
            | K::MakeList { dst, .. }
            | K::ListLen { dst, .. }
            | K::ListGet { dst, .. }
            | K::StrSlice { dst, .. }
            | K::MapLen { dst, .. }
            | K::MapEntry { dst, .. }
            | K::StrParts { dst, .. }
            | K::MakeSome { dst, .. }
            | K::MakeNone { dst }
            | K::IsSome { dst, .. }
            | K::Unwrap { dst, .. }
            | K::MakeData { dst, .. } => mark(*dst),
            K::Unpack { dsts, .. } | K::TakeVariant { dsts, .. } => {
                dsts.iter().for_each(|s| mark(*s))
            }
            K::ListSet { list, .. } | K::ListPush { list, .. } => mark(*list),
            K::Call { dst, args, .. } | K::CallNative { dst, args, .. } => {
                if let Some(d) = dst {
                    mark(*d);
                }
                args.iter()
                    .filter(|a| matches!(a.mode, ParamMode::Mut | ParamMode::Out))
                    .for_each(|a| mark(a.slot));
            }
            K::Drop { .. } | K::Debuglog { .. } | K::CheckDepth { .. } | K::CalledFrom => {}
        }
    }

    /// Calls `mark` with each slot the instruction gives a whole new value without
    /// reading it first (its results and `out` arguments): what liveness ends at it.
    /// A list it grows or sets and a `mut` argument are changed in place, not defined.
    pub fn for_each_defined(&self, mut mark: impl FnMut(SlotId)) {
        use InstKind as K;
        match self {
            K::ListSet { .. } | K::ListPush { .. } => {}
            K::Call { dst, args, .. } | K::CallNative { dst, args, .. } => {
                dst.iter().for_each(|d| mark(*d));
                args.iter()
                    .filter(|a| a.mode == ParamMode::Out)
                    .for_each(|a| mark(a.slot));
            }
            _ => self.for_each_written(mark),
        }
    }

    /// Calls `mark` with each slot whose value the instruction reads: every slot it
    /// names but those it only defines ([`InstKind::for_each_defined`]).
    pub fn for_each_read(&self, mut mark: impl FnMut(SlotId)) {
        use InstKind as K;
        match self {
            K::Call { args, .. } | K::CallNative { args, .. } => args
                .iter()
                .filter(|a| a.mode != ParamMode::Out)
                .for_each(|a| mark(a.slot)),
            K::Unpack { src, .. } | K::TakeVariant { src, .. } => mark(*src),
            K::ListSet { .. } | K::ListPush { .. } => {
                crate::verify::inst_slots(self).into_iter().for_each(mark)
            }
            _ => {
                let mut defined = None;
                self.for_each_written(|d| defined = Some(d));
                let mut slots = crate::verify::inst_slots(self);
                // The single result comes first in `inst_slots`; an operand equal to it
                // (`s1 = add s1, s2`) is still read.
                if defined.is_some() && slots.first() == defined.as_ref() {
                    slots.remove(0);
                }
                slots.into_iter().for_each(mark)
            }
        }
    }

    /// The slots the instruction reads by value, where a slot holding the same value
    /// could be read instead: operands, elements and fields moved or copied in, and
    /// `in` arguments. Not a list or place it changes, nor a `ref`, `mut` or `out`
    /// argument (those name the place itself).
    pub fn value_operands_mut(&mut self) -> Vec<&mut SlotId> {
        use InstKind as K;
        match self {
            K::Copy { src, .. }
            | K::Move { src, .. }
            | K::Unary { src, .. }
            | K::Cast { src, .. }
            | K::Debuglog { src } => vec![src],
            K::Binary { lhs, rhs, .. }
            | K::Compare { lhs, rhs, .. }
            | K::Concat { lhs, rhs, .. } => vec![lhs, rhs],
            K::ListGet { index, .. } | K::MapEntry { index, .. } => vec![index],
            K::StrSlice { start, end, .. } => vec![start, end],
            K::ListSet { index, value, .. } => vec![index, value],
            K::ListPush { value, .. } | K::MakeSome { value, .. } | K::MakeData { value, .. } => {
                vec![value]
            }
            K::MakeTuple { fields: parts, .. }
            | K::MakeVariant { fields: parts, .. }
            | K::MakeList { elems: parts, .. } => parts.iter_mut().collect(),
            K::Call { args, .. } | K::CallNative { args, .. } => args
                .iter_mut()
                .filter(|a| a.mode == ParamMode::In)
                .map(|a| &mut a.slot)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Whether block `d` dominates block `b` (`idom` from
/// [`Function::immediate_dominators`]; a block dominates itself).
pub fn dominates(idom: &[Option<BlockId>], d: BlockId, mut b: BlockId) -> bool {
    loop {
        if b == d {
            return true;
        }
        match idom[b.index()] {
            Some(up) => b = up,
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::ProgramBuilder;
    use crate::program::{BinaryOp, CompareOp};

    /// `main` calls `b`, `b` calls itself and `c`; `a` and `d` are never called (`d`
    /// calls `c`, which does not make `c` any more reached).
    #[test]
    fn only_what_the_entry_reaches_is_kept_and_calls_are_renumbered() {
        let mut pb = ProgramBuilder::new();
        let names = ["a", "b", "c", "d", "main"];
        let ids: Vec<_> = names
            .iter()
            .map(|n| pb.declare_function(*n, vec![], vec![], IrType::Unit))
            .collect();
        let calls = [vec![], vec![1, 2], vec![], vec![2], vec![1]];
        for (i, callees) in calls.iter().enumerate() {
            let mut fb = pb.function(ids[i]);
            for &c in callees {
                let abandon = fb.abandon_block(&[]);
                fb.inst(
                    InstKind::Call {
                        dst: None,
                        func: ids[c],
                        type_args: vec![],
                        args: vec![],
                        depth: 1,
                    },
                    Some(abandon),
                );
            }
            fb.terminate(Terminator::Return(None));
        }
        pb.set_entry(ids[4]);
        let program = pb.finish();
        assert_eq!(
            reachable_functions(&program),
            vec![false, true, true, false, true]
        );
        let kept = reachable_program(&program);
        let kept_names: Vec<&str> = kept.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(kept_names, ["b", "c", "main"]);
        assert_eq!(kept.entry().index(), 2);
        let callees = |f: &Function| -> Vec<usize> {
            f.blocks
                .iter()
                .flat_map(|b| &b.insts)
                .filter_map(|i| match &i.kind {
                    InstKind::Call { func, .. } => Some(func.index()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(callees(&kept.functions[0]), [0, 1]);
        assert_eq!(callees(&kept.functions[2]), [0]);
        crate::verify::verify_program(&kept).expect("the kept program verifies");
    }

    /// `fill(mut xs: [u8], n: index)`: a loop storing `xs[i]`, then a call, then
    /// `len(xs)`. The header is loaded on entry (the loop reads it before anything can
    /// change it), not in the loop, and again after the call only.
    #[test]
    fn list_headers_are_loaded_where_live_and_kept_across_element_stores() {
        use crate::program::CompareOp;
        let mut pb = ProgramBuilder::new();
        // `other()`, which does nothing; `fill`, then after its loop: `other()`,
        // `debuglog len(xs)`.
        let other = pb.declare_function("other", vec![], vec![], IrType::Unit);
        let after: crate::bounds::fill::Part<'_> = Box::new(|fb, xs, _, _, abandon| {
            fb.call(None, other, vec![], &[], abandon);
            let length = fb.new_slot(IrType::Index);
            fb.inst(
                InstKind::ListLen {
                    dst: length,
                    list: xs,
                },
                None,
            );
            fb.debuglog(length);
        });
        let fill = crate::bounds::fill::declare_fill(
            &mut pb,
            CompareOp::Lt,
            false,
            crate::bounds::fill::nothing(),
            after,
        );
        pb.function(other).terminate(Terminator::Return(None));
        let xs = SlotId(0);
        let program = pb.finish();
        let f = &program.functions[fill.index()];
        let plan = f.list_header_plan();
        assert_eq!(plan.lists, [xs]);
        assert_eq!(plan.at_entry, [0]);
        assert!(plan.at_block.iter().all(Vec::is_empty));
        let reloads: Vec<(usize, usize)> = plan
            .after_inst
            .iter()
            .enumerate()
            .flat_map(|(b, insts)| {
                insts
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| !w.is_empty())
                    .map(move |(i, _)| (b, i))
            })
            .collect();
        // The loop's exit block starts with the call, its body with the store.
        let starting = |pred: fn(&InstKind) -> bool| {
            f.blocks
                .iter()
                .position(|b| b.insts.first().is_some_and(|i| pred(&i.kind)))
                .expect("a block starts so")
        };
        let exit = starting(|k| matches!(k, InstKind::Call { .. }));
        let body = starting(|k| matches!(k, InstKind::ListSet { .. }));
        // Only the call (the first instruction of the exit block) reloads.
        assert_eq!(reloads, [(exit, 0)]);
        assert!(!keeps_list_headers(f, &f.blocks[exit].insts[0].kind));
        assert!(keeps_list_headers(f, &f.blocks[body].insts[0].kind));
    }

    /// `k = 0; while k < 3 { one = 1; two = 2; k = k +% one; two = two +% one }; c = 7`
    /// with a self-loop after it that writes `one = 1` again: the loop's blocks and the
    /// self-loop are on cycles; `one` (always the same constant, in loops) is a loop
    /// constant, `two` (also written a sum) and `c` (outside every loop) are not.
    #[test]
    fn a_constant_written_once_in_a_loop_is_a_loop_constant() {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let (k, three) = (fb.int(IrType::I64, 0), fb.int(IrType::I64, 3));
        let each = fb.while_loop(CompareOp::Lt, k, three);
        let (one, two) = (fb.int(IrType::I64, 1), fb.int(IrType::I64, 2));
        let next = fb.binary(BinaryOp::WrappingAdd, k, one, None);
        fb.copy(k, next);
        let twice = fb.binary(BinaryOp::WrappingAdd, two, one, None);
        fb.copy(two, twice);
        fb.end_loop(each);
        fb.int(IrType::I64, 7);
        let (spin, done) = (fb.new_block(), fb.new_block());
        fb.jump(spin);
        fb.switch_to(spin);
        let f = fb.constant(IrType::Bool, ConstValue::Bool(false));
        // `one` again, with the same constant (as a loop copied by the bounds pass).
        fb.set_const(one, ConstValue::Int(1));
        fb.branch(f, spin, done);
        fb.switch_to(done);
        fb.terminate(Terminator::Return(None));
        let program = pb.finish();
        let func = &program.functions[0];
        let in_cycle = func.blocks_in_cycles();
        let on = |b: BlockId| in_cycle[b.index()];
        assert!(!on(BlockId(0)) && on(each.head) && on(each.body) && !on(each.exit));
        assert!(on(spin) && !on(done));
        // In the body: `one` (instruction 0); in the self-loop: `false` and `one` again
        // (instructions 0 and 1).
        assert_eq!(
            func.loop_constants(),
            [(each.body, 0), (spin, 0), (spin, 1)]
        );
    }

    /// `f(x) = if x < 2 { x } else { f(x - 1) }`: the base case is no call, so the one
    /// room test stands in the block that makes the call, which the entry dominates, as
    /// it does the call's abandon block; an unreached block has no dominator.
    #[test]
    fn the_room_test_stands_where_every_call_is_dominated_and_the_base_case_skips_it() {
        use crate::types::ParamMode;
        let mut pb = ProgramBuilder::new();
        let params = vec![("x".into(), ParamMode::In, IrType::I64)];
        let f = pb.declare_function("f", vec![], params, IrType::I64);
        let mut fb = pb.function(f);
        let x = fb.param(0);
        let two = fb.int(IrType::I64, 2);
        let small = fb.compare(CompareOp::Lt, x, two);
        let (base, recurse, unreached) = (fb.new_block(), fb.new_block(), fb.new_block());
        fb.branch(small, base, recurse);
        fb.switch_to(base);
        fb.terminate(Terminator::Return(Some(x)));
        fb.switch_to(recurse);
        let one = fb.int(IrType::I64, 1);
        let less = fb.binary(BinaryOp::WrappingSub, x, one, None);
        let abandon = fb.abandon_block(&[]);
        let r = fb.new_slot(IrType::I64);
        fb.call(Some(r), f, vec![], &[(ParamMode::In, less)], abandon);
        fb.terminate(Terminator::Return(Some(r)));
        fb.switch_to(unreached);
        fb.terminate(Terminator::Return(Some(x)));
        let main = pb.declare_entry("main");
        pb.function(main).terminate(Terminator::Return(None));
        let program = pb.finish();
        let func = &program.functions[f.index()];
        let idom = func.immediate_dominators();
        assert_eq!(idom[func.entry.index()], None);
        assert_eq!(idom[base.index()], Some(func.entry));
        assert_eq!(idom[recurse.index()], Some(func.entry));
        assert_eq!(idom[abandon.index()], Some(recurse));
        assert_eq!(idom[unreached.index()], None);
        let test = func.room_test(&program).expect("a call to test for");
        assert_eq!(test.block, recurse);
        assert_eq!(test.room, func.frame_bytes());
        assert_eq!(program.functions[main.index()].room_test(&program), None);
    }
}
