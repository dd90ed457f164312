//! The embedder's API (`datalove::Engine`, `Module`): compile once, run many times, on
//! every backend that can run here; errors as distinct values.

mod common;

use common::{engines, runtime_error};
use datalove::ir::builder::ProgramBuilder;
use datalove::ir::IrType;
use datalove::{Backend, Capture, Engine, Error, ErrorKind};

/// `fib`, recursively, in the text language (`programs/fib_fun.dfs`), and a call of it.
const FIB: &str = concat!(include_str!("programs/fib_fun.dfs"), "debuglog fib(20)\n");

/// Whether this target's programs start through a runner (an emulator), as under
/// `.ci/run`'s aarch64 half.
fn under_a_runner() -> bool {
    matches!(datalove::Target::current().runner(), Ok(Some(_)))
}

/// A program whose `main` prints `logged`, if given, and returns.
fn builder_with_main(logged: Option<i128>) -> ProgramBuilder {
    let mut builder = ProgramBuilder::new();
    datalove_test_support::define_main(&mut builder, |body| {
        if let Some(value) = logged {
            let slot = body.int(IrType::I64, value);
            body.debuglog(slot);
        }
    });
    builder
}

#[test]
fn a_string_compiles_and_runs_on_every_backend() {
    for (engine, capture) in engines() {
        let backend = engine.backend().name();
        let module = engine.compile_str("fib.dfs", FIB).expect("compiles");
        module.run().expect("runs");
        assert_eq!(capture.take_string(), "6765\n", "{backend}");
    }
}

#[test]
fn a_module_compiled_once_runs_a_thousand_times_and_executables_are_built_once() {
    for (engine, capture) in engines() {
        let backend = engine.backend().name();
        let module = engine
            .compile_str("count.dfs", "debuglog 41 + 1\n")
            .expect("compiles");
        // An executable's run is a process start: through an emulator (about 0.1 s each)
        // a thousand of them on two backends took 190 s, two thirds of this binary's
        // time, so there it runs 50 times, which shows the same (built once, run many).
        let runs = match engine.backend() {
            Backend::Aot | Backend::C if under_a_runner() => 50,
            _ => 1000,
        };
        for _ in 0..runs {
            module.run().expect("runs");
        }
        let expected = "42\n".repeat(runs);
        assert_eq!(capture.take_string(), expected, "{backend}");
        let built = match engine.backend() {
            Backend::Aot | Backend::C => 1,
            Backend::Interp | Backend::Jit => 0,
        };
        assert_eq!(engine.executables_built(), built, "{backend}");
    }
}

#[test]
fn an_executable_directory_goes_with_its_module() {
    for (engine, _) in engines() {
        let before = engine.executables_built();
        let module = engine
            .compile_str("one.dfs", "debuglog 1\n")
            .expect("compiles");
        if engine.executables_built() == before {
            continue; // in-process: nothing built
        }
        let dir = module
            .artifact_dir()
            .expect("an executable's directory")
            .to_path_buf();
        assert!(dir.is_dir(), "{}", dir.display());
        drop(module);
        assert!(!dir.exists(), "{} is left behind", dir.display());
    }
}

#[test]
fn a_runtime_error_is_a_value_with_kind_and_detail() {
    let program = "\
fun add(a: u8, b: u8): u8
  ret a + b
end fun
debuglog 1
debuglog add(200, 100)
";
    for (engine, capture) in engines() {
        let backend = engine.backend().name();
        let module = engine
            .compile_str("overflow.dfs", program)
            .expect("compiles");
        let e = runtime_error(module.run(), backend);
        assert_eq!(e.kind, ErrorKind::Overflow, "{backend}");
        assert_eq!(e.detail, "u8 addition", "{backend}");
        // What was printed before the error is the embedder's too.
        assert_eq!(capture.take_string(), "1\n");
    }
}

#[test]
fn the_depth_limit_is_a_setting() {
    let program = "\
fun down(n: u64): u64
  if n == 0
    ret 0
  end if
  ret down(n - 1)
end fun
debuglog down(500)
";
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let module = engine
            .clone()
            .depth_limit(100)
            .compile_str("deep.dfs", program)
            .expect("compiles");
        let error = module.run().expect_err("too deep");
        assert_eq!(
            error.runtime_kind(),
            Some(ErrorKind::StackOverflow),
            "{backend}"
        );
        assert!(
            error.to_string().contains("call depth limit of 100"),
            "{backend}: {error}"
        );
        // The same program with the default limit runs.
        let module = engine.compile_str("deep.dfs", program).expect("compiles");
        module.run().expect("runs");
    }
}

