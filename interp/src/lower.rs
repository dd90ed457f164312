//! Lowers verified IR once into the interpreter's compact form: slots get frame
//! offsets, descriptors are resolved (static, or the frame's table), block targets become
//! operation indices, and each native call gets its word template and function pointer.

use datalove_ir::*;
use datalove_rti::layout::align_up;
use datalove_rti::TyKind;

use datalove_ir::lowering::{value_op, SlotHome, ValueOp};

use crate::desc::{DescCache, DescRef, FrameDescs};
use crate::error::InterpError;
use crate::ops::*;

pub use datalove_ir::native::NativeResolver;

pub struct Lowered {
    pub funcs: Vec<CFunc>,
    pub natives: Vec<NativeName>,
    /// Owns the static descriptors the operations point at: kept as long as they run.
    _descs: DescCache,
    /// Where each function's descriptor table starts in its frame.
    pub desc_bases: Vec<u32>,
}

/// Per-slot placement.
#[derive(Clone, Copy)]
struct Place {
    opnd: Opnd,
}

struct FrameLayout {
    places: Vec<Place>,
    params: Vec<ParamPass>,
    shadow_locals: Vec<(u32, SlotId)>,
    /// Written `in` parameters sized at run time: copied from the caller's place onto the
    /// shadow stack on entry.
    shadow_params: Vec<(u32, SlotId)>,
    size: usize,
}

/// The frame of `f`, from each slot's one home (`Function::slot_homes`): a value home
/// or own home is frame memory of the type's size (an `in` parameter's caller copies it
/// there), a caller home or shadow home is a pointer in the frame.
fn layout_frame(f: &Function) -> FrameLayout {
    let homes = f.slot_homes();
    let mut size = 0usize;
    let mut places = vec![Place { opnd: Opnd(0) }; f.slots.len()];
    let alloc = |size: &mut usize, bytes: usize, align: usize| -> u32 {
        *size = align_up(*size, align.max(1));
        let at = *size;
        *size += bytes;
        at as u32
    };
    let mut params = Vec::new();
    let mut shadow_params = Vec::new();
    for p in &f.params {
        let ty = f.slot_type(p.slot);
        let pass = match (homes[p.slot.index()], ty.layout()) {
            (SlotHome::Value | SlotHome::Own, Some(l)) => {
                let offset = alloc(&mut size, l.size, l.align);
                places[p.slot.index()] = Place {
                    opnd: Opnd::direct(offset),
                };
                ParamPass::Value {
                    offset,
                    size: l.size as u32,
                }
            }
            (home, _) => {
                let offset = alloc(&mut size, 8, 8);
                places[p.slot.index()] = Place {
                    opnd: Opnd::indirect(offset),
                };
                if home == SlotHome::Shadow {
                    shadow_params.push((offset, p.slot));
                }
                ParamPass::Address { offset }
            }
        };
        params.push(pass);
    }
    let mut shadow_locals = Vec::new();
    for (i, slot) in f.slots.iter().enumerate() {
        if f.param_mode(SlotId(i as u32)).is_some() {
            continue;
        }
        match (homes[i], slot.ty.layout()) {
            (SlotHome::Own, Some(l)) => {
                let offset = alloc(&mut size, l.size, l.align);
                places[i] = Place {
                    opnd: Opnd::direct(offset),
                };
            }
            _ => {
                let offset = alloc(&mut size, 8, 8);
                places[i] = Place {
                    opnd: Opnd::indirect(offset),
                };
                shadow_locals.push((offset, SlotId(i as u32)));
            }
        }
    }
    FrameLayout {
        places,
        params,
        shadow_locals,
        shadow_params,
        size,
    }
}

/// The most instructions a block may have for a jump to it to be lowered as a copy of
/// it ([`FuncLowering::lower`]): enough for a loop's test or the rest of an `if` that
/// ends in a return or the next test.
const COPIED_BLOCK_INSTS: usize = 6;

/// The most blocks copied in a row in place of jumps ([`FuncLowering::lower`]).
const COPIED_BLOCKS: usize = 2;

/// What lowering a block's instructions adds to besides the operations: the loop
/// constants written on entry (skipped in their blocks), the failure stubs, the one
/// `abandon` of operations that cannot fail.
struct BlockBody<'h> {
    hoisted: &'h std::collections::HashSet<(BlockId, usize)>,
    stubs: &'h mut Vec<Op>,
    unreachable: &'h mut Option<u32>,
}

