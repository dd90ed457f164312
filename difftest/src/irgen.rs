//! IR built from arbitrary input, for fuzzing the verifier: whole programs put
//! together through the builder from the input's choices, and real programs (the
//! generator's, compiled by the front end) with the input's mutations applied.
//!
//! Either way the verifier must answer without panicking, and whatever it accepts every
//! backend must compile without panicking: the verifier is the backends' contract.

use datalove_ir::builder::ProgramBuilder;
use datalove_ir::*;

use crate::gen::catalog::PROBE_DLI;
use crate::rng::Rng;

/// A function's index, parameters (mode and type), result, and whether it is generic.
type Signature = (usize, Vec<(ParamMode, IrType)>, IrType, bool);

/// The types random IR draws from.
fn types() -> Vec<IrType> {
    vec![
        IrType::I64,
        IrType::Unit,
        IrType::Bool,
        IrType::U8,
        IrType::I32,
        IrType::U64,
        IrType::F64,
        IrType::F32,
        IrType::Index,
        IrType::String,
        IrType::list(IrType::I32),
        IrType::list(IrType::String),
        IrType::option(IrType::I64),
        IrType::option(IrType::String),
        IrType::Tuple(vec![IrType::I32, IrType::String]),
        IrType::Data,
        IrType::Param(0),
        IrType::list(IrType::Param(0)),
    ]
}

fn mode(rng: &mut Rng) -> ParamMode {
    [
        ParamMode::In,
        ParamMode::Ref,
        ParamMode::Mut,
        ParamMode::Out,
    ][rng.below(4) as usize]
}

