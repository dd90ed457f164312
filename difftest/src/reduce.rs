//! The reducer: shrinks a program while its finding remains.
//!
//! It works on the text, by lines and blocks, so it reduces any program (a generated
//! one, a fuzzer's, a conformance case) without knowing how it was made: first whole
//! chunks of top-level items (functions, statements of the script body) are taken out,
//! halving the chunk size as in delta debugging; then every block and line, largest
//! first, at every depth; then blocks are replaced by their first arm's body. A
//! candidate counts only if it still compiles (checked in process, in milliseconds)
//! and the backends that showed the finding still show it the same way
//! ([`Finding::signature`] over one backend per group of outcomes), so the reduction
//! cannot wander off to another bug.

use std::collections::HashSet;

use crate::program::TestProgram;
use crate::run::{check, Check, Finding, Runner};

/// What a reduction did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub candidates: usize,
    pub accepted: usize,
    pub lines_before: usize,
    pub lines_after: usize,
}

/// Shrinks `program`, whose check gave `finding`, while the finding remains.
pub fn reduce(
    runner: &dyn Runner,
    program: &TestProgram,
    finding: &Finding,
) -> (TestProgram, Stats) {
    let backends = finding.representatives();
    let signature = restricted(finding, &backends).signature();
    let mut seen = HashSet::new();
    let mut stats = Stats {
        lines_before: program.lines(),
        ..Stats::default()
    };
    let mut candidates = 0;
    let mut accepted = 0;
    let mut interesting = |candidate: &TestProgram| -> bool {
        if !seen.insert(candidate.clone()) {
            return false;
        }
        candidates += 1;
        let found = match finding {
            Finding::Refused { .. } => match candidate.compile() {
                Err(f) => Finding::Refused {
                    diagnostics: f.render(),
                },
                Ok(_) => return false,
            },
            _ => match check(runner, candidate, Some(&backends)) {
                Check::Found(f) => f,
                Check::Agree(_) => return false,
            },
        };
        let same = found.signature() == signature;
        accepted += same as usize;
        same
    };
    let mut current = program.clone();
    loop {
        let before = current.clone();
        current = chunks(current, &mut interesting);
        current = units(current, &mut interesting);
        if current == before {
            break;
        }
    }
    current = tidy(current);
    stats.candidates = candidates;
    stats.accepted = accepted;
    stats.lines_after = current.lines();
    (current, stats)
}

/// Runs of blank lines (left where lines were taken out) made one.
fn tidy(mut program: TestProgram) -> TestProgram {
    let collapse = |text: &str| {
        let mut out = String::new();
        let mut blank = true;
        for line in text.lines() {
            let is_blank = line.trim().is_empty();
            if !(is_blank && blank) {
                out.push_str(line);
                out.push('\n');
            }
            blank = is_blank;
        }
        out.trim_end().to_string() + "\n"
    };
    program.script = collapse(&program.script);
    for (_, text) in &mut program.files {
        *text = collapse(text);
    }
    program
}

/// `finding` as seen by `backends` only.
fn restricted(finding: &Finding, backends: &[&'static str]) -> Finding {
    match finding {
        Finding::Divergence { outcomes } | Finding::Broken { outcomes } => {
            let outcomes: Vec<_> = outcomes
                .iter()
                .filter(|(b, _)| backends.contains(b))
                .cloned()
                .collect();
            if outcomes.windows(2).all(|w| w[0].1 == w[1].1) {
                Finding::Broken { outcomes }
            } else {
                Finding::Divergence { outcomes }
            }
        }
        other => other.clone(),
    }
}

/// A deletable piece of a file: lines `start..end`, or a block whose header, arms and
/// `end` line can be taken off to leave its first arm's body (`unwrap`).
#[derive(Clone, Debug)]
struct Unit {
    /// Which file: 0 is the script, `n` is `files[n - 1]`.
    file: usize,
    start: usize,
    end: usize,
    /// For a block: the lines of its first arm's body.
    body: Option<(usize, usize)>,
    top_level: bool,
}

fn file_text(program: &TestProgram, file: usize) -> &str {
    if file == 0 {
        &program.script
    } else {
        &program.files[file - 1].1
    }
}

fn with_file(program: &TestProgram, file: usize, lines: &[&str]) -> TestProgram {
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    let mut out = program.clone();
    if file == 0 {
        out.script = text;
    } else {
        out.files[file - 1].1 = text;
    }
    out
}

/// The word a line opens a block with (`fun`, `if`, `loop`), or closes one (`end`), or
/// continues an `if` with (`else`).
fn opener(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    let word = t.split_whitespace().next().unwrap_or("");
    match word {
        "fun" => Some("fun"),
        "if" => Some("if"),
        "loop" => Some("loop"),
        "else" => Some("else"),
        "end" => Some("end"),
        _ => None,
    }
}

/// Lines a generated loop needs to end: its counter's step and its `break` test.
fn protected(line: &str) -> bool {
    let t = line.trim();
    let counter =
        |name: &str| name.starts_with('i') && name[1..].chars().all(|c| c.is_ascii_digit());
    if let Some(rest) = t.strip_prefix("set ") {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        return parts.len() == 5
            && counter(parts[0])
            && parts[1] == "="
            && parts[2] == parts[0]
            && parts[3] == "+"
            && parts[4] == "1";
    }
    if let Some(rest) = t.strip_prefix("if ") {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        return parts.len() == 3 && counter(parts[0]) && parts[1] == ">";
    }
    false
}

/// For each line, whether it is a loop's counter step or `break` test: the line after a
/// `loop` header that steps a counter, and the `if` after that step.
fn protected_lines(lines: &[&str]) -> Vec<bool> {
    let mut out = vec![false; lines.len()];
    let mut previous: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if protected(line) {
            if let Some(p) = previous {
                let after_loop = lines[p].trim_start().starts_with("loop");
                out[i] = after_loop || (out[p] && line.trim_start().starts_with("if "));
            }
        }
        previous = Some(i);
    }
    out
}

