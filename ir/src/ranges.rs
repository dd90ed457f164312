//! Integer ranges: checked arithmetic that cannot overflow becomes plain, an IR pass every
//! backend gains from (the front end runs it after inlining, before jump threading).
//!
//! Every integer `+`, `-` and `*` of the language is checked: an overflow is an error at
//! a location. Most of them cannot overflow, and the code around them says so: in
//! `if n < 2 ret n end if ... fib(n - 1)` the subtraction runs only for `n >= 2`; in
//! `loop while i < len ... set i = i + 1` the increment runs only for `i < len`, so
//! `i + 1` is at most `len`. Each check still costs a compare and a branch on every
//! compiled backend, and keeps the interpreter on its checked operations.
//!
//! The pass computes, for each block and each integer (or bool) slot, an interval the
//! slot's value lies in whenever the block starts (a forward data-flow analysis over the
//! function's jumps and branches), from:
//! - constants, copies, list lengths, in-range conversions, and the result of an
//!   arithmetic operation on two intervals (`+`, `-`, `*`, and `/` and `%` of a
//!   non-negative value by a positive one);
//! - an element access: past it (its failure leaves by the abandon edge) the index is
//!   below the list's length, which is at most what the elements' bytes allow
//!   (`MAX_BUFFER_BYTES`; a list of zero-size elements may have any length);
//! - the comparison a branch tests (`lt a, b` then `branch` on it): on the `then` edge
//!   `a < b` holds, on the `else` edge `a >= b`, and each operand's interval narrows;
//! - a branch on a bool known to be one value takes one edge only (the `and` of a loop
//!   condition lowers to a `false` constant branched on).
//!
//! An instruction that writes a slot any other way (a call's `out` or `mut` argument
//! included) forgets what was known of it. Intervals only grow while the analysis runs;
//! one that keeps growing at a loop's head (a loop counter) is widened: the end that moves
//! goes to its type's end, so the analysis ends; passes that recompute each block from
//! its predecessors then take back what a later test or access bounds again. A slot no
//! block of a loop writes holds at the loop's head what it held when the loop was
//! entered, so its interval there comes from the edges into the loop alone (an outer
//! counter bounded after widening reaches the inner loop with its bound). A tally (a
//! slot a loop writes only by one `c = c + 1` that runs at most once an iteration) has
//! grown at the loop's head by no more than a step of the same loop (one `k = k + 1`
//! on every iteration) has: `count + 1` in sieve's `loop while k <= n` cannot overflow.
//!
//! Then a checked `add`, `sub` or `mul` whose exact result lies within its type's range
//! on every path becomes `nowrap_add` (`nowrap_sub`, `nowrap_mul`), which cannot fail
//! (and tells a C compiler it does not overflow), and a checked conversion of a value
//! that fits becomes unchecked. The program computes the same values and fails at the same places:
//! only checks that can never fire are removed. Abandon blocks no instruction needs any
//! more are removed.

use std::collections::{BTreeMap, BTreeSet};

use crate::inline::rewrite_functions;
use crate::program::{
    BinaryOp, BlockId, CompareOp, ConstValue, Function, InstKind, Program, SlotId, Terminator,
};
use crate::types::IrType;

/// A closed interval of values (integers at their value, bools as 0 and 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lo: i128,
    hi: i128,
}

impl Range {
    fn of(lo: i128, hi: i128) -> Range {
        Range { lo, hi }
    }

    fn within(self, outer: Range) -> bool {
        outer.lo <= self.lo && self.hi <= outer.hi
    }

