//! Where the versions run: this machine, or aarch64 under `qemu-aarch64` (emulated).
//! A platform knows which tools it has (a missing one makes its versions unavailable,
//! never failed), builds what must be built (the C rider, the C and Rust peers,
//! datalove's aot and c executables) and gives the command that runs a version at a size.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::measure::{self, CommandLine, Sample};
use crate::programs::{self, Benchmark};
use crate::versions::Version;

/// The aarch64 target the harness can run under emulation.
pub const AARCH64: &str = "aarch64-unknown-linux-gnu";

/// How long one build may take.
const BUILD_TIMEOUT: Duration = Duration::from_secs(600);

/// A tool a version needs: how to call it and what it says its version is.
#[derive(Clone, Debug)]
pub struct Tool {
    pub command: String,
    pub version: String,
}

/// This machine or an emulated one.
#[derive(Clone, Debug)]
pub struct Platform {
    /// The target triple; `None` for this machine.
    pub target: Option<String>,
    /// Programs run under an emulator: every figure is marked emulated.
    pub emulated: bool,
    /// Put before every command that runs a built program (`qemu-aarch64 -L SYSROOT`).
    pub wrapper: Vec<OsString>,
    /// The C compiler for the C peers and the C rider; also `CC` for datalove's links.
    pub cc: Result<Tool, String>,
    /// The Rust compiler for the Rust std peers (`rustc`, or `RUSTC`).
    pub rustc: Result<Tool, String>,
    /// The `datalove-benches` binary that runs datalove programs on this platform.
    pub exec: Result<PathBuf, String>,
    /// The interpreters of the interpreted peers.
    pub interpreters: BTreeMap<Version, Result<Tool, String>>,
    /// Where built things go: `<out>/work/<platform>/`.
    pub work_dir: PathBuf,
}

/// The first line `program args` prints (stdout or stderr), when it runs at all.
fn version_line(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).output().ok()?;
    let text = if output.stdout.is_empty() {
        String::from_utf8_lossy(&output.stderr).into_owned()
    } else {
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    text.lines().next().map(|l| l.trim().to_string())
}

/// A tool from the environment variable `env` or the first of `candidates` that runs.
fn find_tool(
    env: &str,
    candidates: &[&str],
    version_args: &[&str],
    check: fn(&str) -> bool,
) -> Result<Tool, String> {
    let chosen: Vec<String> = match std::env::var(env) {
        Ok(v) if !v.trim().is_empty() => vec![v],
        _ => candidates.iter().map(|c| c.to_string()).collect(),
    };
    for command in &chosen {
        if let Some(version) = version_line(command, version_args) {
            if check(&version) {
                return Ok(Tool {
                    command: command.clone(),
                    version,
                });
            }
        }
    }
    Err(format!(
        "no `{}` found (set {env} to use another)",
        chosen.join("` or `")
    ))
}

impl Platform {
    /// The platform for `target` (`None` or this machine's triple: this machine).
    /// Preparing aarch64 cross-builds this harness for it when Rust can.
    pub fn detect(target: Option<&str>, out_dir: &Path) -> Result<Platform, String> {
        let host = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
        match target {
            None => Ok(Platform::host(out_dir)),
            Some(t) if t == host => Ok(Platform::host(out_dir)),
            Some(AARCH64) => Ok(Platform::aarch64(out_dir)),
            Some(other) => Err(format!(
                "target `{other}` is not supported (this machine, {host}, or {AARCH64} under qemu)"
            )),
        }
    }

    fn host(out_dir: &Path) -> Platform {
        let mut interpreters = BTreeMap::new();
        let luajit = find_tool("DATALOVE_BENCH_LUAJIT", &["luajit"], &["-v"], |v| {
            v.starts_with("LuaJIT")
        });
        interpreters.insert(Version::LuaJit, luajit.clone());
        interpreters.insert(Version::LuaJitOff, luajit);
        interpreters.insert(
            Version::Lua54,
            find_tool("DATALOVE_BENCH_LUA54", &["lua5.4", "lua"], &["-v"], |v| {
                v.starts_with("Lua 5.4")
            }),
        );
        let python = find_tool("DATALOVE_BENCH_PYTHON", &["python3"], &["--version"], |v| {
            v.starts_with("Python 3")
        });
        interpreters.insert(Version::Python, python.map(resolve_python));
        Platform {
            target: None,
            emulated: false,
            wrapper: Vec::new(),
            cc: find_tool("CC", &["cc"], &["--version"], |_| true),
            rustc: find_tool("RUSTC", &["rustc"], &["--version"], |v| {
                v.starts_with("rustc")
            }),
            exec: std::env::current_exe().map_err(|e| format!("cannot locate this harness: {e}")),
            interpreters,
            work_dir: out_dir.join("work/native"),
        }
    }

