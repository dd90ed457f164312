//! The compilation cache (docs/running.md, "The compilation cache"): a second `run` of
//! an unchanged program on aot or c starts the stored executable (`--cache-log` says
//! `cache: hit`); a changed program, module, rider interface, backend or C compiler misses; a truncated or corrupted executable is rebuilt and runs correctly; two
//! processes building one program at once both succeed; past the size cap the entries
//! used longest ago go; `--no-cache` and `DATALOVE_CACHE=off` leave it alone; `build`
//! copies from it; `cache stats` and `cache clear`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{available, datalove, text, EXECUTABLE_BACKENDS};

/// A fresh scratch directory with its own cache directory `cache` in it.
fn scratch(name: &str) -> PathBuf {
    datalove_test_support::scratch("cli-cache", name)
}

/// `datalove ARGS` with the cache at `cache`.
fn with_cache(cache: &Path, args: &[&str]) -> Command {
    let mut command = datalove();
    command.env("DATALOVE_CACHE_DIR", cache).args(args);
    command
}

/// `datalove run --cache-log --backend B FILE` with the cache at `cache`: the output,
/// and what the cache did (`hit`, `miss`, `rebuilt`).
fn run(cache: &Path, backend: &str, file: &Path, extra: &[&str]) -> (Output, String) {
    let out = with_cache(cache, &["run", "--cache-log", "--backend", backend])
        .args(extra)
        .arg(file)
        .output()
        .expect("datalove runs");
    let event = text(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("cache: ").map(str::to_string))
        .unwrap_or_default();
    (out, event)
}

/// The entries of the cache at `cache` (their directories).
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(cache)
        .map(|r| r.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'));
    found.sort();
    found
}

const PROGRAM: &str = "import strings.upper\ndebuglog upper(ref \"cached\")\n";