    fn hull(self, other: Range) -> Range {
        Range::of(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    /// `None` when the two do not meet.
    fn meet(self, other: Range) -> Option<Range> {
        let r = Range::of(self.lo.max(other.lo), self.hi.min(other.hi));
        (r.lo <= r.hi).then_some(r)
    }
}

/// The values a slot of type `ty` can hold, for the integer and bool types this pass
/// follows; `None` for any other type.
fn type_range(ty: &IrType) -> Option<Range> {
    match ty {
        IrType::Bool => Some(Range::of(0, 1)),
        _ => ty
            .kind()
            .and_then(|k| k.int_range())
            .map(|(lo, hi)| Range::of(lo, hi)),
    }
}

/// The exact interval of `a op b` (no overflow), or `None` when this pass does not
/// follow `op` (or the interval is past `i128`, which no checked result can be).
fn arith(op: BinaryOp, a: Range, b: Range) -> Option<Range> {
    let corners = |f: fn(i128, i128) -> Option<i128>| -> Option<Range> {
        let c = [
            f(a.lo, b.lo)?,
            f(a.lo, b.hi)?,
            f(a.hi, b.lo)?,
            f(a.hi, b.hi)?,
        ];
        Some(Range::of(*c.iter().min()?, *c.iter().max()?))
    };
    match op {
        BinaryOp::Add | BinaryOp::WrappingAdd | BinaryOp::NoWrapAdd => corners(i128::checked_add),
        BinaryOp::Sub | BinaryOp::WrappingSub | BinaryOp::NoWrapSub => corners(i128::checked_sub),
        BinaryOp::Mul | BinaryOp::WrappingMul | BinaryOp::NoWrapMul => corners(i128::checked_mul),
        // A non-negative value divided by a positive one: truncation is the floor, and
        // the quotient falls as the divisor grows.
        BinaryOp::Div if a.lo >= 0 && b.lo > 0 => Some(Range::of(a.lo / b.hi, a.hi / b.lo)),
        BinaryOp::Rem if a.lo >= 0 && b.lo > 0 => Some(Range::of(0, a.hi.min(b.hi - 1))),
        _ => None,
    }
}

/// The most elements a list of `elem` can hold: its elements' bytes are at most
/// `MAX_BUFFER_BYTES` (the runtime refuses more; `max_buffer_elements`); a list of
/// zero-size elements stores nothing, so its length is any `index`, and so is that of a
/// list whose element size is unknown (a type parameter's).
fn max_list_len(elem: &IrType) -> i128 {
    match elem.layout() {
        Some(l) => datalove_rti::layout::max_buffer_elements(l.size) as i128,
        None => u64::MAX as i128,
    }
}

/// What is known at one point of a function: the interval a slot's value lies in, for
/// the slots of which more than their type is known (few: a map keeps a function with
/// many slots and blocks small).
type Facts = BTreeMap<usize, Range>;

/// The comparison a branch may test: `cond = op lhs, rhs`, none of the three written
/// since.
#[derive(Clone, Copy)]
struct Tested {
    cond: SlotId,
    op: CompareOp,
    lhs: SlotId,
    rhs: SlotId,
}

/// How often a block's facts may grow before what still grows along a back edge is
/// widened (each end that moves goes to its type's end).
const WIDEN_AFTER: u32 = 2;
/// How often a block's facts may grow before what still grows is widened, whatever the
/// edge (a bound on the work for nested loops, whose inner head grows with the outer).
const WIDEN_ANYWHERE_AFTER: u32 = 16;

struct Analysis<'f> {
    f: &'f Function,
    /// Each slot's type range (`None`: a type the pass does not follow).
    types: Vec<Option<Range>>,
    /// For each natural loop's header: the loop's blocks, and which slots a block of the
    /// loop writes.
    loops: Vec<Option<(BTreeSet<BlockId>, Vec<bool>)>>,
    /// For each natural loop's header: its counters ([`Counters`]).
    counters: Vec<Counters>,
}

/// The slots a loop counts with: each written in the loop only by one `x = x + 1` that
/// runs at most once an iteration (its block is in no inner loop); `steps` are those whose
/// increment also runs on every iteration that comes back to the header (its block
/// dominates every jump back). Between two visits of the header a step grows by exactly
/// one and a count by at most one, so a count has grown since the loop was entered by at
/// most what a step has: `c <= c0 + (k - k0)`, which bounds a tally (`count = count + 1`
/// in a `loop while k <= n`) by the loop's bound.
#[derive(Clone, Default)]
struct Counters {
    counts: Vec<SlotId>,
    steps: Vec<SlotId>,
}

/// The slots `block` adds one to: `t = add x, one` (or `nowrap_add`), then later in the
/// block `x = copy t` (or `move`), neither `x` nor `t` written between; `one` is a
/// slot every write of which is the constant 1.
fn increments(block: &crate::program::Block, ones: &[bool]) -> Vec<SlotId> {
    let mut found = Vec::new();
    for (at, inst) in block.insts.iter().enumerate() {
        let (InstKind::Copy { dst: x, src: t } | InstKind::Move { dst: x, src: t }) = inst.kind
        else {
            continue;
        };
        for earlier in block.insts[..at].iter().rev() {
            let mut hits = false;
            earlier.kind.for_each_written(|w| hits |= w == x || w == t);
            if !hits {
                continue;
            }
            if let InstKind::Binary {
                dst,
                op: BinaryOp::Add | BinaryOp::NoWrapAdd,
                lhs,
                rhs,
            } = earlier.kind
            {
                if dst == t && lhs == x && x != t && ones[rhs.index()] {
                    found.push(x);
                }
            }
            break;
        }
    }
    found
}

/// The counters of the loop `header` heads, with blocks `body` ([`Counters`]).
fn loop_counters(
    f: &Function,
    idom: &[Option<BlockId>],
    loops: &BTreeMap<BlockId, BTreeSet<BlockId>>,
    header: BlockId,
    body: &BTreeSet<BlockId>,
    ones: &[bool],
) -> Counters {
    // Blocks of an inner loop may run more than once an iteration.
    let inner = |b: BlockId| {
        loops
            .iter()
            .any(|(h, other)| *h != header && body.contains(h) && other.contains(&b))
    };
    let latches: Vec<BlockId> = body
        .iter()
        .copied()
        .filter(|b| f.blocks[b.index()].term.successors().contains(&header))
        .collect();
    let dominates = |d: BlockId, b: BlockId| crate::lowering::dominates(idom, d, b);
    // How often each slot is written in the loop, and where it is incremented.
    let mut writes = vec![0usize; f.slots.len()];
    let mut incremented: BTreeMap<SlotId, Vec<BlockId>> = BTreeMap::new();
    for &b in body {
        let block = &f.blocks[b.index()];
        for inst in &block.insts {
            inst.kind.for_each_written(|s| writes[s.index()] += 1);
        }
        for x in increments(block, ones) {
            incremented.entry(x).or_default().push(b);
        }
    }
    let mut counters = Counters::default();
    for (x, blocks) in incremented {
        let [b] = blocks[..] else {
            continue;
        };
        if writes[x.index()] != 1 || inner(b) || !f.slot_type(x).is_integer() {
            continue;
        }
        counters.counts.push(x);
        if latches.iter().all(|&l| dominates(b, l)) {
            counters.steps.push(x);
        }
    }
    counters
}

impl<'f> Analysis<'f> {
    fn new(f: &'f Function) -> Analysis<'f> {
        let types = f.slots.iter().map(|s| type_range(&s.ty)).collect();
        let mut loops = vec![None; f.blocks.len()];
        let mut counters = vec![Counters::default(); f.blocks.len()];
        let idom = f.immediate_dominators();
        let natural = f.natural_loops(&idom);
        // The slots that hold 1 wherever they are read: every write is the constant 1.
        let mut ones = vec![None::<bool>; f.slots.len()];
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let one = matches!(
                inst.kind,
                InstKind::Const {
                    value: ConstValue::Int(1),
                    ..
                }
            );
            inst.kind.for_each_written(|s| {
                let o = &mut ones[s.index()];
                *o = Some(o.unwrap_or(true) && one);
            });
        }
        let ones: Vec<bool> = ones.into_iter().map(|o| o == Some(true)).collect();
        // Counting iterations needs every cycle to pass a header: with a jump back to a
        // block that does not dominate where it comes from, none is counted.
        let reducible = depth_first(f)
            .back
            .iter()
            .all(|&(from, to)| crate::lowering::dominates(&idom, to, from));
        for (header, body) in &natural {
            let mut writes = vec![false; f.slots.len()];
            for b in body {
                for inst in &f.blocks[b.index()].insts {
                    inst.kind.for_each_written(|s| writes[s.index()] = true);
                }
            }
            if reducible {
                counters[header.index()] = loop_counters(f, &idom, &natural, *header, body, &ones);
            }
            loops[header.index()] = Some((body.clone(), writes));
        }
        Analysis {
            f,
            types,
            loops,
            counters,
        }
    }

