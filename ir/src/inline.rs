//! Inlining of small functions, an IR pass every backend gains from (the front end runs
//! it on every program it lowers, so the interpreter, the Cranelift backends and the C
//! backend run the same IR).
//!
//! A function is inlined at its calls when it is small ([`INLINE_MAX_INSTS`]), not
//! generic, takes scalar `in` parameters (and `ref` ones whose length and scalar
//! elements are all it reads: `strings.len`, `strings.byte_at`, or a part of which it
//! returns: `strings.slice`), returns a scalar (or that part), and
//! computes only with scalars (constants, copies, arithmetic, comparisons, casts,
//! lengths, element reads) and calls of program functions: no natives,
//! no values that own memory. Its body is copied into the caller: the arguments are
//! copied into fresh slots for its `in` parameters (a `ref` parameter is the caller's
//! argument itself, which the body only reads), each `return`
//! becomes a copy into the call's destination and a jump to the rest of the caller's
//! block, and each `abandon` a jump to a block that adds the call's site to the error's
//! chain (`called_from`, as the call returning abandoning would have) and goes on to the
//! call's abandon block. So a failure inside (overflow, division by zero, an invalid
//! cast, a call refused) raises the same error with the same chain of calls and runs the
//! same drops as the call did.
//!
//! Two kinds of rounds ([`Inlining`]): first the leaves (no calls), into every function,
//! again while that leaves a caller with no calls (a new leaf); then, once, the functions
//! that make calls, with their leaves already in place, at the calls the program wrote
//! (not at the calls that round copies in, so a recursive function is unrolled once, not
//! forever).
//!
//! A third round ([`inline_base_cases`]) partly inlines the calls left of a function
//! with a *base case* (its entry tests its parameters, and one side returns a value
//! computed from them: `if n < 2 ret n end if`): the caller makes the test, and calls
//! only when the base case does not hold. This is the part of `fib` that gcc inlines
//! too (its `ipa-split`); half of `fib`'s calls are base cases. Those calls go to a copy of the
//! function that, once the range pass has run, starts past the test
//! ([`start_past_base_cases`]): the callee does not make again the test its caller made.
//!
//! The call-depth limit (`docs/abi.md`, section 12) sees what the program wrote, except
//! for a leaf: an inlined leaf is no call and is not counted. A base case taken in
//! place of a call keeps that call's test (`check_depth` of the call's depth). A function that makes calls
//! keeps the test its call would have made (`check_depth`, where the call stood), and
//! each call copied in with it takes one more depth (`call ... depth N`), so every call
//! that runs is refused at the same depth as without inlining.

use crate::program::{
    Block, BlockId, FuncId, Function, Inst, InstKind, Program, SlotId, Terminator,
};
use crate::types::ParamMode;

/// The largest function inlined, in instructions.
pub const INLINE_MAX_INSTS: usize = 32;

/// Which round of [`inline_small_functions`] inlines a function's calls, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inlining {
    /// Not inlined: too large, generic, or it handles values that own memory or calls
    /// natives.
    Never,
    /// A small function of scalars that makes no call.
    Leaf,
    /// A small function of scalars that calls program functions.
    WithCalls,
}

/// How calls of `f` are inlined.
pub fn inlining(f: &Function) -> Inlining {
    use InstKind as K;
    let by_ref = |s: SlotId| {
        f.params
            .iter()
            .any(|p| p.slot == s && p.mode == ParamMode::Ref)
    };
    // The slots the body names: a slot it does not (a `ref` parameter of a function
    // inlined into it, which became the argument) may be of any type.
    let mut mentioned = vec![false; f.slots.len()];
    for p in &f.params {
        mentioned[p.slot.index()] = true;
    }
    for s in f.blocks.iter().flat_map(Block::named_slots) {
        mentioned[s.index()] = true;
    }
    let cut = cut_strings(f);
    let returns_cut = f.blocks.iter().all(|b| match b.term {
        Terminator::Return(Some(r)) => cut[r.index()],
        _ => true,
    });
    let small = !f.is_generic()
        && (f.result.is_scalar() || (f.result == crate::types::IrType::String && returns_cut))
        && f.params.iter().all(|p| {
            p.mode == ParamMode::In
                || (p.mode == ParamMode::Ref && !f.slot_type(p.slot).mentions_param())
        })
        && f.slots.iter().enumerate().all(|(i, s)| {
            let slot = SlotId(i as u32);
            s.ty.is_scalar() || by_ref(slot) || !mentioned[i] || cut[i]
        })
        && f.blocks.iter().map(|b| b.insts.len()).sum::<usize>() <= INLINE_MAX_INSTS;
    if !small {
        return Inlining::Never;
    }
    let mut calls = false;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let mut reads_ref = false;
        inst.kind.for_each_read(|s| reads_ref |= by_ref(s));
        match inst.kind {
            // A `ref` parameter is read only for its length or a scalar element (every
            // slot of the body but `ref` parameters is a scalar, so the list is one).
            K::ListLen { .. } | K::ListGet { .. } => {}
            // A part of a `ref` string the body returns ([`cut_strings`]).
            K::StrSlice { view: false, .. } => {}
            _ if reads_ref => return Inlining::Never,
            ref k if computes(k) => {}
            K::Move { .. } | K::Clone { .. } | K::Drop { .. } | K::CalledFrom => {}
            K::Call { .. } | K::CheckDepth { .. } => calls = true,
            _ => return Inlining::Never,
        }
    }
    if calls {
        Inlining::WithCalls
    } else {
        Inlining::Leaf
    }
}

/// The slots of `f` that hold a part of a string (`str_slice`, not a view) and that
/// nothing but that one instruction and `return`s names: the one kind of owned value an
/// inlined body may make, handed to the call's destination (`strings.slice`, a wrapper
/// of the `std` native the front end computes as a `str_slice`).
fn cut_strings(f: &Function) -> Vec<bool> {
    let mut named = vec![0u32; f.slots.len()];
    let mut cut = vec![false; f.slots.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for s in crate::verify::inst_slots(&inst.kind) {
            named[s.index()] += 1;
        }
        if let InstKind::StrSlice {
            dst, view: false, ..
        } = inst.kind
        {
            cut[dst.index()] = true;
        }
    }
    let params: Vec<SlotId> = f.params.iter().map(|p| p.slot).collect();
    for (i, c) in cut.iter_mut().enumerate() {
        *c = *c && named[i] == 1 && !params.contains(&SlotId(i as u32));
    }
    cut
}

