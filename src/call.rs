//! Calling a program's functions with values: the call program, and the `embed` rider
//! that moves arguments in and results out through the native-call ABI.
//!
//! A module's functions are called through a second compiled program, made once, the
//! first time a function is looked up: the same functions, with a new entry (the
//! *dispatcher*) that asks the host which function to call (`embed.selected`), takes
//! each argument from the host (`embed.arg<T>(index)`, `T` decided by a trailing
//! descriptor), calls the function and hands its result to the host
//! (`embed.result<T>(in value)`). Each argument is written and each result read through
//! the descriptor the ABI passes, so the host's values have the runtime's layout on
//! every backend; the dispatcher calls the function directly, so a call's depth is the
//! function's own, as when `main` calls it.
//!
//! Which functions can be called: those with no type parameters, every parameter `in`
//! or `ref`, and no `data` in their signature.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::c_void;

use datalove_ir::builder::ProgramBuilder;
use datalove_ir::dli::parse_dli;
use datalove_ir::{
    CompareOp, FileId, FuncId, InstKind, IrType, NativeContext, ParamMode, Program, Terminator,
};
use datalove_rti::rider_helpers::{guard_failure, panic_message, Failure};
use datalove_rti::rtdt::RtHandle;
use datalove_rti::{RtHeader, RtStatus, TyDesc};

use crate::value::Writer;

/// The rider the dispatcher's natives belong to; provided by the host, never loaded.
pub(crate) const EMBED_RIDER: &str = "datalove_embed";

const EMBED_DLI: &str = "\
native fun selected(): u64
native fun arg<T>(index: u64): T
native fun result<T>(in value: T)
";

/// A function the call program can call: its index among the dispatcher's choices, and
/// its signature.
#[derive(Clone, Debug)]
pub(crate) struct Callable {
    pub name: String,
    pub params: Vec<IrType>,
    pub result: IrType,
}

/// Why `func` cannot be called from the host, or `None` when it can.
fn not_callable(program: &Program, func: usize) -> Option<String> {
    let f = &program.functions[func];
    if !f.type_params.is_empty() {
        return Some("it is generic".into());
    }
    if let Some(p) = f
        .params
        .iter()
        .find(|p| !matches!(p.mode, ParamMode::In | ParamMode::Ref))
    {
        return Some(format!(
            "its parameter `{}` is `{}` (only `in` and `ref` parameters are given by the host)",
            p.name,
            format!("{:?}", p.mode).to_lowercase()
        ));
    }
    let types = f
        .params
        .iter()
        .map(|p| f.slot_type(p.slot))
        .chain([&f.result]);
    for ty in types {
        if ty.mentions_param() || mentions_data(ty) {
            return Some(format!(
                "its signature has `{ty}`, which no Rust type stands for"
            ));
        }
    }
    None
}

/// Whether the type mentions `data`, a record or an enum (neither has a Rust type yet).
fn mentions_data(ty: &IrType) -> bool {
    match ty {
        IrType::Data | IrType::Record(_) | IrType::Enum(_) => true,
        IrType::List(t) | IrType::Option(t) => mentions_data(t),
        IrType::Tuple(ts) => ts.iter().any(mentions_data),
        IrType::Map(k, v) => mentions_data(k) || mentions_data(v),
        _ => false,
    }
}

/// The call program: `program` with a dispatcher as its entry, and the functions it can
/// call, in the order `embed.selected` numbers them. Functions that cannot be called are
/// listed with why, so that looking one up says so.
pub(crate) struct CallProgram {
    pub program: Program,
    pub callable: Vec<Callable>,
    pub refused: Vec<(String, String)>,
}

pub(crate) fn call_program(program: &Program) -> CallProgram {
    let entry = program.entry;
    let mut callable = Vec::new();
    let mut chosen: Vec<FuncId> = Vec::new();
    let mut refused = Vec::new();
    for (i, f) in program.functions.iter().enumerate() {
        if entry.map(|e| e.index()) == Some(i) {
            continue;
        }
        match not_callable(program, i) {
            Some(why) => refused.push((f.name.clone(), why)),
            None => {
                callable.push(Callable {
                    name: f.name.clone(),
                    params: f
                        .params
                        .iter()
                        .map(|p| f.slot_type(p.slot).clone())
                        .collect(),
                    result: f.result.clone(),
                });
                chosen.push(FuncId(i as u32));
            }
        }
    }
    let interface =
        parse_dli(EMBED_RIDER, FileId(0), EMBED_DLI).expect("the embed interface parses");
    let native = |name: &str, bindings: Vec<IrType>| -> Box<NativeContext> {
        let decl = interface
            .natives
            .iter()
            .find(|d| d.name == name)
            .expect("declared in EMBED_DLI");
        Box::new(NativeContext::new(
            EMBED_RIDER,
            decl,
            decl.undetermined_type_params(),
            bindings,
        ))
    };
    let modes: Vec<Vec<ParamMode>> = chosen
        .iter()
        .map(|id| {
            program.functions[id.index()]
                .params
                .iter()
                .map(|p| p.mode)
                .collect()
        })
        .collect();
    let mut builder = ProgramBuilder::from_program(program.clone());
    let dispatcher = builder.declare_function("<embed dispatcher>", vec![], vec![], IrType::Unit);
    let mut body = builder.function(dispatcher);
    let give_up = body.abandon_block(&[]);
    let selected = body.new_slot(IrType::U64);
    body.inst(
        InstKind::CallNative {
            dst: Some(selected),
            native: native("selected", vec![]),
            args: vec![],
        },
        Some(give_up),
    );
    for (k, (f, (id, modes))) in callable.iter().zip(chosen.iter().zip(&modes)).enumerate() {
        let this = body.new_block();
        let next = body.new_block();
        let k_slot = body.int(IrType::U64, k as i128);
        let is_this = body.compare(CompareOp::Eq, selected, k_slot);
        body.branch(is_this, this, next);
        body.switch_to(this);
        let mut args = Vec::new();
        for (i, ty) in f.params.iter().enumerate() {
            let owned: Vec<_> = args.iter().map(|&(_, slot)| slot).collect();
            let abandon = body.abandon_block(&owned);
            let index = body.int(IrType::U64, i as i128);
            let arg = body.new_slot(ty.clone());
            body.inst(
                InstKind::CallNative {
                    dst: Some(arg),
                    native: native("arg", vec![ty.clone()]),
                    args: vec![datalove_ir::Arg {
                        mode: ParamMode::In,
                        slot: index,
                    }],
                },
                Some(abandon),
            );
            args.push((modes[i], arg));
        }
        // What the call does not take (its `ref` arguments) is still the dispatcher's.
        let kept: Vec<_> = args
            .iter()
            .filter(|(mode, _)| *mode == ParamMode::Ref)
            .map(|&(_, slot)| slot)
            .collect();
        let abandon = body.abandon_block(&kept);
        let result = (f.result != IrType::Unit).then(|| body.new_slot(f.result.clone()));
        body.call(result, *id, vec![], &args, abandon);
        for slot in kept {
            body.drop_slot(slot);
        }
        if let Some(result) = result {
            let give_up = body.abandon_block(&[]);
            body.inst(
                InstKind::CallNative {
                    dst: None,
                    native: native("result", vec![]),
                    args: vec![datalove_ir::Arg {
                        mode: ParamMode::In,
                        slot: result,
                    }],
                },
                Some(give_up),
            );
        }
        body.terminate(Terminator::Return(None));
        body.switch_to(next);
    }
    body.terminate(Terminator::Return(None));
    builder.set_entry(dispatcher);
    CallProgram {
        program: builder.finish(),
        callable,
        refused,
    }
}