    /// Bounds each count of the loop `header` heads by a step ([`Counters`]): in
    /// `facts` at the header, given what the edges into the loop bring, `entered`.
    fn bound_counts(&self, header: BlockId, facts: &mut Facts, entered: &Facts) {
        let c = &self.counters[header.index()];
        for &count in &c.counts {
            for &step in c.steps.iter().filter(|&&k| k != count) {
                let (Some(c0), Some(k0), Some(k)) = (
                    self.range(entered, count),
                    self.range(entered, step),
                    self.range(facts, step),
                ) else {
                    continue;
                };
                let grown = Range::of(c0.lo, c0.hi + (k.hi - k0.lo).max(0));
                if let Some(r) = self.range(facts, count).and_then(|r| r.meet(grown)) {
                    self.set(facts, count, Some(r));
                }
            }
        }
    }

    /// Whether `from -> to` goes back to the header `to` from inside its loop.
    fn in_loop(&self, from: BlockId, to: BlockId) -> bool {
        self.loops[to.index()]
            .as_ref()
            .is_some_and(|(body, _)| body.contains(&from))
    }

    /// What a jump back to `header` from inside its loop brings, `incoming`, made to say
    /// of each slot no block of the loop writes what `entered` (the facts the edges
    /// from outside the loop bring) says: such a slot holds at the header what it held
    /// when the loop was entered. (Otherwise a bound found for an outer loop's counter
    /// after widening would never reach an inner loop, whose back edge keeps bringing
    /// the widened interval round.)
    fn keep_invariant(&self, header: BlockId, incoming: &mut Facts, entered: &Facts) {
        let Some((_, writes)) = &self.loops[header.index()] else {
            return;
        };
        incoming.retain(|s, _| writes[*s]);
        incoming.extend(entered.iter().filter(|(s, _)| !writes[**s]));
    }

    /// The interval of slot `s` (its type's when nothing more is known).
    fn range(&self, facts: &Facts, s: SlotId) -> Option<Range> {
        facts.get(&s.index()).copied().or(self.types[s.index()])
    }

    /// Records `r` for `s`, kept only when it says more than the slot's type.
    fn set(&self, facts: &mut Facts, s: SlotId, r: Option<Range>) {
        let ty = self.types[s.index()];
        match (r, ty) {
            (Some(r), Some(ty)) => match r.meet(ty).filter(|r| *r != ty) {
                Some(r) => facts.insert(s.index(), r),
                None => facts.remove(&s.index()),
            },
            _ => facts.remove(&s.index()),
        };
    }

