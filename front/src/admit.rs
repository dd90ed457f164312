//! The last refusals before a program runs, as coded diagnostics like every other: a
//! module given as the program (`F008`), IR the verifier refuses (`V001`), and a backend
//! that cannot take a program the verifier admitted (`B001`). They are decided here,
//! once, so that every backend reports them alike (the facade: exit 2).

use super::{Compiled, Failed};
use datalove_ir::diag::{Diagnostic, FileId, Span};

/// How many verifier errors are shown (the first is the one to fix).
const MAX_SHOWN: usize = 20;

/// Whether `compiled` can run: it has an entry (a script, not a module), and the
/// verifier admits its IR ([`datalove_ir::verify::admit`]).
pub fn admit(compiled: &Compiled) -> Result<(), Failed> {
    let root = FileId(0);
    if compiled.program.entry.is_none() {
        let name = compiled.sources.file(root).name.clone();
        return Err(Failed {
            sources: compiled.sources.clone(),
            diagnostics: vec![Diagnostic::error(
                "F008",
                Span::new(root, 0, 0),
                format!("`{name}` is a module: it has no body to run"),
            )
            .with_label("a module's functions run when a script imports them")
            .with_note("run or build a script (.dfs) that imports what it needs")],
        });
    }
    let Err(refused) = datalove_ir::verify::admit(&compiled.program) else {
        return Ok(());
    };
    let mut diagnostics: Vec<Diagnostic> = refused
        .errors
        .iter()
        .take(MAX_SHOWN)
        .map(|e| {
            let span = match e.loc {
                Some(loc) if (loc.file as usize) < compiled.sources.files().count() => {
                    compiled
                        .sources
                        .span_at(FileId(loc.file), loc.line, loc.col)
                }
                _ => Span::new(root, 0, 0),
            };
            Diagnostic::error("V001", span, format!("the IR does not verify: {e}"))
                .with_note("a bug in what produced the IR (for a program the front end accepted, in the front end)")
        })
        .collect();
    if refused.errors.len() > MAX_SHOWN {
        let more = refused.errors.len() - MAX_SHOWN;
        if let Some(last) = diagnostics.last_mut() {
            last.notes.push(format!("and {more} more verifier errors"));
        }
    }
    Err(Failed {
        sources: compiled.sources.clone(),
        diagnostics,
    })
}

/// Backend `backend` could not compile `compiled`, which the verifier admitted, for
/// `reason` (a bug in the backend, or in the verifier for letting it through).
pub fn backend_refusal(compiled: &Compiled, backend: &str, reason: &str) -> Failed {
    let root = FileId(0);
    Failed {
        sources: compiled.sources.clone(),
        diagnostics: vec![Diagnostic::error(
            "B001",
            Span::new(root, 0, 0),
            format!("backend `{backend}` cannot compile this program: {reason}"),
        )
        .with_note("the verifier admitted it, so this is a bug in the backend")],
    }
}
