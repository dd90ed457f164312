//! A trial server: the `datalove` command line started once and forked for every run a
//! test harness asks of it (`datalove serve-trials`, hidden from `--help`).
//!
//! Under an emulator every process start is paid in full: `qemu-aarch64` translates the
//! CLI's code afresh in each process, so a one-line program took 0.6 s to run on the
//! interpreter there against 10 ms natively, and the conformance suite's 2,200 trials
//! most of CI's time. The server starts once, runs a program on each backend in-process
//! to warm the paths every run takes (the emulator's translations are then in its
//! memory), and for each request forks: the child, a copy of the warm process, takes the
//! request's directory, environment, stdin, stdout and stderr and goes on as the CLI
//! started with the request's arguments. It is a separate process as a fresh start is,
//! so a crash, `exit`, a signal, a timeout or a leak report ends it alone and is seen
//! as the same status; only the start's cost is gone.
//!
//! The protocol, on the server's stdin and stdout: a request is one frame (a `u32` count
//! of fields, then each field as a `u32` length and its bytes, little-endian), each
//! field a tag byte and a value: `d` the directory, `i` the stdin file (none: empty),
//! `o` and `e` the files stdout and stderr go to, `t` the time limit in milliseconds,
//! `s` `NAME=VALUE` set in the environment, `r` a name removed from it, `a` the next
//! argument (after the program's name). The reply is one frame: `exit CODE`, `signal
//! N`, `timeout` or `error WHY` (the run could not be started). End of input ends the
//! server. [`TrialServer`] is the harness's side; `docs/testing.md` says when the suites
//! use it.
//!
//! A server whose runs build for another target (`run --target`, the host's CLI serving
//! an emulated suite's aot and c trials) is started with [`WARM_TARGET_ENV`] naming it:
//! the warm-up then also builds and runs for that target, so that the forked runs find
//! its C compiler probed and its code generator set up.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Names a target (a triple) the server's warm-up builds and runs aot and c for too.
pub const WARM_TARGET_ENV: &str = "DATALOVE_TRIALS_TARGET";

/// One run asked of the server.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The working directory.
    pub dir: PathBuf,
    /// The arguments after the program's name (`run`, the file, `--backend`, ...).
    pub args: Vec<OsString>,
    /// Set in the run's environment, after `env_remove`.
    pub env: Vec<(OsString, OsString)>,
    /// Taken out of the run's environment.
    pub env_remove: Vec<OsString>,
    /// The file read as stdin; `None`: empty input.
    pub stdin: Option<PathBuf>,
    /// The files stdout and stderr are written to (created or truncated).
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    /// The run is killed (with everything it started) after this long.
    pub timeout: Duration,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    Exited(i32),
    Signaled(i32),
    /// It ran past its time limit and was killed.
    TimedOut,
}

impl Request {
    fn encode(&self) -> Vec<Vec<u8>> {
        let mut fields = Vec::new();
        let mut field = |tag: u8, value: &[u8]| {
            let mut f = vec![tag];
            f.extend_from_slice(value);
            fields.push(f);
        };
        field(b'd', self.dir.as_os_str().as_bytes());
        if let Some(stdin) = &self.stdin {
            field(b'i', stdin.as_os_str().as_bytes());
        }
        field(b'o', self.stdout.as_os_str().as_bytes());
        field(b'e', self.stderr.as_os_str().as_bytes());
        field(b't', self.timeout.as_millis().to_string().as_bytes());
        for name in &self.env_remove {
            field(b'r', name.as_bytes());
        }
        for (name, value) in &self.env {
            let mut setting = name.as_bytes().to_vec();
            setting.push(b'=');
            setting.extend_from_slice(value.as_bytes());
            field(b's', &setting);
        }
        for arg in &self.args {
            field(b'a', arg.as_bytes());
        }
        fields
    }