/// Reads a result on the program's thread, into a value the caller downcasts.
pub(crate) type Reader = Box<dyn FnOnce(&TyDesc, *const u8) -> Box<dyn Any + Send> + Send>;

/// One call in progress on the program's thread.
pub(crate) struct CallState {
    pub selected: u64,
    pub args: Vec<Option<Writer>>,
    pub reader: Option<Reader>,
    pub result: Option<Box<dyn Any + Send>>,
}

thread_local! {
    static CALL: RefCell<Option<CallState>> = const { RefCell::new(None) };
}

/// Runs `body` with `state` as the call in progress on this thread; returns the result
/// the program handed over, if it did.
pub(crate) fn with_call(state: CallState, body: impl FnOnce()) -> Option<Box<dyn Any + Send>> {
    CALL.with(|c| *c.borrow_mut() = Some(state));
    body();
    CALL.with(|c| c.borrow_mut().take()).and_then(|s| s.result)
}

fn in_call<R>(f: impl FnOnce(&mut CallState) -> Result<R, Failure>) -> Result<R, Failure> {
    CALL.with(|c| match c.borrow_mut().as_mut() {
        Some(state) => f(state),
        None => Err(Failure::failed("no call is in progress")),
    })
}

// The `embed` rider's natives, with the words `EMBED_DLI` gives them.

unsafe extern "C-unwind" fn embed_selected(
    rt: *mut RtHeader,
    out: *mut c_void,
    _out_td: *const TyDesc,
) -> RtStatus {
    let rt = RtHandle::from_raw(rt);
    guard_failure(rt, || {
        let selected = in_call(|s| Ok(s.selected))?;
        (out as *mut u64).write(selected);
        Ok(())
    })
}

unsafe extern "C-unwind" fn embed_arg(
    rt: *mut RtHeader,
    index: *mut c_void,
    _index_td: *const TyDesc,
    out: *mut c_void,
    out_td: *const TyDesc,
    _t_td: *const TyDesc,
) -> RtStatus {
    let handle = RtHandle::from_raw(rt);
    guard_failure(handle, || {
        let index = (index as *const u64).read() as usize;
        let writer = in_call(|s| {
            s.args
                .get_mut(index)
                .and_then(Option::take)
                .ok_or_else(|| Failure::failed(format!("argument {index} was given already")))
        })?;
        writer(handle, &*out_td, out as *mut u8).map_err(Failure::failed)
    })
}

unsafe extern "C-unwind" fn embed_result(
    rt: *mut RtHeader,
    value: *mut c_void,
    value_td: *const TyDesc,
    _out: *mut c_void,
    _out_td: *const TyDesc,
) -> RtStatus {
    let handle = RtHandle::from_raw(rt);
    guard_failure(handle, || {
        let reader = in_call(|s| {
            s.reader
                .take()
                .ok_or_else(|| Failure::failed("the result was handed over already"))
        });
        // The value is the native's (`in`): read, then dropped whatever happened.
        let read = reader.and_then(|reader| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                reader(&*value_td, value as *const u8)
            }))
            .map_err(|payload| Failure::failed(panic_message(&*payload)))
        });
        datalove_rti::call::dtlv_rti_drop(handle, value, &*value_td);
        let read = read?;
        in_call(|s| {
            s.result = Some(read);
            Ok(())
        })
    })
}

/// The address of the `embed` native `ctx` names.
pub(crate) fn embed_native(ctx: &NativeContext) -> Result<*const c_void, String> {
    Ok(match ctx.function() {
        "selected" => embed_selected as *const c_void,
        "arg" => embed_arg as *const c_void,
        "result" => embed_result as *const c_void,
        other => return Err(format!("the host has no native `embed.{other}`")),
    })
}
