//! `datalove run`: output, runtime errors (`error: <kind>: <detail>`, exit 101), compile
//! errors (exit 2), leak checking, and `--backend all`.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{assert_diagnostic, assert_ended, available, datalove_output as datalove, ran, text};
use common::{BACKENDS, EXECUTABLE_BACKENDS};

fn scratch(name: &str, text: &str) -> PathBuf {
    common::scratch_file("cli-run", name, text)
}

#[test]
fn run_prints_what_the_example_logs() {
    let example = format!("{}/examples/hello.dfs", env!("CARGO_MANIFEST_DIR"));
    let out = datalove(&["run", &example]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "hello, world\n");
    assert!(out.stderr.is_empty());
}

/// `datalove run --check-leaks` of `text`, written as `name`.
fn run_checked(name: &str, text: &str) -> Output {
    datalove(&[
        "run",
        "--check-leaks",
        scratch(name, text).to_str().unwrap(),
    ])
}

#[test]
fn a_failing_native_is_one_error_line_and_exit_101() {
    let out = run_checked(
        "native_fails.dfs",
        "import lists.get\nlet xs: [string] = [\"a\", \"b\"]\ndebuglog \"before\"\ndebuglog get(ref xs, 5)\ndebuglog \"after\"\n",
    );
    // At the native call (in the standard module), called from the script's line 4.
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{stderr}");
    assert_eq!(text(&out.stdout), "before\n");
    let failure = "error: native failure: std.list_get: index 5 out of bounds for length 2 at <library>/lists.dfm:";
    let path = common::scratch_dir("cli-run").join("native_fails.dfs");
    assert!(stderr.starts_with(failure), "{stderr}");
    assert!(
        stderr.ends_with(&format!("\n  called from {}:4:10\n", path.display())),
        "{stderr}"
    );
}