#[test]
fn compile_refusal_and_rider_failures_are_distinct_errors() {
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let error = engine
            .compile_str("bad.dfs", "debuglog undefined_name\n")
            .err()
            .expect("refused");
        assert!(matches!(error, Error::Compile(_)), "{backend}: {error:?}");

        // IR with no entry: admitted by no backend.
        let mut program = builder_with_main(None).finish();
        program.entry = None;
        let error = engine.compile_program(program).err().expect("refused");
        assert!(matches!(error, Error::Refused(_)), "{backend}: {error:?}");

        // A program that requires a rider no directory holds.
        let mut builder = builder_with_main(None);
        builder.add_rider("no_such_rider");
        let error = engine
            .compile_program(builder.finish())
            .err()
            .expect("refused");
        match &error {
            Error::Rider(m) => assert!(m.contains("no_such_rider"), "{backend}: {m}"),
            other => panic!("{backend}: {other:?}"),
        }
    }
}

#[test]
fn a_program_built_with_the_ir_builder_runs() {
    for (engine, capture) in engines() {
        let backend = engine.backend().name();
        let builder = builder_with_main(Some(7));
        let module = engine.compile_program(builder.finish()).expect("loads");
        module.run().expect("runs");
        module.run().expect("runs again");
        assert_eq!(capture.take_string(), "7\n7\n", "{backend}");
    }
}

#[test]
fn an_unknown_backend_name_is_refused() {
    assert!(matches!(
        Engine::from_name("wasm"),
        Err(Error::Unsupported(_))
    ));
    assert_eq!(Engine::from_name("jit").unwrap().backend(), Backend::Jit);
}

/// The in-process engines (function calls are theirs), output captured.
fn in_process() -> Vec<(Engine, Capture)> {
    [Backend::Interp, Backend::Jit]
        .into_iter()
        .map(|backend| {
            let capture = Capture::new();
            let engine = Engine::new(backend).expect("in-process backends run anywhere");
            (engine.check_leaks(true).output(capture.clone()), capture)
        })
        .collect()
}

const VALUES: &str = concat!(
    include_str!("programs/fib_fun.dfs"),
    "\
fun negate(x: i32): i32
  ret 0 - x
end fun
fun half(x: f64): f64
  ret x / 2.0
end fun
fun flip(b: bool): bool
  if b
    ret false
  end if
  ret true
end fun
fun greet(ref name: string): string
  debuglog name
  ret \"hello\"
end fun
fun sum(ref xs: [i64]): i64
  var total: i64 = 0
  var i: index = 0
  loop while i < len(xs)
    set total = total + xs[i]
    set i = i + 1
  end loop
  ret total
end fun
fun pass_list(xs: [string]): [string]
  ret xs
end fun
fun maybe(o: ?u8): ?u8
  ret o
end fun
fun swap(p: (i64, string)): (string, i64)
  ret (p.1, p.0)
end fun
fun add8(a: u8, b: u8): u8
  ret a + b
end fun
fun nothing()
  debuglog 5
end fun
fun first<T>(ref xs: [T]): T
  ret xs[0]
end fun
debuglog fib(10)
"
);

