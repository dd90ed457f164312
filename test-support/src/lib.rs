//! What the backends' tests share, written once: a native declaration of any shape (the
//! word-count law is checked against every backend with it), the test rider `t` (C, two
//! natives) with its interface and a module over it, a program compiled from text
//! against them, and an executable built, run with leak checking, and read back.
//!
//! Everything is built for the target the tests were built for, with its C compiler
//! (`datalove_toolchain::Target::current()`), and every program is started through the
//! target's runner ([`run_command`]), so the tests run under `qemu-aarch64` as they do
//! natively.
//!
//! The conformance runner and difftest share their runner's parts here too: the case
//! format's expectation lines ([`case_text`]), the test riders ([`riders`]) and a run
//! with a time limit ([`process`]).

pub mod case_text;
pub mod process;
pub mod riders;

use std::path::{Path, PathBuf};
use std::process::Command;

use datalove_front::{compile, MemoryLoader};
use datalove_ir::builder::{FunctionBuilder, ProgramBuilder};
use datalove_ir::native::NativeParam;
use datalove_ir::{
    FileId, FuncId, IrType, NativeContext, NativeDecl, ParamMode, Program, RiderInterface, SlotId,
    Span, Terminator, TypeClass, TypeParam,
};

/// A native `name` with `params` parameters (parameter `i` of mode `mode(i)` and type
/// `ty`) and `trailing` type parameters no parameter mentions (the result is the first
/// of them; unit when there are none), so it needs `trailing` trailing descriptors.
pub fn native_decl(
    name: &str,
    params: usize,
    trailing: usize,
    mode: impl Fn(usize) -> ParamMode,
    ty: IrType,
) -> NativeDecl {
    NativeDecl {
        name: name.into(),
        type_params: (0..trailing)
            .map(|i| TypeParam {
                name: format!("R{i}"),
                class: TypeClass::Any,
            })
            .collect(),
        params: (0..params)
            .map(|i| NativeParam {
                name: format!("a{i}"),
                mode: mode(i),
                ty: ty.clone(),
            })
            .collect(),
        result: if trailing > 0 {
            IrType::Param(0)
        } else {
            IrType::Unit
        },
        span: Span::new(FileId(0), 0, 0),
    }
}

/// The IR type that a type written as the language writes it names: a built-in name
/// (`u8`, `unit`, `string`, ...), `[T]`, `?T` or a tuple `(A, B)` (`()` has no field);
/// panics on anything else.
pub fn ir_type(text: &str) -> IrType {
    let (ty, rest) = ir_type_prefix(text);
    assert!(rest.trim().is_empty(), "{text:?}: {rest:?} is left over");
    ty
}

/// The type written at the start of `text`, and what follows it.
fn ir_type_prefix(text: &str) -> (IrType, &str) {
    let text = text.trim_start();
    if let Some(rest) = text.strip_prefix('[') {
        let (element, rest) = ir_type_prefix(rest);
        let rest = rest.trim_start().strip_prefix(']');
        (
            IrType::list(element),
            rest.expect("a `]` after a list's element type"),
        )
    } else if let Some(rest) = text.strip_prefix('?') {
        let (inner, rest) = ir_type_prefix(rest);
        (IrType::option(inner), rest)
    } else if let Some(mut rest) = text.strip_prefix('(') {
        let mut fields = Vec::new();
        loop {
            rest = rest.trim_start();
            if let Some(after) = rest.strip_prefix(')') {
                return (IrType::Tuple(fields), after);
            }
            let (field, after) = ir_type_prefix(rest);
            fields.push(field);
            rest = after.trim_start();
            rest = rest.strip_prefix(',').unwrap_or(rest);
        }
    } else {
        let end = text
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(text.len());
        let name = &text[..end];
        let ty = IrType::from_name(name).unwrap_or_else(|| panic!("no type {name:?}"));
        (ty, &text[end..])
    }
}

/// Declares and defines `id<T>(x: T): T` (it returns its parameter) in `pb`.
pub fn define_identity(pb: &mut ProgramBuilder) -> FuncId {
    let t = TypeParam {
        name: "T".into(),
        class: TypeClass::Any,
    };
    let id = pb.declare_function(
        "id",
        vec![t],
        vec![("x".into(), ParamMode::In, IrType::Param(0))],
        IrType::Param(0),
    );
    let mut fb = pb.function(id);
    let x = fb.param(0);
    fb.terminate(Terminator::Return(Some(x)));
    id
}

