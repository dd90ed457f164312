//! What generated programs may call besides their own functions: the standard modules'
//! functions and the natives of the test riders `probe` (Rust) and `cprobe` (C).
//!
//! Signatures are never written here: the natives' come from the riders' `rider.dli`
//! (parsed by `datalove_ir::dli`), the standard modules' from compiling a script that
//! imports every function the built-in library defines. What this file adds is what a
//! signature cannot say: which calls fail, and what arguments keep a call from failing
//! or from running away ([`Behavior`]). A native or library function without an entry
//! here is left out of generated programs, and the test `every_callable_has_a_behavior`
//! names it, so a new one gets a conscious decision.

use std::sync::OnceLock;

use datalove_front::{compile, MemoryLoader, LIBRARY};
use datalove_ir::{IrType, ParamMode, TypeClass};

/// The `probe` rider's interface, as the conformance suite builds the rider.
pub const PROBE_DLI: &str = include_str!("../../../conformance/riders/probe/rider.dli");
/// The `cprobe` rider's interface.
pub const CPROBE_DLI: &str = include_str!("../../../conformance/riders/cprobe/rider.dli");

/// The module generated programs reach the riders through (a script may not `require`
/// a rider): one wrapper per native used, named like the native.
pub const PRELUDE_MODULE: &str = "pr";

/// Whether, and how, a call can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fails {
    /// Never (given its [`Limit`]s).
    Never,
    /// Unless its [`Guard`]s are kept.
    Unguarded,
    /// Depending on values the generator does not control.
    Maybe,
    /// Always: a failing or panicking native.
    Always,
    /// Always, by crashing (a signal in the native): for runners that run programs in
    /// processes of their own ([`crate::gen::Config::crashes`]).
    Crash,
}

/// A bound an argument must always keep, or the call runs away (memory, time) or is
/// undefined in the native.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A literal in `0..=max`.
    Small(u64),
    /// An `i64` whose thousandfold still fits (`cprobe_widths` computes in C, where
    /// signed overflow is undefined).
    ThousandfoldFits,
}

/// What keeps a call from failing; broken on purpose only when the program takes a risk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// The literal 0.
    Zero,
    /// 0 or 1.
    Tiny,
    /// Not the most negative value of a signed type (`abs`).
    NotMin,
    /// A position inside the list passed as parameter `list` (at most its length when
    /// `inclusive`, as `insert` takes).
    IndexInto { list: usize, inclusive: bool },
}

/// What a signature does not say about a callable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Behavior {
    pub fails: Fails,
    pub limits: Vec<(usize, Limit)>,
    pub guards: Vec<(usize, Guard)>,
    /// Whether a list passed `mut` may come back shorter (or swapped).
    pub may_shrink: bool,
}

impl Behavior {
    fn safe() -> Behavior {
        Behavior {
            fails: Fails::Never,
            limits: Vec::new(),
            guards: Vec::new(),
            may_shrink: false,
        }
    }

    fn fails(fails: Fails) -> Behavior {
        Behavior {
            fails,
            ..Behavior::safe()
        }
    }

    fn guard(mut self, param: usize, guard: Guard) -> Behavior {
        self.fails = Fails::Unguarded;
        self.guards.push((param, guard));
        self
    }

    fn limit(mut self, param: usize, limit: Limit) -> Behavior {
        self.limits.push((param, limit));
        self
    }

    fn shrinks(mut self) -> Behavior {
        self.may_shrink = true;
        self
    }

    pub fn limit_of(&self, param: usize) -> Option<Limit> {
        self.limits
            .iter()
            .find(|(p, _)| *p == param)
            .map(|(_, l)| *l)
    }

    pub fn guard_of(&self, param: usize) -> Option<Guard> {
        self.guards
            .iter()
            .find(|(p, _)| *p == param)
            .map(|(_, g)| *g)
    }
}

/// Where a callable comes from, which decides how a program imports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A function of the generated script.
    Script,
    /// A generated function of the module `module` (`gm`), which the script imports.
    Module { module: String },
    /// A standard module's function, imported as `MODULE_FUNCTION`.
    Library { module: String, function: String },
    /// A rider's native, reached through the prelude module's wrapper of the same name.
    Native { rider: String, native: String },
}