    fn aarch64(out_dir: &Path) -> Platform {
        let sysroot = std::env::var("DATALOVE_BENCH_AARCH64_SYSROOT")
            .unwrap_or_else(|_| "/usr/aarch64-linux-gnu".to_string());
        let qemu = find_tool(
            "DATALOVE_BENCH_QEMU",
            &["qemu-aarch64"],
            &["--version"],
            |v| v.contains("qemu"),
        );
        let cc = find_tool(
            "DATALOVE_BENCH_AARCH64_CC",
            &["aarch64-linux-gnu-gcc"],
            &["--version"],
            |_| true,
        );
        let sysroot_ok = Path::new(&sysroot).join("lib").is_dir();
        let missing =
            |what: &str| -> String { format!("{what} is needed to run {AARCH64} programs here") };
        let runnable: Result<(), String> = match (&qemu, sysroot_ok) {
            (Err(e), _) => Err(format!("{} ({e}; apt install qemu-user)", missing("qemu-aarch64"))),
            (_, false) => Err(format!(
                "{} (no {sysroot}/lib; apt install libc6-dev-arm64-cross, or set DATALOVE_BENCH_AARCH64_SYSROOT)",
                missing("an aarch64 sysroot")
            )),
            _ => Ok(()),
        };
        let cc = match (&runnable, cc) {
            (Err(e), _) => Err(e.clone()),
            (_, Err(e)) => Err(format!("{e}; apt install gcc-aarch64-linux-gnu")),
            (_, Ok(tool)) => Ok(tool),
        };
        let work_dir = out_dir.join(format!("work/{AARCH64}"));
        let exec = match (&runnable, &cc) {
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
            (Ok(()), Ok(cc)) => cross_build_harness(&cc.command, out_dir),
        };
        let mut interpreters = BTreeMap::new();
        for v in [
            Version::LuaJit,
            Version::LuaJitOff,
            Version::Lua54,
            Version::Python,
        ] {
            interpreters.insert(
                v,
                Err(format!(
                    "no {AARCH64} build of its interpreter to run under qemu here"
                )),
            );
        }
        Platform {
            target: Some(AARCH64.to_string()),
            emulated: true,
            wrapper: match &qemu {
                Ok(q) => vec![q.command.clone().into(), "-L".into(), sysroot.into()],
                Err(_) => Vec::new(),
            },
            cc,
            rustc: Err(format!(
                "the Rust peers are built for this machine only, not for {AARCH64}"
            )),
            exec,
            interpreters,
            work_dir,
        }
    }

    /// `native` or the target triple.
    pub fn name(&self) -> String {
        match &self.target {
            None => format!("{}-unknown-linux-gnu (native)", std::env::consts::ARCH),
            Some(t) => format!("{t} (emulated: qemu-aarch64)"),
        }
    }

    /// Why `version` cannot run here, or `None` when it can.
    pub fn unavailable(&self, version: Version) -> Option<String> {
        let problem = match version {
            Version::Interp | Version::Jit => self.exec.as_ref().err().cloned(),
            Version::Aot | Version::C => {
                self.exec.as_ref().err().or(self.cc.as_ref().err()).cloned()
            }
            Version::PeerC => self.cc.as_ref().err().cloned(),
            Version::RustStd => self.rustc.as_ref().err().cloned(),
            other => self
                .interpreters
                .get(&other)
                .and_then(|t| t.as_ref().err().cloned()),
        };
        problem
    }

