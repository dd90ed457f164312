//! `datalove build`: what it refuses before writing anything (its own inputs as the
//! output, a module, an unknown backend), with the documented exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{available, datalove_output, text, EXECUTABLE_BACKENDS};

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir(&format!("cli-build-{name}"))
}

fn build(backend: &str, out: &Path, file: &Path) -> Output {
    let (out, file) = (out.to_str().unwrap(), file.to_str().unwrap());
    datalove_output(&["build", "--backend", backend, "-o", out, file])
}

/// `build -o p.dfs p.dfs` wrote the executable over the source. Now: exit 2, one line,
/// the file untouched; the same through a symbolic or hard link, and for a module the
/// program imports.
#[test]
fn build_refuses_to_write_over_what_it_reads() {
    let dir = scratch("overwrite");
    let program = dir.join("p.dfs");
    let module = dir.join("helper.dfm");
    let source = "import helper.one\ndebuglog one()\n";
    std::fs::write(&program, source).expect("write");
    std::fs::write(&module, "fun one(): u8\n  ret 1\nend fun\n").expect("write");
    let symlink = dir.join("via-symlink");
    let hardlink = dir.join("via-hardlink");
    let _ = std::fs::remove_file(&symlink);
    let _ = std::fs::remove_file(&hardlink);
    std::os::unix::fs::symlink(&program, &symlink).expect("symlink");
    std::fs::hard_link(&program, &hardlink).expect("hard link");
    let backends = available(&EXECUTABLE_BACKENDS);
    for &backend in &backends {
        for (out, input) in [
            (&program, &program),
            (&symlink, &program),
            (&hardlink, &program),
            (&module, &module),
        ] {
            let before = std::fs::read(input).expect("read");
            let result = build(backend, out, &program);
            let stderr = text(&result.stderr);
            assert_eq!(
                result.status.code(),
                Some(2),
                "{backend} -o {out:?}: {stderr}"
            );
            assert!(
                stderr.starts_with("error: the output ") && stderr.contains("refusing"),
                "{stderr}"
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert_eq!(
                std::fs::read(input).expect("read"),
                before,
                "{input:?} changed"
            );
        }
    }
    // Another name is fine, and the executable runs.
    let exe = dir.join("p");
    let Some(backend) = backends.first() else {
        return;
    };
    let result = build(backend, &exe, &program);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let ran = datalove::Target::current()
        .command(&exe)
        .expect("a way to run the executable")
        .output()
        .expect("the executable runs");
    assert_eq!(text(&ran.stdout), "1\n");
    assert_eq!(std::fs::read_to_string(&program).expect("read"), source);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `build -o dir/libdlr_std.so` of a program that uses `std` exited 0 and left the rider's
/// copy where the executable was (a segfault to run). Now: exit 2, one line naming the
/// rider, nothing written.
#[test]
fn build_refuses_an_output_where_a_riders_copy_goes() {
    let dir = scratch("rider-copy");
    let program = dir.join("up.dfs");
    std::fs::write(
        &program,
        "import strings.split\ndebuglog split(ref \"a b\", ref \" \")\n",
    )
    .expect("write");
    let out = dir.join("libdlr_std.so");
    for backend in available(&EXECUTABLE_BACKENDS) {
        let _ = std::fs::remove_file(&out);
        let result = build(backend, &out, &program);
        let stderr = text(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{backend}: {stderr}");
        assert!(
            stderr.starts_with("error: the output ")
                && stderr.contains("where the rider `std`'s library"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!out.exists(), "{backend}: {} was written", out.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn building_a_module_is_f008_exit_2() {
    let dir = scratch("module");
    let module = dir.join("lib.dfm");
    std::fs::write(&module, "fun f(): u8\n  ret 1\nend fun\n").expect("write");
    for backend in ["aot", "c"] {
        let out = dir.join("lib");
        let result = build(backend, &out, &module);
        let stderr = text(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with("error[F008]"), "{stderr}");
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