/// Whether `next` may take the constant just written to `dst` as an immediate: the
/// fast form fuses a constant with the arithmetic after it that reads it, and with a
/// comparison that reads it on the right (`fast::fused`).
fn immediate_next(dst: SlotId, next: Option<&InstKind>) -> bool {
    match next {
        Some(InstKind::Binary { lhs, rhs, .. }) => *lhs == dst || *rhs == dst,
        Some(InstKind::Compare { rhs, .. }) => *rhs == dst,
        _ => false,
    }
}

/// Lowers a verified program.
pub fn lower_program(
    program: &Program,
    resolve: &mut NativeResolver<'_>,
) -> Result<Lowered, InterpError> {
    let layouts: Vec<FrameLayout> = program.functions.iter().map(layout_frame).collect();
    let mut descs = DescCache::default();
    let mut natives = Vec::new();
    let mut funcs = Vec::new();
    let mut desc_bases = Vec::new();
    for (fi, f) in program.functions.iter().enumerate() {
        let mut cx = FuncLowering {
            layouts: &layouts,
            func: f,
            layout: &layouts[fi],
            descs: &mut descs,
            frame_descs: FrameDescs::new(f),
            natives: &mut natives,
            resolve,
            ops: Vec::new(),
            program,
            sites: Vec::new(),
        };
        let ops = cx.lower()?;
        let entry_drops: Vec<(Opnd, DescRef)> = f
            .params
            .iter()
            .filter(|p| p.mode == ParamMode::In && !f.slot_type(p.slot).is_copy())
            .map(|p| (cx.at(p.slot), cx.slot_desc(p.slot)))
            .collect();
        let mut shadow_locals: Vec<(u32, DescRef, bool)> = layouts[fi]
            .shadow_locals
            .iter()
            .map(|&(offset, slot)| (offset, cx.desc(f.slot_type(slot)), false))
            .collect();
        shadow_locals.extend(
            layouts[fi]
                .shadow_params
                .iter()
                .map(|&(offset, slot)| (offset, cx.desc(f.slot_type(slot)), true)),
        );
        let frame_descs = std::mem::replace(&mut cx.frame_descs, FrameDescs::empty());
        let mut size = layouts[fi].size;
        let shadow_mark = if shadow_locals.is_empty() {
            None
        } else {
            size = align_up(size, 8);
            size += 8;
            Some((size - 8) as u32)
        };
        size = align_up(size, 8);
        let desc_base = size as u32;
        size += 8 * frame_descs.len();
        desc_bases.push(desc_base);
        funcs.push(CFunc {
            ops,
            frame_size: align_up(size.max(8), 16),
            type_params: f.type_params.len(),
            generic_entries: frame_descs.into_entries(cx.descs),
            shadow_locals,
            shadow_mark,
            entry_drops,
            sites: std::mem::take(&mut cx.sites),
        });
    }
    Ok(Lowered {
        funcs,
        natives,
        _descs: descs,
        desc_bases,
    })
}

pub(crate) struct FuncLowering<'a, 'r> {
    layouts: &'a [FrameLayout],
    pub(crate) func: &'a Function,
    layout: &'a FrameLayout,
    descs: &'a mut DescCache,
    frame_descs: FrameDescs,
    pub(crate) natives: &'a mut Vec<NativeName>,
    pub(crate) resolve: &'a mut NativeResolver<'r>,
    ops: Vec<Op>,
    program: &'a Program,
    sites: Vec<Box<[u8]>>,
}

impl FuncLowering<'_, '_> {
    pub(crate) fn at(&self, slot: SlotId) -> Opnd {
        self.layout.places[slot.index()].opnd
    }

    pub(crate) fn ty(&self, slot: SlotId) -> &IrType {
        self.func.slot_type(slot)
    }

    pub(crate) fn desc(&mut self, ty: &IrType) -> DescRef {
        self.frame_descs.resolve(self.descs, ty)
    }

    pub(crate) fn slot_desc(&mut self, slot: SlotId) -> DescRef {
        let ty = self.func.slot_type(slot).clone();
        self.desc(&ty)
    }

    pub(crate) fn kind(&self, slot: SlotId) -> TyKind {
        self.ty(slot)
            .kind()
            .expect("a concrete scalar, as verified")
    }

