//! Straight-line blocks merged, copies forwarded, repeated scalar operations reused and
//! dead copies removed: an IR pass every backend gains from (the front end runs it last,
//! after inlining, range checks and jump threading).
//!
//! Lowering and inlining leave chains of copies behind: the arguments of an inlined call
//! are copied into temporaries, then into the callee's parameter slots, and its result
//! is copied back out; `(i + j) * (i + j + 1)` computes `i + j` twice; and the inlined
//! body sits in blocks of its own joined by jumps. The interpreter pays one dispatch for
//! each of those, and every backend carries the slots. Here, in each function:
//!
//! 1. **Blocks merged.** A block that ends in a `jump` to a block nothing else reaches
//!    (no other jump, branch or abandon edge, and not the entry) takes that block's
//!    instructions and terminator; the jump is gone.
//! 2. **Copies forwarded, operations reused.** After `d = copy s` (scalars of one type,
//!    `s` a local or an `in` parameter), a later read of `d` reads `s` instead, until
//!    either is written again: in the same block, or in a later one when the copy holds
//!    on every path there (a forward analysis over jumps and branches). Within a block,
//!    a scalar `const`, `unary`, `binary`, `compare` or `cast` that repeats one already
//!    computed there, on the same operands with neither they nor its result written
//!    since, becomes a copy of that result (so `b[i + 3] = b[i + 3] + x`, whose two `3`s
//!    are two constants, computes `i + 3` once). This holds for a checked operation too:
//!    had it failed, the first one would have failed before it, at its own location; so
//!    the copy cannot fail and loses its abandon edge.
//! 3. **Dead copies removed.** A `copy` or `const` into a local scalar that no path reads
//!    before writing it again (a backward liveness over the blocks, abandon edges
//!    included) is removed.
//!
//! Every remaining instruction computes the value it did, and every fallible one fails
//! where it did, with the same error and location: only work whose result was already
//! at hand, or never read, is removed. Blocks no edge reaches any more are removed.

use crate::inline::remove_unreachable_blocks;
use crate::program::{Block, ConstValue, Function, Inst, InstKind, Program, SlotId, Terminator};
use crate::types::ParamMode;

/// Runs the pass on every function of `program`.
pub fn forward_copies(program: &mut Program) {
    for f in &mut program.functions {
        forward_function(f);
    }
}

/// Runs the pass on one function.
pub fn forward_function(f: &mut Function) {
    merge_straight_blocks(f);
    let at_entry = copies_at_entry(f);
    let mut dropped_edges = false;
    for (b, copies) in at_entry.into_iter().enumerate() {
        let mut block = std::mem::take(&mut f.blocks[b]);
        dropped_edges |= forward_block(f, &mut block, copies).1;
        f.blocks[b] = block;
    }
    remove_dead_copies(f);
    if dropped_edges {
        remove_unreachable_blocks(f);
    }
}

/// How many edges reach each block: jumps, both targets of a branch, abandon edges, and
/// one for the entry.
pub(crate) fn predecessor_counts(f: &Function) -> Vec<usize> {
    let mut preds = vec![0usize; f.blocks.len()];
    preds[f.entry.index()] += 1;
    for block in &f.blocks {
        for a in block.insts.iter().filter_map(|i| i.abandon) {
            preds[a.index()] += 1;
        }
        for s in block.term.successors() {
            preds[s.index()] += 1;
        }
    }
    preds
}

/// Step 1: each block that jumps to a block only it reaches takes that block's body.
fn merge_straight_blocks(f: &mut Function) {
    let preds = predecessor_counts(f);
    let mut merged = false;
    for a in 0..f.blocks.len() {
        while let Terminator::Jump(b) = f.blocks[a].term {
            let b = b.index();
            if b == a || b == f.entry.index() || preds[b] != 1 {
                break;
            }
            // `b`'s edges move to `a` unchanged, so every count stays right; `b` is left
            // empty and unreached.
            let taken = std::mem::take(&mut f.blocks[b]);
            f.blocks[a].insts.extend(taken.insts);
            f.blocks[a].term = taken.term;
            merged = true;
        }
    }
    if merged {
        remove_unreachable_blocks(f);
    }
}