/// A function a generated program can call.
#[derive(Clone, Debug)]
pub struct Callable {
    /// The name the script calls it by.
    pub name: String,
    pub type_params: Vec<TypeClass>,
    /// Over the callable's own type parameters (`IrType::Param(n)`).
    pub params: Vec<(ParamMode, IrType)>,
    pub result: Option<IrType>,
    pub behavior: Behavior,
    pub origin: Origin,
    /// Roughly how many statements one call runs.
    pub cost: u64,
    /// A generated recursive function: its first parameter is the depth left.
    pub recursive: bool,
}

impl Callable {
    /// Whether the program being generated defines it (in its script or its module).
    pub fn generated(&self) -> bool {
        matches!(self.origin, Origin::Script | Origin::Module { .. })
    }

    /// The type parameters no parameter mentions: only an expected type decides them.
    pub fn result_only_params(&self) -> Vec<u32> {
        let mut mentioned = Vec::new();
        for (_, t) in &self.params {
            t.collect_params(&mut mentioned);
        }
        (0..self.type_params.len() as u32)
            .filter(|n| !mentioned.contains(n))
            .collect()
    }
}

/// The behavior of the native or library function `name` (`probe_args3`,
/// `strings.slice`), or `None` when nobody decided it yet.
fn behavior(name: &str) -> Option<Behavior> {
    use Guard::*;
    use Limit::*;
    let safe = Behavior::safe();
    Some(match name {
        n if n.starts_with("probe_args") => safe,
        "probe_max_words" => (0..14).fold(safe, |b, p| b.guard(p, Tiny)),
        "probe_default" | "probe_sample" | "probe_pair" | "probe_triple" => safe,
        "probe_fail" | "probe_fail_owned" | "probe_panic" | "probe_panic_after_push" => {
            Behavior::fails(Fails::Always)
        }
        "probe_fail_bytes" | "probe_panic_lines" | "probe_raise_ok" => {
            Behavior::fails(Fails::Always)
        }
        "probe_segv" | "probe_abort" | "cprobe_crash" => Behavior::fails(Fails::Crash),
        "probe_size_of" => safe,
        "probe_join" | "probe_make_data" | "probe_set_string" | "probe_bump_pair" => safe,
        "probe_push_range" => safe.limit(1, Small(12)).limit(2, Small(12)),
        // Fails past i64's top, and the option is a variable the generator cannot see into.
        "probe_bump_opt" => Behavior::fails(Fails::Maybe),
        "probe_describe" | "probe_type_name" | "probe_len" | "probe_first" => safe,
        "probe_unwrap_or" | "probe_copy_out" | "probe_take" => safe,
        "probe_repeat" => safe.limit(1, Small(4)),
        "probe_swap" => safe.shrinks(),
        "cprobe_widths" => safe.limit(3, ThousandfoldFits),
        "cprobe_floats" | "cprobe_wide" | "cprobe_greet" | "cprobe_take_len" => safe,
        "cprobe_push_squares" => safe.limit(1, Small(10)),
        "cprobe_at" => safe.guard(
            1,
            IndexInto {
                list: 0,
                inclusive: false,
            },
        ),
        "cprobe_fail" => safe.guard(0, Zero),
        "cprobe_tagged" | "cprobe_zero" => safe,
        // The generator makes no records, and anything else is refused.
        "cprobe_record" => Behavior::fails(Fails::Always),
        // Anything but an enum is refused.
        "cprobe_enum" => Behavior::fails(Fails::Always),
        "fixedint.zero" | "fixedint.to_string" | "fixedint.parse" => safe,
        "fixedint.abs" => safe.guard(0, NotMin),
        "floats.to_string" | "floats.parse" => safe,
        "floats.to_string_fixed" => safe.limit(1, Small(20)),
        "lists.filled" => safe.limit(0, Small(6)),
        "env.args" => safe,
        "strings.len" | "strings.concat" | "strings.find" | "strings.contains" => safe,
        "strings.upper" | "strings.lower" => safe,
        "strings.slice" => safe.guard(1, Zero).guard(2, Zero),
        // An empty separator or pattern fails, and generated strings may be empty.
        "strings.split" | "strings.replace" => Behavior::fails(Fails::Maybe),
        "strings.split_whitespace" | "strings.join" | "strings.chars" | "strings.bytes" => safe,
        "strings.trim" | "strings.trim_start" | "strings.trim_end" => safe,
        "strings.starts_with" | "strings.ends_with" => safe,
        "strings.repeat" => safe.limit(1, Small(4)),
        "strings.byte_at" => safe.guard(
            1,
            IndexInto {
                list: 0,
                inclusive: false,
            },
        ),
        "lists.len" | "lists.push" | "lists.reverse" | "lists.sort" => safe,
        "lists.pop" => safe.shrinks(),
        "lists.get" | "lists.set_at" => safe.guard(
            1,
            IndexInto {
                list: 0,
                inclusive: false,
            },
        ),
        "lists.remove" => safe
            .guard(
                1,
                IndexInto {
                    list: 0,
                    inclusive: false,
                },
            )
            .shrinks(),
        "lists.insert" => safe.guard(
            1,
            IndexInto {
                list: 0,
                inclusive: true,
            },
        ),
        "math.sqrt" | "math.sin" | "math.cos" | "math.exp" | "math.ln" | "math.pow" => safe,
        "math.floor" | "math.ceil" | "math.fabs" | "math.min" | "math.max" => safe,
        "describe.describe" | "describe.to_string" => safe,
        // Maps and bigints (issue 16).
        // A map of `n` entries: a large `n` runs for minutes on every backend.
        "probe_map_squares" => safe.limit(0, Small(10)),
        "probe_map_entries" => safe,
        "cprobe_map_sum" | "cprobe_map_put" => safe,
        "maps.new" | "maps.len" | "maps.insert" | "maps.get" | "maps.remove" => safe,
        "maps.contains" | "maps.keys" | "maps.values" | "maps.entries" => safe,
        "maps.from_entries" => safe,
        "maps.at" => Behavior::fails(Fails::Maybe),
        "probe_bigint" | "probe_bigint_parts" | "cprobe_bigint_double" => safe,
        "bigint.from" | "bigint.parse" | "bigint.to_string" | "bigint.cmp" => safe,
        "bigint.add" | "bigint.sub" | "bigint.mul" | "bigint.neg" | "bigint.abs" => safe,
        // Out of the target's range; a zero divisor.
        "bigint.to" | "bigint.div" | "bigint.rem" => Behavior::fails(Fails::Maybe),
        // The result's size grows with the exponent.
        "bigint.pow" => safe.limit(1, Small(40)),
        // Generic enums are not generated (see `mentions_generic_enum`).
        "results.parse_i64" => safe,
        _ => return None,
    })
}