    pub(crate) fn lower(&mut self) -> Result<Vec<Op>, InterpError> {
        let f = self.func;
        // Emit blocks in order with block ids as targets, then map them to op indices.
        // A fallible instruction fails to a stub of its own after the blocks
        // (`block_body`): nothing on the path that does not fail. A `nowrap` operation
        // runs as the checked one it was, which cannot fail there; should it ever, it
        // goes to one `abandon` after the stubs.
        let mut block_pc = vec![0u32; f.blocks.len()];
        let mut stubs: Vec<Op> = Vec::new();
        let mut unreachable: Option<u32> = None;
        // A loop constant is written once, on entry, and not in its loop, unless the
        // next instruction may take it as an immediate: the fast form fuses the two into
        // one operation (that also writes it), which costs nothing to keep.
        let hoisted: Vec<(BlockId, usize)> = f
            .loop_constants()
            .into_iter()
            .filter(|&(b, i)| {
                let insts = &f.blocks[b.index()].insts;
                let InstKind::Const { dst, .. } = insts[i].kind else {
                    unreachable!("a loop constant is a const")
                };
                !immediate_next(dst, insts.get(i + 1).map(|n| &n.kind))
            })
            .collect();
        for &(b, i) in &hoisted {
            self.inst(&f.blocks[b.index()].insts[i].kind, u32::MAX)?;
        }
        let hoisted: std::collections::HashSet<(BlockId, usize)> = hoisted.into_iter().collect();
        let mut body = BlockBody {
            hoisted: &hoisted,
            stubs: &mut stubs,
            unreachable: &mut unreachable,
        };
        for (bi, pc) in block_pc.iter_mut().enumerate().take(f.blocks.len()) {
            *pc = self.ops.len() as u32;
            self.block_body(bi, &mut body)?;
            // A jump to a short block is a copy of that block (its instructions and its
            // terminator): the path runs on with no jump, and a loop whose body jumped
            // back to its test ends with a copy of the test. A jump that ends the copy
            // is copied in turn, up to [`COPIED_BLOCKS`] blocks (the rest of an inlined
            // call's caller after the call's result is added in: `fib`), never the block
            // the path started in.
            let mut to = bi;
            for _ in 0..COPIED_BLOCKS {
                match f.blocks[to].term {
                    Terminator::Jump(b) if b.index() != bi && self.copied(b, &hoisted) => {
                        self.block_body(b.index(), &mut body)?;
                        to = b.index();
                    }
                    _ => break,
                }
            }
            let op = self.terminator(to)?;
            self.ops.push(op);
        }
        for stub in stubs {
            block_pc.push(self.ops.len() as u32);
            self.ops.push(stub);
        }
        let mut ops = std::mem::take(&mut self.ops);
        let map = |t: &mut u32| *t = block_pc[*t as usize];
        for op in &mut ops {
            match op {
                Op::Jump(t) => map(t),
                Op::Branch {
                    then_pc, else_pc, ..
                } => {
                    map(then_pc);
                    map(else_pc);
                }
                Op::Site { next, .. } => map(next),
                Op::Unary(Unary { fail, .. })
                | Op::Binary(Binary { fail, .. })
                | Op::Cast(Cast { fail, .. })
                | Op::ListGet(ListGet { fail, .. })
                | Op::StrSlice { fail, .. }
                | Op::ListSet(ListSet { fail, .. })
                | Op::Unwrap { fail, .. }
                | Op::CheckDepth { fail, .. }
                | Op::CallNative { fail, .. }
                    if *fail != u32::MAX =>
                {
                    map(fail)
                }
                Op::Call(call) if call.fail != u32::MAX => map(&mut call.fail),
                _ => {}
            }
        }
        crate::fast::specialize(&mut ops);
        Ok(ops)
    }

    /// Whether a jump to block `b` is lowered as a copy of it: a block of at most
    /// [`COPIED_BLOCK_INSTS`] instructions (not counting loop constants written on entry).
    fn copied(&self, b: BlockId, hoisted: &std::collections::HashSet<(BlockId, usize)>) -> bool {
        let insts = &self.func.blocks[b.index()].insts;
        let kept = (0..insts.len())
            .filter(|&i| !hoisted.contains(&(b, i)))
            .count();
        kept <= COPIED_BLOCK_INSTS
    }