/// The operation of a reusable instruction (a scalar `const`, or a `unary`, `binary`,
/// `compare` or `cast` on scalars), without its destination: two instructions with
/// equal keys compute the same value from the same slots.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Unary(crate::program::UnaryOp, SlotId),
    Binary(crate::program::BinaryOp, SlotId, SlotId),
    Compare(crate::program::CompareOp, SlotId, SlotId),
    /// A conversion, to its destination's type.
    Cast(SlotId, bool, crate::types::IrType),
    /// A constant of a type: floats by their bits (`0.0` is not `-0.0`).
    Const(crate::types::IrType, ConstBits),
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum ConstBits {
    Bool(bool),
    Int(i128),
    Float(u64),
}

impl Key {
    fn of(f: &Function, kind: &InstKind) -> Option<(Key, SlotId)> {
        use InstKind as K;
        let scalar = |s: &SlotId| f.slot_type(*s).is_scalar();
        let (key, dst) = match kind {
            K::Unary { dst, op, src } if scalar(src) => (Key::Unary(*op, *src), *dst),
            K::Binary { dst, op, lhs, rhs } if scalar(lhs) && scalar(rhs) => {
                (Key::Binary(*op, *lhs, *rhs), *dst)
            }
            K::Compare { dst, op, lhs, rhs } if scalar(lhs) && scalar(rhs) => {
                (Key::Compare(*op, *lhs, *rhs), *dst)
            }
            K::Cast { dst, src, checked } if scalar(src) => {
                let to = f.slot_type(*dst).clone();
                (Key::Cast(*src, *checked, to), *dst)
            }
            K::Const { dst, value } => {
                let bits = match value {
                    ConstValue::Bool(b) => ConstBits::Bool(*b),
                    ConstValue::Int(i) => ConstBits::Int(*i),
                    ConstValue::Float(x) => ConstBits::Float(x.to_bits()),
                    ConstValue::Unit | ConstValue::Str(_) => return None,
                };
                (Key::Const(f.slot_type(*dst).clone(), bits), *dst)
            }
            _ => return None,
        };
        scalar(&dst).then_some((key, dst))
    }

    fn reads(&self, s: SlotId) -> bool {
        self.operands().contains(&Some(s))
    }

    /// The slots the operation reads (at most two).
    fn operands(&self) -> [Option<SlotId>; 2] {
        match *self {
            Key::Unary(_, a) | Key::Cast(a, ..) => [Some(a), None],
            Key::Binary(_, a, b) | Key::Compare(_, a, b) => [Some(a), Some(b)],
            Key::Const(..) => [None, None],
        }
    }
}

/// The operations computed in a block whose operands and result are unchanged since
/// ([`forward_block`]): found by their key, forgotten by slot (each slot lists the keys
/// that read it or were computed into it), so an instruction costs what it names, not
/// what the block computed before it (a function of 10^5 `let`s is checked in linear
/// time).
#[derive(Default)]
struct Available {
    /// Each key's destinations, oldest first.
    by_key: std::collections::HashMap<Key, Vec<SlotId>>,
    /// The keys that read each slot or have it as a destination.
    by_slot: std::collections::HashMap<SlotId, Vec<Key>>,
}

impl Available {
    /// The oldest destination of `key` of the type of `dst`.
    fn find(&self, f: &Function, key: &Key, dst: SlotId) -> Option<SlotId> {
        let ty = f.slot_type(dst);
        self.by_key
            .get(key)?
            .iter()
            .copied()
            .find(|d| f.slot_type(*d) == ty)
    }

    fn push(&mut self, key: Key, dst: SlotId) {
        for s in key.operands().into_iter().flatten().chain([dst]) {
            self.by_slot.entry(s).or_default().push(key.clone());
        }
        self.by_key.entry(key).or_default().push(dst);
    }

    /// Forgets what `w` being written makes stale: every operation that reads it, and
    /// `w` as a destination.
    fn forget(&mut self, w: SlotId) {
        for key in self.by_slot.remove(&w).unwrap_or_default() {
            let reads = key.reads(w);
            if let Some(dsts) = self.by_key.get_mut(&key) {
                dsts.retain(|d| *d != w && !reads);
                if dsts.is_empty() {
                    self.by_key.remove(&key);
                }
            }
        }
    }
}

/// Whether `s` may stand for a copy of it: a local, or an `in` parameter (read in place,
/// never through an address).
fn forwardable_source(f: &Function, s: SlotId) -> bool {
    matches!(f.param_mode(s), None | Some(ParamMode::In))
}

