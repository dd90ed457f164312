//! List accesses proved in bounds: an IR pass every compiled backend gains from (the
//! front end runs it last, [`crate::passes`]).
//!
//! Every `xs[j]` of the language is checked: an index past the end is an error at a
//! location. In a loop such as `loop while j <= n ... set flags[j] = false` the test of
//! the loop bounds `j` already; what it does not say is that `n` is less than the list's
//! length. The pass proves what it can and asks the rest once, before the loop:
//!
//! - **Order facts.** A forward data-flow analysis keeps, at each point of a function,
//!   facts `a < b` and `a <= b` between `index` slots, from the comparison a branch tests
//!   (on each edge, the comparison or its negation), from copies (`a = copy b` is
//!   `a <= b` and `b <= a`) and from `list_len` (which slot holds which list's length). A
//!   write to a slot forgets what was known of it; a list that may change length (grown,
//!   moved, dropped, passed other than `ref`) forgets its length. At a meet only the
//!   facts of every incoming edge stay; an abandon edge brings none.
//! - **In place.** An access `xs[j]` where the facts chain `j` to a slot holding
//!   `len(xs)` with at least one strict step is in bounds: its `checked` flag is cleared.
//! - **Versioned loops.** In an innermost loop, an access where the facts chain `j` to a
//!   slot `b` the loop never writes (`j < b` or `j <= b`), of a list the loop never
//!   changes the length of, is in bounds whenever `b <= len(xs)` (or `b < len(xs)`) holds
//!   as the loop starts. The loop is copied with those accesses unchecked, and each edge
//!   into it from outside goes first through guard blocks that test exactly that, once
//!   per entry: the copy runs when every guard holds, the original loop (every check in
//!   place) otherwise. The program computes the same values and fails at the same places:
//!   the copy runs only where its accesses cannot fail. Only where no loop around it
//!   writes `b` or changes the list's length either: a loop entered with a new bound each
//!   time (fannkuch's flips) is most often short, and its guard would cost about what the
//!   copy saves (the interpreter, which tests every index anyway, would pay it for
//!   nothing). `b < len` stands for `b <= len` where both are asked.
//!
//! A cleared `checked` keeps the instruction's abandon block (a backend that tests anyway
//! behaves the same); the Cranelift and C backends leave the test out where they read or
//! write the element inline.

use std::collections::{BTreeMap, BTreeSet};

use crate::inline::renumber_edges;
use crate::program::{
    BinaryOp, Block, BlockId, CompareOp, ConstValue, Function, Inst, InstKind, Program, Slot,
    SlotId, Terminator,
};
use crate::types::{IrType, ParamMode};

/// The largest loop, in instructions, that is copied to leave its checks out.
const MAX_VERSIONED_INSTS: usize = 160;

/// Runs the pass on every function of `program`.
pub fn remove_proven_bounds_checks(program: &mut Program) {
    for f in &mut program.functions {
        bound_function(f);
    }
}

/// What is known at one point of a function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Facts {
    /// `(a, b, strict)`: `a < b` when strict, else `a <= b`; `index` slots only.
    order: BTreeSet<(SlotId, SlotId, bool)>,
    /// A slot holding a list's length -> that list.
    len_of: BTreeMap<SlotId, SlotId>,
    /// A bool slot holding a comparison -> the comparison, none of its slots written since.
    tested: BTreeMap<SlotId, (CompareOp, SlotId, SlotId)>,
    /// An `index` slot holding a constant -> the constant.
    consts: BTreeMap<SlotId, i128>,
}

impl Facts {
    fn meet(&self, other: &Facts) -> Facts {
        Facts {
            order: self.order.intersection(&other.order).copied().collect(),
            len_of: same_entries(&self.len_of, &other.len_of),
            tested: same_entries(&self.tested, &other.tested),
            consts: same_entries(&self.consts, &other.consts),
        }
    }

    /// Forgets every fact that names `s` (as a value or as a list whose length is known).
    fn forget(&mut self, s: SlotId) {
        self.order.retain(|&(a, b, _)| a != s && b != s);
        self.len_of.retain(|&len, &mut list| len != s && list != s);
        self.tested
            .retain(|&c, &mut (_, l, r)| c != s && l != s && r != s);
        self.consts.remove(&s);
    }