#[test]
fn functions_are_called_with_each_kind_of_value() {
    for (engine, capture) in engines() {
        let backend = engine.backend().name();
        let module = engine.compile_str("values.dfs", VALUES).expect("compiles");
        let fib = module.func::<(u64,), u64>("fib").expect("fib");
        assert_eq!(fib.call((20,)).unwrap(), 6765, "{backend}");
        assert_eq!(fib.call((10,)).unwrap(), 55, "{backend}");
        let negate = module.func::<(i32,), i32>("negate").unwrap();
        assert_eq!(negate.call((7,)).unwrap(), -7, "{backend}");
        let half = module.func::<(f64,), f64>("half").unwrap();
        assert_eq!(half.call((5.0,)).unwrap(), 2.5, "{backend}");
        let flip = module.func::<(bool,), bool>("flip").unwrap();
        assert!(flip.call((false,)).unwrap(), "{backend}");
        let greet = module.func::<(String,), String>("greet").unwrap();
        assert_eq!(greet.call(("you".into(),)).unwrap(), "hello", "{backend}");
        let sum = module.func::<(Vec<i64>,), i64>("sum").unwrap();
        assert_eq!(sum.call((vec![1, 2, 3, 40],)).unwrap(), 46, "{backend}");
        let pass_list = module
            .func::<(Vec<String>,), Vec<String>>("pass_list")
            .unwrap();
        let words = vec!["a".to_string(), "bc".into(), String::new()];
        assert_eq!(
            pass_list.call((words.clone(),)).unwrap(),
            words,
            "{backend}"
        );
        let maybe = module.func::<(Option<u8>,), Option<u8>>("maybe").unwrap();
        assert_eq!(maybe.call((Some(9),)).unwrap(), Some(9), "{backend}");
        assert_eq!(maybe.call((None,)).unwrap(), None, "{backend}");
        let swap = module
            .func::<((i64, String),), (String, i64)>("swap")
            .unwrap();
        assert_eq!(
            swap.call(((4, "four".into()),)).unwrap(),
            ("four".into(), 4),
            "{backend}"
        );
        let add8 = module.func::<(u8, u8), u8>("add8").unwrap();
        assert_eq!(add8.call((1, 2)).unwrap(), 3, "{backend}");
        let nothing = module.func::<(), ()>("nothing").unwrap();
        nothing.call(()).unwrap();
        // What the functions printed went to the sink, in order; nothing leaked (leak
        // checking is on).
        assert_eq!(capture.take_string(), "you\n5\n", "{backend}");
    }
}

#[test]
fn a_call_that_fails_is_a_runtime_error_and_the_module_goes_on() {
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let module = engine.compile_str("values.dfs", VALUES).expect("compiles");
        let add8 = module.func::<(u8, u8), u8>("add8").unwrap();
        let error = add8.call((200, 100)).expect_err("overflows");
        assert_eq!(
            error.runtime_kind(),
            Some(ErrorKind::Overflow),
            "{backend}: {error}"
        );
        assert_eq!(add8.call((20, 10)).unwrap(), 30, "{backend}");
        let sum = module.func::<(Vec<i64>,), i64>("sum").unwrap();
        let error = sum.call((vec![i64::MAX, 1],)).expect_err("overflows");
        assert_eq!(
            error.runtime_kind(),
            Some(ErrorKind::Overflow),
            "{backend}: {error}"
        );
    }
}

#[test]
fn a_signature_mismatch_is_refused_before_any_call() {
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let module = engine.compile_str("values.dfs", VALUES).expect("compiles");
        let refused = |result: Result<(), Error>, says: &str| match result {
            Err(Error::Signature(m)) => assert!(m.contains(says), "{backend}: {m}"),
            other => panic!("{backend}: {other:?}"),
        };
        refused(
            module.func::<(i64,), i64>("fib").map(drop),
            "`fib` is fun(u64): u64, but the Rust types say fun(i64): i64",
        );
        refused(
            module.func::<(u64, u64), u64>("fib").map(drop),
            "fun(u64, u64): u64",
        );
        refused(
            module.func::<(u64,), String>("fib").map(drop),
            "fun(u64): string",
        );
        refused(
            module.func::<(), ()>("no_such").map(drop),
            "no function `no_such`",
        );
        refused(
            module.func::<(Vec<i64>,), i64>("first").map(drop),
            "generic",
        );
    }
}

#[test]
fn a_call_program_is_compiled_once_and_called_many_times() {
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let module = engine.compile_str("values.dfs", VALUES).expect("compiles");
        let before = engine.executables_built();
        let fib = module.func::<(u64,), u64>("fib").unwrap();
        let negate = module.func::<(i32,), i32>("negate").unwrap();
        let total: u64 = (0..1000).map(|i| fib.call((i % 10,)).unwrap()).sum();
        // fib(0) + ... + fib(9) = 88, a hundred times.
        assert_eq!(total, 8800, "{backend}");
        assert_eq!(negate.call((3,)).unwrap(), -3, "{backend}");
        module.run().expect("main still runs");
        // aot and c: the call program's shared library, built once for the module
        // whatever the number of lookups and calls.
        let built = match engine.backend() {
            Backend::Aot | Backend::C => 1,
            Backend::Interp | Backend::Jit => 0,
        };
        assert_eq!(engine.executables_built() - before, built, "{backend}");
    }
}