/// Everything callable besides a program's own functions, and what could not be
/// catalogued (no behavior decided).
#[derive(Debug)]
pub struct Catalog {
    pub callables: Vec<Callable>,
    pub undecided: Vec<String>,
    /// The rider interfaces, for writing the prelude module's wrappers.
    pub natives: Vec<(String, datalove_ir::NativeDecl)>,
}

/// The catalog, built once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(build_catalog)
}

fn build_catalog() -> Catalog {
    let mut callables = Vec::new();
    let mut undecided = Vec::new();
    let mut natives = Vec::new();
    for (rider, text) in [("probe", PROBE_DLI), ("cprobe", CPROBE_DLI)] {
        let mut sources = datalove_ir::Sources::new();
        let file = sources.add(format!("{rider}.dli"), text);
        let interface = datalove_ir::dli::parse_dli(rider, file, text)
            .unwrap_or_else(|e| panic!("the {rider} rider's interface does not parse: {e:?}"));
        for decl in interface.natives {
            let Some(behavior) = behavior(&decl.name) else {
                undecided.push(format!("{rider}.{}", decl.name));
                continue;
            };
            callables.push(Callable {
                name: decl.name.clone(),
                type_params: decl.type_params.iter().map(|t| t.class).collect(),
                params: decl.params.iter().map(|p| (p.mode, p.ty.clone())).collect(),
                result: (decl.result != IrType::Unit).then(|| decl.result.clone()),
                behavior,
                origin: Origin::Native {
                    rider: rider.to_string(),
                    native: decl.name.clone(),
                },
                cost: 2,
                recursive: false,
            });
            natives.push((rider.to_string(), decl));
        }
    }
    // Every function the built-in library defines, imported into one script whose IR
    // then holds each signature as the front end understood it.
    let mut names = Vec::new();
    for (module, text) in LIBRARY {
        // A generated program touches neither stdin nor the file system.
        if *module == "io" {
            continue;
        }
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("fun ") {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                names.push((module.to_string(), rest[..end].to_string()));
            }
        }
    }
    let script: String = names
        .iter()
        .map(|(m, f)| format!("import {m}.{f} as {m}_{f}\n"))
        .collect();
    let loader = crate::program::builtin_riders(MemoryLoader::new());
    let compiled = compile(&loader, "catalog.dfs", &script)
        .unwrap_or_else(|f| panic!("the library does not compile:\n{}", f.render()));
    for (module, function) in names {
        let qualified = format!("{module}.{function}");
        let Some(behavior) = behavior(&qualified) else {
            undecided.push(qualified);
            continue;
        };
        let id = compiled
            .program
            .function_by_name(&qualified)
            .unwrap_or_else(|| panic!("the library's {qualified} is not in its IR"));
        let f = compiled.program.function(id);
        callables.push(Callable {
            name: format!("{module}_{function}"),
            type_params: f.type_params.iter().map(|t| t.class).collect(),
            params: f
                .params
                .iter()
                .map(|p| (p.mode, f.slot_type(p.slot).clone()))
                .collect(),
            result: (f.result != IrType::Unit).then(|| f.result.clone()),
            behavior,
            origin: Origin::Library { module, function },
            cost: 2,
            recursive: false,
        });
    }
    // The generator declares enums of its own but no instance of a generic one (such as
    // `result[i64, string]`, whose type a program would have to import to name), so a
    // callable that takes or gives one is left out; the `result_*` cases cover them.
    callables.retain(|c| {
        !c.params.iter().any(|(_, t)| mentions_generic_enum(t))
            && !c.result.as_ref().is_some_and(mentions_generic_enum)
    });
    Catalog {
        callables,
        undecided,
        natives,
    }
}