/// The copies that hold at a point: `copies[d] = Some(s)`, `d` holds a copy of `s` and
/// neither has been written since.
type Copies = Vec<Option<SlotId>>;

/// The copies that hold where each block starts, on every path to it (a forward "must"
/// analysis over jumps and branches, to a fixed point): a read in a block may then read
/// the source of a copy made in a block before it (`fib(n - 1)` inlined copies `n - 1`
/// into the callee's parameter in one block and reads it in the next). The entry and
/// the blocks abandon edges reach start with none.
fn copies_at_entry(f: &Function) -> Vec<Copies> {
    let n = f.blocks.len();
    let none: Copies = vec![None; f.slots.len()];
    // Nothing to carry from block to block: one block, or no copy anywhere (the copies
    // that reusing an operation makes are then forwarded within their block only).
    let copies = f.blocks.iter().flat_map(|b| &b.insts);
    if n == 1
        || !copies
            .into_iter()
            .any(|i| matches!(i.kind, InstKind::Copy { .. }))
    {
        return vec![none; n];
    }
    let abandon_targets = f.abandon_targets();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, block) in f.blocks.iter().enumerate() {
        for s in block.term.successors() {
            preds[s.index()].push(b);
        }
    }
    let fixed = |b: usize| b == f.entry.index() || abandon_targets[b] || preds[b].is_empty();
    // What holds where each block ends; `None` until first computed (no constraint yet).
    let mut at_end: Vec<Option<Copies>> = vec![None; n];
    let at_start = |b: usize, at_end: &[Option<Copies>]| -> Option<Copies> {
        if fixed(b) {
            return Some(none.clone());
        }
        let mut met: Option<Copies> = None;
        for end in preds[b].iter().filter_map(|p| at_end[*p].as_ref()) {
            met = Some(match met {
                None => end.clone(),
                Some(m) => m
                    .iter()
                    .zip(end)
                    .map(|(a, b)| if a == b { *a } else { None })
                    .collect(),
            });
        }
        met
    };
    // Forwarding rewrites what it reads, so a block given fewer copies at its start may
    // end with other copies, not fewer (`d2 = copy d1` records `d2 = s` when `d1 = s`
    // is known, else `d2 = d1`): the rounds are not proven to settle. A round finds
    // nothing new in a few rounds on real code; after `MAX_ROUNDS` without settling,
    // no copy is carried from block to block, which is always right.
    const MAX_ROUNDS: usize = 32;
    let mut settled = false;
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for b in 0..n {
            let Some(start) = at_start(b, &at_end) else {
                continue;
            };
            let end = forward_block(f, &mut f.blocks[b].clone(), start).0;
            if at_end[b].as_ref() != Some(&end) {
                at_end[b] = Some(end);
                changed = true;
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        return vec![none; n];
    }
    (0..n)
        .map(|b| at_start(b, &at_end).unwrap_or_else(|| none.clone()))
        .collect()
}

