//! Splits whose pieces stay in the split string, an IR pass every backend gains from
//! (after the walks of maps, the last of the passes).
//!
//! `for line in split(ref text, ref "\n")` asks the `std` native `string_split` for a
//! list of every piece, each a string of its own (an allocation and a copy per piece),
//! reads it with `list_get.view`, then drops it. Where nothing changes `text` while that
//! list lives, and the list is only read, the pieces need no bytes of their own: the
//! IR's `str_parts` makes the same list of heads over `text`'s bytes that own nothing
//! (`InstKind::StrParts`; the runtime's `string_parts`). The verifier holds the result
//! to its rule (while the list is initialized, `text` and whatever it is a view of are
//! only read; the list is only read and dropped), so this pass only picks the calls and
//! lets the verifier decide: a call becomes a `str_parts` where
//!
//! - it is `l = call_native std.string_split(ref s, ref sep)` whose `sep` is written
//!   only by constants that are not empty (the native's one failure, an empty
//!   separator, cannot happen, and `str_parts` cannot fail), or
//!   `l = call_native std.string_split_whitespace(ref s)`;
//! - `l` is written by no other instruction and is no parameter;
//! - and the function, so changed, verifies.
//!
//! All the calls of a function are tried at once first; if the verifier refuses that,
//! each alone, in order, keeping those it accepts (at most [`TRIES`] of them, so a long
//! function of many refused splits is not verified once per split without end). The
//! calls' abandon paths that only they reached go. What the program prints, its errors
//! and its drops are those of the list of copies: a list of parts reads the same bytes,
//! and its drop frees the list alone.

use crate::program::{ConstValue, Function, InstKind, Program, SlotId};
use crate::types::ParamMode;

/// The `std` natives whose lists this pass makes lists of parts.
const SPLIT_SYMBOL: &str = "dlr_std__string_split";
const SPLIT_WHITESPACE_SYMBOL: &str = "dlr_std__string_split_whitespace";

/// The most calls of one function tried one by one, after all at once was refused.
const TRIES: usize = 32;

/// Makes lists of parts of the splits that nothing changes the string under, in every
/// function.
pub fn split_in_place(program: &mut Program) {
    for at in 0..program.functions.len() {
        let lists = candidates(&program.functions[at]);
        if lists.is_empty() {
            continue;
        }
        if try_lists(program, at, &lists) {
            continue;
        }
        for list in lists.iter().take(TRIES) {
            try_lists(program, at, std::slice::from_ref(list));
        }
    }
}

/// Rewrites the splits into `lists` in function `at` and keeps the change if the
/// function verifies; whether it did.
fn try_lists(program: &mut Program, at: usize, lists: &[SlotId]) -> bool {
    let before = program.functions[at].clone();
    let f = &mut program.functions[at];
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            if let Some(parts) = as_parts(&inst.kind).filter(|p| lists.contains(&dst_of(p))) {
                inst.kind = parts;
                inst.abandon = None;
            }
        }
    }
    crate::inline::remove_unreachable_blocks(f);
    if crate::verify::verify_function(program, &program.functions[at]).is_ok() {
        return true;
    }
    program.functions[at] = before;
    false
}

fn dst_of(parts: &InstKind) -> SlotId {
    match parts {
        InstKind::StrParts { dst, .. } => *dst,
        _ => unreachable!("only `str_parts` is made here"),
    }
}

/// The `str_parts` a split call would be, by its shape alone.
fn as_parts(kind: &InstKind) -> Option<InstKind> {
    let InstKind::CallNative {
        dst: Some(dst),
        native,
        args,
    } = kind
    else {
        return None;
    };
    if args
        .iter()
        .any(|a| a.mode != ParamMode::Ref || a.slot == *dst)
    {
        return None;
    }
    match (native.symbol(), args.as_slice()) {
        (SPLIT_SYMBOL, [s, sep]) => Some(InstKind::StrParts {
            dst: *dst,
            string: s.slot,
            sep: Some(sep.slot),
        }),
        (SPLIT_WHITESPACE_SYMBOL, [s]) => Some(InstKind::StrParts {
            dst: *dst,
            string: s.slot,
            sep: None,
        }),
        _ => None,
    }
}

/// The result slots of the split calls of `f` that may become lists of parts: written
/// by that call alone, no parameter, and with a separator only ever a constant that is
/// not empty.
fn candidates(f: &Function) -> Vec<SlotId> {
    let mut writes = vec![0u32; f.slots.len()];
    let mut nonempty_constant = vec![true; f.slots.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.kind.for_each_written(|s| writes[s.index()] += 1);
        let constant = matches!(&inst.kind, InstKind::Const { value: ConstValue::Str(text), .. } if !text.is_empty());
        if !constant {
            inst.kind
                .for_each_written(|s| nonempty_constant[s.index()] = false);
        }
    }
    for p in &f.params {
        nonempty_constant[p.slot.index()] = false;
    }
    let mut found = Vec::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let Some(InstKind::StrParts { dst, sep, .. }) = as_parts(&inst.kind) else {
            continue;
        };
        let separator_fits =
            sep.is_none_or(|sep| nonempty_constant[sep.index()] && writes[sep.index()] > 0);
        let is_param = f.params.iter().any(|p| p.slot == dst);
        if writes[dst.index()] == 1 && separator_fits && !is_param && !found.contains(&dst) {
            found.push(dst);
        }
    }
    found
}
