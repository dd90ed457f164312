//! The `.dli` rider-interface parser.
//!
//! A rider's `rider.dli` declares its natives, one `native fun` each:
//!
//! ```text
//! # a line comment
//! native fun fixedint_zero<T>(): T where { T is fixedint, }
//! native fun string_len(ref s: string): index
//! native fun list_push<T>(mut xs: [T], value: T)
//! ```
//!
//! Grammar (trailing commas are allowed in every list):
//!
//! ```text
//! file       := decl*
//! decl       := "native" "fun" NAME type_params? "(" params? ")" (":" type)? where?
//! type_params:= "<" NAME ("," NAME)* ","? ">"
//! params     := param ("," param)* ","?
//! param      := mode? NAME ":" type            mode := "in" | "ref" | "mut" | "out"
//! type       := "unit" | "bool" | "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32"
//!             | "i64" | "f32" | "f64" | "index" | "string" | "data"
//!             | "[" type "]" | "?" type | "(" ")" | "(" type ")" | "(" type "," ")"
//!             | "(" type ("," type)+ ","? ")" | "map" "[" type "," type "]"
//!             | TYPE_PARAM_NAME
//! where      := "where" "{" (NAME "is" CLASS ("," NAME "is" CLASS)* ","?)? "}"
//! CLASS      := "any" | "fixedint" | "float"
//! ```
//!
//! The mode defaults to `in`; an omitted result is `unit`; a type parameter the `where`
//! clause does not constrain is `any`. `(T)` is `T`; `()` is the empty tuple. Names are
//! `[A-Za-z_][A-Za-z0-9_]*`; the keywords `native fun where is` cannot be names, and a
//! mode word is a mode when a name follows it.
//!
//! Diagnostics (stable codes, each located at the offending text):
//!
//! | code | meaning |
//! |---|---|
//! | `L001` | unexpected character (not part of any token) |
//! | `L002` | unexpected token or end of file (says what was expected) |
//! | `L003` | unknown type name |
//! | `L004` | unknown type parameter in a `where` clause |
//! | `L005` | unknown class (not `any`, `fixedint` or `float`) |
//! | `L006` | duplicate native (a second `native fun` of the same name) |
//! | `L007` | duplicate parameter name in one native |
//! | `L008` | duplicate type parameter name in one native |
//! | `L009` | a type parameter constrained twice in one `where` clause |
//! | `L010` | a type parameter named like a built-in type (`<u8>`) |
//! | `L011` | a type nested too deeply (more than [`MAX_TYPE_DEPTH`] levels) |
//! | `F033` | a native whose call takes more than [`MAX_C_WORDS`] words |
//!
//! [`parse_dli`] never panics: any input gives an interface or diagnostics.

use std::collections::HashMap;

use crate::diag::{Diagnostic, FileId, Span};
use crate::native::{NativeDecl, NativeParam, RiderInterface, MAX_C_WORDS};
use crate::types::{IrType, ParamMode, TypeClass, TypeParam};

/// How deeply types may nest (`[[[...]]]`); deeper is `L011`, so no input can exhaust
/// the parser's stack.
pub const MAX_TYPE_DEPTH: usize = 64;

/// Parses the `.dli` text of rider `rider` (file `file` in the caller's `Sources`).
/// Returns the interface, with `generic_functions` worked out by [`RiderInterface::new`],
/// or every diagnostic found.
pub fn parse_dli(rider: &str, file: FileId, text: &str) -> Result<RiderInterface, Vec<Diagnostic>> {
    let (tokens, mut diagnostics) = lex(file, text);
    let mut parser = Parser {
        file,
        tokens,
        pos: 0,
        diagnostics: Vec::new(),
        end: text.len(),
    };
    let natives = parser.file();
    diagnostics.append(&mut parser.diagnostics);
    if diagnostics.is_empty() {
        Ok(RiderInterface::new(rider, natives))
    } else {
        diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
        Err(diagnostics)
    }
}

