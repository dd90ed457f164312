//! The IR printer (`datalove emit ir`). Each instruction that came from source is
//! preceded by the source line it lowered from, as a comment, the first time that line
//! is reached in a block.

use std::fmt::Write;

use crate::program::*;

/// The whole program as text.
pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    if !program.riders.is_empty() {
        let _ = writeln!(out, "riders {}", program.riders.join(", "));
        out.push('\n');
    }
    for (i, f) in program.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let entry = if program.entry == Some(FuncId(i as u32)) {
            " ; entry"
        } else {
            ""
        };
        let _ = writeln!(out, "; fn{i}{entry}");
        out.push_str(&print_function(program, f));
    }
    out
}

/// One function as text.
pub fn print_function(program: &Program, f: &Function) -> String {
    let names = f.type_param_names();
    let ty = |t: &crate::types::IrType| t.display(&names).to_string();
    let mut out = String::new();
    let _ = write!(out, "fun {}", f.name);
    if !f.type_params.is_empty() {
        let tps: Vec<String> = f
            .type_params
            .iter()
            .map(|t| format!("{} is {}", t.name, t.class.name()))
            .collect();
        let _ = write!(out, "<{}>", tps.join(", "));
    }
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            format!(
                "{} {}: {} = {}",
                p.mode,
                p.name,
                ty(f.slot_type(p.slot)),
                p.slot
            )
        })
        .collect();
    let _ = writeln!(out, "({}): {}", params.join(", "), ty(&f.result));
    for (i, slot) in f.slots.iter().enumerate() {
        let name = slot
            .name
            .as_deref()
            .map(|n| format!(" ; {n}"))
            .unwrap_or_default();
        let _ = writeln!(out, "  slot s{i}: {}{name}", ty(&slot.ty));
    }
    for (bi, block) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, "b{bi}:");
        let mut last_line: Option<(u32, u32)> = None;
        for inst in &block.insts {
            if let Some(loc) = inst.loc {
                if last_line != Some((loc.file, loc.line)) {
                    last_line = Some((loc.file, loc.line));
                    if let Some(src) = program.files.get(loc.file as usize) {
                        let text = src
                            .text
                            .lines()
                            .nth(loc.line.saturating_sub(1) as usize)
                            .unwrap_or("")
                            .trim();
                        let _ = writeln!(out, "  # {}:{}: {}", src.name, loc.line, text);
                    }
                }
            }
            let _ = write!(out, "  {}", print_inst(program, f, &inst.kind));
            if let Some(a) = inst.abandon {
                let _ = write!(out, " else abandon {a}");
            }
            out.push('\n');
        }
        let term = crate::lowering::terminator_text(&block.term);
        let _ = writeln!(out, "  {term}");
    }
    out.push_str("end fun\n");
    out
}

fn list(slots: &[SlotId]) -> String {
    slots
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a list access the bounds pass proved in bounds adds to its text.
fn in_bounds(checked: bool) -> &'static str {
    if checked {
        ""
    } else {
        " in_bounds"
    }
}

