//! How the cost of checking a program grows with its size: generators of programs of
//! any size in the shapes that once made the front end quadratic (many `let`s in one
//! function, a `.dli` with many natives, a deep chain of generic functions, one long
//! line, many owned locals across fallible operations), and an ignored test that
//! prints compile + verify time at 1x and 10x.
//!
//! No test here asserts a duration (timed tests are not benchmarks). The ordinary tests
//! only check that every generated program compiles and verifies, so the generators
//! stay valid; the figures come from
//!
//! ```text
//! cargo test --release -p datalove-front --test front_growth -- --ignored --nocapture
//! GROWTH_BASE=20000 cargo test --release -p datalove-front --test front_growth -- --ignored --nocapture
//! ```
//!
//! (`GROWTH_BASE` is the 1x size, 10000 by default; the benchmarks can call
//! [`shapes`]' generators the same way.)

mod front_support;

use std::time::{Duration, Instant};

use datalove_front::{compile, MemoryLoader};

/// One program shape: a name and a generator from a size to `(root path, root text,
/// extra modules, extra riders)`.
pub struct Shape {
    pub name: &'static str,
    pub generate: fn(usize) -> Generated,
}

pub struct Generated {
    pub root: String,
    pub modules: Vec<(String, String)>,
    pub riders: Vec<(String, String)>,
}

fn script(text: String) -> Generated {
    Generated {
        root: text,
        modules: Vec::new(),
        riders: Vec::new(),
    }
}

/// One function with `n` `let`s, each computed from the one before.
fn lets(n: usize) -> Generated {
    let mut t = String::from("fun f(): u64\n  let v0: u64 = 1\n");
    for i in 1..n {
        t.push_str(&format!("  let v{i} = v{} + 1\n", i - 1));
    }
    t.push_str(&format!("  ret v{}\nend fun\ndebuglog f()\n", n - 1));
    script(t)
}

/// One function with `n` owned locals, all live to its end, and a checked addition
/// (an instruction that can fail, so it needs an abandon path) after each.
fn owned_lets(n: usize) -> Generated {
    let mut t = String::from("fun f(): u64\n  var k: u64 = 0\n");
    for i in 0..n {
        t.push_str(&format!("  let s{i} = \"x\"\n  set k = k + 1\n"));
    }
    t.push_str("  ret k\nend fun\ndebuglog f()\n");
    script(t)
}

/// A rider interface with `n` natives, one of which a module wraps.
fn natives(n: usize) -> Generated {
    let mut dli = String::new();
    for i in 0..n {
        dli.push_str(&format!("native fun nat{i}(x: u32, ref s: string): u32\n"));
    }
    Generated {
        root: "import wrap.call\ndebuglog call(1)\n".to_string(),
        modules: vec![(
            "wrap".to_string(),
            format!(
                "require rider many\nimport many.nat{last}\nfun call(x: u32): u32\n  ret nat{last}(x, ref \"s\")\nend fun\n",
                last = n - 1
            ),
        )],
        riders: vec![("many".to_string(), dli)],
    }
}

/// Polymorphic recursion `n` levels deep: `g0<T>` calls `g1` at `[T]`, which calls
/// `g2` at `[[T]]` in its caller's terms, and so on.
fn polymorphic_chain(n: usize) -> Generated {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!(
            "fun g{i}<T>(x: T): u64\n  ret g{}([x])\nend fun\n",
            i + 1
        ));
    }
    t.push_str(&format!("fun g{n}<T>(x: T): u64\n  ret 0\nend fun\n"));
    t.push_str("debuglog g0(1u8)\n");
    script(t)
}

/// One function with `n` locals, local `i` bound to `value(i)`, and after each a branch
/// that sets `k` to `then(i)` or adds 2 to it.
fn branchy(n: usize, value: impl Fn(usize) -> String, then: impl Fn(usize) -> String) -> Generated {
    let mut t = String::from("fun f(): u64\n  var k: u64 = 0\n");
    for i in 0..n {
        t.push_str(&format!(
            "  let v{i} = {}\n  if k < {i}\n    set k = {}\n  else\n    set k = k + 2\n  end if\n",
            value(i),
            then(i)
        ));
    }
    t.push_str("  ret k\nend fun\ndebuglog f()\n");
    script(t)
}

/// One function with `n` locals and a branch after each.
fn branches(n: usize) -> Generated {
    branchy(n, |_| "k + 1".into(), |i| format!("v{i}"))
}

/// [`branches`] where every local owns a value, so all of them are live (owe a drop)
/// in every branch.
fn owned_branches(n: usize) -> Generated {
    branchy(n, |_| "\"x\"".into(), |_| "k + 1".into())
}