/// Every unit of every file, largest first.
fn all_units(program: &TestProgram) -> Vec<Unit> {
    let mut out = Vec::new();
    for file in 0..=program.files.len() {
        let lines: Vec<&str> = file_text(program, file).lines().collect();
        let guarded = protected_lines(&lines);
        // A stack of open blocks: (start line, arm starts).
        let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match opener(line) {
                Some("fun" | "if" | "loop") => stack.push((i, vec![i])),
                Some("else") => {
                    if let Some((_, arms)) = stack.last_mut() {
                        arms.push(i);
                    }
                    // An arm: from its `else` line to the next arm or the `end`.
                }
                Some("end") => {
                    if let Some((start, arms)) = stack.pop() {
                        let top_level = stack.is_empty();
                        let first_body_end = arms.get(1).copied().unwrap_or(i);
                        out.push(Unit {
                            file,
                            start,
                            end: i + 1,
                            body: Some((start + 1, first_body_end)),
                            top_level,
                        });
                        for (k, &arm) in arms.iter().enumerate().skip(1) {
                            let arm_end = arms.get(k + 1).copied().unwrap_or(i);
                            out.push(Unit {
                                file,
                                start: arm,
                                end: arm_end,
                                body: None,
                                top_level: false,
                            });
                        }
                    }
                }
                _ => {
                    if !guarded[i] {
                        out.push(Unit {
                            file,
                            start: i,
                            end: i + 1,
                            body: None,
                            top_level: stack.is_empty(),
                        });
                    }
                }
            }
        }
    }
    out.retain(|u| {
        let lines: Vec<&str> = file_text(program, u.file).lines().collect();
        !protected_lines(&lines)[u.start]
    });
    out.sort_by_key(|u| std::cmp::Reverse(u.end - u.start));
    out
}

/// `program` without `unit` (or, when `unwrap`, with the unit replaced by its first
/// arm's body).
fn without(program: &TestProgram, unit: &Unit, unwrap: bool) -> TestProgram {
    let lines: Vec<&str> = file_text(program, unit.file).lines().collect();
    let mut kept: Vec<&str> = lines[..unit.start].to_vec();
    if unwrap {
        if let Some((a, b)) = unit.body {
            kept.extend(
                lines[a..b]
                    .iter()
                    .map(|l| l.strip_prefix("  ").unwrap_or(l)),
            );
        }
    }
    kept.extend_from_slice(&lines[unit.end..]);
    with_file(program, unit.file, &kept)
}

/// Delta debugging over the script's top-level units: drop chunks, halving their size.
fn chunks(
    mut current: TestProgram,
    interesting: &mut dyn FnMut(&TestProgram) -> bool,
) -> TestProgram {
    let top = |p: &TestProgram| -> Vec<Unit> {
        let mut units: Vec<Unit> = all_units(p)
            .into_iter()
            .filter(|u| u.top_level && u.file == 0)
            .collect();
        units.sort_by_key(|u| u.start);
        units
    };
    let mut size = top(&current).len() / 2;
    while size >= 1 {
        let mut i = 0;
        loop {
            let units = top(&current);
            if i >= units.len() {
                break;
            }
            let chunk = &units[i..(i + size).min(units.len())];
            // Remove the chunk's units from the last to the first, so line numbers hold.
            let mut candidate = current.clone();
            for u in chunk.iter().rev() {
                candidate = without(&candidate, u, false);
            }
            if interesting(&candidate) {
                current = candidate;
            } else {
                i += size;
            }
        }
        size /= 2;
    }
    current
}

