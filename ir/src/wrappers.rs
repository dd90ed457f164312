//! Natives called where their wrappers were: a function whose whole body is one call of
//! a native, handed its parameters as they came (`maps.insert<K, V>` is
//! `map_insert(mut m, key, value)`, `strings.split` is `string_split(ref s, ref sep)`),
//! is a *wrapper*, and each call of it becomes that native call itself, at the caller's
//! types. The library's collections and text are such wrappers, so this is the call
//! every `insert`, `get` and `split` makes.
//!
//! What the rewrite saves: the wrapper's frame and, for a generic wrapper, the
//! descriptors its body makes from its type arguments at every call (`map[K, V]` built
//! through the runtime's interner from `K` and `V`): at the caller's types they are
//! constants. What it keeps: the native call is the wrapper's instruction, with the
//! wrapper's location, so an error it raises is raised where it was (`at maps.dfm:39:7`);
//! its abandon edge goes through a block that adds the call's site to the chain of calls
//! (`called_from`), as the wrapper returning abandoning did, and on to the call's abandon
//! block, which drops what the caller held. The arguments are passed in the modes the
//! call passed them (the wrapper took them in the same modes and passed them on), so
//! what is moved, lent and changed is unchanged.
//!
//! A wrapper is a leaf the inliner would take if it were not generic and did not call a
//! native, and it counts as one: like an inlined leaf ([`crate::inline`]), the call no
//! longer takes call depth (`docs/abi.md`, section 12), on every backend alike.

use crate::program::{Arg, Block, BlockId, Function, Inst, InstKind, Program, Terminator};
use crate::types::{IrType, ParamMode};

/// The parts of a wrapper ([`wrapper`]): its one native call and what it returns.
#[derive(Clone)]
struct Wrapper {
    call: Inst,
    /// The parameter each argument of the native call is, by index.
    params: Vec<usize>,
    /// Whether the wrapper returns the native's result (else it returns nothing).
    returns: bool,
    /// Whether the native's result, when the wrapper does not return it, is a `unit`.
    result_unit: bool,
}

/// `f`'s native call, when `f` is a wrapper: an entry block of one `call_native` whose
/// arguments are `f`'s parameters, each once and in the mode it came in (`in`, `ref` or
/// `mut`), that returns the call's result or nothing; its abandon block abandons and does
/// nothing else.
fn wrapper(f: &Function) -> Option<Wrapper> {
    let entry = f.block(f.entry);
    let [call] = entry.insts.as_slice() else {
        return None;
    };
    let InstKind::CallNative { dst, args, .. } = &call.kind else {
        return None;
    };
    let abandon = f.block(call.abandon?);
    if !abandon.insts.is_empty() || !matches!(abandon.term, Terminator::Abandon) {
        return None;
    }
    if args.len() != f.params.len() {
        return None;
    }
    let mut params = Vec::with_capacity(args.len());
    for a in args {
        let p = f.params.iter().position(|p| p.slot == a.slot)?;
        let mode = f.params[p].mode;
        if a.mode != mode
            || !matches!(mode, ParamMode::In | ParamMode::Ref | ParamMode::Mut)
            || params.contains(&p)
        {
            return None;
        }
        params.push(p);
    }
    let returns = match entry.term {
        Terminator::Return(Some(r)) if Some(r) == *dst => true,
        Terminator::Return(None) => false,
        _ => return None,
    };
    if dst.is_some_and(|d| f.param_mode(d).is_some()) {
        return None;
    }
    let result_unit = dst.is_none_or(|d| *f.slot_type(d) == IrType::Unit);
    Some(Wrapper {
        call: call.clone(),
        params,
        returns,
        result_unit,
    })
}

/// Replaces every call of a wrapper in `program` by the wrapper's native call. Whether
/// any was.
pub fn call_natives_directly(program: &mut Program) -> bool {
    let wrappers: Vec<Option<Wrapper>> = program.functions.iter().map(wrapper).collect();
    if wrappers.iter().all(Option::is_none) {
        return false;
    }
    let mut any = false;
    for f in &mut program.functions {
        any |= call_in(f, &wrappers);
    }
    any
}

/// Rewrites the calls of wrappers in `f`; whether there was any.
fn call_in(f: &mut Function, wrappers: &[Option<Wrapper>]) -> bool {
    let mut changed = false;
    for bi in 0..f.blocks.len() {
        for ii in 0..f.blocks[bi].insts.len() {
            let inst = &f.blocks[bi].insts[ii];
            let Some(call) = inst.kind.as_program_call() else {
                continue;
            };
            let Some(w) = &wrappers[call.func.index()] else {
                continue;
            };
            let Some(kind) = native_call(f, w, &call) else {
                continue;
            };
            let abandon = inst.abandon.expect("verified: a call has an abandon block");
            let site = inst.loc;
            // Where the native's failures go: the call's site joins the chain of calls,
            // then the call's own abandon block.
            let landing = BlockId(f.blocks.len() as u32);
            f.blocks.push(Block {
                insts: vec![Inst {
                    kind: InstKind::CalledFrom,
                    abandon: None,
                    loc: site,
                }],
                term: Terminator::Jump(abandon),
            });
            f.blocks[bi].insts[ii] = Inst {
                kind,
                abandon: Some(landing),
                loc: w.call.loc,
            };
            changed = true;
        }
    }
    changed
}

