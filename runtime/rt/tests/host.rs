//! The host API: the exit decision, finishing a run, stack limits and program threads,
//! and the C entry points used in-process.

mod common;

use common::Fixture;
use datalove_rt::stack::{approximate_stack_pointer, current_thread_stack};
use datalove_rt::{
    decide_outcome, run_on_thread, ErrorKind, Outcome, Runtime, RuntimeError, RuntimeOptions,
    EXIT_OK, EXIT_RUNTIME_ERROR, STACK_SAFETY_MARGIN,
};
use datalove_rti::{call, AllocStats};

fn stats(live: usize) -> AllocStats {
    AllocStats {
        live,
        total: live,
        live_bytes: live * 8,
    }
}

#[test]
fn an_exit_request_ends_with_its_code_and_prints_nothing() {
    let exit = RuntimeError::new(ErrorKind::Exit, "3");
    let o = decide_outcome(Some(&exit), stats(0), true);
    assert_eq!((o.exit_code, o.stderr_text()), (3, String::new()));
    assert_eq!(decide_outcome(Some(&exit), stats(0), false).exit_code, 3);
    // A leak is still one, and still fails the run.
    let o = decide_outcome(Some(&exit), stats(1), true);
    assert_eq!(
        (o.exit_code, o.stderr_lines),
        (101, vec!["error: leak: 1 allocation still live".to_owned()])
    );
}

#[test]
fn the_exit_decision_covers_success_error_and_leaks() {
    let error = RuntimeError::new(ErrorKind::Overflow, "i32 addition");
    assert_eq!(
        decide_outcome(None, stats(0), true),
        Outcome {
            exit_code: EXIT_OK,
            stderr_lines: vec![],
            error: None
        }
    );
    let o = decide_outcome(Some(&error), stats(0), true);
    assert_eq!(o.exit_code, EXIT_RUNTIME_ERROR);
    assert_eq!(o.stderr_text(), "error: overflow: i32 addition\n");
    assert_eq!(o.error, Some(error.clone()));
    // Leaks count only when checked.
    assert_eq!(decide_outcome(None, stats(3), false).exit_code, 0);
    let o = decide_outcome(None, stats(3), true);
    assert_eq!(
        (o.exit_code, o.stderr_lines.clone()),
        (
            101,
            vec!["error: leak: 3 allocations still live".to_owned()]
        )
    );
    let o = decide_outcome(None, stats(1), true);
    assert_eq!(o.stderr_lines, ["error: leak: 1 allocation still live"]);
    // An error path that also leaks reports both.
    let o = decide_outcome(Some(&error), stats(2), true);
    assert_eq!(
        o.stderr_text(),
        "error: overflow: i32 addition\nerror: leak: 2 allocations still live\n"
    );
    assert_eq!(o.exit_code, 101);
}

#[test]
fn finish_report_takes_the_error_and_checks_leaks_when_asked() {
    let fx = Fixture::new();
    let s = fx.string("kept");
    let o = fx.rt.finish_report(false);
    assert_eq!(o.exit_code, 0, "leak checking is off in the fixture");
    let o = fx.rt.finish_report(true);
    assert_eq!(o.stderr_lines, ["error: leak: 1 allocation still live"]);
    fx.drop_value(s, &datalove_rti::tydesc::STRING_TYDESC);
    unsafe { call::dtlv_rti_raise_bounds(fx.h(), 1, 0) };
    let o = fx.rt.finish_report(true);
    assert_eq!(
        o.stderr_lines,
        ["error: index out of bounds: index 1 out of bounds for length 0"]
    );
    assert!(!fx.rt.abandoning());
    assert_eq!(
        fx.rt.finish_report(true).exit_code,
        0,
        "the error was taken"
    );
}

#[test]
fn leak_checking_set_through_the_options_is_honoured() {
    let rt = Runtime::new(RuntimeOptions {
        check_leaks: true,
        ..RuntimeOptions::capturing()
    });
    let s = rt.new_string("x");
    assert_eq!(rt.finish_report(false).exit_code, 101);
    rt.drop_string(s);
    assert_eq!(rt.finish_report(false).exit_code, 0);
}

#[test]
fn the_stack_limit_is_near_the_bottom_of_the_current_threads_stack() {
    let rt = Runtime::new(RuntimeOptions::capturing());
    let sp = approximate_stack_pointer();
    let limit = rt.stack_limit();
    assert!(limit < sp, "limit {limit:#x} below sp {sp:#x}");
    let (low, size) = current_thread_stack().expect("Linux reports the thread stack");
    assert!(sp > low && sp <= low + size);
    assert_eq!(limit, low + STACK_SAFETY_MARGIN.min(size / 4));
}

#[test]
fn a_program_thread_with_a_big_stack_gets_a_far_limit() {
    let rt = Runtime::new(RuntimeOptions::capturing());
    let small_limit = rt.stack_limit();
    let (rt, room) = run_on_thread(64 << 20, move || {
        rt.set_stack_limit_for_current_thread();
        let room = approximate_stack_pointer() - rt.stack_limit();
        (rt, room)
    });
    assert!(room > 60 << 20, "room {room}");
    assert!(room < 64 << 20);
    assert_ne!(rt.stack_limit(), small_limit);
    // A runtime made on the program thread is set for it already.
    let room = run_on_thread(32 << 20, || {
        let rt = Runtime::new(RuntimeOptions::capturing());
        approximate_stack_pointer() - rt.stack_limit()
    });
    assert!(room > 30 << 20 && room < 32 << 20, "room {room}");
}

