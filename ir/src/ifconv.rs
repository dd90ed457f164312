//! If-conversion of a conditional step, an IR pass every backend gains from (the front
//! end runs it after the first ranges pass and before threading, so every backend runs
//! the same IR).
//!
//! `if c then set x = x + 1 end if` lowers to a branch on `c` around a block that adds
//! a constant one to `x`. Where `c` follows no pattern (a flag read from a list, as a
//! sieve counts its primes), the processor mispredicts that branch about every other
//! time, and the program pays more for the mispredictions than for the additions. A C
//! compiler given `count += flag` adds the flag instead; this pass does the same in the
//! IR: the branch becomes a jump, and the constant one becomes `c` converted to `x`'s
//! integer type (`true` is 1, `false` 0), so the block adds one or nothing.
//!
//! Only steps that cannot fail are converted: wrapping ones (`+%`, `-%`) and those the
//! ranges pass proved (`nowrap_add`, `nowrap_sub`; adding 0 cannot overflow, adding 1
//! overflows only where the step did, so the proof stands). A checked `+ 1` keeps its
//! branch: its overflow test is a compare with a constant, which a checked `+ c` would
//! make an overflow flag test on every pass, more than a predictable branch costs
//! (mandelbrot's `if escaped then set bits = bits + 1` measured 4% more instructions
//! converted). Only integer steps: a float `x + 0.0` is not `x` when `x` is `-0.0`.
//!
//! The shape taken, for a block `b` that ends in `branch c, t, e`:
//! - `t` is reached from `b` alone and holds `k = const 1`, then `r = x + k` (or
//!   `k + x`, or `x - k`: wrapping or `nowrap_`), and perhaps `x = copy r`,
//!   then jumps to `j`;
//! - `e` is `j` itself, or an empty block that jumps to `j`;
//! - `k` and `r` (when it is not `x`) are named by nothing outside `t`, so no other code
//!   sees their value change.
//!
//! Each function is walked once, with the predecessor counts and the block that names
//! each slot counted once before: the pass takes time in proportion to the function.

use crate::inline::rewrite_functions;
use crate::program::{
    BinaryOp, BlockId, ConstValue, Function, Inst, InstKind, Program, SlotId, Terminator,
};

/// Converts the conditional steps of every function.
pub fn convert_conditional_steps(program: &mut Program) {
    rewrite_functions(program, convert_function);
}

/// Whether any step of `f` was converted.
fn convert_function(f: &mut Function) -> bool {
    // Counted once: a conversion takes the edges from `b` to `t` and `e` and adds one to
    // the join, which `t` already reached, so no block reached once is reached more; and
    // the slots it makes `b` name were named by `t` alone, which nothing reaches after.
    let preds = crate::forward::predecessor_counts(f);
    let namers = sole_namers(f);
    let mut changed = false;
    for b in 0..f.blocks.len() {
        let Terminator::Branch {
            cond,
            then_block,
            else_block,
        } = f.blocks[b].term
        else {
            continue;
        };
        if then_block.index() == b || preds[then_block.index()] != 1 {
            continue;
        }
        let Some((insts, join)) = conditional_step(f, &namers, cond, then_block) else {
            continue;
        };
        if !reaches_directly(f, else_block, join) {
            continue;
        }
        f.blocks[b].insts.extend(insts);
        f.blocks[b].term = Terminator::Jump(join);
        changed = true;
    }
    changed
}

