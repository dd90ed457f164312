//! Written `in` parameters, which the text language refuses (D003) but IR built with the
//! builder may have: each backend keeps them where `Function::slot_homes` says (their own
//! storage, or the shadow stack for a type sized at run time), so the caller's value is
//! never changed through them, and every backend prints the same.

mod common;

use datalove::front::Compiled;
use datalove::ir::builder::ProgramBuilder;
use datalove::ir::lowering::SlotHome;
use datalove::ir::{InstKind, IrType, ParamMode, Terminator, TypeClass, TypeParam};
use datalove::{Backend, RunOptions};

fn program() -> datalove::ir::Program {
    let mut pb = ProgramBuilder::new();
    let pair = IrType::Tuple(vec![IrType::I64, IrType::I64]);
    // fun first_after_write(t: (i64, i64)): i64 -- writes its `in` parameter
    let first = pb.declare_function(
        "first_after_write",
        vec![],
        vec![("t".into(), ParamMode::In, pair.clone())],
        IrType::I64,
    );
    let mut fb = pb.function(first);
    let t = fb.param(0);
    let nine = fb.int(IrType::I64, 9);
    let eight = fb.int(IrType::I64, 8);
    fb.inst(
        InstKind::MakeTuple {
            dst: t,
            fields: vec![nine, eight],
        },
        None,
    );
    let out = fb.new_slot(IrType::I64);
    fb.inst(
        InstKind::TupleField {
            dst: out,
            src: t,
            index: 0,
        },
        None,
    );
    fb.terminate(Terminator::Return(Some(out)));
    // fun replace<T>(x: T, y: T): T -- drops its `in` x, then writes y into it
    let replace = pb.declare_function(
        "replace",
        vec![TypeParam {
            name: "T".into(),
            class: TypeClass::Any,
        }],
        vec![
            ("x".into(), ParamMode::In, IrType::Param(0)),
            ("y".into(), ParamMode::In, IrType::Param(0)),
        ],
        IrType::Param(0),
    );
    let mut fb = pb.function(replace);
    let (x, y) = (fb.param(0), fb.param(1));
    fb.drop_slot(x);
    fb.inst(InstKind::Move { dst: x, src: y }, None);
    fb.terminate(Terminator::Return(Some(x)));
    // the script
    let main = pb.declare_function("main", vec![], vec![], IrType::Unit);
    let mut fb = pb.function(main);
    let one = fb.int(IrType::I64, 1);
    let two = fb.int(IrType::I64, 2);
    let tuple = fb.new_slot(pair.clone());
    fb.inst(
        InstKind::MakeTuple {
            dst: tuple,
            fields: vec![one, two],
        },
        None,
    );
    let abandon = fb.abandon_block(&[]);
    let r = fb.new_slot(IrType::I64);
    fb.call(Some(r), first, vec![], &[(ParamMode::In, tuple)], abandon);
    fb.debuglog(r);
    fb.debuglog(tuple);
    let a = fb.int(IrType::U32, 1);
    let b = fb.int(IrType::U32, 2);
    let abandon = fb.abandon_block(&[]);
    let c = fb.new_slot(IrType::U32);
    fb.call(
        Some(c),
        replace,
        vec![IrType::U32],
        &[(ParamMode::In, a), (ParamMode::In, b)],
        abandon,
    );
    fb.debuglog(c);
    fb.debuglog(a);
    fb.terminate(Terminator::Return(None));
    pb.set_entry(main);
    pb.finish_verified().expect("the verifier accepts it")
}

#[test]
fn written_in_parameters_live_in_their_own_home_on_every_backend() {
    let program = program();
    let homes = |name: &str| {
        let f = program.function(program.function_by_name(name).unwrap());
        f.slot_homes()[f.params[0].slot.index()]
    };
    assert_eq!(homes("first_after_write"), SlotHome::Own);
    assert_eq!(homes("replace"), SlotHome::Shadow);
    let compiled = Compiled {
        program,
        sources: Default::default(),
        riders: Vec::new(),
    };
    let options = RunOptions {
        capture: true,
        check_leaks: true,
        ..RunOptions::default()
    };
    for backend in Backend::ALL {
        let Some(result) = common::ran(datalove::run(&compiled, backend, &options)) else {
            continue;
        };
        assert_eq!(
            String::from_utf8_lossy(&result.stdout),
            "9\n(1, 2)\n2\n1\n",
            "{}: {:?}",
            backend.name(),
            result.outcome
        );
        assert_eq!(result.outcome.exit_code, 0, "{}", backend.name());
    }
}
