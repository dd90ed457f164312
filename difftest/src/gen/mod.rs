//! The generator of well-typed programs: one seed (or one fuzzer input) gives one
//! program, a script plus the module `pr.dfm` through which it reaches the probe riders.
//!
//! A program is a batch: many generated functions (plain, generic, recursive), each
//! called from the script body, so one link of an AOT or C executable runs many of them.
//! The generator follows the front end's rules as it writes (types decided by context,
//! moves, `mut`/`out` targets, loop-carried ownership), so every program compiles; one
//! that does not is a finding, the generator's or the front end's.
//!
//! Programs end: loops count to small bounds, recursion passes a depth that shrinks, and
//! every function has a cost estimate that callers must fit in their budget. Most
//! operations that could fail are written so they cannot (masked operands, guarded
//! indices, known-`some` options); each program takes a risk level that decides how
//! often one is written so it can fail, so programs end with a runtime error at every
//! kind of place (nested calls, loops, with owned values live) as well as succeed.
//!
//! Extension point: the language's values are [`IrType`]s. When records, enums and maps
//! land, give each a case in [`Generator::random_type`], its literal or constructor in
//! `expr.rs` (`Generator::construct`), and its projections (`expr.rs`,
//! `Generator::project`); the exhaustive matches over `IrType` there point at every place.

pub mod catalog;
mod expr;
mod stmt;
pub mod text;

use std::collections::BTreeSet;

use datalove_ir::{EnumType, IrType, ParamMode, RecordType, TypeClass};

use crate::program::TestProgram;
use crate::rng::Rng;
use catalog::{catalog, Callable, Origin, PRELUDE_MODULE};
use text::{render_block, type_text, Facts, Stmt};

/// Sizes and budgets of generated programs.
#[derive(Clone, Debug)]
pub struct Config {
    /// How many functions a program defines (at most; a byte-driven stream may stop
    /// earlier).
    pub functions: u64,
    /// Statements per block, at most.
    pub block_statements: u64,
    /// How deeply blocks nest.
    pub max_block_depth: u32,
    /// How deeply expressions nest.
    pub max_expr_depth: u32,
    /// Statements one call of a generated function may run (the cost estimate).
    pub function_budget: u64,
    /// Statements the script body may run.
    pub main_budget: u64,
    /// Per-mille chances a program may draw from for writing a fallible operation so
    /// it can fail; each program takes one of them.
    pub risk_levels: Vec<u64>,
    /// Whether programs may call natives that crash (a signal): only where each run is
    /// a process of its own, never in process.
    pub crashes: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            functions: 14,
            block_statements: 6,
            max_block_depth: 3,
            max_expr_depth: 3,
            function_budget: 400,
            main_budget: 20_000,
            risk_levels: vec![0, 0, 10, 25, 50, 100, 200],
            crashes: true,
        }
    }
}

impl Config {
    /// Smaller programs, for fuzzing: many short runs rather than few long ones.
    pub fn small() -> Config {
        Config {
            functions: 5,
            block_statements: 4,
            max_block_depth: 2,
            max_expr_depth: 2,
            function_budget: 200,
            main_budget: 4_000,
            crashes: false,
            ..Config::default()
        }
    }
}

/// Generates the program of `rng`'s choices.
pub fn generate(rng: &mut Rng, config: &Config) -> TestProgram {
    let mut g = Generator::new(rng, config);
    g.program()
}

/// A local variable or parameter of the function being generated.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub name: String,
    pub ty: IrType,
    pub kind: VarKind,
    pub state: VState,
    /// The loop nesting it was declared at: it may be moved only at that level.
    pub loop_level: u32,
    /// Loop counters and recursion depths: read, never changed by generated code.
    pub reserved: bool,
    pub facts: Facts,
    pub visible: bool,
    /// How much of the values carried across iterations (or calls) its value may hold
    /// (see [`Generator::weigh`]); only ever raised.
    pub weight: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarKind {
    Let,
    Var,
    Param(ParamMode),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VState {
    Live,
    Moved,
    Uninit,
}

/// How an expression's value is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// Taken: a variable of an owned type is moved (or cloned).
    Consume,
    /// Read in place.
    Read,
}

/// The state of the function being generated.
#[derive(Default)]
pub(crate) struct FnState {
    pub type_params: Vec<(String, TypeClass)>,
    pub result: Option<IrType>,
    pub vars: Vec<Var>,
    pub scopes: Vec<Vec<usize>>,
    pub loop_level: u32,
    /// How many times the current statement runs per call (product of loop bounds).
    pub mult: u64,
    pub cost: u64,
    pub budget: u64,
    pub block_depth: u32,
    /// Index in `callables` of this function, when it is recursive.
    pub self_callable: Option<usize>,
    pub recursive_call_written: bool,
    /// Variables the current statement already uses: not moved, nor passed `mut`/`out`.
    pub stmt_used: BTreeSet<usize>,
    /// Variables the current statement passes `mut`/`out`: not used again in it.
    pub stmt_exclusive: BTreeSet<usize>,
    /// Statements to write before the current one (fresh variables for `mut`/`out`
    /// arguments, values only an annotated `let` can decide).
    pub pending: Vec<Stmt>,
    /// When set, variables are cloned, never moved (conditions of `else if` and loops).
    pub no_moves: u32,
    /// Inside an expression that may not be evaluated (an `else if` condition, the right
    /// of `and`/`or`): an `out` argument may not be what initializes a variable, since
    /// after the statement it is initialized on only some paths.
    pub conditional: u32,
    /// Inside the extra condition of a `loop while`, which runs on every pass: as in
    /// the loop's body, the function does not call itself there (each level would
    /// recurse once per pass, `bound^depth` calls).
    pub loop_condition: u32,
    /// The weighings open (see [`Generator::weigh`]): what each may still read, and the
    /// call nesting it was opened at.
    pub budgets: Vec<(u32, u32)>,
    /// How many calls' arguments are being generated around the current expression.
    pub call_nesting: u32,
    pub next_name: u32,
    pub is_main: bool,
}

