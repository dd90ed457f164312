//! The C compiler of a target, and whether it works here (a probe, run once per target
//! and process, behind `Backend::unavailable_reason`).

use std::collections::HashMap;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use crate::elf::{elf_machine, machine_name};
use crate::target::Target;

/// A C compiler: a program and its leading arguments (`ccache gcc -m64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CCompiler {
    pub program: String,
    pub args: Vec<String>,
}

impl CCompiler {
    /// The current target's compiler ([`Target::c_compiler`]: `CC_<triple>`, `$CC`,
    /// else `cc`).
    pub fn from_env() -> CCompiler {
        Target::current().c_compiler()
    }

    /// The compiler named by `words` (the first is the program); `cc` when empty.
    pub fn from_words(words: Vec<String>) -> CCompiler {
        match words.split_first() {
            Some((program, args)) => CCompiler {
                program: program.clone(),
                args: args.to_vec(),
            },
            None => CCompiler {
                program: "cc".to_string(),
                args: Vec::new(),
            },
        }
    }

    /// A command running the compiler with its leading arguments.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command
    }

    /// How it is named in messages.
    pub fn name(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Whether the current target's C compiler works here. `Err` says why not.
pub fn probe() -> Result<(), String> {
    probe_target(&Target::current())
}

/// For the tests that need a C compiler (to build a C rider or an executable, or to link
/// a Rust library): `true` when the current target's compiler does not work here, after
/// saying on stderr that `what` is unavailable and why. Such a test then passes without
/// running, as the aot and c backends report themselves unavailable (`docs/testing.md`,
/// "Without a C compiler").
pub fn unavailable_without_c_compiler(what: &str) -> bool {
    match probe() {
        Ok(()) => false,
        Err(reason) => {
            eprintln!("unavailable: {what}: {reason}");
            true
        }
    }
}

/// Whether `target`'s C compiler works here: it compiles and links a one-line C program
/// for that target's machine. `Err` says why not (not found, what it printed, or that it
/// builds for another machine). Probed once per target and process.
pub fn probe_target(target: &Target) -> Result<(), String> {
    let probed = probed();
    if let Some(known) = probed.lock().expect("probe cache").get(target) {
        return known.clone();
    }
    let result = probe_now(target);
    probed
        .lock()
        .expect("probe cache")
        .insert(target.clone(), result.clone());
    result
}

/// Each target's probe result, in this process.
fn probed() -> &'static Mutex<HashMap<Target, Result<(), String>>> {
    static PROBED: OnceLock<Mutex<HashMap<Target, Result<(), String>>>> = OnceLock::new();
    PROBED.get_or_init(Default::default)
}

/// Takes what an earlier process's probe of `target` found (remembered by the caller,
/// as the compilation cache does): the compiler works and links with `link_flags`.
pub fn remember_probe(target: &Target, link_flags: Vec<String>) {
    link_flags_found()
        .lock()
        .expect("link flags")
        .insert(target.clone(), link_flags);
    probed()
        .lock()
        .expect("probe cache")
        .insert(target.clone(), Ok(()));
}

/// The flags every link for `target` adds to its C compiler's words: `-fuse-ld=gold`
/// when the probe ([`probe_target`]) linked with it (gold links the runtime staticlib in
/// about 60% of the time the default `ld.bfd` takes: 105 against 181 ms for a debug
/// runtime on a 2-core x86-64 machine), else none. A compiler whose words already
/// choose a linker (`-fuse-ld=...`), or `DATALOVE_LINKER=default`, keeps its own.
pub fn link_flags(target: &Target) -> Vec<String> {
    if let Some(known) = link_flags_found().lock().expect("link flags").get(target) {
        return known.clone();
    }
    if probe_target(target).is_err() {
        return Vec::new();
    }
    link_flags_found()
        .lock()
        .expect("link flags")
        .get(target)
        .cloned()
        .unwrap_or_default()
}

/// The linker flags each probe found working, by target.
fn link_flags_found() -> &'static Mutex<HashMap<Target, Vec<String>>> {
    static FOUND: OnceLock<Mutex<HashMap<Target, Vec<String>>>> = OnceLock::new();
    FOUND.get_or_init(Default::default)
}

/// The linkers the probe tries, in order: gold, then the compiler's default.
fn linker_choices(compiler: &CCompiler) -> Vec<Vec<String>> {
    let chosen = compiler.args.iter().any(|a| a.starts_with("-fuse-ld="))
        || std::env::var("DATALOVE_LINKER").is_ok_and(|v| v == "default");
    if chosen {
        vec![Vec::new()]
    } else {
        vec![vec!["-fuse-ld=gold".to_string()], Vec::new()]
    }
}

fn probe_now(target: &Target) -> Result<(), String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static PROBES: AtomicUsize = AtomicUsize::new(0);
    let compiler = target.c_compiler();
    let dir = std::env::temp_dir().join(format!(
        "datalove-cc-probe-{}-{}",
        std::process::id(),
        PROBES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let source = dir.join("probe.c");
    let program = dir.join("probe");
    let result = (|| {
        // Looked up first: under an emulator a program that cannot be started looks like
        // one that exited with 127.
        if crate::target::find_program(&compiler.program).is_none() {
            return Err(format!(
                "no C compiler: `{}` cannot run: not found on PATH",
                compiler.name()
            ));
        }
        std::fs::write(&source, "int main(void) { return 0; }\n")
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        // The first linker that builds it is the one every link uses.
        let mut output = None;
        for flags in linker_choices(&compiler) {
            let tried = compiler
                .command()
                .args(&flags)
                .arg("-o")
                .arg(&program)
                .arg(&source)
                .output()
                .map_err(|e| format!("no C compiler: `{}` cannot run: {e}", compiler.name()))?;
            let built = tried.status.success();
            output = Some(tried);
            if built {
                link_flags_found()
                    .lock()
                    .expect("link flags")
                    .insert(target.clone(), flags);
                break;
            }
        }
        let output = output.expect("at least one linker is tried");
        if !output.status.success() {
            return Err(format!(
                "the C compiler `{}` cannot build a program: {}",
                compiler.name(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        match (elf_machine(&program), target.elf_machine()) {
            (Some(built), Some(wanted)) if built != wanted => Err(format!(
                "the C compiler `{}` builds {} programs, not {} ones (set CC_{})",
                compiler.name(),
                machine_name(built),
                target.triple(),
                target.triple().replace('-', "_")
            )),
            _ => Ok(()),
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiler_words_are_split_at_whitespace() {
        assert_eq!(
            CCompiler::from_words(vec!["ccache".into(), "gcc".into(), "-m64".into()]),
            CCompiler {
                program: "ccache".into(),
                args: vec!["gcc".into(), "-m64".into()]
            }
        );
        assert_eq!(CCompiler::from_words(Vec::new()).program, "cc");
        assert_eq!(
            crate::target::env_words("DATALOVE_SURELY_UNSET_VARIABLE"),
            None
        );
    }
}
