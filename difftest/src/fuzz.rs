//! The bodies of the fuzz targets, in a normal library so a stable test can replay them
//! (`fuzz/` holds the `cargo +nightly fuzz` crate that calls them).
//!
//! | target | input | must hold |
//! |---|---|---|
//! | `front_end` | text in the conformance case format (a script, `#= module`/`#= file` blocks) | the front end answers (a program or located diagnostics) without panicking; what it lowers, the verifier accepts and every backend compiles |
//! | `dli` | a rider interface | the `.dli` parser answers without panicking; each native's call shape is consistent; a module wrapping the natives compiles or is refused |
//! | `ir_verify` | choices | the verifier answers, on IR built from the choices or on a generated program's IR mutated by them; what it accepts, every backend compiles |
//! | `differential` | choices | the generator's program of those choices runs alike on the backends |
//!
//! A panic is the finding: libFuzzer keeps the input, and `cargo test -p
//! datalove-difftest --test fuzz_replay` replays every kept input.

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::OnceLock;

use datalove_front::{compile, MemoryLoader};
use datalove_ir::verify::verify_program;
use datalove_ir::{IrType, NativeContext, Program, Sources};

use crate::gen::{generate, wrapper_module, Config};
use crate::irgen::{mutate, random_program};
use crate::program::TestProgram;
use crate::rng::Rng;
use crate::run::{check, Check, Cli, InProcess, Runner};

/// The fuzz targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    FrontEnd,
    Dli,
    IrVerify,
    Differential,
}

impl Target {
    pub const ALL: [Target; 4] = [
        Target::FrontEnd,
        Target::Dli,
        Target::IrVerify,
        Target::Differential,
    ];

    /// The name `cargo fuzz run NAME` takes, and the corpus directory's.
    pub fn name(self) -> &'static str {
        match self {
            Target::FrontEnd => "front_end",
            Target::Dli => "dli",
            Target::IrVerify => "ir_verify",
            Target::Differential => "differential",
        }
    }

    /// Runs the target's body on one input.
    pub fn run(self, data: &[u8]) {
        match self {
            Target::FrontEnd => front_end(data),
            Target::Dli => dli(data),
            Target::IrVerify => ir_verify(data),
            Target::Differential => differential(data),
        }
    }
}

/// The text front end on `data`.
pub fn front_end(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let program = TestProgram::from_case(text);
    match program.compile() {
        Ok(compiled) => {
            if compiled.program.entry.is_some() {
                if let Err(errors) = verify_program(&compiled.program) {
                    let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                    panic!(
                        "the front end lowered IR the verifier refuses:\n{}",
                        errors.join("\n")
                    );
                }
                let _ = datalove_ir::print::print_program(&compiled.program);
                backends_compile(&compiled.program);
            }
        }
        Err(failed) => {
            let _ = failed.render();
        }
    }
}

/// The `.dli` parser on `data`, then the front end on a module wrapping what it parsed.
pub fn dli(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = Sources::new();
    let file = sources.add("fz.dli", text);
    let interface = match datalove_ir::dli::parse_dli("fz", file, text) {
        Ok(i) => i,
        Err(diagnostics) => {
            let _ = sources.render(&diagnostics);
            return;
        }
    };
    for decl in &interface.natives {
        let undetermined = interface
            .generic_functions
            .get(&decl.name)
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            undetermined,
            decl.undetermined_type_params(),
            "{}: two answers to which type parameters trail",
            decl.name
        );
        let bindings = undetermined.iter().map(|_| IrType::I64).collect();
        let ctx = interface
            .context(&decl.name, bindings)
            .expect("a parsed native has a context");
        assert_eq!(ctx.words().len(), ctx.word_count(), "{}", decl.name);
        assert_eq!(ctx.word_count(), decl.word_count(), "{}", decl.name);
        assert!(
            ctx.fits(),
            "{}: the parser let a native wider than 32 words through",
            decl.name
        );
        assert!(ctx.symbol().starts_with("dlr_fz__"), "{}", ctx.symbol());
    }
    // Through the front end: a module that requires the rider and wraps its natives.
    let decls: Vec<(&str, &datalove_ir::NativeDecl)> = interface
        .natives
        .iter()
        .take(16)
        .map(|d| ("fz", d))
        .collect();
    let module = wrapper_module(&decls);
    let loader = MemoryLoader::new().with_rider("fz", text);
    match compile(&loader, "wrap.dfm", &module) {
        Ok(compiled) => {
            let _ = datalove_ir::print::print_program(&compiled.program);
        }
        Err(failed) => {
            let _ = failed.render();
        }
    }
}

