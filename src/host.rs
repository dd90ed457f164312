//! Host natives: Rust closures registered as the natives of a rider at run time, with no
//! shared library, called by every backend through exactly the native-call
//! ABI a loaded rider's natives are called through.
//!
//! A host rider is an interface (`.dli` text, which the front end checks programs
//! against, as a rider's file) and one closure per native it declares. Each closure's
//! Rust types are checked against its declaration when it is registered. The ABI passes
//! no context to a native, so each closure gets a native of its own: a trampoline
//! instantiated for the closure's type (`extern "C-unwind" fn(rt, a0, t0, ..., out,
//! out_td) -> status`, the word count `NativeContext::word_count` gives a non-generic
//! native), which finds the closure in the table of the thread the module runs on. It
//! reads each argument through its descriptor (dropping an `in` argument after, as its
//! owner), writes the result through the result's descriptor, returns `STATUS_OK`, and
//! turns an `Err(message)` or a panic into a failure status with the message: a runtime
//! error `native failure: <rider>.<native>: <message>`, as for any rider.
//!
//! Host natives run in-process on every backend: on aot and c a program that requires a
//! host rider is built as a shared library, loaded into this process, and its native
//! slots hold the trampolines (see `docs/embedding.md`).

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;

use datalove_ir::dli::parse_dli;
use datalove_ir::{FileId, IrType, NativeContext, ParamMode, RiderInterface};
use datalove_rti::rider_helpers::{guard_failure, Failure};
use datalove_rti::rtdt::RtHandle;
use datalove_rti::{RtHeader, RtStatus, TyDesc};

use crate::engine::signature;
use crate::value::{Params, Value};
use crate::Error;

/// A rider whose natives are Rust closures.
#[derive(Clone)]
pub struct HostRider {
    name: String,
    interface_text: String,
    interface: RiderInterface,
    natives: HashMap<String, Registered>,
}

/// One registered closure.
#[derive(Clone)]
struct Registered {
    closure_type: TypeId,
    closure: Arc<dyn Any + Send + Sync>,
    /// Whether each parameter is `in` (the native owns it, and drops it).
    owned: Arc<[bool]>,
    trampoline: usize,
}