/// Declares `name(params): result` (no type parameters) in `pb`, lets `build` write its
/// body and returns the slot `build` gives back (`None`: nothing) from the block it leaves
/// open.
pub fn define_function(
    pb: &mut ProgramBuilder,
    name: &str,
    params: &[(&str, ParamMode, IrType)],
    result: IrType,
    build: impl FnOnce(&mut FunctionBuilder<'_>) -> Option<SlotId>,
) -> FuncId {
    let params = params
        .iter()
        .map(|(name, mode, ty)| (name.to_string(), *mode, ty.clone()))
        .collect();
    let f = pb.declare_function(name, vec![], params, result);
    let mut fb = pb.function(f);
    let returned = build(&mut fb);
    fb.terminate(Terminator::Return(returned));
    f
}

/// Declares `main(): unit` in `pb`, lets `build` write its body, returns from the block
/// `build` leaves open (if any), and makes `main` the program's entry.
pub fn define_main(pb: &mut ProgramBuilder, build: impl FnOnce(&mut FunctionBuilder<'_>)) {
    let main = pb.declare_entry("main");
    let mut fb = pb.function(main);
    build(&mut fb);
    if fb.is_open() {
        fb.terminate(Terminator::Return(None));
    }
}

/// The call context of [`native_decl`]'s native in rider `rider`, each trailing type
/// parameter bound to `u8`.
pub fn native_context(rider: &str, decl: NativeDecl) -> NativeContext {
    let name = decl.name.clone();
    let trailing = decl.undetermined_type_params().len();
    RiderInterface::new(rider, vec![decl])
        .context(&name, vec![IrType::U8; trailing])
        .expect("declared")
}

/// The modes in turn: in, ref, mut, out.
pub fn every_mode(i: usize) -> ParamMode {
    [
        ParamMode::In,
        ParamMode::Ref,
        ParamMode::Mut,
        ParamMode::Out,
    ][i % 4]
}

/// The test rider `t`'s interface.
pub const TEST_DLI: &str = "native fun t_fail(): i32\nnative fun t_seven(): i32\n";

/// Module `m` over the test rider: `fail()` and `seven()`.
pub const TEST_MODULE: &str = "require rider t\nimport t.t_fail\nimport t.t_seven\n\
fun fail(): i32\n  ret t_fail()\nend fun\nfun seven(): i32\n  ret t_seven()\nend fun\n";

/// The test rider `t`, in C against the ABI header: `t_fail` fails with `no luck`,
/// `t_seven` returns 7.
pub const TEST_RIDER_C: &str = r#"
#include "datalove_rti.h"
DTLV_EXPORT_RIDER(t)
uint8_t dlr_t__t_fail(void *rt, int32_t *out, const dtlv_tydesc_t *td) {
    (void)out; (void)td;
    dtlv_rti_error_set(rt, (const uint8_t *)"no luck", 7);
    return 0;
}
uint8_t dlr_t__t_seven(void *rt, int32_t *out, const dtlv_tydesc_t *td) {
    (void)rt; (void)td;
    *out = 7;
    return 1;
}
"#;

/// `script` compiled against the test rider's interface and module `m`.
pub fn program_from_text(script: &str) -> Program {
    let loader = MemoryLoader::new()
        .with_rider("t", TEST_DLI)
        .with_module("m", TEST_MODULE);
    match compile(&loader, "main.dfs", script) {
        Ok(c) => c.program,
        Err(failed) => panic!("{}", failed.render()),
    }
}

/// This test process's scratch root, `$TMPDIR/datalove-tests-PID`: made on first use and
/// removed when the process exits, so a test run leaves nothing behind in the system's
/// temporary directory. Roots left by test processes that no longer run (killed ones)
/// are removed when the next one starts.
pub fn scratch_root() -> &'static Path {
    SCRATCH_ROOT.get_or_init(|| {
        let base = std::env::temp_dir();
        datalove_toolchain::remove_stale_dirs(&base, SCRATCH_PREFIX);
        let root = fresh_dir(base.join(format!("{SCRATCH_PREFIX}{}", std::process::id())));
        // SAFETY: `remove_scratch_root` is an `extern "C" fn()` that only reads a
        // `OnceLock` already set and removes files; it may run at any exit.
        unsafe { libc::atexit(remove_scratch_root) };
        root
    })
}

const SCRATCH_PREFIX: &str = "datalove-tests-";
static SCRATCH_ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

extern "C" fn remove_scratch_root() {
    if let Some(root) = SCRATCH_ROOT.get() {
        let _ = std::fs::remove_dir_all(root);
    }
}

/// The scratch directory `name` (which may hold `/`) under this process's root,
/// created; what is in it stays (tests of one process may share it).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = scratch_root().join(name);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// A fresh scratch directory for test `name` of suite `suite`.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    fresh_dir(scratch_root().join(format!("{suite}-{name}")))
}

