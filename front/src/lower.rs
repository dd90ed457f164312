//! Lowering: the checked, typed tree to IR. Everything the backends must not infer is
//! written here: every copy, move, clone and drop is an instruction; locals and
//! temporaries are typed slots; each fallible instruction names an abandon path (a
//! chain of blocks shared between instructions) that drops exactly what is live at that
//! point and ends in `Abandon`.
//!
//! The lowering keeps `live`: the slots that are initialized and owe a drop (owned
//! values, and `out` parameters once written, which must be emptied on an abandon path).
//! Paths that join agree on it: where one path holds a value another has moved, the
//! holding path drops it before the join. A loop's head takes the state the ownership
//! checker computed for it (`head_init`).

use std::collections::HashMap;

use super::hir::{self, Callee, ExprKind, HirFunction, HirProgram, LocalId, LocalKind, StmtKind};
use datalove_ir::diag::{Sources, Span};
use datalove_ir::lowering::NativeInline;
use datalove_ir::native::RiderInterface;
use datalove_ir::program::*;
use datalove_ir::types::{IrType, ParamMode};

/// Lowers a checked program (no diagnostics pending) to IR.
pub fn lower(hir: &HirProgram, riders: &[RiderInterface], sources: &Sources) -> Program {
    let functions = hir
        .functions
        .iter()
        .map(|f| FnLowering::new(f, riders, sources).lower())
        .collect();
    Program {
        functions,
        entry: hir.entry.map(|e| FuncId(e as u32)),
        riders: riders.iter().map(|r| r.rider.clone()).collect(),
        files: sources
            .files()
            .map(|(_, f)| SourceText {
                name: f.name.clone(),
                text: f.text.clone(),
            })
            .collect(),
    }
}

/// Where an expression's value is for a reader: a local's own slot, or a temporary the
/// reader must release afterwards.
#[derive(Clone, Copy)]
enum Val {
    Place(SlotId),
    Temp(SlotId),
}

impl Val {
    fn slot(self) -> SlotId {
        match self {
            Val::Place(s) | Val::Temp(s) => s,
        }
    }
}

struct LoopFrame {
    head: BlockId,
    head_live: Vec<SlotId>,
    /// How many scopes were open outside the loop body.
    depth: usize,
    exits: Vec<(BlockId, Vec<SlotId>)>,
}

struct FnLowering<'a> {
    hir: &'a HirFunction,
    riders: &'a [RiderInterface],
    sources: &'a Sources,
    func: Function,
    local_slots: Vec<SlotId>,
    cur: BlockId,
    reachable: bool,
    live: Vec<SlotId>,
    /// `is_live[s]`: whether `s` is in `live` (indexed by slot), so that asking costs
    /// nothing however many values are live.
    is_live: Vec<bool>,
    scopes: Vec<Vec<LocalId>>,
    loops: Vec<LoopFrame>,
    /// `abandon_chain[i]`: the abandon block for `live[..=i]`, valid for a prefix of
    /// `live` (cut where `live` changes). Abandon blocks are chained, newest value first:
    /// the block for `[a, b]` drops `b` and jumps to the block for `[a]`, so a path owing
    /// n values shares its tail with every other, and the IR stays linear in the program
    /// however many values stay live across how many fallible instructions.
    abandon_chain: Vec<BlockId>,
    /// The chain's blocks: `(the block it jumps to, or none for the last, the slot it
    /// drops)`.
    abandon_links: HashMap<(Option<BlockId>, SlotId), BlockId>,
    /// The abandon block of a point where nothing is live.
    abandon_empty: Option<BlockId>,
    /// Scratch membership marks by slot, for comparing live sets in linear time.
    marks: Vec<u32>,
    /// `view_slots[s]`: whether `s` holds a view of a list element that a `let` of a
    /// [`LocalKind::ForView`] loop variable wrote (indexed by slot; shorter when the
    /// last ones are not).
    view_slots: Vec<bool>,
    mark_generation: u32,
}