    /// The tools and their versions, for the report.
    pub fn tools(&self) -> Vec<(String, String)> {
        let show = |t: &Result<Tool, String>| match t {
            Ok(t) => format!("`{}`: {}", t.command, t.version),
            Err(e) => format!("unavailable: {e}"),
        };
        let mut tools = vec![
            ("C compiler".to_string(), show(&self.cc)),
            ("Rust compiler".to_string(), show(&self.rustc)),
        ];
        for v in [Version::LuaJit, Version::Lua54, Version::Python] {
            if let Some(t) = self.interpreters.get(&v) {
                tools.push((v.label().to_string(), show(t)));
            }
        }
        if !self.wrapper.is_empty() {
            tools.push((
                "emulator".to_string(),
                self.wrapper
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(" "),
            ));
        }
        tools
    }

    /// The directory of the riders built for this platform (`bench`).
    pub fn riders_dir(&self) -> PathBuf {
        self.work_dir.join("riders")
    }

    fn cc_command(&self) -> Result<String, String> {
        self.cc
            .as_ref()
            .map(|t| t.command.clone())
            .map_err(Clone::clone)
    }

    /// Builds the C rider `bench` into [`Platform::riders_dir`].
    pub fn build_bench_rider(&self) -> Result<(), String> {
        let cc = self.cc_command()?;
        let dir = self.riders_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let source = programs::bench_rider_dir();
        let command = CommandLine::new(cc)
            .args(["-O2", "-shared", "-fPIC", "-Wall", "-Werror"])
            .arg(format!("-I{}", programs::rti_include_dir().display()))
            .arg(source.join("bench.c"))
            .arg("-o")
            .arg(dir.join("libdlr_bench.so"));
        build_step(&command)?;
        std::fs::copy(source.join("rider.dli"), dir.join("bench.dli"))
            .map_err(|e| format!("copying bench.dli: {e}"))?;
        Ok(())
    }

    /// Where `benchmark`'s built `version` goes.
    pub fn executable(&self, benchmark: &Benchmark, version: Version) -> PathBuf {
        self.work_dir
            .join("bin")
            .join(format!("{}-{}", benchmark.stem(), version.key()))
    }

    /// Builds a C program (a peer, or a generated one) into `out`; the build's sample
    /// (its wall time is the compile time).
    pub fn build_c(&self, source: &Path, out: &Path, native_call: bool) -> Result<Sample, String> {
        let cc = self.cc_command()?;
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut command = CommandLine::new(cc)
            .args(["-O2", "-ffp-contract=off", "-o"])
            .arg(out)
            .arg(source);
        if native_call {
            let riders = self.riders_dir();
            command = command
                .arg(format!("-I{}", programs::rti_include_dir().display()))
                .arg(format!("-L{}", riders.display()))
                .arg("-ldlr_bench")
                .arg(format!("-Wl,-rpath,{}", riders.display()));
        }
        build_step(&command.arg("-lm"))
    }

    /// Builds a Rust peer into `out` with `rustc -O` (edition 2021, std only); the
    /// build's sample (its wall time is the compile time).
    pub fn build_rust(&self, source: &Path, out: &Path) -> Result<Sample, String> {
        let rustc = self
            .rustc
            .as_ref()
            .map(|t| t.command.clone())
            .map_err(Clone::clone)?;
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let command = CommandLine::new(rustc)
            .args(["-O", "--edition", "2021", "-o"])
            .arg(out)
            .arg(source);
        build_step(&command)
    }

    /// The `datalove-benches exec ...` command for this platform.
    pub fn exec_command(&self) -> Result<CommandLine, String> {
        let exec = self.exec.as_ref().map_err(Clone::clone)?;
        let mut command = CommandLine::new(exec).arg("exec");
        if let Ok(cc) = &self.cc {
            command = command.env("CC", &cc.command);
        }
        Ok(command)
    }

    /// Builds a datalove program into an aot or c executable; the sample's phases say
    /// how long the front end and the build took.
    pub fn build_datalove(
        &self,
        source: &Path,
        backend: &str,
        out: &Path,
    ) -> Result<Sample, String> {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let command = self
            .exec_command()?
            .args(["build", "--backend", backend, "--rider-path"])
            .arg(self.riders_dir())
            .arg(source)
            .arg("-o")
            .arg(out)
            .wrapped(&self.wrapper);
        build_step(&command)
    }

