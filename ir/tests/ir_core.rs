//! The IR core: the word-count law, NativeContext, the verifier's refusals, the printer.

use datalove_ir::builder::ProgramBuilder;
use datalove_ir::diag::{FileId, Span};
use datalove_ir::native::{
    word_count, NativeDecl, NativeParam, NativeWord, RiderInterface, MAX_C_WORDS,
};
use datalove_ir::print::print_program;
use datalove_ir::verify::verify_program;
use datalove_ir::*;
use datalove_test_support::{define_function, define_identity, define_main};

fn decl(name: &str, params: usize, trailing: usize) -> NativeDecl {
    datalove_test_support::native_decl(name, params, trailing, |_| ParamMode::Ref, IrType::U32)
}

#[test]
fn word_count_law_for_every_arity_and_trailing_count() {
    for params in 0..=14usize {
        for trailing in 0..=3usize {
            let iface = RiderInterface::new("probe", vec![decl("f", params, trailing)]);
            let bindings = vec![IrType::U8; trailing];
            let ctx = iface.context("f", bindings).expect("declared");
            let expected = 1 + 2 * params + 2 + trailing;
            assert_eq!(
                ctx.word_count(),
                expected,
                "{params} params, {trailing} trailing"
            );
            assert_eq!(word_count(params, trailing), expected);
            assert_eq!(ctx.undetermined_type_params.len(), trailing);
            let words = ctx.words();
            assert_eq!(words.len(), expected);
            assert_eq!(words[0], NativeWord::Runtime);
            assert_eq!(words[1 + 2 * params], NativeWord::ResultPointer);
            assert_eq!(ctx.fits(), expected <= MAX_C_WORDS);
        }
    }
}

#[test]
fn symbol_is_spelled_once() {
    assert_eq!(
        native_symbol("std", "fixedint_zero"),
        "dlr_std__fixedint_zero"
    );
    let iface = RiderInterface::new("probe", vec![decl("f", 2, 0)]);
    assert_eq!(iface.context("f", vec![]).unwrap().symbol(), "dlr_probe__f");
}

/// A main function calling native `f` of `decl` with u32 constants.
fn program_calling(d: NativeDecl, trailing: Vec<IrType>) -> Program {
    let iface = RiderInterface::new("probe", vec![d.clone()]);
    let ctx = iface.context(&d.name, trailing.clone()).unwrap();
    let mut pb = ProgramBuilder::new();
    pb.add_rider("probe");
    define_main(&mut pb, |fb| {
        let args: Vec<Arg> = (0..d.params.len())
            .map(|_| Arg {
                mode: ParamMode::Ref,
                slot: fb.int(IrType::U32, 7),
            })
            .collect();
        let dst = match d.result {
            IrType::Unit => None,
            _ => Some(fb.new_slot(trailing[0].clone())),
        };
        let abandon = fb.abandon_block(&[]);
        fb.inst(
            InstKind::CallNative {
                dst,
                native: Box::new(ctx),
                args,
            },
            Some(abandon),
        );
    });
    pb.finish()
}

#[test]
fn natives_up_to_32_words_verify_and_33_are_refused() {
    verify_program(&program_calling(decl("f", 14, 1), vec![IrType::U8])).expect("32 words fit");
    let errors = verify_program(&program_calling(
        decl("f", 14, 2),
        vec![IrType::U8, IrType::U8],
    ))
    .unwrap_err();
    assert!(
        errors.iter().any(|e| e.message.contains("33 C words")),
        "{errors:?}"
    );
}

/// What the verifier says about a program of one function, `main`, built by `build`
/// (returning from the block it leaves open): nothing when it verifies.
fn single_function(
    build: impl FnOnce(&mut datalove_ir::builder::FunctionBuilder<'_>),
) -> Vec<String> {
    let mut pb = ProgramBuilder::new();
    define_main(&mut pb, build);
    match verify_program(&pb.finish()) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    }
}

