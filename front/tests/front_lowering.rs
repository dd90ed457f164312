//! Programs that exercise the ownership side of lowering: every one must lower to IR the
//! verifier accepts (drops at joins, abandon paths with owned temporaries and written
//! `out` parameters, moves in loops, short-circuit operators, generic code).

mod front_support;

use datalove_ir::{InstKind, Program, Terminator};
use front_support::{compile_ok, LOWERING_PROGRAMS as PROGRAMS};

fn count_insts(p: &Program, pred: impl Fn(&InstKind) -> bool) -> usize {
    p.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.insts.iter())
        .filter(|i| pred(&i.kind))
        .count()
}

#[test]
fn every_program_lowers_to_verified_ir() {
    for (name, text) in PROGRAMS {
        compile_ok(&format!("{name}.dfs"), text, &[]);
    }
}

#[test]
fn conditional_move_drops_on_the_other_path() {
    let c = compile_ok("t.dfs", PROGRAMS[0].1, &[]);
    let main = c.program.function(c.program.entry());
    // The string is moved on one path and dropped on the other, once each.
    let drops = count_insts(
        &c.program,
        |k| matches!(k, InstKind::Drop { slot } if main.slot(*slot).name.as_deref() == Some("s")),
    );
    assert!(
        drops >= 1,
        "{}",
        datalove_ir::print::print_program(&c.program)
    );
}

#[test]
fn every_fallible_instruction_has_an_abandon_path_that_abandons() {
    for (name, text) in PROGRAMS {
        let c = compile_ok(&format!("{name}.dfs"), text, &[]);
        for f in &c.program.functions {
            for b in &f.blocks {
                for i in &b.insts {
                    assert_eq!(
                        i.kind.is_fallible(f),
                        i.abandon.is_some(),
                        "{name}: {}",
                        i.kind.name()
                    );
                    // The path is a chain of blocks that only drop, ending in `abandon`.
                    let mut next = i.abandon;
                    let mut steps = 0;
                    while let Some(a) = next {
                        let block = f.block(a);
                        assert!(
                            block
                                .insts
                                .iter()
                                .all(|i| matches!(i.kind, InstKind::Drop { .. })),
                            "{name}"
                        );
                        next = match block.term {
                            Terminator::Abandon => None,
                            Terminator::Jump(b) => Some(b),
                            ref other => panic!("{name}: an abandon path ends in {other:?}"),
                        };
                        steps += 1;
                        assert!(steps <= f.blocks.len(), "{name}: an abandon path loops");
                    }
                }
            }
        }
    }
}

#[test]
fn native_call_carries_undetermined_bindings() {
    let c = compile_ok(
        "t.dfs",
        "import fixedint.zero\nlet a: u16 = zero()\ndebuglog a\n",
        &[],
    );
    let zero = c
        .program
        .function_by_name("fixedint.zero")
        .expect("zero is compiled");
    let f = c.program.function(zero);
    let native = f
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .find_map(|i| match &i.kind {
            InstKind::CallNative { native, .. } => Some(native),
            _ => None,
        })
        .expect("zero calls fixedint_zero");
    assert_eq!(native.symbol(), "dlr_std__fixedint_zero");
    assert_eq!(native.undetermined_type_params, vec![0]);
    // Written over the caller's own type parameter.
    assert_eq!(
        native.undetermined_bindings,
        vec![datalove_ir::IrType::Param(0)]
    );
    // And the script binds zero's T to u16: `zero` is a wrapper (`datalove_ir::wrappers`),
    // so main calls the native itself, its binding in main's terms.
    let main = c.program.function(c.program.entry());
    let bindings = main
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .find_map(|i| match &i.kind {
            InstKind::CallNative { native, .. } => Some(native.undetermined_bindings.clone()),
            _ => None,
        })
        .expect("main calls fixedint_zero where it called zero");
    assert_eq!(bindings, vec![datalove_ir::IrType::U16]);
}

#[test]
fn instructions_carry_source_locations() {
    let c = compile_ok("t.dfs", "let x: u8 = 1\n\ndebuglog x + 2\n", &[]);
    let main = c.program.function(c.program.entry());
    let lines: Vec<u32> = main
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .filter_map(|i| i.loc.map(|l| l.line))
        .collect();
    assert!(lines.contains(&1) && lines.contains(&3), "{lines:?}");
    assert_eq!(c.program.files[0].name, "t.dfs");
}

/// Values that stay live across many fallible instructions share their abandon path:
/// the IR grows linearly with the program (one drop per value, not one per value per
/// instruction).
#[test]
fn abandon_paths_are_shared_so_the_ir_grows_linearly() {
    let program = |n: usize| {
        let mut t = String::from("var k: u64 = 0\n");
        for i in 0..n {
            t.push_str(&format!("let s{i} = \"x\"\nset k = k + 1\n"));
        }
        compile_ok("owned.dfs", &t, &[]).program
    };
    let drops = |p: &Program| count_insts(p, |k| matches!(k, InstKind::Drop { .. }));
    let (small, large) = (program(100), program(1000));
    // 100 values dropped at the end plus one abandon drop each: 200 and 2000.
    assert!(drops(&small) <= 2 * 100 + 10, "{}", drops(&small));
    assert!(drops(&large) <= 2 * 1000 + 10, "{}", drops(&large));
}