    /// The facts after `kind` runs.
    fn step(&mut self, f: &Function, kind: &InstKind) {
        let mut written = Vec::new();
        kind.for_each_written(|s| written.push(s));
        for s in written {
            // Setting an element changes neither the list's length nor any index.
            if !matches!(kind, InstKind::ListSet { list, .. } if *list == s) {
                self.forget(s);
            }
        }
        for s in crate::verify::inst_slots(kind) {
            // A list, or a string whose bytes are read as one.
            let lengthy = f.slot_type(s).indexed_element().is_some();
            if lengthy && !keeps_length(kind, s) {
                self.forget(s);
            }
        }
        if let InstKind::Move { src: s, .. } | InstKind::Drop { slot: s } = kind {
            self.forget(*s);
        }
        match *kind {
            InstKind::Copy { dst, src } if dst != src && is_index(f, dst) && is_index(f, src) => {
                self.order.insert((dst, src, false));
                self.order.insert((src, dst, false));
                self.close();
                if let Some(&list) = self.len_of.get(&src) {
                    self.len_of.insert(dst, list);
                }
            }
            InstKind::Compare { dst, op, lhs, rhs }
                if dst != lhs && dst != rhs && is_index(f, lhs) && is_index(f, rhs) =>
            {
                self.tested.insert(dst, (op, lhs, rhs));
            }
            InstKind::ListLen { dst, list } if dst != list => {
                self.len_of.insert(dst, list);
            }
            InstKind::Const {
                dst,
                value: ConstValue::Int(v),
            } if is_index(f, dst) => {
                self.consts.insert(dst, v);
            }
            // `d = a + 1` (exact on the path that goes on): `a < d`, and `d <= b` for
            // every `b` above `a` (`xs[i + 1]` in a loop `while i < n`).
            InstKind::Binary {
                dst,
                op: BinaryOp::Add | BinaryOp::NoWrapAdd,
                lhs,
                rhs,
            } if dst != lhs && dst != rhs && is_index(f, dst) => {
                let one = |s: SlotId| self.consts.get(&s) == Some(&1);
                let a = if one(rhs) {
                    lhs
                } else if one(lhs) {
                    rhs
                } else {
                    return;
                };
                let above: Vec<SlotId> = self
                    .order
                    .range((a, SlotId(0), true)..=(a, SlotId(u32::MAX), true))
                    .filter(|&&(_, _, strict)| strict)
                    .map(|&(_, b, _)| b)
                    .collect();
                self.order.insert((a, dst, true));
                for b in above {
                    self.order.insert((dst, b, false));
                }
                self.close();
            }
            _ => {}
        }
    }

    /// Adds every fact the order facts imply (`a <= b` and `b < c` make `a < c`), so
    /// that a meet keeps what both sides imply, however each came by it.
    fn close(&mut self) {
        loop {
            let mut implied = Vec::new();
            for &(a, b, s1) in &self.order {
                for &(_, c, s2) in self
                    .order
                    .range((b, SlotId(0), false)..=(b, SlotId(u32::MAX), true))
                {
                    if a != c && !self.order.contains(&(a, c, s1 || s2)) {
                        implied.push((a, c, s1 || s2));
                    }
                }
            }
            if implied.is_empty() {
                return;
            }
            self.order.extend(implied);
        }
    }

    /// The facts on the edge a branch on `cond` takes when `cond` is `holds`.
    fn on_edge(&self, cond: SlotId, holds: bool) -> Facts {
        let mut facts = self.clone();
        let Some(&(op, l, r)) = self.tested.get(&cond) else {
            return facts;
        };
        let mut add = |a, b, strict| {
            facts.order.insert((a, b, strict));
        };
        match (op, holds) {
            (CompareOp::Lt, true) | (CompareOp::Ge, false) => add(l, r, true),
            (CompareOp::Le, true) | (CompareOp::Gt, false) => add(l, r, false),
            (CompareOp::Gt, true) | (CompareOp::Le, false) => add(r, l, true),
            (CompareOp::Ge, true) | (CompareOp::Lt, false) => add(r, l, false),
            (CompareOp::Eq, true) | (CompareOp::Ne, false) => {
                add(l, r, false);
                add(r, l, false);
            }
            (CompareOp::Eq, false) | (CompareOp::Ne, true) => {}
        }
        facts.close();
        facts
    }