const HOST_DLI: &str = "\
native fun twice(x: i64): i64
native fun shout(ref s: string): string
native fun count(xs: [string]): u64
native fun refuse(x: u8): u8
native fun explode(): unit
";

const HOST_MODULE: &str = "\
require rider host
import host.twice as host_twice
import host.shout as host_shout
import host.count as host_count
import host.refuse as host_refuse
import host.explode as host_explode
fun twice(x: i64): i64
  ret host_twice(x)
end fun
fun shout(ref s: string): string
  ret host_shout(ref s)
end fun
fun count(xs: [string]): u64
  ret host_count(xs)
end fun
fun refuse(x: u8): u8
  ret host_refuse(x)
end fun
fun explode()
  host_explode()
end fun
";

/// [`engines`], each with the `host` rider and its module `hostmod`.
fn host_engines() -> Vec<(Engine, Capture)> {
    engines()
        .into_iter()
        .map(|(engine, capture)| {
            let engine = engine
                .module_source("hostmod", HOST_MODULE)
                .host_rider(host_rider())
                .unwrap();
            (engine, capture)
        })
        .collect()
}

/// The `host` rider: each native a closure.
fn host_rider() -> datalove::HostRider {
    let factor = 2; // captured
    datalove::HostRider::new("host", HOST_DLI)
        .unwrap()
        .func("twice", move |x: i64| Ok(x * factor))
        .unwrap()
        .func("shout", |s: String| Ok(s.to_uppercase()))
        .unwrap()
        .func("count", |xs: Vec<String>| Ok(xs.len() as u64))
        .unwrap()
        .func("refuse", |x: u8| -> Result<u8, String> {
            Err(format!("{x} is not welcome"))
        })
        .unwrap()
        .func("explode", || -> Result<(), String> { panic!("boom") })
        .unwrap()
}