impl HostRider {
    /// A host rider `name` with the interface `interface` (`.dli` text, as in a rider's
    /// file). Programs reach it as any rider: a module that says `require rider NAME`.
    pub fn new(name: &str, interface: &str) -> Result<HostRider, Error> {
        let parsed = parse_dli(name, FileId(0), interface).map_err(|diagnostics| {
            let messages: Vec<String> = diagnostics.iter().map(|d| d.message.clone()).collect();
            Error::Signature(format!(
                "the interface of host rider `{name}`: {}",
                messages.join("; ")
            ))
        })?;
        Ok(HostRider {
            name: name.to_string(),
            interface_text: interface.to_string(),
            interface: parsed,
            natives: HashMap::new(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn interface_text(&self) -> &str {
        &self.interface_text
    }

    /// Registers `closure` as native `native`: it takes the arguments `P` (a tuple, one
    /// [`Value`] per parameter, `in` or `ref`) and returns `Ok(R)` or `Err(message)`
    /// (a failure status). [`Error::Signature`] when the interface does not declare
    /// `native`, declares it generic or with a `mut` or `out` parameter, or with other
    /// types than `P` and `R`; or when this closure's type is registered already
    /// (each native needs a closure of its own type, which a closure literal is).
    pub fn func<P: Params, R: Value, F: HostFn<P, R>>(
        mut self,
        native: &str,
        closure: F,
    ) -> Result<HostRider, Error> {
        let rider = &self.name;
        let decl = self
            .interface
            .natives
            .iter()
            .find(|d| d.name == native)
            .ok_or_else(|| {
                Error::Signature(format!(
                    "host rider `{rider}` declares no native `{native}`"
                ))
            })?;
        if !decl.type_params.is_empty() {
            return Err(Error::Signature(format!(
                "`{rider}.{native}` is generic: a host native has concrete types"
            )));
        }
        if decl
            .params
            .iter()
            .any(|p| !matches!(p.mode, ParamMode::In | ParamMode::Ref))
        {
            return Err(Error::Signature(format!(
                "`{rider}.{native}` has a `mut` or `out` parameter: a host native takes `in` and `ref` ones"
            )));
        }
        let declared: Vec<IrType> = decl.params.iter().map(|p| p.ty.clone()).collect();
        if declared != P::ir_types() || decl.result != R::ir_type() {
            return Err(Error::Signature(format!(
                "`{rider}.{native}` is {}, but the closure is {}",
                signature(&declared, &decl.result),
                signature(&P::ir_types(), &R::ir_type())
            )));
        }
        let closure_type = TypeId::of::<F>();
        if self
            .natives
            .values()
            .any(|r| r.closure_type == closure_type)
        {
            return Err(Error::Signature(format!(
                "`{rider}.{native}`: this closure is registered already; each native needs its own"
            )));
        }
        let owned = decl
            .params
            .iter()
            .map(|p| p.mode == ParamMode::In)
            .collect();
        self.natives.insert(
            native.to_string(),
            Registered {
                closure_type,
                closure: Arc::new(closure),
                owned,
                trampoline: F::trampoline() as usize,
            },
        );
        Ok(self)
    }

    /// The types of this rider's closures.
    pub(crate) fn closure_types(&self) -> impl Iterator<Item = TypeId> + '_ {
        self.natives.values().map(|r| r.closure_type)
    }

    /// Every native of the interface has a closure.
    pub(crate) fn check_complete(&self) -> Result<(), Error> {
        match self
            .interface
            .natives
            .iter()
            .find(|d| !self.natives.contains_key(&d.name))
        {
            Some(missing) => Err(Error::Rider(format!(
                "host rider `{}` has no closure for its native `{}`",
                self.name, missing.name
            ))),
            None => Ok(()),
        }
    }
}

/// The host riders of a module, resolved on the thread it runs on.
#[derive(Clone, Default)]
pub(crate) struct HostRiders(pub Vec<HostRider>);

impl HostRiders {
    pub fn is_host(&self, rider: &str) -> bool {
        self.0.iter().any(|r| r.name == rider)
    }

    /// The trampoline of native `ctx`, if its rider is a host rider.
    pub fn resolve(&self, ctx: &NativeContext) -> Option<Result<*const c_void, String>> {
        let rider = self.0.iter().find(|r| r.name == ctx.rider())?;
        Some(
            rider
                .natives
                .get(ctx.function())
                .map(|r| r.trampoline as *const c_void)
                .ok_or_else(|| {
                    format!(
                        "host rider `{}` has no native `{}`",
                        rider.name,
                        ctx.function()
                    )
                }),
        )
    }

    /// Makes these riders' closures the ones this thread's trampolines call.
    pub fn install_on_this_thread(&self) {
        let table = self
            .0
            .iter()
            .flat_map(|r| r.natives.values())
            .map(|r| (r.closure_type, (r.closure.clone(), r.owned.clone())))
            .collect();
        CLOSURES.with(|c| *c.borrow_mut() = table);
    }
}

type Installed = (Arc<dyn Any + Send + Sync>, Arc<[bool]>);

thread_local! {
    static CLOSURES: RefCell<HashMap<TypeId, Installed>> = RefCell::new(HashMap::new());
}

/// The closure of type `F` installed on this thread, and which parameters it owns.
fn installed<F: Any + Send + Sync>() -> Result<(Arc<F>, Arc<[bool]>), Failure> {
    let (closure, owned) = CLOSURES
        .with(|c| c.borrow().get(&TypeId::of::<F>()).cloned())
        .ok_or_else(|| Failure::failed("the host native is not installed on this thread"))?;
    let closure = closure
        .downcast::<F>()
        .map_err(|_| Failure::failed("the host native's closure has another type"))?;
    Ok((closure, owned))
}

/// Reads argument `at` (described by `td`), dropping it when the native owns it.
///
/// # Safety
/// `at` holds an initialized value of `td`, which describes `A`'s type.
unsafe fn argument<A: Value>(rt: RtHandle, at: *mut c_void, td: *const TyDesc, owned: bool) -> A {
    let value = A::read(&*td, at as *const u8);
    if owned {
        datalove_rti::call::dtlv_rti_drop(rt, at, &*td);
    }
    value
}

/// A closure that can be a host native taking `P` and returning `R`.
pub trait HostFn<P, R>: Send + Sync + 'static {
    /// The native the ABI calls: a trampoline for this closure's type.
    #[doc(hidden)]
    fn trampoline() -> *const c_void;
}

macro_rules! host_fn {
    ($trampoline:ident; $($arg:ident $word:ident $td:ident $index:tt),*) => {
        /// The trampoline of a host native with these parameters.
        ///
        /// # Safety
        /// Called through the native-call ABI: every pointer with its descriptor.
        #[allow(clippy::too_many_arguments)]
        unsafe extern "C-unwind" fn $trampoline<F, $($arg,)* R>(
            rt: *mut RtHeader,
            $($word: *mut c_void, $td: *const TyDesc,)*
            out: *mut c_void,
            out_td: *const TyDesc,
        ) -> RtStatus
        where
            F: Fn($($arg),*) -> Result<R, String> + Send + Sync + 'static,
            $($arg: Value,)*
            R: Value,
        {
            let handle = RtHandle::from_raw(rt);
            guard_failure(handle, || {
                let (closure, _owned) = installed::<F>()?;
                $(let $word = argument::<$arg>(handle, $word, $td, _owned[$index]);)*
                let result = closure($($word),*).map_err(Failure::failed)?;
                result
                    .write(handle, &*out_td, out as *mut u8)
                    .map_err(Failure::failed)
            })
        }

        impl<F, $($arg,)* R> HostFn<($($arg,)*), R> for F
        where
            F: Fn($($arg),*) -> Result<R, String> + Send + Sync + 'static,
            $($arg: Value,)*
            R: Value,
        {
            fn trampoline() -> *const c_void {
                $trampoline::<F, $($arg,)* R> as *const c_void
            }
        }
    };
}

host_fn!(trampoline0;);
host_fn!(trampoline1; A a0 t0 0);
host_fn!(trampoline2; A a0 t0 0, B a1 t1 1);
host_fn!(trampoline3; A a0 t0 0, B a1 t1 1, C a2 t2 2);
host_fn!(trampoline4; A a0 t0 0, B a1 t1 1, C a2 t2 2, D a3 t3 3);