    /// The operations of block `bi`'s instructions (without its terminator). A fallible
    /// instruction with a location fails to a stub of its own (numbered after the
    /// blocks), which reports the site and goes to the abandon block.
    fn block_body(&mut self, bi: usize, body: &mut BlockBody<'_>) -> Result<(), InterpError> {
        let f = self.func;
        for (ii, inst) in f.blocks[bi].insts.iter().enumerate() {
            if body.hoisted.contains(&(BlockId(bi as u32), ii)) {
                continue;
            }
            if let InstKind::CalledFrom = inst.kind {
                // Without a location (IR built without one) there is nothing to add.
                if let Some(site) = self.program.error_site(inst) {
                    self.sites.push(site.into_bytes().into_boxed_slice());
                    let site = (self.sites.len() - 1) as u32;
                    self.ops.push(Op::CalledFrom { site });
                }
                continue;
            }
            let fail = match (inst.abandon, self.program.error_site(inst)) {
                (Some(b), Some(site)) => {
                    self.sites.push(site.into_bytes().into_boxed_slice());
                    let site = (self.sites.len() - 1) as u32;
                    body.stubs.push(Op::Site { site, next: b.0 });
                    (f.blocks.len() + body.stubs.len() - 1) as u32
                }
                (None, _) if is_nowrap(&inst.kind) => *body.unreachable.get_or_insert_with(|| {
                    body.stubs.push(Op::Abandon);
                    (f.blocks.len() + body.stubs.len() - 1) as u32
                }),
                (abandon, _) => abandon.map(|b| b.0).unwrap_or(u32::MAX),
            };
            self.inst(&inst.kind, fail)?;
        }
        Ok(())
    }

    /// The operation that ends block `bi`, its targets still block numbers.
    fn terminator(&mut self, bi: usize) -> Result<Op, InterpError> {
        Ok(match &self.func.blocks[bi].term {
            Terminator::Jump(b) => Op::Jump(b.0),
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => Op::Branch {
                cond: self.at(*cond),
                then_pc: then_block.0,
                else_pc: else_block.0,
            },
            Terminator::Return(Some(s)) => Op::Return {
                src: Some((self.at(*s), self.slot_desc(*s))),
            },
            Terminator::Return(None) => Op::Return { src: None },
            Terminator::Abandon => Op::Abandon,
            Terminator::Unterminated => {
                return Err(InterpError::Unverified(format!(
                    "`{}` has an unterminated block b{bi}",
                    self.func.name
                )))
            }
        })
    }

    pub(crate) fn size_of(&self, slot: SlotId) -> Option<u32> {
        self.ty(slot).layout().map(|l| l.size as u32)
    }

    pub(crate) fn mov(&mut self, dst: SlotId, src: SlotId) -> Op {
        match self.size_of(src) {
            Some(size) => Op::Mov {
                dst: self.at(dst),
                src: self.at(src),
                size,
            },
            None => Op::MovDyn {
                dst: self.at(dst),
                src: self.at(src),
                desc: self.slot_desc(src),
            },
        }
    }

    /// Each payload slot of variant `variant` of the enum in `e`, with its offset in the
    /// enum and its size: the enum is concrete, so both are known here.
    fn variant_fields(&self, e: SlotId, variant: u32, slots: &[SlotId]) -> Box<[(Opnd, u32, u32)]> {
        let offsets = self
            .ty(e)
            .variant_field_offsets(variant as usize)
            .expect("verified: a concrete enum");
        slots
            .iter()
            .zip(offsets)
            .map(|(s, offset)| {
                let size = self.size_of(*s).expect("a concrete payload");
                (self.at(*s), offset as u32, size)
            })
            .collect()
    }

