//! Building IR by hand: a reusable [`ProgramBuilder`] that owns the program being built,
//! and a short-lived [`FunctionBuilder`] that borrows one function. Panicking methods
//! have `try_` forms returning a [`BuildError`].

use std::fmt;

use crate::program::*;
use crate::types::{IrType, ParamMode, TypeParam};
use crate::verify::{verify_program, VerifyError};

/// A mistake in the use of the builder (not in the program being built: that is the
/// verifier's to find).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    NoCurrentBlock,
    BlockTerminated(BlockId),
    NoSuchBlock(BlockId),
    NoSuchSlot(SlotId),
    NoSuchFunction(FuncId),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoCurrentBlock => write!(f, "no block is selected"),
            BuildError::BlockTerminated(b) => write!(f, "block {b} is already terminated"),
            BuildError::NoSuchBlock(b) => write!(f, "block {b} does not exist"),
            BuildError::NoSuchSlot(s) => write!(f, "slot {s} does not exist"),
            BuildError::NoSuchFunction(id) => write!(f, "function {id} does not exist"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Owns a program while it is built.
#[derive(Default)]
pub struct ProgramBuilder {
    program: Program,
}

impl ProgramBuilder {
    pub fn new() -> ProgramBuilder {
        ProgramBuilder::default()
    }

    /// A builder that goes on with `program`: functions may be added to it, and its
    /// entry changed.
    pub fn from_program(program: Program) -> ProgramBuilder {
        ProgramBuilder { program }
    }

    /// Declares a function: its signature, a slot per parameter (in order) and an empty
    /// entry block. The body is built with [`ProgramBuilder::function`].
    pub fn declare_function(
        &mut self,
        name: impl Into<String>,
        type_params: Vec<TypeParam>,
        params: Vec<(String, ParamMode, IrType)>,
        result: IrType,
    ) -> FuncId {
        let mut slots = Vec::new();
        let mut ps = Vec::new();
        for (i, (pname, mode, ty)) in params.into_iter().enumerate() {
            slots.push(Slot {
                name: Some(pname.clone()),
                ty,
            });
            ps.push(Param {
                name: pname,
                mode,
                slot: SlotId(i as u32),
            });
        }
        self.program.functions.push(Function {
            name: name.into(),
            type_params,
            params: ps,
            result,
            slots,
            blocks: vec![Block::default()],
            entry: BlockId(0),
        });
        FuncId(self.program.functions.len() as u32 - 1)
    }

    /// A builder over function `id`, positioned at its entry block.
    pub fn function(&mut self, id: FuncId) -> FunctionBuilder<'_> {
        self.try_function(id).expect("function exists")
    }

    pub fn try_function(&mut self, id: FuncId) -> Result<FunctionBuilder<'_>, BuildError> {
        let func = self
            .program
            .functions
            .get_mut(id.index())
            .ok_or(BuildError::NoSuchFunction(id))?;
        let current = Some(func.entry);
        Ok(FunctionBuilder {
            func,
            current,
            loc: None,
        })
    }

    pub fn set_entry(&mut self, id: FuncId) {
        self.program.entry = Some(id);
    }

    /// Declares the script body `name` (no parameters, a unit result) and makes it the
    /// program's entry.
    pub fn declare_entry(&mut self, name: impl Into<String>) -> FuncId {
        let id = self.declare_function(name, vec![], vec![], IrType::Unit);
        self.set_entry(id);
        id
    }

    pub fn add_rider(&mut self, rider: impl Into<String>) {
        let rider = rider.into();
        if !self.program.riders.contains(&rider) {
            self.program.riders.push(rider);
        }
    }

    pub fn add_source(&mut self, name: impl Into<String>, text: impl Into<String>) -> u32 {
        self.program.files.push(SourceText {
            name: name.into(),
            text: text.into(),
        });
        self.program.files.len() as u32 - 1
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The program, unverified.
    pub fn finish(self) -> Program {
        self.program
    }

    /// The program, if the verifier accepts it.
    pub fn finish_verified(self) -> Result<Program, Vec<VerifyError>> {
        verify_program(&self.program)?;
        Ok(self.program)
    }
}

