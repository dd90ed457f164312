//! Inlining of small leaf functions, an IR pass every backend gains from (the front end
//! runs it on every program it lowers, so the interpreter, the Cranelift backends and the
//! C backend run the same IR).
//!
//! A function is inlined at its calls when it is small ([`INLINE_MAX_INSTS`]), not
//! generic, takes only scalar `in` parameters, returns a scalar, and computes only with
//! scalars (constants, copies, arithmetic, comparisons, casts): no calls, no values that
//! own memory. Its body is copied into the caller: the arguments are copied into fresh
//! slots for its parameters, each `return` becomes a copy into the call's destination
//! and a jump to the rest of the caller's block, and each `abandon` a jump to the call's
//! abandon block, so a failure inside (overflow, division by zero, an invalid cast)
//! raises the same error and runs the same drops as the call did. An inlined call is no
//! call: it does not count toward the call-depth limit (`docs/abi.md`, section 12).

use crate::program::{Block, BlockId, Function, Inst, InstKind, Program, SlotId, Terminator};
use crate::types::ParamMode;

/// The largest function inlined, in instructions.
pub const INLINE_MAX_INSTS: usize = 32;

/// Whether calls of `f` are inlined.
pub fn inlinable(f: &Function) -> bool {
    use InstKind as K;
    !f.is_generic()
        && f.result.is_scalar()
        && f.params.iter().all(|p| p.mode == ParamMode::In)
        && f.slots.iter().all(|s| s.ty.is_scalar())
        && f.blocks.iter().map(|b| b.insts.len()).sum::<usize>() <= INLINE_MAX_INSTS
        && f.blocks.iter().flat_map(|b| &b.insts).all(|i| {
            matches!(
                i.kind,
                K::Const { .. }
                    | K::Copy { .. }
                    | K::Move { .. }
                    | K::Clone { .. }
                    | K::Drop { .. }
                    | K::Unary { .. }
                    | K::Binary { .. }
                    | K::Compare { .. }
                    | K::Cast { .. }
            )
        })
}

/// Inlines every call of an [`inlinable`] function in `program`.
pub fn inline_small_functions(program: &mut Program) {
    let callees: Vec<Option<Function>> = program
        .functions
        .iter()
        .map(|f| inlinable(f).then(|| f.clone()))
        .collect();
    if callees.iter().all(Option::is_none) {
        return;
    }
    for f in &mut program.functions {
        if inline_calls(f, &callees) {
            remove_unreachable_blocks(f);
        }
    }
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

/// `kind` with every slot `s` renamed `rename(s)` (the kinds [`inlinable`] admits).
fn renamed(kind: &InstKind, rename: impl Fn(SlotId) -> SlotId) -> InstKind {
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
        other => unreachable!("not admitted for inlining: {other:?}"),
    }
}

/// Inlines the calls of `callees` in `f`; whether there was any.
fn inline_calls(f: &mut Function, callees: &[Option<Function>]) -> bool {
    let mut inlined = false;
    let mut bi = 0;
    while bi < f.blocks.len() {
        let at = f.blocks[bi].insts.iter().position(|inst| {
            matches!(&inst.kind, InstKind::Call { func, .. } if callees[func.index()].is_some())
        });
        let Some(at) = at else {
            bi += 1;
            continue;
        };
        let mut rest = f.blocks[bi].insts.split_off(at);
        let call = rest.remove(0);
        let InstKind::Call {
            dst, func, args, ..
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
                    kind: renamed(&i.kind, slot),
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
                Terminator::Abandon => Terminator::Jump(abandon),
                Terminator::Unterminated => {
                    unreachable!("verified: `{}` has no unterminated block", callee.name)
                }
            };
            f.blocks.push(Block { insts, term });
        }
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

    /// `inc(x) = x + 1` (checked: it may abandon) is inlined into `main`, which holds a
    /// string across the call: the result verifies (the inlined failure path reaches the
    /// drop of the string) and no call is left.
    #[test]
    fn a_leaf_is_inlined_with_its_failure_path_joined_to_the_callers() {
        let mut pb = ProgramBuilder::new();
        let inc = pb.declare_function(
            "inc",
            vec![],
            vec![("x".into(), ParamMode::In, IrType::I64)],
            IrType::I64,
        );
        let mut fb = pb.function(inc);
        let x = fb.param(0);
        let one = fb.int(IrType::I64, 1);
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
        // The inlined add abandons through a block that jumps to the caller's, which
        // drops the string.
        let add = main
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .find(|i| matches!(i.kind, InstKind::Binary { .. }))
            .expect("the inlined add");
        let path = add.abandon.expect("fallible");
        assert_eq!(main.block(path).term, Terminator::Jump(abandon));
    }
}