    /// Every slot `j` is known to be below or at, with whether some step is strict
    /// (`j < b`): the closure of the order facts from `j`.
    fn bounds_of(&self, j: SlotId) -> Vec<(SlotId, bool)> {
        let mut seen = BTreeSet::new();
        let mut work = vec![(j, false)];
        let mut found = Vec::new();
        while let Some((a, strict)) = work.pop() {
            if !seen.insert((a, strict)) {
                continue;
            }
            if a != j || strict {
                found.push((a, strict));
            }
            for &(_, b, s) in self
                .order
                .range((a, SlotId(0), false)..=(a, SlotId(u32::MAX), true))
            {
                work.push((b, strict || s));
            }
        }
        found
    }
}

/// The entries `a` and `b` both have.
fn same_entries<V: Copy + PartialEq>(
    a: &BTreeMap<SlotId, V>,
    b: &BTreeMap<SlotId, V>,
) -> BTreeMap<SlotId, V> {
    a.iter()
        .filter(|(k, v)| b.get(k) == Some(v))
        .map(|(k, v)| (*k, *v))
        .collect()
}

fn is_index(f: &Function, s: SlotId) -> bool {
    matches!(f.slot_type(s), IrType::Index)
}

/// Whether `kind`, which names the list `s`, leaves its length as it was (and `s`
/// initialized): an element read or set, its length read, a clone or print of it, or a
/// call that only borrows it (`ref`).
fn keeps_length(kind: &InstKind, s: SlotId) -> bool {
    match kind {
        InstKind::ListGet {
            list, index, dst, ..
        } => *list == s && *index != s && *dst != s,
        InstKind::ListSet {
            list, index, value, ..
        } => *list == s && *index != s && *value != s,
        InstKind::ListLen { list, dst } => *list == s && *dst != s,
        InstKind::Clone { src, dst } => *src == s && *dst != s,
        InstKind::Debuglog { src } => *src == s,
        InstKind::Call { dst, args, .. } | InstKind::CallNative { dst, args, .. } => {
            *dst != Some(s) && args.iter().all(|a| a.slot != s || a.mode == ParamMode::Ref)
        }
        _ => false,
    }
}

/// The facts at the start of each block (`None`: not reached).
fn facts_at_starts(f: &Function) -> Vec<Option<Facts>> {
    let n = f.blocks.len();
    let mut at: Vec<Option<Facts>> = vec![None; n];
    at[f.entry.index()] = Some(Facts::default());
    let merge = |at: &mut Vec<Option<Facts>>, to: BlockId, facts: Facts| -> bool {
        let slot = &mut at[to.index()];
        let met = match slot {
            None => facts,
            Some(old) => old.meet(&facts),
        };
        if slot.as_ref() == Some(&met) {
            return false;
        }
        *slot = Some(met);
        true
    };
    let mut changed = true;
    while changed {
        changed = false;
        for bi in 0..n {
            let Some(mut facts) = at[bi].clone() else {
                continue;
            };
            let block = &f.blocks[bi];
            for inst in &block.insts {
                if let Some(a) = inst.abandon {
                    changed |= merge(&mut at, a, Facts::default());
                }
                facts.step(f, &inst.kind);
            }
            match &block.term {
                Terminator::Jump(t) => changed |= merge(&mut at, *t, facts),
                Terminator::Branch {
                    cond,
                    then_block,
                    else_block,
                } => {
                    changed |= merge(&mut at, *then_block, facts.on_edge(*cond, true));
                    changed |= merge(&mut at, *else_block, facts.on_edge(*cond, false));
                }
                _ => {}
            }
        }
    }
    at
}

/// A natural loop: its header and its blocks (the header included), and the blocks of
/// every loop it stands in.
struct Loop {
    header: BlockId,
    body: BTreeSet<BlockId>,
    enclosing: Vec<BTreeSet<BlockId>>,
}