/// Whether `kind` only computes a value from others: a constant, a copy, arithmetic, a
/// comparison or a cast (it fails only where it has an abandon block).
fn computes(kind: &InstKind) -> bool {
    use InstKind as K;
    matches!(
        kind,
        K::Const { .. }
            | K::Copy { .. }
            | K::Unary { .. }
            | K::Binary { .. }
            | K::Compare { .. }
            | K::Cast { .. }
    )
}

/// Moves each `check_depth` up its block, before the instructions just above it that
/// only compute a scalar and cannot fail (no abandon block: a constant, a copy,
/// `nowrap_*` arithmetic once [`crate::ranges`] has run, a comparison), unless it writes
/// a parameter or a slot the failure path drops (an `out` parameter it empties). Nothing
/// they do can be seen when the test fails, so the error and its chain of calls are
/// unchanged; the arithmetic then stands next to the
/// test that reads it (`fib`'s `n - 1` and the base case's `n - 1 < 2`), where a backend
/// can take the two as one.
pub fn hoist_depth_checks(program: &mut Program) {
    for f in &mut program.functions {
        for bi in 0..f.blocks.len() {
            for i in 0..f.blocks[bi].insts.len() {
                if !matches!(f.blocks[bi].insts[i].kind, InstKind::CheckDepth { .. }) {
                    continue;
                }
                let Some(abandon) = f.blocks[bi].insts[i].abandon else {
                    continue;
                };
                // What the failure path drops (an `out` parameter it empties, say) must
                // be as initialized as it was.
                let dropped = dropped_from(f, abandon);
                let insts = &f.blocks[bi].insts;
                let to = (0..i)
                    .rev()
                    .take_while(|&j| {
                        quietly_computes(f, &insts[j]).is_some_and(|dst| {
                            !dropped.contains(&dst) && f.param_mode(dst).is_none()
                        })
                    })
                    .last()
                    .unwrap_or(i);
                let check = f.blocks[bi].insts.remove(i);
                f.blocks[bi].insts.insert(to, check);
            }
        }
    }
}

/// The slots that the blocks reachable from `from` drop.
fn dropped_from(f: &Function, from: BlockId) -> std::collections::HashSet<SlotId> {
    let mut seen = vec![false; f.blocks.len()];
    let mut work = vec![from];
    let mut dropped = std::collections::HashSet::new();
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        let block = &f.blocks[b.index()];
        for inst in &block.insts {
            if let InstKind::Drop { slot } = inst.kind {
                dropped.insert(slot);
            }
            work.extend(inst.abandon);
        }
        work.extend(block.term.successors());
    }
    dropped
}

/// The slot `inst` writes, when it only computes a scalar there and cannot fail
/// ([`hoist_depth_checks`]).
fn quietly_computes(f: &Function, inst: &Inst) -> Option<SlotId> {
    if !computes(&inst.kind) || inst.abandon.is_some() || inst.kind.is_fallible(f) {
        return None;
    }
    let mut dst = None;
    inst.kind.for_each_written(|s| dst = Some(s));
    dst.filter(|&d| f.slot_type(d).is_scalar())
}

/// Whether calls of `f` are inlined (in either round).
pub fn inlinable(f: &Function) -> bool {
    inlining(f) != Inlining::Never
}

/// Inlines every call of an [`inlinable`] function in `program`: the leaves first (again
/// while that makes new leaves of their callers), then the functions that make calls.
/// Returns the copies of functions that start past their base case once
/// [`start_past_base_cases`] runs ([`inline_base_cases`]).
pub fn inline_small_functions(program: &mut Program) -> Vec<FuncId> {
    // Each leaf round removes calls and adds none, so the leaf rounds end.
    while inline_round(program, Inlining::Leaf) {}
    inline_round(program, Inlining::WithCalls);
    inline_base_cases(program)
}

/// Inlines the calls of the functions `round` names; whether there was any.
fn inline_round(program: &mut Program, round: Inlining) -> bool {
    let callees: Vec<Option<Function>> = program
        .functions
        .iter()
        .map(|f| (inlining(f) == round).then(|| f.clone()))
        .collect();
    if callees.iter().all(Option::is_none) {
        return false;
    }
    rewrite_functions(program, |f| inline_calls(f, &callees))
}

/// Runs `rewrite` on each function of `program`, then removes the blocks it left
/// unreachable in each function where it says it changed something. Whether any did.
pub(crate) fn rewrite_functions(
    program: &mut Program,
    mut rewrite: impl FnMut(&mut Function) -> bool,
) -> bool {
    let mut any = false;
    for f in &mut program.functions {
        if rewrite(f) {
            remove_unreachable_blocks(f);
            any = true;
        }
    }
    any
}

/// Removes the blocks of `f` nothing reaches from its entry (by jumps, branches or
/// abandon edges), renumbering the others in order: an abandon block only an inlined
/// call used is left behind when the inlined body cannot fail.
pub(crate) fn remove_unreachable_blocks(f: &mut Function) {
    let mut reached = vec![false; f.blocks.len()];
    let mut work = vec![f.entry];
    reached[f.entry.index()] = true;
    while let Some(b) = work.pop() {
        let block = &f.blocks[b.index()];
        let mut next: Vec<BlockId> = block.insts.iter().filter_map(|i| i.abandon).collect();
        match &block.term {
            Terminator::Jump(t) => next.push(*t),
            Terminator::Branch {
                then_block,
                else_block,
                ..
            } => next.extend([*then_block, *else_block]),
            _ => {}
        }
        for t in next {
            if !reached[t.index()] {
                reached[t.index()] = true;
                work.push(t);
            }
        }
    }
    if reached.iter().all(|r| *r) {
        return;
    }
    let mut renumbered = vec![BlockId(0); reached.len()];
    let mut next = 0u32;
    for (i, r) in reached.iter().enumerate() {
        if *r {
            renumbered[i] = BlockId(next);
            next += 1;
        }
    }
    let new_id = |b: BlockId| renumbered[b.index()];
    let blocks = std::mem::take(&mut f.blocks);
    f.blocks = blocks
        .into_iter()
        .zip(&reached)
        .filter(|(_, r)| **r)
        .map(|(mut block, _)| {
            renumber_edges(&mut block, new_id);
            block
        })
        .collect();
    f.entry = new_id(f.entry);
}

