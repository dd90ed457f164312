//! The IR passes, in the order the front end runs them on every program it lowers, so
//! that every backend runs the same IR. An embedder that builds IR with the builder runs
//! them with [`optimize`]; each pass keeps what the program prints, the errors it raises
//! (kind, location, chain of calls), the call depth at which it is refused and its drops.
//!
//! 0. [`crate::wrappers`]: a call of a function that only hands its parameters to a
//!    native (the library's `maps.insert`, `strings.split`) made that native call.
//! 1. [`crate::inline`]: small functions of scalars inlined at their calls, and the base
//!    cases of the calls left tested by the caller.
//! 2. [`crate::ranges`]: checked arithmetic that cannot overflow made plain.
//! 3. [`crate::ifconv`]: a branch around a step of one (`if c then set x = x + 1`) made
//!    the addition of `c` as an integer (after the ranges pass, whose proofs it keeps;
//!    before threading, which would copy the next condition into the step's block).
//! 4. [`crate::thread`]: loops tested at their bottom (jumps take a copy of small
//!    condition blocks).
//! 5. [`crate::ranges`] again: the parts of an `and` the copied conditions now test on
//!    their own.
//! 6. [`crate::forward`]: straight-line blocks merged, copies forwarded, repeated scalar
//!    operations reused, dead copies removed.
//! 7. [`crate::inline::hoist_depth_checks`]: each call-depth test an inlined call left
//!    moved above the plain scalar arithmetic before it.
//! 8. [`crate::inline::start_past_base_cases`]: the copies of functions that step 1 calls
//!    only where their base case does not hold start past its test.
//! 9. [`crate::bounds`]: list accesses proved in bounds lose their test, in place or in
//!    a copy of their loop that guards run once before it.
//! 10. [`crate::append`]: `set s = s ++ t` appends to `s` in place (`s = concat s, t`).
//! 11. [`crate::slices`]: a part of a string only read before its drop made a view of
//!     the string's bytes (after the inliner has brought `strings.slice`'s cut into its
//!     callers and the forwarding pass has merged its blocks); an owned list element
//!     likewise.
//! 12. [`crate::map_walks`]: a loop over `maps.entries(ref m)` that cannot change `m`
//!     walks the map's own entries (`map_len`, `map_entry`), cloning none.
//! 13. [`crate::split_walks`]: a split of a string that nothing changes while its list
//!     lives, and whose list is only read, makes its pieces heads over the string's
//!     bytes (`str_parts`), copying none.

use crate::program::Program;

/// Runs every pass on `program`, in order.
pub fn optimize(program: &mut Program) {
    crate::wrappers::call_natives_directly(program);
    let copies = crate::inline::inline_small_functions(program);
    crate::ranges::remove_impossible_checks(program);
    crate::ifconv::convert_conditional_steps(program);
    crate::thread::thread_condition_jumps(program);
    crate::ranges::remove_impossible_checks(program);
    crate::forward::forward_copies(program);
    crate::inline::hoist_depth_checks(program);
    crate::inline::start_past_base_cases(program, &copies);
    crate::bounds::remove_proven_bounds_checks(program);
    crate::append::append_in_place(program);
    crate::slices::view_read_parts(program);
    crate::map_walks::walk_map_entries_in_place(program);
    crate::split_walks::split_in_place(program);
}