/// Whether `ty` is or holds an instance of a generic enum.
fn mentions_generic_enum(ty: &IrType) -> bool {
    match ty {
        IrType::Enum(e) => {
            !e.args.is_empty()
                || e.all_variant_fields()
                    .iter()
                    .flatten()
                    .any(mentions_generic_enum)
        }
        IrType::List(t) | IrType::Option(t) => mentions_generic_enum(t),
        IrType::Tuple(ts) => ts.iter().any(mentions_generic_enum),
        IrType::Map(k, v) => mentions_generic_enum(k) || mentions_generic_enum(v),
        IrType::Record(r) => r.fields.iter().any(mentions_generic_enum),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_callable_has_a_behavior() {
        let c = catalog();
        assert!(
            c.undecided.is_empty(),
            "decide the behavior of {} in difftest/src/gen/catalog.rs",
            c.undecided.join(", ")
        );
        assert!(c.callables.iter().any(|c| c.name == "probe_args14"));
        assert!(c.callables.iter().any(|c| c.name == "lists_push"));
    }

    #[test]
    fn behaviors_name_real_parameters() {
        for c in &catalog().callables {
            for &(p, _) in &c.behavior.guards {
                assert!(p < c.params.len(), "{}: guard on parameter {p}", c.name);
            }
            for &(p, _) in &c.behavior.limits {
                assert!(p < c.params.len(), "{}: limit on parameter {p}", c.name);
            }
        }
    }
}
