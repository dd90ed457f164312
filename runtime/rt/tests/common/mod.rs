//! Shared test fixtures: a capturing runtime that checks it ends with nothing live, and
//! a C compiler.
#![allow(dead_code)]

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::process::Command;

use datalove_rt::{OutputMode, Runtime, RuntimeOptions};
use datalove_rti::call;
use datalove_rti::rtdt::{self, RtHandle};
use datalove_rti::status::RtStatus;
use datalove_rti::tydesc::OwnedTyDesc;
use datalove_rti::{TyDesc, TyKind};

pub struct Fixture {
    pub rt: Box<Runtime>,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture::with_shadow(datalove_rt::DEFAULT_SHADOW_STACK_SIZE)
    }

    pub fn with_shadow(shadow_stack_size: usize) -> Fixture {
        Fixture {
            rt: Runtime::new(RuntimeOptions {
                check_leaks: false,
                shadow_stack_size,
                output: OutputMode::Capture,
                ..RuntimeOptions::default()
            }),
        }
    }

    pub fn h(&self) -> RtHandle {
        self.rt.rt_handle()
    }

    pub fn live(&self) -> usize {
        self.rt.alloc_stats().live
    }

    /// A new runtime string.
    pub fn string(&self, text: &str) -> rtdt::String {
        let mut out = MaybeUninit::uninit();
        let status =
            unsafe { call::dtlv_rti_string_from_bytes(self.h(), text.as_bytes(), &mut out) };
        assert_eq!(status, datalove_rti::STATUS_OK);
        unsafe { out.assume_init() }
    }

    /// New runtime strings of `texts`.
    pub fn strings<const N: usize>(&self, texts: [&str; N]) -> [rtdt::String; N] {
        texts.map(|text| self.string(text))
    }

    /// Drops any value through the table.
    pub fn drop_value<T>(&self, mut value: T, td: &TyDesc) {
        unsafe { call::dtlv_rti_drop(self.h(), (&mut value as *mut T).cast(), td) };
        std::mem::forget(value);
    }

    /// Drops each of `values`, all of `td`, through the table.
    pub fn drop_all<T, const N: usize>(&self, values: [T; N], td: &TyDesc) {
        for value in values {
            self.drop_value(value, td);
        }
    }

    /// Drops the value at `value` through the table.
    pub fn drop_at(&self, value: *mut u8, td: &TyDesc) {
        unsafe { call::dtlv_rti_drop(self.h(), value.cast(), td) };
    }

    /// The text of the new string `make` writes at its argument (and answers
    /// `STATUS_OK` for); the runtime string is dropped.
    pub fn text_of(&self, make: impl FnOnce(&mut MaybeUninit<rtdt::String>) -> RtStatus) -> String {
        let mut out = MaybeUninit::uninit();
        assert_eq!(make(&mut out), datalove_rti::STATUS_OK);
        let s = unsafe { out.assume_init() };
        let text = s.as_str().to_owned();
        self.drop_value(s, &datalove_rti::tydesc::STRING_TYDESC);
        text
    }

    /// The text `format` gives.
    pub fn format(&self, value: *const c_void, td: &TyDesc) -> String {
        self.text_of(|out| unsafe { call::dtlv_rti_format(self.h(), value, td, out) })
    }

    /// A refused entry: it returned `expected` (`status`), and the runtime's error
    /// message is `message`.
    pub fn assert_refused(&self, status: RtStatus, expected: RtStatus, message: &str) {
        assert_eq!(status, expected, "{message}");
        assert_eq!(unsafe { call::dtlv_rti_error_message(self.h()) }, message);
    }

    /// Takes the runtime error the test caused, which reads `text`.
    pub fn assert_error(&self, text: &str) {
        let error = self.rt.take_error().expect("a runtime error was recorded");
        assert_eq!(error.to_string(), text);
    }
}

impl Drop for Fixture {
    /// Ends the test: nothing may be live (not checked again when the test already
    /// failed).
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let stats = self.rt.alloc_stats();
        assert_eq!(stats.live, 0, "allocations still live: {stats:?}");
        assert_eq!(stats.live_bytes, 0, "bytes still live: {stats:?}");
    }
}

pub fn scalar(kind: TyKind) -> OwnedTyDesc {
    OwnedTyDesc::scalar(kind)
}

pub fn ptr<T>(v: &T) -> *const c_void {
    (v as *const T).cast()
}

pub fn mut_ptr<T>(v: &mut T) -> *mut c_void {
    (v as *mut T).cast()
}

/// A list of `T` values pushed in order (moved in).
pub fn list_of<T>(fx: &Fixture, td: &TyDesc, values: Vec<T>) -> rtdt::List {
    let mut out = MaybeUninit::uninit();
    unsafe {
        assert_eq!(call::dtlv_rti_list_new(fx.h(), td, 0, &mut out), 1);
        let mut list = out.assume_init();
        for v in values {
            let mut v = std::mem::ManuallyDrop::new(v);
            assert_eq!(
                call::dtlv_rti_list_push(fx.h(), &mut list, td, (&mut *v as *mut T).cast()),
                1
            );
        }
        list
    }
}

// ---- a C compiler ----

pub fn tmp_dir(name: &str) -> PathBuf {
    datalove_test_support::scratch_dir(&format!("rt-{name}"))
}

/// The C compiler of the target the tests were built for (`datalove_toolchain`: its
/// `CC_<triple>`, `$CC`, else `cc`).
pub fn c_compiler(_out_dir: &Path) -> Command {
    datalove_toolchain::Target::current().c_compiler().command()
}

/// The C compiler command that builds `source` (written as `dir/<name>.c`; strict C11
/// against the header) into the program `dir/<name>`: (the command, to which inputs may
/// be added, and the program's path).
pub fn c_program(dir: &Path, name: &str, source: &str) -> (Command, PathBuf) {
    let c_file = dir.join(format!("{name}.c"));
    std::fs::write(&c_file, source).unwrap();
    let exe = dir.join(name);
    let mut cc = c_compiler(dir);
    cc.args(["-std=c11", "-Wall", "-Werror", "-I"])
        .arg(datalove_test_support::include_dir())
        .arg(&c_file)
        .arg("-o")
        .arg(&exe);
    (cc, exe)
}