/// The innermost natural loops of `f` (no other loop's header inside).
fn innermost_loops(f: &Function) -> Vec<Loop> {
    let loops = f.natural_loops(&f.immediate_dominators());
    let headers: BTreeSet<BlockId> = loops.keys().copied().collect();
    loops
        .iter()
        .filter(|(h, body)| body.iter().all(|b| b == *h || !headers.contains(b)))
        .map(|(&header, body)| Loop {
            header,
            body: body.clone(),
            enclosing: loops
                .iter()
                .filter(|(&h, outer)| h != header && outer.contains(&header))
                .map(|(_, outer)| outer.clone())
                .collect(),
        })
        .collect()
}

/// What makes a versioned loop's copy safe: `bound < len(list)` (`strict` false: the
/// index is at most `bound`) or `bound <= len(list)` (`strict`: the index is below it).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Guard {
    list: SlotId,
    bound: SlotId,
    strict: bool,
}

/// What one loop's copy needs: the guards before it, and the accesses (block, position)
/// it leaves unchecked.
#[derive(Default)]
struct Version {
    guards: BTreeSet<Guard>,
    accesses: Vec<(BlockId, usize)>,
}

fn bound_function(f: &mut Function) {
    let accesses_any = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| checked_access(&i.kind).is_some());
    if !accesses_any {
        return;
    }
    let starts = facts_at_starts(f);
    let loops = innermost_loops(f);
    let loop_of = |b: BlockId| loops.iter().position(|l| l.body.contains(&b));
    let mut versions: Vec<Version> = loops.iter().map(|_| Version::default()).collect();
    let mut in_place = Vec::new();
    for (bi, start) in starts.iter().enumerate() {
        let Some(mut facts) = start.clone() else {
            continue;
        };
        let b = BlockId(bi as u32);
        for (ii, inst) in f.blocks[bi].insts.iter().enumerate() {
            if let Some((list, index)) = checked_access(&inst.kind) {
                let bounds = facts.bounds_of(index);
                let proved = bounds
                    .iter()
                    .any(|&(x, strict)| strict && facts.len_of.get(&x) == Some(&list));
                if proved {
                    in_place.push((b, ii));
                } else if let Some(l) = loop_of(b) {
                    // The bound and the length must be the same on every entry of the
                    // loop (a loop entered with a new bound each time, as an inner loop
                    // whose bound its outer loop computes, is most often short: the
                    // guard would cost as much as it saves, and the interpreter, which
                    // tests anyway, pays it for nothing).
                    let guard = bounds
                        .iter()
                        .filter(|&&(x, _)| {
                            let lp = &loops[l];
                            std::iter::once(&lp.body).chain(&lp.enclosing).all(|body| {
                                loop_invariant(f, body, x) && length_invariant(f, body, list)
                            })
                        })
                        .max_by_key(|&&(_, strict)| strict)
                        .map(|&(bound, strict)| Guard {
                            list,
                            bound,
                            strict,
                        });
                    if let Some(g) = guard {
                        versions[l].guards.insert(g);
                        versions[l].accesses.push((b, ii));
                    }
                }
            }
            facts.step(f, &inst.kind);
        }
    }
    for (b, ii) in in_place {
        clear_checked(&mut f.blocks[b.index()].insts[ii].kind);
    }
    for (l, mut v) in loops.iter().zip(versions) {
        // `b < len` makes `b <= len` hold too: one test where both were asked for.
        let implied: Vec<Guard> = v
            .guards
            .iter()
            .filter(|g| {
                g.strict
                    && v.guards.contains(&Guard {
                        strict: false,
                        ..**g
                    })
            })
            .copied()
            .collect();
        for g in implied {
            v.guards.remove(&g);
        }
        let size: usize = l.body.iter().map(|b| f.blocks[b.index()].insts.len()).sum();
        if v.guards.is_empty() || size > MAX_VERSIONED_INSTS || !versionable(f, l) {
            continue;
        }
        version_loop(f, l, &v.guards, &v.accesses);
    }
}

/// The list and index of a list access that still tests its index.
fn checked_access(kind: &InstKind) -> Option<(SlotId, SlotId)> {
    match *kind {
        InstKind::ListGet {
            list,
            index,
            checked: true,
            ..
        }
        | InstKind::ListSet {
            list,
            index,
            checked: true,
            ..
        } => Some((list, index)),
        _ => None,
    }
}