    /// The facts after one instruction, and the comparison a branch at the end of the
    /// block may test. `rewrite` is given each checked instruction proven not to fail.
    fn step(
        &self,
        facts: &mut Facts,
        tested: &mut Option<Tested>,
        kind: &InstKind,
        mut proven: impl FnMut(),
    ) {
        use InstKind as K;
        let mut written = Vec::new();
        kind.for_each_written(|s| written.push(s));
        if let Some(t) = *tested {
            if written.iter().any(|s| [t.cond, t.lhs, t.rhs].contains(s)) {
                *tested = None;
            }
        }
        let value = match kind {
            K::Const { dst, value } => {
                let v = match value {
                    ConstValue::Bool(b) => Some(*b as i128),
                    ConstValue::Int(v) => Some(*v),
                    _ => None,
                };
                Some((*dst, v.map(|v| Range::of(v, v))))
            }
            K::Copy { dst, src } | K::Move { dst, src } => {
                Some((*dst, facts.get(&src.index()).copied()))
            }
            K::Binary { dst, op, lhs, rhs } => {
                let exact = match (self.range(facts, *lhs), self.range(facts, *rhs)) {
                    (Some(a), Some(b)) => arith(*op, a, b),
                    _ => None,
                };
                let ty = self.types[dst.index()];
                let fits = matches!((exact, ty), (Some(r), Some(ty)) if r.within(ty));
                if fits && op.no_wrap().is_some() && self.f.slot_type(*lhs).is_integer() {
                    proven();
                }
                // A checked result is in range when it is written at all, a `nowrap` one
                // always; a wrapping one that may wrap could be anywhere.
                let known = fits || op.no_wrap().is_some() || op.checked_form().is_some();
                Some((*dst, exact.filter(|_| known)))
            }
            K::Compare { dst, op, lhs, rhs } => {
                *tested = Some(Tested {
                    cond: *dst,
                    op: *op,
                    lhs: *lhs,
                    rhs: *rhs,
                });
                Some((*dst, None))
            }
            // A `bool` made an integer (`ir::ifconv`) is 0 or 1.
            K::Cast { dst, src, .. } if *self.f.slot_type(*src) == IrType::Bool => {
                Some((*dst, Some(Range::of(0, 1))))
            }
            K::Cast { dst, src, checked } => {
                let from = self.range(facts, *src);
                let to = self.types[dst.index()];
                let fits = matches!((from, to), (Some(r), Some(to)) if r.within(to));
                if fits && *checked && self.f.slot_type(*src).is_integer() {
                    proven();
                }
                let integers =
                    self.f.slot_type(*src).is_integer() && self.f.slot_type(*dst).is_integer();
                Some((*dst, from.filter(|_| integers && (fits || *checked))))
            }
            K::ListLen { dst, list } => Some((*dst, Some(Range::of(0, self.max_len(*list))))),
            _ => None,
        };
        for s in &written {
            facts.remove(&s.index());
        }
        if let Some((dst, r)) = value {
            self.set(facts, dst, r);
        }
        // Past an element access (its failure leaves by the abandon edge) the index was
        // below the list's length. What the access wrote, it no longer bounds.
        if let K::ListGet { list, index, .. } | K::ListSet { list, index, .. } = kind {
            if !written.contains(index) {
                let below = Range::of(0, self.max_len(*list) - 1);
                if let Some(r) = self.range(facts, *index).and_then(|r| r.meet(below)) {
                    self.set(facts, *index, Some(r));
                }
            }
        }
    }

    /// The most elements list slot `list` can hold ([`max_list_len`]); for a string, bytes.
    fn max_len(&self, list: SlotId) -> i128 {
        match self.f.slot_type(list).indexed_element() {
            Some(elem) => max_list_len(elem),
            None => u64::MAX as i128,
        }
    }