/// The built-in type a name spells, if any ([`IrType::from_name`]).
pub fn builtin_type(name: &str) -> Option<IrType> {
    IrType::from_name(name)
}

fn mode_of(word: &str) -> Option<ParamMode> {
    Some(match word {
        "in" => ParamMode::In,
        "ref" => ParamMode::Ref,
        "mut" => ParamMode::Mut,
        "out" => ParamMode::Out,
        _ => return None,
    })
}

const KEYWORDS: [&str; 4] = ["native", "fun", "where", "is"];

const BUILTIN_NAMES: [&str; 15] = [
    "unit", "bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "index",
    "string", "data",
];

/// The built-in type name a misspelling is closest to (at most two edits, and fewer
/// edits than the name is long), for `L003`'s note.
fn nearest_builtin(name: &str) -> Option<&'static str> {
    if name.len() > 16 {
        return None;
    }
    BUILTIN_NAMES
        .iter()
        .map(|b| (edit_distance(name, b), *b))
        .filter(|(d, b)| *d <= 2 && *d < b.len().min(name.len()))
        .min_by_key(|(d, _)| *d)
        .map(|(_, b)| b)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

// ---------------------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Name(String),
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

const PUNCTUATION: &[char] = &['<', '>', '(', ')', '[', ']', '?', ':', ',', '{', '}'];

fn lex(file: FileId, text: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let mut diagnostics = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '#' {
            for (_, c) in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, c)) = chars.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    end = i + c.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            tokens.push(Token {
                tok: Tok::Name(text[start..end].to_string()),
                start,
                end,
            });
            continue;
        }
        let end = start + c.len_utf8();
        if PUNCTUATION.contains(&c) {
            tokens.push(Token {
                tok: Tok::Punct(c),
                start,
                end,
            });
            continue;
        }
        diagnostics.push(
            Diagnostic::error(
                "L001",
                Span::new(file, start, end),
                format!("unexpected character {c:?} in a rider interface"),
            )
            .with_label("not part of any token"),
        );
    }
    (tokens, diagnostics)
}

// ---------------------------------------------------------------------------------------
// Parser

struct Parser {
    file: FileId,
    tokens: Vec<Token>,
    pos: usize,
    diagnostics: Vec<Diagnostic>,
    end: usize,
}

/// A parse error already reported; the caller skips to the next declaration.
struct Reported;

type PResult<T> = Result<T, Reported>;

/// What a type names before type parameters are resolved.
enum RawType {
    Known(IrType),
    List(Box<RawType>),
    Option(Box<RawType>),
    Tuple(Vec<RawType>),
    Map(Box<RawType>, Box<RawType>),
    Named(String, Span),
}

impl Parser {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Token> {
        self.tokens.get(self.pos + ahead)
    }

    fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
    }

    fn is_name(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Name(n), .. }) if n == word)
    }

    /// The span of the current token, or an empty span at the end of the text.
    fn here(&self) -> Span {
        match self.peek() {
            Some(t) => self.span(t.start, t.end),
            None => self.span(self.end, self.end),
        }
    }

    /// The end of the last token consumed.
    fn last_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |t| t.end)
    }

    /// Reports `message` at `span`, labelled `label`.
    fn refuse(&mut self, code: &'static str, span: Span, message: String, label: &str) -> Reported {
        self.diagnostics
            .push(Diagnostic::error(code, span, message).with_label(label));
        Reported
    }

    /// Reports `message` at `span`, where something is `done` ("declared") a second time,
    /// pointing at the first time, at `first`, too.
    fn twice(
        &mut self,
        code: &'static str,
        span: Span,
        message: String,
        done: &str,
        first: Span,
    ) -> Reported {
        self.diagnostics.push(
            Diagnostic::error(code, span, message)
                .with_label(format!("{done} again here"))
                .with_secondary(first, format!("first {done} here")),
        );
        Reported
    }

    /// Refuses (`code`) the `what` `declared` at `span` when it was declared before, at
    /// `first`, in function `function`.
    fn declared_once(
        &mut self,
        code: &'static str,
        what: &str,
        declared: &str,
        span: Span,
        first: Option<Span>,
        function: &str,
    ) -> Result<(), Reported> {
        match first {
            Some(first) => Err(self.twice(
                code,
                span,
                format!("{what} `{declared}` is declared twice in `{function}`"),
                "declared",
                first,
            )),
            None => Ok(()),
        }
    }

    fn unexpected(&mut self, expected: &str) -> Reported {
        let (found, label) = match self.peek() {
            Some(Token {
                tok: Tok::Name(n), ..
            }) => (format!("`{n}`"), format!("expected {expected}")),
            Some(Token {
                tok: Tok::Punct(p), ..
            }) => (format!("`{p}`"), format!("expected {expected}")),
            None => ("end of file".to_string(), format!("expected {expected}")),
        };
        let span = self.here();
        self.diagnostics.push(
            Diagnostic::error("L002", span, format!("expected {expected}, found {found}"))
                .with_label(label),
        );
        Reported
    }

    fn expect_punct(&mut self, c: char, expected: &str) -> PResult<Span> {
        if self.is_punct(c) {
            let span = self.here();
            self.pos += 1;
            Ok(span)
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn expect_keyword(&mut self, word: &str) -> PResult<Span> {
        if self.is_name(word) {
            let span = self.here();
            self.pos += 1;
            Ok(span)
        } else {
            Err(self.unexpected(&format!("`{word}`")))
        }
    }

    /// A name that is not a keyword.
    fn expect_name(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek() {
            Some(Token {
                tok: Tok::Name(n),
                start,
                end,
            }) if !KEYWORDS.contains(&n.as_str()) => {
                let out = (n.clone(), self.span(*start, *end));
                self.pos += 1;
                Ok(out)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Skips to the next `native` (or the end), after a reported error.
    fn recover(&mut self) {
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        while self.pos < self.tokens.len() && !self.is_name("native") {
            self.pos += 1;
        }
    }

    fn file(&mut self) -> Vec<NativeDecl> {
        let mut natives: Vec<NativeDecl> = Vec::new();
        // Name to index in `natives`, so a duplicate is found in one probe.
        let mut declared: HashMap<String, usize> = HashMap::new();
        while self.peek().is_some() {
            match self.decl() {
                Ok(decl) => {
                    if let Some(&first) = declared.get(&decl.name) {
                        let name_span = self.decl_name_span(&decl);
                        let first_span = self.decl_name_span(&natives[first]);
                        self.diagnostics.push(
                            Diagnostic::error(
                                "L006",
                                name_span,
                                format!("native `{}` is declared twice", decl.name),
                            )
                            .with_label("declared again here")
                            .with_secondary(first_span, "first declared here"),
                        );
                    } else {
                        declared.insert(decl.name.clone(), natives.len());
                        natives.push(decl);
                    }
                }
                Err(Reported) => self.recover(),
            }
        }
        natives
    }

    /// The span of a declaration's name: the name token after `native fun`.
    fn decl_name_span(&self, decl: &NativeDecl) -> Span {
        self.tokens
            .iter()
            .position(|t| t.start == decl.span.start as usize)
            .and_then(|i| self.tokens.get(i + 2))
            .map_or(decl.span, |t| self.span(t.start, t.end))
    }

    fn decl(&mut self) -> PResult<NativeDecl> {
        let start = self.expect_keyword("native")?;
        self.expect_keyword("fun")?;
        let (name, name_span) = self.expect_name("the native's name")?;

        // Type parameters.
        let mut type_params: Vec<(String, Span)> = Vec::new();
        if self.is_punct('<') {
            self.pos += 1;
            while !self.is_punct('>') {
                let (tp, span) = self.expect_name("a type parameter name or `>`")?;
                if builtin_type(&tp).is_some() {
                    return Err(self.refuse(
                        "L010",
                        span,
                        format!("type parameter `{tp}` has the name of a built-in type"),
                        "rename this type parameter",
                    ));
                }
                let first = type_params.iter().find(|(n, _)| *n == tp).map(|d| d.1);
                self.declared_once("L008", "type parameter", &tp, span, first, &name)?;
                type_params.push((tp, span));
                if self.is_punct(',') {
                    self.pos += 1;
                } else if !self.is_punct('>') {
                    return Err(self.unexpected("`,` or `>`"));
                }
            }
            self.pos += 1;
        }

        // Parameters.
        self.expect_punct('(', "`(`")?;
        let mut params: Vec<(NativeParam, Span)> = Vec::new();
        while !self.is_punct(')') {
            let mode = match (self.peek(), self.peek_at(1)) {
                (
                    Some(Token {
                        tok: Tok::Name(m), ..
                    }),
                    Some(Token {
                        tok: Tok::Name(_), ..
                    }),
                ) => mode_of(m),
                _ => None,
            };
            if mode.is_some() {
                self.pos += 1;
            }
            let (pname, pspan) = self.expect_name("a parameter name or `)`")?;
            self.expect_punct(':', "`:` and the parameter's type")?;
            let raw = self.ty(0)?;
            let ty = self.resolve(raw, &type_params)?;
            let first = params.iter().find(|(p, _)| p.name == pname).map(|d| d.1);
            self.declared_once("L007", "parameter", &pname, pspan, first, &name)?;
            params.push((
                NativeParam {
                    name: pname,
                    mode: mode.unwrap_or(ParamMode::In),
                    ty,
                },
                pspan,
            ));
            if self.is_punct(',') {
                self.pos += 1;
            } else if !self.is_punct(')') {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
        self.pos += 1;

        // Result.
        let result = if self.is_punct(':') {
            self.pos += 1;
            let raw = self.ty(0)?;
            self.resolve(raw, &type_params)?
        } else {
            IrType::Unit
        };

        // Constraints.
        let mut classes: Vec<Option<(TypeClass, Span)>> = vec![None; type_params.len()];
        if self.is_name("where") {
            self.pos += 1;
            self.expect_punct('{', "`{`")?;
            while !self.is_punct('}') {
                let (tp, tp_span) = self.expect_name("a type parameter name or `}`")?;
                self.expect_keyword("is")?;
                let (class_name, class_span) = self.expect_name("a class")?;
                let Some(index) = type_params.iter().position(|(n, _)| *n == tp) else {
                    return Err(self.refuse(
                        "L004",
                        tp_span,
                        format!("`{name}` has no type parameter `{tp}`"),
                        "not a type parameter of this native",
                    ));
                };
                let Some(class) = TypeClass::from_name(&class_name) else {
                    return Err(self.refuse(
                        "L005",
                        class_span,
                        format!("unknown class `{class_name}`"),
                        "expected `any`, `fixedint` or `float`",
                    ));
                };
                if let Some((_, first)) = classes[index] {
                    return Err(self.twice(
                        "L009",
                        tp_span,
                        format!("type parameter `{tp}` is constrained twice"),
                        "constrained",
                        first,
                    ));
                }
                classes[index] = Some((class, tp_span));
                if self.is_punct(',') {
                    self.pos += 1;
                } else if !self.is_punct('}') {
                    return Err(self.unexpected("`,` or `}`"));
                }
            }
            self.pos += 1;
        }

        if self.peek().is_some() && !self.is_name("native") {
            return Err(self.unexpected("`where` or the next `native fun`"));
        }

        let decl = NativeDecl {
            name,
            type_params: type_params
                .into_iter()
                .zip(classes)
                .map(|((name, _), class)| TypeParam {
                    name,
                    class: class.map_or(TypeClass::Any, |(c, _)| c),
                })
                .collect(),
            params: params.into_iter().map(|(p, _)| p).collect(),
            result,
            span: start.to(self.span(start.start as usize, self.last_end())),
        };
        let words = decl.word_count();
        if words > MAX_C_WORDS {
            let trailing = decl.undetermined_type_params().len();
            self.diagnostics.push(
                Diagnostic::error(
                    "F033",
                    name_span,
                    format!(
                        "native `{}` needs {words} C words, more than the ABI's limit of {MAX_C_WORDS}",
                        decl.name
                    ),
                )
                .with_label("too wide for the native-call ABI")
                .with_note(format!(
                    "a call takes 1 word for rt, 2 per parameter ({} parameters), 2 for the result \
                     and 1 per undetermined type parameter ({trailing})",
                    decl.params.len()
                )),
            );
            return Err(Reported);
        }
        Ok(decl)
    }

    fn ty(&mut self, depth: usize) -> PResult<RawType> {
        if depth >= MAX_TYPE_DEPTH {
            let span = self.here();
            return Err(self.refuse(
                "L011",
                span,
                format!("type nested more than {MAX_TYPE_DEPTH} levels deep"),
                "nested too deeply",
            ));
        }
        let Some(token) = self.peek().cloned() else {
            return Err(self.unexpected("a type"));
        };
        match token.tok {
            Tok::Name(n)
                if n == "map"
                    && self
                        .peek_at(1)
                        .is_some_and(|t| matches!(t.tok, Tok::Punct('['))) =>
            {
                self.pos += 2;
                let key = self.ty(depth + 1)?;
                self.expect_punct(',', "`,`")?;
                let value = self.ty(depth + 1)?;
                self.expect_punct(']', "`]`")?;
                Ok(RawType::Map(Box::new(key), Box::new(value)))
            }
            Tok::Name(n) if !KEYWORDS.contains(&n.as_str()) => {
                self.pos += 1;
                Ok(match builtin_type(&n) {
                    Some(t) => RawType::Known(t),
                    None => RawType::Named(n, self.span(token.start, token.end)),
                })
            }
            Tok::Punct('[') => {
                self.pos += 1;
                let elem = self.ty(depth + 1)?;
                self.expect_punct(']', "`]`")?;
                Ok(RawType::List(Box::new(elem)))
            }
            Tok::Punct('?') => {
                self.pos += 1;
                let payload = self.ty(depth + 1)?;
                Ok(RawType::Option(Box::new(payload)))
            }
            Tok::Punct('(') => {
                self.pos += 1;
                let mut fields = Vec::new();
                let mut trailing_comma = false;
                while !self.is_punct(')') {
                    fields.push(self.ty(depth + 1)?);
                    trailing_comma = false;
                    if self.is_punct(',') {
                        self.pos += 1;
                        trailing_comma = true;
                    } else if !self.is_punct(')') {
                        return Err(self.unexpected("`,` or `)`"));
                    }
                }
                self.pos += 1;
                if fields.len() == 1 && !trailing_comma {
                    Ok(fields.pop().unwrap_or(RawType::Known(IrType::Unit)))
                } else {
                    Ok(RawType::Tuple(fields))
                }
            }
            _ => Err(self.unexpected("a type")),
        }
    }

    fn resolve(&mut self, raw: RawType, type_params: &[(String, Span)]) -> PResult<IrType> {
        Ok(match raw {
            RawType::Known(t) => t,
            RawType::List(e) => IrType::list(self.resolve(*e, type_params)?),
            RawType::Option(p) => IrType::option(self.resolve(*p, type_params)?),
            RawType::Map(k, v) => IrType::map(
                self.resolve(*k, type_params)?,
                self.resolve(*v, type_params)?,
            ),
            RawType::Tuple(fields) => IrType::Tuple(
                fields
                    .into_iter()
                    .map(|f| self.resolve(f, type_params))
                    .collect::<PResult<Vec<_>>>()?,
            ),
            RawType::Named(n, span) => match type_params.iter().position(|(tp, _)| *tp == n) {
                Some(i) => IrType::Param(i as u32),
                None => {
                    let mut d = Diagnostic::error("L003", span, format!("unknown type `{n}`"))
                        .with_label("not a built-in type or a type parameter of this native");
                    if let Some(near) = nearest_builtin(&n) {
                        d = d.with_note(format!("did you mean `{near}`?"));
                    } else if type_params.is_empty() {
                        d = d.with_note(format!(
                            "a type parameter is declared after the name: `native fun f<{n}>(...)`"
                        ));
                    }
                    self.diagnostics.push(d);
                    return Err(Reported);
                }
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Sources;

    fn parse(text: &str) -> Result<RiderInterface, Vec<Diagnostic>> {
        parse_dli("t", FileId(0), text)
    }

    fn one(text: &str) -> NativeDecl {
        let iface = parse(text).unwrap_or_else(|d| panic!("{text}: {d:?}"));
        assert_eq!(iface.natives.len(), 1);
        iface.natives[0].clone()
    }

    /// The single diagnostic's code and line:col.
    fn error(text: &str) -> (&'static str, String) {
        let diags = parse(text).expect_err(text);
        let mut sources = Sources::new();
        let file = sources.add("t.dli", text);
        assert_eq!(file, FileId(0));
        let d = &diags[0];
        let lc = sources.line_col(file, d.span.start);
        (d.code, format!("{}:{}", lc.line, lc.col))
    }

    const STD_DLI: &str = include_str!("../../runtime/std/rider.dli");

    #[test]
    fn fixedint_zero_has_one_undetermined_type_parameter() {
        let iface = parse("native fun fixedint_zero<T>(): T where { T is fixedint, }").unwrap();
        let decl = &iface.natives[0];
        assert_eq!(decl.name, "fixedint_zero");
        assert_eq!(
            decl.type_params,
            vec![TypeParam {
                name: "T".into(),
                class: TypeClass::Fixedint
            }]
        );
        assert!(decl.params.is_empty());
        assert_eq!(decl.result, IrType::Param(0));
        assert_eq!(iface.generic_functions.get("fixedint_zero"), Some(&vec![0]));
        assert_eq!(decl.word_count(), 4);
    }

    #[test]
    fn determined_type_parameters_record_none() {
        let iface =
            parse("native fun len(ref s: string): index\nnative fun first<T>(ref xs: [T]): ?T\n")
                .unwrap();
        assert_eq!(iface.natives.len(), 2);
        let len = iface.native("len").unwrap();
        assert_eq!(len.params[0].mode, ParamMode::Ref);
        assert_eq!(len.params[0].ty, IrType::String);
        assert_eq!(len.result, IrType::Index);
        assert!(!iface.generic_functions.contains_key("len"));
        let first = iface.native("first").unwrap();
        assert_eq!(first.params[0].ty, IrType::list(IrType::Param(0)));
        assert_eq!(first.result, IrType::option(IrType::Param(0)));
        assert_eq!(first.type_params[0].class, TypeClass::Any);
        assert_eq!(iface.generic_functions.get("first"), Some(&vec![]));
    }

    #[test]
    fn modes_default_to_in() {
        let d = one("native fun m(a: u8, in b: u16, ref c: u32, mut d: u64, out e: i8)");
        let modes: Vec<_> = d.params.iter().map(|p| p.mode).collect();
        assert_eq!(
            modes,
            [
                ParamMode::In,
                ParamMode::In,
                ParamMode::Ref,
                ParamMode::Mut,
                ParamMode::Out
            ]
        );
        assert_eq!(d.result, IrType::Unit);
        // A mode word is a name when no name follows it.
        let d = one("native fun n(in: bool, ref out: f32)");
        assert_eq!(d.params[0].name, "in");
        assert_eq!(d.params[0].mode, ParamMode::In);
        assert_eq!(d.params[1].name, "out");
        assert_eq!(d.params[1].mode, ParamMode::Ref);
    }

    #[test]
    fn every_builtin_type() {
        // 15 parameters would be 33 words: the last type is the result.
        let d = one(
            "native fun all(a: unit, b: bool, c: u8, d: u16, e: u32, f: u64, g: i8, h: i16, \
             i: i32, j: i64, k: f32, l: f64, m: index, n: string,): data",
        );
        let mut tys: Vec<_> = d.params.iter().map(|p| p.ty.to_string()).collect();
        tys.push(d.result.to_string());
        assert_eq!(
            tys,
            [
                "unit", "bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64",
                "index", "string", "data"
            ]
        );
    }

    #[test]
    fn tuples_options_lists() {
        let d = one("native fun t<T, U,>(a: (u8, string), b: (T,), c: ?[(U, ?T)], d: (i32), e: ()): ([T], ?U,) where { T is float, U is any }");
        assert_eq!(
            d.params[0].ty,
            IrType::Tuple(vec![IrType::U8, IrType::String])
        );
        assert_eq!(d.params[1].ty, IrType::Tuple(vec![IrType::Param(0)]));
        assert_eq!(
            d.params[2].ty,
            IrType::option(IrType::list(IrType::Tuple(vec![
                IrType::Param(1),
                IrType::option(IrType::Param(0))
            ])))
        );
        assert_eq!(d.params[3].ty, IrType::I32);
        assert_eq!(d.params[4].ty, IrType::Tuple(vec![]));
        assert_eq!(
            d.result,
            IrType::Tuple(vec![
                IrType::list(IrType::Param(0)),
                IrType::option(IrType::Param(1))
            ])
        );
        assert_eq!(d.type_params[0].class, TypeClass::Float);
        assert_eq!(d.type_params[1].class, TypeClass::Any);
    }

    #[test]
    fn comments_and_spans() {
        let text =
            "# header\n\n  native fun a(x: u8) # trailing\n# between\nnative fun b(): bool\n";
        let iface = parse(text).unwrap();
        assert_eq!(iface.natives.len(), 2);
        let a = &iface.natives[0];
        assert_eq!(
            &text[a.span.start as usize..a.span.end as usize],
            "native fun a(x: u8)"
        );
        let b = &iface.natives[1];
        assert_eq!(
            &text[b.span.start as usize..b.span.end as usize],
            "native fun b(): bool"
        );
        assert!(parse("").unwrap().natives.is_empty());
        assert!(parse("# only a comment").unwrap().natives.is_empty());
    }

    #[test]
    fn undetermined_parameters_in_order() {
        let iface = parse("native fun conv<A, B, C>(ref a: ?[B]): (A, C)").unwrap();
        assert_eq!(iface.generic_functions.get("conv"), Some(&vec![0, 2]));
    }

    #[test]
    fn thirty_three_words_is_f033() {
        // 15 parameters: 1 + 30 + 2 = 33 words.
        let params: Vec<String> = (0..15).map(|i| format!("p{i}: u8")).collect();
        let text = format!(
            "native fun ok(a: u8)\nnative fun wide({})\n",
            params.join(", ")
        );
        assert_eq!(error(&text), ("F033", "2:12".to_string()));
        let diags = parse(&text).unwrap_err();
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("33"), "{}", diags[0].message);
        // 14 parameters and a trailing descriptor: 32 words, accepted.
        let params: Vec<String> = (0..14).map(|i| format!("p{i}: u8")).collect();
        let text = format!("native fun edge<T>({}): T", params.join(", "));
        assert_eq!(one(&text).word_count(), 32);
        // 14 parameters and two trailing descriptors: 33.
        let text = format!("native fun over<T, U>({}): (T, U)", params.join(", "));
        assert_eq!(error(&text), ("F033", "1:12".to_string()));
    }

    #[test]
    fn diagnostics_have_codes_and_locations() {
        // One case a line: the text, its diagnostic, where.
        #[rustfmt::skip]
        let cases = [
            ("native fun f(x: u8) $", "L001", "1:21"),
            ("native fun f(x u8)", "L002", "1:16"),
            ("native fun f(x: u8", "L002", "1:19"),
            ("native fun", "L002", "1:11"),
            ("fun f()", "L002", "1:1"),
            ("native fun f(x: u8) extra", "L002", "1:21"),
            ("native fun f(\n  x: strng)", "L003", "2:6"),
            ("native fun f(x: T)", "L003", "1:17"),
            ("native fun f<T>(x: T) where { U is any }", "L004", "1:31"),
            ("native fun f<T>(x: T) where { T is number }", "L005", "1:36"),
            ("native fun f()\nnative fun f(x: u8)", "L006", "2:12"),
            ("native fun f(x: u8, ref x: u8)", "L007", "1:25"),
            ("native fun f<T, T>()", "L008", "1:17"),
            ("native fun f<T>(x: T) where { T is any, T is float }", "L009", "1:41"),
            ("native fun f<u8>()", "L010", "1:14"),
        ];
        for (text, code, at) in cases {
            assert_eq!(error(text), (code, at.to_string()), "{text}");
        }
        let deep = format!("native fun f(x: {}u8{})", "[".repeat(100), "]".repeat(100));
        assert_eq!(error(&deep).0, "L011");
        assert_eq!(error("native fun where()").0, "L002");
    }

    #[test]
    fn misspelt_types_get_a_suggestion() {
        let notes = |text: &str| parse(text).unwrap_err()[0].notes.clone();
        assert_eq!(notes("native fun f(x: strng)"), ["did you mean `string`?"]);
        assert_eq!(notes("native fun f(x: u9)"), ["did you mean `u8`?"]);
        assert_eq!(notes("native fun f<T>(x: Tx)"), Vec::<String>::new());
        assert!(notes("native fun f(x: Elem)")[0].contains("native fun f<Elem>"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn several_errors_are_all_reported() {
        let diags = parse("native fun a(x: nope)\nnative fun b(y: u8)\nnative fun c(z: bad)\n")
            .unwrap_err();
        let codes: Vec<_> = diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["L003", "L003"]);
        let mut sources = Sources::new();
        sources.add(
            "t.dli",
            "native fun a(x: nope)\nnative fun b(y: u8)\nnative fun c(z: bad)\n",
        );
        let rendered = sources.render(&diags);
        assert!(rendered.contains("L003"), "{rendered}");
        assert!(rendered.contains("t.dli:3:17"), "{rendered}");
    }

    #[test]
    fn std_rider_parses() {
        let iface = parse_dli("std", FileId(0), STD_DLI).unwrap_or_else(|d| {
            let mut sources = Sources::new();
            sources.add("rider.dli", STD_DLI);
            panic!("{}", sources.render(&d))
        });
        assert_eq!(iface.rider, "std");
        assert_eq!(iface.generic_functions.get("fixedint_zero"), Some(&vec![0]));
        assert_eq!(iface.generic_functions.get("parse_int"), Some(&vec![0]));
        assert_eq!(iface.generic_functions.get("list_get"), Some(&vec![]));
        assert!(iface.native("string_len").is_some());
    }

    #[test]
    fn fuzz_no_prefix_of_std_panics() {
        let mut accepted = 0;
        for end in 0..=STD_DLI.len() {
            if STD_DLI.is_char_boundary(end) && parse(&STD_DLI[..end]).is_ok() {
                accepted += 1;
            }
        }
        // At least the empty prefix and the whole file are accepted.
        assert!(accepted >= 2);
    }

    #[test]
    fn fuzz_random_mutations_do_not_panic() {
        // A small deterministic generator (xorshift), so failures reproduce.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"<>()[]?:,{}#\n _aZ9native fun where is ref mut out in T u8 string\xff\xc3";
        let mut errors = 0;
        for _ in 0..2000 {
            let mut bytes = STD_DLI.as_bytes().to_vec();
            for _ in 0..(1 + next() % 4) {
                let at = (next() as usize) % bytes.len().max(1);
                match next() % 3 {
                    0 => bytes[at] = alphabet[(next() as usize) % alphabet.len()],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, alphabet[(next() as usize) % alphabet.len()]),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            if let Err(diags) = parse(&text) {
                errors += 1;
                assert!(!diags.is_empty());
                let mut sources = Sources::new();
                sources.add("m.dli", text.to_string());
                assert!(!sources.render(&diags).is_empty());
            }
        }
        assert!(errors > 0, "some mutation should be refused");
    }
}
