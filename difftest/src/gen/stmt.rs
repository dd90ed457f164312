//! Statements: declarations, assignments, list updates, branches, bounded loops with
//! `break` and `continue`, early returns, `debuglog`, and calls made for what they change.
//!
//! Ownership across branches and loops follows the front end's checker: each arm starts
//! from the state before it and the states meet after (moved on any path is moved;
//! initialized only if initialized on every path); a loop body may not move what was
//! declared outside it, and what it does to outer variables is forgotten after it.

use datalove_ir::{IrType, ParamMode};

use super::text::*;
use super::{Generator, Use, VState, VarKind};

impl Generator<'_> {
    /// One statement (and whatever it hoisted before it) appended to `out`.
    pub(crate) fn statement(&mut self, out: &mut Vec<Stmt>) {
        let in_loop = self.fx.loop_level > 0;
        let nest = self.fx.block_depth < self.config.max_block_depth;
        let depth = self.config.max_expr_depth;
        let weights = [
            20,                                                 // debuglog
            22,                                                 // let
            8,                                                  // var
            10,                                                 // set
            4,                                                  // set xs[i]
            5,                                                  // push
            if nest { 10 } else { 0 },                          // if
            if nest { 7 } else { 0 },                           // loop
            12,                                                 // call
            if in_loop && nest { 4 } else { 0 },                // break / continue
            if !self.fx.is_main && nest { 2 } else { 0 },       // early ret
            3,                                                  // uninitialized var, written after
            2,                                                  // move, then assign again
            if nest && !self.enums.is_empty() { 6 } else { 0 }, // match
            if nest { 3 } else { 0 },                           // if c: a step of one
            if nest { 2 } else { 0 },                           // a map or sort of many
        ];
        self.begin_stmt();
        self.fx.cost += self.fx.mult;
        match self.rng.weighted(&weights) {
            0 => {
                let ty = self.random_type(2);
                let e = self.expr(&ty, Use::Read, false, depth);
                self.line(out, format!("debuglog {}", e.text));
            }
            1 | 2 => {
                let kind = if self.rng.chance(3, 4) {
                    VarKind::Let
                } else {
                    VarKind::Var
                };
                self.declaration(kind, out);
            }
            3 => self.assignment(out),
            4 => self.set_element(out),
            5 => self.push(out),
            6 => self.branch(out),
            7 => self.counted_loop(out),
            8 => self.call_for_effect(out),
            9 => {
                let jump = if self.rng.chance(1, 2) {
                    "break"
                } else {
                    "continue"
                };
                self.jump_if(jump.to_string(), out);
            }
            10 => self.early_return(out),
            11 => self.declare_then_write(out),
            12 => self.move_and_reassign(out),
            13 => self.match_enum(out),
            14 => self.conditional_step(out),
            _ => self.bulk_collection(out),
        }
    }

    /// A map or a sorted list of many elements, enough to split the runtime's B-tree
    /// nodes (11 entries each) over two or three levels: a loop of 12 to 300 passes that
    /// inserts keys in a scattered order (`(j *% P) % M`, of an integer type, a string,
    /// a float or a tuple) and removes one every third pass, or pushes them; then the map
    /// or the sorted list is printed whole. Self-contained: it reads and writes none of
    /// the generator's variables.
    fn bulk_collection(&mut self, out: &mut Vec<Stmt>) {
        let left = self.fx.budget.saturating_sub(self.fx.cost);
        let most = (left / (self.fx.mult * 6)).min(300);
        if most < 12 {
            return self.declaration(VarKind::Let, out);
        }
        let passes = self.rng.range(12, most);
        self.fx.cost += self.fx.mult * passes * 6;
        let int_ty = self.random_int_type();
        // How many distinct keys: as many as the integer type holds, or fewer than the
        // passes so that some are inserted again.
        let type_max: u64 = match int_ty {
            IrType::U8 => 255,
            IrType::I8 => 127,
            _ => 30_000,
        };
        let distinct = self.rng.range(passes / 2 + 1, passes + 40).min(type_max);
        let step = *self.rng.pick(&[7u64, 13, 31, 7919, 104_729]);
        let int_text = self.ty_text(&int_ty);
        let j = self.fresh_name("j");
        let key_of = |at: &str, kind: usize| -> (String, String) {
            let base = format!("(({at} *% {step}) % {distinct})");
            match kind {
                0 => (int_text.clone(), format!("{base} as {int_text}")),
                1 => ("string".into(), format!("format(\"k{{}}\", {base})")),
                2 => ("f64".into(), format!("{base} as f64 / 4.0 - 20.0")),
                _ => (
                    format!("({int_text}, string)"),
                    format!("({base} as {int_text} / 3, format(\"{{}}\", {base} % 5))"),
                ),
            }
        };
        let kind = self.rng.weighted(&[5, 2, 1, 2]);
        let (key_ty, key) = key_of(&j, kind);
        let name = self.fresh_name("bulk");
        let mut body = Vec::new();
        let mut after = Vec::new();
        let start = if self.rng.chance(1, 2) {
            let new = self.library_call("maps", "new");
            let insert = self.library_call("maps", "insert");
            let remove = self.library_call("maps", "remove");
            let (value_ty, value) = if self.rng.chance(1, 2) {
                ("index".to_string(), j.clone())
            } else {
                ("string".to_string(), format!("format(\"v{{}}\", {j})"))
            };
            body.push(Stmt::Line(format!("{insert}(mut {name}, {key}, {value})")));
            let (_, gone) = key_of(&format!("({j} / 3)"), kind);
            let dropped = self.fresh_name("gone");
            body.push(Stmt::when(
                format!("{j} % 3 == 0"),
                vec![Stmt::Line(format!(
                    "let {dropped} = {remove}(mut {name}, ref {gone})"
                ))],
            ));
            format!("var {name}: map[{key_ty}, {value_ty}] = {new}()")
        } else {
            let push = self.library_call("lists", "push");
            let sort = self.library_call("lists", "sort");
            body.push(Stmt::Line(format!("{push}(mut {name}, {key})")));
            after.push(Stmt::Line(format!("{sort}(mut {name})")));
            format!("var {name}: [{key_ty}] = []")
        };
        body.push(Stmt::Line(format!("set {j} = {j} + 1")));
        self.flush_pending(out);
        out.push(Stmt::Line(start));
        out.push(Stmt::Line(format!("var {j}: index = 0")));
        out.push(Stmt::Loop {
            cond: Some(format!("{j} < {passes}")),
            body,
        });
        out.append(&mut after);
        out.push(Stmt::Line(format!("debuglog {name}")));
    }

    /// `if cond` / `set v = v + 1` (or `1 + v`, `-`, `+%`, `-%`) / `end if` on an integer
    /// variable: the shape `ir::ifconv` turns into the addition of `cond`.
    fn conditional_step(&mut self, out: &mut Vec<Stmt>) {
        let targets: Vec<usize> = self
            .set_targets()
            .into_iter()
            .filter(|&v| {
                let var = &self.fx.vars[v];
                var.state == VState::Live && var.ty.is_integer()
            })
            .collect();
        if targets.is_empty() {
            return self.assignment(out);
        }
        let v = *self.rng.pick(&targets);
        let cond = self
            .expr(&IrType::Bool, Use::Read, true, self.config.max_expr_depth)
            .text;
        let name = self.fx.vars[v].name.clone();
        let op = *self.rng.pick(&["+", "+", "-", "+%", "-%"]);
        let step = if op == "+" && self.rng.chance(1, 3) {
            format!("set {name} = 1 + {name}")
        } else {
            format!("set {name} = {name} {op} 1")
        };
        self.flush_pending(out);
        out.push(Stmt::when(cond, vec![Stmt::Line(step)]));
    }

    /// Appends `text` as a line after the statements it hoisted.
    fn line(&mut self, out: &mut Vec<Stmt>, text: String) {
        self.flush_pending(out);
        out.push(Stmt::Line(text));
    }

    /// A nested block: its own scope, and its own hoisted statements.
    fn block(&mut self, max: u64) -> Vec<Stmt> {
        let outer_pending = std::mem::take(&mut self.fx.pending);
        self.push_scope();
        self.fx.block_depth += 1;
        let mut body = Vec::new();
        let n = self.rng.below(max + 1);
        for _ in 0..n {
            self.statement(&mut body);
        }
        self.fx.block_depth -= 1;
        self.pop_scope();
        self.fx.pending = outer_pending;
        body
    }

    fn block_size(&self) -> u64 {
        (self.config.block_statements / (1 + self.fx.block_depth as u64)).max(1)
    }

    /// `let` or `var`, annotated or (for a plain variable, clone or literal) not.
    fn declaration(&mut self, kind: VarKind, out: &mut Vec<Stmt>) {
        let word = if kind == VarKind::Let { "let" } else { "var" };
        let name = self.fresh_name("v");
        // Now and then a declaration whose value says its own type.
        if self.rng.chance(1, 5) {
            let candidates: Vec<usize> = (0..self.fx.vars.len())
                .filter(|&v| {
                    let var = &self.fx.vars[v];
                    var.visible && var.state == VState::Live
                })
                .collect();
            if !candidates.is_empty() {
                let v = *self.rng.pick(&candidates);
                let ty = self.fx.vars[v].ty.clone();
                let weight = self.read_weight(v);
                if let Some(e) = self.use_var(v, Use::Consume) {
                    self.line(out, format!("{word} {name} = {}", e.text));
                    let id = self.declare(name, ty, kind, VState::Live);
                    self.fx.vars[id].facts = e.facts;
                    self.weigh_into(id, weight);
                    return;
                }
            }
        }
        let ty = self.random_type(2);
        let (e, weight) = self.weighed_expr(&ty, false);
        let text = format!("{word} {name}: {} = {}", self.ty_text(&ty), e.text);
        self.line(out, text);
        let id = self.declare(name, ty, kind, VState::Live);
        self.fx.vars[id].facts = e.facts;
        self.weigh_into(id, weight);
    }

    /// A value of `ty` to write into a variable (a carried one when `carried`: then it
    /// weighs at most 1, see `Generator::weigh`), and its weight.
    fn weighed_expr(&mut self, ty: &IrType, carried: bool) -> (E, u32) {
        let limit = if carried { 1 } else { u32::MAX };
        let depth = self.config.max_expr_depth;
        self.weighed(limit, |g| g.expr(ty, Use::Consume, true, depth))
    }

    /// Variables `set` may write: `var`s and `mut`/`out` parameters.
    fn set_targets(&self) -> Vec<usize> {
        (0..self.fx.vars.len())
            .filter(|&v| {
                let var = &self.fx.vars[v];
                var.visible
                    && !var.reserved
                    && matches!(
                        var.kind,
                        VarKind::Var | VarKind::Param(ParamMode::Mut | ParamMode::Out)
                    )
            })
            .collect()
    }

    /// `set v = e`: the old value (if any) is dropped, a moved or unwritten `var` gets one.
    fn assignment(&mut self, out: &mut Vec<Stmt>) {
        let targets = self.set_targets();
        if targets.is_empty() {
            return self.declaration(VarKind::Var, out);
        }
        let v = *self.rng.pick(&targets);
        let ty = self.fx.vars[v].ty.clone();
        let (e, weight) = self.weighed_expr(&ty, self.carried(v));
        let text = format!("set {} = {}", self.fx.vars[v].name, e.text);
        self.line(out, text);
        self.weigh_into(v, weight);
        let var = &mut self.fx.vars[v];
        var.state = VState::Live;
        var.facts = e.facts;
    }

    /// `set xs[i] = e` on a list whose length is known (or, risky, any).
    fn set_element(&mut self, out: &mut Vec<Stmt>) {
        let risky = self.risky();
        let targets: Vec<usize> = self
            .set_targets()
            .into_iter()
            .filter(|&v| {
                let var = &self.fx.vars[v];
                var.state == VState::Live
                    && matches!(var.ty, IrType::List(_))
                    && (risky || var.facts.min_len > 0)
            })
            .collect();
        if targets.is_empty() {
            return self.push(out);
        }
        let v = *self.rng.pick(&targets);
        let IrType::List(elem) = self.fx.vars[v].ty.clone() else {
            unreachable!("a list")
        };
        self.touch(v);
        self.fx.stmt_exclusive.insert(v);
        let min = self.fx.vars[v].facts.min_len;
        let index = if min > 0 && !risky {
            int_literal(&IrType::Index, self.rng.below(min as u64) as i128, true, 10)
        } else {
            self.expr(&IrType::Index, Use::Read, true, 1)
        };
        let (e, weight) = self.weighed_element(&elem, v);
        self.weigh_into(v, weight);
        let text = format!("set {}[{}] = {}", self.fx.vars[v].name, index.text, e.text);
        self.line(out, text);
    }

    /// `push(mut xs, e)`.
    fn push(&mut self, out: &mut Vec<Stmt>) {
        let lists: Vec<usize> = (0..self.fx.vars.len())
            .filter(|&v| matches!(self.fx.vars[v].ty, IrType::List(_)))
            .collect();
        let targets: Vec<usize> = lists
            .into_iter()
            .filter(|&v| self.mut_targets(&self.fx.vars[v].ty.clone()).contains(&v))
            .collect();
        if targets.is_empty() {
            return self.declaration(VarKind::Var, out);
        }
        let v = *self.rng.pick(&targets);
        let IrType::List(elem) = self.fx.vars[v].ty.clone() else {
            unreachable!("a list")
        };
        self.touch(v);
        self.fx.stmt_exclusive.insert(v);
        let (e, weight) = self.weighed_element(&elem, v);
        self.weigh_into(v, weight);
        let text = format!("push(mut {}, {})", self.fx.vars[v].name, e.text);
        self.line(out, text);
        self.fx.vars[v].facts.min_len += 1;
    }

    /// An element of type `elem` to write into list `v`, and its weight (at most 1
    /// when `v` is carried, see `Generator::weigh`).
    fn weighed_element(&mut self, elem: &IrType, v: usize) -> (E, u32) {
        let limit = if self.carried(v) { 1 } else { u32::MAX };
        let depth = self.config.max_expr_depth;
        self.weighed(limit, |g| g.expr(elem, Use::Consume, false, depth))
    }

    /// `if` with `else if` arms and an `else`, the states of the arms met after it.
    fn branch(&mut self, out: &mut Vec<Stmt>) {
        let arms = 1 + self.rng.weighted(&[6, 2, 1]);
        // Every condition first: their hoisted statements run before the `if`, so
        // nothing they do may come after what an arm already counted on.
        let conds: Vec<String> = (0..arms)
            .map(|k| {
                self.fx.conditional += (k > 0) as u32;
                let cond = self
                    .expr(&IrType::Bool, Use::Read, true, self.config.max_expr_depth)
                    .text;
                self.fx.conditional -= (k > 0) as u32;
                cond
            })
            .collect();
        let has_else = self.rng.chance(1, 2);
        let before = self.snapshot();
        let mut after: Option<Vec<(VState, super::text::Facts)>> = None;
        let mut bodies = Vec::new();
        let size = self.block_size();
        for _ in 0..arms + has_else as usize {
            self.restore(&before);
            let body = self.block(size);
            let state = self.snapshot();
            after = Some(match after {
                None => state,
                Some(prev) => meet(&prev, &state),
            });
            bodies.push(body);
        }
        let mut merged = after.expect("at least one arm");
        if !has_else {
            merged = meet(&merged, &before);
        }
        self.restore(&merged);
        let else_body = has_else.then(|| bodies.pop().expect("the else body"));
        self.flush_pending(out);
        out.push(Stmt::If {
            arms: conds.into_iter().zip(bodies).collect(),
            else_body,
        });
    }

    /// `match e` over one of the program's enums (the value consumed): an arm for some
    /// variants, in declaration order or reversed, each binding its payload's fields (or
    /// `_`) as `let`s of the arm; a `case _` last when any variant has no arm of its own.
    fn match_enum(&mut self, out: &mut Vec<Stmt>) {
        let e = self.rng.pick(&self.enums).clone();
        let ty = IrType::Enum(Box::new(e.clone()));
        let depth = self.config.max_expr_depth;
        let scrutinee = self.expr(&ty, Use::Consume, false, depth).text;
        let mut explicit: Vec<Option<usize>> = (0..e.variant_count())
            .filter(|_| self.rng.chance(3, 4))
            .map(Some)
            .collect();
        if self.rng.chance(1, 3) {
            explicit.reverse();
        }
        if explicit.len() < e.variant_count() {
            explicit.push(None);
        }
        let before = self.snapshot();
        let mut after: Option<Vec<(VState, Facts)>> = None;
        let mut arms = Vec::new();
        let size = self.block_size();
        for arm in explicit {
            self.restore(&before);
            let outer_pending = std::mem::take(&mut self.fx.pending);
            self.push_scope();
            self.fx.block_depth += 1;
            let pattern = match arm {
                None => "case _".to_string(),
                Some(v) => {
                    let names: Vec<String> = e
                        .variant_fields(v)
                        .iter()
                        .map(|field| {
                            if self.rng.chance(1, 4) {
                                return "_".to_string();
                            }
                            let name = self.fresh_name("b");
                            self.declare(name.clone(), field.clone(), VarKind::Let, VState::Live);
                            name
                        })
                        .collect();
                    match names.is_empty() {
                        true => format!("case {}", e.variant_names[v]),
                        false => format!("case {}({})", e.variant_names[v], names.join(", ")),
                    }
                }
            };
            let mut body = Vec::new();
            for _ in 0..self.rng.below(size + 1) {
                self.statement(&mut body);
            }
            self.fx.block_depth -= 1;
            self.pop_scope();
            self.fx.pending = outer_pending;
            let state = self.snapshot();
            after = Some(match after {
                None => state,
                Some(prev) => meet(&prev, &state),
            });
            arms.push((pattern, body));
        }
        self.restore(&after.expect("at least one arm"));
        self.flush_pending(out);
        out.push(Stmt::Match { scrutinee, arms });
    }

    /// A loop counting to a small bound: `loop while i < K` or `loop` with a `break`; now
    /// and then a loop over a list's indices instead ([`Self::indexed_loop`]).
    fn counted_loop(&mut self, out: &mut Vec<Stmt>) {
        let left = self.fx.budget.saturating_sub(self.fx.cost);
        let max_bound = (left / (self.fx.mult * 8)).min(5);
        if max_bound == 0 {
            return self.declaration(VarKind::Let, out);
        }
        if self.rng.chance(1, 3) && self.indexed_loop(max_bound, out) {
            return;
        }
        let bound = self.rng.range(0, max_bound);
        let counter = self.fresh_name("i");
        let counter_ty = self.random_int_type();
        let ty_text = self.ty_text(&counter_ty);
        self.flush_pending(out);
        out.push(Stmt::Line(format!("var {counter}: {ty_text} = 0")));
        let c = self.declare(counter.clone(), counter_ty, VarKind::Var, VState::Live);
        self.fx.vars[c].reserved = true;
        let before = self.enter_loop();
        let while_form = self.rng.chance(2, 3);
        let mut cond = None;
        if while_form {
            let mut text = format!("{counter} < {bound}");
            if self.rng.chance(1, 4) {
                // It runs on every pass, so what it calls costs that many times.
                self.fx.no_moves += 1;
                self.fx.conditional += 1;
                self.fx.loop_condition += 1;
                self.fx.mult *= bound + 1;
                let extra = self.expr(&IrType::Bool, Use::Read, true, 1);
                self.fx.mult /= bound + 1;
                self.fx.loop_condition -= 1;
                self.fx.conditional -= 1;
                self.fx.no_moves -= 1;
                text = format!("{text} and {}", extra.at(AND + 1));
            }
            self.flush_pending(out);
            cond = Some(text);
        }
        let mut body = vec![Stmt::Line(format!("set {counter} = {counter} + 1"))];
        if !while_form {
            body.push(Stmt::when(
                format!("{counter} > {bound}"),
                vec![Stmt::Line("break".into())],
            ));
        }
        self.loop_body(bound + 1, &mut body);
        self.leave_loop(&before);
        out.push(Stmt::Loop { cond, body });
    }

    /// Starts a loop's condition and body: facts about the variables visible here do
    /// not survive the passes. Returns the state to go back to after the loop.
    fn enter_loop(&mut self) -> Vec<(VState, Facts)> {
        let before = self.snapshot();
        self.forget_visible_facts();
        before
    }

    fn forget_visible_facts(&mut self) {
        for var in self.fx.vars.iter_mut().filter(|v| v.visible) {
            var.facts = Facts::default();
        }
    }

    /// Appends a block to a loop's `body`, which runs up to `passes` times.
    fn loop_body(&mut self, passes: u64, body: &mut Vec<Stmt>) {
        self.fx.loop_level += 1;
        self.fx.mult *= passes;
        let size = self.block_size();
        let mut inner = self.block(size);
        body.append(&mut inner);
        self.fx.mult /= passes;
        self.fx.loop_level -= 1;
    }

    /// Ends a loop: the state from before it, its facts forgotten again.
    fn leave_loop(&mut self, before: &[(VState, Facts)]) {
        self.restore(before);
        self.forget_visible_facts();
    }

    /// A loop over the indices of a list `xs`, the shape the IR's bounds pass proves or
    /// copies behind a guard (`datalove_ir::bounds`): `var j: index = 0`, then `loop while
    /// j < len(xs)` (the list kept as it is: no statement inside may write it) or `loop
    /// while j < K` / `j <= K` (the body may write or grow the list, and `j` may pass its
    /// end: a runtime error, the same with and without the passes), whose body reads
    /// `xs[j]`, steps `j`, then runs a block. Whether there was a list to loop over.
    fn indexed_loop(&mut self, max_bound: u64, out: &mut Vec<Stmt>) -> bool {
        let lists: Vec<usize> = (0..self.fx.vars.len())
            .filter(|&v| {
                let var = &self.fx.vars[v];
                var.visible && var.state == VState::Live && matches!(var.ty, IrType::List(_))
            })
            .collect();
        if lists.is_empty() {
            return false;
        }
        let v = *self.rng.pick(&lists);
        let list = self.fx.vars[v].name.clone();
        let by_len = self.rng.chance(1, 3);
        // A list read to its length runs as many passes as it has elements: at most
        // the list lengths a generated program reaches, counted as the largest bound.
        let bound = if by_len {
            max_bound
        } else {
            self.rng.range(0, max_bound)
        };
        let counter = self.fresh_name("j");
        self.flush_pending(out);
        out.push(Stmt::Line(format!("var {counter}: index = 0")));
        let c = self.declare(counter.clone(), IrType::Index, VarKind::Var, VState::Live);
        self.fx.vars[c].reserved = true;
        let cond = if by_len {
            format!("{counter} < len({list})")
        } else if self.rng.chance(1, 2) {
            format!("{counter} < {bound}")
        } else {
            format!("{counter} <= {bound}")
        };
        let was_reserved = self.fx.vars[v].reserved;
        self.fx.vars[v].reserved |= by_len;
        let before = self.enter_loop();
        let mut body = vec![
            Stmt::Line(format!("debuglog {list}[{counter}]")),
            Stmt::Line(format!("set {counter} = {counter} + 1")),
        ];
        self.loop_body(bound + 1, &mut body);
        self.leave_loop(&before);
        self.fx.vars[v].reserved = was_reserved;
        out.push(Stmt::Loop {
            cond: Some(cond),
            body,
        });
        true
    }

    /// `if cond` ... `JUMP` `end if`: the code after sees the state from before the `if`.
    fn jump_if(&mut self, jump: String, out: &mut Vec<Stmt>) {
        let cond = self
            .expr(&IrType::Bool, Use::Read, true, self.config.max_expr_depth)
            .text;
        let before = self.snapshot();
        let mut body = self.block(1);
        body.push(Stmt::Line(jump));
        self.restore(&before);
        self.flush_pending(out);
        out.push(Stmt::when(cond, body));
    }

    /// `if cond` ... `ret value` `end if`.
    fn early_return(&mut self, out: &mut Vec<Stmt>) {
        let cond = self
            .expr(&IrType::Bool, Use::Read, true, self.config.max_expr_depth)
            .text;
        let before = self.snapshot();
        let outer_pending = std::mem::take(&mut self.fx.pending);
        self.push_scope();
        self.fx.block_depth += 1;
        let mut body = Vec::new();
        if self.rng.chance(1, 2) {
            self.statement(&mut body);
        }
        self.begin_stmt();
        let ret = match self.fx.result.clone() {
            Some(r) => {
                let e = self.expr(&r, Use::Consume, true, 2);
                format!("ret {}", e.text)
            }
            None => "ret".to_string(),
        };
        self.flush_pending(&mut body);
        body.push(Stmt::Line(ret));
        self.fx.block_depth -= 1;
        self.pop_scope();
        self.fx.pending = outer_pending;
        self.restore(&before);
        self.flush_pending(out);
        out.push(Stmt::when(cond, body));
    }

    /// A call made for what it does to its `mut`/`out` arguments (or for its failure),
    /// its result dropped; the changed variables printed after.
    fn call_for_effect(&mut self, out: &mut Vec<Stmt>) {
        let candidates = self.call_candidates(None, false);
        if candidates.is_empty() {
            return self.declaration(VarKind::Let, out);
        }
        let weights: Vec<u32> = candidates
            .iter()
            .map(|&i| {
                let changes = self.callables[i]
                    .params
                    .iter()
                    .any(|(m, _)| matches!(m, ParamMode::Mut | ParamMode::Out));
                self.call_weight(i) * if changes { 6 } else { 1 }
            })
            .collect();
        let callee = candidates[self.rng.weighted(&weights)];
        let Some(call) = self.call(callee, None, self.config.max_expr_depth) else {
            return self.declaration(VarKind::Let, out);
        };
        let changed: Vec<usize> = self.fx.stmt_exclusive.iter().copied().collect();
        self.line(out, call.text);
        for v in changed {
            if self.rng.chance(1, 2) && self.fx.vars[v].state == VState::Live {
                out.push(Stmt::Line(format!("debuglog {}", self.fx.vars[v].name)));
            }
        }
    }

    /// `var v: T` with no value, written by `set` on the next line or in both arms of
    /// an `if`.
    fn declare_then_write(&mut self, out: &mut Vec<Stmt>) {
        let ty = self.random_type(2);
        let name = self.fresh_name("u");
        self.flush_pending(out);
        out.push(Stmt::Line(format!("var {name}: {}", self.ty_text(&ty))));
        let v = self.declare(name.clone(), ty.clone(), VarKind::Var, VState::Uninit);
        self.begin_stmt();
        let depth = self.config.max_expr_depth;
        if self.rng.chance(1, 2) {
            let (e, weight) = self.weighed_expr(&ty, false);
            self.line(out, format!("set {name} = {}", e.text));
            self.fx.vars[v].facts = e.facts;
            self.weigh_into(v, weight);
        } else {
            let cond = self.expr(&IrType::Bool, Use::Read, true, depth).text;
            let before = self.snapshot();
            let mut arms = Vec::new();
            let mut states = Vec::new();
            for _ in 0..2 {
                self.restore(&before);
                self.begin_stmt();
                let outer_pending = std::mem::take(&mut self.fx.pending);
                self.push_scope();
                let (e, weight) = self.weighed_expr(&ty, false);
                self.weigh_into(v, weight);
                let mut body = Vec::new();
                self.flush_pending(&mut body);
                body.push(Stmt::Line(format!("set {name} = {}", e.text)));
                self.pop_scope();
                self.fx.pending = outer_pending;
                self.fx.vars[v].facts = e.facts;
                self.fx.vars[v].state = VState::Live;
                states.push(self.snapshot());
                arms.push(body);
            }
            let merged = meet(&states[0], &states[1]);
            self.restore(&merged);
            let else_body = arms.pop();
            self.flush_pending(out);
            out.push(Stmt::If {
                arms: vec![(cond, arms.pop().expect("the then arm"))],
                else_body,
            });
        }
        self.fx.vars[v].state = VState::Live;
    }

    /// `let w = v` (a move) and then `set v = ...`: a `var` emptied and filled again.
    /// Inside a loop the `var` may be one declared outside it: written again before the
    /// iteration ends, it holds a value at the loop's head on every iteration.
    fn move_and_reassign(&mut self, out: &mut Vec<Stmt>) {
        let candidates: Vec<usize> = (0..self.fx.vars.len())
            .filter(|&v| {
                let var = &self.fx.vars[v];
                var.kind == VarKind::Var
                    && (self.movable(v)
                        || (var.visible
                            && var.state == VState::Live
                            && !var.ty.is_copy()
                            && !var.reserved
                            && self.fx.no_moves == 0))
            })
            .collect();
        if candidates.is_empty() {
            return self.declaration(VarKind::Var, out);
        }
        let v = *self.rng.pick(&candidates);
        let ty = self.fx.vars[v].ty.clone();
        let name = self.fx.vars[v].name.clone();
        let moved_to = self.fresh_name("w");
        out.push(Stmt::Line(format!("let {moved_to} = {name}")));
        self.fx.vars[v].state = VState::Moved;
        let facts = self.fx.vars[v].facts;
        let weight = self.read_weight(v);
        let w = self.declare(moved_to, ty.clone(), VarKind::Let, VState::Live);
        self.fx.vars[w].facts = facts;
        self.weigh_into(w, weight);
        self.begin_stmt();
        let (e, weight) = self.weighed_expr(&ty, self.carried(v));
        self.weigh_into(v, weight);
        self.line(out, format!("set {name} = {}", e.text));
        self.fx.vars[v].state = VState::Live;
        self.fx.vars[v].facts = e.facts;
    }

    /// The call of script function `f` the script body makes: its result printed, and
    /// the variables it changed printed after.
    pub(crate) fn call_statement(&mut self, f: usize, out: &mut Vec<Stmt>) {
        self.begin_stmt();
        let c = self.callables[f].clone();
        let depth = self.config.max_expr_depth;
        // A result decided only by the expected type needs an annotated `let`.
        let want = if c.result_only_params().is_empty() {
            None
        } else {
            let bound: Vec<IrType> = c
                .type_params
                .iter()
                .map(|class| self.type_in_class(*class))
                .collect();
            c.result.as_ref().map(|r| r.substitute(&bound))
        };
        let Some(call) = self.call(f, want.as_ref(), depth) else {
            return;
        };
        let changed: Vec<usize> = self.fx.stmt_exclusive.iter().copied().collect();
        match (&c.result, want) {
            (Some(_), Some(ty)) => {
                let name = self.fresh_name("v");
                let text = format!("let {name}: {} = {}", self.ty_text(&ty), call.text);
                self.line(out, text);
                out.push(Stmt::Line(format!("debuglog {name}")));
                self.declare(name, ty, VarKind::Let, VState::Live);
            }
            (Some(_), None) => self.line(out, format!("debuglog {}", call.text)),
            (None, _) => self.line(out, call.text),
        }
        for v in changed {
            if self.fx.vars[v].state == VState::Live {
                out.push(Stmt::Line(format!("debuglog {}", self.fx.vars[v].name)));
            }
        }
    }
}

/// The state after one of two paths: moved on either is moved, initialized only if on
/// both; what is known holds only if known on both.
fn meet(
    a: &[(VState, super::text::Facts)],
    b: &[(VState, super::text::Facts)],
) -> Vec<(VState, super::text::Facts)> {
    let mut out: Vec<(VState, super::text::Facts)> = a
        .iter()
        .zip(b)
        .map(|(&(sa, fa), &(sb, fb))| {
            let state = match (sa, sb) {
                (VState::Live, VState::Live) => VState::Live,
                (VState::Moved, _) | (_, VState::Moved) => VState::Moved,
                _ => VState::Uninit,
            };
            (state, fa.meet(fb))
        })
        .collect();
    // Variables declared in only one path's scope are gone after it anyway.
    if a.len() > b.len() {
        out.extend_from_slice(&a[b.len()..]);
    } else {
        out.extend_from_slice(&b[a.len()..]);
    }
    out
}