/// Asserts that the verifier refuses the program of one function `build` makes (see
/// [`single_function`]) with exactly one error, `expected`.
#[track_caller]
fn assert_refused(
    build: impl FnOnce(&mut datalove_ir::builder::FunctionBuilder<'_>),
    expected: &str,
) {
    assert_eq!(single_function(build), vec![expected]);
}

/// `one + one` (`one` an i32 it makes) that may fail to a new abandon path, which
/// drops `drops`; returns `one` and the path, for more instructions to fail to it.
fn add_failing_to_a_path_dropping(
    fb: &mut datalove_ir::builder::FunctionBuilder<'_>,
    drops: &[SlotId],
) -> (SlotId, BlockId) {
    let one = fb.int(IrType::I32, 1);
    let path = fb.abandon_block(drops);
    fb.binary(BinaryOp::Add, one, one, Some(path));
    (one, path)
}

#[test]
fn leaked_value_is_named_by_function_and_block() {
    assert_refused(
        |fb| {
            fb.string("kept");
        },
        "function `main`, block b0, terminator: s0 still owns a value when the function returns (a leak)",
    );
}

#[test]
fn double_drop_is_named_by_instruction() {
    assert_refused(
        |fb| {
            let s = fb.string("x");
            fb.drop_slot(s);
            fb.drop_slot(s);
        },
        "function `main`, block b0, instruction 2 (drop): s0 is read while uninitialized",
    );
}

#[test]
fn fallible_instruction_needs_an_abandon_block() {
    assert_refused(
        |fb| {
            let a = fb.int(IrType::I32, 1);
            let b = fb.int(IrType::I32, 2);
            fb.binary(BinaryOp::Add, a, b, None);
        },
        "function `main`, block b0, instruction 2 (binary): a fallible instruction without an abandon block",
    );
}

#[test]
fn abandon_path_must_drop_what_is_live() {
    assert_refused(
        |fb| {
            let s = fb.string("live");
            add_failing_to_a_path_dropping(fb, &[]);
            fb.drop_slot(s);
        },
        "function `main`, block b0, instruction 2 (binary): s0 still owns a value when this instruction fails, and abandon path b1 does not drop it (a leak)",
    );
}

/// An abandon path that is a chain of blocks (`drop b; jump` to the path that drops `a`)
/// is accepted; shared between instructions, it is checked against each one's state.
#[test]
fn abandon_paths_may_be_chained_and_shared() {
    let errors = single_function(|fb| {
        let a = fb.string("a");
        let (one, drops_a) = add_failing_to_a_path_dropping(fb, &[a]);
        let b = fb.string("b");
        let drops_b_then_a = fb.new_block();
        let here = fb.current_block().expect("open");
        fb.switch_to(drops_b_then_a);
        fb.drop_slot(b);
        fb.terminate(Terminator::Jump(drops_a));
        fb.switch_to(here);
        fb.binary(BinaryOp::Add, one, one, Some(drops_b_then_a));
        fb.binary(BinaryOp::Add, one, one, Some(drops_b_then_a));
        fb.drop_slot(b);
        fb.binary(BinaryOp::Add, one, one, Some(drops_a));
        fb.drop_slot(a);
    });
    assert_eq!(errors, Vec::<String>::new());
}

/// The same shared path, entered where it no longer fits: after `b` was dropped (it
/// would be dropped twice), and where a new value is live that it does not drop.
#[test]
fn a_shared_abandon_path_is_refused_where_it_does_not_fit() {
    assert_refused(
        |fb| {
            let a = fb.string("a");
            let b = fb.string("b");
            let (one, drops_b_then_a) = add_failing_to_a_path_dropping(fb, &[b, a]);
            fb.drop_slot(b);
            fb.binary(BinaryOp::Add, one, one, Some(drops_b_then_a));
            fb.drop_slot(a);
        },
        "function `main`, block b0, instruction 5 (binary): abandon path b1 drops s1, which is uninitialized when this instruction fails",
    );
    assert_refused(
        |fb| {
            let a = fb.string("a");
            let (one, drops_a) = add_failing_to_a_path_dropping(fb, &[a]);
            let c = fb.string("c");
            fb.binary(BinaryOp::Add, one, one, Some(drops_a));
            fb.drop_slot(c);
            fb.drop_slot(a);
        },
        "function `main`, block b0, instruction 4 (binary): s3 still owns a value when this instruction fails, and abandon path b1 does not drop it (a leak)",
    );
}

#[test]
fn an_abandon_path_that_drops_twice_or_loops_is_refused() {
    assert_refused(
        |fb| {
            let a = fb.string("a");
            add_failing_to_a_path_dropping(fb, &[a, a]);
            fb.drop_slot(a);
        },
        "function `main`, block b0, instruction 2 (binary): abandon path b1 drops s0 twice",
    );
    assert_refused(
        |fb| {
            let one = fb.int(IrType::I32, 1);
            let looping = fb.new_block();
            fb.binary(BinaryOp::Add, one, one, Some(looping));
            fb.terminate(Terminator::Return(None));
            fb.switch_to(looping);
            fb.terminate(Terminator::Jump(looping));
        },
        "function `main`, block b1, terminator: the abandon path through b1 loops",
    );
}

/// `s0: i32 < s1: i64`, a comparison of mismatched types.
fn compare_i32_with_i64(fb: &mut datalove_ir::builder::FunctionBuilder<'_>) {
    let a = fb.int(IrType::I32, 1);
    let b = fb.int(IrType::I64, 2);
    fb.compare(CompareOp::Lt, a, b);
}

#[test]
fn type_mismatch_and_unterminated_block() {
    assert_refused(
        |fb| {
            compare_i32_with_i64(fb);
            fb.terminate(Terminator::Return(None));
            fb.new_block();
        },
        "function `main`, block b1, terminator: the block has no terminator",
    );
    assert_refused(
        compare_i32_with_i64,
        "function `main`, block b0, instruction 2 (compare): right operand s1 is i64, expected i32",
    );
}

/// `list_get` or `list_set` of element 0 of the string "ab", the element a new slot of
/// `elem`; the string dropped on both paths.
fn index_into_a_string(
    fb: &mut datalove_ir::builder::FunctionBuilder<'_>,
    set: bool,
    elem: IrType,
) {
    let s = fb.string("ab");
    let i = fb.int(IrType::Index, 0);
    let element = fb.new_slot(elem);
    let fail = fb.abandon_block(&[s]);
    let kind = if set {
        fb.set_const(element, ConstValue::Int(0));
        InstKind::ListSet {
            list: s,
            index: i,
            value: element,
            checked: true,
        }
    } else {
        InstKind::ListGet {
            dst: element,
            list: s,
            index: i,
            checked: true,
            view: false,
        }
    };
    fb.inst(kind, Some(fail));
    fb.drop_slot(s);
    fb.terminate(Terminator::Return(None));
}

#[test]
fn a_string_is_read_by_index_as_bytes_and_never_written() {
    assert_eq!(
        single_function(|fb| index_into_a_string(fb, false, IrType::U8)),
        Vec::<String>::new()
    );
    assert_refused(
        |fb| index_into_a_string(fb, false, IrType::I32),
        "function `main`, block b0, instruction 2 (list_get): destination s2 is i32, expected u8",
    );
    assert_refused(
        |fb| index_into_a_string(fb, true, IrType::U8),
        "function `main`, block b0, instruction 3 (list_set): s0 is string, not a list",
    );
}

/// `s1 = cast s0` of the bool `true` to a new slot of `to`.
fn cast_a_bool(fb: &mut datalove_ir::builder::FunctionBuilder<'_>, to: IrType, checked: bool) {
    let flag = fb.constant(IrType::Bool, ConstValue::Bool(true));
    let dst = fb.new_slot(to);
    let abandon = checked.then(|| fb.abandon_block(&[]));
    fb.inst(
        InstKind::Cast {
            dst,
            src: flag,
            checked,
        },
        abandon,
    );
    fb.debuglog(dst);
    fb.terminate(Terminator::Return(None));
}

#[test]
fn a_bool_casts_to_an_integer_unchecked_only() {
    assert_eq!(
        single_function(|fb| cast_a_bool(fb, IrType::I64, false)),
        Vec::<String>::new()
    );
    assert_refused(
        |fb| cast_a_bool(fb, IrType::F64, false),
        "function `main`, block b0, instruction 1 (cast): cast of a bool to s1 of type f64, not an integer",
    );
    assert_refused(
        |fb| cast_a_bool(fb, IrType::I64, true),
        "function `main`, block b0, instruction 1 (cast): cast involves s0 of type bool, which is not a number",
    );
}

#[test]
fn joins_must_agree_on_owned_values() {
    let errors = single_function(|fb| {
        let s = fb.string("x");
        let c = fb.constant(IrType::Bool, ConstValue::Bool(true));
        let (t, e, j) = (fb.new_block(), fb.new_block(), fb.new_block());
        fb.branch(c, t, e);
        fb.switch_to(t);
        fb.drop_slot(s);
        fb.terminate(Terminator::Jump(j));
        fb.switch_to(e);
        fb.terminate(Terminator::Jump(j));
        fb.switch_to(j);
    });
    assert!(
        errors[0].contains("s0 is initialized on one path into b3 and not on another"),
        "{errors:?}"
    );
}

/// `native fun fixedint_zero<T>(): T where { T is fixedint, }`
fn fixedint_zero() -> NativeDecl {
    NativeDecl {
        name: "fixedint_zero".into(),
        type_params: vec![TypeParam {
            name: "T".into(),
            class: TypeClass::Fixedint,
        }],
        params: vec![],
        result: IrType::Param(0),
        span: Span::new(FileId(0), 0, 0),
    }
}

#[test]
fn printer_shows_calls_with_their_word_count() {
    let p = program_calling(fixedint_zero(), vec![IrType::U8]);
    verify_program(&p).expect("verifies");
    let text = print_program(&p);
    assert!(
        text.contains(
            "s0 = call_native dlr_probe__fixedint_zero() trailing <u8> ; 4 words else abandon b1"
        ),
        "{text}"
    );
}

#[test]
fn class_constraint_is_checked_at_native_calls() {
    let errors = verify_program(&program_calling(fixedint_zero(), vec![IrType::F64])).unwrap_err();
    assert!(
        errors[0]
            .message
            .contains("binds `T` to f64, which is not fixedint"),
        "{errors:?}"
    );
}

/// D010 in built IR: one value passed `mut`/`out` and again to the same call is refused
/// for natives (a Rust native would get two `&mut` to it) and program functions alike.
#[test]
fn mut_and_out_arguments_may_not_alias_another_argument() {
    let d = NativeDecl {
        name: "both".into(),
        type_params: vec![],
        params: vec![
            NativeParam {
                name: "a".into(),
                mode: ParamMode::Mut,
                ty: IrType::String,
            },
            NativeParam {
                name: "b".into(),
                mode: ParamMode::Ref,
                ty: IrType::String,
            },
        ],
        result: IrType::Unit,
        span: Span::new(FileId(0), 0, 0),
    };
    let iface = RiderInterface::new("probe", vec![d]);
    let call_twice = |first: ParamMode, second: ParamMode, native: bool| {
        let mut pb = ProgramBuilder::new();
        pb.add_rider("probe");
        let callee = pb.declare_function(
            "callee",
            vec![],
            vec![
                ("a".into(), first, IrType::String),
                ("b".into(), second, IrType::String),
            ],
            IrType::Unit,
        );
        let mut fb = pb.function(callee);
        if first == ParamMode::Out {
            let v = fb.string("w");
            fb.inst(
                InstKind::Move {
                    dst: fb.param(0),
                    src: v,
                },
                None,
            );
        }
        fb.terminate(Terminator::Return(None));
        define_main(&mut pb, |fb| {
            let s = fb.string("x");
            let args = vec![
                Arg {
                    mode: first,
                    slot: s,
                },
                Arg {
                    mode: second,
                    slot: s,
                },
            ];
            let abandon = fb.abandon_block(&[s]);
            let kind = if native {
                InstKind::CallNative {
                    dst: None,
                    native: Box::new(iface.context("both", vec![]).unwrap()),
                    args,
                }
            } else {
                InstKind::Call {
                    dst: None,
                    func: callee,
                    type_args: vec![],
                    args,
                    depth: 1,
                }
            };
            fb.inst(kind, Some(abandon));
            fb.drop_slot(s);
        });
        datalove_ir::verify::admit(&pb.finish())
    };
    let refused = call_twice(ParamMode::Mut, ParamMode::Ref, true).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "function `main`, block b0, instruction 1 (call_native): s0 is passed `mut` as argument 0 and again (`ref`) as argument 1 of the same call: a value passed `mut` or `out` must be the callee's only view of it (D010)"
    );
    let refused = call_twice(ParamMode::Mut, ParamMode::Ref, false).unwrap_err();
    assert!(
        refused.to_string().contains("instruction 1 (call): s0 is passed `mut` as argument 0 and again (`ref`) as argument 1"),
        "{refused}"
    );
    let refused = call_twice(ParamMode::Mut, ParamMode::Mut, false).unwrap_err();
    assert_eq!(refused.errors.len(), 1, "one error per pair: {refused}");
    assert!(
        refused
            .to_string()
            .contains("passed `mut` as argument 0 and again (`mut`) as argument 1"),
        "{refused}"
    );
    // Two `ref`s of one value are fine.
    call_twice(ParamMode::Ref, ParamMode::Ref, false).expect("two refs");
}