/// A program put together from `rng`'s choices: functions of random signatures, slots,
/// blocks of random instructions over those slots, abandon blocks, terminators.
pub fn random_program(rng: &mut Rng) -> Program {
    let all_types = types();
    let probe = {
        let mut sources = Sources::new();
        let file = sources.add("probe.dli", PROBE_DLI);
        dli::parse_dli("probe", file, PROBE_DLI).expect("the probe interface parses")
    };
    let mut pb = ProgramBuilder::new();
    let nfuncs = 1 + rng.below(3) as usize;
    let mut funcs = Vec::new();
    for f in 0..nfuncs {
        let generic = f > 0 && rng.chance(1, 3);
        let type_params = if generic {
            vec![TypeParam {
                name: "T".into(),
                class: [TypeClass::Any, TypeClass::Fixedint][rng.below(2) as usize],
            }]
        } else {
            Vec::new()
        };
        let pick_ty = |rng: &mut Rng| -> IrType {
            let n = if generic {
                all_types.len()
            } else {
                all_types.len() - 2
            };
            all_types[rng.below(n as u64) as usize].clone()
        };
        let (params, result) = if f == 0 {
            (Vec::new(), IrType::Unit)
        } else {
            let n = rng.below(4);
            let params = (0..n)
                .map(|i| (format!("p{i}"), mode(rng), pick_ty(rng)))
                .collect();
            (params, pick_ty(rng))
        };
        let id = pb.declare_function(format!("f{f}"), type_params, params, result);
        funcs.push((id, generic));
    }
    pb.set_entry(funcs[0].0);
    for &(id, generic) in &funcs {
        let signatures: Vec<Signature> = pb
            .program()
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (
                    i,
                    f.params
                        .iter()
                        .map(|p| (p.mode, f.slots[p.slot.index()].ty.clone()))
                        .collect(),
                    f.result.clone(),
                    f.is_generic(),
                )
            })
            .collect();
        let mut slot_types: Vec<IrType> = {
            let f = &pb.program().functions[id.index()];
            f.slots.iter().map(|s| s.ty.clone()).collect()
        };
        let mut fb = pb.function(id);
        let nslots_extra = rng.below(8);
        for _ in 0..nslots_extra {
            let n = if generic {
                all_types.len()
            } else {
                all_types.len() - 2
            };
            let ty = all_types[rng.below(n as u64) as usize].clone();
            fb.new_slot(ty.clone());
            slot_types.push(ty);
        }
        // The function's slots, for asking which instructions are fallible.
        let shape = Function {
            name: String::new(),
            type_params: Vec::new(),
            params: Vec::new(),
            result: IrType::Unit,
            slots: slot_types
                .iter()
                .map(|ty| Slot {
                    name: None,
                    ty: ty.clone(),
                })
                .collect(),
            blocks: Vec::new(),
            entry: BlockId(0),
        };
        let nblocks = 1 + rng.below(4) as usize;
        let mut blocks = vec![BlockId(0)];
        for _ in 1..nblocks {
            blocks.push(fb.new_block());
        }
        for &b in &blocks {
            fb.switch_to(b);
            let ninsts = rng.below(7);
            for _ in 0..ninsts {
                let n = slot_types.len() as u64;
                if n == 0 {
                    break;
                }
                let s = |rng: &mut Rng| SlotId(rng.below(n) as u32);
                let arg = |rng: &mut Rng, mode| Arg { mode, slot: s(rng) };
                // An instruction whose operands are all random slots, drawn in field order.
                macro_rules! slots {
                    ($variant:ident { $($field:ident),* }) => {
                        InstKind::$variant { $($field: s(rng)),* }
                    };
                }
                let kind = match rng.below(22) {
                    0 => {
                        let dst = s(rng);
                        let value = match &slot_types[dst.index()] {
                            IrType::Bool => ConstValue::Bool(rng.chance(1, 2)),
                            IrType::String => ConstValue::Str("s".into()),
                            IrType::F32 | IrType::F64 => ConstValue::Float(1.5),
                            IrType::Unit => ConstValue::Unit,
                            _ => ConstValue::Int(rng.below(300) as i128 - 10),
                        };
                        InstKind::Const { dst, value }
                    }
                    1 => slots!(Copy { dst, src }),
                    2 => slots!(Move { dst, src }),
                    3 => slots!(Clone { dst, src }),
                    4 => slots!(Drop { slot }),
                    5 => InstKind::Unary {
                        dst: s(rng),
                        op: [
                            UnaryOp::Neg,
                            UnaryOp::WrappingNeg,
                            UnaryOp::Not,
                            UnaryOp::BitNot,
                        ][rng.below(4) as usize],
                        src: s(rng),
                    },
                    6 => InstKind::Binary {
                        dst: s(rng),
                        op: [
                            BinaryOp::Add,
                            BinaryOp::Sub,
                            BinaryOp::Mul,
                            BinaryOp::Div,
                            BinaryOp::Rem,
                            BinaryOp::WrappingAdd,
                            BinaryOp::BitXor,
                            BinaryOp::Shl,
                            BinaryOp::And,
                        ][rng.below(9) as usize],
                        lhs: s(rng),
                        rhs: s(rng),
                    },
                    7 => InstKind::Compare {
                        dst: s(rng),
                        op: [CompareOp::Eq, CompareOp::Lt, CompareOp::Ge][rng.below(3) as usize],
                        lhs: s(rng),
                        rhs: s(rng),
                    },
                    8 => InstKind::Cast {
                        dst: s(rng),
                        src: s(rng),
                        checked: rng.chance(1, 2),
                    },
                    9 => slots!(Concat { dst, lhs, rhs }),
                    10 => InstKind::MakeTuple {
                        dst: s(rng),
                        fields: (0..rng.below(3)).map(|_| s(rng)).collect(),
                    },
                    11 => InstKind::TupleField {
                        dst: s(rng),
                        src: s(rng),
                        index: rng.below(3) as u32,
                    },
                    12 => InstKind::MakeList {
                        dst: s(rng),
                        elems: (0..rng.below(3)).map(|_| s(rng)).collect(),
                    },
                    13 => slots!(ListLen { dst, list }),
                    14 => InstKind::ListGet {
                        dst: s(rng),
                        list: s(rng),
                        index: s(rng),
                        checked: true,
                        view: rng.below(2) == 0,
                    },
                    15 => slots!(ListPush { list, value }),
                    16 => slots!(MakeSome { dst, value }),
                    17 => slots!(Unwrap { dst, src }),
                    18 => slots!(MakeData { dst, value }),
                    19 => {
                        let (callee, params, result, callee_generic) =
                            signatures[rng.below(signatures.len() as u64) as usize].clone();
                        let type_args = if callee_generic {
                            vec![all_types[rng.below(all_types.len() as u64 - 2) as usize].clone()]
                        } else {
                            Vec::new()
                        };
                        InstKind::Call {
                            dst: (result != IrType::Unit).then(|| s(rng)),
                            func: FuncId(callee as u32),
                            type_args,
                            args: params.iter().map(|(m, _)| arg(rng, *m)).collect(),
                            depth: 1,
                        }
                    }
                    20 => {
                        let decl = &probe.natives[rng.below(probe.natives.len() as u64) as usize];
                        let undetermined =
                            probe.generic_functions.get(&decl.name).map_or(0, Vec::len);
                        let bindings = (0..undetermined).map(|_| IrType::I32).collect();
                        let ctx = probe.context(&decl.name, bindings).expect("a native");
                        InstKind::CallNative {
                            dst: (decl.result != IrType::Unit).then(|| s(rng)),
                            args: decl.params.iter().map(|p| arg(rng, p.mode)).collect(),
                            native: Box::new(ctx),
                        }
                    }
                    _ => slots!(Debuglog { src }),
                };
                let fallible = kind.is_fallible(&shape);
                let abandon = if fallible || rng.chance(1, 10) {
                    let drops: Vec<SlotId> = (0..rng.below(2)).map(|_| s(rng)).collect();
                    Some(fb.abandon_block(&drops))
                } else {
                    None
                };
                let _ = fb.try_inst(kind, abandon);
            }
            let n = slot_types.len() as u64;
            let target = |rng: &mut Rng| blocks[rng.below(blocks.len() as u64) as usize];
            let term = match rng.below(5) {
                0 => Terminator::Jump(target(rng)),
                1 if n > 0 => Terminator::Branch {
                    cond: SlotId(rng.below(n) as u32),
                    then_block: target(rng),
                    else_block: target(rng),
                },
                2 if n > 0 => Terminator::Return(Some(SlotId(rng.below(n) as u32))),
                3 => Terminator::Abandon,
                _ => Terminator::Return(None),
            };
            let _ = fb.try_terminate(term);
        }
    }
    pb.add_rider("probe");
    pb.finish()
}

