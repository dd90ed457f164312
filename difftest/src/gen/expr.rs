//! Expressions of a required type: variables (moved, cloned or read), literals and
//! constructors, operators (checked ones guarded unless the program takes a risk),
//! projections (`xs[i]`, `t.0`, `unwrap`) and calls, with their arguments in every mode.

use datalove_ir::{IrType, ParamMode, TypeClass};

use super::catalog::{Callable, Fails, Guard, Limit, Origin};
use super::text::*;
use super::{Generator, Use, VState, VarKind};

const LETTERS: &[&str] = &[
    "a", "b", "z", "Q", " ", "x", "é", "ß", "→", "💜", "\n", "\t", "\0", "\"", "\\", "0", "-",
];

impl Generator<'_> {
    /// An expression of type `ty`, used as `how`. `decided`: whether the context gives the
    /// expression its type (a `let` annotation, a parameter, the other operand), so a
    /// literal may go without its suffix and a return-position generic may be called.
    pub(crate) fn expr(&mut self, ty: &IrType, how: Use, decided: bool, depth: u32) -> E {
        // The simplest first: a byte-driven stream that runs out takes it.
        let weights = [
            if literal_able(ty) { 20 } else { 0 },
            if self.readable(ty).is_empty() { 0 } else { 30 },
            if depth > 0 { 22 } else { 0 }, // operators and constructors
            if depth > 0 { 8 } else { 0 },  // projections
            if depth > 0 { 14 } else { 0 }, // calls
        ];
        if weights.iter().all(|&w| w == 0) {
            return self.fallback(ty, how, decided);
        }
        let choice = self.rng.weighted(&weights);
        let made = match choice {
            0 => Some(self.construct(ty, how, decided, 0)),
            1 => self.variable(ty, how),
            2 => self
                .operator(ty, decided, depth)
                .or_else(|| literal_able(ty).then(|| self.construct(ty, how, decided, depth))),
            3 => self.project(ty, how, depth),
            _ => self.call_for(ty, how, decided, depth),
        };
        match made {
            Some(e) => e,
            None => self.fallback(ty, how, decided),
        }
    }

    /// A value of `ty` when nothing else fits: a literal, or, for a type that mentions a
    /// type parameter, the probe's `probe_default` decided by an annotated `let`.
    fn fallback(&mut self, ty: &IrType, how: Use, decided: bool) -> E {
        if literal_able(ty) {
            return self.construct(ty, how, decided, 0);
        }
        if let Some(v) = self.readable(ty).first().copied() {
            if let Some(e) = self.use_var(v, how) {
                return e;
            }
        }
        let default = self.native_index("probe_default");
        self.used[self.file].insert(default);
        if decided && how == Use::Consume {
            return E::atom("probe_default()");
        }
        let name = self.fresh_name("t");
        let text = format!("let {name}: {} = probe_default()", self.ty_text(ty));
        self.fx.pending.push(Stmt::Line(text));
        let v = self.declare(name, ty.clone(), VarKind::Let, VState::Live);
        self.use_var(v, how)
            .unwrap_or_else(|| E::atom(format!("clone({})", self.fx.vars[v].name)))
    }

    /// The catalog index of native `name`.
    pub(crate) fn native_index(&self, name: &str) -> usize {
        self.callables
            .iter()
            .position(|c| matches!(&c.origin, Origin::Native { native, .. } if native == name))
            .unwrap_or_else(|| panic!("the probe rider has no `{name}`"))
    }

    /// The name a program calls the standard library's `module.function` by, recorded
    /// as used so that the file imports it.
    pub(crate) fn library_call(&mut self, module: &str, function: &str) -> String {
        let i = self
            .callables
            .iter()
            .position(|c| {
                matches!(&c.origin, Origin::Library { module: m, function: f }
                    if m == module && f == function)
            })
            .unwrap_or_else(|| panic!("the library has no `{module}.{function}`"));
        self.used[self.file].insert(i);
        self.callables[i].name.clone()
    }

    /// A variable of `ty`.
    fn variable(&mut self, ty: &IrType, how: Use) -> Option<E> {
        let candidates = self.readable(ty);
        if candidates.is_empty() {
            return None;
        }
        let v = *self.rng.pick(&candidates);
        self.use_var(v, how)
    }

    /// Uses variable `v`: read, copied, moved, or cloned when it may not be moved.
    pub(crate) fn use_var(&mut self, v: usize, how: Use) -> Option<E> {
        let var = &self.fx.vars[v];
        if var.state != VState::Live || self.fx.stmt_exclusive.contains(&v) {
            return None;
        }
        let (name, facts, copy) = (var.name.clone(), var.facts, var.ty.is_copy());
        if !self.weigh(v) {
            return None;
        }
        if how == Use::Read || copy {
            self.touch(v);
            return Some(E::atom(name).with_facts(facts));
        }
        if self.movable(v) && self.rng.chance(1, 2) {
            self.fx.vars[v].state = VState::Moved;
            self.touch(v);
            return Some(E::atom(name).with_facts(facts));
        }
        self.touch(v);
        Some(E::atom(format!("clone({name})")).with_facts(facts))
    }

    // ---------------------------------------------------------------- literals

    /// A literal or constructor of `ty` (which must be [`literal_able`], or a compound
    /// whose parts can be generated).
    pub(crate) fn construct(&mut self, ty: &IrType, how: Use, decided: bool, depth: u32) -> E {
        let sub = depth.saturating_sub(1);
        match ty {
            IrType::Unit => E::atom("()"),
            IrType::Bool => E::atom(if self.rng.chance(1, 2) {
                "true"
            } else {
                "false"
            }),
            t if t.is_integer() => {
                let value = self.int_value(t);
                let spelling = self.rng.next_u64();
                int_literal(t, value, decided, spelling)
            }
            IrType::F32 | IrType::F64 => {
                let value = self.float_value();
                float_literal(ty, value, decided)
            }
            IrType::String => {
                let n = self.rng.below(7);
                let s: String = (0..n).map(|_| *self.rng.pick(LETTERS)).collect();
                string_literal(&s)
            }
            IrType::List(elem) => {
                let mut n = self.rng.below(4);
                if n == 0 && !decided {
                    n = 1;
                }
                let items: Vec<String> = (0..n)
                    .map(|i| self.expr(elem, Use::Consume, decided || i > 0, sub).at(OR))
                    .collect();
                E::atom(format!("[{}]", items.join(", "))).with_facts(Facts {
                    min_len: n as u32,
                    some: false,
                })
            }
            IrType::Option(payload) => {
                if decided && self.rng.chance(1, 4) {
                    E::atom("none")
                } else {
                    let inner = self.expr(payload, Use::Consume, decided, sub);
                    E::atom(format!("some({})", inner.at(OR))).with_facts(Facts {
                        min_len: 0,
                        some: true,
                    })
                }
            }
            IrType::Tuple(fields) => {
                let items: Vec<String> = fields
                    .iter()
                    .map(|f| self.expr(f, Use::Consume, decided, sub).at(OR))
                    .collect();
                if items.len() == 1 {
                    E::atom(format!("({},)", items[0]))
                } else {
                    E::atom(format!("({})", items.join(", ")))
                }
            }
            IrType::Data => {
                let inner_ty = self.random_type(1);
                let inner = self.expr(&inner_ty, Use::Consume, false, sub);
                E::atom(format!("data({})", inner.at(OR)))
            }
            IrType::Map(key, value) => {
                // `maps.from_entries` of a list of entries; a later duplicate key wins.
                let mut n = self.rng.below(4);
                if n == 0 && !decided {
                    n = 1;
                }
                let entries: Vec<String> = (0..n)
                    .map(|i| {
                        let k = self.expr(key, Use::Consume, decided || i > 0, sub);
                        let v = self.expr(value, Use::Consume, decided || i > 0, sub);
                        format!("({}, {})", k.at(OR), v.at(OR))
                    })
                    .collect();
                let from = self.library_call("maps", "from_entries");
                E::atom(format!("{from}([{}])", entries.join(", ")))
            }
            IrType::BigInt => {
                if self.rng.chance(1, 2) {
                    // From a fixed-width integer of any type (`index` is not `fixedint`).
                    let int_ty = match self.random_int_type() {
                        IrType::Index => IrType::U64,
                        t => t,
                    };
                    let x = self.expr(&int_ty, Use::Consume, false, sub);
                    let from = self.library_call("bigint", "from");
                    E::atom(format!("{from}({})", x.at(OR)))
                } else {
                    // From up to 40 digits, which no fixed-width type holds.
                    let digits = self.rng.range(1, 40);
                    let mut text: String = if self.rng.chance(1, 3) { "-" } else { "" }.into();
                    for _ in 0..digits {
                        text.push((b'0' + self.rng.below(10) as u8) as char);
                    }
                    let parse = self.library_call("bigint", "parse");
                    E::atom(format!(
                        "unwrap({parse}(ref {}))",
                        string_literal(&text).text
                    ))
                }
            }
            IrType::Record(record) => {
                // Every field, in the declaration's order; each value is checked against
                // its field's type, which so decides it.
                let items: Vec<String> = record
                    .field_names
                    .iter()
                    .zip(&record.fields)
                    .map(|(name, f)| {
                        let value = self.expr(f, Use::Consume, true, sub);
                        format!("{name}: {}", value.at(OR))
                    })
                    .collect();
                E::atom(format!("{}({})", record.name, items.join(", ")))
            }
            IrType::Enum(e) => {
                // A variant, qualified by the enum's name, with every payload field.
                let v = self.rng.below(e.variant_count() as u64) as usize;
                let fields: Vec<String> = e
                    .variant_fields(v)
                    .iter()
                    .map(|f| self.expr(f, Use::Consume, true, sub).at(OR))
                    .collect();
                let name = format!("{}.{}", e.name, e.variant_names[v]);
                if fields.is_empty() {
                    E::atom(name)
                } else {
                    E::atom(format!("{name}({})", fields.join(", ")))
                }
            }
            IrType::Param(_) => self.fallback(ty, how, decided),
            // Extension point: a new kind of value is constructed here.
            other => panic!("no literal for {other}"),
        }
    }

    /// An integer of `ty`: zero, one, small, the type's edges, powers of two, or any.
    pub(crate) fn int_value(&mut self, ty: &IrType) -> i128 {
        let (lo, hi) = int_range(ty);
        let v = match self.rng.weighted(&[6, 4, 12, 3, 3, 3, 4, 8]) {
            0 => 0,
            1 => 1,
            2 => self.rng.range(2, 40) as i128,
            3 => hi,
            4 => lo,
            5 => hi - 1,
            6 => 1i128 << self.rng.below(int_bits(ty) as u64 - 1),
            _ => lo + (self.rng.next_u64() as i128).rem_euclid(hi - lo + 1),
        };
        let v = if lo < 0 && v > 0 && self.rng.chance(1, 3) {
            -v
        } else {
            v
        };
        v.clamp(lo, hi)
    }

    fn float_value(&mut self) -> f64 {
        match self.rng.weighted(&[4, 4, 4, 3, 2, 2, 2, 6]) {
            0 => 0.0,
            1 => 1.0,
            2 => 0.5,
            3 => 0.1,
            4 => -2.5,
            5 => 1e300,
            6 => 1.5e-7,
            _ => {
                let mantissa = (self.rng.next_u64() % 2_000_000) as f64 - 1_000_000.0;
                let exp = self.rng.range(0, 40) as i32 - 20;
                mantissa * 10f64.powi(exp)
            }
        }
    }

    // ---------------------------------------------------------------- operators

    /// An operator expression of `ty`, or a constructor for a compound type.
    fn operator(&mut self, ty: &IrType, decided: bool, depth: u32) -> Option<E> {
        let sub = depth - 1;
        match ty {
            IrType::Bool => Some(self.boolean(sub)),
            IrType::String => {
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                Some(E::binary(&a, "++", &b, ADD))
            }
            IrType::F32 | IrType::F64 => Some(self.float_op(ty, decided, sub)),
            t if t.is_integer() => Some(self.int_op(t, decided, sub)),
            IrType::List(_)
            | IrType::Option(_)
            | IrType::Tuple(_)
            | IrType::Data
            | IrType::Map(..)
            | IrType::BigInt
            | IrType::Record(_)
            | IrType::Enum(_)
                if !ty.mentions_param() || self.rng.chance(1, 2) =>
            {
                Some(self.construct(ty, Use::Consume, decided, depth))
            }
            _ => None,
        }
    }

    fn boolean(&mut self, sub: u32) -> E {
        match self.rng.weighted(&[10, 3, 4, 4, 3]) {
            0 => {
                // A comparison over any type, often one a variable already has.
                let ty = if self.rng.chance(1, 2) && !self.fx.vars.is_empty() {
                    let v = self.rng.below(self.fx.vars.len() as u64) as usize;
                    self.fx.vars[v].ty.clone()
                } else {
                    self.random_type(1)
                };
                let a = self.expr(&ty, Use::Read, false, sub);
                let b = self.expr(&ty, Use::Read, true, sub);
                let op = *self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
                E::binary(&a, op, &b, COMPARE)
            }
            1 => {
                let a = self.expr(&IrType::Bool, Use::Read, true, sub);
                let text = if a.text.starts_with("not ") || a.prec < COMPARE {
                    format!("not ({})", a.text)
                } else {
                    format!("not {}", a.text)
                };
                E::with_prec(text, COMPARE)
            }
            2 | 3 => {
                let a = self.expr(&IrType::Bool, Use::Read, true, sub);
                self.fx.conditional += 1;
                let b = self.expr(&IrType::Bool, Use::Read, true, sub);
                self.fx.conditional -= 1;
                if self.rng.chance(1, 2) {
                    E::binary(&a, "and", &b, AND)
                } else {
                    E::binary(&a, "or", &b, OR)
                }
            }
            _ => {
                let payload = self.random_type(1);
                let o = self.expr(&IrType::option(payload), Use::Read, false, sub);
                E::atom(format!("is_some(ref {})", o.at(OR)))
            }
        }
    }

    fn float_op(&mut self, ty: &IrType, decided: bool, sub: u32) -> E {
        match self.rng.weighted(&[8, 2, 4, 3]) {
            0 => {
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                let (op, prec) = *self
                    .rng
                    .pick(&[("+", ADD), ("-", ADD), ("*", MUL), ("/", MUL)]);
                E::binary(&a, op, &b, prec)
            }
            1 => {
                let a = self.operand_not_literal(ty, decided, sub);
                E::with_prec(format!("-{}", a.at(UNARY)), UNARY)
            }
            2 => self.cast_to(ty, sub),
            _ => {
                // NaN and the infinities, which no literal spells.
                let text = *self
                    .rng
                    .pick(&["0.0 / 0.0", "1.0 / 0.0", "-1.0 / 0.0", "-0.0"]);
                let suffix = if *ty == IrType::F32 { "f32" } else { "" };
                let text = text.replace(".0", &format!(".0{suffix}"));
                let prec = if text.contains('/') { MUL } else { UNARY };
                E::with_prec(text, prec)
            }
        }
    }

    /// An operand that is not a bare literal (a literal under unary minus would be read
    /// as a negative literal, and a parenthesized one is a known front-end case of its
    /// own: `int_neg_parenthesized`).
    fn operand_not_literal(&mut self, ty: &IrType, decided: bool, sub: u32) -> E {
        let e = self.expr(ty, Use::Read, decided, sub);
        let starts_literal = e.text.starts_with(|c: char| c.is_ascii_digit() || c == '-');
        if starts_literal && e.prec >= UNARY {
            let zero = if ty.is_float() {
                float_literal(ty, 0.0, true)
            } else {
                int_literal(ty, 0, true, 10)
            };
            E::binary(&e, if ty.is_float() { "+" } else { "+%" }, &zero, ADD)
        } else {
            e
        }
    }

    fn int_op(&mut self, ty: &IrType, decided: bool, sub: u32) -> E {
        let bits = int_bits(ty);
        let signed = ty.is_signed();
        let mask = |n: u32| -> E { int_literal(ty, (1i128 << n) - 1, true, 0) };
        let risky = self.risky();
        match self.rng.weighted(&[6, 6, 8, 3, 3, 3, 2, 4, 3]) {
            0 => {
                // Wrapping arithmetic never fails.
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                let (op, prec) = *self.rng.pick(&[("+%", ADD), ("-%", ADD), ("*%", MUL)]);
                E::binary(&a, op, &b, prec)
            }
            1 => {
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                let (op, prec) = *self
                    .rng
                    .pick(&[("&", BIT_AND), ("|", BIT_OR), ("^", BIT_XOR)]);
                E::binary(&a, op, &b, prec)
            }
            2 => {
                // Checked + - *: operands masked so the result fits, unless risky.
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                let (op, prec) = *self.rng.pick(&[("+", ADD), ("-", ADD), ("*", MUL)]);
                if risky {
                    return E::binary(&a, op, &b, prec);
                }
                let m = if op == "*" { bits / 2 - 1 } else { bits - 2 };
                let b = E::binary(&b, "&", &mask(m), BIT_AND);
                let a = if op == "-" && !signed {
                    let high = int_literal(ty, 1i128 << (bits - 2), true, 0);
                    E::binary(&a, "|", &high, BIT_OR)
                } else {
                    E::binary(&a, "&", &mask(m), BIT_AND)
                };
                E::binary(&a, op, &b, prec)
            }
            3 => {
                // Checked / and %: a positive divisor, unless risky.
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                let (op, prec) = *self.rng.pick(&[("/", MUL), ("%", MUL)]);
                if risky {
                    return E::binary(&a, op, &b, prec);
                }
                let masked = E::binary(&b, "&", &mask(bits - 2), BIT_AND);
                let one = int_literal(ty, 1, true, 10);
                let divisor = E::binary(&masked, "|", &one, BIT_OR);
                E::binary(&a, op, &divisor, prec)
            }
            4 => {
                // Checked shifts: an amount below the width, unless risky.
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                let op = *self.rng.pick(&["<<", ">>"]);
                if risky {
                    return E::binary(&a, op, &b, SHIFT);
                }
                let amount = E::binary(
                    &b,
                    "&",
                    &int_literal(ty, bits as i128 - 1, true, 10),
                    BIT_AND,
                );
                E::binary(&a, op, &amount, SHIFT)
            }
            5 if signed => {
                // Checked negation: not of the most negative value, unless risky.
                if risky {
                    let a = self.operand_not_literal(ty, decided, sub);
                    return E::with_prec(format!("-{}", a.at(UNARY)), UNARY);
                }
                let a = self.expr(ty, Use::Read, decided, sub);
                let half = E::binary(&a, ">>", &int_literal(ty, 1, true, 10), SHIFT);
                E::with_prec(format!("-{}", half.at(UNARY)), UNARY)
            }
            6 => {
                // The length of some list.
                let elem = self.random_type(1);
                let xs = self.expr(&IrType::list(elem), Use::Read, false, sub);
                let len = E::atom(format!("len({})", xs.at(OR)));
                if *ty == IrType::Index {
                    len
                } else {
                    // Lists are short: any integer type holds a length.
                    E::with_prec(format!("{} as {}", len.text, self.ty_text(ty)), CAST)
                }
            }
            7 => self.cast_to(ty, sub),
            _ => {
                let a = self.expr(ty, Use::Read, decided, sub);
                let b = self.expr(ty, Use::Read, true, sub);
                E::binary(&a, "+%", &b, ADD)
            }
        }
    }

    /// A conversion into the numeric type `to` from another numeric type.
    fn cast_to(&mut self, to: &IrType, sub: u32) -> E {
        let from = match self.rng.below(4) {
            0 => IrType::F64,
            1 => IrType::F32,
            _ => self.random_int_type(),
        };
        let e = self.expr(&from, Use::Read, false, sub);
        let to_text = self.ty_text(to);
        let risky = self.risky();
        let unchecked = self.rng.chance(1, 3);
        let text = if to.is_float() || unchecked {
            // Into a float never fails; `as!` never fails.
            let op = if unchecked { "as!" } else { "as" };
            format!("{} {op} {to_text}", e.at(CAST))
        } else if from.is_float() {
            let op = if risky { "as" } else { "as!" };
            format!("{} {op} {to_text}", e.at(CAST))
        } else {
            let (flo, fhi) = int_range(&from);
            let (tlo, thi) = int_range(to);
            if (tlo <= flo && fhi <= thi) || risky {
                format!("{} as {to_text}", e.at(CAST))
            } else {
                // 0..=127 fits every integer type.
                let m = int_literal(&from, 127, true, 0);
                format!("{} as {to_text}", E::binary(&e, "&", &m, BIT_AND).at(CAST))
            }
        };
        E::with_prec(text, CAST)
    }

    // ---------------------------------------------------------------- projections

    /// `xs[i]`, `t.N` or `unwrap(o)` giving a `ty`.
    fn project(&mut self, ty: &IrType, how: Use, depth: u32) -> Option<E> {
        match self.rng.below(3) {
            0 => {
                let list_ty = IrType::list(ty.clone());
                let lists = self.readable(&list_ty);
                let risky = self.risky();
                let known: Vec<usize> = lists
                    .iter()
                    .copied()
                    .filter(|&v| self.fx.vars[v].facts.min_len > 0)
                    .collect();
                let (base, min_len) = if !known.is_empty() && !risky {
                    let v = *self.rng.pick(&known);
                    let min = self.fx.vars[v].facts.min_len;
                    (self.use_var(v, Use::Read)?, min)
                } else if risky {
                    let e = self.expr(&list_ty, Use::Read, false, depth - 1);
                    (e, 0)
                } else {
                    // A list literal, which has its length in plain sight.
                    let e = self.construct(&list_ty, Use::Consume, false, depth - 1);
                    let min = e.facts.min_len;
                    if min == 0 {
                        return None;
                    }
                    (e, min)
                };
                let index = if min_len > 0 {
                    int_literal(
                        &IrType::Index,
                        self.rng.below(min_len as u64) as i128,
                        true,
                        10,
                    )
                } else {
                    self.expr(&IrType::Index, Use::Read, true, 0)
                };
                Some(E::atom(format!("{}[{}]", base.at(ATOM), index.text)))
            }
            1 => {
                // A field of a tuple or record variable (`t.0`, `r.f1`).
                let mut found = Vec::new();
                for v in 0..self.fx.vars.len() {
                    let var = &self.fx.vars[v];
                    if var.visible
                        && var.state == VState::Live
                        && !self.fx.stmt_exclusive.contains(&v)
                    {
                        let names = match &var.ty {
                            IrType::Record(record) => Some(&record.field_names),
                            _ => None,
                        };
                        for (i, f) in var.ty.fields().unwrap_or(&[]).iter().enumerate() {
                            if f == ty {
                                let field = names.map_or(i.to_string(), |n| n[i].clone());
                                found.push((v, field));
                            }
                        }
                    }
                }
                if found.is_empty() {
                    return None;
                }
                let (v, field) = self.rng.pick(&found).clone();
                let base = self.use_var(v, Use::Read)?;
                Some(E::atom(format!("{}.{field}", base.text)))
            }
            _ => {
                // `unwrap` of an option known to hold a value (or, risky, of any).
                let opt_ty = IrType::option(ty.clone());
                let risky = self.risky();
                let known: Vec<usize> = self
                    .readable(&opt_ty)
                    .into_iter()
                    .filter(|&v| risky || self.fx.vars[v].facts.some)
                    .collect();
                let inner = if !known.is_empty() {
                    let v = *self.rng.pick(&known);
                    self.use_var(v, Use::Consume)?
                } else if risky {
                    self.expr(&opt_ty, Use::Consume, false, depth - 1)
                } else {
                    // Nothing generated is thrown away (it may have hoisted statements
                    // or moved variables), so build what is known to hold a value.
                    let payload = self.expr(ty, Use::Consume, false, depth - 1);
                    E::atom(format!("some({})", payload.at(OR)))
                };
                let _ = how;
                Some(E::atom(format!("unwrap({})", inner.at(OR))))
            }
        }
    }

    // ---------------------------------------------------------------- calls

    /// A call whose result is `ty`.
    fn call_for(&mut self, ty: &IrType, how: Use, decided: bool, depth: u32) -> Option<E> {
        let candidates = self.call_candidates(Some(ty), decided);
        if candidates.is_empty() {
            return None;
        }
        let weights: Vec<u32> = candidates.iter().map(|&i| self.call_weight(i)).collect();
        let callee = candidates[self.rng.weighted(&weights)];
        let _ = how;
        self.call(callee, Some(ty), depth)
    }

    /// How likely callable `i` is among the candidates of a call: the program's own
    /// functions most, and a native that fails (a candidate only when the program takes
    /// a risk) more than the rest, so failures happen in every kind of place.
    pub(crate) fn call_weight(&self, i: usize) -> u32 {
        let c = &self.callables[i];
        if c.generated() {
            6
        } else if matches!(
            c.behavior.fails,
            Fails::Always | Fails::Crash | Fails::Maybe
        ) {
            30
        } else {
            2
        }
    }

    /// The callables that may be called here for a result of `want` (or for any result,
    /// as a statement).
    pub(crate) fn call_candidates(&mut self, want: Option<&IrType>, decided: bool) -> Vec<usize> {
        let left = self.fx.budget.saturating_sub(self.fx.cost);
        let risky = self.risky();
        let mut out = Vec::new();
        for i in 0..self.callables.len() {
            let c = &self.callables[i];
            let is_self = self.fx.self_callable == Some(i);
            // A function calls those generated before it, and itself only when
            // recursive (once, outside loops and their conditions).
            if c.generated()
                && !self.fx.is_main
                && i == self.callables.len() - 1
                && (!is_self
                    || self.fx.recursive_call_written
                    || self.fx.loop_level > 0
                    || self.fx.loop_condition > 0)
            {
                continue;
            }
            match c.behavior.fails {
                Fails::Always | Fails::Maybe if !c.generated() && !risky => continue,
                // A crash ends the program: rarer still than a failure.
                Fails::Crash if !self.config.crashes || !risky || !self.rng.chance(1, 4) => {
                    continue
                }
                _ => {}
            }
            let cost = if is_self { 1 } else { c.cost };
            if cost.saturating_mul(self.fx.mult) > left {
                continue;
            }
            let mut bind = vec![None; c.type_params.len()];
            match (want, &c.result) {
                (Some(w), Some(r)) => {
                    if !self.match_type(r, w, &c.type_params, &mut bind) {
                        continue;
                    }
                }
                (Some(_), None) => continue,
                (None, _) => {}
            }
            if !(c.result_only_params().is_empty() || decided && want.is_some()) {
                continue;
            }
            out.push(i);
        }
        out
    }

    /// A call of `callee` whose result is `want` (bound there), or any result.
    pub(crate) fn call(&mut self, callee: usize, want: Option<&IrType>, depth: u32) -> Option<E> {
        let c = self.callables[callee].clone();
        let mut bind: Vec<Option<IrType>> = vec![None; c.type_params.len()];
        if let (Some(w), Some(r)) = (want, &c.result) {
            if !self.match_type(r, w, &c.type_params, &mut bind) {
                return None;
            }
        }
        for (n, class) in c.type_params.iter().enumerate() {
            if bind[n].is_none() {
                bind[n] = Some(self.type_in_class(*class));
            }
        }
        let bound: Vec<IrType> = bind.into_iter().map(|b| b.expect("bound")).collect();
        let risky = self.risky();
        let is_self = self.fx.self_callable == Some(callee);
        // A guarded index needs its list first: a variable whose length is known.
        let mut forced: Vec<Option<(usize, u32)>> = vec![None; c.params.len()];
        if !risky {
            for &(p, guard) in &c.behavior.guards {
                match guard {
                    Guard::IndexInto { list, inclusive } => {
                        let (mode, lty) = &c.params[list];
                        let lty = lty.substitute(&bound);
                        let pool = if *mode == ParamMode::Mut {
                            self.mut_targets(&lty)
                        } else {
                            self.readable(&lty)
                        };
                        let ok: Vec<usize> = pool
                            .into_iter()
                            .filter(|&v| inclusive || self.fx.vars[v].facts.min_len > 0)
                            .collect();
                        if ok.is_empty() {
                            return None;
                        }
                        let v = *self.rng.pick(&ok);
                        let len = self.fx.vars[v].facts.min_len;
                        forced[list] = Some((v, 0));
                        let top = if inclusive {
                            len as u64 + 1
                        } else {
                            len as u64
                        };
                        forced[p] = Some((usize::MAX, self.rng.below(top) as u32));
                    }
                    Guard::NotMin => {
                        let t = c.params[p].1.substitute(&bound);
                        if matches!(t, IrType::Param(_)) {
                            return None;
                        }
                    }
                    Guard::Zero | Guard::Tiny => {}
                }
            }
        }
        // The one recursive call is this one: its arguments may not call the function
        // again (`r(d - 1, r(d - 1, x))` makes 2^d calls).
        if is_self {
            self.fx.recursive_call_written = true;
        }
        let sub = depth.saturating_sub(1);
        // A call that may write an owned value through `mut`/`out`, in code that runs
        // many times, reads nothing of weight (`Generator::weigh`): what it writes may
        // be a carried value, and it may write what it read into it.
        let writes_owned = c
            .params
            .iter()
            .any(|(m, t)| matches!(m, ParamMode::Mut | ParamMode::Out) && !t.is_copy());
        let limit = if writes_owned && self.in_carried_context() {
            0
        } else {
            u32::MAX
        };
        self.fx.call_nesting += 1;
        let ((args, changed, sealed), weight) = self.weighed(limit, |g| {
            g.arguments(&c, &bound, &forced, risky, is_self, sub)
        });
        self.fx.call_nesting -= 1;
        // What a call may do to the variables it changes.
        for v in changed {
            self.weigh_into(v, weight.saturating_mul(2));
            let var = &mut self.fx.vars[v];
            var.state = VState::Live;
            // A string handed on `mut` may come back any string (a shorter one).
            let shrinks = c.behavior.may_shrink || var.ty == IrType::String;
            if shrinks || c.params.iter().any(|(m, _)| *m == ParamMode::Out) {
                var.facts = Facts::default();
            } else {
                var.facts.some = false;
            }
        }
        for v in sealed {
            self.fx.vars[v].state = VState::Moved;
        }
        if !is_self && !c.recursive {
            self.fx.cost += c.cost * self.fx.mult;
        }
        self.used[self.file].insert(callee);
        Some(E::atom(format!("{}({})", c.name, args.join(", "))))
    }

    /// The arguments of a call of `c` with its type parameters `bound`: their texts,
    /// the variables the call changes, and those a call of the function itself wrote
    /// through (never read again).
    fn arguments(
        &mut self,
        c: &Callable,
        bound: &[IrType],
        forced: &[Option<(usize, u32)>],
        risky: bool,
        is_self: bool,
        sub: u32,
    ) -> (Vec<String>, Vec<usize>, Vec<usize>) {
        let mut args = Vec::new();
        let mut changed = Vec::new();
        let mut sealed = Vec::new();
        for (p, (mode, pty)) in c.params.iter().enumerate() {
            let t = pty.substitute(bound);
            let decided = !pty.mentions_param();
            if is_self && p == 0 {
                args.push("d - 1".to_string());
                continue;
            }
            if c.recursive && p == 0 {
                let deep = self.fx.is_main
                    && self.fx.loop_level == 0
                    && self.fx.block_depth == 0
                    && self.rng.chance(1, 8);
                let per = (c.cost / (super::MAX_RECURSION_DEPTH + 1)).max(1);
                let left = self.fx.budget.saturating_sub(self.fx.cost) / self.fx.mult;
                let top = if deep {
                    super::DEEP_RECURSION_DEPTH
                } else {
                    super::MAX_RECURSION_DEPTH
                }
                .min(left / per)
                .max(1)
                    - 1;
                let d = self.rng.range(0, top);
                // The whole cost of this call, not the estimate for the usual depth.
                self.fx.cost += per * (d + 1) * self.fx.mult;
                args.push(d.to_string());
                continue;
            }
            if let Some((v, index)) = forced[p] {
                if v == usize::MAX {
                    args.push(int_literal(&t, index as i128, true, 10).text);
                } else {
                    self.touch(v);
                    let name = self.fx.vars[v].name.clone();
                    let word = if *mode == ParamMode::Mut {
                        self.fx.stmt_exclusive.insert(v);
                        changed.push(v);
                        "mut "
                    } else {
                        "ref "
                    };
                    args.push(format!("{word}{name}"));
                }
                continue;
            }
            if let Some(limit) = c.behavior.limit_of(p) {
                let text = match limit {
                    Limit::Small(max) => {
                        int_literal(&t, self.rng.range(0, max) as i128, true, 10).text
                    }
                    Limit::ThousandfoldFits => {
                        let e = self.expr(&t, Use::Read, true, sub);
                        E::binary(&e, ">>", &int_literal(&t, 24, true, 10), SHIFT).text
                    }
                };
                args.push(text);
                continue;
            }
            if !risky {
                match c.behavior.guard_of(p) {
                    Some(Guard::Zero) => {
                        args.push(int_literal(&t, 0, true, 10).text);
                        continue;
                    }
                    Some(Guard::Tiny) => {
                        args.push(int_literal(&t, self.rng.below(2) as i128, true, 10).text);
                        continue;
                    }
                    Some(Guard::NotMin) if t.is_signed() => {
                        let e = self.expr(&t, Use::Read, decided, sub);
                        args.push(E::binary(&e, ">>", &int_literal(&t, 1, true, 10), SHIFT).text);
                        continue;
                    }
                    _ => {}
                }
            }
            // An owned value never crosses a level of the recursion: what one level
            // passes down or gets back would be grown again by the next
            // (`set p = p ++ p` before `r(d - 1, mut p)` makes 2^depth bytes, which no
            // memory holds; so does `r(d - 1, ref p ++ p)`). The function itself passes
            // a literal, `in` or `ref`, or a fresh `var` holding one, `mut` or `out`, and
            // never reads that `var` again.
            if is_self && !t.is_copy() {
                let value = self.construct(&t, Use::Consume, decided, 0);
                match mode {
                    ParamMode::In => {
                        args.push(value.at(OR));
                        continue;
                    }
                    ParamMode::Ref => {
                        args.push(format!("ref {}", value.at(OR)));
                        continue;
                    }
                    ParamMode::Mut | ParamMode::Out => {}
                }
                let v = self.fresh_var(&t, value);
                self.touch(v);
                self.fx.stmt_exclusive.insert(v);
                let word = if *mode == ParamMode::Mut {
                    "mut"
                } else {
                    "out"
                };
                args.push(format!("{word} {}", self.fx.vars[v].name));
                sealed.push(v);
                continue;
            }
            match mode {
                ParamMode::In => {
                    args.push(self.expr(&t, Use::Consume, decided, sub).at(OR));
                }
                ParamMode::Ref => {
                    let e = self.expr(&t, Use::Read, decided, sub);
                    args.push(format!("ref {}", e.at(OR)));
                }
                ParamMode::Mut => {
                    let v = self.mut_target(&t, sub);
                    changed.push(v);
                    args.push(format!("mut {}", self.fx.vars[v].name));
                }
                ParamMode::Out => {
                    let v = self.out_target(&t, sub);
                    changed.push(v);
                    args.push(format!("out {}", self.fx.vars[v].name));
                }
            }
        }
        (args, changed, sealed)
    }

    /// A variable to pass `mut`: one that may be, or a fresh `var` written just before.
    fn mut_target(&mut self, ty: &IrType, depth: u32) -> usize {
        let targets = self.mut_targets(ty);
        let fresh = targets.is_empty() || self.rng.chance(1, 3);
        self.fresh_or(targets, fresh, ty, depth)
    }

    /// One of `targets`, or (when `fresh`) a `var` written just before the statement.
    fn fresh_or(&mut self, targets: Vec<usize>, fresh: bool, ty: &IrType, depth: u32) -> usize {
        let picked = if fresh {
            None
        } else {
            Some(*self.rng.pick(&targets))
        };
        let v = if let Some(v) = picked.filter(|&v| self.weigh_mut_argument(v)) {
            v
        } else {
            let (value, weight) = self.weighed(u32::MAX, |g| g.expr(ty, Use::Consume, true, depth));
            let v = self.fresh_var(ty, value);
            self.weigh_into(v, weight);
            v
        };
        self.touch(v);
        self.fx.stmt_exclusive.insert(v);
        v
    }

    /// A fresh `var` of `ty` holding `value`, written just before the statement.
    fn fresh_var(&mut self, ty: &IrType, value: E) -> usize {
        let name = self.fresh_name("m");
        let text = format!("var {name}: {} = {}", self.ty_text(ty), value.text);
        self.fx.pending.push(Stmt::Line(text));
        let v = self.declare(name, ty.clone(), VarKind::Var, VState::Live);
        self.fx.vars[v].facts = value.facts;
        v
    }

    /// A variable to pass `out`: any `var` of the type (initialized or not), or a fresh
    /// uninitialized one.
    fn out_target(&mut self, ty: &IrType, depth: u32) -> usize {
        let mut targets = self.out_targets(ty);
        if self.fx.conditional > 0 {
            targets.retain(|&v| self.fx.vars[v].state == VState::Live);
            let fresh = targets.is_empty();
            return self.fresh_or(targets, fresh, ty, depth);
        }
        let v = if !targets.is_empty() && self.rng.chance(1, 2) {
            *self.rng.pick(&targets)
        } else {
            let name = self.fresh_name("o");
            let text = format!("var {name}: {}", self.ty_text(ty));
            self.fx.pending.push(Stmt::Line(text));
            self.declare(name, ty.clone(), VarKind::Var, VState::Uninit)
        };
        self.touch(v);
        self.fx.stmt_exclusive.insert(v);
        v
    }
}

/// Whether `ty` has a literal (nothing in it is a type parameter).
pub(crate) fn literal_able(ty: &IrType) -> bool {
    !ty.mentions_param()
}

/// Whether a class admits `ty` on its face (for types without parameters).
#[allow(dead_code)]
pub(crate) fn class_admits(class: TypeClass, ty: &IrType) -> bool {
    class.admits(ty)
}
