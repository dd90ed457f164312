//! The lexer: source text to tokens. Newlines end statements, except inside `()`, `[]`
//! and `{}`, where they are skipped; `#` starts a comment that runs to the end of the line.

use datalove_ir::diag::{Diagnostic, FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// An integer literal: its magnitude and its suffix (`u8`, `i32`, ...), if any.
    Int(u128, Option<String>),
    /// A float literal and its suffix (`f32`, `f64`), if any.
    Float(f64, Option<String>),
    Str(String),
    Kw(Kw),
    Punct(&'static str),
    Newline,
    Eof,
}

/// Keywords. `len`, `push`, `unwrap` and the other built-in functions are not keywords:
/// they are names a module may define for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    Fun,
    End,
    If,
    Else,
    Loop,
    While,
    For,
    Break,
    Continue,
    Ret,
    Let,
    Var,
    Set,
    Debuglog,
    Require,
    Rider,
    Import,
    Where,
    Is,
    True,
    False,
    Some,
    None,
    As,
    Ref,
    Mut,
    Out,
    In,
    And,
    Or,
    Not,
    Record,
    Enum,
    Match,
    Case,
}

impl Kw {
    pub fn from_word(word: &str) -> Option<Kw> {
        Some(match word {
            "fun" => Kw::Fun,
            "end" => Kw::End,
            "if" => Kw::If,
            "else" => Kw::Else,
            "loop" => Kw::Loop,
            "while" => Kw::While,
            "for" => Kw::For,
            "break" => Kw::Break,
            "continue" => Kw::Continue,
            "ret" => Kw::Ret,
            "let" => Kw::Let,
            "var" => Kw::Var,
            "set" => Kw::Set,
            "debuglog" => Kw::Debuglog,
            "require" => Kw::Require,
            "rider" => Kw::Rider,
            "import" => Kw::Import,
            "where" => Kw::Where,
            "is" => Kw::Is,
            "true" => Kw::True,
            "false" => Kw::False,
            "some" => Kw::Some,
            "none" => Kw::None,
            "as" => Kw::As,
            "ref" => Kw::Ref,
            "mut" => Kw::Mut,
            "out" => Kw::Out,
            "in" => Kw::In,
            "and" => Kw::And,
            "or" => Kw::Or,
            "not" => Kw::Not,
            "record" => Kw::Record,
            "enum" => Kw::Enum,
            "match" => Kw::Match,
            "case" => Kw::Case,
            _ => return None,
        })
    }

    pub fn word(self) -> &'static str {
        match self {
            Kw::Fun => "fun",
            Kw::End => "end",
            Kw::If => "if",
            Kw::Else => "else",
            Kw::Loop => "loop",
            Kw::While => "while",
            Kw::For => "for",
            Kw::Break => "break",
            Kw::Continue => "continue",
            Kw::Ret => "ret",
            Kw::Let => "let",
            Kw::Var => "var",
            Kw::Set => "set",
            Kw::Debuglog => "debuglog",
            Kw::Require => "require",
            Kw::Rider => "rider",
            Kw::Import => "import",
            Kw::Where => "where",
            Kw::Is => "is",
            Kw::True => "true",
            Kw::False => "false",
            Kw::Some => "some",
            Kw::None => "none",
            Kw::As => "as",
            Kw::Ref => "ref",
            Kw::Mut => "mut",
            Kw::Out => "out",
            Kw::In => "in",
            Kw::And => "and",
            Kw::Or => "or",
            Kw::Not => "not",
            Kw::Record => "record",
            Kw::Enum => "enum",
            Kw::Match => "match",
            Kw::Case => "case",
        }
    }
}