/// The native call that stands for `call` of wrapper `w` in `f`: the caller's arguments,
/// the call's destination, the native's undetermined type parameters bound in the
/// caller's terms. `None` when the destinations differ: the call discards a result the
/// wrapper returns (the rewrite would have to drop it), or the wrapper drops its native's
/// scalar result and returns nothing (the call's `unit` is not that scalar).
fn native_call(
    f: &Function,
    w: &Wrapper,
    call: &crate::program::ProgramCall<'_>,
) -> Option<InstKind> {
    let InstKind::CallNative {
        dst: native_dst,
        native,
        args,
    } = &w.call.kind
    else {
        unreachable!("a wrapper's call is a native call")
    };
    let dst = match (*native_dst, call.dst) {
        (None, _) => None,
        (Some(_), Some(d)) if w.returns => Some(d),
        (Some(_), Some(d)) if w.result_unit && *f.slot_type(d) == IrType::Unit => Some(d),
        _ => return None,
    };
    let mut native = native.clone();
    native.undetermined_bindings = native
        .undetermined_bindings
        .iter()
        .map(|t| t.substitute(call.type_args))
        .collect();
    let args = args
        .iter()
        .zip(&w.params)
        .map(|(a, &p)| Arg {
            mode: a.mode,
            slot: call.args[p].slot,
        })
        .collect();
    Some(InstKind::CallNative { dst, native, args })
}

#[cfg(test)]
mod tests {
    use crate::builder::ProgramBuilder;
    use crate::diag::FileId;
    use crate::program::{ConstValue, FuncId, InstKind, Program, Terminator};
    use crate::types::{IrType, ParamMode, TypeClass, TypeParam};

    const RIDER: &str = "native fun put<T>(mut xs: [T], x: T)\n";

    /// `wrap<T>(mut xs: [T], in x: T)` handing both to the native `put`; with `extra`, a
    /// second instruction in its body makes it no wrapper. `main` makes `xs: [string]`
    /// and calls `wrap<string>(mut xs, in "a")`, then `debuglog xs`.
    fn program(extra: bool) -> (Program, FuncId) {
        let iface = crate::dli::parse_dli("t", FileId(0), RIDER).expect("the interface parses");
        let mut pb = ProgramBuilder::new();
        pb.add_rider("t");
        let main = pb.declare_entry("main");
        let t = IrType::Param(0);
        let wrap = pb.declare_function(
            "wrap",
            vec![TypeParam {
                name: "T".into(),
                class: TypeClass::Any,
            }],
            vec![
                ("xs".into(), ParamMode::Mut, IrType::list(t.clone())),
                ("x".into(), ParamMode::In, t),
            ],
            IrType::Unit,
        );
        {
            let mut fb = pb.function(wrap);
            let (xs, x) = (fb.param(0), fb.param(1));
            let unit = fb.new_slot(IrType::Unit);
            let abandon = fb.new_block();
            if extra {
                let n = fb.new_slot(IrType::I64);
                fb.set_const(n, ConstValue::Int(1));
            }
            let native = iface.context("put", vec![]).expect("declared");
            fb.inst(
                InstKind::CallNative {
                    dst: Some(unit),
                    native: Box::new(native),
                    args: vec![
                        crate::program::Arg {
                            mode: ParamMode::Mut,
                            slot: xs,
                        },
                        crate::program::Arg {
                            mode: ParamMode::In,
                            slot: x,
                        },
                    ],
                },
                Some(abandon),
            );
            fb.terminate(Terminator::Return(None));
            fb.switch_to(abandon);
            fb.terminate(Terminator::Abandon);
        }
        let mut fb = pb.function(main);
        let xs = fb.new_named_slot("xs", IrType::list(IrType::String));
        let a = fb.new_slot(IrType::String);
        let unit = fb.new_slot(IrType::Unit);
        let abandon = fb.new_block();
        fb.inst(
            InstKind::MakeList {
                dst: xs,
                elems: vec![],
            },
            None,
        );
        fb.set_const(a, ConstValue::Str("a".into()));
        fb.call(
            Some(unit),
            wrap,
            vec![IrType::String],
            &[(ParamMode::Mut, xs), (ParamMode::In, a)],
            abandon,
        );
        fb.debuglog(xs);
        fb.inst(InstKind::Drop { slot: xs }, None);
        fb.terminate(Terminator::Return(None));
        fb.switch_to(abandon);
        fb.inst(InstKind::Drop { slot: xs }, None);
        fb.terminate(Terminator::Abandon);
        (pb.finish(), main)
    }

    #[test]
    fn a_call_of_a_generic_wrapper_becomes_its_native_call_at_the_callers_types() {
        let (mut p, main) = program(false);
        crate::verify::verify_program(&p).expect("the wrapper verifies");
        assert!(super::call_natives_directly(&mut p));
        crate::verify::verify_program(&p).expect("the direct call verifies");
        let f = &p.functions[main.index()];
        let text = crate::print::first_block(&p);
        assert!(
            text.contains(&"s2 = call_native dlr_t__put(mut s0, in s1) ; 7 words".to_owned()),
            "{text:?}"
        );
        // Its failures add the call's site to the chain, then go where the call's went.
        let landing = f.blocks[0].insts[2].abandon.expect("fallible");
        let block = f.block(landing);
        assert!(matches!(block.insts[..], [ref i] if matches!(i.kind, InstKind::CalledFrom)));
        assert!(matches!(block.term, Terminator::Jump(b) if b.index() == 1));
    }

    #[test]
    fn a_function_that_does_more_than_call_its_native_is_no_wrapper() {
        let (mut p, _) = program(true);
        let before = crate::print::first_block(&p);
        assert!(!super::call_natives_directly(&mut p));
        assert_eq!(crate::print::first_block(&p), before);
    }
}