    /// The command that runs `version` of `benchmark` at `size` (built executables must
    /// be built already).
    pub fn run_command(
        &self,
        benchmark: &Benchmark,
        version: Version,
        size: u64,
    ) -> Result<CommandLine, String> {
        let size = size.to_string();
        let interpreter = |v: Version| -> Result<String, String> {
            match self.interpreters.get(&v) {
                Some(Ok(t)) => Ok(t.command.clone()),
                Some(Err(e)) => Err(e.clone()),
                None => Err("no interpreter".to_string()),
            }
        };
        let command = match version {
            Version::Interp | Version::Jit => self
                .exec_command()?
                .args(["run", "--backend", version.key(), "--rider-path"])
                .arg(self.riders_dir())
                .arg(benchmark.file("dfs"))
                .arg("--")
                .arg(&size)
                .wrapped(&self.wrapper),
            Version::Aot | Version::C | Version::PeerC | Version::RustStd => {
                CommandLine::new(self.executable(benchmark, version))
                    .arg(&size)
                    .wrapped(&self.wrapper)
            }
            Version::LuaJit | Version::LuaJitOff | Version::Lua54 => {
                let mut command = CommandLine::new(interpreter(version)?);
                if version == Version::LuaJitOff {
                    command = command.arg("-joff");
                }
                command = command.arg(benchmark.file("lua")).arg(&size);
                if benchmark.is_native_call() {
                    command = command.arg(self.riders_dir().join("libdlr_bench.so"));
                }
                command
            }
            Version::Python => CommandLine::new(interpreter(version)?)
                .arg(benchmark.file("py"))
                .arg(&size),
        };
        Ok(command)
    }

    /// Builds what `version` of `benchmark` needs before it runs (aot, c, C and Rust std
    /// build an executable); the build's sample, if there was a build.
    pub fn prepare(
        &self,
        benchmark: &Benchmark,
        version: Version,
    ) -> Result<Option<Sample>, String> {
        let out = self.executable(benchmark, version);
        match version {
            Version::Aot | Version::C => self
                .build_datalove(&benchmark.file("dfs"), version.key(), &out)
                .map(Some),
            Version::PeerC => self
                .build_c(&benchmark.file("c"), &out, benchmark.is_native_call())
                .map(Some),
            Version::RustStd => self.build_rust(&benchmark.file("rs"), &out).map(Some),
            _ => Ok(None),
        }
    }
}

/// The interpreter itself rather than a launcher in front of it (a pyenv shim is a
/// shell script that costs hundreds of milliseconds per start).
fn resolve_python(tool: Tool) -> Tool {
    let real = Command::new(&tool.command)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|p| Path::new(p).is_file());
    match real {
        Some(command) => Tool { command, ..tool },
        None => tool,
    }
}

/// Runs a build command; its sample when it exits 0, else its failure.
fn build_step(command: &CommandLine) -> Result<Sample, String> {
    let sample = measure::run(command, None, BUILD_TIMEOUT)?;
    match sample.failure() {
        None => Ok(sample),
        Some(why) => Err(format!(
            "`{}` failed: {why}\n{}",
            command.shown(),
            sample.stderr.trim_end()
        )),
    }
}

/// Builds this harness for aarch64 with cargo (release, linked by `cc`), when Rust has
/// aarch64's standard library; its path, or why not.
fn cross_build_harness(cc: &str, out_dir: &Path) -> Result<PathBuf, String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let libdir = Command::new(&rustc)
        .args(["--print", "target-libdir", "--target", AARCH64])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let has_std = libdir.as_ref().is_some_and(|dir| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
        })
    });
    if !has_std {
        return Err(format!(
            "Rust's standard library for {AARCH64} is not installed, so datalove cannot be built for it (rustup target add {AARCH64})"
        ));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let target_dir = out_dir.join("cross-target");
    let output = Command::new(cargo)
        .current_dir(programs::repo_root())
        .args([
            "build",
            "--release",
            "-p",
            "datalove-benches",
            "--target",
            AARCH64,
            "--target-dir",
        ])
        .arg(&target_dir)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", cc)
        .env("CC_aarch64_unknown_linux_gnu", cc)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cross-building the harness for {AARCH64} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(target_dir.join(AARCH64).join("release/datalove-benches"))
}
