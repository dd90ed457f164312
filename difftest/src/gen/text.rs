//! The text the generator writes: statements as a small tree (so blocks indent and
//! close themselves), expressions as text with their precedence (so parentheses go
//! exactly where the grammar needs them), and literals of every type.

use datalove_ir::IrType;

/// Precedence levels of `docs/language.md`, loosest first.
pub const OR: u8 = 1;
pub const AND: u8 = 2;
pub const COMPARE: u8 = 3;
pub const BIT_OR: u8 = 4;
pub const BIT_XOR: u8 = 5;
pub const BIT_AND: u8 = 6;
pub const SHIFT: u8 = 7;
pub const ADD: u8 = 8;
pub const MUL: u8 = 9;
pub const CAST: u8 = 10;
pub const UNARY: u8 = 11;
pub const ATOM: u8 = 12;

/// What the generator knows about a value, so it can index a list or unwrap an option
/// without failing (unless it means to).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// A lower bound on a list's length (a string's: in bytes).
    pub min_len: u32,
    /// An option known to hold a value.
    pub some: bool,
}

impl Facts {
    /// What holds whichever of two paths was taken.
    pub fn meet(self, other: Facts) -> Facts {
        Facts {
            min_len: self.min_len.min(other.min_len),
            some: self.some && other.some,
        }
    }
}

/// A generated expression.
#[derive(Clone, Debug)]
pub struct E {
    pub text: String,
    pub prec: u8,
    pub facts: Facts,
}

impl E {
    pub fn atom(text: impl Into<String>) -> E {
        E {
            text: text.into(),
            prec: ATOM,
            facts: Facts::default(),
        }
    }

    pub fn with_prec(text: impl Into<String>, prec: u8) -> E {
        E {
            text: text.into(),
            prec,
            facts: Facts::default(),
        }
    }

    pub fn with_facts(mut self, facts: Facts) -> E {
        self.facts = facts;
        self
    }

    /// The text, parenthesized unless its precedence is at least `min`.
    pub fn at(&self, min: u8) -> String {
        if self.prec >= min {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }

    /// `lhs OP rhs` at level `prec`: left-associative, so the right operand binds
    /// tighter. Comparisons do not chain, so both their operands bind tighter.
    pub fn binary(lhs: &E, op: &str, rhs: &E, prec: u8) -> E {
        let left_min = if prec == COMPARE { prec + 1 } else { prec };
        E::with_prec(
            format!("{} {op} {}", lhs.at(left_min), rhs.at(prec + 1)),
            prec,
        )
    }
}

/// A statement, with its nested blocks.
#[derive(Clone, Debug)]
pub enum Stmt {
    Line(String),
    If {
        /// `if` and each `else if`: condition and body.
        arms: Vec<(String, Vec<Stmt>)>,
        else_body: Option<Vec<Stmt>>,
    },
    Loop {
        cond: Option<String>,
        body: Vec<Stmt>,
    },
    /// `match scrutinee`, then each arm: its `case` pattern and body.
    Match {
        scrutinee: String,
        arms: Vec<(String, Vec<Stmt>)>,
    },
}

impl Stmt {
    /// `if cond` ... `end if`, with no `else`.
    pub fn when(cond: impl Into<String>, body: Vec<Stmt>) -> Stmt {
        Stmt::If {
            arms: vec![(cond.into(), body)],
            else_body: None,
        }
    }
}

/// Writes `stmts` at `indent` levels of two spaces.
pub fn render_block(stmts: &[Stmt], indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    for s in stmts {
        match s {
            Stmt::Line(line) => {
                out.push_str(&pad);
                out.push_str(line);
                out.push('\n');
            }
            Stmt::If { arms, else_body } => {
                for (i, (cond, body)) in arms.iter().enumerate() {
                    out.push_str(&pad);
                    out.push_str(if i == 0 { "if " } else { "else if " });
                    out.push_str(cond);
                    out.push('\n');
                    render_block(body, indent + 1, out);
                }
                if let Some(body) = else_body {
                    out.push_str(&pad);
                    out.push_str("else\n");
                    render_block(body, indent + 1, out);
                }
                out.push_str(&pad);
                out.push_str("end if\n");
            }
            Stmt::Loop { cond, body } => {
                out.push_str(&pad);
                match cond {
                    Some(c) => {
                        out.push_str("loop while ");
                        out.push_str(c);
                    }
                    None => out.push_str("loop"),
                }
                out.push('\n');
                render_block(body, indent + 1, out);
                out.push_str(&pad);
                out.push_str("end loop\n");
            }
            Stmt::Match { scrutinee, arms } => {
                out.push_str(&format!("{pad}match {scrutinee}\n"));
                for (pattern, body) in arms {
                    out.push_str(&format!("{pad}{pattern}\n"));
                    render_block(body, indent + 1, out);
                }
                out.push_str(&format!("{pad}end match\n"));
            }
        }
    }
}

/// The source spelling of a type; type parameters by `names`.
pub fn type_text(ty: &IrType, names: &[String]) -> String {
    ty.display(names).to_string()
}

/// The suffix an integer literal of `ty` may carry (`index` has none).
pub fn int_suffix(ty: &IrType) -> Option<&'static str> {
    match ty {
        IrType::Index => None,
        ty if ty.is_integer() => ty.kind().map(|kind| kind.name()),
        _ => None,
    }
}