/// When `t` (which only the branch on `cond` reaches) is a step: its instructions as the
/// branching block is to run them (the constant one made the conversion of `cond`) and
/// the block it jumps to.
fn conditional_step(
    f: &Function,
    namers: &[Option<BlockId>],
    cond: SlotId,
    t: BlockId,
) -> Option<(Vec<Inst>, BlockId)> {
    let block = &f.blocks[t.index()];
    let Terminator::Jump(join) = block.term else {
        return None;
    };
    let (one, step, rest) = match block.insts.as_slice() {
        [one, step] => (one, step, None),
        [one, step, copy] => (one, step, Some(copy)),
        _ => return None,
    };
    let InstKind::Const {
        dst: k,
        value: ConstValue::Int(1),
    } = one.kind
    else {
        return None;
    };
    let InstKind::Binary {
        dst: r,
        op,
        lhs,
        rhs,
    } = step.kind
    else {
        return None;
    };
    let x = match op {
        BinaryOp::WrappingAdd | BinaryOp::NoWrapAdd if lhs == k => rhs,
        BinaryOp::WrappingAdd | BinaryOp::NoWrapAdd if rhs == k => lhs,
        BinaryOp::WrappingSub | BinaryOp::NoWrapSub if rhs == k => lhs,
        _ => return None,
    };
    if x == k || !f.slot_type(x).is_integer() {
        return None;
    }
    match rest.map(|i| &i.kind) {
        None if r == x => {}
        Some(InstKind::Copy { dst, src }) if *dst == x && *src == r && r != x => {}
        _ => return None,
    }
    let private = [Some(k), (r != x).then_some(r)];
    if private
        .into_iter()
        .flatten()
        .any(|s| namers[s.index()] != Some(t))
    {
        return None;
    }
    let mut insts = block.insts.clone();
    insts[0].kind = InstKind::Cast {
        dst: k,
        src: cond,
        checked: false,
    };
    Some((insts, join))
}

/// Whether `e` is `join`, or an empty block that jumps there.
fn reaches_directly(f: &Function, e: BlockId, join: BlockId) -> bool {
    let block = &f.blocks[e.index()];
    e == join || (block.insts.is_empty() && block.term == Terminator::Jump(join))
}

