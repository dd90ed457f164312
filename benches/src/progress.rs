//! The progress bar of a long run: one redrawn line on a terminal (with the step, the
//! part done and an estimate of what is left), one line per stage otherwise (logs).

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: usize,
    done: usize,
    start: Instant,
    terminal: bool,
    /// The last stage printed (off a terminal, a line is printed when it changes).
    stage: String,
    quiet: bool,
}

impl Progress {
    /// A bar for `total` steps, drawn on stderr.
    pub fn new(total: usize) -> Progress {
        Progress {
            total: total.max(1),
            done: 0,
            start: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            stage: String::new(),
            quiet: false,
        }
    }

    /// A bar that draws nothing.
    pub fn quiet() -> Progress {
        Progress {
            quiet: true,
            ..Progress::new(1)
        }
    }

    /// Adds steps found along the way.
    pub fn add(&mut self, steps: usize) {
        self.total += steps;
    }

    /// Says what is running now (`stage`: e.g. `nbody`; `step`: e.g. `round 3 jit`).
    pub fn show(&mut self, stage: &str, step: &str) {
        if self.quiet {
            return;
        }
        if self.terminal {
            let width = 30;
            let filled = (self.done * width / self.total).min(width);
            let elapsed = self.start.elapsed().as_secs_f64();
            let left = if self.done > 0 {
                let rate = elapsed / self.done as f64;
                format!(
                    "~{} left",
                    duration_text(rate * (self.total - self.done.min(self.total)) as f64)
                )
            } else {
                String::new()
            };
            let line = format!(
                "[{}{}] {:>3}% {} {stage}: {step} {left}",
                "=".repeat(filled),
                " ".repeat(width - filled),
                self.done * 100 / self.total,
                duration_text(elapsed),
            );
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{line}");
            let _ = err.flush();
        } else if stage != self.stage {
            eprintln!(
                "[{:>3}% {}] {stage}",
                self.done * 100 / self.total,
                duration_text(self.start.elapsed().as_secs_f64())
            );
        }
        self.stage = stage.to_string();
    }

    /// One step finished.
    pub fn step(&mut self) {
        self.done += 1;
    }

    /// Clears the bar.
    pub fn finish(&mut self) {
        if self.terminal && !self.quiet {
            eprint!("\r\x1b[2K");
        }
    }
}

/// `4m05s`, `12s`, `0.4s`.
pub fn duration_text(seconds: f64) -> String {
    if seconds >= 60.0 {
        let s = seconds.round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    } else if seconds >= 10.0 {
        format!("{seconds:.0}s")
    } else {
        format!("{seconds:.1}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_read_well() {
        assert_eq!(super::duration_text(245.0), "4m05s");
        assert_eq!(super::duration_text(12.3), "12s");
        assert_eq!(super::duration_text(0.42), "0.4s");
    }
}
