//! Running one command and measuring it: wall time from spawn to exit, the CPU time it
//! used (user + system, its children included), time to the first byte of output, what
//! it printed, and the phases a datalove run reports.
//!
//! CPU time comes from `getrusage(RUSAGE_CHILDREN)` before and after the child is
//! reaped, so the harness runs one command at a time.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The line `datalove-benches exec` ends its stderr with (removed from what is shown).
pub const PHASES_PREFIX: &str = "datalove-benches phases:";

/// A command to run: a program, its arguments, extra environment.
#[derive(Clone, Debug, Default)]
pub struct CommandLine {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

impl CommandLine {
    pub fn new(program: impl Into<OsString>) -> CommandLine {
        CommandLine {
            program: program.into(),
            ..CommandLine::default()
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> CommandLine {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> CommandLine {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> CommandLine {
        self.env.push((key.into(), value.into()));
        self
    }

    /// `wrapper... program args...`: the same command run through an emulator.
    pub fn wrapped(self, wrapper: &[OsString]) -> CommandLine {
        match wrapper.split_first() {
            None => self,
            Some((first, rest)) => {
                let mut args: Vec<OsString> = rest.to_vec();
                args.push(self.program);
                args.extend(self.args);
                CommandLine {
                    program: first.clone(),
                    args,
                    env: self.env,
                }
            }
        }
    }

    /// The command as one line, for messages.
    pub fn shown(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn command(&self, dir: Option<&Path>) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        for (k, v) in &self.env {
            command.env(k, v);
        }
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        command
    }
}

/// The phases a datalove run reports (in milliseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// Reading, checking and lowering the text to IR.
    pub front_ms: f64,
    /// The backend's compilation: interpreter lowering, JIT code generation, or
    /// building the executable.
    pub compile_ms: Option<f64>,
}

impl Phases {
    /// The line `exec` prints.
    pub fn line(&self) -> String {
        match self.compile_ms {
            Some(c) => format!(
                "{PHASES_PREFIX} front_ms={:.3} compile_ms={c:.3}",
                self.front_ms
            ),
            None => format!("{PHASES_PREFIX} front_ms={:.3}", self.front_ms),
        }
    }

    pub fn parse(line: &str) -> Option<Phases> {
        let rest = line.strip_prefix(PHASES_PREFIX)?;
        let mut phases = Phases::default();
        for field in rest.split_whitespace() {
            let (key, value) = field.split_once('=')?;
            let value: f64 = value.parse().ok()?;
            match key {
                "front_ms" => phases.front_ms = value,
                "compile_ms" => phases.compile_ms = Some(value),
                _ => {}
            }
        }
        Some(phases)
    }

    /// Everything before the program ran.
    pub fn before_run_ms(&self) -> f64 {
        self.front_ms + self.compile_ms.unwrap_or(0.0)
    }
}

/// One run of a command.
#[derive(Clone, Debug)]
pub struct Sample {
    pub wall: Duration,
    /// User + system CPU time of the process (and of any children it waited for).
    pub cpu: Duration,
    /// From spawn to the first byte on stdout.
    pub first_output: Option<Duration>,
    pub stdout: Vec<u8>,
    /// stderr, without the phases line.
    pub stderr: String,
    /// The exit code; `None` when killed (by a signal, or for taking too long).
    pub code: Option<i32>,
    pub phases: Option<Phases>,
    pub timed_out: bool,
}

impl Sample {
    pub fn wall_ms(&self) -> f64 {
        self.wall.as_secs_f64() * 1000.0
    }

    pub fn cpu_ms(&self) -> f64 {
        self.cpu.as_secs_f64() * 1000.0
    }

    /// Whether it exited 0.
    pub fn succeeded(&self) -> bool {
        self.code == Some(0)
    }

    /// What went wrong, in one line, when it did not exit 0.
    pub fn failure(&self) -> Option<String> {
        if self.succeeded() {
            return None;
        }
        let why = if self.timed_out {
            "took too long (killed)".to_string()
        } else {
            match self.code {
                Some(code) => format!("exit {code}"),
                None => "killed by a signal".to_string(),
            }
        };
        // The first line that says something (not a valgrind banner line).
        let first = self
            .stderr
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with("=="))
            .unwrap_or("");
        Some(if first.is_empty() {
            why
        } else {
            format!("{why}: {first}")
        })
    }
}

/// The CPU time (user + system) of every child this process has reaped so far.
fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes a whole `rusage` when it returns 0.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) != 0 {
            return Duration::ZERO;
        }
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// Runs `command` (in `dir`, if given), killing it after `timeout`.
pub fn run(command: &CommandLine, dir: Option<&Path>, timeout: Duration) -> Result<Sample, String> {
    let mut child_command = command.command(dir);
    child_command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let cpu_before = children_cpu();
    let start = Instant::now();
    let mut child = child_command
        .spawn()
        .map_err(|e| format!("cannot run `{}`: {e}", command.shown()))?;
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let (first_tx, first_rx) = mpsc::channel();
    let out_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            match out.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if bytes.is_empty() {
                        let _ = first_tx.send(start.elapsed());
                    }
                    bytes.extend_from_slice(&buffer[..n]);
                }
            }
        }
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        bytes
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => return Err(format!("waiting for `{}`: {e}", command.shown())),
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            break child
                .wait()
                .map_err(|e| format!("waiting for `{}`: {e}", command.shown()))?;
        }
        // Short sleeps early (short runs), longer ones later (long runs).
        let waited = start.elapsed();
        std::thread::sleep(if waited < Duration::from_millis(50) {
            Duration::from_micros(100)
        } else {
            Duration::from_millis(2)
        });
    };
    let wall = start.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    let stdout = out_reader.join().unwrap_or_default();
    let stderr_bytes = err_reader.join().unwrap_or_default();
    let first_output = first_rx.try_recv().ok();
    let mut phases = None;
    let mut stderr = String::new();
    for line in String::from_utf8_lossy(&stderr_bytes).lines() {
        match Phases::parse(line) {
            Some(p) => phases = Some(p),
            None => {
                stderr.push_str(line);
                stderr.push('\n');
            }
        }
    }
    Ok(Sample {
        wall,
        cpu,
        first_output,
        stdout,
        stderr,
        code: if timed_out { None } else { status.code() },
        phases,
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip() {
        let p = Phases {
            front_ms: 1.5,
            compile_ms: Some(2.25),
        };
        assert_eq!(Phases::parse(&p.line()), Some(p));
        let q = Phases {
            front_ms: 3.0,
            compile_ms: None,
        };
        assert_eq!(Phases::parse(&q.line()), Some(q));
        assert_eq!(Phases::parse("error: overflow"), None);
    }

    #[test]
    fn a_wrapped_command_runs_the_program_through_the_wrapper() {
        let c =
            CommandLine::new("prog")
                .arg("5")
                .wrapped(&["qemu".into(), "-L".into(), "/x".into()]);
        assert_eq!(c.shown(), "qemu -L /x prog 5");
    }

    #[test]
    fn a_run_reports_output_exit_and_first_output() {
        let s = run(
            &CommandLine::new("sh").args(["-c", "echo hi; echo oops >&2; exit 3"]),
            None,
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(s.stdout, b"hi\n");
        assert_eq!(s.code, Some(3));
        assert!(s.first_output.is_some_and(|f| f <= s.wall));
        assert!(s.cpu <= s.wall * 2, "{:?} of CPU in {:?}", s.cpu, s.wall);
        assert_eq!(s.failure().as_deref(), Some("exit 3: oops"));
    }

    #[test]
    fn a_run_past_its_timeout_is_killed() {
        let s = run(
            &CommandLine::new("sleep").arg("5"),
            None,
            Duration::from_millis(100),
        )
        .unwrap();
        assert!(s.timed_out);
        assert!(s.failure().unwrap().contains("took too long"));
    }
}