/// `dir`, emptied of anything an earlier run left there (or made).
pub fn fresh_dir(dir: PathBuf) -> PathBuf {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// `runtime/include`, where `datalove_rti.h` is.
pub fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include")
}

/// A command starting `program` (built for the tests' target) through the target's
/// runner, as cargo starts the tests themselves (`CARGO_TARGET_<TRIPLE>_RUNNER`).
pub fn run_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    datalove_toolchain::Target::current()
        .command(program)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `command` to its end and returns what it printed; panics, showing the command
/// line and its output, unless it started and exited 0.
pub fn run_to_success(command: &mut Command) -> std::process::Output {
    let shown = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(
        output.status.success(),
        "{shown} failed: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Builds the C rider `rider` from `source` (against the ABI header) into
/// `dir/libdlr_<rider>.so` with the target's C compiler; the source file is removed.
pub fn build_c_rider(dir: &Path, rider: &str, source: &str) {
    std::fs::create_dir_all(dir).expect("rider directory");
    let c_file = dir.join(format!("{rider}.c"));
    std::fs::write(&c_file, source).expect("write the rider's C");
    let library = dir.join(format!("libdlr_{rider}.so"));
    run_to_success(
        datalove_toolchain::CCompiler::from_env()
            .command()
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&library)
            .arg(&c_file)
            .arg(format!("-I{}", include_dir().display())),
    );
    let _ = std::fs::remove_file(&c_file);
}

/// Builds the test rider `libdlr_t.so` into `dir` with the target's C compiler.
pub fn build_test_rider(dir: &Path) {
    build_c_rider(dir, "t", TEST_RIDER_C);
}

/// What an executable did.
#[derive(Debug)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

/// Builds `script` into an executable with `build` (a backend's `build_executable`),
/// linked with the runtime staticlib and the test rider, runs it with leak checking and
/// returns what it did.
pub fn build_and_run<E: std::fmt::Display>(
    suite: &str,
    name: &str,
    script: &str,
    build: impl FnOnce(&Program, &datalove_toolchain::LinkInputs, &Path) -> Result<(), E>,
) -> Ran {
    let dir = scratch(suite, name);
    build_test_rider(&dir);
    let program = program_from_text(script);
    let runtime =
        datalove_rt::artifact::staticlib_for_current_exe().expect("the runtime staticlib");
    let inputs = datalove_toolchain::LinkInputs {
        target: datalove_toolchain::Target::current(),
        runtime,
        riders: vec![("t".into(), dir.join("libdlr_t.so"))],
        placement: datalove_toolchain::RiderPlacement::Copy,
    };
    let exe = dir.join("program");
    if let Err(e) = build(&program, &inputs, &exe) {
        panic!("builds: {e}");
    }
    let output = run_command(&exe)
        .env("DATALOVE_CHECK_LEAKS", "1")
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    Ran {
        stdout: String::from_utf8(output.stdout).expect("UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8"),
        exit: output.status.code().expect("exited, not killed"),
    }
}

/// A program every executable backend must build and run the same way.
pub struct ExecutableCase {
    pub name: &'static str,
    pub script: &'static str,
    pub stdout: &'static str,
    pub stderr: &'static str,
    pub exit: i32,
}

/// What a recursion at `$at` that reaches the default call-depth limit prints: the call
/// refused, 16 of the calls it was made from, and a count of the rest.
macro_rules! deep_overflow {
    ($at:literal) => {
        concat!(
            "error: stack overflow: call depth limit of 1000000 reached at ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  called from ",
            $at,
            "\n",
            "  ... and 999984 more calls\n"
        )
    };
}

/// The executable backends' shared cases: output, a failing native, overflow, deep
/// recursion of generic and owning frames, generic code on descriptors.
pub const EXECUTABLE_CASES: &[ExecutableCase] = &[
    ExecutableCase {
        name: "ok",
        script: "import m.seven\nfun id<T>(x: T): T\n  ret x\nend fun\ndebuglog id(\"hello\")\n\
debuglog id([seven(), 8])\ndebuglog 2.5 * 4.0\ndebuglog 0.1 + 0.2\n",
        stdout: "hello\n[7, 8]\n10.0\n0.30000000000000004\n",
        stderr: "",
        exit: 0,
    },
    ExecutableCase {
        name: "fail",
        script: "import m.fail\nlet s = \"kept\" ++ \"!\"\ndebuglog 1\ndebuglog fail()\ndebuglog s\n",
        stdout: "1\n",
        stderr: "error: native failure: t.t_fail: no luck at m.dfm:5:7\n  called from main.dfs:4:10\n",
        exit: 101,
    },
    ExecutableCase {
        name: "overflow",
        script: "let a: u8 = 200\nlet b: u8 = 100\ndebuglog a + b\n",
        stdout: "",
        stderr: "error: overflow: u8 addition at main.dfs:3:10\n",
        exit: 101,
    },
    ExecutableCase {
        name: "deep_generic",
        script: "fun down<T>(x: T, n: u64): u64\n  ret down(x, n + 1) + 1\nend fun\n\
debuglog down(\"s\", 0)\n",
        stdout: "",
        stderr: deep_overflow!("main.dfs:2:7"),
        exit: 101,
    },
    ExecutableCase {
        name: "deep_owning",
        script: "fun down(n: u64, ref s: string): u64\n  let t = [s ++ \".\"]\n\
  ret down(n + 1, ref s) + len(t) as u64\nend fun\ndebuglog \"before\"\ndebuglog down(0, ref \"s\")\n",
        stdout: "before\n",
        stderr: deep_overflow!("main.dfs:3:5"),
        exit: 101,
    },
    ExecutableCase {
        name: "generic",
        script: "fun first<T>(ref xs: [T]): ?T\n  if len(xs) == 0\n    ret none\n  end if\n  ret some(xs[0])\nend fun\n\
fun pair<T>(x: T): (T, [T])\n  let y = x\n  ret (y, [])\nend fun\n\
let words: [string] = [\"x\", \"y\"]\ndebuglog first(ref words)\nlet empty: [u8] = []\ndebuglog first(ref empty)\n\
debuglog pair(\"p\")\ndebuglog pair(3i64)\n",
        stdout: "some(\"x\")\nnone\n(\"p\", [])\n(3, [])\n",
        stderr: "",
        exit: 0,
    },
];

/// Runs every [`EXECUTABLE_CASES`] case through `build` (a backend's
/// `build_executable`), asserting what each did.
pub fn check_executable_cases<E: std::fmt::Display>(
    suite: &str,
    build: impl Fn(&Program, &datalove_toolchain::LinkInputs, &Path) -> Result<(), E>,
) {
    if datalove_toolchain::unavailable_without_c_compiler(&format!("{suite} executables")) {
        return;
    }
    for case in EXECUTABLE_CASES {
        let ran = build_and_run(suite, case.name, case.script, &build);
        assert_eq!(ran.stdout, case.stdout, "{suite} {}: stdout", case.name);
        assert_eq!(ran.stderr, case.stderr, "{suite} {}: stderr", case.name);
        assert_eq!(ran.exit, case.exit, "{suite} {}: exit code", case.name);
    }
}

#[cfg(test)]
mod scratch_tests {
    use super::*;

    /// A root whose process has ended is removed; this process's own root stays.
    #[test]
    fn stale_scratch_roots_are_removed_and_live_ones_kept() {
        let root = scratch_root();
        let base = root
            .parent()
            .expect("the root is in the temporary directory");
        // Above any Linux pid_max, so no process has it.
        let stale = base.join(format!("{SCRATCH_PREFIX}4000000000"));
        std::fs::create_dir_all(stale.join("inside")).unwrap();
        datalove_toolchain::remove_stale_dirs(base, SCRATCH_PREFIX);
        assert!(!stale.exists(), "{} is left", stale.display());
        assert!(root.is_dir(), "{} was removed", root.display());
        assert!(scratch_dir("a/b").starts_with(root));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_type_reads_as_its_ir_type() {
        assert_eq!(ir_type("u8"), IrType::U8);
        assert_eq!(ir_type("()"), IrType::Tuple(vec![]));
        assert_eq!(
            ir_type("[(?[f64], bool, string)]"),
            IrType::list(IrType::Tuple(vec![
                IrType::option(IrType::list(IrType::F64)),
                IrType::Bool,
                IrType::String,
            ]))
        );
    }
}