#[test]
fn host_natives_are_closures_called_through_the_abi() {
    for (engine, capture) in host_engines() {
        let backend = engine.backend().name();
        let program = "\
import hostmod.twice
import hostmod.shout
import hostmod.count
debuglog twice(21)
let s = \"quiet\"
debuglog shout(ref s)
debuglog count([\"a\", \"b\", \"c\"])
";
        let module = engine.compile_str("host.dfs", program).expect("compiles");
        module.run().expect("runs");
        assert_eq!(capture.take_string(), "42\nQUIET\n3\n", "{backend}");
        // And from a called function: an imported one is named `module.function`.
        let module = engine
            .compile_str("host.dfs", "import hostmod.twice\n")
            .unwrap();
        let twice = module.func::<(i64,), i64>("hostmod.twice").expect("twice");
        assert_eq!(twice.call((50,)).unwrap(), 100, "{backend}");
    }
}

#[test]
fn a_host_native_that_fails_or_panics_is_a_native_failure() {
    for (engine, _) in host_engines() {
        let backend = engine.backend().name();
        let module = engine
            .compile_str("refuse.dfs", "import hostmod.refuse\ndebuglog refuse(7)\n")
            .unwrap();
        let e = runtime_error(module.run(), backend);
        assert_eq!(e.kind, ErrorKind::NativeFailure, "{backend}");
        assert_eq!(e.detail, "host.refuse: 7 is not welcome", "{backend}");
        let module = engine
            .compile_str("explode.dfs", "import hostmod.explode\nexplode()\n")
            .unwrap();
        let e = runtime_error(module.run(), backend);
        assert_eq!(e.kind, ErrorKind::NativeFailure, "{backend}");
        assert!(e.detail.contains("boom"), "{backend}: {}", e.detail);
    }
}

#[test]
fn a_host_native_is_checked_against_its_declaration() {
    let rider = datalove::HostRider::new("host", HOST_DLI).unwrap();
    let refused = |result: Result<datalove::HostRider, Error>, says: &str| match result {
        Err(Error::Signature(m)) => assert!(m.contains(says), "{m}"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("registered"),
    };
    refused(
        rider.clone().func("twice", |x: i32| Ok(x)),
        "`host.twice` is fun(i64): i64, but the closure is fun(i32): i32",
    );
    refused(
        rider.clone().func("nope", || Ok(())),
        "declares no native `nope`",
    );
    // Two riders may not share a closure type (a trampoline finds its closure by type).
    fn scaler(by: i64) -> impl Fn(i64) -> Result<i64, String> + Send + Sync + 'static {
        move |x| Ok(x * by)
    }
    let one = datalove::HostRider::new("one", "native fun f(x: i64): i64\n").unwrap();
    let two = datalove::HostRider::new("two", "native fun f(x: i64): i64\n").unwrap();
    let engine = Engine::new(Backend::Interp)
        .unwrap()
        .host_rider(one.func("f", scaler(2)).unwrap())
        .unwrap();
    match engine.host_rider(two.func("f", scaler(3)).unwrap()) {
        Err(Error::Signature(m)) => assert!(m.contains("its own type"), "{m}"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("accepted"),
    }
    // An interface with a native left without a closure is refused by the engine.
    let incomplete = rider.func("twice", |x: i64| Ok(x)).unwrap();
    let engine = Engine::new(Backend::Interp).unwrap();
    match engine.host_rider(incomplete) {
        Err(Error::Rider(m)) => assert!(m.contains("no closure for its native `shout`"), "{m}"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn engines_and_modules_are_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Engine>();
    shared::<datalove::Module>();
    let (engine, capture) = in_process().remove(1);
    let module = engine.compile_str("fib.dfs", FIB).expect("compiles");
    let fib = module.func::<(u64,), u64>("fib").unwrap();
    std::thread::scope(|scope| {
        for n in [5u64, 10, 15] {
            let fib = &fib;
            scope.spawn(move || {
                assert_eq!(fib.call((n,)).unwrap(), [5, 55, 610][n as usize / 5 - 1])
            });
        }
    });
    assert_eq!(capture.take_string(), "");
}

#[test]
fn a_called_function_reaches_a_loaded_riders_natives_on_every_backend() {
    let program = "\
import strings.slice
import strings.len
import strings.split
import strings.join
fun middle(ref s: string): string
  ret slice(ref s, 1, len(ref s) - 1)
end fun
fun pieces(ref s: string, ref sep: string): string
  ret join(ref split(ref s, ref sep), ref \"|\")
end fun
";
    for (engine, _) in engines() {
        let backend = engine.backend().name();
        let module = engine.compile_str("middle.dfs", program).expect("compiles");
        let middle = module.func::<(String,), String>("middle").unwrap();
        assert_eq!(middle.call(("(abc)".into(),)).unwrap(), "abc", "{backend}");
        // A slice the IR cuts itself (`str_slice`): the runtime's bounds error.
        let e = runtime_error(middle.call(("x".into(),)), backend);
        assert_eq!(e.kind, ErrorKind::IndexOutOfBounds, "{backend}");
        assert!(e.detail.starts_with("slice 1..0"), "{backend}: {e}");
        let pieces = module.func::<(String, String), String>("pieces").unwrap();
        assert_eq!(
            pieces.call(("a,b".into(), ",".into())).unwrap(),
            "a|b",
            "{backend}"
        );
        // The std rider's failure, through the slot the engine filled.
        let e = runtime_error(pieces.call(("a,b".into(), "".into())), backend);
        assert_eq!(e.kind, ErrorKind::NativeFailure, "{backend}");
        assert!(e.detail.starts_with("std.string_split"), "{backend}: {e}");
    }
}

#[test]
fn a_program_library_carries_no_runtime_of_its_own() {
    let target = datalove_toolchain::Target::current();
    for (engine, _) in engines() {
        let backend = engine.backend();
        if !matches!(backend, Backend::Aot | Backend::C) {
            continue;
        }
        let module = engine.compile_str("fib.dfs", FIB).expect("compiles");
        let dir = std::env::temp_dir().join(format!(
            "datalove-embed-lib-{}-{}",
            backend.name(),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("libprogram.so");
        let program = &module.compiled().program;
        match backend {
            Backend::Aot => datalove_clif_aot::build_library(program, &target, &out)
                .unwrap_or_else(|e| panic!("{e}")),
            _ => datalove_cbackend::build_library(program, &target, &out)
                .unwrap_or_else(|e| panic!("{e}")),
        }
        let bytes = std::fs::read(&out).unwrap();
        let has = |name: &str| bytes.windows(name.len()).any(|w| w == name.as_bytes());
        for export in [
            datalove_toolchain::LIBRARY_ENTRY_SYMBOL,
            datalove_toolchain::LIBRARY_MANIFEST_SYMBOL,
            datalove_toolchain::LIBRARY_SLOTS_SYMBOL,
        ] {
            assert!(has(export), "{}: no {export}", backend.name());
        }
        // The runtime is the loading process's: none of its entry points is linked in.
        for runtime in ["dtlv_rt_create", "dtlv_rt_run_linked", "dtlv_rt_finish"] {
            assert!(!has(runtime), "{}: carries {runtime}", backend.name());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn an_engine_with_a_cache_builds_an_unchanged_program_once() {
    for backend in [Backend::Aot, Backend::C] {
        let dir = datalove_test_support::scratch("embed-cache", backend.name());
        let capture = Capture::new();
        let engine = match Engine::new(backend) {
            Ok(engine) => engine
                .cache(Some(datalove::Cache::at(dir.join("cache"))))
                .output(capture.clone()),
            Err(Error::Unavailable(_)) => continue,
            Err(e) => panic!("{e}"),
        };
        let first = engine.compile_str("fib.dfs", FIB).expect("compiles");
        assert_eq!(first.cache_event(), Some(datalove::CacheEvent::Miss));
        let second = engine.compile_str("fib.dfs", FIB).expect("compiles");
        assert_eq!(second.cache_event(), Some(datalove::CacheEvent::Hit));
        assert_eq!(
            engine.executables_built(),
            1,
            "the second came from the cache"
        );
        second.run().expect("runs");
        drop(first);
        second.run().expect("runs after the first module is gone");
        assert_eq!(capture.take_string(), "6765\n6765\n");
        // The call program's shared library: built for the first module whose
        // functions are called, the cache's for the next (each loads a copy of its own).
        let fib = |m: &datalove::Module| {
            let f = m.func::<(u64,), u64>("fib").expect("fib");
            f.call((20,)).expect("calls")
        };
        assert_eq!(fib(&second), 6765);
        assert_eq!(engine.executables_built(), 2);
        let third = engine.compile_str("fib.dfs", FIB).expect("compiles");
        assert_eq!((fib(&third), fib(&second)), (6765, 6765));
        assert_eq!(
            engine.executables_built(),
            2,
            "the call library came from the cache"
        );
        drop(third);
        let dir_of = second.artifact_dir().expect("an executable").to_path_buf();
        drop(second);
        assert!(dir_of.is_dir(), "the cache keeps its entry");

        // A program with host closures is a shared library run in-process: cached too.
        let hosted = || {
            let rider = datalove::HostRider::new("host", "native fun triple(x: u8): u8\n")
                .unwrap()
                .func("triple", |x: u8| {
                    x.checked_mul(3).ok_or_else(|| "too big".to_string())
                })
                .unwrap();
            Engine::new(backend)
                .unwrap()
                .cache(Some(datalove::Cache::at(dir.join("cache"))))
                .output(capture.clone())
                .module_source("hostmod", "require rider host\nimport host.triple as t\nfun triple(x: u8): u8\n  ret t(x)\nend fun\n")
                .host_rider(rider)
                .unwrap()
        };
        let program = "import hostmod.triple\ndebuglog triple(14)\n";
        let (one, two) = (hosted(), hosted());
        let a = one.compile_str("hosted.dfs", program).expect("compiles");
        assert_eq!(a.cache_event(), Some(datalove::CacheEvent::Miss));
        let b = two.compile_str("hosted.dfs", program).expect("compiles");
        assert_eq!(b.cache_event(), Some(datalove::CacheEvent::Hit));
        assert_eq!((one.executables_built(), two.executables_built()), (1, 0));
        a.run().expect("runs");
        b.run().expect("runs");
        assert_eq!(capture.take_string(), "42\n42\n");
    }
}
