//! Failures at the edge of a run, on every backend through `datalove run`: a closed
//! stdout, out of memory under an address-space limit, start-up under a small one, the
//! call-depth limit set on the command line, and a crashing native as one row of
//! `--backend all`. (What a conformance case can express is a case: `fail_native_*`,
//! `rec_depth_limit*`, `rec_big_frames`, `fail_out_of_memory`.)

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{assert_ended, available, datalove, text, BACKENDS, EXECUTABLE_BACKENDS};

fn scratch_dir() -> PathBuf {
    common::scratch_dir("cli-failures")
}

fn scratch(name: &str, text: &str) -> PathBuf {
    common::scratch_file("cli-failures", name, text)
}

/// `datalove run --backend BACKEND PATH` under `ulimit -v KIB` (through `sh`, which sets
/// the limit and execs the target's runner, if any, with datalove).
fn run_limited(kib: u64, backend: &str, path: &Path) -> Output {
    let args = ["run", "--backend", backend, path.to_str().unwrap()];
    let runner = datalove::Target::current()
        .runner()
        .expect("a way to run datalove")
        .unwrap_or_default();
    let mut words: Vec<&str> = runner.iter().map(String::as_str).collect();
    words.push(env!("CARGO_BIN_EXE_datalove"));
    words.extend_from_slice(&args);
    let mut line = format!("ulimit -v {kib} && exec");
    for i in 1..=words.len() {
        line.push_str(&format!(" \"${i}\""));
    }
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .arg("sh")
        .args(words)
        .env_remove("DATALOVE_RIDER_PATH")
        .env_remove("DATALOVE_CHECK_LEAKS")
        .output()
        .expect("sh runs")
}