    /// The facts on each edge out of a block that ends with `term`, given the facts at
    /// its end: `(target, facts)` for each edge that can be taken.
    fn edges(
        &self,
        term: &Terminator,
        facts: &Facts,
        tested: Option<Tested>,
    ) -> Vec<(BlockId, Facts)> {
        match term {
            Terminator::Jump(b) => vec![(*b, facts.clone())],
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                let known = facts.get(&cond.index()).copied();
                let mut out = Vec::new();
                for (taken, target) in [(true, *then_block), (false, *else_block)] {
                    if known.is_some_and(|r| r.lo == r.hi && (r.lo != 0) != taken) {
                        continue;
                    }
                    let mut edge = facts.clone();
                    edge.insert(cond.index(), Range::of(taken as i128, taken as i128));
                    let feasible = match tested {
                        Some(t) if t.cond == *cond => self.narrow(&mut edge, t, taken),
                        _ => true,
                    };
                    if feasible {
                        out.push((target, edge));
                    }
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// Narrows the operands of `t` by its outcome; `false` when the outcome cannot be.
    fn narrow(&self, facts: &mut Facts, t: Tested, outcome: bool) -> bool {
        let (a, b) = (t.lhs, t.rhs);
        if a == b || !self.f.slot_type(a).is_integer() {
            return true;
        }
        let (Some(ra), Some(rb)) = (self.range(facts, a), self.range(facts, b)) else {
            return true;
        };
        use CompareOp::*;
        // `a op b` as it holds on this edge.
        let op = match (t.op, outcome) {
            (op, true) => op,
            (Lt, false) => Ge,
            (Le, false) => Gt,
            (Gt, false) => Le,
            (Ge, false) => Lt,
            (Eq, false) => Ne,
            (Ne, false) => Eq,
        };
        let unbounded = |lo: i128, hi: i128| Range::of(lo, hi);
        let (na, nb) = match op {
            Lt => (
                unbounded(i128::MIN, rb.hi - 1),
                unbounded(ra.lo + 1, i128::MAX),
            ),
            Le => (unbounded(i128::MIN, rb.hi), unbounded(ra.lo, i128::MAX)),
            Gt => (
                unbounded(rb.lo + 1, i128::MAX),
                unbounded(i128::MIN, ra.hi - 1),
            ),
            Ge => (unbounded(rb.lo, i128::MAX), unbounded(i128::MIN, ra.hi)),
            Eq => (rb, ra),
            Ne => {
                // Only a single value excluded at an end of the other's interval narrows.
                let cut = |r: Range, v: Range| match (v.lo == v.hi, v.lo) {
                    (true, x) if x == r.lo => Range::of(r.lo + 1, r.hi),
                    (true, x) if x == r.hi => Range::of(r.lo, r.hi - 1),
                    _ => r,
                };
                (cut(ra, rb), cut(rb, ra))
            }
        };
        let (Some(ra), Some(rb)) = (ra.meet(na), rb.meet(nb)) else {
            return false;
        };
        self.set(facts, a, Some(ra));
        self.set(facts, b, Some(rb));
        true
    }

    /// What slot `s` widens to when its interval grew from `old` to `new`: each end
    /// that moved goes to its type's end, so an interval can grow only so often.
    fn widen(&self, s: usize, new: Range, old: Option<&Range>) -> Option<Range> {
        let (Some(old), Some(ty)) = (old, self.types[s]) else {
            return Some(new);
        };
        let lo = if new.lo < old.lo { ty.lo } else { new.lo };
        let hi = if new.hi > old.hi { ty.hi } else { new.hi };
        Some(Range::of(lo, hi)).filter(|r| *r != ty)
    }

    /// The edges out of block `b` with the facts on each, from `facts` at its start.
    fn out_edges(&self, b: BlockId, mut facts: Facts) -> Vec<(BlockId, Facts)> {
        let block = &self.f.blocks[b.index()];
        let mut tested = None;
        let mut edges = Vec::new();
        for inst in &block.insts {
            // An abandon edge leaves with nothing known: abandon paths only drop.
            if let Some(a) = inst.abandon {
                edges.push((a, Facts::new()));
            }
            self.step(&mut facts, &mut tested, &inst.kind, || {});
        }
        edges.extend(self.edges(&block.term, &facts, tested));
        edges
    }

    /// The facts at the start of every block (`None`: no path reaches it): a worklist in
    /// reverse postorder (a loop settles before what follows it is visited), widening
    /// where a back edge makes a loop's head grow, then [`NARROW_PASSES`] passes that recompute every block from its
    /// predecessors alone, which takes back what widening lost where a later test
    /// bounds it again.
    fn solve(&self) -> Vec<Option<Facts>> {
        let f = self.f;
        let n = f.blocks.len();
        let walk = depth_first(f);
        let entry = Some(Facts::new());
        let mut at: Vec<Option<Facts>> = vec![None; n];
        at[f.entry.index()] = entry.clone();
        let mut grown = vec![0u32; n];
        let mut work = std::collections::BTreeSet::from([walk.order[f.entry.index()]]);
        while let Some(next) = work.pop_first() {
            let b = walk.rpo[next];
            let facts = at[b.index()].clone().expect("a queued block is reached");
            for (target, incoming) in self.out_edges(b, facts) {
                let t = target.index();
                let back = walk.back.binary_search(&(b, target)).is_ok();
                let joined = match &at[t] {
                    None => incoming,
                    Some(old) => {
                        let mut incoming = incoming;
                        if back && self.in_loop(b, target) {
                            self.keep_invariant(target, &mut incoming, old);
                        }
                        let mut joined = join(old, &incoming);
                        if joined == *old {
                            continue;
                        }
                        // Widened where a loop comes back to its head and its facts
                        // keep growing (every cycle takes a back edge, so the analysis
                        // ends); anywhere, should facts keep growing much longer.
                        grown[t] += 1;
                        if (back && grown[t] > WIDEN_AFTER) || grown[t] > WIDEN_ANYWHERE_AFTER {
                            joined = joined
                                .into_iter()
                                .filter_map(|(s, j)| Some((s, self.widen(s, j, old.get(&s))?)))
                                .collect();
                        }
                        joined
                    }
                };
                at[t] = Some(joined);
                work.insert(walk.order[t]);
            }
        }
        // Each narrowing pass visits the blocks in reverse postorder and starts each from
        // what its predecessors give it in this same pass, so a bound found at a loop's
        // head reaches every block nested in it at once. An edge that goes back in that
        // order (a loop's) brings the facts of the pass before.
        let late = |from: BlockId, to: BlockId| walk.order[from.index()] >= walk.order[to.index()];
        for _ in 0..NARROW_PASSES {
            let mut next: Vec<Option<Facts>> = vec![None; n];
            next[f.entry.index()] = entry.clone();
            let add = |next: &mut Vec<Option<Facts>>, target: BlockId, incoming: Facts| {
                let t = &mut next[target.index()];
                *t = Some(match t.take() {
                    None => incoming,
                    Some(old) => join(&old, &incoming),
                });
            };
            // What jumps back to a header from inside its loop brings, before the edges
            // from outside are known.
            let mut back: Vec<Option<Facts>> = vec![None; n];
            for &b in &walk.rpo {
                let Some(facts) = at[b.index()].clone() else {
                    continue;
                };
                for (target, incoming) in self.out_edges(b, facts) {
                    if late(b, target) {
                        let into = if self.in_loop(b, target) {
                            &mut back
                        } else {
                            &mut next
                        };
                        add(into, target, incoming);
                    }
                }
            }
            for &b in &walk.rpo {
                if let (Some(entered), Some(mut again)) = (&next[b.index()], back[b.index()].take())
                {
                    self.keep_invariant(b, &mut again, entered);
                    let mut facts = join(entered, &again);
                    self.bound_counts(b, &mut facts, entered);
                    next[b.index()] = Some(facts);
                }
                let Some(facts) = next[b.index()].clone() else {
                    continue;
                };
                for (target, incoming) in self.out_edges(b, facts) {
                    if !late(b, target) {
                        add(&mut next, target, incoming);
                    }
                }
            }
            at = next;
        }
        at
    }
}

/// What holds after either of two points: each slot's intervals' hull.
fn join(a: &Facts, b: &Facts) -> Facts {
    a.iter()
        .filter_map(|(s, a)| Some((*s, a.hull(*b.get(s)?))))
        .collect()
}

/// How many times the facts are recomputed from the widened ones.
const NARROW_PASSES: usize = 2;

/// A depth-first walk of a function's blocks from its entry.
struct Walk {
    /// The reached blocks in reverse postorder.
    rpo: Vec<BlockId>,
    /// Each block's place in `rpo` (`usize::MAX` for a block not reached).
    order: Vec<usize>,
    /// The back edges `(from, to)`, sorted: every cycle takes one.
    back: Vec<(BlockId, BlockId)>,
}

fn depth_first(f: &Function) -> Walk {
    let n = f.blocks.len();
    let mut back = Vec::new();
    let mut post = Vec::with_capacity(n);
    // 0: not seen, 1: on the walk's path, 2: done.
    let mut state = vec![0u8; n];
    // Each block's successors, last to first, so a loop's body (a branch's `then`) comes
    // before its exit in reverse postorder: listed once per block, not at each step of
    // the walk (a block of 10^4 fallible instructions has 10^4 abandon edges).
    let successors: Vec<Vec<BlockId>> = f
        .blocks
        .iter()
        .map(|block| {
            let mut succs: Vec<BlockId> = block.insts.iter().filter_map(|i| i.abandon).collect();
            succs.extend(block.term.successors());
            succs.reverse();
            succs
        })
        .collect();
    let mut stack = vec![(f.entry, 0usize)];
    state[f.entry.index()] = 1;
    while let Some((b, next)) = stack.pop() {
        if let Some(&s) = successors[b.index()].get(next) {
            stack.push((b, next + 1));
            match state[s.index()] {
                0 => {
                    state[s.index()] = 1;
                    stack.push((s, 0));
                }
                1 => back.push((b, s)),
                _ => {}
            }
        } else {
            state[b.index()] = 2;
            post.push(b);
        }
    }
    post.reverse();
    let mut order = vec![usize::MAX; n];
    for (i, b) in post.iter().enumerate() {
        order[b.index()] = i;
    }
    back.sort_unstable();
    back.dedup();
    Walk {
        rpo: post,
        order,
        back,
    }
}

/// Removes the checks of every function of `program` that can never fire.
pub fn remove_impossible_checks(program: &mut Program) {
    rewrite_functions(program, remove_in_function);
}

/// Whether any check of `f` was removed.
fn remove_in_function(f: &mut Function) -> bool {
    // (block, instruction) of each check proven never to fire.
    let mut proven = Vec::new();
    {
        let analysis = Analysis::new(f);
        let at = analysis.solve();
        for (b, facts) in at.into_iter().enumerate() {
            let Some(mut facts) = facts else { continue };
            let mut tested = None;
            for (i, inst) in f.blocks[b].insts.iter().enumerate() {
                analysis.step(&mut facts, &mut tested, &inst.kind, || proven.push((b, i)));
            }
        }
    }
    for &(b, i) in &proven {
        let inst = &mut f.blocks[b].insts[i];
        match &mut inst.kind {
            InstKind::Binary { op, .. } => *op = op.no_wrap().expect("a checked operation"),
            InstKind::Cast { checked, .. } => *checked = false,
            _ => unreachable!("only arithmetic and conversions are proven"),
        }
        inst.abandon = None;
    }
    !proven.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FunctionBuilder, ProgramBuilder};
    use crate::program::FuncId;

    /// The function being built, and `g` to call.
    struct Fb<'a> {
        fb: &'a mut FunctionBuilder<'a>,
        g: FuncId,
    }

    impl<'a> std::ops::Deref for Fb<'a> {
        type Target = FunctionBuilder<'a>;
        fn deref(&self) -> &FunctionBuilder<'a> {
            self.fb
        }
    }