/// For each slot, the one block whose instructions or terminator name it, or `None`
/// when several blocks (or none) do.
fn sole_namers(f: &Function) -> Vec<Option<BlockId>> {
    // `Err(())`: named in more than one block.
    let mut namer: Vec<Option<Result<BlockId, ()>>> = vec![None; f.slots.len()];
    for (i, block) in f.blocks.iter().enumerate() {
        let b = BlockId(i as u32);
        for s in block.named_slots() {
            let entry = &mut namer[s.index()];
            *entry = match *entry {
                None => Some(Ok(b)),
                Some(Ok(c)) if c == b => Some(Ok(b)),
                _ => Some(Err(())),
            };
        }
    }
    namer.into_iter().map(|n| n.and_then(Result::ok)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::ProgramBuilder;
    use crate::program::CompareOp;
    use crate::types::IrType;
    use crate::verify::verify_program;

    /// `x = 5; if 2 < 3 then <step> end if; debuglog x`, where `step` writes the block
    /// the branch takes (given `x`, and the `else` block to leave through) and the
    /// `else` block is empty.
    fn conditional(
        ty: IrType,
        step: impl FnOnce(&mut crate::builder::FunctionBuilder<'_>, SlotId),
    ) -> Program {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let x = fb.new_slot(ty.clone());
        let five = if ty.is_float() {
            ConstValue::Float(5.0)
        } else {
            ConstValue::Int(5)
        };
        fb.set_const(x, five);
        let (two, three) = (fb.int(IrType::I64, 2), fb.int(IrType::I64, 3));
        let c = fb.compare(CompareOp::Lt, two, three);
        let (then, other, join) = (fb.new_block(), fb.new_block(), fb.new_block());
        fb.branch(c, then, other);
        fb.switch_to(then);
        step(&mut fb, x);
        fb.terminate(Terminator::Jump(join));
        fb.switch_to(other);
        fb.terminate(Terminator::Jump(join));
        fb.switch_to(join);
        fb.debuglog(x);
        fb.terminate(Terminator::Return(None));
        pb.finish()
    }

    /// `x = x <op> 1` (through a copy, as the front end writes it).
    fn step_of_one(
        op: BinaryOp,
        one_first: bool,
    ) -> impl FnOnce(&mut crate::builder::FunctionBuilder<'_>, SlotId) {
        move |fb, x| {
            let one = if fb.slot_type(x).is_float() {
                fb.constant(IrType::F64, ConstValue::Float(1.0))
            } else {
                let ty = fb.slot_type(x).clone();
                fb.int(ty, 1)
            };
            let (lhs, rhs) = if one_first { (one, x) } else { (x, one) };
            // A checked integer step fails to an abandon block of its own.
            let checked =
                matches!(op, BinaryOp::Add | BinaryOp::Sub) && !fb.slot_type(x).is_float();
            let abandon = checked.then(|| {
                let here = fb.current_block().expect("writing the step");
                let abandon = fb.abandon_block(&[]);
                fb.switch_to(here);
                abandon
            });
            let r = fb.binary(op, lhs, rhs, abandon);
            fb.copy(x, r);
        }
    }

    /// The names of the first block's instructions and whether it still branches, after
    /// the pass; the program verifies after it.
    fn converted(mut program: Program) -> (Vec<&'static str>, bool) {
        verify_program(&program).expect("verifies before");
        convert_conditional_steps(&mut program);
        verify_program(&program).expect("verifies after");
        let entry = &program.functions[0].blocks[0];
        let names = entry.insts.iter().map(|i| i.kind.name()).collect();
        (names, matches!(entry.term, Terminator::Branch { .. }))
    }

    #[test]
    fn a_step_of_one_becomes_the_addition_of_the_condition() {
        for (op, one_first) in [
            (BinaryOp::WrappingAdd, false),
            (BinaryOp::WrappingAdd, true),
            (BinaryOp::WrappingSub, false),
            (BinaryOp::NoWrapAdd, false),
            (BinaryOp::NoWrapSub, false),
        ] {
            let (names, branches) = converted(conditional(IrType::U32, step_of_one(op, one_first)));
            assert!(!branches, "{op:?}");
            assert_eq!(
                names,
                ["const", "const", "const", "compare", "cast", "binary", "copy"]
            );
        }
    }

    #[test]
    fn other_steps_keep_their_branch() {
        // A checked step, `1 - x`, a float step, a step of two, and a step with more in
        // its block.
        let kept = [
            conditional(IrType::U32, step_of_one(BinaryOp::Add, false)),
            conditional(IrType::U32, step_of_one(BinaryOp::WrappingSub, true)),
            conditional(IrType::F64, step_of_one(BinaryOp::Add, false)),
            conditional(IrType::I64, |fb, x| {
                let two = fb.int(IrType::I64, 2);
                let r = fb.binary(BinaryOp::WrappingAdd, x, two, None);
                fb.copy(x, r);
            }),
            conditional(IrType::I64, |fb, x| {
                step_of_one(BinaryOp::WrappingAdd, false)(fb, x);
                fb.debuglog(x);
            }),
        ];
        for program in kept {
            let (_, branches) = converted(program);
            assert!(branches);
        }
    }

    #[test]
    fn a_step_whose_constant_is_read_elsewhere_keeps_its_branch() {
        let mut program = conditional(IrType::I64, step_of_one(BinaryOp::WrappingAdd, false));
        // The step's constant one is also given a value before the branch and logged at
        // the join: the conversion would make it 0 on the path that skips the step.
        let f = &mut program.functions[0];
        let one = f.blocks[1].insts[0].clone();
        let InstKind::Const { dst: k, .. } = one.kind else {
            unreachable!("the step's first instruction")
        };
        f.blocks[0].insts.insert(0, one);
        f.blocks[3].insts.push(Inst {
            kind: InstKind::Debuglog { src: k },
            abandon: None,
            loc: None,
        });
        let (_, branches) = converted(program);
        assert!(branches);
    }
}