fn clear_checked(kind: &mut InstKind) {
    if let InstKind::ListGet { checked, .. } | InstKind::ListSet { checked, .. } = kind {
        *checked = false;
    }
}

/// Whether no instruction of the loop `body` writes `s`.
fn loop_invariant(f: &Function, body: &BTreeSet<BlockId>, s: SlotId) -> bool {
    body.iter().all(|b| {
        f.blocks[b.index()].insts.iter().all(|inst| {
            let mut written = false;
            inst.kind.for_each_written(|w| written |= w == s);
            let moved = matches!(inst.kind, InstKind::Move { src, .. } if src == s);
            !written && !moved
        })
    })
}

/// Whether every instruction of the loop `body` that names the list `s` keeps its length.
fn length_invariant(f: &Function, body: &BTreeSet<BlockId>, s: SlotId) -> bool {
    body.iter().all(|b| {
        f.blocks[b.index()].insts.iter().all(|inst| {
            !crate::verify::inst_slots(&inst.kind).contains(&s) || keeps_length(&inst.kind, s)
        })
    })
}

/// Whether the loop can be entered through guard blocks: not at the function's entry,
/// and no abandon edge from outside into its header.
fn versionable(f: &Function, l: &Loop) -> bool {
    l.header != f.entry
        && f.blocks.iter().enumerate().all(|(bi, block)| {
            l.body.contains(&BlockId(bi as u32))
                || block.insts.iter().all(|i| i.abandon != Some(l.header))
        })
}

/// Copies the loop `l` with `accesses` unchecked, and sends every edge into it from
/// outside through one guard block per guard: the copy when all hold, the loop as it was
/// otherwise.
fn version_loop(
    f: &mut Function,
    l: &Loop,
    guards: &BTreeSet<Guard>,
    accesses: &[(BlockId, usize)],
) {
    let first_copy = f.blocks.len() as u32;
    let copy_of: BTreeMap<BlockId, BlockId> = l
        .body
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, BlockId(first_copy + k as u32)))
        .collect();
    let into_copy = |b: BlockId| copy_of.get(&b).copied().unwrap_or(b);
    let originals: Vec<BlockId> = l.body.iter().copied().collect();
    let mut preds_outside = Vec::new();
    for (bi, block) in f.blocks.iter().enumerate() {
        if !l.body.contains(&BlockId(bi as u32)) && block.term.successors().contains(&l.header) {
            preds_outside.push(bi);
        }
    }
    for &b in &originals {
        let mut block = f.blocks[b.index()].clone();
        for (ii, inst) in block.insts.iter_mut().enumerate() {
            if accesses.contains(&(b, ii)) {
                clear_checked(&mut inst.kind);
            }
        }
        renumber_edges(&mut block, into_copy);
        f.blocks.push(block);
    }
    // The guards, last first: each goes on to the next when it holds.
    let mut next = into_copy(l.header);
    for g in guards.iter().rev() {
        let len = new_slot(f, IrType::Index);
        let holds = new_slot(f, IrType::Bool);
        let op = if g.strict {
            CompareOp::Le
        } else {
            CompareOp::Lt
        };
        let block = Block {
            insts: vec![
                plain(InstKind::ListLen {
                    dst: len,
                    list: g.list,
                }),
                plain(InstKind::Compare {
                    dst: holds,
                    op,
                    lhs: g.bound,
                    rhs: len,
                }),
            ],
            term: Terminator::Branch {
                cond: holds,
                then_block: next,
                else_block: l.header,
            },
        };
        next = BlockId(f.blocks.len() as u32);
        f.blocks.push(block);
    }
    let entry_guard = next;
    let header = l.header;
    for bi in preds_outside {
        renumber_edges(
            &mut f.blocks[bi],
            |b| if b == header { entry_guard } else { b },
        );
    }
}

fn plain(kind: InstKind) -> Inst {
    Inst {
        kind,
        abandon: None,
        loc: None,
    }
}

fn new_slot(f: &mut Function, ty: IrType) -> SlotId {
    f.slots.push(Slot { name: None, ty });
    SlotId(f.slots.len() as u32 - 1)
}