#[test]
fn the_c_entry_points_create_and_finish_a_runtime() {
    let rt = datalove_rt::capi::dtlv_rt_create();
    unsafe {
        assert!(!rt.is_null());
        assert_eq!((*(*rt).table).abi_version, datalove_rti::ABI_VERSION);
        assert_eq!(datalove_rt::capi::dtlv_rt_abandoning(rt), 0);
        datalove_rt::capi::dtlv_rt_set_stack_limit(rt);
        assert!((*rt).stack_limit < approximate_stack_pointer());
        assert_eq!(datalove_rt::capi::dtlv_rt_finish(rt, 1), 0);
    }
    let rt = datalove_rt::capi::dtlv_rt_create();
    unsafe { datalove_rt::capi::dtlv_rt_destroy(rt) };
}

#[test]
fn the_header_points_at_the_static_table() {
    let fx = Fixture::new();
    unsafe {
        let header = &*fx.rt.handle();
        assert!(std::ptr::eq(header.table, &datalove_rt::TABLE));
        assert_eq!(
            datalove_rt::TABLE.struct_size,
            std::mem::size_of::<datalove_rti::RtiTable>()
        );
        assert_eq!(header.abandoning, 0);
        // The header is where `Runtime::from_handle` finds the runtime.
        assert!(std::ptr::eq(Runtime::from_handle(fx.rt.handle()), &*fx.rt));
    }
}

/// What a compiled prologue does: compare the stack pointer with `stack_limit`.
fn recurse(rt: &Runtime, depth: u64) -> u64 {
    let frame = std::hint::black_box([0u8; 512]);
    if approximate_stack_pointer() < unsafe { (*rt.handle()).stack_limit } {
        unsafe { call::dtlv_rti_raise_stack_overflow(rt.rt_handle()) };
        return depth;
    }
    let deeper = recurse(rt, depth + 1);
    if rt.abandoning() {
        return deeper;
    }
    deeper + frame[0] as u64
}

#[test]
fn a_prologue_check_against_the_limit_catches_deep_recursion_before_a_real_overflow() {
    let (depth, error) = run_on_thread(2 << 20, || {
        let rt = Runtime::new(RuntimeOptions::capturing());
        let depth = recurse(&rt, 0);
        // The runtime still has room to work after the check fired.
        let text = rt.new_string(&"x".repeat(1000));
        rt.drop_string(text);
        (depth, rt.take_error())
    });
    assert!(depth > 1000, "depth {depth}");
    assert_eq!(
        error.unwrap().to_string(),
        "stack overflow: out of stack space"
    );
}

#[test]
fn a_table_of_another_abi_is_refused_by_riders() {
    // A header whose table claims another ABI version, as a runtime from another
    // release would present.
    let mut foreign: datalove_rti::RtiTable = unsafe { std::ptr::read(&datalove_rt::TABLE) };
    foreign.abi_version = datalove_rti::ABI_VERSION + 1;
    let shorter: datalove_rti::RtiTable = {
        let mut t = unsafe { std::ptr::read(&datalove_rt::TABLE) };
        t.struct_size -= std::mem::size_of::<usize>();
        t
    };
    let another = format!("has ABI {}", datalove_rti::ABI_VERSION + 1);
    for (table, says) in [(&foreign, another.as_str()), (&shorter, "(size ")] {
        let mut header = datalove_rti::RtHeader {
            table,
            abandoning: 0,
            stack_limit: 0,
            shadow_top: std::ptr::null_mut(),
            shadow_limit: std::ptr::null_mut(),
            depth_left: 0,
        };
        let rt = unsafe { datalove_rti::rtdt::RtHandle::from_raw(&mut header) };
        let panic = std::panic::catch_unwind(|| unsafe { call::table(rt).abi_version })
            .expect_err("refused");
        let message = datalove_rti::rider_helpers::panic_message(&*panic);
        assert!(message.contains(says), "{message}");
        let ours = format!("this rider was built for ABI {}", datalove_rti::ABI_VERSION);
        assert!(message.contains(&ours), "{message}");
        // Through a guard, the refusal is a panicked status, never an unwind.
        let status = unsafe {
            datalove_rti::rider_helpers::guard(rt, || {
                call::dtlv_rti_raise_stack_overflow(rt);
                Ok(())
            })
        };
        assert_eq!(status, datalove_rti::status::STATUS_PANICKED);
    }
}

#[test]
fn program_args_are_the_options_args() {
    let rt = Runtime::new(RuntimeOptions {
        args: vec!["40".to_owned(), "two words".to_owned(), String::new()],
        ..RuntimeOptions::capturing()
    });
    let mut out = std::mem::MaybeUninit::uninit();
    let status = unsafe { call::dtlv_rti_program_args(rt.rt_handle(), &mut out) };
    assert_eq!(status, datalove_rti::STATUS_OK);
    let list = unsafe { out.assume_init() };
    let texts: Vec<String> = (0..list.len())
        .map(|i| unsafe {
            let p = call::dtlv_rti_list_at(
                rt.rt_handle(),
                &list,
                &datalove_rti::tydesc::STRING_TYDESC,
                i,
            );
            (*p.cast::<datalove_rti::rtdt::String>())
                .as_str()
                .to_owned()
        })
        .collect();
    assert_eq!(texts, ["40", "two words", ""]);
    let mut list = list;
    let td = datalove_rti::tydesc::OwnedTyDesc::list(datalove_rti::tydesc::OwnedTyDesc::string());
    unsafe { call::dtlv_rti_drop(rt.rt_handle(), (&raw mut list).cast(), &td) };
    assert_eq!(rt.alloc_stats().live, 0);
    // A runtime made with the defaults has none.
    let plain = Runtime::new(RuntimeOptions::capturing());
    let mut out = std::mem::MaybeUninit::uninit();
    unsafe { call::dtlv_rti_program_args(plain.rt_handle(), &mut out) };
    assert_eq!(unsafe { out.assume_init() }.len(), 0);
}