/// A call's callee owns (`in`) or changes (`mut`, `out`) a value only when that argument
/// is its only view of it; the same slot again in the call (even `ref`) is refused.
#[test]
fn a_value_moved_or_changed_by_a_call_is_not_passed_to_it_twice() {
    let mut pb = ProgramBuilder::new();
    let params = [
        ("a", ParamMode::Ref, IrType::String),
        ("b", ParamMode::In, IrType::String),
    ];
    let f = define_function(&mut pb, "f", &params, IrType::Unit, |fb| {
        let b = fb.param(1);
        fb.drop_slot(b);
        None
    });
    define_main(&mut pb, |fb| {
        let s = fb.string("x");
        let abandon = fb.abandon_block(&[]);
        let args = [(ParamMode::Ref, s), (ParamMode::In, s)];
        fb.call(None, f, vec![], &args, abandon);
    });
    let errors = verify_errors(&pb.finish());
    assert_eq!(
        errors,
        vec!["function `main`, block b0, instruction 1 (call): s0 is passed `in` as argument 1 and again (`ref`) as argument 0 of the same call: a value the callee owns must be its only view of it"]
    );
}

/// A callee whose result is a type parameter writes it through a destination whatever
/// the parameter is bound to, unit included: the call must keep it.
#[test]
fn a_result_of_a_type_parameter_is_kept_even_when_bound_to_unit() {
    let mut pb = ProgramBuilder::new();
    let id = define_identity(&mut pb);
    define_main(&mut pb, |fb| {
        let u = fb.constant(IrType::Unit, ConstValue::Unit);
        let abandon = fb.abandon_block(&[]);
        fb.call(None, id, vec![IrType::Unit], &[(ParamMode::In, u)], abandon);
    });
    let errors = verify_errors(&pb.finish());
    assert_eq!(
        errors,
        vec!["function `main`, block b0, instruction 1 (call): the result of `id` is not kept"]
    );
}

