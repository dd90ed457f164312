//! What the CLI tests share: the `datalove` command as they start it, scratch files, the
//! backends, and which of them can run here. Without a working C compiler aot and c are
//! unavailable: [`available`] and [`ran`] check that they say so with the reason, and the
//! tests go on with interp and jit (`docs/testing.md`, "Without a C compiler").

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use datalove::{Backend, Capture, Engine, Error, RuntimeError};

pub const BACKENDS: [&str; 4] = ["interp", "jit", "aot", "c"];
pub const EXECUTABLE_BACKENDS: [&str; 2] = ["aot", "c"];

/// `datalove`, through the target's runner, free of the environment variables that
/// would change what it does.
pub fn datalove() -> Command {
    let mut command = datalove::Target::current()
        .command(env!("CARGO_BIN_EXE_datalove"))
        .expect("a way to run datalove");
    command
        .env_remove("DATALOVE_RIDER_PATH")
        .env_remove("DATALOVE_CHECK_LEAKS")
        .env_remove("DATALOVE_DEPTH_LIMIT")
        .env_remove("DATALOVE_MEMORY_LIMIT")
        .env_remove("DATALOVE_CACHE")
        .env_remove("DATALOVE_CACHE_SIZE")
        .env("DATALOVE_CACHE_DIR", cache_dir());
    command
}

/// The compilation cache of the CLI these tests start: this test process's own (in its
/// scratch root, removed when it exits), never the user's.
pub fn cache_dir() -> PathBuf {
    datalove_test_support::scratch_root().join("cache")
}

/// What `datalove ARGS` did.
pub fn datalove_output(args: &[&str]) -> Output {
    datalove().args(args).output().expect("datalove runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `backend`'s run `out` exited with `code`, printing `stdout` and, on stderr, `stderr`.
pub fn assert_ended(out: &Output, backend: &str, code: i32, stdout: &str, stderr: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{backend}: {err}");
    assert_eq!(text(&out.stdout), stdout, "{backend}");
    assert_eq!(err, stderr, "{backend}");
}

/// `out` is a refusal, exit 2, with diagnostic `code` at `location` (`FILE:LINE:COL`).
pub fn assert_diagnostic(out: &Output, code: &str, location: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("error[{code}]")), "{stderr}");
    assert!(stderr.contains(location), "{location}: {stderr}");
}

/// `datalove ARGS... FILE` refuses the program in `file` with diagnostic `code` at
/// `line_col` (`LINE:COL`) of it ([`assert_diagnostic`]).
pub fn assert_file_diagnosed(args: &[&str], file: &Path, code: &str, line_col: &str) {
    let mut args = args.to_vec();
    args.push(file.to_str().unwrap());
    let out = datalove_output(&args);
    assert_diagnostic(&out, code, &format!("{}:{line_col}", file.display()));
}

/// The test program `name` kept in `tests/programs`.
pub fn test_program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// The scratch directory `name` of this test process, created (removed when the
/// process exits: `datalove_test_support::scratch_root`).
pub fn scratch_dir(name: &str) -> PathBuf {
    datalove_test_support::scratch_dir(name)
}

/// `text` written as `name` (which may name subdirectories) in scratch directory `dir`.
pub fn scratch_file(dir: &str, name: &str, text: &str) -> PathBuf {
    let path = scratch_dir(dir).join(name);
    std::fs::create_dir_all(path.parent().unwrap()).expect("temp dir");
    std::fs::write(&path, text).expect("write");
    path
}

/// Writes module `module` (`text`) and the program `main.dfs` (`script`) into `dir`;
/// the program's path.
pub fn program_with_module(dir: &Path, module: &str, text: &str, script: &str) -> PathBuf {
    std::fs::write(dir.join(module), text).expect("write the module");
    let program = dir.join("main.dfs");
    std::fs::write(&program, script).expect("write the program");
    program
}

/// Why aot and c cannot run here (no working C compiler), if they cannot.
pub fn no_c_compiler() -> Option<String> {
    datalove_toolchain::probe().err()
}

/// Those of `backends` that can run programs here. Each other one (aot or c without a C
/// compiler) must say so: `datalove run --backend B` exits 3 naming the reason.
pub fn available(backends: &[&'static str]) -> Vec<&'static str> {
    let Some(reason) = no_c_compiler() else {
        return backends.to_vec();
    };
    let hello = scratch_file("cli-available", "hello.dfs", "debuglog 1\n");
    let mut here = Vec::new();
    for &backend in backends {
        if !EXECUTABLE_BACKENDS.contains(&backend) {
            here.push(backend);
            continue;
        }
        let out = datalove_output(&["run", "--backend", backend, hello.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{backend}: {stderr}");
        assert_eq!(
            stderr,
            format!("error: backend `{backend}` is unavailable: {reason}\n")
        );
        eprintln!("unavailable: {backend}: {reason}");
    }
    here
}

/// The run `result` of the library's `datalove::run`; `None` when its backend is
/// unavailable, which only aot and c may be, and only for want of a C compiler.
pub fn ran(
    result: Result<datalove::RunResult, datalove::Unavailable>,
) -> Option<datalove::RunResult> {
    match result {
        Ok(ran) => Some(ran),
        Err(u) => {
            assert!(
                EXECUTABLE_BACKENDS.contains(&u.backend.name()),
                "{} unavailable: {}",
                u.backend.name(),
                u.reason
            );
            assert_eq!(Some(&u.reason), no_c_compiler().as_ref());
            eprintln!("unavailable: {}: {}", u.backend.name(), u.reason);
            None
        }
    }
}

/// The engines of every backend that can run here, leaks checked and output captured.
/// aot and c are unavailable without a C compiler, and then say why.
pub fn engines() -> Vec<(Engine, Capture)> {
    Backend::ALL
        .into_iter()
        .filter_map(|backend| match Engine::new(backend) {
            Ok(engine) => {
                let capture = Capture::new();
                Some((engine.check_leaks(true).output(capture.clone()), capture))
            }
            Err(Error::Unavailable(u)) => {
                assert!(!u.reason.is_empty(), "{}: no reason", backend.name());
                assert!(matches!(backend, Backend::Aot | Backend::C));
                None
            }
            Err(e) => panic!("{}: {e}", backend.name()),
        })
        .collect()
}

/// The runtime error that `ran` ended with; anything else fails the test, naming
/// `backend`.
pub fn runtime_error<T: std::fmt::Debug>(ran: Result<T, Error>, backend: &str) -> RuntimeError {
    match ran {
        Err(Error::Runtime(e)) => e,
        other => panic!("{backend}: no runtime error: {other:?}"),
    }
}