/// Renames every block `block` names (its abandon edges and its terminator's targets).
pub(crate) fn renumber_edges(block: &mut Block, new_id: impl Fn(BlockId) -> BlockId) {
    for inst in &mut block.insts {
        inst.abandon = inst.abandon.map(&new_id);
    }
    block.term = match block.term {
        Terminator::Jump(t) => Terminator::Jump(new_id(t)),
        Terminator::Branch {
            cond,
            then_block,
            else_block,
        } => Terminator::Branch {
            cond,
            then_block: new_id(then_block),
            else_block: new_id(else_block),
        },
        ref other => other.clone(),
    };
}

/// Makes `f`'s entry block its first, as every backend starts a function at block 0: the
/// two trade places.
fn put_entry_first(f: &mut Function) {
    let entry = f.entry;
    if entry.index() == 0 {
        return;
    }
    let swap = |b: BlockId| match b {
        b if b == entry => BlockId(0),
        BlockId(0) => entry,
        b => b,
    };
    f.blocks.swap(0, entry.index());
    for block in &mut f.blocks {
        renumber_edges(block, swap);
    }
    f.entry = BlockId(0);
}

/// `kind` with every slot `s` renamed `rename(s)` (the kinds [`inlinable`] admits), a
/// call taking `depth` more call depth (the call it is copied in for).
fn renamed(kind: &InstKind, rename: impl Fn(SlotId) -> SlotId, depth: u32) -> InstKind {
    use InstKind as K;
    let r = &rename;
    match kind.clone() {
        K::Const { dst, value } => K::Const { dst: r(dst), value },
        K::Copy { dst, src } => K::Copy {
            dst: r(dst),
            src: r(src),
        },
        K::Move { dst, src } => K::Move {
            dst: r(dst),
            src: r(src),
        },
        K::Clone { dst, src } => K::Clone {
            dst: r(dst),
            src: r(src),
        },
        K::Drop { slot } => K::Drop { slot: r(slot) },
        K::Unary { dst, op, src } => K::Unary {
            dst: r(dst),
            op,
            src: r(src),
        },
        K::Binary { dst, op, lhs, rhs } => K::Binary {
            dst: r(dst),
            op,
            lhs: r(lhs),
            rhs: r(rhs),
        },
        K::Compare { dst, op, lhs, rhs } => K::Compare {
            dst: r(dst),
            op,
            lhs: r(lhs),
            rhs: r(rhs),
        },
        K::Cast { dst, src, checked } => K::Cast {
            dst: r(dst),
            src: r(src),
            checked,
        },
        K::Call {
            dst,
            func,
            type_args,
            args,
            depth: own,
        } => K::Call {
            dst: dst.map(r),
            func,
            type_args,
            args: args
                .into_iter()
                .map(|a| crate::program::Arg {
                    mode: a.mode,
                    slot: r(a.slot),
                })
                .collect(),
            depth: own + depth,
        },
        K::CheckDepth { depth: own } => K::CheckDepth { depth: own + depth },
        K::CalledFrom => K::CalledFrom,
        K::ListLen { dst, list } => K::ListLen {
            dst: r(dst),
            list: r(list),
        },
        K::ListGet {
            dst,
            list,
            index,
            checked,
            view,
        } => K::ListGet {
            dst: r(dst),
            list: r(list),
            index: r(index),
            checked,
            view,
        },
        K::StrSlice {
            dst,
            string,
            start,
            end,
            view,
        } => K::StrSlice {
            dst: r(dst),
            string: r(string),
            start: r(start),
            end: r(end),
            view,
        },
        other => unreachable!("not admitted for inlining: {other:?}"),
    }
}

