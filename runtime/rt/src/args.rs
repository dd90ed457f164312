//! The program's arguments: what a host hands the runtime (`RuntimeOptions::args`) or an
//! executable finds on its command line, given to programs by the `program_args` entry.

use datalove_rti::rtdt::List;
use datalove_rti::status::{RtStatus, STATUS_OK};
use datalove_rti::table::Rt;
use datalove_rti::tydesc::STRING_TYDESC;

use crate::state::Runtime;

/// This process's command line after its name, as an executable's program sees it. An
/// argument that is not UTF-8 has each bad sequence replaced by U+FFFD: a program's
/// strings are UTF-8, and refusing to start would be worse than a visible replacement.
pub fn process_args() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

pub(crate) unsafe extern "C" fn program_args(rt: Rt, out: *mut List) -> RtStatus {
    let rt = Runtime::from_handle(rt);
    let args = &rt.options.args;
    let mut list = rt.new_list(&STRING_TYDESC, args.len());
    for arg in args {
        // The string's bytes move into the list (`rtdt::String` owns nothing by Rust's
        // lights: the list frees it).
        let s = rt.new_string(arg);
        rt.list_push_value(&mut list, &STRING_TYDESC, (&raw const s).cast());
    }
    out.write(list);
    STATUS_OK
}