fn args(args: &[Arg]) -> String {
    args.iter()
        .map(|a| format!("{} {}", a.mode, a.slot))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The printed instructions of the first block of the program's first function: what
/// the passes' unit tests compare.
#[cfg(test)]
pub(crate) fn first_block(p: &Program) -> Vec<String> {
    let f = &p.functions[0];
    f.blocks[0]
        .insts
        .iter()
        .map(|i| print_inst(p, f, &i.kind))
        .collect()
}

/// One instruction as text.
pub fn print_inst(program: &Program, f: &Function, kind: &InstKind) -> String {
    use InstKind::*;
    let names = f.type_param_names();
    let ty = |t: &crate::types::IrType| t.display(&names).to_string();
    match kind {
        Const { dst, value } => {
            let v = match value {
                ConstValue::Unit => "()".to_string(),
                ConstValue::Bool(b) => b.to_string(),
                ConstValue::Int(i) => i.to_string(),
                ConstValue::Float(x) => format!("{x:?}"),
                ConstValue::Str(s) => format!("{s:?}"),
            };
            format!("{dst} = const {} {v}", ty(f.slot_type(*dst)))
        }
        Copy { dst, src } => format!("{dst} = copy {src}"),
        Move { dst, src } => format!("{dst} = move {src}"),
        Clone { dst, src } => format!("{dst} = clone {src}"),
        Drop { slot } => format!("drop {slot}"),
        Unary { dst, op, src } => {
            let name = match op {
                UnaryOp::Neg => "neg",
                UnaryOp::WrappingNeg => "wrapping_neg",
                UnaryOp::Not => "not",
                UnaryOp::BitNot => "bitnot",
                UnaryOp::Sqrt => "sqrt",
                UnaryOp::Floor => "floor",
                UnaryOp::Ceil => "ceil",
                UnaryOp::Abs => "fabs",
            };
            format!("{dst} = {name} {src}")
        }
        Binary { dst, op, lhs, rhs } => format!("{dst} = {} {lhs}, {rhs}", op.name()),
        Compare { dst, op, lhs, rhs } => format!("{dst} = {} {lhs}, {rhs}", op.name()),
        Cast { dst, src, checked } => {
            let how = if *checked { "cast" } else { "cast_unchecked" };
            format!("{dst} = {how} {src} to {}", ty(f.slot_type(*dst)))
        }
        Concat { dst, lhs, rhs } => format!("{dst} = concat {lhs}, {rhs}"),
        MakeTuple { dst, fields } => format!("{dst} = tuple ({})", list(fields)),
        TupleField { dst, src, index } => format!("{dst} = field {src}.{index}"),
        Unpack { src, dsts } => format!("({}) = unpack {src}", list(dsts)),
        MakeVariant {
            dst,
            variant,
            fields,
        } => format!("{dst} = variant {variant} ({})", list(fields)),
        VariantTag { dst, src } => format!("{dst} = variant_tag {src}"),
        TakeVariant { src, variant, dsts } => {
            format!("({}) = take_variant {src}.{variant}", list(dsts))
        }
        MakeList { dst, elems } => format!("{dst} = list [{}]", list(elems)),
        ListLen { dst, list } => format!("{dst} = list_len {list}"),
        MapLen { dst, map } => format!("{dst} = map_len {map}"),
        StrParts { dst, string, sep } => match sep {
            Some(sep) => format!("{dst} = str_parts {string} by {sep}"),
            None => format!("{dst} = str_parts {string} by whitespace"),
        },
        MapEntry { dst, map, index } => format!("{dst} = map_entry {map}[{index}]"),
        ListGet {
            dst,
            list,
            index,
            checked,
            view,
        } => format!(
            "{dst} = list_get{} {list}[{index}]{}",
            if *view { ".view" } else { "" },
            in_bounds(*checked)
        ),
        StrSlice {
            dst,
            string,
            start,
            end,
            view,
        } => format!(
            "{dst} = str_slice{} {string}[{start}..{end}]",
            if *view { ".view" } else { "" }
        ),
        ListSet {
            list,
            index,
            value,
            checked,
        } => format!("list_set {list}[{index}] = {value}{}", in_bounds(*checked)),
        ListPush { list, value } => format!("list_push {list}, {value}"),
        MakeSome { dst, value } => format!("{dst} = some {value}"),
        MakeNone { dst } => format!("{dst} = none {}", ty(f.slot_type(*dst))),
        IsSome { dst, src } => format!("{dst} = is_some {src}"),
        Unwrap { dst, src } => format!("{dst} = unwrap {src}"),
        MakeData { dst, value } => format!("{dst} = data {value}"),
        Call {
            dst,
            func,
            type_args,
            args: a,
            depth,
        } => {
            let callee = program
                .functions
                .get(func.index())
                .map(|c| c.name.as_str())
                .unwrap_or("?");
            let targs = if type_args.is_empty() {
                String::new()
            } else {
                format!(
                    "<{}>",
                    type_args.iter().map(&ty).collect::<Vec<_>>().join(", ")
                )
            };
            let d = dst.map(|d| format!("{d} = ")).unwrap_or_default();
            let depth = if *depth == 1 {
                String::new()
            } else {
                format!(" depth {depth}")
            };
            format!("{d}call {callee}{targs}({}){depth}", args(a))
        }
        CallNative {
            dst,
            native,
            args: a,
        } => {
            let d = dst.map(|d| format!("{d} = ")).unwrap_or_default();
            let trailing = if native.undetermined_bindings.is_empty() {
                String::new()
            } else {
                format!(
                    " trailing <{}>",
                    native
                        .undetermined_bindings
                        .iter()
                        .map(&ty)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            format!(
                "{d}call_native {}({}){trailing} ; {} words",
                native.symbol(),
                args(a),
                native.word_count()
            )
        }
        Debuglog { src } => format!("debuglog {src}"),
        CheckDepth { depth: 1 } => "check_depth".to_string(),
        CheckDepth { depth } => format!("check_depth depth {depth}"),
        CalledFrom => "called_from".to_string(),
    }
}