/// Inlines the calls of `callees` in `f`; whether there was any.
fn inline_calls(f: &mut Function, callees: &[Option<Function>]) -> bool {
    let mut inlined = false;
    let mut bi = 0;
    while bi < f.blocks.len() {
        // Only the calls the program wrote (depth 1): the calls a body brings in are not
        // inlined again.
        let at = f.blocks[bi].insts.iter().position(|inst| {
            matches!(&inst.kind,
                InstKind::Call { func, depth: 1, .. } if callees[func.index()].is_some())
        });
        let Some(at) = at else {
            bi += 1;
            continue;
        };
        let mut rest = f.blocks[bi].insts.split_off(at);
        let call = rest.remove(0);
        let InstKind::Call {
            dst,
            func,
            args,
            depth,
            ..
        } = call.kind
        else {
            unreachable!("found above")
        };
        let abandon = call.abandon.expect("verified: a call has an abandon block");
        let callee = callees[func.index()].as_ref().expect("inlinable");
        inlined = true;
        // The rest of the block, after the call.
        let cont = BlockId(f.blocks.len() as u32);
        let term = std::mem::replace(&mut f.blocks[bi].term, Terminator::Unterminated);
        f.blocks.push(Block { insts: rest, term });
        let slot_base = f.slots.len() as u32;
        f.slots.extend(callee.slots.iter().cloned());
        let block_base = f.blocks.len() as u32;
        let block = |b: BlockId| BlockId(b.0 + block_base);
        // Where the body's failures go: the call's site joins the chain of calls.
        let landing = BlockId(block_base + callee.blocks.len() as u32);
        if inlining(callee) == Inlining::WithCalls {
            // The test the call would have made before its callee started.
            f.blocks[bi].insts.push(Inst {
                kind: InstKind::CheckDepth { depth },
                abandon: Some(abandon),
                loc: call.loc,
            });
        }
        // A `ref` parameter is the caller's argument itself.
        let mut refs = vec![None; callee.slots.len()];
        for (p, a) in callee.params.iter().zip(&args) {
            if p.mode == ParamMode::Ref {
                refs[p.slot.index()] = Some(a.slot);
            }
        }
        let slot = |s: SlotId| refs[s.index()].unwrap_or(SlotId(s.0 + slot_base));
        for (p, a) in callee.params.iter().zip(&args) {
            if p.mode == ParamMode::Ref {
                continue;
            }
            f.blocks[bi].insts.push(Inst {
                kind: InstKind::Copy {
                    dst: slot(p.slot),
                    src: a.slot,
                },
                abandon: None,
                loc: call.loc,
            });
        }
        f.blocks[bi].term = Terminator::Jump(block(callee.entry));
        for b in &callee.blocks {
            let mut insts: Vec<Inst> = b
                .insts
                .iter()
                .map(|i| Inst {
                    kind: renamed(&i.kind, slot, depth),
                    abandon: i.abandon.map(block),
                    loc: i.loc,
                })
                .collect();
            let term = match &b.term {
                Terminator::Jump(t) => Terminator::Jump(block(*t)),
                Terminator::Branch {
                    cond,
                    then_block,
                    else_block,
                } => Terminator::Branch {
                    cond: slot(*cond),
                    then_block: block(*then_block),
                    else_block: block(*else_block),
                },
                Terminator::Return(result) => {
                    if let (Some(r), Some(d)) = (result, dst) {
                        // A scalar is copied; a string the body cut ([`cut_strings`])
                        // moves to the caller.
                        let (dst, src) = (d, slot(*r));
                        let kind = if callee.slot_type(*r).is_copy() {
                            InstKind::Copy { dst, src }
                        } else {
                            InstKind::Move { dst, src }
                        };
                        insts.push(Inst {
                            kind,
                            abandon: None,
                            loc: call.loc,
                        });
                    }
                    Terminator::Jump(cont)
                }
                Terminator::Abandon => Terminator::Jump(landing),
                Terminator::Unterminated => {
                    unreachable!("verified: `{}` has no unterminated block", callee.name)
                }
            };
            f.blocks.push(Block { insts, term });
        }
        f.blocks.push(Block {
            insts: vec![Inst {
                kind: InstKind::CalledFrom,
                abandon: None,
                loc: call.loc,
            }],
            term: Terminator::Jump(abandon),
        });
        // The instructions before the call hold no inlinable call; the rest of the block
        // is scanned when its turn comes.
        bi += 1;
    }
    inlined
}

/// The most instructions a base case ([`BaseCase`]) has in each of its two blocks.
pub const BASE_CASE_MAX_INSTS: usize = 4;

/// A function's *base case*: its entry block computes a condition from its scalar `in`
/// parameters with instructions that cannot fail, and one side of its branch returns a
/// scalar computed the same way (`if n < 2 ret n end if`). A call of such a function is
/// partly inlined ([`inline_base_cases`]): the caller tests the condition itself and
/// calls only when the base case does not hold.
///
/// Held on its own slots, numbered from 0 (the parameters first, in order), so that a
/// call site gives it fresh slots by adding an offset.
#[derive(Clone, Debug)]
struct BaseCase {
    slots: Vec<crate::program::Slot>,
    /// The entry block's instructions.
    test: Vec<Inst>,
    cond: SlotId,
    /// Whether the base case is the branch's `then` side.
    on_then: bool,
    /// The base block's instructions, and the slot it returns.
    base: Vec<Inst>,
    result: SlotId,
}

/// `f`'s base case, if it has one: on the `then` side of its entry's branch, else on
/// the `else` side.
fn base_case(f: &Function) -> Option<BaseCase> {
    base_case_on(f, true).or_else(|| base_case_on(f, false))
}

/// `f`'s base case on the `then` side of its entry's branch (`on_then`) or the `else`
/// side, if it has one there.
fn base_case_on(f: &Function, on_then: bool) -> Option<BaseCase> {
    let scalars = !f.is_generic()
        && f.result.is_scalar()
        && f.result != crate::types::IrType::Unit
        && f.params
            .iter()
            .all(|p| p.mode == ParamMode::In && f.slot_type(p.slot).is_scalar());
    if !scalars {
        return None;
    }
    let entry = &f.blocks[f.entry.index()];
    let Terminator::Branch {
        cond,
        then_block,
        else_block,
    } = entry.term
    else {
        return None;
    };
    // The base side: its blocks up to a `return`, through jumps (an `end if`).
    let mut at = if on_then { then_block } else { else_block };
    let mut base_insts: Vec<Inst> = Vec::new();
    let mut result = None;
    for _ in 0..BASE_CASE_MAX_INSTS {
        if at == f.entry {
            return None;
        }
        let block = &f.blocks[at.index()];
        base_insts.extend(block.insts.iter().cloned());
        match block.term {
            Terminator::Jump(next) => at = next,
            Terminator::Return(Some(r)) => {
                result = Some(r);
                break;
            }
            _ => return None,
        }
    }
    let result = result?;
    // Its own numbering of the slots it names: the parameters first.
    let mut own: Vec<Option<u32>> = vec![None; f.slots.len()];
    let mut slots = Vec::new();
    for p in &f.params {
        own[p.slot.index()] = Some(slots.len() as u32);
        slots.push(f.slots[p.slot.index()].clone());
    }
    // Instructions that cannot fail, of scalars, each reading only what the parameters
    // or the instructions before it defined.
    let mut take = |insts: &[Inst]| -> Option<Vec<Inst>> {
        if insts.len() > BASE_CASE_MAX_INSTS {
            return None;
        }
        let mut taken = Vec::new();
        for i in insts {
            let mut ok = computes(&i.kind) && i.abandon.is_none();
            i.kind.for_each_read(|s| ok &= own[s.index()].is_some());
            i.kind.for_each_written(|s| {
                ok &= f.slot_type(s).is_scalar();
                if own[s.index()].is_none() {
                    own[s.index()] = Some(slots.len() as u32);
                    slots.push(f.slots[s.index()].clone());
                }
            });
            if !ok {
                return None;
            }
            taken.push(Inst {
                kind: renamed(&i.kind, |s| SlotId(own[s.index()].expect("named")), 0),
                abandon: None,
                loc: i.loc,
            });
        }
        Some(taken)
    };
    let test = take(&entry.insts)?;
    let base_insts = take(&base_insts)?;
    let cond = SlotId(own[cond.index()]?);
    let result = SlotId(own[result.index()]?);
    Some(BaseCase {
        slots,
        test,
        cond,
        on_then,
        base: base_insts,
        result,
    })
}