/// One line holding a list of `n` elements.
fn long_line(n: usize) -> Generated {
    let elems: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    script(format!(
        "let xs: [u64] = [{}]\ndebuglog xs[0]\n",
        elems.join(", ")
    ))
}

/// `n` small functions, each called once from the script.
fn functions(n: usize) -> Generated {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!("fun f{i}(x: u64): u64\n  ret x + {i}\nend fun\n"));
    }
    for i in 0..n {
        t.push_str(&format!("debuglog f{i}({i})\n"));
    }
    script(t)
}

pub fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "lets",
            generate: lets,
        },
        Shape {
            name: "owned_lets",
            generate: owned_lets,
        },
        Shape {
            name: "natives",
            generate: natives,
        },
        Shape {
            name: "polymorphic_chain",
            generate: polymorphic_chain,
        },
        Shape {
            name: "branches",
            generate: branches,
        },
        Shape {
            name: "owned_branches",
            generate: owned_branches,
        },
        Shape {
            name: "long_line",
            generate: long_line,
        },
        Shape {
            name: "functions",
            generate: functions,
        },
    ]
}

/// Compiles and verifies `g` as `datalove check` does; the time it took.
fn check(g: &Generated) -> Duration {
    let mut loader = MemoryLoader::new().with_rider("std", front_support::STD_DLI);
    for (name, text) in &g.modules {
        loader = loader.with_module(name, text);
    }
    for (name, text) in &g.riders {
        loader = loader.with_rider(name, text);
    }
    let start = Instant::now();
    let compiled = match compile(&loader, "growth.dfs", &g.root) {
        Ok(c) => c,
        Err(f) => panic!("a generated program does not compile:\n{}", f.render()),
    };
    if let Err(e) = datalove_ir::verify::verify_program(&compiled.program) {
        panic!(
            "a generated program does not verify: {:?}",
            &e[..e.len().min(3)]
        );
    }
    start.elapsed()
}

/// `enum box<T>` nested `depth` times, written as one type and one nested constructor
/// (`var v: box[box[u8]] = box.b(box.b(1u8))`) or as a chain of `let`s, each one level
/// deeper than the one before.
fn nested_box(depth: usize, chain: bool) -> String {
    let mut t = String::from("enum box<T>\n  b(T)\nend enum\n");
    let mut ty = String::from("u8");
    if chain {
        t.push_str("let v0: u8 = 1\n");
        for i in 1..=depth {
            ty = format!("box[{ty}]");
            t.push_str(&format!("let v{i}: {ty} = box.b(v{})\n", i - 1));
        }
        t.push_str(&format!("debuglog v{depth}\n"));
    } else {
        for _ in 0..depth {
            ty = format!("box[{ty}]");
        }
        let value = format!("{}1u8{}", "box.b(".repeat(depth), ")".repeat(depth));
        t.push_str(&format!("var v: {ty} = {value}\ndebuglog v\n"));
    }
    t
}

/// A generic enum's instance holds its type arguments once: its payloads are the
/// declaration's, read at the arguments. When the payloads were held with the arguments
/// put in, each level of `box[box[...]]` held the level below twice, and a type 20 deep
/// took over 30 s to check (100 deep, under the nesting limit of 128, never finished).
#[test]
fn a_generic_enum_nested_a_hundred_deep_compiles() {
    for chain in [false, true] {
        front_support::compile_ok("box.dfs", &nested_box(100, chain), &[]);
    }
}

#[test]
fn every_shape_compiles_and_verifies() {
    for shape in shapes() {
        for n in [1, 2, 50] {
            check(&(shape.generate)(n));
        }
    }
}

#[test]
#[ignore = "prints figures; run in release: see the file's header"]
fn growth_figures() {
    let base: usize = std::env::var("GROWTH_BASE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    // `GROWTH_SHAPE=lets` measures one shape only (for a profiler).
    let only = std::env::var("GROWTH_SHAPE").ok();
    println!(
        "shape                 n={base:<8}  n={:<8}  ratio",
        base * 10
    );
    for shape in shapes() {
        if only.as_deref().is_some_and(|o| o != shape.name) {
            continue;
        }
        let small = (shape.generate)(base);
        let large = (shape.generate)(base * 10);
        // The faster of two runs each, so a noisy neighbour does not make the figure.
        let one = check(&small).min(check(&small));
        let ten = check(&large).min(check(&large));
        println!(
            "{:<20} {:>9.1} ms {:>9.1} ms  {:>5.1}x",
            shape.name,
            one.as_secs_f64() * 1e3,
            ten.as_secs_f64() * 1e3,
            ten.as_secs_f64() / one.as_secs_f64()
        );
    }
}