/// What the verifier says about `program`, which it must refuse.
fn verify_errors(program: &Program) -> Vec<String> {
    verify_program(program)
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn generic_identity_verifies() {
    let mut pb = ProgramBuilder::new();
    let id = define_identity(&mut pb);
    define_main(&mut pb, |fb| {
        let s = fb.string("hello");
        let r = fb.new_slot(IrType::String);
        let abandon = fb.abandon_block(&[]);
        let args = [(ParamMode::In, s)];
        fb.call(Some(r), id, vec![IrType::String], &args, abandon);
        fb.debuglog(r);
        fb.drop_slot(r);
    });
    pb.finish_verified().expect("verifies");
}

#[test]
fn a_concat_appends_to_its_left_operand_and_never_into_its_right() {
    // `s = concat s, t` changes `s` in place: it verifies, and `s` still owns its value.
    assert_eq!(
        single_function(|fb| {
            let s = fb.string("a");
            let t = fb.string("b");
            fb.inst(
                InstKind::Concat {
                    dst: s,
                    lhs: s,
                    rhs: t,
                },
                None,
            );
            fb.drop_slot(t);
            fb.drop_slot(s);
        }),
        Vec::<String>::new()
    );
    assert_refused(
        |fb| {
            let s = fb.string("a");
            let t = fb.string("b");
            fb.inst(InstKind::Concat { dst: t, lhs: s, rhs: t }, None);
            fb.drop_slot(t);
            fb.drop_slot(s);
        },
        "function `main`, block b0, instruction 2 (concat): concat into its right operand s1: a concat may append to its left operand only",
    );
}

/// `["a"]` and a view of its element 0 (`list_get.view`) in a new slot, read by a
/// `debuglog`; then `after` runs with the view, and the list is dropped.
fn view_of_an_element(
    fb: &mut datalove_ir::builder::FunctionBuilder<'_>,
    after: impl FnOnce(&mut datalove_ir::builder::FunctionBuilder<'_>, SlotId),
) {
    let s = fb.string("a");
    let list = fb.new_slot(IrType::List(Box::new(IrType::String)));
    fb.inst(
        InstKind::MakeList {
            dst: list,
            elems: vec![s],
        },
        None,
    );
    let i = fb.int(IrType::Index, 0);
    let view = fb.new_slot(IrType::String);
    let fail = fb.abandon_block(&[list]);
    fb.inst(
        InstKind::ListGet {
            dst: view,
            list,
            index: i,
            checked: true,
            view: true,
        },
        Some(fail),
    );
    fb.inst(InstKind::Debuglog { src: view }, None);
    after(fb, view);
    fb.drop_slot(list);
    fb.terminate(Terminator::Return(None));
}

#[test]
fn a_view_of_an_element_is_read_and_owes_no_drop() {
    assert_eq!(
        single_function(|fb| view_of_an_element(fb, |_, _| {})),
        Vec::<String>::new()
    );
    // Cloned, it is an owned value like any other.
    assert_eq!(
        single_function(|fb| view_of_an_element(fb, |fb, view| {
            let copy = fb.new_slot(IrType::String);
            fb.inst(
                InstKind::Clone {
                    dst: copy,
                    src: view,
                },
                None,
            );
            fb.drop_slot(copy);
        })),
        Vec::<String>::new()
    );
}

#[test]
fn a_view_is_never_moved_dropped_or_changed() {
    let refused = |after: fn(&mut datalove_ir::builder::FunctionBuilder<'_>, SlotId)| {
        single_function(|fb| view_of_an_element(fb, after))
    };
    let moved = refused(|fb, view| {
        let owner = fb.new_slot(IrType::String);
        fb.inst(
            InstKind::Move {
                dst: owner,
                src: view,
            },
            None,
        );
        fb.drop_slot(owner);
    });
    assert!(
        moved.len() == 1
            && moved[0].contains(
                "s3 is a view of a list element (`list_get.view`) and cannot be moved from"
            ),
        "{moved:?}"
    );
    let dropped = refused(|fb, view| fb.drop_slot(view));
    assert!(
        dropped.len() == 1
            && dropped[0]
                .contains("s3 is a view of a list element (`list_get.view`) and cannot be dropped"),
        "{dropped:?}"
    );
    let appended = refused(|fb, view| {
        let tail = fb.string("b");
        fb.inst(
            InstKind::Concat {
                dst: view,
                lhs: view,
                rhs: tail,
            },
            None,
        );
        fb.drop_slot(tail);
    });
    assert!(
        appended.iter().any(|e| e
            .contains("s3 is a view of a list element (`list_get.view`) and cannot be changed")),
        "{appended:?}"
    );
}

#[test]
fn a_view_ends_when_its_list_changes_and_a_call_cannot_change_the_list_it_views() {
    // A push onto the list the view is of, then a read of the view: it ended.
    let pushed = single_function(|fb| {
        view_of_an_element(fb, |fb, view| {
            let list = SlotId(1);
            let more = fb.string("b");
            fb.inst(InstKind::ListPush { list, value: more }, None);
            fb.inst(InstKind::Debuglog { src: view }, None);
        })
    });
    assert!(
        pushed.len() == 1 && pushed[0].contains("s3 is read while uninitialized"),
        "{pushed:?}"
    );
    // The view `ref` beside its list `mut` in one call.
    let mut pb = ProgramBuilder::new();
    let list_ty = IrType::List(Box::new(IrType::String));
    let touch = define_function(
        &mut pb,
        "touch",
        &[
            ("xs", ParamMode::Mut, list_ty),
            ("x", ParamMode::Ref, IrType::String),
        ],
        IrType::Unit,
        |_| None,
    );
    define_main(&mut pb, |fb| {
        view_of_an_element(fb, |fb, view| {
            let list = SlotId(1);
            let fail = fb.abandon_block(&[list]);
            let args = vec![
                Arg {
                    mode: ParamMode::Mut,
                    slot: list,
                },
                Arg {
                    mode: ParamMode::Ref,
                    slot: view,
                },
            ];
            fb.inst(
                InstKind::Call {
                    dst: None,
                    func: touch,
                    type_args: vec![],
                    args,
                    depth: 1,
                },
                Some(fail),
            );
        })
    });
    let called: Vec<String> = match verify_program(&pb.finish()) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    };
    assert!(
        called
            .iter()
            .any(|e| e.contains("s3 is a view into s1, which the same call is given `mut`")),
        "{called:?}"
    );
}

/// A string made at run time (`"a b" ++ " c"`, so not a constant's bytes), the list of
/// its parts by `" "` (`str_parts`), a view of part 0 read by a `debuglog`; then
/// `after` runs with (string, parts), and `finish` drops what is left (parts, then
/// string, unless it says otherwise).
fn parts_of_a_string(
    fb: &mut datalove_ir::builder::FunctionBuilder<'_>,
    after: impl FnOnce(&mut datalove_ir::builder::FunctionBuilder<'_>, SlotId, SlotId),
    drop_string_first: bool,
) {
    let head = fb.string("a b");
    let tail = fb.string(" c");
    let text = fb.new_slot(IrType::String);
    fb.inst(
        InstKind::Concat {
            dst: text,
            lhs: head,
            rhs: tail,
        },
        None,
    );
    fb.drop_slot(head);
    fb.drop_slot(tail);
    let sep = fb.string(" ");
    let parts = fb.new_slot(IrType::List(Box::new(IrType::String)));
    fb.inst(
        InstKind::StrParts {
            dst: parts,
            string: text,
            sep: Some(sep),
        },
        None,
    );
    fb.drop_slot(sep);
    let i = fb.int(IrType::Index, 0);
    let part = fb.new_slot(IrType::String);
    let fail = fb.abandon_block(&[parts, text]);
    fb.inst(
        InstKind::ListGet {
            dst: part,
            list: parts,
            index: i,
            checked: true,
            view: true,
        },
        Some(fail),
    );
    fb.inst(InstKind::Debuglog { src: part }, None);
    after(fb, text, parts);
    if drop_string_first {
        fb.drop_slot(text);
        fb.drop_slot(parts);
    } else {
        fb.drop_slot(parts);
        fb.drop_slot(text);
    }
    fb.terminate(Terminator::Return(None));
}

#[test]
fn parts_of_a_string_are_read_and_dropped_before_it() {
    assert_eq!(
        single_function(|fb| parts_of_a_string(fb, |_, _, _| {}, false)),
        Vec::<String>::new()
    );
    // A part cloned is a string of its own, which outlives the text.
    assert_eq!(
        single_function(|fb| parts_of_a_string(
            fb,
            |fb, _, parts| {
                let i = fb.int(IrType::Index, 1);
                let copy = fb.new_slot(IrType::String);
                let fail = fb.abandon_block(&[parts, SlotId(2)]);
                fb.inst(
                    InstKind::ListGet {
                        dst: copy,
                        list: parts,
                        index: i,
                        checked: true,
                        view: false,
                    },
                    Some(fail),
                );
                fb.inst(InstKind::Debuglog { src: copy }, None);
                fb.drop_slot(copy);
            },
            false
        )),
        Vec::<String>::new()
    );
    // Dropped after the text: the list of parts is read no more, but the rule holds.
    let late = single_function(|fb| parts_of_a_string(fb, |_, _, _| {}, true));
    assert!(
        late.len() == 1
            && late[0].contains(
                "(drop): s2 is dropped while s4 holds parts of it (`str_parts`): drop s4 first"
            ),
        "{late:?}"
    );
}

#[test]
fn the_string_under_parts_is_only_read_and_the_parts_only_read_and_dropped() {
    let changed = single_function(|fb| {
        parts_of_a_string(
            fb,
            |fb, text, _| {
                let more = fb.string("!");
                fb.inst(
                    InstKind::Concat {
                        dst: text,
                        lhs: text,
                        rhs: more,
                    },
                    None,
                );
                fb.drop_slot(more);
            },
            false,
        )
    });
    assert!(
        changed
            .iter()
            .any(|e| e.contains("s2 is changed while s4 holds parts of it (`str_parts`)")),
        "{changed:?}"
    );
    let pushed = single_function(|fb| {
        parts_of_a_string(
            fb,
            |fb, _, parts| {
                let more = fb.string("d");
                fb.inst(
                    InstKind::ListPush {
                        list: parts,
                        value: more,
                    },
                    None,
                );
            },
            false,
        )
    });
    assert!(
        pushed
            .iter()
            .any(|e| e.contains("s4 holds parts of s2 (`str_parts`) and cannot be changed")),
        "{pushed:?}"
    );
    let moved = single_function(|fb| {
        parts_of_a_string(
            fb,
            |fb, _, parts| {
                let owner = fb.new_slot(IrType::List(Box::new(IrType::String)));
                fb.inst(
                    InstKind::Move {
                        dst: owner,
                        src: parts,
                    },
                    None,
                );
                fb.drop_slot(owner);
                let again = fb.new_slot(IrType::List(Box::new(IrType::String)));
                fb.inst(
                    InstKind::MakeList {
                        dst: again,
                        elems: vec![],
                    },
                    None,
                );
                fb.inst(
                    InstKind::Move {
                        dst: parts,
                        src: again,
                    },
                    None,
                );
            },
            false,
        )
    });
    assert!(
        moved.iter().any(|e| e.contains(
            "s4 holds parts of s2 (`str_parts`) and cannot be moved from (clone it first)"
        )),
        "{moved:?}"
    );
    assert!(
        moved
            .iter()
            .any(|e| e.contains("s4 holds parts of s2 (`str_parts`) and cannot be written")),
        "{moved:?}"
    );
}

#[test]
fn parts_of_a_constant_outlive_its_slot_and_parts_of_a_view_end_with_its_list() {
    // A constant's bytes are the program's: its slot may go first.
    assert_eq!(
        single_function(|fb| {
            let text = fb.string("x y");
            let parts = fb.new_slot(IrType::List(Box::new(IrType::String)));
            fb.inst(
                InstKind::StrParts {
                    dst: parts,
                    string: text,
                    sep: None,
                },
                None,
            );
            fb.drop_slot(text);
            fb.inst(InstKind::Debuglog { src: parts }, None);
            fb.drop_slot(parts);
            fb.terminate(Terminator::Return(None));
        }),
        Vec::<String>::new()
    );
    // Parts of a list element's view: the list may not change while they live.
    let under = single_function(|fb| {
        view_of_an_element(fb, |fb, view| {
            let parts = fb.new_slot(IrType::List(Box::new(IrType::String)));
            fb.inst(
                InstKind::StrParts {
                    dst: parts,
                    string: view,
                    sep: None,
                },
                None,
            );
            let more = fb.string("b");
            fb.inst(
                InstKind::ListPush {
                    list: SlotId(1),
                    value: more,
                },
                None,
            );
            fb.drop_slot(parts);
        })
    });
    assert!(
        under.iter().any(|e| e.contains(
            "s1 is changed while s4 holds parts of it (under the view s3) (`str_parts`)"
        )),
        "{under:?}"
    );
}