    fn decode(fields: Vec<Vec<u8>>) -> Result<Request, String> {
        let mut request = Request::default();
        for field in fields {
            let Some((&tag, value)) = field.split_first() else {
                return Err("an empty field".into());
            };
            let text = || OsString::from_vec(value.to_vec());
            match tag {
                b'd' => request.dir = text().into(),
                b'i' => request.stdin = Some(text().into()),
                b'o' => request.stdout = text().into(),
                b'e' => request.stderr = text().into(),
                b't' => {
                    let ms = std::str::from_utf8(value)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .ok_or("a time limit is milliseconds")?;
                    request.timeout = Duration::from_millis(ms);
                }
                b'r' => request.env_remove.push(text()),
                b's' => {
                    let at = value
                        .iter()
                        .position(|&b| b == b'=')
                        .ok_or("a setting is NAME=VALUE")?;
                    request.env.push((
                        OsString::from_vec(value[..at].to_vec()),
                        OsString::from_vec(value[at + 1..].to_vec()),
                    ));
                }
                b'a' => request.args.push(text()),
                other => return Err(format!("no field tagged {:?}", other as char)),
            }
        }
        if request.dir.as_os_str().is_empty() || request.stdout.as_os_str().is_empty() {
            return Err("a request names its directory and output files".into());
        }
        Ok(request)
    }
}

fn write_frame(w: &mut impl Write, fields: &[Vec<u8>]) -> io::Result<()> {
    let mut frame = Vec::new();
    frame.extend_from_slice(&(fields.len() as u32).to_le_bytes());
    for f in fields {
        frame.extend_from_slice(&(f.len() as u32).to_le_bytes());
        frame.extend_from_slice(f);
    }
    w.write_all(&frame)?;
    w.flush()
}

/// The next frame; `None` at the end of input before one starts.
fn read_frame(r: &mut impl Read) -> io::Result<Option<Vec<Vec<u8>>>> {
    let mut word = [0u8; 4];
    match r.read_exact(&mut word) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let count = u32::from_le_bytes(word);
    let mut fields = Vec::new();
    for _ in 0..count {
        r.read_exact(&mut word)?;
        let mut f = vec![0u8; u32::from_le_bytes(word) as usize];
        r.read_exact(&mut f)?;
        fields.push(f);
    }
    Ok(Some(fields))
}

// ---------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------

/// What [`serve`] returned to.
pub enum Served {
    /// A forked child: go on as the CLI started with these arguments (the program's
    /// name first), in the request's directory with its files as stdin, stdout, stderr.
    Child(Vec<OsString>),
    /// The server's input ended: exit with this code.
    Done(i32),
}

/// Serves requests on stdin until it ends; returns in each forked child (see the
/// module's documentation).
pub fn serve() -> Served {
    // The protocol keeps the original stdin and stdout; the server's own 0 and 1 become
    // /dev/null, so that nothing written by the warm-up, or inherited unflushed by a
    // child, can reach the harness as a reply.
    // (Close-on-exec: nothing a run starts holds them; the child drops them as it returns.)
    let (proto_in, proto_out) = unsafe {
        (
            libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3),
            libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3),
        )
    };
    if proto_in < 0 || proto_out < 0 || !redirect(0, Path::new("/dev/null"), false) {
        eprintln!(
            "serve-trials: cannot set up: {}",
            io::Error::last_os_error()
        );
        return Served::Done(1);
    }
    if !redirect(1, Path::new("/dev/null"), true) {
        eprintln!(
            "serve-trials: cannot set up: {}",
            io::Error::last_os_error()
        );
        return Served::Done(1);
    }
    // SAFETY: the descriptors were just duplicated and are owned here alone.
    let (mut input, mut output) = unsafe {
        use std::os::fd::FromRawFd;
        (
            std::fs::File::from_raw_fd(proto_in),
            std::fs::File::from_raw_fd(proto_out),
        )
    };
    if std::env::var_os("DATALOVE_TRIALS_WARM").is_none_or(|v| v != "0") {
        warm_up();
    }
    loop {
        let fields = match read_frame(&mut input) {
            Ok(Some(fields)) => fields,
            Ok(None) => return Served::Done(0),
            Err(e) => {
                eprintln!("serve-trials: reading a request: {e}");
                return Served::Done(1);
            }
        };
        let reply = match Request::decode(fields) {
            Err(why) => format!("error {why}"),
            Ok(request) => match start(&request) {
                Started::Child(args) => return Served::Child(args),
                Started::Failed(why) => format!("error {why}"),
                Started::Parent(pid) => match wait(pid, request.timeout) {
                    Ended::Exited(code) => format!("exit {code}"),
                    Ended::Signaled(signal) => format!("signal {signal}"),
                    Ended::TimedOut => "timeout".to_string(),
                },
            },
        };
        if let Err(e) = write_frame(&mut output, &[reply.into_bytes()]) {
            eprintln!("serve-trials: replying: {e}");
            return Served::Done(1);
        }
    }
}

