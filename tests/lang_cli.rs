//! The command line of issue 17's diagnostics: the closing count of `check` and `run`,
//! `--color`, and `datalove explain CODE`.

mod common;

use std::process::Output;

use common::text;

/// `datalove ARGS` as the other CLI tests start it (through the target's runner), with
/// `NO_COLOR` unset so that `--color` alone decides.
fn datalove(args: &[&str]) -> Output {
    common::datalove()
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("datalove runs")
}

/// A script in a directory of its own under the target directory.
fn script(name: &str, body: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lang_cli");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join(name);
    std::fs::write(&path, body).expect("write");
    path.to_str().expect("UTF-8 path").to_string()
}

const THREE_ERRORS: &str = "debuglog nope\nlet x: u8 = \"a\"\ndebuglog x.3\n";

#[test]
fn check_and_run_end_with_the_count() {
    let path = script("three.dfs", THREE_ERRORS);
    for args in [vec!["check", &path], vec!["run", &path]] {
        let out = datalove(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.matches("error[").count(), 3, "{stderr}");
        assert!(
            stderr.ends_with(&format!("\nerror: could not compile {path}: 3 errors\n")),
            "{stderr}"
        );
    }
    let one = script("one.dfs", "debuglog nope\n");
    let stderr = text(&datalove(&["check", &one]).stderr);
    assert!(
        stderr.ends_with(&format!("error: could not compile {one}: 1 error\n")),
        "{stderr}"
    );
    // A clean program prints nothing.
    let clean = script("clean.dfs", "debuglog 1\n");
    let out = datalove(&["check", &clean]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn color_is_asked_for_or_follows_the_terminal() {
    let path = script("color.dfs", "debuglog nope\n");
    let always = text(&datalove(&["check", "--color", "always", &path]).stderr);
    assert!(always.contains("\x1b["), "{always:?}");
    // The same text between the escapes.
    let never = text(&datalove(&["--color", "never", "check", &path]).stderr);
    assert!(!never.contains('\x1b'), "{never:?}");
    assert!(
        never.contains("error[N001]: no variable `nope` in scope"),
        "{never}"
    );
    // auto: stderr here is a pipe, not a terminal.
    let auto = text(&datalove(&["check", &path]).stderr);
    assert_eq!(auto, never);
}

#[test]
fn explain_prints_the_docs_entry() {
    let out = datalove(&["explain", "S008"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.starts_with(
            "S008: `set` of something that is not a variable or a part of one (an element or field)\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\n    set f() = 3\n"), "{stdout}");
    // Every code the docs list explains (what `explain` prints, from the function it
    // calls: a process per code took most of this binary's minute under an emulator);
    // an unknown one is exit 2 with the nearest.
    for code in datalove::front::explain::codes() {
        let entry = datalove::front::explain::explain(code);
        assert!(
            entry
                .as_ref()
                .is_ok_and(|e| e.starts_with(&format!("{code}: "))),
            "{code}: {entry:?}"
        );
    }
    let out = datalove(&["explain", "D011x"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: no diagnostic code `D011x` is documented\n"
    );
}

/// The examples of issue 17 agree on every available backend, with and without
/// arguments, and leak nothing.
#[test]
fn the_matrix_and_merge_sort_examples_agree_on_every_backend() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cases: [(&str, &[&str], &str); 4] = [
        ("matrix.dfs", &[], "trace of the 4x4 product: 340\n"),
        ("matrix.dfs", &["2"], "[12, 3]\n[36, 51]\ntrace of the 2x2 product: 63\n"),
        (
            "merge_sort.dfs",
            &[],
            "[-4, 3, 9, 10, 27, 38, 43, 82]\n[\"apple\", \"banana\", \"fig\", \"pear\"]\n[(1, \"z\"), (2, \"a\"), (2, \"b\")]\n",
        ),
        ("merge_sort.dfs", &["5", "3", "-7"], "[-7, 3, 5]\n"),
    ];
    for (example, args, expected) in cases {
        let path = format!("{root}/examples/{example}");
        let mut argv = vec!["run", "--check-leaks", &path, "--"];
        argv.extend_from_slice(args);
        let one = datalove(&argv);
        let stdout = text(&one.stdout);
        assert_eq!(
            one.status.code(),
            Some(0),
            "{example}: {}",
            text(&one.stderr)
        );
        assert!(stdout.contains(expected), "{example} {args:?}: {stdout}");
        let mut argv = vec!["run", "--check-leaks", "--backend", "all", &path, "--"];
        argv.extend_from_slice(args);
        let all = text(&datalove(&argv).stdout);
        assert!(
            all.contains(" available backends agree\n"),
            "{example}: {all}"
        );
    }
}

/// `datalove ARGS` with `input` on its stdin.
fn datalove_with_stdin(args: &[&str], input: &str) -> datalove_test_support::process::Captured {
    let mut command = common::datalove();
    command.args(args);
    datalove_test_support::process::run_with_input(
        command,
        Some(input.as_bytes()),
        std::time::Duration::from_secs(120),
    )
    .expect("datalove runs")
}

const WORDS: &str = "The cat and the hat.\nThe end, and (THE) cat!\n";
const WORD_COUNTS: &str = "4 the\n2 and\n2 cat\n1 end\n1 hat\n";

/// The word-frequency example of issue 17 counts the words of standard input on every
/// available backend, leaking nothing.
#[test]
fn word_freq_counts_standard_input_on_every_backend() {
    counts_words_of_standard_input_on_every_backend("word_freq.dfs");
}

/// Runs `examples/<example>` on [`WORDS`] as standard input on every available backend:
/// it prints [`WORD_COUNTS`] and leaks nothing.
fn counts_words_of_standard_input_on_every_backend(example: &str) -> String {
    let path = format!("{}/examples/{example}", env!("CARGO_MANIFEST_DIR"));
    for backend in common::available(&common::BACKENDS) {
        let out = datalove_with_stdin(
            &["run", "--check-leaks", "--backend", backend, &path],
            WORDS,
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{backend}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), WORD_COUNTS, "{backend}");
        assert!(out.stderr.is_empty(), "{backend}: {}", text(&out.stderr));
    }
    path
}

/// The map version of the word-frequency example (issue 16: a `map[string, i64]` of
/// counts) prints the same on every available backend, leaking nothing, and agrees under
/// `--backend all` on a file.
#[test]
fn wordfreq_counts_with_a_map_on_every_backend() {
    let path = counts_words_of_standard_input_on_every_backend("wordfreq.dfs");
    backends_agree_on_a_file(&path, "wordfreq-words.txt");
}

/// Runs the word-frequency program at `path` on [`WORDS`] written to the file
/// `file_name`, under `--backend all` with the leak check: the backends agree and print
/// [`WORD_COUNTS`].
fn backends_agree_on_a_file(path: &str, file_name: &str) {
    let input = script(file_name, WORDS);
    let all = datalove(&[
        "run",
        "--check-leaks",
        "--backend",
        "all",
        path,
        "--",
        &input,
    ]);
    let stdout = text(&all.stdout);
    assert_eq!(all.status.code(), Some(0), "{stdout}{}", text(&all.stderr));
    assert!(stdout.contains(" available backends agree\n"), "{stdout}");
    assert!(stdout.contains(&format!(")\n{WORD_COUNTS}")), "{stdout}");
}

/// Given a file, it reads the file instead, and the backends agree; a missing file is
/// the runtime error naming it.
#[test]
fn word_freq_reads_a_file_named_by_its_argument() {
    let example = format!("{}/examples/word_freq.dfs", env!("CARGO_MANIFEST_DIR"));
    backends_agree_on_a_file(&example, "words.txt");
    let missing = script("absent.txt", "");
    std::fs::remove_file(&missing).expect("remove");
    let out = datalove(&["run", &example, "--", &missing]);
    assert_eq!(out.status.code(), Some(101));
    // At the native call in the standard module, called from the example.
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: native failure: std.read_file: cannot read {missing:?}: No such file or directory at <library>/io.dfm:"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("\n  called from {example}:")),
        "{stderr}"
    );
}

/// `io.eprint` and `io.eprintln` write to stderr, as they are, on every backend; stdout
/// keeps what `debuglog` printed.
#[test]
fn eprint_writes_to_stderr_on_every_backend() {
    let path = script(
        "eprint.dfs",
        "import io.eprint\nimport io.eprintln\ndebuglog 1\neprint(ref \"no newline, \")\n\
         eprintln(ref \"then one\")\neprintln(ref \"\")\ndebuglog 2\n",
    );
    for backend in common::available(&common::BACKENDS) {
        let out = datalove(&["run", "--check-leaks", "--backend", backend, &path]);
        common::assert_ended(&out, backend, 0, "1\n2\n", "no newline, then one\n\n");
    }
}

/// `io.exit(code)` ends the run with that code on every backend, after dropping what
/// every frame holds, and `--backend all` does not take a 3 for an unavailable backend.
#[test]
fn exit_ends_the_run_with_its_code_on_every_backend() {
    let path = script(
        "exit.dfs",
        "import io.exit\nfun leave(ref why: string, code: u8)\n  let held = [\"owned\", clone(why)]\n  \
         debuglog why\n  exit(code)\n  debuglog \"not reached\"\nend fun\n\
         let outer = \"kept\" ++ \" alive\"\nleave(ref \"leaving\", 3)\ndebuglog outer\n",
    );
    for backend in common::available(&common::BACKENDS) {
        let out = datalove(&["run", "--check-leaks", "--backend", backend, &path]);
        common::assert_ended(&out, backend, 3, "leaving\n", "");
    }
    let all = datalove(&["run", "--check-leaks", "--backend", "all", &path]);
    let stdout = text(&all.stdout);
    assert!(stdout.contains(" available backends agree\n"), "{stdout}");
    assert!(!stdout.contains("unavailable: \n"), "{stdout}");
}