impl<'a> FnLowering<'a> {
    fn new(
        hir: &'a HirFunction,
        riders: &'a [RiderInterface],
        sources: &'a Sources,
    ) -> FnLowering<'a> {
        let mut func = Function {
            name: hir.name.clone(),
            type_params: hir.type_params.clone(),
            params: Vec::new(),
            result: hir.result.clone(),
            slots: Vec::new(),
            blocks: vec![Block::default()],
            entry: BlockId(0),
        };
        let local_slots = hir
            .locals
            .iter()
            .enumerate()
            .map(|(i, l)| {
                func.slots.push(Slot {
                    name: Some(l.name.clone()),
                    ty: l.ty.clone(),
                });
                SlotId(i as u32)
            })
            .collect::<Vec<_>>();
        let mut live = Vec::new();
        let mut is_live = vec![false; func.slots.len()];
        for p in &hir.params {
            let local = hir.local(*p);
            let LocalKind::Param(mode) = local.kind else {
                unreachable!("parameters are parameter locals");
            };
            func.params.push(Param {
                name: local.name.clone(),
                mode,
                slot: local_slots[p.index()],
            });
            if mode == ParamMode::In && !local.ty.is_copy() {
                live.push(local_slots[p.index()]);
                is_live[p.index()] = true;
            }
        }
        FnLowering {
            hir,
            riders,
            sources,
            func,
            local_slots,
            cur: BlockId(0),
            reachable: true,
            live,
            is_live,
            scopes: Vec::new(),
            loops: Vec::new(),
            abandon_chain: Vec::new(),
            abandon_links: HashMap::new(),
            abandon_empty: None,
            marks: Vec::new(),
            view_slots: Vec::new(),
            mark_generation: 0,
        }
    }

    fn lower(mut self) -> Function {
        self.block(&self.hir.body);
        if self.reachable {
            self.drop_all_but_outs(self.hir.end_span);
            self.terminate(Terminator::Return(None));
        }
        self.func
    }

    // ------------------------------------------------------------ building

    fn loc(&self, span: Span) -> Loc {
        let lc = self.sources.line_col(span.file, span.start);
        Loc {
            file: span.file.0,
            line: lc.line,
            col: lc.col,
        }
    }

    fn new_block(&mut self) -> BlockId {
        self.func.blocks.push(Block::default());
        BlockId(self.func.blocks.len() as u32 - 1)
    }

    fn temp(&mut self, ty: &IrType) -> SlotId {
        self.func.slots.push(Slot {
            name: None,
            ty: ty.clone(),
        });
        self.is_live.push(false);
        SlotId(self.func.slots.len() as u32 - 1)
    }

    /// Marks `slots` in the scratch marks; `marked` then tells them apart, until the next
    /// call.
    fn mark(&mut self, slots: impl IntoIterator<Item = SlotId>) {
        self.mark_generation += 1;
        self.marks.resize(self.func.slots.len(), 0);
        for s in slots {
            self.marks[s.index()] = self.mark_generation;
        }
    }

    fn marked(&self, s: SlotId) -> bool {
        self.marks.get(s.index()) == Some(&self.mark_generation)
    }

    fn slot(&self, l: LocalId) -> SlotId {
        self.local_slots[l.index()]
    }

    fn ty(&self, s: SlotId) -> &IrType {
        &self.func.slots[s.index()].ty
    }

    /// Whether an initialized `s` owes a drop (or, for `out`, an emptying on abandon).
    /// `mut` and `ref` parameters are the caller's and never are.
    fn tracked(&self, s: SlotId) -> bool {
        match self.func.param_mode(s) {
            Some(ParamMode::Mut | ParamMode::Ref) => false,
            Some(ParamMode::Out) => true,
            Some(ParamMode::In) | None => !self.ty(s).is_copy(),
        }
    }

    fn init(&mut self, s: SlotId) {
        if self.tracked(s) && !self.is_live[s.index()] {
            self.live.push(s);
            self.is_live[s.index()] = true;
        }
    }

    fn taken(&mut self, s: SlotId) {
        if !std::mem::replace(&mut self.is_live[s.index()], false) {
            return;
        }
        // Usually the newest value (a temporary just consumed): found from the end.
        let at = self
            .live
            .iter()
            .rposition(|x| *x == s)
            .expect("is_live follows live");
        self.live.remove(at);
        self.abandon_chain.truncate(at);
    }

    fn push_inst(&mut self, kind: InstKind, abandon: Option<BlockId>, span: Span) {
        let loc = Some(self.loc(span));
        self.func.blocks[self.cur.index()]
            .insts
            .push(Inst { kind, abandon, loc });
    }

    /// Emits an instruction; a fallible one gets the abandon block for what is live now
    /// (the caller has already taken out what the instruction consumes).
    fn emit(&mut self, kind: InstKind, span: Span) {
        let abandon = kind.is_fallible(&self.func).then(|| self.abandon_block());
        self.push_inst(kind, abandon, span);
    }

    fn abandon_block(&mut self) -> BlockId {
        if self.live.is_empty() {
            if let Some(b) = self.abandon_empty {
                return b;
            }
            let b = self.new_block();
            self.func.blocks[b.index()].term = Terminator::Abandon;
            self.abandon_empty = Some(b);
            return b;
        }
        while self.abandon_chain.len() < self.live.len() {
            let i = self.abandon_chain.len();
            let next = i.checked_sub(1).map(|j| self.abandon_chain[j]);
            let slot = self.live[i];
            let b = match self.abandon_links.get(&(next, slot)) {
                Some(b) => *b,
                None => {
                    let b = self.new_block();
                    self.func.blocks[b.index()] = Block {
                        insts: vec![Inst {
                            kind: InstKind::Drop { slot },
                            abandon: None,
                            loc: None,
                        }],
                        term: next.map_or(Terminator::Abandon, Terminator::Jump),
                    };
                    self.abandon_links.insert((next, slot), b);
                    b
                }
            };
            self.abandon_chain.push(b);
        }
        self.abandon_chain[self.live.len() - 1]
    }

    fn drop_slot(&mut self, s: SlotId, span: Span) {
        if self.is_live[s.index()] {
            self.push_inst(InstKind::Drop { slot: s }, None, span);
            self.taken(s);
        }
    }

    fn terminate(&mut self, term: Terminator) {
        self.func.blocks[self.cur.index()].term = term;
        self.reachable = false;
    }

    fn switch_to(&mut self, b: BlockId, live: Vec<SlotId>) {
        for s in &self.live {
            self.is_live[s.index()] = false;
        }
        for s in &live {
            self.is_live[s.index()] = true;
        }
        self.cur = b;
        self.live = live;
        self.abandon_chain.clear();
        self.reachable = true;
    }

    /// What is live here, with its abandon chain, to resume from in another block.
    fn snapshot(&self) -> (Vec<SlotId>, Vec<BlockId>) {
        (self.live.clone(), self.abandon_chain.clone())
    }

    /// After a join: where what is live begins as it did in one of `snapshots` (before
    /// the branches, at their ends), that snapshot's abandon chain serves that far (a
    /// chain depends only on the slots), so the next fallible instruction does not
    /// rebuild it from the start.
    fn keep_chain_of(&mut self, snapshots: &[(Vec<SlotId>, Vec<BlockId>)]) {
        if !self.reachable || !self.abandon_chain.is_empty() {
            return;
        }
        let valid = |(live, chain): &(Vec<SlotId>, Vec<BlockId>)| {
            let common = self
                .live
                .iter()
                .zip(live)
                .take_while(|(a, b)| a == b)
                .count();
            common.min(chain.len())
        };
        if let Some((best, n)) = snapshots
            .iter()
            .map(|s| (s, valid(s)))
            .max_by_key(|(_, n)| *n)
        {
            self.abandon_chain = best.1[..n].to_vec();
        }
    }

    /// [`Self::switch_to`] a state taken by [`Self::snapshot`], keeping its chain.
    fn resume(&mut self, b: BlockId, (live, chain): (Vec<SlotId>, Vec<BlockId>)) {
        self.switch_to(b, live);
        self.abandon_chain = chain;
    }

    /// Drops everything live except `out` parameters (before a return).
    fn drop_all_but_outs(&mut self, span: Span) {
        let owned: Vec<SlotId> = self
            .live
            .iter()
            .rev()
            .copied()
            .filter(|s| self.func.param_mode(*s) != Some(ParamMode::Out))
            .collect();
        for s in owned {
            self.drop_slot(s, span);
        }
    }

    /// Drops what is live beyond `target` (newest first).
    fn drop_to(&mut self, target: &[SlotId], span: Span) {
        self.mark(target.iter().copied());
        let extra: Vec<SlotId> = self
            .live
            .iter()
            .rev()
            .copied()
            .filter(|s| !self.marked(*s))
            .collect();
        for s in extra {
            self.drop_slot(s, span);
        }
    }

    /// Joins open edges (each a block still to be terminated and its live set) into a
    /// new block whose live set is what every edge holds.
    fn join(&mut self, edges: Vec<(BlockId, Vec<SlotId>)>, span: Span) {
        let Some(first) = edges.first() else {
            self.reachable = false;
            return;
        };
        // What every edge holds: the first edge's slots, each crossed off by every edge
        // without it (marked afresh per edge).
        let mut target: Vec<SlotId> = first.1.clone();
        for (_, live) in &edges[1..] {
            self.mark(live.iter().copied());
            target.retain(|s| self.marked(*s));
        }
        let join = self.new_block();
        for (b, live) in edges {
            self.switch_to(b, live);
            self.drop_to(&target, span);
            self.terminate(Terminator::Jump(join));
        }
        self.switch_to(join, target);
    }

    // ------------------------------------------------------------ statements

    fn block(&mut self, b: &hir::Block) {
        self.block_with(b, Vec::new());
    }

    /// A block whose scope starts with `locals` (a `match` arm's bindings), dropped at
    /// its end with its own.
    fn block_with(&mut self, b: &hir::Block, locals: Vec<LocalId>) {
        self.scopes.push(locals);
        for s in &b.stmts {
            if !self.reachable {
                break;
            }
            self.stmt(s);
        }
        let declared = self.scopes.pop().expect("pushed above");
        if self.reachable {
            for l in declared.iter().rev() {
                let s = self.slot(*l);
                self.drop_slot(s, b.stmts.last().map_or(self.hir.end_span, |s| s.span));
            }
        }
    }

    /// Drops the locals of the scopes opened since `depth` (for `break`/`continue`).
    fn drop_scopes_from(&mut self, depth: usize, span: Span) {
        let locals: Vec<LocalId> = self.scopes[depth..]
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .copied()
            .collect();
        for l in locals {
            let s = self.slot(l);
            self.drop_slot(s, span);
        }
    }

    fn stmt(&mut self, s: &hir::Stmt) {
        let span = s.span;
        match &s.kind {
            StmtKind::Let { local, init } => {
                self.scopes
                    .last_mut()
                    .expect("a scope is open")
                    .push(*local);
                if let Some(e) = init {
                    let slot = self.slot(*local);
                    if matches!(self.hir.locals[local.index()].kind, LocalKind::ForView) {
                        self.view_into(e, slot);
                    } else {
                        self.eval(e, slot);
                    }
                }
            }
            StmtKind::Set { local, value } => {
                if self.append_pieces(*local, value, span) {
                    return;
                }
                let slot = self.slot(*local);
                let t = self.temp(&value.ty);
                self.eval(value, t);
                if self.func.param_mode(slot) == Some(ParamMode::Mut) && !self.ty(slot).is_copy() {
                    // A `mut` parameter always holds the caller's value: replace it.
                    self.push_inst(InstKind::Drop { slot }, None, span);
                } else {
                    self.drop_slot(slot, span);
                }
                self.move_or_copy(slot, t, span);
            }
            StmtKind::SetIndex {
                local,
                index,
                value,
            } => {
                let list = self.slot(*local);
                let i = self.operand(index);
                let v = self.consumed(value);
                self.taken(v);
                self.emit(
                    InstKind::ListSet {
                        list,
                        index: i.slot(),
                        value: v,
                        checked: true,
                    },
                    span,
                );
                self.release(i, span);
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                let c = self.operand(cond);
                let then_b = self.new_block();
                let else_b = self.new_block();
                self.release(c, span);
                self.terminate(Terminator::Branch {
                    cond: c.slot(),
                    then_block: then_b,
                    else_block: else_b,
                });
                let before = self.snapshot();
                let mut edges = Vec::new();
                let mut chains = vec![before.clone()];
                for (b, body) in [(then_b, then_body), (else_b, else_body)] {
                    self.resume(b, before.clone());
                    self.block(body);
                    if self.reachable {
                        edges.push((self.cur, self.live.clone()));
                        chains.push(self.snapshot());
                    }
                }
                self.join(edges, span);
                self.keep_chain_of(&chains);
            }
            StmtKind::Loop {
                cond,
                body,
                head_init,
            } => self.lower_loop(cond.as_ref(), body, head_init, span),
            StmtKind::Block(b) => self.block(b),
            StmtKind::Break => {
                let depth = self.loops.last().expect("break is in a loop").depth;
                self.drop_scopes_from(depth, span);
                let edge = (self.cur, self.live.clone());
                self.loops.last_mut().expect("in a loop").exits.push(edge);
                self.reachable = false;
            }
            StmtKind::Continue => {
                let frame = self.loops.last().expect("continue is in a loop");
                let (depth, head, head_live) = (frame.depth, frame.head, frame.head_live.clone());
                self.drop_scopes_from(depth, span);
                self.drop_to(&head_live, span);
                self.terminate(Terminator::Jump(head));
            }
            StmtKind::Ret(value) => {
                let result = value.as_ref().map(|e| {
                    let r = self.consumed(e);
                    self.taken(r);
                    r
                });
                self.drop_all_but_outs(span);
                self.terminate(Terminator::Return(result));
            }
            StmtKind::Match { scrutinee, arms } => self.lower_match(scrutinee, arms, span),
            StmtKind::Debuglog(e) => {
                let v = self.viewed(e);
                self.emit(InstKind::Debuglog { src: v.slot() }, span);
                self.release(v, span);
            }
            StmtKind::Expr(e) => self.discard(e),
        }
    }

    /// `set s = s ++ a ++ b ...` (two pieces or more) of a string variable that is not a
    /// parameter: each piece appended to `s` in place in turn (`s = concat s, piece`),
    /// as Rust's `push_str`, instead of a new string per `++`. The same string results
    /// when no piece after the first reads `s` (which has then already changed); the
    /// first is evaluated before anything changes. A failure or an early return (`?`)
    /// in a later piece leaves `s` part-appended, which nothing can see: the variable
    /// is the function's own. Whether it was written so.
    fn append_pieces(&mut self, local: LocalId, value: &hir::Expr, span: Span) -> bool {
        let slot = self.slot(local);
        if self.func.param_mode(slot).is_some() || value.ty != IrType::String {
            return false;
        }
        let mut pieces = Vec::new();
        let mut e = value;
        while let ExprKind::Concat(a, b) = &e.kind {
            pieces.push(&**b);
            e = a;
        }
        if e.kind.as_local() != Some(local) || pieces.len() < 2 {
            return false;
        }
        pieces.reverse();
        if pieces[1..].iter().any(|p| p.mentions(local)) {
            return false;
        }
        for piece in pieces {
            // Beside `s`, read in place, a piece that changes nothing may be a view.
            let v = if unchanging(piece) {
                self.viewed(piece)
            } else {
                self.operand(piece)
            };
            self.emit(
                InstKind::Concat {
                    dst: slot,
                    lhs: slot,
                    rhs: v.slot(),
                },
                span,
            );
            self.release(v, span);
        }
        true
    }

    /// `dst: bool` = whether the tag in `tag` is `variant`.
    fn tag_is(&mut self, tag: SlotId, variant: u32, span: Span) -> SlotId {
        let k = self.temp(&IrType::U32);
        self.emit(const_inst(k, ConstValue::Int(variant as i128)), span);
        let c = self.temp(&IrType::Bool);
        self.emit(
            InstKind::Compare {
                dst: c,
                op: CompareOp::Eq,
                lhs: tag,
                rhs: k,
            },
            span,
        );
        c
    }

    /// Moves the payload of variant `variant` out of the enum in `v` into `dsts` (a
    /// `None`: a temporary, dropped at once).
    fn take_variant(&mut self, v: SlotId, variant: u32, dsts: &[Option<SlotId>], span: Span) {
        let IrType::Enum(e) = self.ty(v).clone() else {
            unreachable!("checked: an enum")
        };
        let slots: Vec<SlotId> = dsts
            .iter()
            .zip(&e.variant_fields(variant as usize))
            .map(|(d, t)| d.unwrap_or_else(|| self.temp(t)))
            .collect();
        self.taken(v);
        self.emit(
            InstKind::TakeVariant {
                src: v,
                variant,
                dsts: slots.clone(),
            },
            span,
        );
        for (s, d) in slots.iter().zip(dsts) {
            self.init(*s);
            if d.is_none() {
                self.drop_slot(*s, span);
            }
        }
    }

    /// A `match`: the scrutinee into a slot of its own (a moved variable's slot), its tag
    /// read, then a test per arm in order; the last arm (or `_`) takes what is left. An
    /// arm moves the payload into its bindings; `_` drops the value.
    fn lower_match(&mut self, scrutinee: &hir::Expr, arms: &[hir::MatchArm], span: Span) {
        let v = self.consumed(scrutinee);
        let tag = self.temp(&IrType::U32);
        self.emit(InstKind::VariantTag { dst: tag, src: v }, span);
        let before = self.snapshot();
        let mut edges = Vec::new();
        let mut chains = vec![before.clone()];
        for (i, arm) in arms.iter().enumerate() {
            let body_b = self.new_block();
            let last = i + 1 == arms.len();
            match arm.variant {
                Some(variant) if !last => {
                    let c = self.tag_is(tag, variant, arm.span);
                    let next = self.new_block();
                    self.terminate(Terminator::Branch {
                        cond: c,
                        then_block: body_b,
                        else_block: next,
                    });
                    self.resume(next, before.clone());
                }
                _ => self.terminate(Terminator::Jump(body_b)),
            }
            let test_b = self.cur;
            let reachable = self.reachable;
            self.resume(body_b, before.clone());
            let mut locals = Vec::new();
            match arm.variant {
                Some(variant) => {
                    let dsts: Vec<Option<SlotId>> = arm
                        .binders
                        .iter()
                        .map(|b| b.map(|l| self.slot(l)))
                        .collect();
                    locals.extend(arm.binders.iter().flatten());
                    self.take_variant(v, variant, &dsts, arm.span);
                }
                None => self.drop_slot(v, arm.span),
            }
            self.block_with(&arm.body, locals);
            if self.reachable {
                edges.push((self.cur, self.live.clone()));
                chains.push(self.snapshot());
            }
            // Back to the next test, if any.
            if reachable {
                self.resume(test_b, before.clone());
            } else {
                self.reachable = false;
            }
        }
        self.join(edges, span);
        self.keep_chain_of(&chains);
    }

    /// `e?`: on `ok` the payload into `dst`; on `err` the payload is moved into an `err`
    /// of the function's result type, everything the frame owns is dropped and it is
    /// returned.
    fn lower_try(&mut self, x: &hir::Expr, dst: SlotId, span: Span) {
        let v = self.consumed(x);
        let index = |ty: &IrType, name: &str| match ty {
            IrType::Enum(e) => e.variant_index(name).expect("checked: a result") as u32,
            _ => unreachable!("checked: a result"),
        };
        let (ok, err) = (index(&x.ty, "ok"), index(&x.ty, "err"));
        let result = self.func.result.clone();
        let result_err = index(&result, "err");
        let tag = self.temp(&IrType::U32);
        self.emit(InstKind::VariantTag { dst: tag, src: v }, span);
        let c = self.tag_is(tag, ok, span);
        let (ok_b, err_b) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch {
            cond: c,
            then_block: ok_b,
            else_block: err_b,
        });
        let before = self.snapshot();
        self.resume(err_b, before.clone());
        let IrType::Enum(e) = x.ty.clone() else {
            unreachable!("checked: a result")
        };
        let payload = self.temp(&e.variant_fields(err as usize)[0]);
        self.take_variant(v, err, &[Some(payload)], span);
        let r = self.temp(&result);
        self.taken(payload);
        self.emit(
            InstKind::MakeVariant {
                dst: r,
                variant: result_err,
                fields: vec![payload],
            },
            span,
        );
        self.drop_all_but_outs(span);
        self.terminate(Terminator::Return(Some(r)));
        self.resume(ok_b, before);
        self.taken(v);
        self.emit(
            InstKind::TakeVariant {
                src: v,
                variant: ok,
                dsts: vec![dst],
            },
            span,
        );
    }

    fn lower_loop(
        &mut self,
        cond: Option<&hir::Expr>,
        body: &hir::Block,
        head_init: &[LocalId],
        span: Span,
    ) {
        let head_slots: Vec<SlotId> = head_init.iter().map(|l| self.slot(*l)).collect();
        self.mark(head_slots);
        let head_live: Vec<SlotId> = self
            .live
            .iter()
            .copied()
            .filter(|s| self.marked(*s))
            .collect();
        self.drop_to(&head_live, span);
        let head = self.new_block();
        self.terminate(Terminator::Jump(head));
        self.switch_to(head, head_live.clone());
        let body_b = self.new_block();
        let mut exits = Vec::new();
        if let Some(c) = cond {
            let v = self.operand(c);
            self.release(v, span);
            let exit_b = self.new_block();
            self.terminate(Terminator::Branch {
                cond: v.slot(),
                then_block: body_b,
                else_block: exit_b,
            });
            exits.push((exit_b, self.live.clone()));
            let live = self.live.clone();
            self.switch_to(body_b, live);
        } else {
            self.terminate(Terminator::Jump(body_b));
            self.switch_to(body_b, head_live.clone());
        }
        self.loops.push(LoopFrame {
            head,
            head_live: head_live.clone(),
            depth: self.scopes.len(),
            exits,
        });
        self.block(body);
        if self.reachable {
            self.drop_to(&head_live, span);
            self.terminate(Terminator::Jump(head));
        }
        let frame = self.loops.pop().expect("pushed above");
        self.join(frame.exits, span);
    }

    // ------------------------------------------------------------ expressions

    fn move_or_copy(&mut self, dst: SlotId, src: SlotId, span: Span) {
        if self.ty(src).is_copy() {
            self.emit(InstKind::Copy { dst, src }, span);
        } else if self.is_view(src) {
            // A view owns nothing to move: what takes it takes a clone.
            self.emit(InstKind::Clone { dst, src }, span);
        } else {
            self.taken(src);
            self.emit(InstKind::Move { dst, src }, span);
        }
        self.init(dst);
    }

    /// The value of `e` for reading in place.
    fn operand(&mut self, e: &hir::Expr) -> Val {
        if let ExprKind::Local(l) = e.kind {
            return Val::Place(self.slot(l));
        }
        let t = self.temp(&e.ty);
        self.eval(e, t);
        Val::Temp(t)
    }

    /// The value of `e` for reading in place, where nothing that runs before the reading
    /// operation can change a list `e` reads from: an owned list element (`xs[i]`,
    /// `xss[i][j]`) is then a view of it (`list_get.view`), not a clone. The caller
    /// checks that its other operands are [`unchanging`].
    fn viewed(&mut self, e: &hir::Expr) -> Val {
        match self.view_of(e) {
            Some(v) => Val::Temp(v),
            None => self.operand(e),
        }
    }

    /// Whether `s` is a view slot (the variable of a [`LocalKind::ForView`] loop).
    fn is_view(&self, s: SlotId) -> bool {
        self.view_slots.get(s.index()) == Some(&true)
    }

    /// Writes the view of the list element `e` (`list[index]` of the loop's locals)
    /// into `slot`, which becomes a view slot: read in place, never made live.
    fn view_into(&mut self, e: &hir::Expr, slot: SlotId) {
        let ExprKind::Index(list, index) = &e.kind else {
            unreachable!("the type checker reads a `for` variable as `list[index]`")
        };
        let (Some(list), Some(index)) = (list.kind.as_local(), index.kind.as_local()) else {
            unreachable!("the type checker reads a `for` variable as `list[index]`")
        };
        if self.view_slots.len() <= slot.index() {
            self.view_slots.resize(slot.index() + 1, false);
        }
        self.view_slots[slot.index()] = true;
        self.emit(
            InstKind::ListGet {
                dst: slot,
                list: self.slot(list),
                index: self.slot(index),
                checked: true,
                view: true,
            },
            e.span,
        );
    }

    /// A view slot of the owned list element `e` reads, when its list is a variable or
    /// a view itself and its index [`unchanging`]. The slot is never made live: nothing
    /// drops it.
    fn view_of(&mut self, e: &hir::Expr) -> Option<SlotId> {
        let ExprKind::Index(base, index) = &e.kind else {
            return None;
        };
        if e.ty.is_copy() || !unchanging(index) {
            return None;
        }
        let list = match base.kind {
            ExprKind::Local(l) => self.slot(l),
            _ => self.view_of(base)?,
        };
        let i = self.operand(index);
        let dst = self.temp(&e.ty);
        self.emit(
            InstKind::ListGet {
                dst,
                list,
                index: i.slot(),
                checked: true,
                view: true,
            },
            e.span,
        );
        self.release(i, e.span);
        Some(dst)
    }

    fn release(&mut self, v: Val, span: Span) {
        if let Val::Temp(t) = v {
            self.drop_slot(t, span);
        }
    }

    /// A slot holding `e`'s value for a consumer to take: a local's own slot when the
    /// value moves, a copy when it is a copy value, otherwise a temporary.
    fn consumed(&mut self, e: &hir::Expr) -> SlotId {
        if let ExprKind::Local(l) = e.kind {
            let s = self.slot(l);
            if !self.ty(s).is_copy() && !self.is_view(s) {
                return s;
            }
        }
        let t = self.temp(&e.ty);
        self.eval(e, t);
        t
    }

    /// Evaluates an expression statement, dropping any value.
    fn discard(&mut self, e: &hir::Expr) {
        match &e.kind {
            // A generic callee whose result is a type parameter bound to unit still
            // writes its result through a destination, so only calls of functions
            // whose own result is unit go without one.
            ExprKind::Call { type_args, .. } if e.ty == IrType::Unit && type_args.is_empty() => {
                self.call(e, None)
            }
            ExprKind::Push { list, value } => self.push(*list, value, e.span),
            _ => {
                let t = self.temp(&e.ty);
                self.eval(e, t);
                self.drop_slot(t, e.span);
            }
        }
    }

    fn push(&mut self, list: LocalId, value: &hir::Expr, span: Span) {
        let list = self.slot(list);
        let v = self.consumed(value);
        self.taken(v);
        self.emit(InstKind::ListPush { list, value: v }, span);
    }

    /// Evaluates `e` into the uninitialized slot `dst`, which is initialized afterwards.
    fn eval(&mut self, e: &hir::Expr, dst: SlotId) {
        let span = e.span;
        match &e.kind {
            ExprKind::Local(l) => {
                let src = self.slot(*l);
                self.move_or_copy(dst, src, span);
                return;
            }
            ExprKind::Int(v) => self.emit(const_inst(dst, ConstValue::Int(*v)), span),
            ExprKind::Float(v) => self.emit(const_inst(dst, ConstValue::Float(*v)), span),
            ExprKind::Str(s) => self.emit(const_inst(dst, ConstValue::Str(s.clone())), span),
            ExprKind::Bool(b) => self.emit(const_inst(dst, ConstValue::Bool(*b)), span),
            ExprKind::Unit => self.emit(const_inst(dst, ConstValue::Unit), span),
            ExprKind::List(es) | ExprKind::Tuple(es) => {
                let parts: Vec<SlotId> = es.iter().map(|x| self.consumed(x)).collect();
                for p in &parts {
                    self.taken(*p);
                }
                let kind = if matches!(e.kind, ExprKind::List(_)) {
                    InstKind::MakeList { dst, elems: parts }
                } else {
                    InstKind::MakeTuple { dst, fields: parts }
                };
                self.emit(kind, span);
            }
            ExprKind::Field(base, index) => {
                let b = self.viewed(base);
                self.emit(
                    InstKind::TupleField {
                        dst,
                        src: b.slot(),
                        index: *index,
                    },
                    span,
                );
                self.release(b, span);
            }
            ExprKind::Variant { variant, args } => {
                let parts: Vec<SlotId> = args.iter().map(|x| self.consumed(x)).collect();
                for p in &parts {
                    self.taken(*p);
                }
                self.emit(
                    InstKind::MakeVariant {
                        dst,
                        variant: *variant,
                        fields: parts,
                    },
                    span,
                );
            }
            ExprKind::Try(x) => self.lower_try(x, dst, span),
            ExprKind::Some(x) | ExprKind::Data(x) => {
                let v = self.consumed(x);
                self.taken(v);
                let kind = if matches!(e.kind, ExprKind::Some(_)) {
                    InstKind::MakeSome { dst, value: v }
                } else {
                    InstKind::MakeData { dst, value: v }
                };
                self.emit(kind, span);
            }
            ExprKind::None => self.emit(InstKind::MakeNone { dst }, span),
            ExprKind::Index(base, index) => {
                let b = if unchanging(index) {
                    self.viewed(base)
                } else {
                    self.operand(base)
                };
                let i = self.operand(index);
                self.emit(
                    InstKind::ListGet {
                        dst,
                        list: b.slot(),
                        index: i.slot(),
                        checked: true,
                        view: false,
                    },
                    span,
                );
                self.release(i, span);
                self.release(b, span);
            }
            ExprKind::Len(x) => {
                let v = self.viewed(x);
                self.emit(
                    InstKind::ListLen {
                        dst,
                        list: v.slot(),
                    },
                    span,
                );
                self.release(v, span);
            }
            ExprKind::Push { list, value } => {
                self.push(*list, value, span);
                self.emit(
                    InstKind::Const {
                        dst,
                        value: ConstValue::Unit,
                    },
                    span,
                );
            }
            ExprKind::IsSome(x) => {
                let v = self.operand(x);
                self.emit(InstKind::IsSome { dst, src: v.slot() }, span);
                self.release(v, span);
            }
            ExprKind::Unwrap(x) => {
                // On failure the option stays where it is, and the abandon path drops it.
                let v = self.consumed(x);
                self.init(v);
                self.emit(InstKind::Unwrap { dst, src: v }, span);
                self.taken(v);
            }
            ExprKind::Clone(x) => {
                let v = self.viewed(x);
                let kind = if x.ty.is_copy() {
                    InstKind::Copy { dst, src: v.slot() }
                } else {
                    InstKind::Clone { dst, src: v.slot() }
                };
                self.emit(kind, span);
                self.release(v, span);
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => {
                let v = self.operand(x);
                let op = if matches!(e.kind, ExprKind::Neg(_)) {
                    UnaryOp::Neg
                } else {
                    UnaryOp::Not
                };
                self.emit(
                    InstKind::Unary {
                        dst,
                        op,
                        src: v.slot(),
                    },
                    span,
                );
                self.release(v, span);
            }
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) | ExprKind::Concat(a, b) => {
                // Elements read as views when nothing evaluated between the view and
                // the operation can change their lists.
                let (l, r) = if unchanging(a) && unchanging(b) {
                    (self.viewed(a), self.viewed(b))
                } else {
                    (self.operand(a), self.operand(b))
                };
                let (lhs, rhs) = (l.slot(), r.slot());
                let kind = match &e.kind {
                    ExprKind::Binary(op, ..) => InstKind::Binary {
                        dst,
                        op: *op,
                        lhs,
                        rhs,
                    },
                    ExprKind::Compare(cmp, ..) => InstKind::Compare {
                        dst,
                        op: *cmp,
                        lhs,
                        rhs,
                    },
                    _ => InstKind::Concat { dst, lhs, rhs },
                };
                self.emit(kind, span);
                self.release(r, span);
                self.release(l, span);
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let is_and = matches!(e.kind, ExprKind::And(..));
                let l = self.operand(a);
                self.release(l, span);
                let rhs_b = self.new_block();
                let short_b = self.new_block();
                let (then_block, else_block) = if is_and {
                    (rhs_b, short_b)
                } else {
                    (short_b, rhs_b)
                };
                self.terminate(Terminator::Branch {
                    cond: l.slot(),
                    then_block,
                    else_block,
                });
                let before = self.snapshot();
                self.resume(rhs_b, before.clone());
                self.eval(b, dst);
                let rhs_edge = (self.cur, self.live.clone());
                self.resume(short_b, before);
                self.emit(
                    InstKind::Const {
                        dst,
                        value: ConstValue::Bool(!is_and),
                    },
                    span,
                );
                let short_edge = (self.cur, self.live.clone());
                self.join(vec![rhs_edge, short_edge], span);
            }
            ExprKind::Cast { value, checked } => {
                let v = self.operand(value);
                self.emit(
                    InstKind::Cast {
                        dst,
                        src: v.slot(),
                        checked: *checked,
                    },
                    span,
                );
                self.release(v, span);
            }
            ExprKind::Call { .. } => {
                self.call(e, Some(dst));
                return;
            }
        }
        self.init(dst);
    }

    fn call(&mut self, e: &hir::Expr, dst: Option<SlotId>) {
        let ExprKind::Call {
            callee,
            type_args,
            args,
        } = &e.kind
        else {
            unreachable!("call() is given calls");
        };
        let span = e.span;
        let mut ir_args = Vec::new();
        let mut refs = Vec::new();
        let mut gone = Vec::new();
        let mut outs = Vec::new();
        // `ref` arguments that are list elements are views of them when no argument
        // can change or take a list: every argument unchanging, none `mut` or `out`,
        // none an owned value moved in (the callee could drop the list it came from).
        let views = args.iter().all(|a| {
            unchanging(&a.value)
                && match a.mode {
                    ParamMode::Ref => true,
                    ParamMode::In => a.value.ty.is_copy(),
                    ParamMode::Mut | ParamMode::Out => false,
                }
        });
        for a in args {
            let slot = match a.mode {
                ParamMode::In => {
                    let s = self.consumed(&a.value);
                    gone.push(s);
                    s
                }
                ParamMode::Ref => {
                    let v = if views {
                        self.viewed(&a.value)
                    } else {
                        self.operand(&a.value)
                    };
                    refs.push(v);
                    v.slot()
                }
                ParamMode::Mut | ParamMode::Out => {
                    let Some(l) = a.value.kind.as_local() else {
                        unreachable!("the type checker makes mut/out arguments locals");
                    };
                    let s = self.slot(l);
                    if a.mode == ParamMode::Out {
                        outs.push(s);
                    }
                    s
                }
            };
            ir_args.push(Arg { mode: a.mode, slot });
        }
        for s in &outs {
            // Writing into an initialized destination: the old value goes first.
            self.drop_slot(*s, span);
        }
        for s in &gone {
            self.taken(*s);
        }
        // A native the IR computes itself (`native_inline`), with the arguments and the
        // result it names (every call of one has a destination: a dropped value's is a
        // temporary).
        let inline = match callee {
            Callee::Native { rider, name } => {
                datalove_ir::lowering::native_inline(&self.riders[*rider].rider, name)
            }
            Callee::Function(_) => None,
        }
        .filter(|inline| {
            let (params, result) = inline.signature();
            let typed = |s: SlotId, ty: &IrType| self.func.slot_type(s) == ty;
            dst.is_some_and(|d| typed(d, &result))
                && ir_args.len() == params.len()
                && ir_args
                    .iter()
                    .zip(&params)
                    .all(|(a, (mode, ty))| a.mode == *mode && typed(a.slot, ty))
        });
        let kind = match callee {
            Callee::Function(f) => InstKind::Call {
                dst,
                func: FuncId(*f as u32),
                type_args: type_args.clone(),
                args: ir_args,
                depth: 1,
            },
            // One float instruction, or a read of a string's length or byte, on every
            // backend: not a call.
            Callee::Native { .. } if inline.is_some() => {
                let dst = dst.expect("tested with the operation");
                match inline.expect("tested") {
                    NativeInline::Float(op) => InstKind::Unary {
                        dst,
                        op,
                        src: ir_args[0].slot,
                    },
                    NativeInline::Length => InstKind::ListLen {
                        dst,
                        list: ir_args[0].slot,
                    },
                    // Checked: the bounds pass drops the test where it proves it.
                    NativeInline::Byte => InstKind::ListGet {
                        dst,
                        list: ir_args[0].slot,
                        index: ir_args[1].slot,
                        checked: true,
                        view: false,
                    },
                    NativeInline::Slice => InstKind::StrSlice {
                        dst,
                        string: ir_args[0].slot,
                        start: ir_args[1].slot,
                        end: ir_args[2].slot,
                        view: false,
                    },
                }
            }
            Callee::Native { rider, name } => {
                let interface = &self.riders[*rider];
                let undetermined = interface
                    .generic_functions
                    .get(name)
                    .cloned()
                    .unwrap_or_default();
                let bindings = undetermined
                    .iter()
                    .map(|n| type_args[*n as usize].clone())
                    .collect();
                let native = interface
                    .context(name, bindings)
                    .expect("resolved natives are declared");
                InstKind::CallNative {
                    dst,
                    native: Box::new(native),
                    args: ir_args,
                }
            }
        };
        self.emit(kind, span);
        if let Some(d) = dst {
            self.init(d);
        }
        for s in outs {
            self.init(s);
        }
        for v in refs.into_iter().rev() {
            self.release(v, span);
        }
    }
}

/// The instruction that writes the constant `value` into `dst`.
fn const_inst(dst: SlotId, value: ConstValue) -> InstKind {
    InstKind::Const { dst, value }
}

/// Whether evaluating `e` leaves every variable as it was: it calls nothing, pushes
/// nothing and moves nothing (no constructor, `unwrap` or `?`), so a view of a list
/// element taken before it stays valid after it. Failing (an index out of bounds, an
/// overflow) is allowed: a failure ends the operation the view was for.
fn unchanging(e: &hir::Expr) -> bool {
    let reads_only = matches!(
        e.kind,
        ExprKind::Local(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::None
            | ExprKind::Field(..)
            | ExprKind::Len(_)
            | ExprKind::IsSome(_)
            | ExprKind::Clone(_)
            | ExprKind::Neg(_)
            | ExprKind::Not(_)
            | ExprKind::Cast { .. }
            | ExprKind::Index(..)
            | ExprKind::Binary(..)
            | ExprKind::Compare(..)
            | ExprKind::And(..)
            | ExprKind::Or(..)
            | ExprKind::Concat(..)
    );
    reads_only && e.children().into_iter().all(unchanging)
}