/// Step 2 on `block` (taken out of `f`), starting from the copies `copy_of` that hold
/// where it starts: the copies that hold where it ends, and whether an abandon edge was
/// dropped.
fn forward_block(f: &Function, block: &mut Block, mut copy_of: Copies) -> (Copies, bool) {
    // Operations computed in this block whose operands and result are unchanged since.
    let mut available = Available::default();
    // For each slot, the slots that may hold a copy of it (checked against `copy_of`
    // when used): a write ends the copies of what it wrote without a walk of them all.
    let mut copied_from: std::collections::HashMap<SlotId, Vec<SlotId>> =
        std::collections::HashMap::new();
    for (d, s) in copy_of.iter().enumerate() {
        if let Some(s) = s {
            copied_from.entry(*s).or_default().push(SlotId(d as u32));
        }
    }
    let mut dropped_edge = false;
    for inst in &mut block.insts {
        // A call's places (`ref`, `mut`, `out` arguments): a slot passed as one must be
        // the callee's only view of it, so no `in` argument of the call becomes it.
        let places: Vec<SlotId> = match &inst.kind {
            InstKind::Call { args, .. } | InstKind::CallNative { args, .. } => args
                .iter()
                .filter(|a| a.mode != ParamMode::In)
                .map(|a| a.slot)
                .collect(),
            _ => Vec::new(),
        };
        for operand in inst.kind.value_operands_mut() {
            if let Some(s) = copy_of[operand.index()] {
                if !places.contains(&s) {
                    *operand = s;
                }
            }
        }
        let key = Key::of(f, &inst.kind);
        if let Some((key, dst)) = &key {
            if let Some(earlier) = available.find(f, key, *dst) {
                inst.kind = InstKind::Copy {
                    dst: *dst,
                    src: earlier,
                };
                dropped_edge |= inst.abandon.take().is_some();
            }
        }
        // What the instruction writes, and what it leaves uninitialized.
        let mut written = Vec::new();
        inst.kind.for_each_written(|s| written.push(s));
        if let InstKind::Drop { slot } | InstKind::Move { src: slot, .. } = &inst.kind {
            written.push(*slot);
        }
        for w in written {
            copy_of[w.index()] = None;
            for d in copied_from.remove(&w).unwrap_or_default() {
                if copy_of[d.index()] == Some(w) {
                    copy_of[d.index()] = None;
                }
            }
            available.forget(w);
        }
        if let InstKind::Copy { dst, src } = &inst.kind {
            if dst != src
                && f.slot_type(*dst).is_scalar()
                && f.slot_type(*dst) == f.slot_type(*src)
                && forwardable_source(f, *src)
            {
                copy_of[dst.index()] = Some(*src);
                copied_from.entry(*src).or_default().push(*dst);
            }
        } else if let Some((key, dst)) = key {
            if !key.reads(dst) {
                available.push(key, dst);
            }
        }
    }
    match &mut block.term {
        Terminator::Branch { cond, .. } => {
            if let Some(s) = copy_of[cond.index()] {
                *cond = s;
            }
        }
        Terminator::Return(Some(r)) => {
            if let Some(s) = copy_of[r.index()] {
                *r = s;
            }
        }
        _ => {}
    }
    (copy_of, dropped_edge)
}

