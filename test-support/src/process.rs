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