enum Started {
    Child(Vec<OsString>),
    Parent(libc::pid_t),
    Failed(String),
}

/// Opens `path` onto descriptor `fd` (for writing: created or truncated).
fn redirect(fd: libc::c_int, path: &Path, write: bool) -> bool {
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    let flags = if write {
        libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC
    } else {
        libc::O_RDONLY
    };
    // SAFETY: a valid C string; the descriptor is closed after it is duplicated.
    unsafe {
        let opened = libc::open(c_path.as_ptr(), flags | libc::O_CLOEXEC, 0o644);
        if opened < 0 {
            return false;
        }
        let done = libc::dup2(opened, fd) >= 0;
        libc::close(opened);
        done
    }
}

/// Forks for `request`; the child sets itself up and returns its arguments.
fn start(request: &Request) -> Started {
    // What a child inherits unflushed would be written twice.
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    // SAFETY: the server has one thread when it forks (the warm-up's runs joined theirs),
    // so the child may go on running Rust code.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Started::Failed(format!("fork: {}", io::Error::last_os_error()));
    }
    if pid > 0 {
        // Also set here, so that a kill for the timeout reaches the group however soon
        // it comes.
        unsafe { libc::setpgid(pid, pid) };
        return Started::Parent(pid);
    }
    // The child. A failure here is reported as the run's own: on stderr, exit 126.
    let fail = |what: &str, path: &Path| -> ! {
        let _ = writeln!(
            io::stderr(),
            "serve-trials: {what} {}: {}",
            path.display(),
            io::Error::last_os_error()
        );
        unsafe { libc::_exit(126) }
    };
    unsafe { libc::setpgid(0, 0) };
    if std::env::set_current_dir(&request.dir).is_err() {
        fail("cannot enter", &request.dir);
    }
    let stdin = request
        .stdin
        .clone()
        .unwrap_or_else(|| PathBuf::from("/dev/null"));
    if !redirect(0, &stdin, false) {
        fail("cannot read", &stdin);
    }
    if !redirect(1, &request.stdout, true) {
        fail("cannot write", &request.stdout);
    }
    if !redirect(2, &request.stderr, true) {
        fail("cannot write", &request.stderr);
    }
    for name in &request.env_remove {
        // SAFETY: the child has one thread.
        unsafe { std::env::remove_var(name) };
    }
    for (name, value) in &request.env {
        // SAFETY: as above.
        unsafe { std::env::set_var(name, value) };
    }
    let mut args = vec![OsString::from("datalove")];
    args.extend(request.args.iter().cloned());
    Started::Child(args)
}