/// The verifier on IR built from `data`'s choices, or on a generated program's IR with
/// `data`'s mutations.
pub fn ir_verify(data: &[u8]) {
    let (program, label) = match data.split_first() {
        Some((&mode, rest)) if mode % 2 == 1 && rest.len() >= 2 => {
            // A generated program (from the first part) mutated (by the rest).
            let split = (u16::from_le_bytes([rest[0], rest[1]]) as usize).min(rest.len() - 2);
            let (generator, mutations) = rest[2..].split_at(split);
            let source = generate(&mut Rng::from_bytes(generator), &Config::small());
            let Ok(compiled) = source.compile() else {
                return;
            };
            let mut program = compiled.program;
            mutate(&mut program, &mut Rng::from_bytes(mutations));
            (program, "a generated program, mutated")
        }
        Some((_, rest)) => (
            random_program(&mut Rng::from_bytes(rest)),
            "built from choices",
        ),
        None => return,
    };
    match verify_program(&program) {
        Ok(()) => {
            let _ = datalove_ir::print::print_program(&program);
            let _ = label;
            backends_compile(&program);
        }
        Err(errors) => {
            for e in errors {
                let _ = e.to_string();
            }
        }
    }
}

/// The generator's program of `data`'s choices on the fuzzing runner's backends: a
/// finding panics with the program and what each backend did.
pub fn differential(data: &[u8]) {
    let program = generate(&mut Rng::from_bytes(data), &Config::small());
    if let Check::Found(finding) = check(fuzz_runner(), &program, None) {
        panic!(
            "{finding}\n--- program\n{}\n--- files\n{:?}",
            program.script, program.files
        );
    }
}

/// Compiles verified IR with every backend that compiles in process (the interpreter's
/// lowering, the JIT, the C emitter). Their errors are values; a panic is a bug.
pub fn backends_compile(program: &Program) {
    // Never called: a native's address is only stored.
    let placeholder = backends_compile as *const c_void;
    let mut resolve = |_: &NativeContext| -> Result<*const c_void, String> { Ok(placeholder) };
    let _ = datalove_interp::compile(program, &mut resolve);
    let _ = datalove_clif_jit::compile(program, &mut resolve);
    let _ = datalove_cbackend::emit_c(program);
}

/// The runner the `differential` target uses: the `datalove` CLI on every backend when
/// `DIFFTEST_CLI` names it, else the interpreter and the JIT in process. Riders come
/// from `DIFFTEST_RIDERS`, else `<repo>/target/difftest/debug/riders` (which `cargo run -p
/// datalove-difftest -- prepare` fills).
pub fn fuzz_runner() -> &'static dyn Runner {
    static RUNNER: OnceLock<Box<dyn Runner + Send>> = OnceLock::new();
    RUNNER
        .get_or_init(|| {
            let riders = std::env::var_os("DIFFTEST_RIDERS")
                .map(PathBuf::from)
                .unwrap_or_else(|| crate::riders::repo_root().join("target/difftest/debug/riders"));
            assert!(
                riders.join("libdlr_probe.so").is_file(),
                "no riders in {} (set DIFFTEST_RIDERS, or run `cargo run -p datalove-difftest -- prepare`)",
                riders.display()
            );
            match std::env::var_os("DIFFTEST_CLI") {
                Some(cli) => {
                    let work = std::env::temp_dir().join(format!("difftest-fuzz-{}", std::process::id()));
                    let _ = std::fs::create_dir_all(&work);
                    Box::new(Cli::new(PathBuf::from(cli), riders, work)) as Box<dyn Runner + Send>
                }
                None => Box::new(InProcess {
                    riders: datalove::RiderPath::new(&[riders]),
                    backends: vec!["interp", "jit"],
                    passes: datalove_front::IrPasses::All,
                }),
            }
        })
        .as_ref()
}

