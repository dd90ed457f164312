//! Views of string parts and list elements, an IR pass every backend gains from (the
//! last of the passes).
//!
//! `slice(ref line, i, i + 1) == " "` cuts a string of its own (an allocation and a
//! copy), compares it and frees it; `word ++ syllables[k]` clones the element, appends
//! the clone and frees it. Where the part is only read before its drop, and the string
//! or list it came from does not change meanwhile, a view of the original does the same:
//! `t = str_slice.view s[a..b]`, a head that owns nothing (`docs/abi.md` §7.3), or
//! `t = list_get.view s[i]`, which the verifier checks by its rules for views
//! (`crate::verify`, views). This pass writes that where, in one block:
//!
//! - `t = str_slice s[a..b]` or `t = list_get s[i]` of an element type that owns
//!   something (`t` not `s`, not a parameter), or that followed at once by `d = move t`
//!   with `t` named nowhere else (the inliner's hand-over of `strings.slice`'s result:
//!   the cut then writes `d` itself);
//! - then instructions that cannot fail (no abandon block, so no failure path drops
//!   `t`), of which those that name `t` or `s` only read them: a comparison, a concat
//!   into a third slot, a length, a byte, `debuglog`, a clone, another slice;
//! - then `drop t`, and `t` is named nowhere else in the function.
//!
//! The drop goes (a view owns nothing); the program's output, errors and drops are
//! those of the copy.

use crate::program::{Function, Inst, InstKind, Program, SlotId};

/// Makes every string part and list element that is only read before its drop a view,
/// in every function.
pub fn view_read_parts(program: &mut Program) {
    for f in &mut program.functions {
        view_in_function(f);
    }
}

fn view_in_function(f: &mut Function) {
    let params: Vec<SlotId> = f.params.iter().map(|p| p.slot).collect();
    let mut named = vec![0u32; f.slots.len()];
    for block in &f.blocks {
        for slot in block.named_slots() {
            named[slot.index()] += 1;
        }
    }
    for block in &mut f.blocks {
        let insts = &mut block.insts;
        let mut i = 0;
        while i < insts.len() {
            let Some((dst, string)) = copied_part(&insts[i].kind, &f.slots) else {
                i += 1;
                continue;
            };
            let mut t = dst;
            // The inliner's `d = move t`: the slice writes `d`.
            if let Some(InstKind::Move { dst: d, src }) = insts.get(i + 1).map(|n| &n.kind) {
                let d = *d;
                if *src == t && named[t.index()] == 2 && d != string && !params.contains(&d) {
                    insts.remove(i + 1);
                    if let InstKind::StrSlice { dst, .. } | InstKind::ListGet { dst, .. } =
                        &mut insts[i].kind
                    {
                        *dst = d;
                    }
                    named[t.index()] = 0;
                    t = d;
                }
            }
            if t != string && !params.contains(&t) {
                if let Some(drop_at) = read_until_dropped(&insts[i + 1..], t, string) {
                    let drop_at = i + 1 + drop_at;
                    let here: u32 = insts[i..=drop_at]
                        .iter()
                        .map(|inst| names(&inst.kind, t))
                        .sum();
                    if here == named[t.index()] {
                        insts.remove(drop_at);
                        named[t.index()] -= 1;
                        if let InstKind::StrSlice { view, .. } | InstKind::ListGet { view, .. } =
                            &mut insts[i].kind
                        {
                            *view = true;
                        }
                    }
                }
            }
            i += 1;
        }
    }
}

/// The copy `kind` makes and what of: `(t, s)` for `t = str_slice s[..]`, and for
/// `t = list_get s[i]` of elements that own something (a copy element's read is its
/// view already).
fn copied_part(kind: &InstKind, slots: &[crate::program::Slot]) -> Option<(SlotId, SlotId)> {
    match *kind {
        InstKind::StrSlice {
            dst,
            string,
            view: false,
            ..
        } => Some((dst, string)),
        InstKind::ListGet {
            dst,
            list,
            view: false,
            ..
        } if !slots[dst.index()].ty.is_copy() => Some((dst, list)),
        _ => None,
    }
}

/// How many times `kind` names `slot`.
fn names(kind: &InstKind, slot: SlotId) -> u32 {
    crate::verify::inst_slots(kind)
        .into_iter()
        .filter(|&s| s == slot)
        .count() as u32
}

/// Where, in the instructions after `t = str_slice s[..]`, `t` is dropped, when every
/// instruction before cannot fail and only reads `t` and `s` if it names them.
fn read_until_dropped(after: &[Inst], t: SlotId, s: SlotId) -> Option<usize> {
    for (k, inst) in after.iter().enumerate() {
        match inst.kind {
            InstKind::Drop { slot } if slot == t => return Some(k),
            _ if inst.abandon.is_some() => return None,
            ref kind if names(kind, t) + names(kind, s) == 0 => {}
            ref kind if only_reads(kind, t, s) => {}
            _ => return None,
        }
    }
    None
}

