//! A runtime error carries the source location of the failing instruction and the calls
//! it propagated through, the same on every backend: printed by the CLI (and by aot and
//! c executables) as `error: <kind>: <detail> at FILE:LINE:COL` then `  called from
//! FILE:LINE:COL` lines (16 at most, then a count), and as structured data in
//! `datalove::RuntimeError` for an embedder (`location`, `calls`, `more_calls`).

mod common;

use std::path::Path;

use common::{
    assert_ended, available, datalove, engines, program_with_module, runtime_error, scratch_dir,
    BACKENDS,
};
use datalove::ir::builder::ProgramBuilder;
use datalove::ir::{BinaryOp, IrType};
use datalove::{Backend, Engine, Error, ErrorKind, RuntimeError, SourceLoc};

const OVERFLOW: &str = "\
fun add(a: u8, b: u8): u8
  let s = \"kept\"
  debuglog s
  ret a + b
end fun

fun twice(a: u8): u8
  ret add(a, a)
end fun

debuglog twice(100)
debuglog twice(200)
";

/// `datalove run --backend B --check-leaks [EXTRA] PATH` ends in a runtime error (status
/// 101) on every backend that runs here, printing `stdout` and the error `stderr`, in
/// which `{dir}` stands for the folder of `path`.
fn fails_everywhere(path: &Path, extra: &[&str], stdout: &str, stderr: &str) {
    let dir = path.parent().expect("a file in a folder").display();
    let stderr = stderr.replace("{dir}", &dir.to_string());
    for backend in available(&BACKENDS) {
        let out = datalove()
            .args(["run", "--check-leaks", "--backend", backend])
            .args(extra)
            .arg(path)
            .output()
            .expect("datalove runs");
        assert_ended(&out, backend, 101, stdout, &stderr);
    }
}

/// The runtime error `program` (compiled as `file`) ends with on every engine that runs
/// here, each set up by `configure`: the engine's backend name, the error and what the
/// program printed.
fn errors_everywhere(
    file: &str,
    program: &str,
    configure: impl Fn(Engine) -> Engine,
) -> Vec<(&'static str, RuntimeError, String)> {
    let mut errors = Vec::new();
    for (engine, capture) in engines() {
        let backend = engine.backend().name();
        let module = configure(engine)
            .compile_str(file, program)
            .expect("compiles");
        let error = runtime_error(module.run(), backend);
        errors.push((backend, error, capture.take_string()));
    }
    errors
}

#[test]
fn the_cli_prints_the_location_and_the_calls_on_every_backend() {
    let path = scratch_dir("error-locations").join("overflow.dfs");
    std::fs::write(&path, OVERFLOW).unwrap();
    let expected = "error: overflow: u8 addition at {dir}/overflow.dfs:4:7\n  \
        called from {dir}/overflow.dfs:8:7\n  called from {dir}/overflow.dfs:12:10\n";
    fails_everywhere(&path, &[], "kept\n200\nkept\n", expected);
}

/// `inc` is a leaf and `twice` a small function that calls it: the inliner puts both
/// bodies in place of their calls (an IR pass every backend runs), and the chain still
/// names every call the program wrote.
#[test]
fn an_error_inside_inlined_functions_names_every_call_site() {
    let path = scratch_dir("error-locations").join("inlined.dfs");
    std::fs::write(
        &path,
        "fun inc(x: u8): u8\n  ret x + 1\nend fun\n\nfun twice(x: u8): u8\n  ret inc(x) * 2\n\
         end fun\n\ndebuglog twice(100)\ndebuglog twice(255)\n",
    )
    .unwrap();
    let expected = "error: overflow: u8 addition at {dir}/inlined.dfs:2:7\n  \
        called from {dir}/inlined.dfs:6:7\n  called from {dir}/inlined.dfs:10:10\n";
    fails_everywhere(&path, &[], "202\n", expected);
}

#[test]
fn a_relative_path_is_printed_as_given() {
    let dir = scratch_dir("error-locations-relative");
    std::fs::write(dir.join("prog.dfs"), "let x: u8 = 255\ndebuglog x + 1\n").unwrap();
    for backend in available(&BACKENDS) {
        let out = datalove()
            .args(["run", "--backend", backend, "prog.dfs"])
            .current_dir(&dir)
            .output()
            .expect("datalove runs");
        assert_ended(
            &out,
            backend,
            101,
            "",
            "error: overflow: u8 addition at prog.dfs:2:10\n",
        );
    }
}

/// `down` is small, so the inliner unrolls it once into itself; at either parity of the
/// limit the refused call and the count are those of the calls the program wrote.
#[test]
fn a_deep_recursion_reports_the_refused_call_and_counts_the_calls_past_sixteen() {
    let path = scratch_dir("error-locations").join("deep.dfs");
    std::fs::write(
        &path,
        "fun down(n: u64): u64\n  ret down(n + 1) + 1\nend fun\ndebuglog down(0)\n",
    )
    .unwrap();
    for limit in [5000, 5001] {
        let mut expected = format!(
            "error: stack overflow: call depth limit of {limit} reached at {{dir}}/deep.dfs:2:7\n"
        );
        expected.push_str(&"  called from {dir}/deep.dfs:2:7\n".repeat(16));
        // `limit` calls active: all but one made from `down`, one from the top level.
        expected.push_str(&format!("  ... and {} more calls\n", limit - 16));
        let limit = limit.to_string();
        fails_everywhere(&path, &["--depth-limit", &limit], "", &expected);
    }
}

