//! Walks of a map's entries in place, an IR pass every backend gains from (after the
//! views of parts, before the splits in place).
//!
//! `for entry in entries(ref counts)` asks the `std` native `map_entries` for a list of
//! every entry, cloned (a string key is an allocation and a copy), walks it with
//! `list_get.view`, then drops it. Where nothing can change the map while that list
//! lives, the map's own entries do the same: the list's length is `map_len m` and each
//! element `map_entry m[i]`, a view of the entry in the map (`InstKind::MapEntry`, which
//! the verifier checks by its rules for views), reached in O(1) from the one before. This
//! pass writes that where, in one function, a slot `l`:
//!
//! - is written once, by `l = call_native std.map_entries(ref m)`;
//! - is named elsewhere only by `n = list_len l`, `e = list_get.view l[i]` (with an
//!   abandon block) and `drop l`;
//! - and on every path from that call to a `drop l`, `m` is only read: passed `ref`,
//!   cloned, compared, printed (no write, no `mut`, `in` or `out` argument, no move), so
//!   the walk sees the entries the list would have held, in the same order.
//!
//! The call and every `drop l` go (and the blocks only its failure reached); `l` is left
//! unnamed. The program's output, errors and
//! drops are those of the list (the function is verified after the change, and kept as
//! it was if the verifier refuses it).

use std::collections::HashSet;

use crate::program::{BlockId, Function, InstKind, Program, SlotId};
use crate::types::ParamMode;

/// The `std` native whose result this pass replaces.
const ENTRIES_SYMBOL: &str = "dlr_std__map_entries";

/// Walks in place every list of a map's entries that nothing changes the map under, in
/// every function.
pub fn walk_map_entries_in_place(program: &mut Program) {
    for at in 0..program.functions.len() {
        let before = program.functions[at].clone();
        if !walk_in_function(&mut program.functions[at]) {
            continue;
        }
        if crate::verify::verify_function(program, &program.functions[at]).is_err() {
            program.functions[at] = before;
        }
    }
}

/// A list of entries the pass makes a walk of the map: its slot, the map's, and where the
/// call is.
struct Walk {
    list: SlotId,
    map: SlotId,
    block: usize,
    inst: usize,
}

fn walk_in_function(f: &mut Function) -> bool {
    let mut walks: Vec<Walk> = candidates(f)
        .into_iter()
        .filter(|w| map_only_read_while_listed(f, w))
        .collect();
    // The last call first, so each removal leaves the places of the others.
    walks.sort_by_key(|w| std::cmp::Reverse((w.block, w.inst)));
    for w in &walks {
        rewrite(f, w);
    }
    if walks.is_empty() {
        return false;
    }
    // The calls' abandon paths, and the drops', are reached no more.
    crate::inline::remove_unreachable_blocks(f);
    true
}

/// Every `l = call_native std.map_entries(ref m)` whose `l` is written nowhere else and
/// named only as a walk names it.
fn candidates(f: &Function) -> Vec<Walk> {
    let params: HashSet<SlotId> = f.params.iter().map(|p| p.slot).collect();
    let mut found = Vec::new();
    for (bi, block) in f.blocks.iter().enumerate() {
        for (ii, inst) in block.insts.iter().enumerate() {
            let InstKind::CallNative {
                dst: Some(list),
                native,
                args,
            } = &inst.kind
            else {
                continue;
            };
            if native.symbol() != ENTRIES_SYMBOL
                || args.len() != 1
                || args[0].mode != ParamMode::Ref
                || params.contains(list)
                || args[0].slot == *list
            {
                continue;
            }
            let walk = Walk {
                list: *list,
                map: args[0].slot,
                block: bi,
                inst: ii,
            };
            if named_only_as_walked(f, &walk) {
                found.push(walk);
            }
        }
    }
    found
}

