//! The process allocator (`alloc::ExitOnOutOfMemory`, the default feature
//! `exit-on-out-of-memory`): an allocation the system refuses, made by any Rust code of
//! the process, ends it with the runtime's one line and exit 101, not Rust's abort.

// Linked for its global allocator, which nothing here names.
extern crate datalove_rt;

use std::process::Command;

const CHILD: &str = "DATALOVE_RT_TEST_REFUSED_ALLOCATION";

#[test]
fn a_refused_allocation_is_the_runtimes_one_line_and_exit_101() {
    if std::env::var_os(CHILD).is_some() {
        // 64 TiB: more than any system here gives one process.
        let huge: Vec<u8> = Vec::with_capacity(1 << 46);
        println!("given {}", huge.capacity());
        return;
    }
    // Under emulation (aarch64 on x86-64) the test binary runs through the target's
    // runner, as cargo ran this one.
    let exe = std::env::current_exe().expect("the test binary");
    let runner = datalove_toolchain::Target::current()
        .runner()
        .expect("a way to run the test binary")
        .unwrap_or_default();
    let mut command = match runner.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    let out = command
        .args([
            "--exact",
            "a_refused_allocation_is_the_runtimes_one_line_and_exit_101",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{stderr}");
    assert!(
        stderr.ends_with("error: out of memory: cannot allocate 70368744177664 bytes\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("memory allocation of"), "{stderr}");
}
