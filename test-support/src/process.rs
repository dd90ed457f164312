//! A program run with its output captured and a time limit, as the conformance runner
//! and difftest run the CLI.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a run did.
#[derive(Debug)]
pub struct Captured {
    /// How it ended (after the kill, when it timed out).
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// It ran longer than the limit and was killed.
    pub timed_out: bool,
}

/// Runs `command` (stdin empty), killing it after `timeout`.
pub fn run_with_timeout(command: Command, timeout: Duration) -> std::io::Result<Captured> {
    run_with_input(command, None, timeout)
}

/// Runs `command` with `input` as its stdin (none: empty), killing it after `timeout`.
/// A program that stops reading early is no error.
pub fn run_with_input(
    mut command: Command,
    input: Option<&[u8]>,
    timeout: Duration,
) -> std::io::Result<Captured> {
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so that a timeout kills what it started too (an
    // executable, an emulator), which would otherwise keep the pipes read below open.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn()?;
    let writer = match (child.stdin.take(), input) {
        (Some(mut pipe), Some(input)) => {
            let input = input.to_vec();
            Some(std::thread::spawn(move || {
                use std::io::Write;
                // Dropping the pipe afterwards is the end of input.
                let _ = pipe.write_all(&input);
            }))
        }
        _ => None,
    };
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > timeout {
            timed_out = true;
            // SAFETY: a plain system call; the group is the child's own (above).
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Ok(Captured {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_ends_what_the_command_started_too() {
        // The shell starts a long `sleep` that inherits its stdout, prints its pid and
        // waits: killing the shell alone would leave the pipe open for 300 s.
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 300 & echo $!; wait"]);
        let start = Instant::now();
        let captured = run_with_timeout(command, Duration::from_secs(1)).unwrap();
        assert!(captured.timed_out);
        // Not a speed limit: without the group's kill it returns when the sleep ends.
        assert!(
            start.elapsed() < Duration::from_secs(150),
            "it returned only when the sleep ended"
        );
        let pid: u32 = String::from_utf8_lossy(&captured.stdout)
            .trim()
            .parse()
            .unwrap();
        let mut alive = true;
        for _ in 0..100 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            alive = !stat.is_empty()
                && !stat
                    .rsplit(')')
                    .next()
                    .unwrap()
                    .trim_start()
                    .starts_with('Z');
            if !alive {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!alive, "sleep {pid} outlived the timeout");
    }
}