/// The blocks of a loop started by [`FunctionBuilder::while_loop`].
#[derive(Clone, Copy, Debug)]
pub struct Loop {
    /// Tests the condition; the body's end jumps back here.
    pub head: BlockId,
    pub body: BlockId,
    /// Where the loop goes when the condition fails.
    pub exit: BlockId,
}

/// Builds one function's body. Instructions go to the current block.
pub struct FunctionBuilder<'a> {
    func: &'a mut Function,
    current: Option<BlockId>,
    loc: Option<Loc>,
}

impl FunctionBuilder<'_> {
    /// The slot of parameter `index`.
    pub fn param(&self, index: usize) -> SlotId {
        self.func.params[index].slot
    }

    pub fn new_slot(&mut self, ty: IrType) -> SlotId {
        self.func.slots.push(Slot { name: None, ty });
        SlotId(self.func.slots.len() as u32 - 1)
    }

    pub fn new_named_slot(&mut self, name: impl Into<String>, ty: IrType) -> SlotId {
        self.func.slots.push(Slot {
            name: Some(name.into()),
            ty,
        });
        SlotId(self.func.slots.len() as u32 - 1)
    }

    pub fn slot_type(&self, slot: SlotId) -> &IrType {
        self.func.slot_type(slot)
    }

    pub fn new_block(&mut self) -> BlockId {
        self.func.blocks.push(Block::default());
        BlockId(self.func.blocks.len() as u32 - 1)
    }

    pub fn switch_to(&mut self, block: BlockId) {
        self.try_switch_to(block).expect("block exists")
    }

    pub fn try_switch_to(&mut self, block: BlockId) -> Result<(), BuildError> {
        if block.index() >= self.func.blocks.len() {
            return Err(BuildError::NoSuchBlock(block));
        }
        self.current = Some(block);
        Ok(())
    }

    pub fn current_block(&self) -> Option<BlockId> {
        self.current
    }

    /// Whether the current block still takes instructions.
    pub fn is_open(&self) -> bool {
        self.current
            .is_some_and(|b| self.func.blocks[b.index()].term == Terminator::Unterminated)
    }

    /// The source location given to instructions from now on.
    pub fn set_loc(&mut self, loc: Option<Loc>) {
        self.loc = loc;
    }

    fn open_block(&mut self) -> Result<&mut Block, BuildError> {
        let b = self.current.ok_or(BuildError::NoCurrentBlock)?;
        let block = &mut self.func.blocks[b.index()];
        if block.term != Terminator::Unterminated {
            return Err(BuildError::BlockTerminated(b));
        }
        Ok(block)
    }

    /// Appends an instruction (with its abandon block if it is fallible).
    pub fn try_inst(&mut self, kind: InstKind, abandon: Option<BlockId>) -> Result<(), BuildError> {
        let nslots = self.func.slots.len();
        if let Some(bad) = crate::verify::inst_slots(&kind)
            .into_iter()
            .find(|s| s.index() >= nslots)
        {
            return Err(BuildError::NoSuchSlot(bad));
        }
        if let Some(a) = abandon {
            if a.index() >= self.func.blocks.len() {
                return Err(BuildError::NoSuchBlock(a));
            }
        }
        let loc = self.loc;
        self.open_block()?.insts.push(Inst { kind, abandon, loc });
        Ok(())
    }

    pub fn inst(&mut self, kind: InstKind, abandon: Option<BlockId>) {
        self.try_inst(kind, abandon).expect("instruction appended")
    }

    /// Ends the current block.
    pub fn try_terminate(&mut self, term: Terminator) -> Result<(), BuildError> {
        let block = self.open_block()?;
        block.term = term;
        Ok(())
    }

    pub fn terminate(&mut self, term: Terminator) {
        self.try_terminate(term).expect("block terminated")
    }

    /// Ends the current block with a branch on `cond` to `then_block` or `else_block`.
    pub fn branch(&mut self, cond: SlotId, then_block: BlockId, else_block: BlockId) {
        self.terminate(Terminator::Branch {
            cond,
            then_block,
            else_block,
        })
    }

    /// Ends the current block with a jump to `target`.
    pub fn jump(&mut self, target: BlockId) {
        self.terminate(Terminator::Jump(target))
    }

    fn jump_if_open(&mut self, target: BlockId) {
        if self.is_open() {
            self.jump(target);
        }
    }

    /// Starts a `while lhs op rhs` loop: the current block jumps to a new head block,
    /// which compares and branches to a new body block or a new exit block. The builder
    /// is left in the body, which [`FunctionBuilder::end_loop`] closes.
    pub fn while_loop(&mut self, op: CompareOp, lhs: SlotId, rhs: SlotId) -> Loop {
        let (head, body, exit) = (self.new_block(), self.new_block(), self.new_block());
        self.jump(head);
        self.switch_to(head);
        let more = self.compare(op, lhs, rhs);
        self.branch(more, body, exit);
        self.switch_to(body);
        Loop { head, body, exit }
    }

    /// `if cond { then } else { els }`: branches to two new blocks, builds each side with
    /// its closure and jumps from its end (when it is still open) to a new join block,
    /// where the builder is left. Returns the then, else and join blocks.
    pub fn if_else(
        &mut self,
        cond: SlotId,
        then: impl FnOnce(&mut Self),
        els: impl FnOnce(&mut Self),
    ) -> [BlockId; 3] {
        let (yes, no, join) = (self.new_block(), self.new_block(), self.new_block());
        self.branch(cond, yes, no);
        self.switch_to(yes);
        then(self);
        self.jump_if_open(join);
        self.switch_to(no);
        els(self);
        self.jump_if_open(join);
        self.switch_to(join);
        [yes, no, join]
    }

    /// Ends a loop's body (the current block) with the jump back to its head, and goes
    /// on in its exit.
    pub fn end_loop(&mut self, l: Loop) {
        self.jump(l.head);
        self.switch_to(l.exit);
    }

    // ---- conveniences that write an existing slot ----

    /// `dst = const value`.
    pub fn set_const(&mut self, dst: SlotId, value: ConstValue) {
        self.inst(InstKind::Const { dst, value }, None)
    }

    /// `dst = copy src`.
    pub fn copy(&mut self, dst: SlotId, src: SlotId) {
        self.inst(InstKind::Copy { dst, src }, None)
    }

    // ---- conveniences that make a fresh destination slot ----

    pub fn constant(&mut self, ty: IrType, value: ConstValue) -> SlotId {
        let dst = self.new_slot(ty);
        self.set_const(dst, value);
        dst
    }

    pub fn int(&mut self, ty: IrType, value: i128) -> SlotId {
        self.constant(ty, ConstValue::Int(value))
    }

    pub fn string(&mut self, value: &str) -> SlotId {
        self.constant(IrType::String, ConstValue::Str(value.to_string()))
    }

    /// `lhs op rhs` into a new slot of the operands' type (or bool for comparisons).
    pub fn binary(
        &mut self,
        op: BinaryOp,
        lhs: SlotId,
        rhs: SlotId,
        abandon: Option<BlockId>,
    ) -> SlotId {
        let dst = self.new_slot(self.func.slot_type(lhs).clone());
        self.inst(InstKind::Binary { dst, op, lhs, rhs }, abandon);
        dst
    }

    pub fn compare(&mut self, op: CompareOp, lhs: SlotId, rhs: SlotId) -> SlotId {
        let dst = self.new_slot(IrType::Bool);
        self.inst(InstKind::Compare { dst, op, lhs, rhs }, None);
        dst
    }

    pub fn drop_slot(&mut self, slot: SlotId) {
        self.inst(InstKind::Drop { slot }, None)
    }

    pub fn debuglog(&mut self, src: SlotId) {
        self.inst(InstKind::Debuglog { src }, None)
    }

    /// A call of program function `func` with `type_args` and `args` (each passed in
    /// its mode), its result kept in `dst`, abandoning to `abandon`.
    pub fn call(
        &mut self,
        dst: Option<SlotId>,
        func: FuncId,
        type_args: Vec<IrType>,
        args: &[(ParamMode, SlotId)],
        abandon: BlockId,
    ) {
        let args = args
            .iter()
            .map(|&(mode, slot)| Arg { mode, slot })
            .collect();
        self.inst(
            InstKind::Call {
                dst,
                func,
                type_args,
                args,
                depth: 1,
            },
            Some(abandon),
        )
    }

    /// A block that drops `slots` and abandons: the abandon path of a fallible
    /// instruction with those owned values live. The current block is unchanged.
    pub fn abandon_block(&mut self, slots: &[SlotId]) -> BlockId {
        let b = self.new_block();
        let loc = self.loc;
        let block = &mut self.func.blocks[b.index()];
        block.insts.extend(slots.iter().map(|&slot| Inst {
            kind: InstKind::Drop { slot },
            abandon: None,
            loc,
        }));
        block.term = Terminator::Abandon;
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_forms_report_misuse() {
        let mut pb = ProgramBuilder::new();
        let f = pb.declare_function("f", vec![], vec![], IrType::Unit);
        let mut fb = pb.function(f);
        fb.terminate(Terminator::Return(None));
        assert_eq!(
            fb.try_terminate(Terminator::Return(None)),
            Err(BuildError::BlockTerminated(BlockId(0)))
        );
        assert_eq!(
            fb.try_inst(InstKind::Drop { slot: SlotId(9) }, None),
            Err(BuildError::NoSuchSlot(SlotId(9)))
        );
        assert_eq!(
            fb.try_switch_to(BlockId(5)),
            Err(BuildError::NoSuchBlock(BlockId(5)))
        );
        assert!(pb.try_function(FuncId(3)).is_err());
    }

    /// `var i = 0; loop while i < 3 { if i == 1 { x = i } else { x = 7 }; i = i +% 1 }`
    /// through the conveniences: the blocks are where they say, and the program verifies.
    #[test]
    fn loops_and_branches_are_shaped_as_documented() {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let (i, three, one) = (
            fb.int(IrType::I64, 0),
            fb.int(IrType::I64, 3),
            fb.int(IrType::I64, 1),
        );
        let x = fb.new_slot(IrType::I64);
        let each = fb.while_loop(CompareOp::Lt, i, three);
        assert_eq!(fb.current_block(), Some(each.body));
        let c = fb.compare(CompareOp::Eq, i, one);
        let [yes, no, join] = fb.if_else(
            c,
            |fb| fb.copy(x, i),
            |fb| fb.set_const(x, ConstValue::Int(7)),
        );
        assert_eq!(fb.current_block(), Some(join));
        let next = fb.binary(BinaryOp::WrappingAdd, i, one, None);
        fb.copy(i, next);
        fb.debuglog(x);
        fb.end_loop(each);
        fb.terminate(Terminator::Return(None));
        let program = pb.finish_verified().expect("verifies");
        let blocks = &program.functions[0].blocks;
        assert_eq!(blocks[0].term, Terminator::Jump(each.head));
        assert!(matches!(blocks[each.head.index()].term,
            Terminator::Branch { then_block, else_block, .. }
                if (then_block, else_block) == (each.body, each.exit)));
        assert_eq!(blocks[yes.index()].term, Terminator::Jump(join));
        assert_eq!(blocks[no.index()].term, Terminator::Jump(join));
        assert!(
            matches!(blocks[no.index()].insts[0].kind, InstKind::Const { dst, .. } if dst == x)
        );
    }
}
