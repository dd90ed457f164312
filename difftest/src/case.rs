//! Keeping a finding: the (reduced) program written as a conformance case, with the
//! seed that made it, so it stays fixed forever.
//!
//! Which backend is right is for an engineer to decide, so the case records what the
//! majority of backends did (ties go to the group with the interpreter) and an `xfail`
//! naming the divergence for each backend outside it: the suite stays green, and the
//! first fix turns the excuse into `PASSES?`, which asks for it to be removed. A leak,
//! a panic or a signal on every backend, or a program the front end refuses, gets an
//! `xfail` on every backend, saying what happened.

use std::path::{Path, PathBuf};

use crate::program::TestProgram;
use crate::run::{Finding, Outcome, EXIT_OK, EXIT_RUNTIME_ERROR};

/// Where a finding came from, for the case's header.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// `seed 0x...` or `fuzz input <file>`.
    pub source: String,
    pub lines_before: usize,
    pub lines_after: usize,
}

/// Writes `program` (which shows `finding`) as `<dir>/<name>.dfs`, not overwriting an
/// existing case; returns the path.
pub fn write_case(
    dir: &Path,
    name: &str,
    program: &TestProgram,
    finding: &Finding,
    provenance: &Provenance,
) -> std::io::Result<PathBuf> {
    let mut path = dir.join(format!("{name}.dfs"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{name}_{n}.dfs"));
        n += 1;
    }
    std::fs::write(&path, case_text(program, finding, provenance))?;
    Ok(path)
}

/// The case's text.
pub fn case_text(program: &TestProgram, finding: &Finding, provenance: &Provenance) -> String {
    let mut header = format!(
        "Found by difftest ({}); reduced from {} to {} lines.\n",
        provenance.source, provenance.lines_before, provenance.lines_after
    );
    let (expected, excuses) = match finding {
        Finding::Divergence { outcomes } => {
            let mut groups: Vec<(Vec<&'static str>, &Outcome)> = Vec::new();
            for (b, o) in outcomes {
                match groups.iter_mut().find(|(_, g)| *g == o) {
                    Some((members, _)) => members.push(b),
                    None => groups.push((vec![b], o)),
                }
            }
            let best = groups
                .iter()
                .enumerate()
                .max_by_key(|(i, (members, _))| {
                    (
                        members.len(),
                        members.contains(&"interp"),
                        std::cmp::Reverse(*i),
                    )
                })
                .map(|(i, _)| i)
                .expect("a divergence has outcomes");
            let (majority, expected) = (&groups[best].0, groups[best].1);
            header.push_str(&format!(
                "The expectations are what {} did; check them before fixing.\n",
                majority.join(", ")
            ));
            let mut excuses = Vec::new();
            for (i, (members, o)) in groups.iter().enumerate() {
                if i == best {
                    continue;
                }
                let what = summary(o, expected);
                for b in members {
                    excuses.push((
                        b.to_string(),
                        "xfail",
                        format!(
                            "differs from {} ({}): {what}",
                            majority.join(", "),
                            provenance.source
                        ),
                    ));
                }
            }
            (clean(expected), excuses)
        }
        Finding::Broken { outcomes } => {
            let o = &outcomes[0].1;
            let what = o.stderr_lines.join(" / ");
            header.push_str("Every backend ended the same, in a way no correct run ends.\n");
            let excuses = outcomes
                .iter()
                .map(|(b, _)| {
                    (
                        b.to_string(),
                        "xfail",
                        format!("{} ({})", what, provenance.source),
                    )
                })
                .collect();
            (clean(o), excuses)
        }
        Finding::Refused { diagnostics }
        | Finding::Unverified {
            errors: diagnostics,
        } => {
            let first = diagnostics.lines().next().unwrap_or("").to_string();
            header.push_str(
                "The generator wrote it as a well-typed program; the compiler disagrees. The\nexpectations are to be written when it compiles.\n",
            );
            let excuses = crate::run::BACKENDS
                .iter()
                .map(|b| {
                    (
                        b.to_string(),
                        "xfail",
                        format!("{first} ({})", provenance.source),
                    )
                })
                .collect();
            (
                Outcome {
                    code: Some(EXIT_OK),
                    stdout: Vec::new(),
                    stderr_lines: Vec::new(),
                },
                excuses,
            )
        }
    };
    program.to_case(&header, &expected, &excuses)
}

/// `outcome` as a case can expect it: one error line at most, without its location
/// (the program's file is another in the case) or chain of calls, and no leak line.
fn clean(outcome: &Outcome) -> Outcome {
    let errors: Vec<String> = outcome
        .stderr_lines
        .iter()
        .filter(|l| l.starts_with("error: ") && !l.starts_with("error: leak:"))
        .take(1)
        .map(
            |l| match datalove::RuntimeError::parse_report(std::slice::from_ref(l)) {
                Some(e) => format!("error: {}: {}", e.kind.name(), e.detail),
                None => l.clone(),
            },
        )
        .collect();
    Outcome {
        code: Some(if errors.is_empty() {
            EXIT_OK
        } else {
            EXIT_RUNTIME_ERROR
        }),
        stdout: outcome.stdout.clone(),
        stderr_lines: errors,
    }
}

/// One line saying how `o` differs from `reference`.
fn summary(o: &Outcome, reference: &Outcome) -> String {
    if o.code != reference.code || o.stderr_lines != reference.stderr_lines {
        let ending = |o: &Outcome| match o.stderr_lines.first() {
            Some(l) => l.clone(),
            None => format!(
                "exit {}",
                o.code.map_or("by signal".into(), |c| c.to_string())
            ),
        };
        return format!("ends `{}`, not `{}`", ending(o), ending(reference));
    }
    let a = o.stdout_lines();
    let b = reference.stdout_lines();
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "line {} of stdout is `{}`, not `{}`",
            i + 1,
            String::from_utf8_lossy(a[i]),
            String::from_utf8_lossy(b[i])
        ),
        None => format!("prints {} lines, not {}", a.len(), b.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_majority_is_expected_and_the_rest_excused() {
        let ok = |s: &str| Outcome {
            code: Some(0),
            stdout: s.as_bytes().to_vec(),
            stderr_lines: Vec::new(),
        };
        let finding = Finding::Divergence {
            outcomes: vec![
                ("interp", ok("1\n")),
                ("jit", ok("2\n")),
                ("aot", ok("1\n")),
                ("c", ok("1\n")),
            ],
        };
        let program = TestProgram {
            script: "debuglog 1\n".into(),
            files: Vec::new(),
        };
        let text = case_text(
            &program,
            &finding,
            &Provenance {
                source: "seed 0x2a".into(),
                lines_before: 10,
                lines_after: 1,
            },
        );
        assert!(text.contains("#> 1\n"), "{text}");
        assert!(
            text.contains("#~ xfail jit: differs from interp, aot, c (seed 0x2a): line 1 of stdout is `2`, not `1`"),
            "{text}"
        );
    }
}
