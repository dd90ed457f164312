//! Targets: the machine an executable is built for, its C compiler and how its programs
//! are started (directly, or through a runner such as `qemu-aarch64`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::compiler::CCompiler;

/// The targets `datalove build --target` is known to work for.
pub const SUPPORTED_TRIPLES: &[&str] = &["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

/// A target, named by its Rust triple (`aarch64-unknown-linux-gnu`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    triple: String,
}

/// The words of an environment variable (a program and its leading arguments, split at
/// whitespace as cargo and `make` read them), or `None` when unset or blank.
pub(crate) fn env_words(name: &str) -> Option<Vec<String>> {
    let value = std::env::var(name).ok()?;
    let words: Vec<String> = value.split_whitespace().map(str::to_string).collect();
    (!words.is_empty()).then_some(words)
}

/// `name` found in a directory of `PATH` (or `name` itself when it holds a `/`).
pub fn find_program(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

impl Target {
    /// The target this program was built for: the machine it runs on.
    pub fn current() -> Target {
        Target {
            triple: env!("DATALOVE_CURRENT_TARGET").to_string(),
        }
    }

    /// The target named `triple`: one of [`SUPPORTED_TRIPLES`], or the current one.
    pub fn from_triple(triple: &str) -> Result<Target, String> {
        let target = Target {
            triple: triple.to_string(),
        };
        if SUPPORTED_TRIPLES.contains(&triple) || target.is_current() {
            Ok(target)
        } else {
            Err(format!(
                "unsupported target `{triple}` (supported: {})",
                SUPPORTED_TRIPLES.join(", ")
            ))
        }
    }

    /// The Rust triple, `aarch64-unknown-linux-gnu`.
    pub fn triple(&self) -> &str {
        &self.triple
    }

    /// The architecture, `aarch64`.
    pub fn arch(&self) -> &str {
        self.triple.split('-').next().unwrap_or(&self.triple)
    }

    /// Whether this is the target this program was built for.
    pub fn is_current(&self) -> bool {
        self.triple == env!("DATALOVE_CURRENT_TARGET")
    }

    /// The GNU triple the Debian cross tools are named by (`aarch64-linux-gnu`): the
    /// Rust triple without its vendor.
    pub fn gnu_triple(&self) -> String {
        let parts: Vec<&str> = self.triple.split('-').collect();
        match parts.as_slice() {
            [arch, "unknown", rest @ ..] => std::iter::once(*arch)
                .chain(rest.iter().copied())
                .collect::<Vec<_>>()
                .join("-"),
            _ => self.triple.clone(),
        }
    }

    /// The ELF machine (`e_machine`) of the target's programs, when known.
    pub fn elf_machine(&self) -> Option<u16> {
        match self.arch() {
            "x86_64" => Some(crate::elf::EM_X86_64),
            "aarch64" => Some(crate::elf::EM_AARCH64),
            "riscv64gc" | "riscv64" => Some(crate::elf::EM_RISCV),
            _ => None,
        }
    }

    /// `AARCH64_UNKNOWN_LINUX_GNU`: the triple as cargo spells it in environment
    /// variables.
    fn env_name(&self) -> String {
        self.triple.to_uppercase().replace(['-', '.'], "_")
    }

    /// The C compiler for this target:
    ///
    /// 1. `CC_<triple>` or `CC_<triple with underscores>` (the `cc` crate's convention:
    ///    `CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc`);
    /// 2. for the current target, `CC`, else `cc`;
    /// 3. for another target, `<gnu triple>-gcc` (`aarch64-linux-gnu-gcc`).
    pub fn c_compiler(&self) -> CCompiler {
        let per_target = [
            format!("CC_{}", self.triple),
            format!("CC_{}", self.triple.replace(['-', '.'], "_")),
        ];
        if let Some(words) = per_target.iter().find_map(|name| env_words(name)) {
            return CCompiler::from_words(words);
        }
        if self.is_current() {
            CCompiler::from_words(env_words("CC").unwrap_or_else(|| vec!["cc".to_string()]))
        } else {
            CCompiler::from_words(vec![format!("{}-gcc", self.gnu_triple())])
        }
    }

    /// The environment variable naming this target's runner, cargo's
    /// `CARGO_TARGET_<TRIPLE>_RUNNER`.
    pub fn runner_env(&self) -> String {
        format!("CARGO_TARGET_{}_RUNNER", self.env_name())
    }

    /// How this target's programs are started: `Ok(None)` directly, `Ok(Some(words))`
    /// through a runner (`qemu-aarch64 -L /usr/aarch64-linux-gnu`), `Err` why they
    /// cannot be run here.
    ///
    /// 1. `CARGO_TARGET_<TRIPLE>_RUNNER` (cargo's convention; what cargo itself runs the
    ///    tests with), when set;
    /// 2. the current target: directly;
    /// 3. another target: `qemu-<arch>` (or `qemu-<arch>-static`) on `PATH`, with
    ///    `-L /usr/<gnu triple>` when that directory holds the target's C library.
    pub fn runner(&self) -> Result<Option<Vec<String>>, String> {
        if let Some(mut words) = env_words(&self.runner_env()) {
            // Found now, so that a child's own PATH cannot lose it.
            if let Some(program) = find_program(&words[0]) {
                words[0] = program.display().to_string();
            }
            return Ok(Some(words));
        }
        if self.is_current() {
            return Ok(None);
        }
        let arch = self.arch();
        let qemu = [format!("qemu-{arch}"), format!("qemu-{arch}-static")]
            .into_iter()
            .find(|name| find_program(name).is_some())
            .ok_or_else(|| {
                format!(
                    "no way to run {} programs here: no qemu-{arch} on PATH and {} is not set",
                    self.triple,
                    self.runner_env()
                )
            })?;
        let mut words = vec![find_program(&qemu).map_or(qemu, |p| p.display().to_string())];
        let sysroot = PathBuf::from("/usr").join(self.gnu_triple());
        if sysroot.join("lib").is_dir() {
            words.push("-L".to_string());
            words.push(sysroot.display().to_string());
        }
        Ok(Some(words))
    }

    /// A command starting `program` (built for this target) through the runner, if any.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Result<Command, String> {
        Ok(match self.runner()? {
            None => Command::new(program),
            Some(words) => {
                let mut command = Command::new(&words[0]);
                command.args(&words[1..]).arg(program);
                command
            }
        })
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.triple)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triples_and_their_names() {
        let arm = Target::from_triple("aarch64-unknown-linux-gnu").unwrap();
        assert_eq!(arm.arch(), "aarch64");
        assert_eq!(arm.gnu_triple(), "aarch64-linux-gnu");
        assert_eq!(
            arm.runner_env(),
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER"
        );
        assert_eq!(arm.elf_machine(), Some(183));
        assert!(Target::from_triple("mips-unknown-linux-gnu")
            .unwrap_err()
            .contains("aarch64-unknown-linux-gnu"));
        assert!(Target::current().is_current());
        assert!(Target::from_triple(Target::current().triple()).is_ok());
    }

    #[test]
    fn another_target_gets_its_cross_compiler() {
        let other = if Target::current().arch() == "aarch64" {
            "x86_64-unknown-linux-gnu"
        } else {
            "aarch64-unknown-linux-gnu"
        };
        let target = Target::from_triple(other).unwrap();
        if std::env::var_os(format!("CC_{}", other.replace('-', "_"))).is_none()
            && std::env::var_os(format!("CC_{other}")).is_none()
        {
            assert_eq!(
                target.c_compiler().program,
                format!("{}-gcc", target.gnu_triple())
            );
        }
    }
}