    impl std::ops::DerefMut for Fb<'_> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            self.fb
        }
    }

    impl Fb<'_> {
        /// Branches on `c`: where it is `returns`, to a block that returns `n`; the other
        /// way, to a new block, where building goes on.
        fn return_where(&mut self, c: SlotId, returns: bool, n: SlotId) {
            let (ret, go_on) = (self.new_block(), self.new_block());
            if returns {
                self.branch(c, ret, go_on);
            } else {
                self.branch(c, go_on, ret);
            }
            self.switch_to(ret);
            self.terminate(Terminator::Return(Some(n)));
            self.switch_to(go_on);
        }
    }
    use crate::types::ParamMode;
    use crate::verify::verify_program;

    /// A function `f(in n: i64): i64` built by `body`, which is given `n` and the
    /// abandon block; the pass is run and the program verified. Returns the names of
    /// the arithmetic instructions left, in block order (`add`, `nowrap_add`, ...).
    /// A function `g(mut x: i64)` that sets `x` to `MIN` is there to be called.
    fn arithmetic_after(body: impl FnOnce(&mut Fb<'_>, SlotId, BlockId)) -> Vec<String> {
        let mut pb = ProgramBuilder::new();
        let params = vec![("n".to_string(), ParamMode::In, IrType::I64)];
        let f = pb.declare_function("f", vec![], params, IrType::I64);
        let main = pb.declare_function("main", vec![], vec![], IrType::Unit);
        let mut_x = vec![("x".to_string(), ParamMode::Mut, IrType::I64)];
        let g = pb.declare_function("g", vec![], mut_x, IrType::Unit);
        pb.set_entry(main);
        let mut fb = pb.function(main);
        fb.terminate(Terminator::Return(None));
        let mut fb = pb.function(g);
        let x = fb.param(0);
        let min = i64::MIN as i128;
        fb.inst(
            InstKind::Const {
                dst: x,
                value: ConstValue::Int(min),
            },
            None,
        );
        fb.terminate(Terminator::Return(None));
        let mut fb = pb.function(f);
        let n = fb.param(0);
        let abandon = fb.abandon_block(&[]);
        body(&mut Fb { fb: &mut fb, g }, n, abandon);
        let mut program = pb.finish();
        verify_program(&program).expect("the program verifies before");
        remove_impossible_checks(&mut program);
        verify_program(&program).expect("the program verifies after");
        arithmetic_of(&program.functions[0])
    }

    /// The names of `f`'s arithmetic instructions, in block order.
    fn arithmetic_of(f: &Function) -> Vec<String> {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match &i.kind {
                InstKind::Binary { op, .. } => Some(op.name().to_string()),
                _ => None,
            })
            .collect()
    }

    /// `if n < k { ret n } ret n - 1` (with `cmp` for `<`).
    fn below_then_decrement(cmp: CompareOp, k: i128) -> Vec<String> {
        arithmetic_after(|fb, n, abandon| {
            let k = fb.int(IrType::I64, k);
            let c = fb.compare(cmp, n, k);
            fb.return_where(c, true, n);
            let one = fb.int(IrType::I64, 1);
            let d = fb.binary(BinaryOp::Sub, n, one, Some(abandon));
            fb.terminate(Terminator::Return(Some(d)));
        })
    }

    #[test]
    fn a_subtraction_a_branch_bounds_becomes_plain() {
        // Past `n < 2`, `n >= 2`: `n - 1` cannot overflow.
        assert_eq!(below_then_decrement(CompareOp::Lt, 2), ["nowrap_sub"]);
        // Past `n < MIN + 1`, `n >= MIN + 1`: still cannot.
        let min = i64::MIN as i128;
        assert_eq!(below_then_decrement(CompareOp::Lt, min + 1), ["nowrap_sub"]);
        // Past `n < MIN`, which is never true, `n` may be MIN: the check stays.
        assert_eq!(below_then_decrement(CompareOp::Lt, min), ["sub"]);
        // Past `n == 5`, `n` may be anything else: the check stays.
        assert_eq!(below_then_decrement(CompareOp::Eq, 5), ["sub"]);
    }

    /// `var c = c0  var i = start  loop while i cmp n  (set c = c + 1, `times` times)
    /// set i = i + 1  end loop  ret i` (`ret c` when `times` is not 0).
    fn counting_loop_with(cmp: CompareOp, start: i128, c0: i128, times: usize) -> Vec<String> {
        arithmetic_after(|fb, n, abandon| {
            let c = fb.int(IrType::I64, c0);
            let i = fb.int(IrType::I64, start);
            let each = fb.while_loop(cmp, i, n);
            let one = fb.int(IrType::I64, 1);
            for _ in 0..times {
                let more = fb.binary(BinaryOp::Add, c, one, Some(abandon));
                fb.copy(c, more);
            }
            let next = fb.binary(BinaryOp::Add, i, one, Some(abandon));
            fb.copy(i, next);
            fb.end_loop(each);
            let result = if times == 0 { i } else { c };
            fb.terminate(Terminator::Return(Some(result)));
        })
    }

    /// `var i = start; loop while i cmp n { set i = i + 1 }; ret i`.
    fn counting_loop(cmp: CompareOp, start: i128) -> Vec<String> {
        counting_loop_with(cmp, start, 0, 0)
    }

    /// [`counting_loop_with`] `i < n` from 1, adding to `c` from `c0`.
    fn tally(c0: i128, times: usize) -> Vec<String> {
        counting_loop_with(CompareOp::Lt, 1, c0, times)
    }

    #[test]
    fn a_loop_counter_below_its_bound_increments_unchecked() {
        assert_eq!(counting_loop(CompareOp::Lt, 0), ["nowrap_add"]);
        // `i <= n` holds for `n == MAX`, where `i + 1` overflows: the check stays.
        assert_eq!(counting_loop(CompareOp::Le, 0), ["add"]);
        // `i != n` bounds nothing (`n` may be below the start).
        assert_eq!(counting_loop(CompareOp::Ne, 0), ["add"]);
    }

    #[test]
    fn a_tally_is_bounded_by_the_loop_counter() {
        // `c` grows by one an iteration, as `i` does from 1 to at most MAX: `c` stays
        // below MAX - 1 at the head, so `c + 1` fits.
        assert_eq!(tally(0, 1), ["nowrap_add", "nowrap_add"]);
        // From 1, `c` may reach MAX: the check stays.
        assert_eq!(tally(1, 1), ["add", "nowrap_add"]);
        // Twice an iteration is not a count.
        assert_eq!(tally(0, 2), ["add", "add", "nowrap_add"]);
    }

    #[test]
    fn what_a_call_may_change_is_known_no_more() {
        let ops = arithmetic_after(|fb, n, abandon| {
            let m = fb.new_slot(IrType::I64);
            fb.copy(m, n);
            let zero = fb.int(IrType::I64, 0);
            let c = fb.compare(CompareOp::Gt, m, zero);
            fb.return_where(c, false, n);
            // `m > 0` held; a call with `m` as `mut` argument may leave it anything.
            let one = fb.int(IrType::I64, 1);
            let kept = fb.binary(BinaryOp::Sub, m, one, Some(abandon));
            let g = fb.g;
            fb.call(None, g, vec![], &[(ParamMode::Mut, m)], abandon);
            let d = fb.binary(BinaryOp::Sub, m, one, Some(abandon));
            let sum = fb.binary(BinaryOp::Add, kept, d, Some(abandon));
            fb.terminate(Terminator::Return(Some(sum)));
        });
        assert_eq!(ops, ["nowrap_sub", "sub", "add"]);
    }

    #[test]
    fn a_branch_on_a_known_bool_takes_one_side() {
        // `c = false; if c { x = n } else { x = 1 }; ret x + 1`: only the else side runs.
        let ops = arithmetic_after(|fb, n, abandon| {
            let x = fb.new_slot(IrType::I64);
            let c = fb.constant(IrType::Bool, ConstValue::Bool(false));
            fb.if_else(
                c,
                |fb| fb.copy(x, n),
                |fb| fb.set_const(x, ConstValue::Int(1)),
            );
            let one = fb.int(IrType::I64, 1);
            let d = fb.binary(BinaryOp::Add, x, one, Some(abandon));
            fb.terminate(Terminator::Return(Some(d)));
        });
        assert_eq!(ops, ["nowrap_add"]);
    }

    #[test]
    fn a_result_that_may_wrap_bounds_nothing() {
        // `w = n +% 1` may be anything: `w + 1` stays checked.
        let ops = arithmetic_after(|fb, n, abandon| {
            let one = fb.int(IrType::I64, 1);
            let w = fb.binary(BinaryOp::WrappingAdd, n, one, None);
            let d = fb.binary(BinaryOp::Add, w, one, Some(abandon));
            fb.terminate(Terminator::Return(Some(d)));
        });
        assert_eq!(ops, ["wrapping_add", "add"]);
    }

    /// `fill(mut xs: [u8], n: index)` (`crate::bounds::fill`: `loop while i < n  set
    /// xs[i] = 0  (body)  i = i + 1`) through the pass: the arithmetic of its blocks.
    fn fill_arithmetic(body: crate::bounds::fill::Part<'_>) -> Vec<String> {
        let mut pb = ProgramBuilder::new();
        let fill = crate::bounds::fill::declare_fill(
            &mut pb,
            CompareOp::Lt,
            false,
            body,
            crate::bounds::fill::nothing(),
        );
        let mut program = pb.finish();
        remove_impossible_checks(&mut program);
        crate::verify::verify_function(&program, &program.functions[fill.index()])
            .expect("verifies");
        arithmetic_of(&program.functions[fill.index()])
    }

    #[test]
    fn an_index_past_its_access_is_below_what_a_list_can_hold() {
        // After `xs[i]`, `i < len(xs) <= isize::MAX`: `i + i` fits an index.
        let ops = fill_arithmetic(Box::new(|fb, _, _, i, abandon| {
            fb.binary(BinaryOp::Add, i, i, Some(abandon));
        }));
        assert_eq!(ops, ["nowrap_add", "nowrap_add"]);
    }

    #[test]
    fn a_quotient_is_bounded_by_its_dividend_and_divisor() {
        // `i * i` may overflow, but once it has not, half of it plus `i` fits.
        let ops = fill_arithmetic(Box::new(|fb, _, _, i, abandon| {
            let square = fb.binary(BinaryOp::Mul, i, i, Some(abandon));
            let two = fb.int(IrType::Index, 2);
            let half = fb.binary(BinaryOp::Div, square, two, Some(abandon));
            fb.binary(BinaryOp::Add, half, i, Some(abandon));
        }));
        assert_eq!(ops, ["mul", "div", "nowrap_add", "nowrap_add"]);
    }

    #[test]
    fn an_outer_counter_reaches_an_inner_loop_with_its_bound() {
        // `loop while i < n  (loop while j < n  set xs[j] = 0  j + i  j = j + 1)  set
        // xs[i] = 0  i = i + 1`: the outer `i` is bounded by `xs[i]` only after the inner
        // loop and after widening; the inner loop, which does not write it, must still
        // see that bound at its head: `j + i` fits.
        let mut pb = ProgramBuilder::new();
        let list = IrType::List(Box::new(IrType::U8));
        let params = vec![
            ("xs".into(), ParamMode::Mut, list),
            ("n".into(), ParamMode::In, IrType::Index),
        ];
        let h = pb.declare_function("h", vec![], params, IrType::Unit);
        let mut fb = pb.function(h);
        let (xs, n) = (fb.param(0), fb.param(1));
        let abandon = fb.abandon_block(&[]);
        let one = fb.int(IrType::Index, 1);
        let zero = fb.int(IrType::U8, 0);
        let set = |fb: &mut FunctionBuilder<'_>, index: SlotId| {
            let kind = InstKind::ListSet {
                list: xs,
                index,
                value: zero,
                checked: true,
            };
            fb.inst(kind, Some(abandon));
        };
        let step = |fb: &mut FunctionBuilder<'_>, x: SlotId| {
            let next = fb.binary(BinaryOp::Add, x, one, Some(abandon));
            fb.inst(InstKind::Move { dst: x, src: next }, None);
        };
        let i = fb.int(IrType::Index, 0);
        let outer = fb.while_loop(CompareOp::Lt, i, n);
        let j = fb.int(IrType::Index, 0);
        let inner = fb.while_loop(CompareOp::Lt, j, n);
        set(&mut fb, j);
        fb.binary(BinaryOp::Add, j, i, Some(abandon));
        step(&mut fb, j);
        fb.end_loop(inner);
        set(&mut fb, i);
        step(&mut fb, i);
        fb.end_loop(outer);
        fb.terminate(Terminator::Return(None));
        let mut program = pb.finish();
        remove_impossible_checks(&mut program);
        let f = &program.functions[h.index()];
        crate::verify::verify_function(&program, f).expect("verifies");
        let sum = f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .find_map(|inst| match &inst.kind {
                InstKind::Binary { op, lhs, rhs, .. } if (*lhs, *rhs) == (j, i) => Some(*op),
                _ => None,
            });
        assert_eq!(sum, Some(BinaryOp::NoWrapAdd));
    }
}