/// The range of an integer type (`index` is 64 bits, unsigned).
pub fn int_range(ty: &IrType) -> (i128, i128) {
    ty.kind()
        .and_then(|k| k.int_range())
        .expect("an integer type")
}

/// Bit width of an integer type.
pub fn int_bits(ty: &IrType) -> u32 {
    match ty {
        IrType::U8 | IrType::I8 => 8,
        IrType::U16 | IrType::I16 => 16,
        IrType::U32 | IrType::I32 => 32,
        _ => 64,
    }
}

/// The text of an integer literal `value` of `ty`: with its suffix when the context
/// does not decide the type (or now and then anyway), in decimal, hex, octal or binary.
/// An `index` literal the context does not decide is written `N as index`.
pub fn int_literal(ty: &IrType, value: i128, decided: bool, spelling: u64) -> E {
    let digits = if value < 0 {
        format!("{value}")
    } else {
        match spelling % 20 {
            0..=1 => format!("{value:#x}"),
            2 => format!("{value:#o}"),
            3 if value < 1 << 16 => format!("{value:#b}"),
            4 if value >= 10_000 => {
                // Underscores between groups of three digits.
                let plain = value.to_string();
                let mut out = String::new();
                for (i, c) in plain.chars().enumerate() {
                    if i > 0 && (plain.len() - i).is_multiple_of(3) {
                        out.push('_');
                    }
                    out.push(c);
                }
                out
            }
            _ => value.to_string(),
        }
    };
    let prec = if value < 0 { UNARY } else { ATOM };
    match int_suffix(ty) {
        Some(suffix) if !decided || spelling.is_multiple_of(7) => {
            E::with_prec(digits + suffix, prec)
        }
        Some(_) => E::with_prec(digits, prec),
        None if decided => E::with_prec(digits, prec),
        // A suffix gives the literal a type wide enough for any index.
        None if value >= 0 => E::with_prec(format!("{digits}u64 as index"), CAST),
        None => E::with_prec(format!("{digits} as index"), CAST),
    }
}

/// The text of a float literal: the shortest digits that read back as `value` (finite).
pub fn float_literal(ty: &IrType, value: f64, decided: bool) -> E {
    let (text, negative) = if *ty == IrType::F32 {
        // Finite: a literal too large for f32 would read as infinity.
        let v = if (value as f32).is_finite() {
            value as f32
        } else {
            3.0e38
        };
        (format!("{v:?}f32"), v.is_sign_negative())
    } else {
        let text = format!("{value:?}");
        (
            if decided { text } else { text + "f64" },
            value.is_sign_negative(),
        )
    };
    E::with_prec(text, if negative { UNARY } else { ATOM })
}

/// The text of a string literal holding `s`, escaped as the language reads it.
pub fn string_literal(s: &str) -> E {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    // Its bytes, for `strings.byte_at`.
    E::atom(out).with_facts(Facts {
        min_len: s.len() as u32,
        some: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parentheses_where_the_grammar_needs_them() {
        let a = E::atom("a");
        let sum = E::binary(&a, "+", &E::atom("b"), ADD);
        assert_eq!(E::binary(&sum, "*", &a, MUL).text, "(a + b) * a");
        assert_eq!(E::binary(&a, "-", &sum, ADD).text, "a - (a + b)");
        assert_eq!(E::binary(&sum, "-", &a, ADD).text, "a + b - a");
        let cmp = E::binary(&a, "<", &a, COMPARE);
        assert_eq!(
            E::binary(&cmp, "==", &cmp, COMPARE).text,
            "(a < a) == (a < a)"
        );
    }

    #[test]
    fn literals() {
        assert_eq!(int_literal(&IrType::U8, 255, false, 10).text, "255u8");
        assert_eq!(int_literal(&IrType::U8, 255, false, 0).text, "0xffu8");
        assert_eq!(int_literal(&IrType::I8, -128, true, 10).text, "-128");
        assert_eq!(
            int_literal(&IrType::Index, 3, false, 10).text,
            "3u64 as index"
        );
        assert_eq!(
            int_literal(&IrType::I64, 1234567, true, 4).text,
            "1_234_567"
        );
        assert_eq!(float_literal(&IrType::F32, 0.5, true).text, "0.5f32");
        assert_eq!(float_literal(&IrType::F64, 1e300, true).text, "1e300");
        assert_eq!(string_literal("a\"\0\n").text, "\"a\\\"\\0\\n\"");
    }
}
