//! Embedding datalove: one program compiled once per backend, its `main` run, `fib(20)`
//! called with a value, a Rust closure registered as a native, and an overflow caught
//! as a value.
//!
//! ```text
//! cargo run --example embed            # every backend that can run here
//! cargo run --example embed -- jit c   # the backends named
//! ```

use datalove::{Backend, Capture, Engine, Error, HostRider};

const PROGRAM: &str = "\
import hostmod.scale

fun fib(n: u64): u64
  if n < 2
    ret n
  end if
  ret fib(n - 1) + fib(n - 2)
end fun

fun add(a: u8, b: u8): u8
  ret a + b
end fun

debuglog fib(20)
";

/// A module wrapping the host's rider, as a module wraps any rider's natives.
const HOST_MODULE: &str = "\
require rider host
import host.scale as host_scale
fun scale(x: i64): i64
  ret host_scale(x)
end fun
";

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    let backends: Vec<Backend> = if names.is_empty() {
        Backend::ALL.to_vec()
    } else {
        names
            .iter()
            .map(|n| Backend::from_name(n).unwrap_or_else(|| panic!("no backend `{n}`")))
            .collect()
    };
    for backend in backends {
        if let Err(e) = show(backend) {
            println!("{:6} {e}", backend.name());
        }
    }
}

fn show(backend: Backend) -> Result<(), Error> {
    let name = backend.name();
    let output = Capture::new();
    // Host natives are closures of this process, called through the native-call ABI on
    // every backend (aot and c load the program in-process as a shared library).
    let factor = 10;
    let engine = Engine::new(backend)?
        .check_leaks(true)
        .output(output.clone())
        .module_source("hostmod", HOST_MODULE)
        .host_rider(
            HostRider::new("host", "native fun scale(x: i64): i64\n")?
                .func("scale", move |x: i64| Ok(x * factor))?,
        )?;
    // Compiled once (aot and c: built once), run twice.
    let module = engine.compile_str("embed.dfs", PROGRAM)?;
    module.run()?;
    module.run()?;
    let printed = output.take_string().replace('\n', " ");
    println!("{name:6} main printed: {printed}");
    let fib = module.func::<(u64,), u64>("fib")?;
    println!("{name:6} fib(20) = {}", fib.call((20,))?);
    let scale = module.func::<(i64,), i64>("hostmod.scale")?;
    println!("{name:6} host native scale(4) = {}", scale.call((4,))?);
    let add = module.func::<(u8, u8), u8>("add")?;
    match add.call((200, 100)) {
        Err(Error::Runtime(e)) => println!("{name:6} add(200, 100) failed: {e}"),
        other => println!("{name:6} add(200, 100) = {other:?}"),
    }
    Ok(())
}