/// The inputs a target's corpus starts from: the conformance cases, examples and
/// library modules as text, the rider interfaces (and those cases embed), and, for the
/// targets that read choices, byte strings of several lengths.
pub fn seed_corpus(target: Target) -> Vec<(String, Vec<u8>)> {
    let root = crate::riders::repo_root();
    let files_in = |dir: &str, ext: &str| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == ext))
                    .collect()
            })
            .unwrap_or_default();
        paths.sort();
        paths
    };
    let read = |p: &PathBuf| -> (String, Vec<u8>) {
        let name = p
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        (name, std::fs::read(p).unwrap_or_default())
    };
    match target {
        Target::FrontEnd => files_in("conformance/cases", "dfs")
            .iter()
            .chain(&files_in("examples", "dfs"))
            .chain(&files_in("library", "dfm"))
            .map(read)
            .collect(),
        Target::Dli => {
            let mut out: Vec<(String, Vec<u8>)> = [
                "runtime/std/rider.dli",
                "conformance/riders/probe/rider.dli",
                "conformance/riders/cprobe/rider.dli",
            ]
            .iter()
            .map(|p| read(&root.join(p)))
            .collect();
            for case in files_in("conformance/cases", "dfs") {
                let text = std::fs::read_to_string(&case).unwrap_or_default();
                let program = TestProgram::from_case(&text);
                for (name, body) in program.files {
                    if name.ends_with(".dli") {
                        out.push((format!("{}-{name}", read(&case).0), body.into_bytes()));
                    }
                }
            }
            out
        }
        Target::IrVerify | Target::Differential => (0..24u64)
            .map(|i| {
                let mut rng = Rng::seeded(i);
                let len = [16usize, 64, 256, 1024][i as usize % 4];
                let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                if target == Target::IrVerify {
                    // Half build IR from choices, half mutate a generated program.
                    bytes[0] = i as u8;
                }
                (format!("seed-{i}"), bytes)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of making IR give the verifier programs it accepts as well as ones it
    /// refuses, so the backends behind it are reached too.
    #[test]
    fn fuzz_ir_from_choices_is_sometimes_accepted() {
        let mut accepted = [0usize; 2];
        let mut total = [0usize; 2];
        for i in 0..400u64 {
            let mut rng = Rng::seeded(i);
            let mut bytes: Vec<u8> = (0..300).map(|_| rng.next_u64() as u8).collect();
            bytes[0] = i as u8;
            let mode = (i % 2) as usize;
            let program = if mode == 1 {
                let split = (u16::from_le_bytes([bytes[1], bytes[2]]) as usize).min(297);
                let (g, m) = bytes[3..].split_at(split);
                let Ok(c) = generate(&mut Rng::from_bytes(g), &Config::small()).compile() else {
                    continue;
                };
                let mut p = c.program;
                mutate(&mut p, &mut Rng::from_bytes(m));
                p
            } else {
                random_program(&mut Rng::from_bytes(&bytes[1..]))
            };
            total[mode] += 1;
            accepted[mode] += verify_program(&program).is_ok() as usize;
        }
        println!(
            "accepted: built {}/{}, mutated {}/{}",
            accepted[0], total[0], accepted[1], total[1]
        );
        assert!(
            accepted[0] > 0 && accepted[0] < total[0],
            "{accepted:?} of {total:?}"
        );
        assert!(
            accepted[1] > 0 && accepted[1] < total[1],
            "{accepted:?} of {total:?}"
        );
    }
}
