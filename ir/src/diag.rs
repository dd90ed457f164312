//! Source files, spans and diagnostics. "Your input is wrong" is a [`Diagnostic`]: a
//! stable code, a message and a located span, rendered with `file:line:col` and a caret
//! line through codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;

/// Which file a span is in (an index into [`Sources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// The source files of one compilation.
#[derive(Default, Clone, Debug)]
pub struct Sources {
    files: Vec<SourceFile>,
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// `char_marks[k]`: how many characters start before byte `k * CHAR_MARK_STRIDE`,
    /// so a column costs a short count however long its line is.
    char_marks: Vec<u32>,
}

/// Bytes between two entries of [`SourceFile::char_marks`].
const CHAR_MARK_STRIDE: usize = 256;

/// Whether `byte` starts a character (is not a UTF-8 continuation byte).
fn starts_char(byte: &u8) -> bool {
    byte & 0xC0 != 0x80
}

impl SourceFile {
    /// How many characters start before byte `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        let k = offset / CHAR_MARK_STRIDE;
        let from = k * CHAR_MARK_STRIDE;
        self.char_marks[k] as usize
            + self.text.as_bytes()[from..offset]
                .iter()
                .filter(|b| starts_char(b))
                .count()
    }
}

impl SourceFile {
    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self
            .line_starts
            .get(i + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut char_marks = vec![0u32];
        let mut chars = 0u32;
        for chunk in text.as_bytes().chunks(CHAR_MARK_STRIDE) {
            chars += chunk.iter().filter(|b| starts_char(b)).count() as u32;
            char_marks.push(chars);
        }
        self.files.push(SourceFile {
            name: name.into(),
            text,
            line_starts,
            char_marks,
        });
        FileId(self.files.len() as u32 - 1)
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.name == name)
            .map(|i| FileId(i as u32))
    }

    /// The line and column a byte offset is at.
    pub fn line_col(&self, file: FileId, offset: u32) -> LineCol {
        let f = self.file(file);
        let offset = (offset as usize).min(f.text.len());
        let line = match f.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = f.line_starts[line];
        let mut col_end = offset;
        while !f.text.is_char_boundary(col_end) {
            col_end -= 1;
        }
        let col = f.chars_before(col_end) - f.chars_before(start) + 1;
        LineCol {
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    /// The (empty) span at 1-based `line` and `col` of `file`, clamped to the file.
    pub fn span_at(&self, file: FileId, line: u32, col: u32) -> Span {
        let f = self.file(file);
        let i = (line as usize)
            .saturating_sub(1)
            .min(f.line_starts.len() - 1);
        let start = f.line_starts[i];
        let offset = f.text[start..]
            .char_indices()
            .nth((col as usize).saturating_sub(1))
            .map_or(f.text.len(), |(o, _)| start + o);
        Span::new(file, offset, offset)
    }

    /// `file:line:col` of a span's start.
    pub fn location(&self, span: Span) -> String {
        let lc = self.line_col(span.file, span.start);
        format!("{}:{}:{}", self.file(span.file).name, lc.line, lc.col)
    }

    /// Renders diagnostics the way `datalove check` prints them.
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        self.render_styled(diagnostics, false)
    }

    /// Renders diagnostics as [`Sources::render`] does; with `color`, styled with ANSI
    /// escapes (for a terminal): the same text between the escapes.
    pub fn render_styled(&self, diagnostics: &[Diagnostic], color: bool) -> String {
        let mut files = SimpleFiles::new();
        for f in &self.files {
            files.add(f.name.clone(), f.text.clone());
        }
        let config = term::Config {
            chars: term::Chars::ascii(),
            ..term::Config::default()
        };
        let styles = term::Styles::default();
        let mut styled: Vec<u8> = Vec::new();
        let mut out = String::new();
        for d in diagnostics {
            let mut labels = vec![Label::primary(d.span.file.0 as usize, clamp(self, d.span))
                .with_message(d.label.clone().unwrap_or_default())];
            for (span, message) in &d.secondary {
                labels.push(
                    Label::secondary(span.file.0 as usize, clamp(self, *span))
                        .with_message(message.clone()),
                );
            }
            let cs = match d.severity {
                Severity::Error => CsDiagnostic::error(),
                Severity::Warning => CsDiagnostic::warning(),
            }
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(d.notes.clone());
            if color {
                let ansi = term::termcolor::Ansi::new(&mut styled);
                term::emit_to_write_style(
                    &mut term::StylesWriter::new(ansi, &styles),
                    &config,
                    &files,
                    &cs,
                )
                .expect("spans are within their files");
            } else {
                out.push_str(
                    &term::emit_into_string(&config, &files, &cs)
                        .expect("spans are within their files"),
                );
            }
        }
        if color {
            out = String::from_utf8(styled).expect("rendered from UTF-8 text");
        }
        out
    }
}

fn clamp(sources: &Sources, span: Span) -> std::ops::Range<usize> {
    let text = &sources.file(span.file).text;
    let mut start = (span.start as usize).min(text.len());
    let mut end = (span.end as usize).min(text.len()).max(start);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A located, coded complaint about the input. Codes are stable and listed with an
/// example each in `docs/language.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// Text under the primary caret.
    pub label: Option<String>,
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, message.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}