pub(crate) struct Generator<'a> {
    pub rng: &'a mut Rng,
    pub config: &'a Config,
    /// The catalog's callables, then the program's own functions.
    pub callables: Vec<Callable>,
    /// Which callables the script (0) and the generated module (1) call, for their
    /// imports and the prelude module.
    pub used: [BTreeSet<usize>; 2],
    /// The file being written: 0 the script, 1 the module `gm`.
    pub file: usize,
    /// Per-mille chance of writing a fallible operation so it can fail.
    pub risk: u64,
    pub fx: FnState,
    /// Generated functions' text, in order, per file.
    functions: [Vec<String>; 2],
    /// The program's record types, declared alike in the script and the module (two
    /// records of one name and the same fields are one type).
    pub records: Vec<RecordType>,
    /// The program's enums, declared alike in both files as the records are.
    pub enums: Vec<EnumType>,
}

/// The module generated functions may live in, imported by the script.
pub const GENERATED_MODULE: &str = "gm";

impl<'a> Generator<'a> {
    fn new(rng: &'a mut Rng, config: &'a Config) -> Generator<'a> {
        let risk = *rng.pick(&config.risk_levels);
        Generator {
            rng,
            config,
            callables: catalog().callables.clone(),
            used: [BTreeSet::new(), BTreeSet::new()],
            file: 0,
            risk,
            fx: FnState::default(),
            functions: [Vec::new(), Vec::new()],
            records: Vec::new(),
            enums: Vec::new(),
        }
    }

    /// Whether to write the next fallible operation so it can fail.
    pub fn risky(&mut self) -> bool {
        self.risk > 0 && self.rng.chance(self.risk, 1000)
    }

    pub fn fresh_name(&mut self, prefix: &str) -> String {
        let n = self.fx.next_name;
        self.fx.next_name += 1;
        format!("{prefix}{n}")
    }

    pub fn type_names(&self) -> Vec<String> {
        self.fx.type_params.iter().map(|(n, _)| n.clone()).collect()
    }

    pub fn ty_text(&self, ty: &IrType) -> String {
        type_text(ty, &self.type_names())
    }

    // ---------------------------------------------------------------- variables

    /// Declares a variable in the innermost scope.
    pub fn declare(&mut self, name: String, ty: IrType, kind: VarKind, state: VState) -> usize {
        let id = self.fx.vars.len();
        self.fx.vars.push(Var {
            name,
            ty,
            kind,
            state,
            loop_level: self.fx.loop_level,
            reserved: false,
            facts: Facts::default(),
            visible: true,
            weight: 0,
        });
        self.fx.scopes.last_mut().expect("a scope is open").push(id);
        id
    }

    pub fn push_scope(&mut self) {
        self.fx.scopes.push(Vec::new());
    }

    pub fn pop_scope(&mut self) {
        for id in self.fx.scopes.pop().expect("a scope is open") {
            self.fx.vars[id].visible = false;
        }
    }

    /// The visible variables that `keep` admits and that no other argument of the
    /// current statement holds exclusively.
    fn visible_where(&self, keep: impl Fn(usize, &Var) -> bool) -> Vec<usize> {
        (0..self.fx.vars.len())
            .filter(|&v| {
                let var = &self.fx.vars[v];
                var.visible && !self.fx.stmt_exclusive.contains(&v) && keep(v, var)
            })
            .collect()
    }

    /// Visible variables that hold a value of `ty` and may be read now.
    pub fn readable(&self, ty: &IrType) -> Vec<usize> {
        self.visible_where(|_, var| var.state == VState::Live && var.ty == *ty)
    }

    /// Whether variable `v` may be moved here.
    pub fn movable(&self, v: usize) -> bool {
        let var = &self.fx.vars[v];
        var.visible
            && var.state == VState::Live
            && !var.ty.is_copy()
            && !var.reserved
            && var.loop_level == self.fx.loop_level
            && matches!(
                var.kind,
                VarKind::Let | VarKind::Var | VarKind::Param(ParamMode::In)
            )
            && self.fx.no_moves == 0
            && !self.fx.stmt_used.contains(&v)
            && !self.fx.stmt_exclusive.contains(&v)
    }

    /// Variables of `ty` that may be passed `mut` now.
    pub fn mut_targets(&self, ty: &IrType) -> Vec<usize> {
        self.visible_where(|v, var| {
            var.state == VState::Live
                && var.ty == *ty
                && !var.reserved
                && matches!(
                    var.kind,
                    VarKind::Var | VarKind::Param(ParamMode::Mut | ParamMode::Out)
                )
                && !self.fx.stmt_used.contains(&v)
        })
    }

    /// Variables of `ty` that may be passed `out` (or `set`) now.
    pub fn out_targets(&self, ty: &IrType) -> Vec<usize> {
        self.visible_where(|v, var| {
            var.ty == *ty
                && !var.reserved
                && matches!(var.kind, VarKind::Var | VarKind::Param(ParamMode::Out))
                && !self.fx.stmt_used.contains(&v)
        })
    }

    // ------------------------------------------------------------- value sizes

    /// Whether `v` holds an owned value that outlives one pass of the code being
    /// generated: a variable declared outside the innermost loop, or a `mut`/`out`
    /// parameter (the function may be called in a loop). Writing one with a value that
    /// holds it twice doubles it on every pass.
    pub fn carried(&self, v: usize) -> bool {
        let var = &self.fx.vars[v];
        !var.ty.is_copy()
            && (var.loop_level < self.fx.loop_level
                || matches!(var.kind, VarKind::Param(ParamMode::Mut | ParamMode::Out)))
    }

    /// Whether the code being generated may run many times per run of its function's
    /// caller: inside a loop, or in a function with a `mut`/`out` parameter of an owned
    /// type.
    pub fn in_carried_context(&self) -> bool {
        self.fx.loop_level > 0
            || (0..self.fx.vars.len()).any(|v| {
                let var = &self.fx.vars[v];
                matches!(var.kind, VarKind::Param(ParamMode::Mut | ParamMode::Out))
                    && !var.ty.is_copy()
            })
    }

    /// What reading `v` adds to an expression's weight: 1 for a carried value, what its
    /// value was computed from otherwise (a copy type weighs nothing).
    pub fn read_weight(&self, v: usize) -> u32 {
        let var = &self.fx.vars[v];
        if var.ty.is_copy() {
            0
        } else if self.carried(v) {
            1
        } else {
            var.weight
        }
    }

    /// Charges a read of `v` to every open weighing, or refuses it (charging nothing)
    /// when one cannot pay. The weight of an expression counts the carried values it
    /// reads, twice over for each call it is an argument of (a call's result may hold an
    /// argument twice, or quoted: `strings_repeat`, `probe_args*`).
    ///
    /// This keeps generated programs within memory: the cost model bounds the
    /// statements a program runs, not the bytes its values hold, and a carried value
    /// written with itself twice (`set s = s ++ s`, `set s = f(s ++ t) ++ s`) doubles
    /// on every pass of a loop: 18 passes of three nested loops made 800 MB of one string.
    /// A carried value is written only with a weight of at most 1 (itself, grown by
    /// values that do not hold it), and a call that writes one through `mut`/`out` in
    /// code that runs many times reads nothing of weight.
    pub fn weigh(&mut self, v: usize) -> bool {
        self.charge(v, 0)
    }

    /// [`Generator::weigh`] for a `mut` argument: read as well as written, so the call's
    /// result may hold it, but not charged to the call's own weighing (which bounds
    /// what the call may write into it).
    pub fn weigh_mut_argument(&mut self, v: usize) -> bool {
        self.charge(v, 1)
    }

    /// Charges a read of `v` to the open weighings but the innermost `skip`.
    fn charge(&mut self, v: usize, skip: usize) -> bool {
        let w = self.read_weight(v);
        if w == 0 {
            return true;
        }
        let nesting = self.fx.call_nesting;
        let cost = |at: u32| w.saturating_mul(1 << (nesting - at).min(16));
        let open = self.fx.budgets.len().saturating_sub(skip);
        let budgets = &mut self.fx.budgets[..open];
        if budgets.iter().any(|&(left, at)| cost(at) > left) {
            return false;
        }
        for (left, at) in budgets {
            *left -= cost(*at);
        }
        true
    }

    /// Runs `f` under a weighing that lets it read at most `limit` (see
    /// [`Generator::weigh`]): its result and the weight it read.
    pub fn weighed<T>(&mut self, limit: u32, f: impl FnOnce(&mut Self) -> T) -> (T, u32) {
        self.fx.budgets.push((limit, self.fx.call_nesting));
        let made = f(self);
        let (left, _) = self.fx.budgets.pop().expect("the weighing just opened");
        (made, limit - left)
    }

    /// Raises `v`'s weight to `w`.
    pub fn weigh_into(&mut self, v: usize, w: u32) {
        let var = &mut self.fx.vars[v];
        var.weight = var.weight.max(w);
    }

    /// Notes that the current statement uses `v`.
    pub fn touch(&mut self, v: usize) {
        self.fx.stmt_used.insert(v);
    }

    /// Starts a statement: nothing used yet.
    pub fn begin_stmt(&mut self) {
        self.fx.stmt_used.clear();
        self.fx.stmt_exclusive.clear();
    }

    /// The states and facts of every variable, to restore or merge around branches.
    pub fn snapshot(&self) -> Vec<(VState, Facts)> {
        self.fx.vars.iter().map(|v| (v.state, v.facts)).collect()
    }

    // ---------------------------------------------------------------- types

    /// A random type: every kind of value, nested up to `depth`, and the function's own
    /// type parameters.
    pub fn random_type(&mut self, depth: u32) -> IrType {
        let params = self.fx.type_params.len();
        // Extension point: a new kind of value gets a weight and a case here.
        let mut weights = vec![
            10, // i64 (the simplest first)
            4,
            4,
            4,
            4,
            4,
            4,
            4,                                           // the other integers
            4,                                           // index
            5,                                           // f64
            3,                                           // f32
            5,                                           // bool
            8,                                           // string
            1,                                           // unit
            6,                                           // list
            5,                                           // option
            4,                                           // tuple
            2,                                           // data
            3,                                           // map
            3, // bigint (a leaf, but owned: kept with the compound types)
            if self.records.is_empty() { 0 } else { 5 }, // a record
            if self.enums.is_empty() { 0 } else { 6 }, // an enum
        ];
        if depth == 0 {
            for w in weights.iter_mut().skip(14) {
                *w = 0;
            }
        }
        weights.extend(std::iter::repeat_n(8, params));
        match self.rng.weighted(&weights) {
            0 => IrType::I64,
            1 => IrType::U8,
            2 => IrType::U16,
            3 => IrType::U32,
            4 => IrType::U64,
            5 => IrType::I8,
            6 => IrType::I16,
            7 => IrType::I32,
            8 => IrType::Index,
            9 => IrType::F64,
            10 => IrType::F32,
            11 => IrType::Bool,
            12 => IrType::String,
            13 => IrType::Unit,
            14 => IrType::list(self.random_type(depth - 1)),
            15 => IrType::option(self.random_type(depth - 1)),
            16 => {
                let n = self.rng.range(1, 3);
                IrType::Tuple((0..n).map(|_| self.random_type(depth - 1)).collect())
            }
            17 => IrType::Data,
            18 => IrType::Map(
                Box::new(self.random_type(depth - 1)),
                Box::new(self.random_type(depth - 1)),
            ),
            19 => IrType::BigInt,
            20 => IrType::record(self.rng.pick(&self.records).clone()),
            21 => IrType::Enum(Box::new(self.rng.pick(&self.enums).clone())),
            n => IrType::Param((n - 22) as u32),
        }
    }

    pub fn random_int_type(&mut self) -> IrType {
        self.rng
            .pick(&[
                IrType::I64,
                IrType::U8,
                IrType::U16,
                IrType::U32,
                IrType::U64,
                IrType::I8,
                IrType::I16,
                IrType::I32,
                IrType::Index,
            ])
            .clone()
    }

    /// A type of class `class`: concrete, or one of the function's own type parameters
    /// whose class implies it.
    pub fn type_in_class(&mut self, class: TypeClass) -> IrType {
        let own: Vec<u32> = self
            .fx
            .type_params
            .iter()
            .enumerate()
            .filter(|(_, (_, c))| c.implies(class))
            .map(|(i, _)| i as u32)
            .collect();
        if !own.is_empty() && self.rng.chance(1, 3) {
            return IrType::Param(*self.rng.pick(&own));
        }
        match class {
            TypeClass::Any => self.random_type(2),
            TypeClass::Fixedint => loop {
                let t = self.random_int_type();
                if t != IrType::Index {
                    break t;
                }
            },
            TypeClass::Float => {
                if self.rng.chance(1, 2) {
                    IrType::F64
                } else {
                    IrType::F32
                }
            }
        }
    }

    /// Whether `target` (in this function's terms) is in `class`.
    pub fn admits(&self, class: TypeClass, target: &IrType) -> bool {
        match target {
            IrType::Param(n) => self.fx.type_params[*n as usize].1.implies(class),
            t => class.admits(t),
        }
    }

    /// Matches a callee's type `pattern` (over its own parameters) against `target` (in
    /// this function's terms), binding the callee's parameters in `bind`.
    pub fn match_type(
        &self,
        pattern: &IrType,
        target: &IrType,
        classes: &[TypeClass],
        bind: &mut [Option<IrType>],
    ) -> bool {
        match (pattern, target) {
            (IrType::Param(n), t) => {
                let n = *n as usize;
                match &bind[n] {
                    Some(bound) => bound == t,
                    None => {
                        if !self.admits(classes[n], t) {
                            return false;
                        }
                        bind[n] = Some(t.clone());
                        true
                    }
                }
            }
            (IrType::List(p), IrType::List(t)) | (IrType::Option(p), IrType::Option(t)) => {
                self.match_type(p, t, classes, bind)
            }
            (IrType::Map(pk, pv), IrType::Map(tk, tv)) => {
                self.match_type(pk, tk, classes, bind) && self.match_type(pv, tv, classes, bind)
            }
            (IrType::Tuple(ps), IrType::Tuple(ts)) => {
                ps.len() == ts.len()
                    && ps
                        .iter()
                        .zip(ts)
                        .all(|(p, t)| self.match_type(p, t, classes, bind))
            }
            (p, t) => p == t,
        }
    }

    // ---------------------------------------------------------------- program

    fn program(&mut self) -> TestProgram {
        self.records = self.random_records();
        self.enums = self.random_enums();
        let count = self.rng.range(1, self.config.functions.max(1));
        // The first few functions (now and then) live in a module the script imports.
        let in_module = if count >= 3 && self.rng.chance(1, 3) {
            self.rng.range(1, count / 2)
        } else {
            0
        };
        for i in 0..count {
            if self.rng.exhausted() && i > 0 {
                break;
            }
            self.file = (i < in_module) as usize;
            self.function(i as usize);
        }
        self.file = 0;
        let main = self.main_body();
        let mut script = self.imports(0);
        script.push_str(&self.type_declarations());
        for f in &self.functions[0] {
            script.push_str(f);
            script.push('\n');
        }
        script.push_str(&main);
        let mut files = Vec::new();
        if !self.functions[1].is_empty() {
            let mut module = self.imports(1);
            module.push_str(&self.type_declarations());
            for f in &self.functions[1] {
                module.push_str(f);
            }
            files.push((format!("{GENERATED_MODULE}.dfm"), module));
        }
        if let Some(prelude) = self.prelude_module() {
            files.push((format!("{PRELUDE_MODULE}.dfm"), prelude));
        }
        TestProgram { script, files }
    }

    /// Up to three record types, `R0`, `R1`, ..., each of one to three fields whose types
    /// may be earlier records (never itself: a record holds its fields in place).
    fn random_records(&mut self) -> Vec<RecordType> {
        let mut records: Vec<RecordType> = Vec::new();
        for r in 0..self.rng.below(4) {
            let count = self.rng.range(1, 3) as usize;
            // `random_type` picks among the records made so far.
            self.records = records.clone();
            let fields = (0..count).map(|_| self.random_type(1)).collect();
            records.push(RecordType {
                name: format!("R{r}"),
                field_names: (0..count).map(|i| format!("f{i}")).collect(),
                fields,
            });
        }
        records
    }

    /// Up to two enums, `E0` and `E1`, of one to four variants `V0`, `V1`, ..., each with
    /// a payload of up to two fields (whose types may be records and the earlier enum),
    /// or none.
    fn random_enums(&mut self) -> Vec<EnumType> {
        let mut enums: Vec<EnumType> = Vec::new();
        for e in 0..self.rng.below(3) {
            self.enums = enums.clone();
            let count = self.rng.range(1, 4) as usize;
            let variants = (0..count)
                .map(|_| {
                    let fields = self.rng.weighted(&[3, 4, 2]);
                    (0..fields).map(|_| self.random_type(1)).collect()
                })
                .collect();
            enums.push(EnumType {
                name: format!("E{e}"),
                args: Vec::new(),
                variant_names: (0..count).map(|i| format!("V{i}")).collect(),
                declared_variants: variants,
            });
        }
        enums
    }

    /// The declarations of the program's records and enums, and a blank line after each.
    fn type_declarations(&self) -> String {
        let mut out = String::new();
        for record in &self.records {
            out.push_str(&format!("record {}\n", record.name));
            for (name, ty) in record.field_names.iter().zip(&record.fields) {
                out.push_str(&format!("  {name}: {}\n", type_text(ty, &[])));
            }
            out.push_str("end record\n\n");
        }
        for e in &self.enums {
            out.push_str(&format!("enum {}\n", e.name));
            for (name, payload) in e.variant_names.iter().zip(&e.declared_variants) {
                let fields: Vec<String> = payload.iter().map(|t| type_text(t, &[])).collect();
                match fields.is_empty() {
                    true => out.push_str(&format!("  {name}\n")),
                    false => out.push_str(&format!("  {name}({})\n", fields.join(", "))),
                }
            }
            out.push_str("end enum\n\n");
        }
        out
    }

    /// The `import` lines of file `file` (0 the script, 1 the module), and a blank line.
    fn imports(&self, file: usize) -> String {
        let mut imports = BTreeSet::new();
        for &i in &self.used[file] {
            match &self.callables[i].origin {
                Origin::Library { module, function } => {
                    imports.insert(format!("import {module}.{function} as {module}_{function}"));
                }
                Origin::Native { native, .. } => {
                    imports.insert(format!("import {PRELUDE_MODULE}.{native}"));
                }
                Origin::Module { module } if file == 0 => {
                    imports.insert(format!("import {module}.{}", self.callables[i].name));
                }
                Origin::Module { .. } | Origin::Script => {}
            }
        }
        let mut out = String::new();
        for line in &imports {
            out.push_str(line);
            out.push('\n');
        }
        if !imports.is_empty() {
            out.push('\n');
        }
        out
    }

    /// `pr.dfm`: a wrapper per native the program calls.
    fn prelude_module(&self) -> Option<String> {
        let used: BTreeSet<usize> = self.used[0].union(&self.used[1]).copied().collect();
        let natives: Vec<(&str, &str)> = used
            .iter()
            .filter_map(|&i| match &self.callables[i].origin {
                Origin::Native { rider, native } => Some((rider.as_str(), native.as_str())),
                _ => None,
            })
            .collect();
        if natives.is_empty() {
            return None;
        }
        Some(prelude_text(&natives))
    }

    /// The script body: each generated function called, with statements between.
    fn main_body(&mut self) -> String {
        self.fx = FnState {
            mult: 1,
            budget: self.config.main_budget,
            is_main: true,
            ..FnState::default()
        };
        self.push_scope();
        let mut body = Vec::new();
        let script_functions: Vec<usize> = (0..self.callables.len())
            .filter(|&i| self.callables[i].generated())
            .collect();
        for f in script_functions {
            let extra = self.rng.below(3);
            for _ in 0..extra {
                self.statement(&mut body);
            }
            self.call_statement(f, &mut body);
        }
        let extra = self.rng.below(3);
        for _ in 0..extra {
            self.statement(&mut body);
        }
        self.pop_scope();
        let mut out = String::new();
        render_block(&body, 0, &mut out);
        out
    }

    /// One generated function, appended to `callables` and `functions`.
    fn function(&mut self, index: usize) {
        let generic = self.rng.chance(1, 4);
        let recursive = !generic && self.rng.chance(1, 6);
        let mut type_params = Vec::new();
        if generic {
            let n = self.rng.range(1, 2);
            for i in 0..n {
                let class = *self.rng.pick(&[
                    TypeClass::Any,
                    TypeClass::Any,
                    TypeClass::Fixedint,
                    TypeClass::Float,
                ]);
                type_params.push((["T", "U"][i as usize].to_string(), class));
            }
        }
        self.fx = FnState {
            type_params: type_params.clone(),
            mult: 1,
            budget: self.config.function_budget,
            ..FnState::default()
        };
        // Parameters, over the function's own type parameters.
        let mut params: Vec<(String, ParamMode, IrType)> = Vec::new();
        if recursive {
            params.push(("d".into(), ParamMode::In, IrType::U32));
        }
        // Now and then a wide one: frames and calls with many arguments.
        let nparams = if self.rng.chance(1, 12) {
            self.rng.range(6, 12)
        } else {
            self.rng.below(5)
        };
        for i in 0..nparams {
            let mode = [
                ParamMode::In,
                ParamMode::Ref,
                ParamMode::Mut,
                ParamMode::Out,
            ][self.rng.weighted(&[10, 5, 3, 2])];
            let ty = self.random_type(2);
            params.push((format!("p{i}"), mode, ty));
        }
        // Each type parameter is decided by an argument, or (now and then) only by the
        // type the call is expected to have.
        let mut mentioned = Vec::new();
        for (_, _, t) in &params {
            t.collect_params(&mut mentioned);
        }
        for n in 0..type_params.len() as u32 {
            if !mentioned.contains(&n) && self.rng.chance(2, 3) {
                params.push((
                    format!("p{}", params.len()),
                    ParamMode::In,
                    IrType::Param(n),
                ));
            }
        }
        // A result of type unit is no result (`ret` takes no value).
        let mut result = if self.rng.chance(3, 4) {
            Some(self.random_type(2)).filter(|t| *t != IrType::Unit)
        } else {
            None
        };
        let mut mentioned = Vec::new();
        for (_, _, t) in &params {
            t.collect_params(&mut mentioned);
        }
        if let Some(unmentioned) = (0..type_params.len() as u32).find(|n| !mentioned.contains(n)) {
            // Only the result can decide it.
            result = Some(IrType::Param(unmentioned));
            for n in 0..type_params.len() as u32 {
                if n != unmentioned && !mentioned.contains(&n) {
                    params.push((
                        format!("p{}", params.len()),
                        ParamMode::In,
                        IrType::Param(n),
                    ));
                }
            }
        }
        let prefix = if generic {
            "g"
        } else if recursive {
            "r"
        } else {
            "f"
        };
        let name = format!("{prefix}{index}");
        let callable_index = self.callables.len();
        self.callables.push(Callable {
            name: name.clone(),
            type_params: type_params.iter().map(|(_, c)| *c).collect(),
            params: params.iter().map(|(_, m, t)| (*m, t.clone())).collect(),
            result: result.clone(),
            behavior: catalog::Behavior {
                fails: catalog::Fails::Maybe,
                limits: Vec::new(),
                guards: Vec::new(),
                may_shrink: true,
            },
            origin: if self.file == 1 {
                Origin::Module {
                    module: GENERATED_MODULE.to_string(),
                }
            } else {
                Origin::Script
            },
            cost: 1,
            recursive,
        });
        // Calls of functions generated so far may fail only as their bodies do; a
        // script function is "Maybe" so callers do not count on it, but it is called
        // whatever the risk level (see `call_candidates`).
        self.fx.self_callable = recursive.then_some(callable_index);
        self.fx.result = result.clone();
        self.push_scope();
        for (pname, mode, ty) in &params {
            let state = if *mode == ParamMode::Out {
                VState::Uninit
            } else {
                VState::Live
            };
            let v = self.declare(pname.clone(), ty.clone(), VarKind::Param(*mode), state);
            if recursive && pname == "d" {
                self.fx.vars[v].reserved = true;
            }
        }
        let mut body = Vec::new();
        // `out` parameters are written first, so every path to a `ret` has written them.
        for (i, (_, mode, ty)) in params.iter().enumerate() {
            if *mode == ParamMode::Out {
                self.begin_stmt();
                let value = self.expr(ty, Use::Consume, true, self.config.max_expr_depth);
                self.flush_pending(&mut body);
                body.push(Stmt::Line(format!("set {} = {}", params[i].0, value.text)));
                self.fx.vars[i].state = VState::Live;
                self.fx.vars[i].facts = value.facts;
            }
        }
        if recursive {
            self.base_case(&mut body);
        }
        let n = self.rng.range(1, self.config.block_statements);
        // A recursive function calls itself once, in its top-level block.
        let recurse_at = recursive.then(|| self.rng.below(n + 1));
        for k in 0..=n {
            if recurse_at == Some(k) && !self.fx.recursive_call_written {
                self.recursive_call(callable_index, &mut body);
            }
            if k < n {
                self.statement(&mut body);
            }
        }
        if let Some(result) = &result {
            self.begin_stmt();
            let value = self.expr(result, Use::Consume, true, self.config.max_expr_depth);
            self.flush_pending(&mut body);
            body.push(Stmt::Line(format!("ret {}", value.text)));
        }
        self.pop_scope();
        let body_cost = self.fx.cost.max(1);
        self.callables[callable_index].cost = if recursive {
            body_cost * (MAX_RECURSION_DEPTH + 1)
        } else {
            body_cost
        };
        // The header.
        let names = self.type_names();
        let mut header = format!("fun {name}");
        if !type_params.is_empty() {
            header.push('<');
            header.push_str(&names.join(", "));
            header.push('>');
        }
        header.push('(');
        let ps: Vec<String> = params
            .iter()
            .map(|(n, m, t)| {
                let mode = match m {
                    ParamMode::In => "",
                    ParamMode::Ref => "ref ",
                    ParamMode::Mut => "mut ",
                    ParamMode::Out => "out ",
                };
                format!("{mode}{n}: {}", type_text(t, &names))
            })
            .collect();
        header.push_str(&ps.join(", "));
        header.push(')');
        if let Some(r) = &result {
            header.push_str(": ");
            header.push_str(&type_text(r, &names));
        }
        let constrained: Vec<String> = type_params
            .iter()
            .filter(|(_, c)| *c != TypeClass::Any || index.is_multiple_of(2))
            .map(|(n, c)| format!("{n} is {}", c.name()))
            .collect();
        if !constrained.is_empty() {
            header.push_str(" where { ");
            header.push_str(&constrained.join(", "));
            header.push_str(", }");
        }
        let mut text = header;
        text.push('\n');
        render_block(&body, 1, &mut text);
        text.push_str("end fun\n");
        self.functions[self.file].push(text);
    }

    /// `if d == 0 ... ret ... end if`: the recursion's end, with no recursive call.
    fn base_case(&mut self, body: &mut Vec<Stmt>) {
        let saved = self.fx.self_callable.take();
        let before = self.snapshot();
        self.push_scope();
        self.fx.block_depth += 1;
        let mut inner = Vec::new();
        let n = self.rng.below(3);
        for _ in 0..n {
            self.statement(&mut inner);
        }
        self.begin_stmt();
        match self.fx.result.clone() {
            Some(r) => {
                let value = self.expr(&r, Use::Consume, true, 2);
                self.flush_pending(&mut inner);
                inner.push(Stmt::Line(format!("ret {}", value.text)));
            }
            None => inner.push(Stmt::Line("ret".into())),
        }
        self.fx.block_depth -= 1;
        self.pop_scope();
        // The branch returned: the code after it sees the states from before it.
        self.restore(&before);
        self.fx.self_callable = saved;
        body.push(Stmt::when("d == 0", inner));
    }

    /// `let v: R = rN(d - 1, ...)` (or the call alone, for no result): the recursion.
    fn recursive_call(&mut self, callable: usize, body: &mut Vec<Stmt>) {
        self.begin_stmt();
        let result = self.callables[callable].result.clone();
        let Some(call) = self.call(callable, result.as_ref(), self.config.max_expr_depth) else {
            return;
        };
        self.flush_pending(body);
        match result {
            Some(ty) => {
                let name = self.fresh_name("v");
                body.push(Stmt::Line(format!(
                    "let {name}: {} = {}",
                    self.ty_text(&ty),
                    call.text
                )));
                // An owned result is never used again: `ret v ++ v ++ v` would triple
                // a string at every level (3^23 copies for a depth of 23, the ending
                // a timeout on every backend). It is still dropped at the end of scope.
                let state = if ty.is_copy() {
                    VState::Live
                } else {
                    VState::Moved
                };
                self.declare(name, ty, VarKind::Let, state);
            }
            None => body.push(Stmt::Line(call.text)),
        }
    }

    /// Puts every variable back in the state `snapshot` recorded.
    pub fn restore(&mut self, snapshot: &[(VState, Facts)]) {
        for (v, (state, facts)) in self.fx.vars.iter_mut().zip(snapshot) {
            v.state = *state;
            v.facts = *facts;
        }
    }

    /// Writes the statements hoisted while generating the current one.
    pub fn flush_pending(&mut self, out: &mut Vec<Stmt>) {
        out.append(&mut self.fx.pending);
    }
}