/// `pieces` is a wrapper (`datalove_ir::wrappers`): its call is made the native call
/// itself, which keeps the wrapper's location, and the chain still names the call.
#[test]
fn a_native_failure_is_located_at_the_native_call() {
    let dir = scratch_dir("error-locations-native");
    let program = program_with_module(
        &dir,
        "text.dfm",
        "require rider std\nimport std.string_split\n\
         fun pieces(ref s: string, ref sep: string): [string]\n  ret string_split(ref s, ref sep)\nend fun\n",
        "import text.pieces\nlet s = \"a,b\"\nlet empty = \"\"\ndebuglog pieces(ref s, ref empty)\n",
    );
    let expected = "error: native failure: std.string_split: the separator is empty at \
        {dir}/text.dfm:4:7\n  called from {dir}/main.dfs:4:10\n";
    fails_everywhere(&program, &[], "", expected);
}

#[test]
fn an_embedder_gets_the_location_and_calls_as_values_on_every_backend() {
    for (backend, e, printed) in errors_everywhere("overflow.dfs", OVERFLOW, |e| e) {
        let mut want = RuntimeError::new(ErrorKind::Overflow, "u8 addition").at(SourceLoc::new(
            "overflow.dfs",
            4,
            7,
        ));
        want.calls = vec![
            SourceLoc::new("overflow.dfs", 8, 7),
            SourceLoc::new("overflow.dfs", 12, 10),
        ];
        assert_eq!(e, want, "{backend}");
        assert_eq!(
            e.to_string(),
            "overflow: u8 addition at overflow.dfs:4:7",
            "{backend}"
        );
        assert_eq!(
            Error::Runtime(e).to_string(),
            "overflow: u8 addition at overflow.dfs:4:7"
        );
        assert_eq!(printed, "kept\n200\nkept\n", "{backend}");
    }
}

#[test]
fn a_deep_recursion_keeps_sixteen_calls_and_counts_the_rest_for_an_embedder() {
    let program = "fun down(n: u64): u64\n  ret down(n + 1) + 1\nend fun\ndebuglog down(0)\n";
    let at = SourceLoc::new("deep.dfs", 2, 7);
    for (backend, e, _) in errors_everywhere("deep.dfs", program, |e| e.depth_limit(300)) {
        assert_eq!(e.kind, ErrorKind::StackOverflow, "{backend}");
        assert_eq!(e.location.as_ref(), Some(&at), "{backend}");
        assert_eq!(e.calls, vec![at.clone(); 16], "{backend}");
        assert_eq!(e.more_calls, 300 - 16, "{backend}");
    }
}

#[test]
fn a_called_function_reports_where_it_failed() {
    for backend in [Backend::Interp, Backend::Jit] {
        let engine = Engine::new(backend).expect("in-process backends run anywhere");
        let module = engine
            .compile_str("overflow.dfs", OVERFLOW)
            .expect("compiles");
        let twice = module.func::<(u8,), u8>("twice").expect("twice");
        let error = twice.call((200,)).expect_err("overflows");
        let Error::Runtime(e) = error else {
            panic!("{}: {error}", backend.name());
        };
        assert_eq!(e.location, Some(SourceLoc::new("overflow.dfs", 4, 7)));
        assert_eq!(e.calls.first(), Some(&SourceLoc::new("overflow.dfs", 8, 7)));
    }
}

#[test]
fn a_program_built_without_locations_reports_none() {
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let mut builder = ProgramBuilder::new();
        datalove_test_support::define_main(&mut builder, |body| {
            let big = body.int(IrType::U8, 255);
            let overflow = body.abandon_block(&[]);
            let sum = body.binary(BinaryOp::Add, big, big, Some(overflow));
            body.debuglog(sum);
        });
        let module = engine.compile_program(builder.finish()).expect("loads");
        let e = runtime_error(module.run(), backend);
        assert_eq!(
            e,
            RuntimeError::new(ErrorKind::Overflow, "u8 addition"),
            "{backend}"
        );
        assert_eq!(e.to_string(), "overflow: u8 addition", "{backend}");
    }
}

#[test]
fn an_exhausted_shadow_stack_is_located_at_the_call_whose_frame_did_not_fit() {
    // Each call of `down` keeps a local of its type parameter on the shadow stack.
    let program = "\
fun down<T>(x: T, n: u64): u64
  let y = x
  ret down(y, n + 1) + 1
end fun
debuglog down((1u64, 2u64, 3u64, 4u64), 0)
";
    let at = SourceLoc::new("shadow.dfs", 3, 7);
    for (backend, e, _) in errors_everywhere("shadow.dfs", program, |e| e.shadow_stack_size(4096)) {
        assert_eq!(e.kind, ErrorKind::ShadowStackExhausted, "{backend}: {e}");
        assert_eq!(e.location.as_ref(), Some(&at), "{backend}");
        assert_eq!(e.calls.first(), Some(&at), "{backend}");
        assert!(e.more_calls > 0, "{backend}: {e:?}");
    }
}