/// Whether `kind`, which names `t` or `s`, only reads them: it writes neither, moves
/// neither and takes neither by value.
fn only_reads(kind: &InstKind, t: SlotId, s: SlotId) -> bool {
    use InstKind as K;
    let either = |x: SlotId| x == t || x == s;
    match *kind {
        K::Compare { dst, .. } | K::Concat { dst, .. } | K::ListLen { dst, .. } => !either(dst),
        K::ListGet {
            dst, view: false, ..
        } => !either(dst),
        K::Clone { dst, .. } => !either(dst),
        K::StrSlice {
            dst, view: false, ..
        } => !either(dst),
        K::Debuglog { .. } => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::ProgramBuilder;
    use crate::program::{CompareOp, ConstValue, InstKind, Program, Terminator};
    use crate::types::IrType;

    /// `var s = "héllo"`, `t = str_slice s[0..1]`, then `t == "h"`, then (with
    /// `changed`) `s` replaced before `t` is dropped, and `debuglog` of the comparison.
    fn program(changed: bool) -> Program {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let s = fb.new_named_slot("s", IrType::String);
        let (a, b) = (fb.new_slot(IrType::Index), fb.new_slot(IrType::Index));
        let t = fb.new_slot(IrType::String);
        let h = fb.new_slot(IrType::String);
        let same = fb.new_slot(IrType::Bool);
        let abandon = fb.new_block();
        fb.set_const(s, ConstValue::Str("héllo".into()));
        fb.set_const(a, ConstValue::Int(0));
        fb.set_const(b, ConstValue::Int(1));
        fb.inst(
            InstKind::StrSlice {
                dst: t,
                string: s,
                start: a,
                end: b,
                view: false,
            },
            Some(abandon),
        );
        fb.set_const(h, ConstValue::Str("h".into()));
        fb.inst(
            InstKind::Compare {
                dst: same,
                op: CompareOp::Eq,
                lhs: t,
                rhs: h,
            },
            None,
        );
        fb.inst(InstKind::Drop { slot: h }, None);
        if changed {
            fb.inst(InstKind::Drop { slot: s }, None);
            fb.set_const(s, ConstValue::Str("new".into()));
        }
        fb.inst(InstKind::Drop { slot: t }, None);
        fb.debuglog(same);
        fb.inst(InstKind::Drop { slot: s }, None);
        fb.terminate(Terminator::Return(None));
        fb.switch_to(abandon);
        fb.inst(InstKind::Drop { slot: s }, None);
        fb.terminate(Terminator::Abandon);
        pb.finish()
    }

    fn insts(p: &Program) -> Vec<String> {
        crate::print::first_block(p)
    }

    #[test]
    fn a_part_only_read_before_its_drop_becomes_a_view() {
        let mut p = program(false);
        crate::verify::verify_program(&p).expect("the cut shape verifies");
        super::view_read_parts(&mut p);
        crate::verify::verify_program(&p).expect("the view verifies");
        let text = insts(&p);
        assert!(
            text.contains(&"s3 = str_slice.view s0[s1..s2]".to_owned()),
            "{text:?}"
        );
        assert!(!text.contains(&"drop s3".to_owned()), "{text:?}");
    }

    /// `var l = ["ka", "lo"]`, `var w = "x"`, `t = list_get l[1]`, `w = concat w, t`,
    /// then (with `changed`) `l` given a new element before `t` is dropped.
    fn element_program(changed: bool) -> Program {
        let mut pb = ProgramBuilder::new();
        let main = pb.declare_entry("main");
        let mut fb = pb.function(main);
        let list_ty = IrType::List(Box::new(IrType::String));
        let (a, b) = (fb.new_slot(IrType::String), fb.new_slot(IrType::String));
        let l = fb.new_named_slot("l", list_ty);
        let w = fb.new_named_slot("w", IrType::String);
        let i = fb.new_slot(IrType::Index);
        let t = fb.new_slot(IrType::String);
        let abandon = fb.new_block();
        fb.set_const(a, ConstValue::Str("ka".into()));
        fb.set_const(b, ConstValue::Str("lo".into()));
        fb.inst(
            InstKind::MakeList {
                dst: l,
                elems: vec![a, b],
            },
            None,
        );
        fb.set_const(w, ConstValue::Str("x".into()));
        fb.set_const(i, ConstValue::Int(1));
        fb.inst(
            InstKind::ListGet {
                dst: t,
                list: l,
                index: i,
                checked: true,
                view: false,
            },
            Some(abandon),
        );
        fb.inst(
            InstKind::Concat {
                dst: w,
                lhs: w,
                rhs: t,
            },
            None,
        );
        if changed {
            let c = fb.new_slot(IrType::String);
            fb.set_const(c, ConstValue::Str("mi".into()));
            fb.inst(InstKind::ListPush { list: l, value: c }, None);
        }
        fb.inst(InstKind::Drop { slot: t }, None);
        fb.debuglog(w);
        fb.inst(InstKind::Drop { slot: w }, None);
        fb.inst(InstKind::Drop { slot: l }, None);
        fb.terminate(Terminator::Return(None));
        fb.switch_to(abandon);
        fb.inst(InstKind::Drop { slot: w }, None);
        fb.inst(InstKind::Drop { slot: l }, None);
        fb.terminate(Terminator::Abandon);
        pb.finish()
    }

    #[test]
    fn an_element_only_read_before_its_drop_becomes_a_view() {
        let mut p = element_program(false);
        crate::verify::verify_program(&p).expect("the clone shape verifies");
        super::view_read_parts(&mut p);
        crate::verify::verify_program(&p).expect("the view verifies");
        let text = insts(&p);
        assert!(
            text.iter()
                .any(|l| l.starts_with("s5 = list_get.view s2[s4]")),
            "{text:?}"
        );
        assert!(!text.contains(&"drop s5".to_owned()), "{text:?}");
    }

    #[test]
    fn an_element_of_a_list_that_changes_before_its_drop_stays_a_copy() {
        let mut p = element_program(true);
        crate::verify::verify_program(&p).expect("the clone shape verifies");
        let before = insts(&p);
        super::view_read_parts(&mut p);
        assert_eq!(insts(&p), before);
    }

    #[test]
    fn a_part_of_a_string_that_changes_before_its_drop_stays_a_copy() {
        let mut p = program(true);
        let before = insts(&p);
        super::view_read_parts(&mut p);
        assert_eq!(insts(&p), before);
    }
}