/// Partly inlines every call of a function with a base case ([`BaseCase`]), in every
/// function: the call becomes the base case's test on the arguments; where it holds,
/// the base case's value, after a `check_depth` of the call's depth (the test the call
/// would have made, so the call-depth limit is reached exactly where it was); where it
/// does not, the call. A recursion's calls of its base case (half the calls of `fib`)
/// are then no calls at all, on every backend. The calls this leaves are not partly
/// inlined again.
///
/// Every call of a function with a base case is then left behind the caller's test of
/// it, so the callee need not test it again: where a copy of the function can start past
/// its test ([`starts_past_base_case`]), those calls go to such a copy, numbered after the
/// functions, and returned. The copy keeps its test for now, so that [`crate::ranges`]
/// still knows what the test proves (`n >= 2`, so `n - 1` cannot overflow), which holds
/// where the copy starts since every call of it made the test;
/// [`start_past_base_cases`] removes the test once that pass has run.
pub fn inline_base_cases(program: &mut Program) -> Vec<FuncId> {
    let cases: Vec<Option<BaseCase>> = program.functions.iter().map(base_case).collect();
    if cases.iter().all(Option::is_none) {
        return Vec::new();
    }
    let mut past: Vec<Option<FuncId>> = vec![None; cases.len()];
    let mut copies = Vec::new();
    for (g, case) in cases.iter().enumerate() {
        if case.is_some() && starts_past_base_case(&program.functions[g]).is_some() {
            let copy = FuncId((cases.len() + copies.len()) as u32);
            past[g] = Some(copy);
            copies.push((g, copy));
        }
    }
    rewrite_functions(program, |f| inline_base_cases_in(f, &cases, &past));
    for &(g, _) in &copies {
        let copy = program.functions[g].clone();
        program.functions.push(copy);
    }
    copies.into_iter().map(|(_, copy)| copy).collect()
}

/// Starts each copy [`inline_base_cases`] made (`copies`) past its base case's test, where
/// it still can ([`starts_past_base_case`]): the test its every caller made is not made
/// again.
pub fn start_past_base_cases(program: &mut Program, copies: &[FuncId]) {
    for &copy in copies {
        let f = &mut program.functions[copy.index()];
        if let Some(rest) = starts_past_base_case(f) {
            f.entry = rest;
            remove_unreachable_blocks(f);
            put_entry_first(f);
        }
    }
}

/// Where a copy of `f` that starts past its base case's test would start: the side of
/// its entry's branch that is not the base case, when nothing else reaches that block,
/// nothing jumps back to the entry, and nothing outside the entry reads what the entry
/// computes (the copy does not compute it).
fn starts_past_base_case(f: &Function) -> Option<BlockId> {
    let case = base_case(f)?;
    let entry = &f.blocks[f.entry.index()];
    let Terminator::Branch {
        then_block,
        else_block,
        ..
    } = entry.term
    else {
        return None;
    };
    let rest = if case.on_then { else_block } else { then_block };
    if rest == f.entry || then_block == else_block {
        return None;
    }
    let mut written = std::collections::HashSet::new();
    for inst in &entry.insts {
        inst.kind.for_each_written(|s| {
            written.insert(s);
        });
    }
    for (bi, block) in f.blocks.iter().enumerate() {
        let mut edges: Vec<BlockId> = block.insts.iter().filter_map(|i| i.abandon).collect();
        edges.extend(block.term.successors());
        if edges.contains(&f.entry) || (bi != f.entry.index() && edges.contains(&rest)) {
            return None;
        }
        if bi == f.entry.index() {
            continue;
        }
        let mut reads = false;
        for inst in &block.insts {
            inst.kind.for_each_read(|s| reads |= written.contains(&s));
        }
        match block.term {
            Terminator::Branch { cond: s, .. } | Terminator::Return(Some(s)) => {
                reads |= written.contains(&s)
            }
            _ => {}
        }
        if reads {
            return None;
        }
    }
    Some(rest)
}

