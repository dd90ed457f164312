//! Appending in place, an IR pass every backend gains from (the last of the passes).
//!
//! `set s = s ++ t` lowers to `r = concat s, t`, `drop s`, `s = move r`: a new string
//! of both, the old one freed. Built piece by piece in a loop, a string of `n` bytes
//! then costs O(n^2) copying. The IR's concat into its own left operand,
//! `s = concat s, t`, appends `t` to `s` in place instead, growing its buffer by
//! doubling (amortized O(length of `t`), as Rust's `String::push_str`); this pass
//! writes that where the program's meaning is the same:
//!
//! - `r = concat s, t` (`s` and `r` different slots, `t` any, `s` itself included),
//! - then, in the same block, only drops of other slots, the `drop s`, only drops of
//!   other slots, and `s = move r`;
//! - `r` is named nowhere else in the function.
//!
//! Nothing reads `s` between the concat and the move, so appending to it early is not
//! seen; `t` is read before it changes (the runtime copies `t` first when it is `s`).
//!
//! A chain, `set s = s ++ a ++ b`, the front end lowers as appends itself (one
//! `s = concat s, piece` per piece, where no later piece names `s`): here each
//! intermediate string would be followed by code evaluating the next piece.

use crate::program::{Function, InstKind, Program, SlotId};

/// Rewrites every `set s = s ++ t` shape of every function as an append.
pub fn append_in_place(program: &mut Program) {
    for f in &mut program.functions {
        append_in_function(f);
    }
}

fn append_in_function(f: &mut Function) {
    let mut named = vec![0u32; f.slots.len()];
    for block in &f.blocks {
        for slot in block.named_slots() {
            named[slot.index()] += 1;
        }
    }
    for block in &mut f.blocks {
        let mut i = 0;
        while i < block.insts.len() {
            if let InstKind::Concat { dst, lhs, .. } = block.insts[i].kind {
                // `r` named twice: by the concat and the move.
                if dst != lhs && named[dst.index()] == 2 {
                    if let Some((drop_at, move_at)) = replaced_by(&block.insts[i + 1..], lhs, dst) {
                        let (drop_at, move_at) = (i + 1 + drop_at, i + 1 + move_at);
                        if let InstKind::Concat { dst, .. } = &mut block.insts[i].kind {
                            *dst = lhs;
                        }
                        block.insts.remove(move_at);
                        block.insts.remove(drop_at);
                    }
                }
            }
            i += 1;
        }
    }
}

/// Where, in the instructions after `r = concat s, ..`, `s` is dropped and then given
/// `r` (`s = move r`), when nothing else but drops of other slots comes before.
fn replaced_by(after: &[crate::program::Inst], s: SlotId, r: SlotId) -> Option<(usize, usize)> {
    let mut dropped = None;
    for (k, inst) in after.iter().enumerate() {
        match inst.kind {
            InstKind::Drop { slot } if slot == s && dropped.is_none() => dropped = Some(k),
            InstKind::Drop { slot } if slot != s && slot != r => {}
            InstKind::Move { dst, src } if dst == s && src == r => {
                return dropped.map(|d| (d, k));
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::builder::ProgramBuilder;
    use crate::program::{ConstValue, InstKind, Program, Terminator};
    use crate::types::IrType;

    /// `var s = "a"`, then `set s = s ++ t` as lowered (with `t` a temporary, or `s`
    /// itself; with or without a read of `s` before it is replaced), then `debuglog s`.
    fn program(rhs_is_s: bool, extra_read: bool) -> Program {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let s = fb.new_named_slot("s", IrType::String);
        let t = fb.new_slot(IrType::String);
        let r = fb.new_slot(IrType::String);
        fb.set_const(s, ConstValue::Str("a".into()));
        fb.set_const(t, ConstValue::Str("b".into()));
        let rhs = if rhs_is_s { s } else { t };
        fb.inst(
            InstKind::Concat {
                dst: r,
                lhs: s,
                rhs,
            },
            None,
        );
        if extra_read {
            fb.debuglog(s);
        }
        fb.inst(InstKind::Drop { slot: t }, None);
        fb.inst(InstKind::Drop { slot: s }, None);
        fb.inst(InstKind::Move { dst: s, src: r }, None);
        fb.debuglog(s);
        fb.inst(InstKind::Drop { slot: s }, None);
        fb.terminate(Terminator::Return(None));
        pb.finish()
    }

    fn insts(p: &Program) -> Vec<String> {
        crate::print::first_block(p)
    }

    #[test]
    fn a_concat_that_replaces_its_left_operand_appends_to_it() {
        for rhs_is_s in [false, true] {
            let mut p = program(rhs_is_s, false);
            crate::verify::verify_program(&p).expect("the lowered shape verifies");
            super::append_in_place(&mut p);
            crate::verify::verify_program(&p).expect("the appending shape verifies");
            let rhs = if rhs_is_s { "s0" } else { "s1" };
            let text = insts(&p);
            assert_eq!(text[2], format!("s0 = concat s0, {rhs}"), "{text:?}");
            assert_eq!(text[3..], ["drop s1", "debuglog s0", "drop s0"], "{text:?}");
        }
    }

    #[test]
    fn a_left_operand_read_before_it_is_replaced_keeps_the_concat() {
        let mut p = program(false, true);
        let before = insts(&p);
        super::append_in_place(&mut p);
        assert_eq!(insts(&p), before);
    }
}