/// A function the tests of this pass and of `lowering` build.
#[cfg(test)]
pub(crate) mod fill {
    use super::*;
    use crate::builder::{FunctionBuilder, ProgramBuilder};
    use crate::program::{BinaryOp, ConstValue, FuncId};

    /// What a test adds to `fill`: the builder, `xs`, `n`, `i` and the abandon block.
    pub(crate) type Part<'a> =
        Box<dyn FnOnce(&mut FunctionBuilder<'_>, SlotId, SlotId, SlotId, BlockId) + 'a>;

    /// Declares `fill(mut xs: [u8], n: index)` in `pb`: `loop while i OP bound  set
    /// xs[i] = 0  (body)  i = i + 1  end loop  (after)`, the bound `n` or, with
    /// `len_bound`, `len(xs)` read before the loop.
    pub(crate) fn declare_fill(
        pb: &mut ProgramBuilder,
        op: CompareOp,
        len_bound: bool,
        body: Part<'_>,
        after: Part<'_>,
    ) -> FuncId {
        let list = IrType::List(Box::new(IrType::U8));
        let fill = pb.declare_function(
            "fill",
            vec![],
            vec![
                ("xs".into(), ParamMode::Mut, list),
                ("n".into(), ParamMode::In, IrType::Index),
            ],
            IrType::Unit,
        );
        let mut fb = pb.function(fill);
        let (xs, n) = (fb.param(0), fb.param(1));
        let bound = if len_bound {
            let len = fb.new_slot(IrType::Index);
            fb.inst(InstKind::ListLen { dst: len, list: xs }, None);
            len
        } else {
            n
        };
        let i = fb.int(IrType::Index, 0);
        let one = fb.int(IrType::Index, 1);
        let zero = fb.constant(IrType::U8, ConstValue::Int(0));
        let abandon = fb.abandon_block(&[]);
        let each = fb.while_loop(op, i, bound);
        fb.inst(
            InstKind::ListSet {
                list: xs,
                index: i,
                value: zero,
                checked: true,
            },
            Some(abandon),
        );
        body(&mut fb, xs, n, i, abandon);
        let next = fb.binary(BinaryOp::Add, i, one, Some(abandon));
        fb.inst(InstKind::Move { dst: i, src: next }, None);
        fb.end_loop(each);
        after(&mut fb, xs, n, i, abandon);
        fb.terminate(Terminator::Return(None));
        pb.set_entry(fill);
        fill
    }

    /// Nothing more.
    pub(crate) fn nothing<'a>() -> Part<'a> {
        Box::new(|_, _, _, _, _| {})
    }
}

#[cfg(test)]
mod tests {
    use super::fill::{declare_fill, nothing, Part};
    use super::*;
    use crate::builder::ProgramBuilder;
    use crate::program::{BinaryOp, ConstValue, FuncId};

    /// `fill` with `body` in its loop, through the pass: the program, `fill` and how
    /// many blocks it had before. The result verifies.
    fn bound(op: CompareOp, len_bound: bool, body: Part<'_>) -> (Program, FuncId, usize) {
        let mut pb = ProgramBuilder::new();
        let fill = declare_fill(&mut pb, op, len_bound, body, nothing());
        let mut program = pb.finish();
        let blocks = program.functions[fill.index()].blocks.len();
        remove_proven_bounds_checks(&mut program);
        crate::verify::verify_function(&program, &program.functions[fill.index()])
            .expect("verifies");
        (program, fill, blocks)
    }

    /// Each list access of `f`: its block and whether it is still checked.
    fn accesses(f: &Function) -> Vec<(usize, bool)> {
        f.blocks
            .iter()
            .enumerate()
            .flat_map(|(b, block)| {
                block.insts.iter().filter_map(move |inst| match inst.kind {
                    InstKind::ListGet { checked, .. } | InstKind::ListSet { checked, .. } => {
                        Some((b, checked))
                    }
                    _ => None,
                })
            })
            .collect()
    }

    #[test]
    fn an_index_tested_below_the_length_is_unchecked_in_place() {
        let (program, fill, blocks) = bound(CompareOp::Lt, true, nothing());
        let f = &program.functions[fill.index()];
        assert_eq!(f.blocks.len(), blocks, "nothing copied");
        assert!(accesses(f).iter().all(|&(_, checked)| !checked));
    }