    pub(crate) fn inst(&mut self, kind: &InstKind, fail: u32) -> Result<(), InterpError> {
        use InstKind as K;
        let op = match kind {
            K::Const { dst, value } => {
                let d = self.at(*dst);
                match value {
                    ConstValue::Unit => return Ok(()),
                    ConstValue::Bool(b) => Op::Const {
                        dst: d,
                        bits: *b as u64,
                        size: 1,
                    },
                    ConstValue::Int(v) => {
                        let size = self.size_of(*dst).expect("integer") as u8;
                        Op::Const {
                            dst: d,
                            bits: *v as u64,
                            size,
                        }
                    }
                    ConstValue::Float(x) => match self.kind(*dst) {
                        TyKind::F32 => Op::Const {
                            dst: d,
                            bits: (*x as f32).to_bits() as u64,
                            size: 4,
                        },
                        _ => Op::Const {
                            dst: d,
                            bits: x.to_bits(),
                            size: 8,
                        },
                    },
                    ConstValue::Str(s) => Op::ConstStr {
                        dst: d,
                        bytes: s.as_bytes().into(),
                    },
                }
            }
            K::Copy { .. } | K::Move { .. } | K::Clone { .. } | K::Drop { .. } => {
                match value_op(self.func, kind).expect("a value instruction") {
                    ValueOp::Bits { dst, src } => self.mov(dst, src),
                    ValueOp::Clone { dst, src } => Op::Clone {
                        dst: self.at(dst),
                        src: self.at(src),
                        desc: self.slot_desc(src),
                    },
                    ValueOp::Drop { slot } => Op::Drop {
                        slot: self.at(slot),
                        desc: self.slot_desc(slot),
                    },
                    ValueOp::DropString { slot } => Op::DropString {
                        slot: self.at(slot),
                    },
                    ValueOp::Nothing => return Ok(()),
                }
            }
            K::Unary { dst, op, src } => Op::Unary(Unary {
                op: *op,
                ty: self.kind(*src),
                dst: self.at(*dst),
                src: self.at(*src),
                fail,
            }),
            K::Binary { dst, op, lhs, rhs } => Op::Binary(Binary {
                // A `nowrap` operation as the checked one it was: the same value, and the
                // fast form's checked operations (never failing here) run it.
                op: op.checked_form().unwrap_or(*op),
                ty: self.kind(*lhs),
                dst: self.at(*dst),
                a: self.at(*lhs),
                b: self.at(*rhs),
                fail,
            }),
            K::Compare { dst, op, lhs, rhs } => {
                if self.ty(*lhs).is_scalar() {
                    Op::Compare(Compare {
                        op: *op,
                        ty: self.kind(*lhs),
                        dst: self.at(*dst),
                        a: self.at(*lhs),
                        b: self.at(*rhs),
                    })
                } else {
                    Op::CompareDyn {
                        op: *op,
                        desc: self.slot_desc(*lhs),
                        dst: self.at(*dst),
                        a: self.at(*lhs),
                        b: self.at(*rhs),
                    }
                }
            }
            K::Cast { dst, src, checked } => Op::Cast(Cast {
                from: self.kind(*src),
                to: self.kind(*dst),
                checked: *checked,
                dst: self.at(*dst),
                src: self.at(*src),
                fail,
            }),
            K::Concat { dst, lhs, rhs } => Op::Concat {
                dst: self.at(*dst),
                a: self.at(*lhs),
                b: self.at(*rhs),
            },
            K::MakeTuple { dst, fields } => Op::MakeTuple {
                dst: self.at(*dst),
                desc: self.slot_desc(*dst),
                fields: fields.iter().map(|s| self.at(*s)).collect(),
            },
            K::TupleField { dst, src, index } => Op::TupleField {
                dst: self.at(*dst),
                src: self.at(*src),
                desc: self.slot_desc(*src),
                index: *index,
            },
            K::Unpack { src, dsts } => Op::Unpack {
                src: self.at(*src),
                desc: self.slot_desc(*src),
                dsts: dsts.iter().map(|s| self.at(*s)).collect(),
            },
            K::MakeVariant {
                dst,
                variant,
                fields,
            } if self.ty(*dst).layout().is_none() => Op::MakeVariantDyn {
                dst: self.at(*dst),
                desc: self.slot_desc(*dst),
                tag: *variant,
                fields: fields.iter().map(|s| self.at(*s)).collect(),
            },
            K::MakeVariant {
                dst,
                variant,
                fields,
            } => Op::MakeVariant {
                dst: self.at(*dst),
                tag: *variant,
                fields: self.variant_fields(*dst, *variant, fields),
            },
            K::VariantTag { dst, src } => Op::VariantTag {
                dst: self.at(*dst),
                src: self.at(*src),
            },
            K::TakeVariant { src, variant, dsts } if self.ty(*src).layout().is_none() => {
                Op::TakeVariantDyn {
                    src: self.at(*src),
                    desc: self.slot_desc(*src),
                    tag: *variant,
                    dsts: dsts.iter().map(|s| self.at(*s)).collect(),
                }
            }
            K::TakeVariant { src, variant, dsts } => Op::TakeVariant {
                src: self.at(*src),
                dsts: self.variant_fields(*src, *variant, dsts),
            },
            K::MakeList { dst, elems } => {
                let IrType::List(elem) = self.ty(*dst).clone() else {
                    unreachable!("verified")
                };
                Op::MakeList {
                    dst: self.at(*dst),
                    elem: self.desc(&elem),
                    elems: elems.iter().map(|s| self.at(*s)).collect(),
                }
            }
            K::ListLen { dst, list } => Op::ListLen {
                dst: self.at(*dst),
                list: self.at(*list),
            },
            K::StrParts { dst, string, sep } => Op::StrParts {
                dst: self.at(*dst),
                string: self.at(*string),
                sep: sep.map(|s| self.at(s)),
            },
            K::MapLen { dst, map } => Op::MapLen {
                dst: self.at(*dst),
                map: self.at(*map),
            },
            K::MapEntry { dst, map, index } => Op::MapEntry {
                dst: self.at(*dst),
                map: self.at(*map),
                index: self.at(*index),
                map_desc: self.slot_desc(*map),
                fail,
            },
            K::ListGet {
                dst,
                list,
                index,
                view,
                ..
            } => Op::ListGet(ListGet {
                dst: self.at(*dst),
                list: self.at(*list),
                index: self.at(*index),
                elem: self.slot_desc(*dst),
                fail,
                view: *view,
            }),
            K::StrSlice {
                dst,
                string,
                start,
                end,
                view,
            } => Op::StrSlice {
                dst: self.at(*dst),
                string: self.at(*string),
                start: self.at(*start),
                end: self.at(*end),
                view: *view,
                fail,
            },
            K::ListSet {
                list, index, value, ..
            } => Op::ListSet(ListSet {
                list: self.at(*list),
                index: self.at(*index),
                value: self.at(*value),
                elem: self.slot_desc(*value),
                fail,
            }),
            K::ListPush { list, value } => Op::ListPush {
                list: self.at(*list),
                value: self.at(*value),
                elem: self.slot_desc(*value),
            },
            K::MakeSome { dst, value } => Op::MakeSome {
                dst: self.at(*dst),
                value: self.at(*value),
                desc: self.slot_desc(*dst),
            },
            K::MakeNone { dst } => Op::MakeNone {
                dst: self.at(*dst),
                desc: self.slot_desc(*dst),
            },
            K::IsSome { dst, src } => Op::IsSome {
                dst: self.at(*dst),
                src: self.at(*src),
            },
            K::Unwrap { dst, src } => Op::Unwrap {
                dst: self.at(*dst),
                src: self.at(*src),
                desc: self.slot_desc(*src),
                fail,
            },
            K::MakeData { dst, value } => Op::MakeData {
                dst: self.at(*dst),
                value: self.at(*value),
                desc: self.slot_desc(*value),
            },
            K::Debuglog { src } => Op::Debuglog {
                src: self.at(*src),
                desc: self.slot_desc(*src),
            },
            K::Call { .. } => {
                let call = kind.as_program_call().expect("a call");
                let callee = &self.layouts[call.func.index()];
                let call_args = call
                    .args
                    .iter()
                    .zip(&callee.params)
                    .map(|(a, pass)| CallArg {
                        src: self.at(a.slot),
                        pass: *pass,
                    })
                    .collect();
                let type_args = call.type_args.iter().map(|t| self.desc(t)).collect();
                let in_drops = self
                    .func
                    .moved_args(call.args)
                    .into_iter()
                    .map(|s| (self.at(s), self.slot_desc(s)))
                    .collect();
                Op::Call(Box::new(Call {
                    callee: call.func.0,
                    args: call_args,
                    type_args,
                    dst: call.dst.map(|d| self.at(d)),
                    in_drops,
                    depth: call.depth,
                    fail,
                }))
            }
            K::CheckDepth { depth } => Op::CheckDepth {
                depth: *depth,
                fail,
            },
            // Lowered with its site, in `lower`.
            K::CalledFrom => unreachable!("`called_from` is lowered where its site is known"),
            K::CallNative { dst, native, args } => self.native_call(*dst, native, args, fail)?,
        };
        self.ops.push(op);
        Ok(())
    }
}

/// Whether `kind` is a `nowrap_*` operation (proved not to overflow by `ir::ranges`).
fn is_nowrap(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Binary { op, .. } if op.checked_form().is_some())
}