/// Applies `rng`'s mutations to `program`: instructions deleted, duplicated or swapped,
/// operands and targets replaced, drops inserted, constants and checks changed.
pub fn mutate(program: &mut Program, rng: &mut Rng) {
    let n = 1 + rng.below(4);
    for _ in 0..n {
        if program.functions.is_empty() {
            return;
        }
        let f = rng.below(program.functions.len() as u64) as usize;
        let func = &mut program.functions[f];
        let nslots = func.slots.len() as u64;
        let nblocks = func.blocks.len() as u64;
        if nblocks == 0 {
            return;
        }
        let b = rng.below(nblocks) as usize;
        let ninsts = func.blocks[b].insts.len() as u64;
        match rng.below(8) {
            0 if ninsts > 0 => {
                func.blocks[b].insts.remove(rng.below(ninsts) as usize);
            }
            1 if ninsts > 0 => {
                let i = rng.below(ninsts) as usize;
                let inst = func.blocks[b].insts[i].clone();
                func.blocks[b].insts.insert(i, inst);
            }
            2 if ninsts > 1 => {
                let i = rng.below(ninsts) as usize;
                let j = rng.below(ninsts) as usize;
                func.blocks[b].insts.swap(i, j);
            }
            3 if ninsts > 0 && nslots > 0 => {
                let i = rng.below(ninsts) as usize;
                let slots = slots_mut(&mut func.blocks[b].insts[i].kind);
                if !slots.is_empty() {
                    let k = rng.below(slots.len() as u64) as usize;
                    *slots.into_iter().nth(k).expect("in range") = SlotId(rng.below(nslots) as u32);
                }
            }
            4 if ninsts > 0 => {
                let i = rng.below(ninsts) as usize;
                let inst = &mut func.blocks[b].insts[i];
                inst.abandon = match inst.abandon {
                    Some(_) if rng.chance(1, 3) => None,
                    _ => Some(BlockId(rng.below(nblocks) as u32)),
                };
            }
            5 if nslots > 0 => {
                let at = rng.below(ninsts + 1) as usize;
                func.blocks[b].insts.insert(
                    at,
                    Inst {
                        kind: InstKind::Drop {
                            slot: SlotId(rng.below(nslots) as u32),
                        },
                        abandon: None,
                        loc: None,
                    },
                );
            }
            6 => {
                let t = BlockId(rng.below(nblocks) as u32);
                let term = &mut func.blocks[b].term;
                match term {
                    Terminator::Jump(target) => *target = t,
                    Terminator::Branch { then_block, .. } => *then_block = t,
                    Terminator::Return(Some(_)) => *term = Terminator::Return(None),
                    Terminator::Return(None) => *term = Terminator::Abandon,
                    _ => *term = Terminator::Jump(t),
                }
            }
            _ if ninsts > 0 => {
                let i = rng.below(ninsts) as usize;
                match &mut func.blocks[b].insts[i].kind {
                    InstKind::Const {
                        value: ConstValue::Int(v),
                        ..
                    } => *v = (*v).wrapping_mul(-1_000_003),
                    InstKind::Cast { checked, .. } => *checked = !*checked,
                    InstKind::Binary { op, .. } => {
                        *op = match op {
                            BinaryOp::Add => BinaryOp::WrappingAdd,
                            BinaryOp::WrappingAdd => BinaryOp::Add,
                            BinaryOp::Div => BinaryOp::Shl,
                            _ => BinaryOp::Div,
                        }
                    }
                    InstKind::TupleField { index, .. } => *index += 1,
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// Every slot operand of an instruction, to be replaced. (Extension point: an
/// instruction added to the IR gets its operands listed here; the match is exhaustive.)
fn slots_mut(kind: &mut InstKind) -> Vec<&mut SlotId> {
    use InstKind as K;
    match kind {
        K::Const { dst, .. } | K::MakeNone { dst } => vec![dst],
        K::Copy { dst, src }
        | K::Move { dst, src }
        | K::Clone { dst, src }
        | K::Unary { dst, src, .. }
        | K::Cast { dst, src, .. }
        | K::TupleField { dst, src, .. }
        | K::IsSome { dst, src }
        | K::VariantTag { dst, src }
        | K::Unwrap { dst, src } => vec![dst, src],
        K::Drop { slot } => vec![slot],
        K::Binary { dst, lhs, rhs, .. }
        | K::Compare { dst, lhs, rhs, .. }
        | K::Concat { dst, lhs, rhs } => vec![dst, lhs, rhs],
        K::MakeTuple { dst, fields } => std::iter::once(dst).chain(fields.iter_mut()).collect(),
        K::MakeVariant { dst, fields, .. } => {
            std::iter::once(dst).chain(fields.iter_mut()).collect()
        }
        K::Unpack { src, dsts } | K::TakeVariant { src, dsts, .. } => {
            std::iter::once(src).chain(dsts.iter_mut()).collect()
        }
        K::MakeList { dst, elems } => std::iter::once(dst).chain(elems.iter_mut()).collect(),
        K::ListLen { dst, list } => vec![dst, list],
        K::MapLen { dst, map } => vec![dst, map],
        K::StrParts { dst, string, sep } => {
            let mut v = vec![dst, string];
            v.extend(sep.as_mut());
            v
        }
        K::MapEntry { dst, map, index } => vec![dst, map, index],
        K::ListGet {
            dst, list, index, ..
        } => vec![dst, list, index],
        K::StrSlice {
            dst,
            string,
            start,
            end,
            ..
        } => vec![dst, string, start, end],
        K::ListSet {
            list, index, value, ..
        } => vec![list, index, value],
        K::ListPush { list, value } => vec![list, value],
        K::MakeSome { dst, value } | K::MakeData { dst, value } => vec![dst, value],
        K::Call { dst, args, .. } | K::CallNative { dst, args, .. } => dst
            .iter_mut()
            .chain(args.iter_mut().map(|a| &mut a.slot))
            .collect(),
        K::Debuglog { src } => vec![src],
        K::CheckDepth { .. } | K::CalledFrom => vec![],
    }
}