#[test]
fn a_second_run_starts_the_stored_executable_and_a_change_misses() {
    for backend in available(&EXECUTABLE_BACKENDS) {
        let dir = scratch(&format!("second-{backend}"));
        let cache = dir.join("cache");
        let file = dir.join("p.dfs");
        std::fs::write(&file, PROGRAM).unwrap();
        let (out, event) = run(&cache, backend, &file, &[]);
        assert_eq!(
            (text(&out.stdout).as_str(), event.as_str()),
            ("CACHED\n", "miss")
        );
        let (out, event) = run(&cache, backend, &file, &[]);
        assert_eq!(
            (text(&out.stdout).as_str(), event.as_str()),
            ("CACHED\n", "hit")
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        // Another program text, another backend, another compiler: each a new entry.
        std::fs::write(&file, PROGRAM.replace("cached", "changed")).unwrap();
        let (out, event) = run(&cache, backend, &file, &[]);
        assert_eq!(
            (text(&out.stdout).as_str(), event.as_str()),
            ("CHANGED\n", "miss")
        );
        let other = if backend == "c" { "aot" } else { "c" };
        assert_eq!(run(&cache, other, &file, &[]).1, "miss");
        // The compiler this target uses, with one word more (`CC`, or the target's own
        // `CC_<triple>` where one is set, as under qemu).
        let target = datalove::Target::current();
        let words = format!("{} -O1", target.c_compiler().name());
        let mut command = with_cache(&cache, &["run", "--cache-log", "--backend", backend]);
        command.env("CC", &words);
        for name in [
            format!("CC_{}", target.triple()),
            format!("CC_{}", target.triple().replace(['-', '.'], "_")),
        ] {
            if std::env::var_os(&name).is_some() {
                command.env(name, &words);
            }
        }
        let out = command.arg(&file).output().unwrap();
        assert!(
            text(&out.stderr).contains("cache: miss"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(entries(&cache).len(), 4, "{backend}");
        // Neither read nor written without the cache.
        let (out, event) = run(&cache, backend, &file, &["--no-cache"]);
        assert_eq!(
            (text(&out.stdout).as_str(), event.as_str()),
            ("CHANGED\n", "")
        );
        let out = with_cache(&cache, &["run", "--cache-log", "--backend", backend])
            .env("DATALOVE_CACHE", "off")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(text(&out.stderr), "");
        assert_eq!(entries(&cache).len(), 4, "{backend}");
    }
}

#[test]
fn a_changed_module_or_rider_interface_misses() {
    let Some(&backend) = available(&EXECUTABLE_BACKENDS).first() else {
        return;
    };
    let dir = scratch("interfaces");
    let cache = dir.join("cache");
    let program = common::program_with_module(
        &dir,
        "wrap.dfm",
        "require rider std\nimport std.string_to_upper\nfun up(ref s: string): string\n  ret string_to_upper(ref s)\nend fun\n",
        "import wrap.up\ndebuglog up(ref \"x\")\n",
    );
    assert_eq!(run(&cache, backend, &program, &[]).1, "miss");
    assert_eq!(run(&cache, backend, &program, &[]).1, "hit");
    std::fs::write(
        dir.join("wrap.dfm"),
        "require rider std\nimport std.string_to_upper\n# changed\nfun up(ref s: string): string\n  ret string_to_upper(ref s)\nend fun\n",
    )
    .unwrap();
    assert_eq!(run(&cache, backend, &program, &[]).1, "miss");
    // A rider of the test's own (`k`, in C), its interface changed twice.
    if datalove_toolchain::unavailable_without_c_compiler("the C rider k") {
        return;
    }
    let riders = dir.join("riders");
    std::fs::create_dir_all(&riders).unwrap();
    let source = format!(
        "#include <stdint.h>\n#include \"datalove_rti.h\"\n\
         uint32_t dtlv_rider_abi_version_k(void) {{ return {}; }}\n\
         uint8_t dlr_k__k_seven(void *rt, int32_t *out, const dtlv_tydesc_t *to) {{\n\
         (void)rt; (void)to; *out = 7; return 1;\n}}\n",
        datalove_rti::ABI_VERSION
    );
    datalove_test_support::build_c_rider(&riders, "k", &source);
    let interface = "native fun k_seven(): i32\n";
    std::fs::write(riders.join("k.dli"), interface).unwrap();
    let program = common::program_with_module(
        &dir,
        "kw.dfm",
        "require rider k\nimport k.k_seven\nfun seven(): i32\n  ret k_seven()\nend fun\n",
        "import kw.seven\ndebuglog seven()\n",
    );
    let rider_path = ["--rider-path", riders.to_str().unwrap()];
    assert_eq!(run(&cache, backend, &program, &rider_path).1, "miss");
    assert_eq!(run(&cache, backend, &program, &rider_path).1, "hit");
    // Any change of the interface file, even a comment, is a change of the sources.
    std::fs::write(riders.join("k.dli"), format!("# a comment\n{interface}")).unwrap();
    assert_eq!(run(&cache, backend, &program, &rider_path).1, "miss");
    assert_eq!(run(&cache, backend, &program, &rider_path).1, "hit");
    let more = format!("{interface}native fun k_never_called(): i32\n");
    std::fs::write(riders.join("k.dli"), more).unwrap();
    let (out, event) = run(&cache, backend, &program, &rider_path);
    assert_eq!(event, "miss", "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "7\n");
}

#[test]
fn a_truncated_or_corrupted_executable_is_rebuilt_and_runs() {
    for backend in available(&EXECUTABLE_BACKENDS) {
        let dir = scratch(&format!("corrupt-{backend}"));
        let cache = dir.join("cache");
        let file = dir.join("p.dfs");
        std::fs::write(&file, PROGRAM).unwrap();
        assert_eq!(run(&cache, backend, &file, &[]).1, "miss");
        let [entry] = &entries(&cache)[..] else {
            panic!("one entry");
        };
        let program = entry.join("program");
        let bytes = std::fs::read(&program).unwrap();
        std::fs::write(&program, &bytes[..bytes.len() / 2]).unwrap();
        let (out, event) = run(&cache, backend, &file, &[]);
        assert_eq!(
            (text(&out.stdout).as_str(), event.as_str()),
            ("CACHED\n", "rebuilt")
        );
        let mut bytes = std::fs::read(&program).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(&program, &bytes).unwrap();
        let (out, event) = run(&cache, backend, &file, &[]);
        assert_eq!(
            (text(&out.stdout).as_str(), event.as_str()),
            ("CACHED\n", "rebuilt")
        );
        assert_eq!(run(&cache, backend, &file, &[]).1, "hit");
    }
}

#[test]
fn two_processes_building_one_program_at_once_both_succeed() {
    for backend in available(&EXECUTABLE_BACKENDS) {
        let dir = scratch(&format!("race-{backend}"));
        let cache = dir.join("cache");
        let file = dir.join("p.dfs");
        std::fs::write(&file, PROGRAM).unwrap();
        let children: Vec<_> = (0..2)
            .map(|_| {
                with_cache(&cache, &["run", "--cache-log", "--backend", backend])
                    .arg(&file)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            assert_eq!(text(&out.stdout), "CACHED\n");
        }
        assert_eq!(entries(&cache).len(), 1, "{backend}");
        assert_eq!(run(&cache, backend, &file, &[]).1, "hit");
        let leftovers = std::fs::read_dir(&cache)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
            .count();
        assert_eq!(leftovers, 0, "no half-built entry is left");
    }
}

#[test]
fn past_the_cap_the_entries_used_longest_ago_go_and_stats_and_clear_say_so() {
    let Some(&backend) = available(&EXECUTABLE_BACKENDS).first() else {
        return;
    };
    let dir = scratch("cap");
    let cache = dir.join("cache");
    let files: Vec<PathBuf> = (0..3)
        .map(|i| {
            let file = dir.join(format!("p{i}.dfs"));
            std::fs::write(&file, format!("debuglog {i}\n")).unwrap();
            file
        })
        .collect();
    for file in &files[..2] {
        assert_eq!(run(&cache, backend, file, &[]).1, "miss");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Room for two executables: the third store removes the one used longest ago, p1's
    // (p0 was run again after it).
    let size = std::fs::metadata(entries(&cache)[0].join("program"))
        .unwrap()
        .len();
    assert_eq!(run(&cache, backend, &files[0], &[]).1, "hit");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let cap = (2 * size + size / 2).to_string();
    let out = with_cache(&cache, &["run", "--cache-log", "--backend", backend])
        .env("DATALOVE_CACHE_SIZE", &cap)
        .arg(&files[2])
        .output()
        .unwrap();
    assert!(text(&out.stderr).contains("cache: miss"));
    assert_eq!(entries(&cache).len(), 2);
    assert_eq!(run(&cache, backend, &files[0], &[]).1, "hit");
    assert_eq!(run(&cache, backend, &files[1], &[]).1, "miss");
    let stats = with_cache(&cache, &["cache", "stats"]).output().unwrap();
    let stats = text(&stats.stdout);
    assert!(
        stats.contains(&format!("directory: {}", cache.display())),
        "{stats}"
    );
    assert!(stats.contains("entries: 3"), "{stats}");
    let cleared = with_cache(&cache, &["cache", "clear"]).output().unwrap();
    assert_eq!(
        text(&cleared.stdout),
        format!("removed 3 entries from {}\n", cache.display())
    );
    assert!(entries(&cache).is_empty());
}

#[test]
fn build_copies_the_stored_executable_with_its_riders() {
    let Some(&backend) = available(&EXECUTABLE_BACKENDS).first() else {
        return;
    };
    let dir = scratch("build");
    let cache = dir.join("cache");
    let file = dir.join("p.dfs");
    std::fs::write(&file, PROGRAM).unwrap();
    assert_eq!(run(&cache, backend, &file, &[]).1, "miss");
    let out_dir = dir.join("shipped");
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join("p");
    let built = with_cache(&cache, &["build", "--cache-log", "--backend", backend])
        .arg(&file)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert_eq!(text(&built.stderr), "cache: hit\n");
    let rider = out_dir.join("libdlr_std.so");
    assert!(
        rider.is_file() && !rider.is_symlink(),
        "the rider is copied beside it"
    );
    let ran = datalove::Target::current()
        .command(&exe)
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(text(&ran.stdout), "CACHED\n");
}

/// The C compiler, wrapped: each command line it is given is appended to `log`, then
/// the target's own compiler runs it. The words to set as `CC_<triple>`.
fn logging_compiler(dir: &Path, log: &Path) -> String {
    let real = datalove::Target::current().c_compiler().name();
    let script = dir.join("logging-cc.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec {real} \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script.display().to_string()
}

/// Whether the target's C compiler links a program with gold here.
fn gold_links(dir: &Path) -> bool {
    let source = dir.join("gold.c");
    std::fs::write(&source, "int main(void) { return 0; }\n").unwrap();
    datalove::Target::current()
        .c_compiler()
        .command()
        .arg("-fuse-ld=gold")
        .arg("-o")
        .arg(dir.join("gold"))
        .arg(&source)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_probe_chooses_the_gold_linker_when_it_links_and_the_cache_remembers_the_choice() {
    for backend in available(&EXECUTABLE_BACKENDS) {
        let dir = scratch(&format!("linker-{backend}"));
        let log = dir.join("cc.log");
        let cc = logging_compiler(&dir, &log);
        let gold = gold_links(&dir);
        let triple = datalove::Target::current().triple().replace('-', "_");
        let program = dir.join("p.dfs");
        // Each run links once (a new program each time: a miss), with a cache of `cache`;
        // the lines the compiler was given.
        let linked = |cache: &str, n: i64, default_linker: bool| -> Vec<String> {
            let _ = std::fs::remove_file(&log);
            std::fs::write(&program, format!("debuglog {n}\n")).unwrap();
            let mut command = with_cache(&dir.join(cache), &["run", "--backend", backend]);
            command.arg(&program).env(format!("CC_{triple}"), &cc);
            if default_linker {
                command.env("DATALOVE_LINKER", "default");
            }
            let out = command.output().expect("datalove runs");
            assert_eq!(
                text(&out.stdout),
                format!("{n}\n"),
                "{backend}: {}",
                text(&out.stderr)
            );
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect()
        };
        let uses_gold = |lines: &[String]| lines.iter().all(|l| l.contains("-fuse-ld=gold"));
        let probes = |lines: &[String]| lines.iter().filter(|l| l.contains("probe.c")).count();
        // The first run probes (with gold first) and links with what worked.
        let first = linked("cache", 1, false);
        assert_eq!(
            probes(&first),
            if gold { 1 } else { 2 },
            "{backend}: {first:?}"
        );
        assert_eq!(
            uses_gold(&first[first.len() - 1..]),
            gold,
            "{backend}: {first:?}"
        );
        // The next remembers the probe and its choice: no probe, the same linker.
        let second = linked("cache", 2, false);
        assert_eq!(probes(&second), 0, "{backend}: {second:?}");
        assert_eq!(second.len(), 1, "{backend}: {second:?}");
        assert_eq!(uses_gold(&second), gold, "{backend}: {second:?}");
        // DATALOVE_LINKER=default keeps the compiler's own linker.
        let default = linked("cache-default", 3, true);
        assert!(
            default.iter().all(|l| !l.contains("-fuse-ld")),
            "{backend}: {default:?}"
        );
    }
}