/// Partly inlines the calls in `f` of the functions `cases` gives a base case; whether
/// there was any.
fn inline_base_cases_in(
    f: &mut Function,
    cases: &[Option<BaseCase>],
    past: &[Option<FuncId>],
) -> bool {
    let mut done = false;
    // The blocks that hold a call left in place (not scanned again).
    let mut kept_call = vec![false; f.blocks.len()];
    let mut bi = 0;
    while bi < f.blocks.len() {
        let at = if kept_call[bi] {
            None
        } else {
            f.blocks[bi].insts.iter().position(|inst| {
                matches!(&inst.kind,
                    InstKind::Call { func, .. }
                        if cases.get(func.index()).is_some_and(Option::is_some))
            })
        };
        let Some(at) = at else {
            bi += 1;
            continue;
        };
        done = true;
        let mut rest = f.blocks[bi].insts.split_off(at);
        let call = rest.remove(0);
        let InstKind::Call {
            dst,
            func,
            ref args,
            depth,
            ..
        } = call.kind
        else {
            unreachable!("found above")
        };
        let case = cases[func.index()].as_ref().expect("a base case");
        let offset = f.slots.len() as u32;
        f.slots.extend(case.slots.iter().cloned());
        let slot = |s: SlotId| SlotId(s.0 + offset);
        let copied = |insts: &[Inst]| -> Vec<Inst> {
            insts
                .iter()
                .map(|i| Inst {
                    kind: renamed(&i.kind, slot, 0),
                    abandon: None,
                    loc: i.loc,
                })
                .collect()
        };
        // The arguments into the parameters' slots, then the test.
        for (k, a) in args.iter().enumerate() {
            f.blocks[bi].insts.push(Inst {
                kind: InstKind::Copy {
                    dst: slot(SlotId(k as u32)),
                    src: a.slot,
                },
                abandon: None,
                loc: call.loc,
            });
        }
        let test = copied(&case.test);
        f.blocks[bi].insts.extend(test);
        let mut base = vec![Inst {
            kind: InstKind::CheckDepth { depth },
            abandon: Some(call.abandon.expect("verified: a call has an abandon block")),
            loc: call.loc,
        }];
        base.extend(copied(&case.base));
        if let Some(d) = dst {
            base.push(Inst {
                kind: InstKind::Copy {
                    dst: d,
                    src: slot(case.result),
                },
                abandon: None,
                loc: call.loc,
            });
        }
        let n = f.blocks.len() as u32;
        let (base_block, call_block, cont) = (BlockId(n), BlockId(n + 1), BlockId(n + 2));
        let term = std::mem::replace(
            &mut f.blocks[bi].term,
            Terminator::Branch {
                cond: slot(case.cond),
                then_block: if case.on_then { base_block } else { call_block },
                else_block: if case.on_then { call_block } else { base_block },
            },
        );
        f.blocks.push(Block {
            insts: base,
            term: Terminator::Jump(cont),
        });
        // The call made where the base case does not hold: to the copy that starts past
        // the test, if there is one.
        let mut call = call;
        if let InstKind::Call { func, .. } = &mut call.kind {
            if let Some(copy) = past[func.index()] {
                *func = copy;
            }
        }
        f.blocks.push(Block {
            insts: vec![call],
            term: Terminator::Jump(cont),
        });
        f.blocks.push(Block { insts: rest, term });
        kept_call.extend([false, true, false]);
        bi += 1;
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::ProgramBuilder;
    use crate::program::{Arg, BinaryOp};
    use crate::types::IrType;

    /// Declares `name(in x: i64): i64` and starts its body: the function, its builder,
    /// `x` and the constant 1.
    fn begin_i64_to_i64<'p>(
        pb: &'p mut ProgramBuilder,
        name: &str,
    ) -> (
        crate::program::FuncId,
        crate::builder::FunctionBuilder<'p>,
        SlotId,
        SlotId,
    ) {
        let params = vec![("x".into(), ParamMode::In, IrType::I64)];
        let f = pb.declare_function(name, vec![], params, IrType::I64);
        let mut fb = pb.function(f);
        let x = fb.param(0);
        let one = fb.int(IrType::I64, 1);
        (f, fb, x, one)
    }

    /// Functions `name(ref xs: [i64]): result`, declared.
    fn taking_ref_list<const N: usize>(
        pb: &mut ProgramBuilder,
        functions: [(&str, IrType); N],
    ) -> [FuncId; N] {
        let list = IrType::List(Box::new(IrType::I64));
        let param = vec![("xs".to_string(), ParamMode::Ref, list)];
        functions.map(|(name, result)| pb.declare_function(name, vec![], param.clone(), result))
    }

    /// `xs[0]` of the `[i64]` in `xs`, read into a new slot (failing for an empty list).
    fn first_element(fb: &mut crate::builder::FunctionBuilder<'_>, xs: SlotId) -> SlotId {
        let (zero, x) = (fb.int(IrType::Index, 0), fb.new_slot(IrType::I64));
        let empty = fb.abandon_block(&[]);
        let get = InstKind::ListGet {
            dst: x,
            list: xs,
            index: zero,
            checked: true,
            view: false,
        };
        fb.inst(get, Some(empty));
        x
    }

    /// `f(ref xs: [i64]): index` returning `len(xs)` after reading `xs[0]` (which fails
    /// for an empty list), or, with `pass_on`, also handing `xs` on to `g(ref xs)`.
    fn ref_length(pass_on: bool) -> bool {
        let mut pb = ProgramBuilder::new();
        let [g, f] = taking_ref_list(&mut pb, [("g", IrType::Unit), ("f", IrType::Index)]);
        let mut fb = pb.function(g);
        fb.terminate(Terminator::Return(None));
        let mut fb = pb.function(f);
        let xs = fb.param(0);
        let n = fb.new_slot(IrType::Index);
        first_element(&mut fb, xs);
        fb.inst(InstKind::ListLen { dst: n, list: xs }, None);
        if pass_on {
            let abandon = fb.abandon_block(&[]);
            let args = vec![Arg {
                mode: ParamMode::Ref,
                slot: xs,
            }];
            let call = InstKind::Call {
                dst: None,
                func: g,
                type_args: vec![],
                args,
                depth: 1,
            };
            fb.inst(call, Some(abandon));
        }
        fb.terminate(Terminator::Return(Some(n)));
        let program = pb.finish();
        inlinable(&program.functions[f.index()])
    }

    #[test]
    fn a_ref_parameter_read_only_for_its_length_and_elements_is_inlined() {
        assert!(ref_length(false));
        // Handed on, the callee might read anything of it: not inlined.
        assert!(!ref_length(true));
    }

    /// `first(ref xs: [i64]) = xs[0]` is inlined into `outer(ref xs) = first(ref xs)`;
    /// the slot that was `first`'s parameter is left unnamed in `outer` (the argument
    /// stands for it), so `outer` is then inlined too.
    #[test]
    fn a_function_that_inlined_a_ref_reader_is_inlined_in_turn() {
        let mut pb = ProgramBuilder::new();
        let [first, outer] =
            taking_ref_list(&mut pb, [("first", IrType::I64), ("outer", IrType::I64)]);
        let mut fb = pb.function(first);
        let xs = fb.param(0);
        let x = first_element(&mut fb, xs);
        fb.terminate(Terminator::Return(Some(x)));
        let mut fb = pb.function(outer);
        let xs = fb.param(0);
        let r = fb.new_slot(IrType::I64);
        let failed = fb.abandon_block(&[]);
        let call = InstKind::Call {
            dst: Some(r),
            func: first,
            type_args: vec![],
            args: vec![Arg {
                mode: ParamMode::Ref,
                slot: xs,
            }],
            depth: 1,
        };
        fb.inst(call, Some(failed));
        fb.terminate(Terminator::Return(Some(r)));
        let mut program = pb.finish();
        assert!(!inlinable(&program.functions[outer.index()]));
        inline_small_functions(&mut program);
        let outer = &program.functions[outer.index()];
        crate::verify::verify_function(&program, outer).expect("the inlined function verifies");
        assert_eq!(program_calls(outer), 0);
        assert!(outer.slots.iter().any(|s| !s.ty.is_scalar()));
        assert!(inlinable(outer));
    }

    /// `inc(x) = x + 1` (checked: it may abandon) is inlined into `main`, which holds a
    /// string across the call: the result verifies (the inlined failure path reaches the
    /// drop of the string) and no call is left.
    #[test]
    fn a_leaf_is_inlined_with_its_failure_path_joined_to_the_callers() {
        let mut pb = ProgramBuilder::new();
        let (inc, mut fb, x, one) = begin_i64_to_i64(&mut pb, "inc");
        let abandon = fb.abandon_block(&[]);
        let y = fb.binary(BinaryOp::Add, x, one, Some(abandon));
        fb.terminate(Terminator::Return(Some(y)));
        let main = pb.declare_function("main", vec![], vec![], IrType::Unit);
        let mut fb = pb.function(main);
        let s = fb.string("kept");
        let c = fb.int(IrType::I64, 41);
        let r = fb.new_slot(IrType::I64);
        let abandon = fb.abandon_block(&[s]);
        fb.inst(
            InstKind::Call {
                dst: Some(r),
                func: inc,
                type_args: vec![],
                args: vec![Arg {
                    mode: ParamMode::In,
                    slot: c,
                }],
                depth: 1,
            },
            Some(abandon),
        );
        fb.debuglog(r);
        fb.drop_slot(s);
        fb.terminate(Terminator::Return(None));
        pb.set_entry(main);
        let mut program = pb.finish();
        assert!(inlinable(&program.functions[inc.index()]));
        assert!(!inlinable(&program.functions[main.index()]));
        inline_small_functions(&mut program);
        crate::verify::verify_program(&program).expect("the inlined program verifies");
        let main = &program.functions[main.index()];
        assert_eq!(program_calls(main), 0);
        // The inlined add abandons through a block that adds the call's site to the chain
        // of calls, then to the caller's, which drops the string.
        let add = main
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .find(|i| matches!(i.kind, InstKind::Binary { .. }))
            .expect("the inlined add");
        let path = add.abandon.expect("fallible");
        let Terminator::Jump(landing) = main.block(path).term else {
            panic!("the callee's abandon path jumps on")
        };
        let landing = main.block(landing);
        assert!(matches!(
            landing.insts[..],
            [Inst {
                kind: InstKind::CalledFrom,
                ..
            }]
        ));
        assert_eq!(landing.term, Terminator::Jump(abandon));
        // A leaf is no call: nothing tests the call depth where it stood.
        assert!(!main
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| matches!(i.kind, InstKind::CheckDepth { .. })));
    }

    /// The entry `main`, which prints `f(5)`.
    fn declare_main_printing(
        pb: &mut ProgramBuilder,
        f: crate::program::FuncId,
    ) -> crate::program::FuncId {
        let main = pb.declare_function("main", vec![], vec![], IrType::Unit);
        let mut fb = pb.function(main);
        let c = fb.int(IrType::I64, 5);
        let r = fb.new_slot(IrType::I64);
        let abandon = fb.abandon_block(&[]);
        fb.call(Some(r), f, vec![], &[(ParamMode::In, c)], abandon);
        fb.debuglog(r);
        fb.terminate(Terminator::Return(None));
        pb.set_entry(main);
        main
    }

    /// How many calls of program functions `f` makes.
    fn program_calls(f: &Function) -> usize {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.kind.as_program_call().is_some())
            .count()
    }

    /// `down(n) = if n < 1 then 0 else down(n - 1) + 1` (checked arithmetic).
    fn declare_down(pb: &mut ProgramBuilder) -> crate::program::FuncId {
        declare_countdown(pb, "down", false)
    }

    /// `name(n) = if n < 1 then 0 else name(n - 1) + 1` (checked arithmetic); with
    /// `own_one`, the recursive side writes its own constant 1, as the front end does, so
    /// nothing past the entry's test reads what the test computed.
    fn declare_countdown(
        pb: &mut ProgramBuilder,
        name: &str,
        own_one: bool,
    ) -> crate::program::FuncId {
        let (down, mut fb, n, one) = begin_i64_to_i64(pb, name);
        let small = fb.compare(crate::program::CompareOp::Lt, n, one);
        let (base, step) = (fb.new_block(), fb.new_block());
        fb.branch(small, base, step);
        fb.switch_to(base);
        let zero = fb.int(IrType::I64, 0);
        fb.terminate(Terminator::Return(Some(zero)));
        fb.switch_to(step);
        let abandon = fb.abandon_block(&[]);
        let one = if own_one { fb.int(IrType::I64, 1) } else { one };
        let m = fb.binary(BinaryOp::Sub, n, one, Some(abandon));
        let r = fb.new_slot(IrType::I64);
        fb.call(Some(r), down, vec![], &[(ParamMode::In, m)], abandon);
        let s = fb.binary(BinaryOp::Add, r, one, Some(abandon));
        fb.terminate(Terminator::Return(Some(s)));
        down
    }

    /// Every call of `count` is left behind its base case's test, so after every pass
    /// they all go to a copy of `count` that starts past the test: its entry tests the
    /// call depth instead of the parameter, and the program verifies.
    #[test]
    fn calls_behind_the_base_case_go_to_a_copy_that_starts_past_it() {
        let mut pb = ProgramBuilder::new();
        let count = declare_countdown(&mut pb, "count", true);
        let main = declare_main_printing(&mut pb, count);
        let mut program = pb.finish();
        crate::passes::optimize(&mut program);
        crate::verify::verify_program(&program).expect("the program verifies");
        assert_eq!(program.functions.len(), 3, "count, main and the copy");
        let copy = FuncId(2);
        for f in [main, copy] {
            let callees: Vec<FuncId> = program.functions[f.index()]
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .filter_map(|i| match i.kind {
                    InstKind::Call { func, .. } => Some(func),
                    _ => None,
                })
                .collect();
            assert!(!callees.is_empty() && callees.iter().all(|&c| c == copy));
        }
        let copied = &program.functions[copy.index()];
        let param = copied.params[0].slot;
        let entry = &copied.blocks[copied.entry.index()];
        assert_eq!(copied.entry, BlockId(0));
        assert!(!entry
            .insts
            .iter()
            .any(|i| matches!(i.kind, InstKind::Compare { lhs, .. } if lhs == param)));
    }

    /// `down` ([`declare_down`]), called from `main`: the second
    /// round inlines it where `main` called it and into itself, once. Where a call of it
    /// stood, `check_depth` makes the test the call made; the calls copied in take one
    /// more depth; no call the program wrote to it is left.
    #[test]
    fn a_recursive_function_is_unrolled_once_and_keeps_its_depth() {
        let mut pb = ProgramBuilder::new();
        let down = declare_down(&mut pb);
        let main = declare_main_printing(&mut pb, down);
        let mut program = pb.finish();
        assert_eq!(
            inlining(&program.functions[down.index()]),
            Inlining::WithCalls
        );
        inline_small_functions(&mut program);
        crate::verify::verify_program(&program).expect("the inlined program verifies");
        for f in [down, main] {
            let insts: Vec<&Inst> = program.functions[f.index()]
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .collect();
            let depths: Vec<u32> = insts
                .iter()
                .filter_map(|i| match i.kind {
                    InstKind::Call { depth, .. } => Some(depth),
                    _ => None,
                })
                .collect();
            assert_eq!(depths, [2], "{}", program.functions[f.index()].name);
            // The unrolled call's test (depth 1), and the test of the depth-2 call that
            // the base case (`n < 1`) stands in for where it holds.
            let checks: Vec<u32> = insts
                .iter()
                .filter_map(|i| match i.kind {
                    InstKind::CheckDepth { depth } => Some(depth),
                    _ => None,
                })
                .collect();
            assert_eq!(checks, [1, 2]);
        }
    }

    /// A `check_depth` moves above the plain scalar work before it (a constant and a
    /// `nowrap_sub`), and stops at what can fail (a checked `sub`), at what holds
    /// memory (a string) and at what its failure path drops.
    #[test]
    fn a_depth_check_moves_above_plain_arithmetic_only() {
        let mut pb = ProgramBuilder::new();
        let (f, mut fb, x, one) = begin_i64_to_i64(&mut pb, "f");
        let s = fb.string("held");
        let abandon = fb.abandon_block(&[]);
        let checked = fb.binary(BinaryOp::Sub, x, one, Some(abandon));
        let kept = fb.int(IrType::I64, 7);
        let two = fb.int(IrType::I64, 2);
        let plain = fb.binary(BinaryOp::NoWrapSub, checked, two, None);
        let dropping = fb.abandon_block(&[kept]);
        fb.inst(InstKind::CheckDepth { depth: 1 }, Some(dropping));
        fb.drop_slot(s);
        fb.terminate(Terminator::Return(Some(plain)));
        let main = pb.declare_entry("main");
        pb.function(main).terminate(Terminator::Return(None));
        let mut program = pb.finish();
        hoist_depth_checks(&mut program);
        let names: Vec<&str> = program.functions[f.index()].blocks[0]
            .insts
            .iter()
            .map(|i| i.kind.name())
            .collect();
        // The constant 1, the string, the checked `sub`, the 7 the failure path drops,
        // then the test above the constant 2 and the `nowrap_sub`.
        assert_eq!(
            names,
            [
                "const",
                "const",
                "binary",
                "const",
                "check_depth",
                "const",
                "binary",
                "drop"
            ]
        );
    }

    /// `down`'s base case (`n < 1` returns 0) is partly inlined at its call in `down`
    /// ([`declare_down`]; no other round runs here): the test
    /// on the argument, then either `check_depth` and the value, or the call.
    #[test]
    fn a_base_case_is_tested_by_the_caller_and_the_call_kept_for_the_rest() {
        let mut pb = ProgramBuilder::new();
        let down = declare_down(&mut pb);
        let main = pb.declare_entry("main");
        pb.function(main).terminate(Terminator::Return(None));
        let mut program = pb.finish();
        inline_base_cases(&mut program);
        crate::verify::verify_program(&program).expect("the program verifies");
        let f = &program.functions[down.index()];
        let calling = f
            .blocks
            .iter()
            .position(|b| b.insts.iter().any(|i| i.kind.as_program_call().is_some()))
            .expect("the call is kept");
        let checking = f
            .blocks
            .iter()
            .position(|b| {
                b.insts
                    .iter()
                    .any(|i| matches!(i.kind, InstKind::CheckDepth { depth: 1 }))
            })
            .expect("the base case keeps the call's test");
        // One block branches to both on the base case's test of `m`.
        let branching = f.blocks.iter().find(|b| {
            matches!(b.term, Terminator::Branch { then_block, else_block, .. }
                if then_block.index() == checking && else_block.index() == calling)
        });
        assert!(
            branching.is_some(),
            "{}",
            crate::print::print_program(&program)
        );
        assert_eq!(program_calls(f), 1, "exactly one call remains");
    }
}
