//! The JIT on whole programs: compiled from text or built with `ProgramBuilder`, run on a
//! runtime with leak checking, each outcome (output, error line, exit code) checked.

use std::ffi::c_void;

use datalove_ir::builder::ProgramBuilder;
use datalove_ir::{BinaryOp, IrType, NativeContext, ParamMode, Program};
use datalove_rt::{run_on_thread, Runtime, RuntimeOptions, PROGRAM_STACK_SIZE};
use datalove_rti::{RtHeader, TyDesc};

/// The test rider `t` (its interface and module `m` are `datalove_test_support`'s),
/// implemented here in Rust: the JIT resolves its natives to these.
unsafe extern "C-unwind" fn t_fail(rt: *mut RtHeader, _out: *mut i32, _td: *const TyDesc) -> u8 {
    let message = b"no luck";
    ((*(*rt).table).error_set)(rt, message.as_ptr(), message.len());
    0
}

unsafe extern "C-unwind" fn t_seven(_rt: *mut RtHeader, out: *mut i32, _td: *const TyDesc) -> u8 {
    out.write(7);
    1
}

use datalove_test_support::define_function;
use datalove_test_support::program_from_text as from_text;

struct Ran {
    stdout: String,
    stderr: Vec<String>,
    exit: i32,
}

fn run(program: &Program) -> Ran {
    run_on_thread(PROGRAM_STACK_SIZE, || {
        let mut resolve = |ctx: &NativeContext| -> Result<*const c_void, String> {
            match ctx.symbol() {
                "dlr_t__t_fail" => Ok(t_fail as *const c_void),
                "dlr_t__t_seven" => Ok(t_seven as *const c_void),
                other => Err(format!("no native {other}")),
            }
        };
        let jit = datalove_clif_jit::compile(program, &mut resolve).expect("compiles");
        let rt = Runtime::new(RuntimeOptions {
            check_leaks: true,
            ..RuntimeOptions::capturing()
        });
        // SAFETY: the runtime was made on this thread; the natives are this binary's.
        unsafe { jit.run(rt.handle()) };
        let outcome = rt.finish_report(true);
        Ran {
            stdout: String::from_utf8(rt.take_output()).expect("UTF-8 output"),
            stderr: outcome.stderr_lines,
            exit: outcome.exit_code,
        }
    })
}

#[test]
fn recursion_loops_and_generics() {
    let ran = run(&from_text(
        "fun fib(n: u64): u64\n  if n < 2\n    ret n\n  end if\n  ret fib(n - 1) + fib(n - 2)\nend fun\n\
         fun pair<T>(x: T): (T, [T], ?T)\n  let a = clone(x)\n  let b = clone(x)\n  ret (x, [a], some(b))\nend fun\n\
         debuglog fib(20)\ndebuglog pair(\"s\")\ndebuglog pair(3u8)\nvar xs: [i64] = [1, 2]\npush(mut xs, 3)\ndebuglog xs[2]\n",
    ));
    assert_eq!(
        ran.stdout,
        "6765\n(\"s\", [\"s\"], some(\"s\"))\n(3, [3], some(3))\n3\n"
    );
    assert!(ran.stderr.is_empty(), "{:?}", ran.stderr);
    assert_eq!(ran.exit, 0);
}

/// Runs `program`, which must print `stdout` and then end with a runtime error whose
/// stderr is exactly `error` (its line, then the chain of calls) and exit code 101.
fn fails_with(program: &Program, stdout: &str, error: &[&str]) {
    let ran = run(program);
    assert_eq!(ran.stdout, stdout);
    assert_eq!(ran.stderr, error);
    assert_eq!(ran.exit, 101);
}

#[test]
fn a_failing_native_is_a_runtime_error_and_leaks_nothing() {
    fails_with(
        &from_text("import m.fail\nimport m.seven\nlet s = \"held\" ++ \"!\"\ndebuglog seven()\ndebuglog fail()\ndebuglog s\n"),
        "7\n",
        // At the native call in the module, called from the script's line 5.
        &[
            "error: native failure: t.t_fail: no luck at m.dfm:5:7",
            "  called from main.dfs:5:10",
        ],
    );
}

#[test]
fn overflow_is_a_runtime_error() {
    fails_with(
        &from_text("let a: i32 = 2147483647\nlet b: i32 = 1\ndebuglog 1\ndebuglog a + b\n"),
        "1\n",
        &["error: overflow: i32 addition at main.dfs:4:10"],
    );
}

#[test]
fn deep_recursion_is_a_stack_overflow_not_a_crash() {
    // At the call refused; 16 of the calls it was made from, the rest counted.
    let mut expected =
        vec!["error: stack overflow: call depth limit of 1000000 reached at main.dfs:2:7"];
    expected.extend(["  called from main.dfs:2:7"; 16]);
    expected.push("  ... and 999984 more calls");
    fails_with(
        &from_text("fun down(s: string, n: u64): u64\n  ret down(s, n + 1) + 1\nend fun\ndebuglog down(\"owned\", 0)\n"),
        "",
        &expected,
    );
}

#[test]
fn a_built_program_with_a_generic_identity_and_checked_doubling() {
    let mut pb = ProgramBuilder::new();
    let id = datalove_test_support::define_identity(&mut pb);
    let x = [("x", ParamMode::In, IrType::I8)];
    let double = define_function(&mut pb, "double", &x, IrType::I8, |fb| {
        let x = fb.param(0);
        let overflow = fb.abandon_block(&[]);
        Some(fb.binary(BinaryOp::Add, x, x, Some(overflow)))
    });
    datalove_test_support::define_main(&mut pb, |fb| {
        let s = fb.string("through id");
        let r = fb.new_slot(IrType::String);
        let abandon = fb.abandon_block(&[]);
        fb.call(
            Some(r),
            id,
            vec![IrType::String],
            &[(ParamMode::In, s)],
            abandon,
        );
        fb.debuglog(r);
        let big = fb.int(IrType::I8, 100);
        let doubled = fb.new_slot(IrType::I8);
        let abandon_r = fb.abandon_block(&[r]);
        fb.call(
            Some(doubled),
            double,
            vec![],
            &[(ParamMode::In, big)],
            abandon_r,
        );
        fb.debuglog(doubled);
        fb.drop_slot(r);
    });
    let program = pb.finish_verified().expect("verifies");
    fails_with(&program, "through id\n", &["error: overflow: i8 addition"]);
}