#[test]
fn overflow_and_deep_recursion_are_runtime_errors() {
    let out = run_checked(
        "overflow.dfs",
        "let a: i32 = 2147483647\nlet s = \"owned\"\ndebuglog a + 1\n",
    );
    let path = common::scratch_dir("cli-run").join("overflow.dfs");
    let overflow = format!("error: overflow: i32 addition at {}:3:10\n", path.display());
    assert_ended(&out, "run", 101, "", &overflow);

    let out = run_checked(
        "deep.dfs",
        "fun down(n: i64, s: string): i64\n  ret down(n + 1, s) + 1\nend fun\ndebuglog down(0, \"owned\")\n",
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{stderr}");
    assert!(stderr.starts_with("error: stack overflow: "), "{stderr}");
    assert!(
        !stderr.contains("error: leak"),
        "no leak reported after the error: {stderr}"
    );
}

#[test]
fn a_compile_error_exits_2_with_its_diagnostic() {
    common::assert_file_diagnosed(&["run"], &common::test_program("f082.dfs"), "F082", "1:1");
}

#[test]
fn a_missing_rider_library_is_named() {
    let dir = scratch("riders/ghost.dli", "native fun boo(): i32\n");
    let rider_dir = dir.parent().unwrap();
    scratch(
        "ghostly.dfm",
        "require rider ghost\nimport ghost.boo\nfun b(): i32\n  ret boo()\nend fun\n",
    );
    let path = scratch("ghost.dfs", "import ghostly.b\ndebuglog b()\n");
    let out = datalove(&[
        "run",
        "--rider-path",
        rider_dir.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: rider: ") && stderr.contains("ghost"),
        "{stderr}"
    );
}

#[test]
fn backend_all_runs_every_available_backend_and_reports_agreement() {
    let example = format!("{}/examples/fib.dfs", env!("CARGO_MANIFEST_DIR"));
    let out = datalove(&["run", "--backend", "all", &example]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("== interp ("), "{stdout}");
    assert!(stdout.contains("available backends agree"), "{stdout}");
}

const PRINT_ARGS: &str = "import env.args\nlet a = args()\ndebuglog len(a)\ndebuglog a\n";

#[test]
fn arguments_after_double_dash_reach_the_program_on_every_backend() {
    let path = scratch("print_args.dfs", PRINT_ARGS);
    for backend in available(&BACKENDS) {
        let out = datalove(&[
            "run",
            "--backend",
            backend,
            "--check-leaks",
            path.to_str().unwrap(),
            "--",
            "40",
            "two words",
            "--backend",
            "",
        ]);
        let printed = "4\n[\"40\", \"two words\", \"--backend\", \"\"]\n";
        assert_ended(&out, backend, 0, printed, "");
    }
    let none = datalove(&["run", path.to_str().unwrap()]);
    assert_eq!(text(&none.stdout), "0\n[]\n");
}

#[test]
fn a_built_executable_takes_its_arguments_from_its_command_line() {
    let path = scratch("print_args_exe.dfs", PRINT_ARGS);
    for backend in available(&EXECUTABLE_BACKENDS) {
        let exe = path.with_file_name(format!("print_args_{backend}"));
        let built = datalove(&[
            "build",
            "--backend",
            backend,
            path.to_str().unwrap(),
            "-o",
            exe.to_str().unwrap(),
        ]);
        assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
        // An argument that is not UTF-8 reaches the program with U+FFFD in its place.
        use std::os::unix::ffi::OsStrExt;
        let not_utf8 = std::ffi::OsStr::from_bytes(b"a\xffb");
        let out = datalove::Target::current()
            .command(&exe)
            .expect("a way to run the executable")
            .arg("7")
            .arg("ünïcode")
            .arg(not_utf8)
            .env("DATALOVE_CHECK_LEAKS", "1")
            .output()
            .expect("the executable runs");
        let printed = "3\n[\"7\", \"ünïcode\", \"a\u{fffd}b\"]\n";
        assert_ended(&out, backend, 0, printed, "");
    }
}

#[test]
fn backend_all_passes_the_arguments_to_every_backend() {
    let path = scratch("print_args_all.dfs", PRINT_ARGS);
    let out = datalove(&["run", "--backend", "all", path.to_str().unwrap(), "--", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    let here = available(&BACKENDS).len();
    assert_eq!(stdout.matches("[\"x\"]\n").count(), here, "{stdout}");
    assert!(
        stdout.contains(&format!("== all {here} available backends agree")),
        "{stdout}"
    );
}

/// A module has no entry: `F008`, exit 2, the same text whichever backend was asked for
/// (it was `error: rider: ...` and exit 101 on interp and jit, other lines on aot and c).
#[test]
fn running_a_module_is_f008_exit_2_on_every_backend() {
    let path = scratch("refused/lib.dfm", "fun f(): u8\n  ret 1\nend fun\n");
    let mut seen = Vec::new();
    for backend in BACKENDS.iter().chain(&["all"]) {
        let out = datalove(&["run", "--backend", backend, path.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_diagnostic(&out, "F008", &format!("{}:1:1", path.display()));
        assert!(out.stdout.is_empty(), "{backend}");
        assert!(stderr.starts_with("error[F008]"), "{backend}: {stderr}");
        seen.push(stderr);
    }
    seen.dedup();
    assert_eq!(seen.len(), 1, "{seen:?}");
}

/// A script that is not UTF-8: `S012` at the first bad byte, exit 2, on every backend.
#[test]
fn running_a_file_that_is_not_utf8_is_s012_exit_2_on_every_backend() {
    let path = scratch("refused/latin1.dfs", "");
    std::fs::write(&path, b"debuglog 1\ndebuglog \"caf\xe9\"\n").expect("write");
    for backend in BACKENDS.iter().chain(&["all"]) {
        let out = datalove(&["run", "--backend", backend, path.to_str().unwrap()]);
        assert_diagnostic(&out, "S012", &format!("{}:2:14", path.display()));
        assert!(text(&out.stderr).starts_with("error[S012]"), "{backend}");
    }
}

/// An unknown backend name is a usage error: exit 2, the names listed (`docs/running.md`,
/// "Exit codes"); 3 is for a backend that exists but is unavailable here.
#[test]
fn an_unknown_backend_is_a_usage_error_exit_2() {
    let example = format!("{}/examples/hello.dfs", env!("CARGO_MANIFEST_DIR"));
    for args in [
        vec!["run", "--backend", "nope", &example],
        vec!["build", "--backend", "interp", &example, "-o", "/tmp/never"],
    ] {
        let out = datalove(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("possible values"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_lists_the_exit_codes() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["build", "--help"],
    ] {
        let out = datalove(&args);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        for code in ["101", "F008", "unavailable"] {
            assert!(stdout.contains(code), "{args:?} lacks {code}:\n{stdout}");
        }
    }
}

/// Through the library too: `datalove::run` of a module is the same refusal on all four
/// backends, before any of them compiles anything.
#[test]
fn the_library_refuses_a_module_alike_on_every_backend() {
    let path = scratch("refused/libmod.dfm", "fun f(): u8\n  ret 1\nend fun\n");
    let options = datalove::Options::from_env();
    let compiled = datalove::compile_file(&path, &options).expect("a module compiles");
    let run = datalove::RunOptions {
        riders: options.rider_path(),
        check_leaks: true,
        capture: true,
        ..datalove::RunOptions::default()
    };
    let outcomes: Vec<_> = datalove::Backend::ALL
        .into_iter()
        .filter_map(|b| ran(datalove::run(&compiled, b, &run)))
        .map(|result| result.outcome)
        .collect();
    for o in &outcomes {
        assert_eq!(o.exit_code, datalove::EXIT_REFUSED);
        assert!(o.stderr_lines[0].starts_with("error[F008]"), "{o:?}");
        assert_eq!(o.stderr_lines, outcomes[0].stderr_lines);
    }
}

/// `datalove serve-trials` (src/trials.rs): each run a fork of one warm process, which
/// ends and reports as a fresh start of the CLI does: output, stdin, the environment
/// asked for, a runtime error's exit, a usage error, a time limit; the server outlives them.
#[test]
fn the_trial_server_runs_each_request_as_a_fresh_start_would() {
    use datalove::trials::{Ended, Request, TrialServer};
    use std::time::Duration;

    let dir = common::scratch_dir("cli-run-served");
    let program = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let echo = program(
        "echo.dfs",
        "import io.read_line\nlet line = read_line()\ndebuglog line\ndebuglog 6 * 7\n",
    );
    let deep = program(
        "deep.dfs",
        "fun down(n: i64): i64\n  ret down(n + 1) + 1\nend fun\ndebuglog down(0)\n",
    );
    let forever = program(
        "forever.dfs",
        "var i = 0\nloop while i >= 0\n  set i = (i + 1) % 5\nend loop\n",
    );
    let stdin = program("input.txt", "typed in\n");
    let mut server = TrialServer::start(common::datalove()).expect("the server starts");
    let mut run =
        |file: &std::path::Path, backend: &str, env: &[(&str, &str)], input: bool, timeout: u64| {
            let request = Request {
                dir: dir.clone(),
                args: ["run", file.to_str().unwrap(), "--backend", backend]
                    .iter()
                    .map(Into::into)
                    .collect(),
                env: env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
                env_remove: vec!["DATALOVE_DEPTH_LIMIT".into()],
                stdin: input.then(|| stdin.clone()),
                stdout: dir.join("out.txt"),
                stderr: dir.join("err.txt"),
                timeout: Duration::from_secs(timeout),
            };
            let ended = server.run(&request).expect("the server answers");
            let out = std::fs::read_to_string(&request.stdout).unwrap();
            let err = std::fs::read_to_string(&request.stderr).unwrap();
            (ended, out, err)
        };
    for backend in available(&BACKENDS) {
        let (ended, out, err) = run(&echo, backend, &[], true, 120);
        assert_eq!(
            (ended, out.as_str(), err.as_str()),
            (Ended::Exited(0), "some(\"typed in\")\n42\n", ""),
            "{backend}"
        );
        let (ended, out, err) = run(&echo, backend, &[], false, 120);
        assert_eq!(
            (ended, out.as_str(), err.as_str()),
            (Ended::Exited(0), "none\n42\n", ""),
            "{backend}"
        );
        let (ended, _, err) = run(
            &deep,
            backend,
            &[("DATALOVE_DEPTH_LIMIT", "50")],
            false,
            120,
        );
        assert_eq!(ended, Ended::Exited(101), "{backend}: {err}");
        assert!(
            err.starts_with("error: stack overflow: call depth limit of 50 reached at "),
            "{backend}: {err}"
        );
    }
    let (ended, out, _) = run(&forever, "jit", &[], false, 2);
    assert_eq!((ended, out.as_str()), (Ended::TimedOut, ""));
    // A request the CLI refuses is its usage error, exit 2; the server goes on.
    let (ended, _, err) = run(&echo, "fortran", &[], false, 120);
    assert_eq!(ended, Ended::Exited(2), "{err}");
    let (ended, out, _) = run(&echo, "interp", &[], true, 120);
    assert_eq!(
        (ended, out.as_str()),
        (Ended::Exited(0), "some(\"typed in\")\n42\n")
    );
}

/// `run --target`: aot and c build for the other target and run the executable through
/// its runner (qemu-user), or say why they cannot here (no runner, no C compiler, no
/// runtime built for it); interp and jit run only on this machine's target.
#[test]
fn run_target_builds_for_the_other_target_and_runs_through_its_runner() {
    let other = if datalove::Target::current().triple() == "x86_64-unknown-linux-gnu" {
        "aarch64-unknown-linux-gnu"
    } else {
        "x86_64-unknown-linux-gnu"
    };
    let program = scratch("other_target.dfs", "debuglog 6 * 7\n");
    let program = program.to_str().unwrap();
    for backend in ["interp", "jit"] {
        let out = datalove(&["run", "--backend", backend, "--target", other, program]);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{backend}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).starts_with(&format!(
                "error: backend `{backend}` is unavailable: it runs programs in this process, so only for this machine's target"
            )),
            "{backend}: {}",
            text(&out.stderr)
        );
    }
    for backend in EXECUTABLE_BACKENDS {
        let out = datalove(&["run", "--backend", backend, "--target", other, program]);
        let stderr = text(&out.stderr);
        match out.status.code() {
            Some(0) => assert_eq!((text(&out.stdout).as_str(), stderr.as_str()), ("42\n", "")),
            Some(3) => {
                assert!(
                    stderr.starts_with(&format!("error: backend `{backend}` is unavailable: ")),
                    "{stderr}"
                );
                eprintln!("{backend} for {other} unavailable here: {stderr}");
            }
            other => panic!("{backend}: exit {other:?}: {stderr}"),
        }
    }
}
