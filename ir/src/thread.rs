//! Jump threading of small condition blocks, an IR pass every backend gains from (the
//! front end runs it after inlining, so every backend runs the same IR).
//!
//! A `loop while c` lowers to a block that computes `c` and branches, entered once from
//! before the loop and again by a `jump` at the end of every iteration: each iteration
//! pays a jump to the condition besides the branch. Here a block that ends in a `jump`
//! to such a condition block takes a copy of it instead: its instructions (at most
//! [`THREAD_MAX_INSTS`], each one that cannot fail and handles only scalars) and its
//! branch. The loop is then tested at its bottom, as a compiler rotates a loop, and
//! every backend, Cranelift included (which does not rotate loops), runs one jump fewer
//! per iteration. Each copied instruction writes the same slots it did, so the frame is
//! the same when the branch is taken; only how the code reaches the branch changes.
//! A block no jump reaches any more is removed.

use crate::inline::rewrite_functions;
use crate::program::{Function, Inst, InstKind, Program, Terminator};

/// The most instructions a condition block may have to be copied.
pub const THREAD_MAX_INSTS: usize = 4;

/// Threads every function's jumps to small condition blocks.
pub fn thread_condition_jumps(program: &mut Program) {
    rewrite_functions(program, thread_function);
}

/// Whether any jump of `f` was threaded.
fn thread_function(f: &mut Function) -> bool {
    let mut changed = false;
    for a in 0..f.blocks.len() {
        let Terminator::Jump(b) = f.blocks[a].term else {
            continue;
        };
        if b.index() == a {
            continue;
        }
        let target = &f.blocks[b.index()];
        let copyable = matches!(target.term, Terminator::Branch { .. })
            && target.insts.len() <= THREAD_MAX_INSTS
            && target.insts.iter().all(|i| copyable(f, i));
        if !copyable {
            continue;
        }
        let (insts, term) = (target.insts.clone(), target.term.clone());
        f.blocks[a].insts.extend(insts);
        f.blocks[a].term = term;
        changed = true;
    }
    changed
}

/// Whether `inst` may run in a second place: it cannot fail (so it has no abandon
/// edge), and it reads and writes scalars only (nothing to clone, drop or move).
fn copyable(f: &Function, inst: &Inst) -> bool {
    use InstKind as K;
    let scalar = |s| f.slot_type(s).is_scalar();
    !inst.kind.is_fallible(f)
        && match &inst.kind {
            K::Const { dst, .. } => scalar(*dst),
            K::Copy { dst, src } => scalar(*dst) && scalar(*src),
            K::Unary { dst, src, .. } | K::Cast { dst, src, .. } => scalar(*dst) && scalar(*src),
            K::Binary { dst, lhs, rhs, .. } | K::Compare { dst, lhs, rhs, .. } => {
                scalar(*dst) && scalar(*lhs) && scalar(*rhs)
            }
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::ProgramBuilder;
    use crate::program::{BinaryOp, CompareOp};
    use crate::types::IrType;
    use crate::verify::verify_program;

    /// `var i = 0; loop while i < 3 { debuglog i; set i = i +% 1 }`, as the front end
    /// lowers it: entry, condition, body (jumping back), exit. With `checked`, the
    /// condition is `i + 1 < 3` with a checked `+`, which can fail.
    fn counting_loop(checked: bool) -> Program {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let i = fb.int(IrType::I64, 0);
        let (cond, body, exit) = (fb.new_block(), fb.new_block(), fb.new_block());
        fb.jump(cond);
        fb.switch_to(cond);
        let three = fb.int(IrType::I64, 3);
        let one = fb.int(IrType::I64, 1);
        let lhs = if checked {
            let abandon = fb.abandon_block(&[]);
            fb.switch_to(cond);
            let sum = fb.new_slot(IrType::I64);
            let add = InstKind::Binary {
                dst: sum,
                op: BinaryOp::Add,
                lhs: i,
                rhs: one,
            };
            fb.inst(add, Some(abandon));
            sum
        } else {
            i
        };
        let c = fb.compare(CompareOp::Lt, lhs, three);
        fb.branch(c, body, exit);
        fb.switch_to(body);
        fb.debuglog(i);
        let next = fb.binary(BinaryOp::WrappingAdd, i, one, None);
        fb.copy(i, next);
        fb.terminate(Terminator::Jump(cond));
        fb.switch_to(exit);
        fb.terminate(Terminator::Return(None));
        pb.finish()
    }

    fn shape(program: &Program) -> Vec<(usize, String)> {
        let f = &program.functions[0];
        f.blocks
            .iter()
            .map(|b| (b.insts.len(), format!("{:?}", b.term)))
            .collect()
    }

    #[test]
    fn a_loop_tests_its_condition_at_the_bottom() {
        let mut program = counting_loop(false);
        thread_condition_jumps(&mut program);
        verify_program(&program).expect("the threaded program verifies");
        let f = &program.functions[0];
        // The entry and the body each end with the condition's copy and its branch; the
        // condition block nothing jumps to any more is gone.
        assert_eq!(f.blocks.len(), 3);
        for block in &f.blocks[..2] {
            assert!(matches!(block.term, Terminator::Branch { .. }));
            let last: Vec<&str> = block
                .insts
                .iter()
                .rev()
                .take(3)
                .map(|i| i.kind.name())
                .collect();
            assert_eq!(last, ["compare", "const", "const"]);
        }
        let Terminator::Branch {
            then_block,
            else_block,
            ..
        } = f.blocks[1].term
        else {
            unreachable!("checked above")
        };
        assert_eq!((then_block.index(), else_block.index()), (1, 2));
    }

    #[test]
    fn a_condition_that_can_fail_stays_where_it_is() {
        let mut program = counting_loop(true);
        verify_program(&program).expect("the loop verifies");
        let before = shape(&program);
        thread_condition_jumps(&mut program);
        assert_eq!(shape(&program), before);
    }
}