impl Tok {
    /// How the token is described in a diagnostic.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(name) => format!("`{name}`"),
            Tok::Int(..) => "an integer literal".into(),
            Tok::Float(..) => "a float literal".into(),
            Tok::Str(_) => "a string literal".into(),
            Tok::Kw(k) => format!("`{}`", k.word()),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Newline => "the end of the line".into(),
            Tok::Eof => "the end of the file".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Longest first, so that `<<` wins over `<` and `+%` over `+`.
const PUNCTS: &[&str] = &[
    "as!", "<<", ">>", "<=", ">=", "==", "!=", "++", "+%", "-%", "*%", "(", ")", "[", "]", "{",
    "}", "<", ">", ",", ":", "..", ".", "=", "+", "-", "*", "/", "%", "&", "|", "^", "?",
];

const INT_SUFFIXES: &[&str] = &["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"];
const FLOAT_SUFFIXES: &[&str] = &["f32", "f64"];

/// Splits `text` into tokens. Problems become diagnostics and lexing goes on, so one
/// run reports every bad character.
pub fn lex(file: FileId, text: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut lexer = Lexer {
        file,
        text,
        pos: 0,
        depth: 0,
        tokens: Vec::new(),
        diagnostics: Vec::new(),
    };
    lexer.run();
    (lexer.tokens, lexer.diagnostics)
}

struct Lexer<'a> {
    file: FileId,
    text: &'a str,
    pos: usize,
    /// Open `(`, `[`, `{`: newlines inside them do not end a statement.
    depth: u32,
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.pos..].chars().nth(n)
    }

    fn span(&self, start: usize) -> Span {
        Span::new(self.file, start, self.pos)
    }

    fn push(&mut self, tok: Tok, start: usize) {
        let span = self.span(start);
        self.tokens.push(Token { tok, span });
    }

    fn error(&mut self, code: &'static str, start: usize, message: impl Into<String>) {
        let span = self.span(start);
        self.diagnostics
            .push(Diagnostic::error(code, span, message));
    }

    fn run(&mut self) {
        while let Some(c) = self.peek() {
            let start = self.pos;
            match c {
                '\n' => {
                    self.pos += 1;
                    let last_is_newline = matches!(
                        self.tokens.last(),
                        None | Some(Token {
                            tok: Tok::Newline,
                            ..
                        })
                    );
                    if self.depth == 0 && !last_is_newline {
                        self.push(Tok::Newline, start);
                    }
                }
                c if c.is_whitespace() => self.pos += c.len_utf8(),
                '#' => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += c.len_utf8();
                    }
                }
                '"' => self.string(),
                c if c.is_ascii_digit() => self.number(),
                c if c.is_alphabetic() || c == '_' => {
                    while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                        self.pos += self.peek().map_or(1, char::len_utf8);
                    }
                    let word = &self.text[start..self.pos];
                    if word == "as" && self.peek() == Some('!') {
                        self.pos += 1;
                        self.push(Tok::Punct("as!"), start);
                    } else {
                        let tok = match Kw::from_word(word) {
                            Some(kw) => Tok::Kw(kw),
                            None => Tok::Ident(word.to_string()),
                        };
                        self.push(tok, start);
                    }
                }
                _ => {
                    let rest = &self.text[self.pos..];
                    match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                        Some(p) => {
                            self.pos += p.len();
                            match *p {
                                "(" | "[" | "{" => self.depth = self.depth.saturating_add(1),
                                ")" | "]" | "}" => self.depth = self.depth.saturating_sub(1),
                                _ => {}
                            }
                            self.push(Tok::Punct(p), start);
                        }
                        None => {
                            self.pos += c.len_utf8();
                            self.error(
                                "S001",
                                start,
                                format!("unexpected character `{}`", c.escape_debug()),
                            );
                        }
                    }
                }
            }
        }
        let end = self.text.len();
        if !matches!(
            self.tokens.last(),
            None | Some(Token {
                tok: Tok::Newline,
                ..
            })
        ) {
            self.tokens.push(Token {
                tok: Tok::Newline,
                span: Span::new(self.file, end, end),
            });
        }
        self.tokens.push(Token {
            tok: Tok::Eof,
            span: Span::new(self.file, end, end),
        });
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        loop {
            let Some(c) = self.peek() else {
                self.error("S002", start, "unterminated string literal");
                break;
            };
            let here = self.pos;
            self.pos += c.len_utf8();
            match c {
                '"' => break,
                '\n' => {
                    self.pos = here;
                    self.error(
                        "S002",
                        start,
                        "unterminated string literal (strings end on their line)",
                    );
                    break;
                }
                '\\' => {
                    if let Some(ch) = self.escape(here) {
                        value.push(ch);
                    }
                }
                c => value.push(c),
            }
        }
        self.push(Tok::Str(value), start);
    }

    /// The character an escape (after its backslash) stands for.
    fn escape(&mut self, start: usize) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '0' => Some('\0'),
            '\\' => Some('\\'),
            '"' => Some('"'),
            _ => None,
        };
        if simple.is_some() {
            return simple;
        }
        if c == 'u' && self.peek() == Some('{') {
            self.pos += 1;
            let digits_start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            let digits = &self.text[digits_start..self.pos];
            if self.peek() == Some('}') && !digits.is_empty() && digits.len() <= 6 {
                self.pos += 1;
                let ch = u32::from_str_radix(digits, 16)
                    .ok()
                    .and_then(char::from_u32);
                if ch.is_none() {
                    self.error(
                        "S003",
                        start,
                        format!("`\\u{{{digits}}}` is not a Unicode scalar value"),
                    );
                }
                return ch;
            }
            self.error(
                "S003",
                start,
                "a `\\u` escape is written `\\u{HEX}` with 1 to 6 hex digits",
            );
            return None;
        }
        self.error(
            "S003",
            start,
            format!("unknown escape `\\{}`", c.escape_debug()),
        );
        None
    }

    fn number(&mut self) {
        let start = self.pos;
        // After `.`, digits are a tuple index (`t.0.1`), never a float.
        let after_dot = matches!(self.tokens.last(), Some(Token { tok: Tok::Punct("."), span }) if span.end as usize == start);
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some('0'), Some('x')) => 16,
            (Some('0'), Some('b')) => 2,
            (Some('0'), Some('o')) => 8,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
        }
        let digits_start = self.pos;
        while self.peek().is_some_and(|c| c.is_digit(radix) || c == '_') {
            self.pos += 1;
        }
        let mut is_float = false;
        if radix == 10 && !after_dot {
            if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                is_float = true;
                self.pos += 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
                    self.pos += 1;
                }
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                let sign = usize::from(matches!(self.peek_at(1), Some('+' | '-')));
                if self.peek_at(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                    is_float = true;
                    self.pos += 1 + sign;
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.pos += 1;
                    }
                }
            }
        }
        let body: String = self.text[digits_start..self.pos]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        let suffix_start = self.pos;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.pos += self.peek().map_or(1, char::len_utf8);
        }
        let suffix = &self.text[suffix_start..self.pos];
        let suffix = (!suffix.is_empty()).then(|| suffix.to_string());
        if body.is_empty() {
            self.error("S004", start, "a number needs digits");
            self.push(Tok::Int(0, None), start);
            return;
        }
        let float_suffix = suffix
            .as_deref()
            .is_some_and(|s| FLOAT_SUFFIXES.contains(&s));
        if is_float || (float_suffix && radix == 10 && !after_dot) {
            if let Some(s) = &suffix {
                if !float_suffix {
                    self.error(
                        "S004",
                        start,
                        format!("`{s}` is not a float suffix (write f32 or f64)"),
                    );
                }
            }
            let value = body.parse::<f64>().unwrap_or(0.0);
            self.push(Tok::Float(value, suffix.filter(|_| float_suffix)), start);
            return;
        }
        if let Some(s) = &suffix {
            if !INT_SUFFIXES.contains(&s.as_str()) {
                self.error(
                    "S004",
                    start,
                    format!("`{s}` is not an integer suffix (write u8..u64 or i8..i64)"),
                );
            }
        }
        let value = match u128::from_str_radix(&body, radix) {
            Ok(v) => v,
            Err(_) => {
                self.error("S004", start, "integer literal too large");
                0
            }
        };
        let suffix = suffix.filter(|s| INT_SUFFIXES.contains(&s.as_str()));
        self.push(Tok::Int(value, suffix), start);
    }
}