/// Waits for `pid`, killing its process group after `timeout`.
fn wait(pid: libc::pid_t, timeout: Duration) -> Ended {
    let start = Instant::now();
    let mut status = 0;
    let mut killed = false;
    loop {
        // SAFETY: waiting for our own child.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if got == pid {
            break;
        }
        if got < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Ended::Signaled(libc::SIGKILL);
        }
        if !killed && start.elapsed() > timeout {
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            killed = true;
        }
        // Short at first (most runs end in milliseconds), then coarser.
        let pause = if start.elapsed() < Duration::from_millis(50) {
            Duration::from_micros(200)
        } else {
            Duration::from_millis(5)
        };
        std::thread::sleep(pause);
    }
    // Whatever it started and left behind goes with it.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    if killed {
        Ended::TimedOut
    } else if libc::WIFSIGNALED(status) {
        Ended::Signaled(libc::WTERMSIG(status))
    } else {
        Ended::Exited(libc::WEXITSTATUS(status))
    }
}

/// Runs a program that touches most of what programs use, and one that does not
/// compile, on every backend that is available, in-process with output captured;
/// errors are of no interest (a run that fails is warm too).
fn warm_up() {
    let dir = std::env::temp_dir().join(format!("datalove-trials-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let good = dir.join("warm.dfs");
    let bad = dir.join("bad.dfs");
    let written = std::fs::write(&good, include_str!("trials_warm.dfs")).is_ok()
        && std::fs::write(&bad, "let x: i64 = \"one\"\ndebuglog y\n").is_ok();
    if written {
        let options = crate::Options::from_env();
        if let Err(crate::CompileError::Diagnostics(failed)) = crate::compile_file(&bad, &options) {
            let _ = failed.render_styled(false);
        }
        if let Ok(compiled) = crate::compile_file(&good, &options) {
            let run = crate::RunOptions {
                riders: options.rider_path(),
                check_leaks: true,
                capture: true,
                ..crate::RunOptions::default()
            };
            if crate::admit(&compiled).is_ok() {
                for backend in crate::Backend::ALL {
                    let _ = crate::run(&compiled, backend, &run);
                }
                let other = std::env::var(WARM_TARGET_ENV)
                    .ok()
                    .and_then(|t| crate::Target::from_triple(&t).ok());
                if let Some(target) = other {
                    let run = crate::RunOptions {
                        target: Some(target),
                        ..run
                    };
                    for backend in [crate::Backend::Aot, crate::Backend::C] {
                        let _ = crate::run(&compiled, backend, &run);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// The harness's side
// ---------------------------------------------------------------------------------------

/// A running `datalove serve-trials`.
pub struct TrialServer {
    child: Child,
    to: ChildStdin,
    from: ChildStdout,
}

impl TrialServer {
    /// Starts `command` (the CLI, through the target's runner) as `serve-trials`: its
    /// environment is the one every run starts from.
    pub fn start(mut command: Command) -> io::Result<TrialServer> {
        command
            .arg("serve-trials")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn()?;
        let to = child.stdin.take().expect("piped stdin");
        let from = child.stdout.take().expect("piped stdout");
        Ok(TrialServer { child, to, from })
    }

    /// Runs `request` and waits for its end.
    pub fn run(&mut self, request: &Request) -> io::Result<Ended> {
        write_frame(&mut self.to, &request.encode())?;
        let reply = read_frame(&mut self.from)?
            .ok_or_else(|| io::Error::other("the trial server ended"))?;
        let text = reply
            .first()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .unwrap_or_default();
        let (word, rest) = text.split_once(' ').unwrap_or((&text, ""));
        let number = || {
            rest.parse()
                .map_err(|_| io::Error::other(format!("a bad reply: {text}")))
        };
        match word {
            "exit" => Ok(Ended::Exited(number()?)),
            "signal" => Ok(Ended::Signaled(number()?)),
            "timeout" => Ok(Ended::TimedOut),
            "error" => Err(io::Error::other(format!("the trial server: {rest}"))),
            _ => Err(io::Error::other(format!("a bad reply: {text}"))),
        }
    }
}

impl Drop for TrialServer {
    fn drop(&mut self) {
        // Between requests the server only waits for the next one.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