/// Whole files the program no longer needs; every unit at every depth, largest first;
/// then blocks unwrapped.
fn units(
    mut current: TestProgram,
    interesting: &mut dyn FnMut(&TestProgram) -> bool,
) -> TestProgram {
    let mut f = 0;
    while f < current.files.len() {
        let mut candidate = current.clone();
        candidate.files.remove(f);
        if interesting(&candidate) {
            current = candidate;
        } else {
            f += 1;
        }
    }
    for unwrap in [false, true] {
        let mut i = 0;
        loop {
            let units: Vec<Unit> = all_units(&current)
                .into_iter()
                .filter(|u| !unwrap || u.body.is_some())
                .collect();
            if i >= units.len() {
                break;
            }
            let candidate = without(&current, &units[i], unwrap);
            if interesting(&candidate) {
                current = candidate;
            } else {
                i += 1;
            }
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(script: &str) -> TestProgram {
        TestProgram {
            script: script.into(),
            files: Vec::new(),
        }
    }

    #[test]
    fn units_are_lines_blocks_and_arms() {
        let p = program("let a = 1\nif a == 1\n  debuglog 1\nelse\n  debuglog 2\nend if\n");
        let units = all_units(&p);
        let spans: Vec<(usize, usize)> = units.iter().map(|u| (u.start, u.end)).collect();
        assert!(spans.contains(&(1, 6)), "{spans:?}");
        assert!(spans.contains(&(3, 5)), "{spans:?}");
        assert!(spans.contains(&(0, 1)), "{spans:?}");
        let block = units.iter().find(|u| u.start == 1).unwrap();
        assert_eq!(without(&p, block, true).script, "let a = 1\ndebuglog 1\n");
    }

    #[test]
    fn loop_counters_stay() {
        let p = program("var i0: u8 = 0\nloop\n  set i0 = i0 + 1\n  if i0 > 3\n    break\n  end if\n  debuglog i0\nend loop\n");
        for u in all_units(&p) {
            assert!(u.start != 2 && u.start != 3, "{u:?}");
        }
        // Outside a loop (its header reduced away) they are ordinary lines.
        let p = program("var i0: u8 = 0\nset i0 = i0 + 1\ndebuglog i0\n");
        assert!(all_units(&p).iter().any(|u| u.start == 1));
    }

    /// A divergence stays the same divergence while the program shrinks: here a fake
    /// "jit" that prints one line wrongly, inside a generated program.
    #[test]
    fn reduces_a_divergence_to_what_shows_it() {
        use crate::run::Outcome;
        struct OneWrongLine;
        impl Runner for OneWrongLine {
            fn backends(&self) -> Vec<&'static str> {
                vec!["interp", "jit", "c"]
            }
            fn run(&self, program: &TestProgram, backend: &str) -> Outcome {
                // Not a real run: each `debuglog` line's text is its output, and the "jit"
                // gets the line holding `-2.5` wrong.
                let mut stdout = Vec::new();
                for line in program.script.lines() {
                    if let Some(rest) = line.trim().strip_prefix("debuglog ") {
                        let wrong = backend == "jit" && rest.contains("-2.5");
                        stdout.extend_from_slice(if wrong { b"?" } else { rest.as_bytes() });
                        stdout.push(b'\n');
                    }
                }
                Outcome {
                    code: Some(0),
                    stdout,
                    stderr_lines: Vec::new(),
                }
            }
        }
        let seed = (0..)
            .find(|&s| {
                let p = crate::driver::program_of(s, &crate::gen::Config::default());
                p.script
                    .lines()
                    .any(|l| l.trim().starts_with("debuglog ") && l.contains("-2.5"))
            })
            .expect("some program prints a -2.5");
        let program = crate::driver::program_of(seed, &crate::gen::Config::default());
        let Check::Found(finding) = check(&OneWrongLine, &program, None) else {
            panic!("the fake jit diverges");
        };
        assert_eq!(finding.representatives(), vec!["interp", "jit"]);
        let (reduced, stats) = reduce(&OneWrongLine, &program, &finding);
        let debuglogs: Vec<&str> = reduced
            .script
            .lines()
            .filter(|l| l.trim().starts_with("debuglog "))
            .collect();
        assert_eq!(debuglogs.len(), 1, "{}", reduced.script);
        assert!(debuglogs[0].contains("-2.5"));
        assert!(stats.lines_after < stats.lines_before / 4, "{stats:?}");
        assert!(reduced.compile().is_ok());
    }

    /// A finding only the front end sees (a compile error) needs no backend: the
    /// reducer keeps exactly what still triggers the same diagnostic.
    #[test]
    fn reduces_a_compile_error_to_its_line() {
        struct NoBackends;
        impl Runner for NoBackends {
            fn backends(&self) -> Vec<&'static str> {
                Vec::new()
            }
            fn run(&self, _: &TestProgram, _: &str) -> crate::run::Outcome {
                unreachable!("a compile error needs no run")
            }
        }
        let p = program(
            "fun f(a: u8): u8\n  ret a + 1\nend fun\ndebuglog f(1)\nlet s = \"x\"\ndebuglog s * 2\ndebuglog 3\n",
        );
        let finding = match check(&NoBackends, &p, None) {
            Check::Found(f) => f,
            Check::Agree(_) => panic!("the program does not compile"),
        };
        let (reduced, stats) = reduce(&NoBackends, &p, &finding);
        assert_eq!(reduced.script, "let s = \"x\"\ndebuglog s * 2\n");
        assert!(stats.accepted > 0);
    }
}
