//! Inlining of small functions, an IR pass every backend gains from (the front end runs
//! it on every program it lowers, so the interpreter, the Cranelift backends and the C
//! backend run the same IR).
//!
//! A function is inlined at its calls when it is small ([`INLINE_MAX_INSTS`]), not
//! generic, takes only scalar `in` parameters, returns a scalar, and computes only with
//! scalars (constants, copies, arithmetic, comparisons, casts) and calls of program
//! functions: no natives, no values that own memory. Its body is copied into the
//! caller: the arguments are copied into fresh slots for its parameters, each `return`
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
//! The call-depth limit (`docs/abi.md`, section 12) sees what the program wrote, except
//! for a leaf: an inlined leaf is no call and is not counted. A function that makes calls
//! keeps the test its call would have made (`check_depth`, where the call stood), and
//! each call copied in with it takes one more depth (`call ... depth N`), so every call
//! that runs is refused at the same depth as without inlining.

use crate::program::{Block, BlockId, Function, Inst, InstKind, Program, SlotId, Terminator};
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
    let small = !f.is_generic()
        && f.result.is_scalar()
        && f.params.iter().all(|p| p.mode == ParamMode::In)
        && f.slots.iter().all(|s| s.ty.is_scalar())
        && f.blocks.iter().map(|b| b.insts.len()).sum::<usize>() <= INLINE_MAX_INSTS;
    if !small {
        return Inlining::Never;
    }
    let mut calls = false;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        match inst.kind {
            K::Const { .. }
            | K::Copy { .. }
            | K::Move { .. }
            | K::Clone { .. }
            | K::Drop { .. }
            | K::Unary { .. }
            | K::Binary { .. }
            | K::Compare { .. }
            | K::Cast { .. }
            | K::CalledFrom => {}
            K::Call { .. } | K::CheckDepth => calls = true,
            _ => return Inlining::Never,
        }
    }
    if calls {
        Inlining::WithCalls
    } else {
        Inlining::Leaf
    }
}

/// Whether calls of `f` are inlined (in either round).
pub fn inlinable(f: &Function) -> bool {
    inlining(f) != Inlining::Never
}

/// Inlines every call of an [`inlinable`] function in `program`: the leaves first (again
/// while that makes new leaves of their callers), then the functions that make calls.
pub fn inline_small_functions(program: &mut Program) {
    // Each leaf round removes calls and adds none, so the leaf rounds end.
    while inline_round(program, Inlining::Leaf) {}
    inline_round(program, Inlining::WithCalls);
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
    let mut any = false;
    for f in &mut program.functions {
        if inline_calls(f, &callees) {
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
            for inst in &mut block.insts {
                inst.abandon = inst.abandon.map(new_id);
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
                other => other,
            };
            block
        })
        .collect();
    f.entry = new_id(f.entry);
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
        K::CheckDepth => K::CheckDepth,
        K::CalledFrom => K::CalledFrom,
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
        let slot = |s: SlotId| SlotId(s.0 + slot_base);
        let block = |b: BlockId| BlockId(b.0 + block_base);
        // Where the body's failures go: the call's site joins the chain of calls.
        let landing = BlockId(block_base + callee.blocks.len() as u32);
        if inlining(callee) == Inlining::WithCalls {
            // The test the call would have made before its callee started.
            f.blocks[bi].insts.push(Inst {
                kind: InstKind::CheckDepth,
                abandon: Some(abandon),
                loc: call.loc,
            });
        }
        for (p, a) in callee.params.iter().zip(&args) {
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
                        insts.push(Inst {
                            kind: InstKind::Copy {
                                dst: d,
                                src: slot(*r),
                            },
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
        let calls = main
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| matches!(i.kind, InstKind::Call { .. }))
            .count();
        assert_eq!(calls, 0);
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
            .any(|i| matches!(i.kind, InstKind::CheckDepth)));
    }

    /// `down(n) = if n < 1 then 0 else down(n - 1) + 1`, called from `main`: the second
    /// round inlines it where `main` called it and into itself, once. Where a call of it
    /// stood, `check_depth` makes the test the call made; the calls copied in take one
    /// more depth; no call the program wrote to it is left.
    #[test]
    fn a_recursive_function_is_unrolled_once_and_keeps_its_depth() {
        let mut pb = ProgramBuilder::new();
        let (down, mut fb, n, one) = begin_i64_to_i64(&mut pb, "down");
        let small = fb.compare(crate::program::CompareOp::Lt, n, one);
        let (base, step) = (fb.new_block(), fb.new_block());
        fb.branch(small, base, step);
        fb.switch_to(base);
        let zero = fb.int(IrType::I64, 0);
        fb.terminate(Terminator::Return(Some(zero)));
        fb.switch_to(step);
        let abandon = fb.abandon_block(&[]);
        let m = fb.binary(BinaryOp::Sub, n, one, Some(abandon));
        let r = fb.new_slot(IrType::I64);
        fb.call(Some(r), down, vec![], &[(ParamMode::In, m)], abandon);
        let s = fb.binary(BinaryOp::Add, r, one, Some(abandon));
        fb.terminate(Terminator::Return(Some(s)));
        let main = pb.declare_function("main", vec![], vec![], IrType::Unit);
        let mut fb = pb.function(main);
        let c = fb.int(IrType::I64, 5);
        let r = fb.new_slot(IrType::I64);
        let abandon = fb.abandon_block(&[]);
        fb.call(Some(r), down, vec![], &[(ParamMode::In, c)], abandon);
        fb.debuglog(r);
        fb.terminate(Terminator::Return(None));
        pb.set_entry(main);
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
            let checks = insts
                .iter()
                .filter(|i| matches!(i.kind, InstKind::CheckDepth))
                .count();
            assert_eq!(checks, 1);
        }
    }
}