/// `datalove run --backend BACKEND` of a program that prints a line per number: its
/// first line read, then its stdout closed (the reader goes away, as `| head -1` does);
/// that line and how the run ended.
fn first_line_then_closed(backend: &str) -> (String, Output) {
    let path = common::test_program("cli_failures/many.dfs");
    let mut child = datalove()
        .args(["run", "--backend", backend, path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("datalove starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut first)
        .expect("one line");
    (first, child.wait_with_output().expect("ends"))
}

#[test]
fn a_closed_stdout_is_one_error_line_on_every_backend() {
    for backend in available(&BACKENDS) {
        let (first, out) = first_line_then_closed(backend);
        assert_eq!(first, "0\n", "{backend}");
        let closed = "error: output failed: stdout is closed\n";
        assert_ended(&out, backend, 101, "", closed);
    }
}

/// `run --backend all` prints its report after every backend has run; a reader gone by
/// then (`| head -2`) ends it as it ends one backend's run: one `output failed` line,
/// exit 101 (it once panicked with a backtrace).
#[test]
fn a_closed_stdout_ends_the_report_of_all_backends_with_one_error_line() {
    let (first, out) = first_line_then_closed("all");
    assert!(first.starts_with("== "), "{first:?}");
    assert_ended(
        &out,
        "all",
        101,
        "",
        "error: output failed: stdout is closed\n",
    );
}

/// `run --backend aot|c` builds its executable in `$TMPDIR/datalove-builds-PID`. A run
/// ended by `SIGTERM` removes it before it dies of the signal; one killed outright
/// cannot, and the next run removes the folder of a process that no longer runs.
#[test]
fn an_interrupted_run_removes_its_build_folder_and_the_next_removes_a_dead_ones() {
    if let Ok(Some(runner)) = datalove::Target::current().runner() {
        eprintln!("unavailable under the runner {runner:?}: the signal would go to it");
        return;
    }
    use std::os::unix::process::ExitStatusExt;
    let tmp = scratch_dir().join("tmpdir");
    let _ = std::fs::remove_dir_all(&tmp);
    // Above any Linux pid_max, so no process has it.
    let dead = tmp.join("datalove-builds-4000000000");
    std::fs::create_dir_all(dead.join("c-0")).expect("a dead run's folder");
    let spin = scratch(
        "spin.dfs",
        "var i: u8 = 0\nloop while i < 200\n  set i = (i + 1) % 100\nend loop\n",
    );
    for backend in available(&EXECUTABLE_BACKENDS) {
        let mut child = datalove()
            .args([
                "run",
                "--no-cache",
                "--backend",
                backend,
                spin.to_str().unwrap(),
            ])
            .env("TMPDIR", &tmp)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("datalove starts");
        let own = tmp.join(format!("datalove-builds-{}", child.id()));
        let program = own.join(format!("{backend}-0")).join("program");
        let start = std::time::Instant::now();
        while !program.exists() {
            assert!(
                start.elapsed().as_secs() < 60,
                "{} never built",
                program.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!dead.exists(), "{} is left", dead.display());
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let status = child.wait().expect("ends");
        assert_eq!(
            status.signal(),
            Some(libc::SIGTERM),
            "{backend}: {status:?}"
        );
        assert!(!own.exists(), "{backend}: {} is left", own.display());
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn out_of_memory_under_an_address_space_limit_is_one_line_on_every_backend() {
    let path = common::test_program("cli_failures/grow.dfs");
    for backend in available(&BACKENDS) {
        let out = run_limited(3_000_000, backend, &path);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(101), "{backend}: {stderr}");
        assert_eq!(text(&out.stdout), "start\n", "{backend}");
        assert_eq!(stderr.lines().count(), 1, "{backend}: {stderr}");
        assert!(
            stderr.starts_with("error: out of memory: cannot allocate "),
            "{backend}: {stderr}"
        );
    }
}

#[test]
fn out_of_memory_in_small_allocations_is_one_line_on_every_backend() {
    // Rust's `memory allocation of 40 bytes failed` and an abort, once, on three
    // backends: the process allocator now ends it as the runtime does.
    if let Ok(Some(runner)) = datalove::Target::current().runner() {
        eprintln!("unavailable under the runner {runner:?}: `ulimit -v` limits the emulator");
        return;
    }
    let path = common::test_program("cli_failures/many_small.dfs");
    for backend in available(&BACKENDS) {
        let out = run_limited(1_500_000, backend, &path);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(101), "{backend}: {stderr}");
        assert_eq!(text(&out.stdout), "start\n", "{backend}");
        assert_eq!(stderr.lines().count(), 1, "{backend}: {stderr}");
        assert!(
            stderr.starts_with("error: out of memory: cannot allocate ")
                && stderr.ends_with(" bytes live)\n"),
            "{backend}: {stderr}"
        );
    }
}

#[test]
fn a_small_program_starts_under_a_small_address_space_limit_on_every_backend() {
    // The interpreter once reserved 256 MiB of frames up front and aborted here.
    if let Ok(Some(runner)) = datalove::Target::current().runner() {
        // The limit would bind the emulator (its own code cache alone is larger), not
        // the program.
        eprintln!("unavailable under the runner {runner:?}: `ulimit -v` limits the emulator");
        return;
    }
    let path = scratch("one.dfs", "debuglog \"hello\"\n");
    for backend in available(&BACKENDS) {
        let out = run_limited(600_000, backend, &path);
        assert_ended(&out, backend, 0, "hello\n", "");
    }
}

#[test]
fn the_depth_limit_is_set_on_the_command_line_for_every_backend() {
    let path = common::test_program("cli_failures/down.dfs");
    for backend in available(&BACKENDS) {
        let out = datalove()
            .args([
                "run",
                "--depth-limit",
                "100",
                "--check-leaks",
                "--backend",
                backend,
            ])
            .arg(&path)
            .output()
            .expect("datalove runs");
        // At the call refused, then the calls it was made from: 16 shown, the rest counted.
        let at = format!("{}:5:7", path.display());
        let mut overflow =
            format!("error: stack overflow: call depth limit of 100 reached at {at}\n");
        overflow.push_str(&format!("  called from {at}\n").repeat(16));
        overflow.push_str("  ... and 84 more calls\n");
        assert_ended(&out, backend, 101, "99\n", &overflow);
    }
}

/// A C rider `crash` whose native `boom` dies by SIGSEGV.
const CRASH_RIDER_C: &str = r#"#include <stdint.h>
#include "datalove_rti.h"
DTLV_EXPORT_RIDER(crash)
uint8_t dlr_crash__boom(void *rt, int32_t *result_out, const dtlv_tydesc_t *result_td) {
    (void)rt;
    (void)result_td;
    *(volatile int32_t *)(uintptr_t)16 = 1;
    *result_out = 1;
    return DTLV_STATUS_OK;
}
"#;

#[test]
fn a_crashing_native_is_one_row_of_backend_all_and_the_others_still_run() {
    if datalove_toolchain::unavailable_without_c_compiler("the C rider crash") {
        return;
    }
    let dir = scratch_dir().join("crash");
    std::fs::create_dir_all(&dir).expect("dir");
    datalove_test_support::build_c_rider(&dir, "crash", CRASH_RIDER_C);
    std::fs::write(dir.join("crash.dli"), "native fun boom(): i32\n").expect("write crash.dli");
    let program = common::program_with_module(
        &dir,
        "c.dfm",
        "require rider crash\nimport crash.boom\nfun go(): i32\n  ret boom()\nend fun\n",
        "import c.go\ndebuglog \"before\"\ndebuglog go()\n",
    );
    let out = datalove()
        .args(["run", "--backend", "all", "--rider-path"])
        .arg(&dir)
        .arg(&program)
        .output()
        .expect("datalove runs");
    let stdout = text(&out.stdout);
    for backend in BACKENDS {
        let row = format!("== {backend} (");
        let at = stdout
            .find(&row)
            .unwrap_or_else(|| panic!("no row for {backend}:\n{stdout}"));
        assert!(
            stdout[at..].contains(
                "exit 101)\nbefore\nstderr: error: native crashed: SIGSEGV in crash.boom\n"
            ),
            "{backend}:\n{stdout}"
        );
    }
    assert!(
        stdout.ends_with("== all 4 available backends agree\n"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(101));
}

#[test]
fn without_a_c_compiler_aot_and_c_are_unavailable_with_the_reason() {
    let path = scratch("hello.dfs", "debuglog \"hi\"\n");
    // A PATH with no C compiler on it, and no CC (nor CC_<triple>).
    let triple = datalove::Target::current().triple().to_string();
    let empty = scratch_dir().join("empty-path");
    std::fs::create_dir_all(&empty).expect("dir");
    let hidden = |args: &[&str]| {
        let mut command = datalove();
        command
            .args(args)
            .arg(&path)
            .env("PATH", &empty)
            .env_remove("CC")
            .env_remove(format!("CC_{triple}"))
            .env_remove(format!("CC_{}", triple.replace('-', "_")));
        // Under a runner, datalove starts itself through it (`--backend all`): named by
        // its full path, since PATH no longer finds it.
        let target = datalove::Target::current();
        if let Ok(Some(runner)) = target.runner() {
            command.env(target.runner_env(), runner.join(" "));
        }
        command.output().expect("datalove runs")
    };
    for backend in ["aot", "c"] {
        let out = hidden(&["run", "--backend", backend]);
        assert_eq!(out.status.code(), Some(3), "{backend}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!(
                "error: backend `{backend}` is unavailable: no C compiler: `cc` cannot run"
            )),
            "{backend}: {stderr}"
        );
    }
    let out = hidden(&["run", "--backend", "all"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("== interp ("), "{stdout}");
    assert!(stdout.contains("== jit ("), "{stdout}");
    assert!(
        stdout.contains("== aot unavailable: no C compiler"),
        "{stdout}"
    );
    assert!(
        stdout.contains("== c unavailable: no C compiler"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("== all 2 available backends agree\n"),
        "{stdout}"
    );
}

#[test]
fn the_interpreters_frame_memory_is_as_large_as_the_program_stack() {
    // Frames of any size run out at a similar depth on every backend only while the two
    // limits agree (interp/src/lib.rs, runtime/rt/src/stack.rs).
    assert_eq!(
        datalove_interp::DEFAULT_ARENA_BYTES,
        datalove_rt::PROGRAM_STACK_SIZE
    );
}

/// The live executables (started directly or through an emulator) whose path contains
/// `needle` and ends in `/program`: not the compiler or linker that writes one.
fn programs_named(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let program = |arg: &str| arg.contains(needle) && arg.ends_with("/program");
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // A zombie has ended; it waits only to be reaped.
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            let args: Vec<&str> = cmdline.split('\0').collect();
            let started = program(args[0])
                || (args[0].contains("qemu") && args[1..].iter().any(|a| program(a)));
            !zombie && started
        })
        .collect()
}

#[test]
fn an_executable_ends_when_datalove_run_is_killed() {
    // A harness that kills `datalove run` on a timeout must not leave the executable it
    // built running, holding the harness's output pipe open.
    let program = scratch(
        "endless.dfs",
        "var i: i64 = 0\nloop while i >= 0\n  set i = (i + 1) % 1000\nend loop\n",
    );
    for backend in available(&["aot", "c"]) {
        // Built outside the compilation cache, so that its path names this `run`.
        let mut child = datalove()
            .args(["run", "--no-cache", "--backend", backend])
            .arg(&program)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // `datalove run` builds it in `datalove-builds-PID/BACKEND-N` (src/engine.rs) and
        // starts it there (its output is buffered: it prints nothing while it loops).
        let needle = format!("datalove-builds-{}/{backend}-", child.id());
        let mut started = false;
        for _ in 0..1200 {
            started = !programs_named(&needle).is_empty();
            if started || child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(started, "{backend}: no {needle} started");
        child.kill().unwrap();
        child.wait().unwrap();
        let mut left = programs_named(&needle);
        for _ in 0..200 {
            if left.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            left = programs_named(&needle);
        }
        assert!(
            left.is_empty(),
            "{backend}: still running after datalove ended: {left:?}"
        );
    }
}