    #[test]
    fn a_loop_bounded_by_a_parameter_runs_unchecked_behind_a_guard() {
        let (program, fill, blocks) = bound(CompareOp::Le, false, nothing());
        let f = &program.functions[fill.index()];
        // The original access checked, its copy unchecked.
        let found = accesses(f);
        assert_eq!(found.len(), 2, "{}", crate::print::print_program(&program));
        assert!(found[0].1 && found[0].0 < blocks);
        assert!(!found[1].1 && found[1].0 >= blocks);
        // One guard, `n < len(xs)` (the index is at most n): the copy when it holds,
        // the loop as it was otherwise; every edge from outside goes through it.
        let guard = f.blocks.last().expect("a guard");
        let (n, xs) = (f.params[1].slot, f.params[0].slot);
        assert!(matches!(guard.insts[0].kind, InstKind::ListLen { list, .. } if list == xs));
        assert!(matches!(
            guard.insts[1].kind,
            InstKind::Compare { op: CompareOp::Lt, lhs, .. } if lhs == n
        ));
        let Terminator::Branch {
            then_block,
            else_block,
            ..
        } = guard.term
        else {
            panic!("the guard branches");
        };
        assert!(then_block.index() >= blocks && else_block.index() < blocks);
        let guard_id = BlockId(f.blocks.len() as u32 - 1);
        let into_header = f
            .blocks
            .iter()
            .filter(|b| b.term.successors().contains(&guard_id))
            .count();
        assert_eq!(into_header, 1);
    }

    #[test]
    fn the_next_index_is_guarded_by_a_bound_below_the_length() {
        // `loop while i < n  set xs[i] = 0  let y = xs[i + 1]`: `i + 1 <= n`, so the
        // copy needs `n < len(xs)` (which makes the `n <= len(xs)` of `xs[i]` hold).
        let next: Part<'_> = Box::new(|fb, xs, _n, i, abandon| {
            let one = fb.int(IrType::Index, 1);
            let k = fb.binary(BinaryOp::Add, i, one, Some(abandon));
            let y = fb.new_slot(IrType::U8);
            fb.inst(
                InstKind::ListGet {
                    dst: y,
                    list: xs,
                    index: k,
                    checked: true,
                    view: false,
                },
                Some(abandon),
            );
        });
        let (program, fill, _) = bound(CompareOp::Lt, false, next);
        let f = &program.functions[fill.index()];
        let unchecked = accesses(f).iter().filter(|&&(_, c)| !c).count();
        assert_eq!(unchecked, 2, "{}", crate::print::print_program(&program));
        let ops: Vec<CompareOp> = f
            .blocks
            .iter()
            .filter(|b| {
                matches!(
                    b.insts.first(),
                    Some(Inst {
                        kind: InstKind::ListLen { .. },
                        ..
                    })
                )
            })
            .filter_map(|b| match b.insts[1].kind {
                InstKind::Compare { op, .. } => Some(op),
                _ => None,
            })
            .collect();
        // `n < len(xs)` alone: it makes `n <= len(xs)` hold too.
        assert_eq!(ops, [CompareOp::Lt]);
    }

    #[test]
    fn a_list_that_grows_or_a_bound_that_moves_keeps_every_check() {
        let grows = || -> Part<'static> {
            Box::new(|fb, xs, _n, _i, _| {
                let v = fb.constant(IrType::U8, ConstValue::Int(1));
                fb.inst(InstKind::ListPush { list: xs, value: v }, None);
            })
        };
        let moves: Part<'_> = Box::new(|fb, _xs, n, _i, abandon| {
            let one = fb.int(IrType::Index, 1);
            let m = fb.binary(BinaryOp::Sub, n, one, Some(abandon));
            fb.copy(n, m);
        });
        for (program, fill, before) in [
            bound(CompareOp::Lt, true, grows()),
            bound(CompareOp::Lt, false, grows()),
            bound(CompareOp::Lt, false, moves),
        ] {
            let f = &program.functions[fill.index()];
            assert_eq!(f.blocks.len(), before);
            assert!(accesses(f).iter().all(|&(_, checked)| checked));
        }
    }
}