/// Whether the list slot is named, beside its call, only by `list_len`, `list_get.view`
/// with an abandon block, and `drop`, and in no terminator.
fn named_only_as_walked(f: &Function, w: &Walk) -> bool {
    for (bi, block) in f.blocks.iter().enumerate() {
        if block.term.slot() == Some(w.list) {
            return false;
        }
        for (ii, inst) in block.insts.iter().enumerate() {
            if (bi, ii) == (w.block, w.inst) {
                continue;
            }
            let named = crate::verify::inst_slots(&inst.kind)
                .into_iter()
                .filter(|&s| s == w.list)
                .count();
            if named == 0 {
                continue;
            }
            let fits = match inst.kind {
                InstKind::ListLen { dst, list } => list == w.list && dst != w.list,
                InstKind::ListGet {
                    dst,
                    list,
                    index,
                    view: true,
                    ..
                } => {
                    list == w.list
                        && dst != w.list
                        && index != w.list
                        && dst != w.map
                        && inst.abandon.is_some()
                }
                InstKind::Drop { slot } => slot == w.list,
                _ => false,
            };
            if !fits || named != 1 {
                return false;
            }
        }
    }
    true
}

/// Whether, on every path from the call to a `drop` of the list, the map is only read.
fn map_only_read_while_listed(f: &Function, w: &Walk) -> bool {
    // (block, first instruction) still to walk; each block entered at its start once.
    let mut todo: Vec<(usize, usize)> = vec![(w.block, w.inst + 1)];
    let mut entered: HashSet<usize> = HashSet::new();
    while let Some((bi, from)) = todo.pop() {
        let block = &f.blocks[bi];
        let mut dropped = false;
        for inst in &block.insts[from..] {
            if matches!(inst.kind, InstKind::Drop { slot } if slot == w.list) {
                dropped = true;
                break;
            }
            if !only_reads(&inst.kind, w.map) {
                return false;
            }
            if let Some(abandon) = inst.abandon {
                enter(&mut todo, &mut entered, abandon);
            }
        }
        if dropped {
            continue;
        }
        if block.term.slot() == Some(w.map) {
            return false;
        }
        for next in block.term.successors() {
            enter(&mut todo, &mut entered, next);
        }
    }
    true
}

fn enter(todo: &mut Vec<(usize, usize)>, entered: &mut HashSet<usize>, block: BlockId) {
    if entered.insert(block.index()) {
        todo.push((block.index(), 0));
    }
}

/// Whether `kind` leaves `map` as it was: it does not name it, or only reads it.
fn only_reads(kind: &InstKind, map: SlotId) -> bool {
    use InstKind as K;
    let named = crate::verify::inst_slots(kind)
        .into_iter()
        .filter(|&s| s == map)
        .count();
    if named == 0 {
        return true;
    }
    match kind {
        K::Call { dst, args, .. } | K::CallNative { dst, args, .. } => {
            *dst != Some(map)
                && args
                    .iter()
                    .filter(|a| a.slot == map)
                    .all(|a| a.mode == ParamMode::Ref)
        }
        K::Clone { dst, .. } | K::Compare { dst, .. } | K::MapLen { dst, .. } => *dst != map,
        K::MapEntry { dst, index, .. } => *dst != map && *index != map,
        K::Debuglog { .. } => true,
        _ => false,
    }
}

/// The walk written: the call and the drops gone, the length and the elements the map's.
fn rewrite(f: &mut Function, w: &Walk) {
    let (list, map) = (w.list, w.map);
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            match inst.kind {
                InstKind::ListLen { dst, list: l } if l == list => {
                    inst.kind = InstKind::MapLen { dst, map };
                }
                InstKind::ListGet {
                    dst,
                    list: l,
                    index,
                    ..
                } if l == list => {
                    inst.kind = InstKind::MapEntry { dst, map, index };
                }
                _ => {}
            }
        }
    }
    // The call (its index still holds: nothing was removed yet), then every drop.
    f.blocks[w.block].insts.remove(w.inst);
    for block in &mut f.blocks {
        block
            .insts
            .retain(|inst| !matches!(inst.kind, InstKind::Drop { slot } if slot == list));
    }
}