/// Step 3: removes each `copy` or `const` into a local scalar that is dead after it.
fn remove_dead_copies(f: &mut Function) {
    let n = f.blocks.len();
    let slots = f.slots.len();
    let removable = |f: &Function, inst: &Inst| -> Option<SlotId> {
        let dst = match &inst.kind {
            InstKind::Copy { dst, .. } | InstKind::Const { dst, .. } => *dst,
            _ => return None,
        };
        (f.param_mode(dst).is_none() && f.slot_type(dst).is_scalar()).then_some(dst)
    };
    // Backward liveness to a fixed point: `live_in[b]`, the slots read in `b` (or after
    // it) before they are written.
    let mut live_in: Vec<Vec<bool>> = vec![vec![false; slots]; n];
    let live_after_term = |block: &Block, live_in: &[Vec<bool>]| {
        let mut live = vec![false; slots];
        for s in block.term.successors() {
            for (l, x) in live.iter_mut().zip(&live_in[s.index()]) {
                *l |= *x;
            }
        }
        if let Some(s) = block.term.slot() {
            live[s.index()] = true;
        }
        live
    };
    // One instruction, backwards: what is live before it, given what is live after it.
    let step = |inst: &Inst, live: &mut Vec<bool>, live_in: &[Vec<bool>]| {
        inst.kind.for_each_defined(|s| live[s.index()] = false);
        inst.kind.for_each_read(|s| live[s.index()] = true);
        if let Some(a) = inst.abandon {
            for (l, x) in live.iter_mut().zip(&live_in[a.index()]) {
                *l |= *x;
            }
        }
    };
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let block = &f.blocks[b];
            let mut live = live_after_term(block, &live_in);
            for inst in block.insts.iter().rev() {
                step(inst, &mut live, &live_in);
            }
            if live != live_in[b] {
                live_in[b] = live;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for b in 0..n {
        let mut live = live_after_term(&f.blocks[b], &live_in);
        let mut keep = vec![true; f.blocks[b].insts.len()];
        for (i, inst) in f.blocks[b].insts.iter().enumerate().rev() {
            if let Some(dst) = removable(f, inst) {
                if !live[dst.index()] {
                    keep[i] = false;
                    continue;
                }
            }
            step(inst, &mut live, &live_in);
        }
        let mut keep = keep.into_iter();
        f.blocks[b].insts.retain(|_| keep.next().unwrap_or(true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FunctionBuilder, ProgramBuilder};
    use crate::program::{BinaryOp, BlockId, CompareOp};
    use crate::types::IrType;
    use crate::verify::verify_program;

    /// A program of one function, `main`, whose body `build` writes (and returns what
    /// the test looks at after), verified, through the pass, and verified again.
    fn forwarded_main<T>(build: impl FnOnce(&mut FunctionBuilder<'_>) -> T) -> (Program, T) {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let seen = build(&mut pb.function(main));
        let mut program = pb.finish_verified().expect("the input verifies");
        forward_copies(&mut program);
        verify_program(&program).expect("the forwarded program verifies");
        (program, seen)
    }

    fn kinds(f: &Function) -> Vec<Vec<&'static str>> {
        f.blocks
            .iter()
            .map(|b| b.insts.iter().map(|i| i.kind.name()).collect())
            .collect()
    }

    /// `main` as the inliner leaves a call `debuglog add2(a, b)`: the arguments copied
    /// twice, the body (a checked add) in a block of its own, the result copied out into
    /// a third block.
    #[test]
    fn an_inlined_body_becomes_one_block_without_its_copies() {
        let (program, (a, b, sum)) = forwarded_main(|fb| {
            let a = fb.int(IrType::I64, 3);
            let b = fb.int(IrType::I64, 4);
            let (t1, t2, p1, p2, r) = (
                fb.new_slot(IrType::I64),
                fb.new_slot(IrType::I64),
                fb.new_slot(IrType::I64),
                fb.new_slot(IrType::I64),
                fb.new_slot(IrType::I64),
            );
            for (dst, src) in [(t1, a), (t2, b), (p1, t1), (p2, t2)] {
                fb.copy(dst, src);
            }
            let (body, after) = (fb.new_block(), fb.new_block());
            fb.terminate(Terminator::Jump(body));
            fb.switch_to(body);
            let overflow = fb.abandon_block(&[]);
            let sum = fb.binary(BinaryOp::Add, p1, p2, Some(overflow));
            fb.copy(r, sum);
            fb.terminate(Terminator::Jump(after));
            fb.switch_to(after);
            fb.debuglog(r);
            fb.terminate(Terminator::Return(None));
            (a, b, sum)
        });
        let f = &program.functions[0];
        assert_eq!(
            kinds(f),
            [vec!["const", "const", "binary", "debuglog"], vec![]],
            "one block and the abandon block"
        );
        let insts = &f.blocks[0].insts;
        assert!(matches!(insts[2].kind, InstKind::Binary { lhs, rhs, .. } if (lhs, rhs) == (a, b)));
        assert!(matches!(insts[3].kind, InstKind::Debuglog { src } if src == sum));
        assert_eq!(insts[2].abandon, Some(BlockId(1)));
    }

    /// `x = a + b; y = a + b; debuglog x * y`, both adds checked.
    #[test]
    fn a_repeated_checked_operation_is_reused_and_loses_its_abandon_edge() {
        let (program, x) = forwarded_main(|fb| {
            let a = fb.int(IrType::I64, 3);
            let b = fb.int(IrType::I64, 4);
            let first = fb.abandon_block(&[]);
            let second = fb.abandon_block(&[]);
            let x = fb.binary(BinaryOp::Add, a, b, Some(first));
            let y = fb.binary(BinaryOp::Add, a, b, Some(second));
            let product = fb.binary(BinaryOp::Mul, x, y, Some(first));
            fb.debuglog(product);
            fb.terminate(Terminator::Return(None));
            x
        });
        let f = &program.functions[0];
        assert_eq!(
            kinds(f),
            [
                vec!["const", "const", "binary", "binary", "debuglog"],
                vec![]
            ],
            "the second add is gone, and the abandon block only it used"
        );
        assert!(
            matches!(f.blocks[0].insts[3].kind, InstKind::Binary { op: BinaryOp::Mul, lhs, rhs, .. } if (lhs, rhs) == (x, x))
        );
    }

    /// `var i = 0; loop while i < 3 { d = i; i = i +% 1; debuglog d }`: the copy of `i`
    /// is read after `i` changes, so it stays, and so does the copy that carries
    /// `i`'s new value around the loop.
    #[test]
    fn a_copy_whose_source_changes_before_it_is_read_stays() {
        let (program, (d, i)) = forwarded_main(|fb| {
            let i = fb.int(IrType::I64, 0);
            let three = fb.int(IrType::I64, 3);
            let one = fb.int(IrType::I64, 1);
            let each = fb.while_loop(CompareOp::Lt, i, three);
            let d = fb.new_slot(IrType::I64);
            fb.copy(d, i);
            let next = fb.binary(BinaryOp::WrappingAdd, i, one, None);
            fb.copy(i, next);
            fb.debuglog(d);
            fb.end_loop(each);
            fb.terminate(Terminator::Return(None));
            (d, i)
        });
        let f = &program.functions[0];
        // Entry, condition, body, exit: nothing merged, nothing removed.
        let sizes: Vec<usize> = kinds(f).into_iter().map(|b| b.len()).collect();
        assert_eq!(sizes, [3, 1, 4, 0], "{:?}", kinds(f));
        let body = &f.blocks[2].insts;
        assert!(matches!(body[0].kind, InstKind::Copy { dst, src } if (dst, src) == (d, i)));
        assert!(matches!(body[3].kind, InstKind::Debuglog { src } if src == d));
    }

    /// A copy made before a branch and read after it, on both sides, holds on every path
    /// there: both reads read its source, and the copy, read nowhere now, goes.
    #[test]
    fn a_copy_made_on_every_path_is_forwarded_into_later_blocks() {
        let (program, a) = forwarded_main(|fb| {
            let a = fb.int(IrType::I64, 3);
            let kept = fb.new_slot(IrType::I64);
            fb.copy(kept, a);
            let zero = fb.int(IrType::I64, 0);
            let c = fb.compare(CompareOp::Lt, zero, a);
            let (yes, no) = (fb.new_block(), fb.new_block());
            fb.branch(c, yes, no);
            for b in [yes, no] {
                fb.switch_to(b);
                fb.debuglog(kept);
                fb.terminate(Terminator::Return(None));
            }
            a
        });
        let f = &program.functions[0];
        assert_eq!(
            kinds(f),
            [
                vec!["const", "const", "compare"],
                vec!["debuglog"],
                vec!["debuglog"]
            ]
        );
        for b in &f.blocks[1..] {
            assert!(matches!(b.insts[0].kind, InstKind::Debuglog { src } if src == a));
        }
    }

    /// `if 0 < a { v = a } else { v = 7 }; debuglog v`: the copy holds on one path to
    /// the join only, so the join reads `v` and the copy stays.
    #[test]
    fn a_copy_made_on_one_path_only_stays() {
        let (program, v) = forwarded_main(|fb| {
            let a = fb.int(IrType::I64, 3);
            let v = fb.new_slot(IrType::I64);
            let zero = fb.int(IrType::I64, 0);
            let c = fb.compare(CompareOp::Lt, zero, a);
            fb.if_else(
                c,
                |fb| fb.copy(v, a),
                |fb| fb.set_const(v, ConstValue::Int(7)),
            );
            fb.debuglog(v);
            fb.terminate(Terminator::Return(None));
            v
        });
        let f = &program.functions[0];
        assert_eq!(kinds(f)[1], ["copy"]);
        assert!(matches!(f.blocks[3].insts[0].kind, InstKind::Debuglog { src } if src == v));
    }

    /// `debuglog 3 + 3`, the two `3`s two constants, and `0.0` beside `-0.0`: the equal
    /// constants become one; `-0.0`, equal to `0.0` by `==` but not by its bits, stays.
    #[test]
    fn equal_constants_are_one_and_a_negative_zero_is_its_own() {
        let (program, ()) = forwarded_main(|fb| {
            let (three, again) = (fb.int(IrType::I64, 3), fb.int(IrType::I64, 3));
            let abandon = fb.abandon_block(&[]);
            let six = fb.binary(BinaryOp::Add, three, again, Some(abandon));
            fb.debuglog(six);
            let zero = fb.constant(IrType::F64, ConstValue::Float(0.0));
            let negative = fb.constant(IrType::F64, ConstValue::Float(-0.0));
            let sum = fb.binary(BinaryOp::Add, zero, negative, None);
            fb.debuglog(sum);
            fb.terminate(Terminator::Return(None));
        });
        let f = &program.functions[0];
        assert_eq!(
            kinds(f)[0],
            ["const", "binary", "debuglog", "const", "const", "binary", "debuglog"]
        );
        assert!(
            matches!(f.blocks[0].insts[1].kind, InstKind::Binary { lhs, rhs, .. } if lhs == rhs)
        );
    }
}
