//! `datalove emit clif`: each function's CLIF, with every source IR instruction as a
//! comment above what it lowered to (the CLIF as built, before it is compiled).

use std::collections::HashMap;
use std::fmt::{self, Write};

use cranelift_codegen::entity::{EntityRef, SecondaryMap};
use cranelift_codegen::ir::{Block, Function, Inst, Value};
use cranelift_codegen::write::{decorate_function, FuncWriter, PlainWriter};

struct CommentWriter<'a> {
    comments: &'a HashMap<Inst, Vec<String>>,
}

impl FuncWriter for CommentWriter<'_> {
    fn write_block_header(
        &mut self,
        w: &mut dyn Write,
        func: &Function,
        block: Block,
        indent: usize,
    ) -> fmt::Result {
        PlainWriter.write_block_header(w, func, block, indent)
    }

    fn write_instruction(
        &mut self,
        w: &mut dyn Write,
        func: &Function,
        aliases: &SecondaryMap<Value, Vec<Value>>,
        inst: Inst,
        indent: usize,
    ) -> fmt::Result {
        if let Some(lines) = self.comments.get(&inst) {
            for line in lines {
                writeln!(w, "{:indent$}; {line}", "")?;
            }
        }
        PlainWriter.write_instruction(w, func, aliases, inst, indent)
    }
}

/// `func` as text, `comments[i] = (first instruction index, lines)` interleaved.
pub fn function_text(title: &str, func: &Function, comments: &[(usize, Vec<String>)]) -> String {
    let total = func.dfg.num_insts();
    let mut by_inst: HashMap<Inst, Vec<String>> = HashMap::new();
    for (at, lines) in comments {
        if *at < total {
            by_inst
                .entry(Inst::new(*at))
                .or_default()
                .extend(lines.iter().cloned());
        }
    }
    let mut out = format!("; {title}\n");
    decorate_function(&mut CommentWriter { comments: &by_inst }, &mut out, func)
        .expect("writing to a string");
    out
}