/// How deep generated recursion may go: each call passes a depth at most this (the
/// lead's call-depth limit is far above it, so no program depends on that limit).
pub const MAX_RECURSION_DEPTH: u64 = 24;

/// How deep a recursive function called once from the script body may go.
pub const DEEP_RECURSION_DEPTH: u64 = 3000;

/// The prelude module's text for `natives` (`(rider, native)`): a wrapper per native,
/// with the native's signature, calling it under a private alias.
pub fn prelude_text(natives: &[(&str, &str)]) -> String {
    let catalog = catalog();
    let decls: Vec<(&str, &datalove_ir::NativeDecl)> = natives
        .iter()
        .map(|(rider, native)| {
            let (_, decl) = catalog
                .natives
                .iter()
                .find(|(r, d)| r == rider && d.name == *native)
                .expect("a catalogued native");
            (*rider, decl)
        })
        .collect();
    wrapper_module(&decls)
}

/// A module wrapping each native of `decls` (`(rider, declaration)`): `require rider`
/// for each rider, the native imported as `native_NAME`, and `fun NAME` with the
/// native's own signature calling it.
pub fn wrapper_module(decls: &[(&str, &datalove_ir::NativeDecl)]) -> String {
    let mut riders: Vec<&str> = decls.iter().map(|(r, _)| *r).collect();
    riders.sort();
    riders.dedup();
    let mut out = String::new();
    for r in &riders {
        out.push_str(&format!("require rider {r}\n"));
    }
    for (rider, decl) in decls {
        out.push_str(&format!("import {rider}.{0} as native_{0}\n", decl.name));
    }
    let mode_word = |m: ParamMode| match m {
        ParamMode::In => "",
        ParamMode::Ref => "ref ",
        ParamMode::Mut => "mut ",
        ParamMode::Out => "out ",
    };
    for (_, decl) in decls {
        let names: Vec<String> = decl.type_params.iter().map(|t| t.name.clone()).collect();
        let mut header = format!("fun {}", decl.name);
        if !names.is_empty() {
            header.push_str(&format!("<{}>", names.join(", ")));
        }
        let params: Vec<String> = decl
            .params
            .iter()
            .map(|p| {
                format!(
                    "{}{}: {}",
                    mode_word(p.mode),
                    p.name,
                    type_text(&p.ty, &names)
                )
            })
            .collect();
        header.push_str(&format!("({})", params.join(", ")));
        if decl.result != IrType::Unit {
            header.push_str(&format!(": {}", type_text(&decl.result, &names)));
        }
        let constrained: Vec<String> = decl
            .type_params
            .iter()
            .filter(|t| t.class != TypeClass::Any)
            .map(|t| format!("{} is {}", t.name, t.class.name()))
            .collect();
        if !constrained.is_empty() {
            header.push_str(&format!(" where {{ {}, }}", constrained.join(", ")));
        }
        let args: Vec<String> = decl
            .params
            .iter()
            .map(|p| format!("{}{}", mode_word(p.mode), p.name))
            .collect();
        let call = format!("native_{}({})", decl.name, args.join(", "));
        let body = if decl.result != IrType::Unit {
            format!("ret {call}")
        } else {
            call
        };
        out.push_str(&format!("{header}\n  {body}\nend fun\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile_seed(seed: u64) -> Result<(), String> {
        let program = generate(&mut Rng::seeded(seed), &Config::default());
        match program.compile() {
            Ok(c) => datalove_ir::verify::verify_program(&c.program).map_err(|e| {
                format!(
                    "seed {seed}: the verifier refuses:\n{}\n{}",
                    e.iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    program.script
                )
            }),
            Err(f) => Err(format!(
                "seed {seed} does not compile:\n{}\n--- program\n{}\n--- pr.dfm\n{}",
                f.render(),
                program.script,
                program.files.first().map_or("", |f| f.1.as_str())
            )),
        }
    }

    #[test]
    fn generated_programs_compile() {
        let count = std::env::var("DIFFTEST_GEN_COUNT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(200u64);
        let first = std::env::var("DIFFTEST_GEN_FIRST")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0u64);
        for seed in first..first + count {
            if let Err(e) = compile_seed(seed) {
                panic!("{e}");
            }
        }
    }

    /// Over six hundred programs, every native and library function is called, and
    /// every kind of statement and declaration appears.
    #[test]
    fn generated_programs_reach_everything() {
        let mut text = String::new();
        for seed in 0..600 {
            let program = generate(&mut Rng::seeded(seed), &Config::default());
            text.push_str(&program.script);
            for (_, f) in &program.files {
                text.push_str(f);
            }
        }
        let missing: Vec<&str> = catalog()
            .callables
            .iter()
            .filter(|c| !text.contains(&format!("{}(", c.name)))
            .map(|c| c.name.as_str())
            .collect();
        assert!(missing.is_empty(), "never called: {missing:?}");
        for needle in [
            "loop while ",
            "break\n",
            "continue\n",
            "else if ",
            "ret ",
            "set ",
            "push(mut ",
            "out ",
            "ref ",
            "mut ",
            "as! ",
            " +% ",
            "unwrap(",
            "is_some(ref ",
            "data(",
            "clone(",
            "len(",
            "where { T is fixedint, }",
            "where { T is float, }",
            "import gm.",
            "(d - 1",
            "record R1\n",
            ": R0(f0: ",
            ".f0",
            "maps_from_entries([(",
            ": map[",
            "bigint_from(",
            "unwrap(bigint_parse(ref \"",
            "enum E1\n",
            "  match ",
            "case _\n",
            "case V1(",
            "E0.V0",
        ] {
            assert!(text.contains(needle), "no program has `{needle}`");
        }
        assert!(
            text.lines().any(|l| l.trim() == "loop"),
            "no program has a `loop` without `while`"
        );
    }

    #[test]
    fn byte_driven_programs_compile_and_end() {
        for len in [0usize, 1, 7, 64, 500] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            let program = generate(&mut Rng::from_bytes(&bytes), &Config::default());
            if let Err(f) = program.compile() {
                panic!("{} bytes:\n{}\n{}", len, f.render(), program.script);
            }
        }
    }
}
