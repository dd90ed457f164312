//! The dispatch loop. A call of a program function is a recursive call of [`Machine::run`]
//! on a fresh frame from the frame stack ([`crate::frames`]); every fallible operation jumps to its abandon
//! target when it fails or leaves the runtime abandoning.

use std::ffi::c_void;
use std::ptr;

use datalove_ir::CompareOp;
use datalove_rti::layout::{LIST_CAP_OFFSET, LIST_LEN_OFFSET, LIST_PTR_OFFSET};
use datalove_rti::rtdt::String as RtString;
use datalove_rti::status::{STATUS_OK, STATUS_OUT_OF_BOUNDS};
use datalove_rti::table::{RtiTable, Td};
use datalove_rti::{ArithOp, ErrorKind, RtHeader};

use crate::arith;
use crate::desc::{DescRef, GenericEntry};
use crate::ops::*;

/// What runs a lowered program: the functions, the frame arena, the runtime.
pub struct Machine<'p> {
    pub funcs: &'p [CFunc],
    pub desc_bases: &'p [u32],
    pub natives: &'p [crate::ops::NativeName],
    pub rt: *mut RtHeader,
    pub table: &'p RtiTable,
    pub frames: crate::frames::Frames,
}

/// A generic tuple of up to this many fields has its field descriptors gathered on the
/// stack when a frame's descriptor table is filled (every call of a generic function).
const FEW_FIELDS: usize = 8;

#[inline(always)]
pub(crate) unsafe fn desc_of(frame: *mut u8, base: u32, d: DescRef) -> Td {
    match d {
        DescRef::Static(p) => p,
        DescRef::Frame(i) => *(frame.add(base as usize + 8 * i as usize) as *const Td),
    }
}

/// The address of element `index` (read at frame offset `index`) of the list at `list`,
/// whose elements are `size` bytes; or the index and the length when it is out of
/// bounds. Read from the list's layout (`datalove_rti::rtdt::List`).
#[inline(always)]
unsafe fn list_elem(
    list: *mut u8,
    index: u32,
    frame: *mut u8,
    size: usize,
) -> Result<*mut u8, (u64, u64)> {
    let list = &*(list as *const datalove_rti::rtdt::List);
    let (p, len, _) = list.raw_parts();
    let i = (frame.add(index as usize) as *const u64).read();
    if i < len as u64 {
        Ok(p.add(i as usize * size))
    } else {
        Err((i, len as u64))
    }
}

/// The fast form's overflow error (`op` on `ty`), raised off the dispatch loop's path.
#[cold]
#[inline(never)]
unsafe fn overflow(t: &RtiTable, rt: *mut RtHeader, op: ArithOp, ty: u32) {
    (t.raise_arith)(rt, ErrorKind::Overflow as u32, op as u32, ty);
}

/// The fast form's bounds error, raised off the dispatch loop's path.
#[cold]
#[inline(never)]
unsafe fn out_of_bounds(t: &RtiTable, rt: *mut RtHeader, index: u64, len: u64) {
    (t.raise_bounds)(rt, index, len);
}

/// `t = a * b` of a fused product ([`MulThen`]): written to `t`, and returned for the
/// operation that takes it.
#[inline(always)]
unsafe fn mul_then(frame: *mut u8, o: &MulThen) -> f64 {
    let slot = |o: u32| frame.add(o as usize) as *mut f64;
    let x = slot(o.a).read() * slot(o.b).read();
    slot(o.t).write(x);
    x
}

/// Where the dispatch loop goes after a generic operation.
enum Flow {
    /// The next operation.
    Next,
    /// Operation `n` (a jump, or an abandon target).
    Goto(usize),
    /// Out of the function.
    Return,
}

/// The dispatch loop's `match` on operation `$op`: first an arm per variant of the fast
/// form's per-type operations, generated from one line group per family (`how { op
/// Variant: type, ...; }` runs `Op::Variant(o)` as `how!(type, o, op)`), then the arms
/// given after `;`, which run every other operation. One `match`, so one dispatch.
macro_rules! per_type {
    ($op:expr; $($how:ident { $($sym:tt $($variant:ident: $t:ty),+;)+ })+ ; $($arm:tt)*) => {
        match $op {
            $($($(Op::$variant(o) => $how!($t, o, $sym),)+)+)+
            $($arm)*
        }
    };
}

/// A 64-bit scalar from the bits of a fused constant (`k`).
trait FromBits {
    fn from_bits(k: u64) -> Self;
}

impl FromBits for i64 {
    #[inline(always)]
    fn from_bits(k: u64) -> i64 {
        k as i64
    }
}

impl FromBits for u64 {
    #[inline(always)]
    fn from_bits(k: u64) -> u64 {
        k
    }
}

impl FromBits for f64 {
    #[inline(always)]
    fn from_bits(k: u64) -> f64 {
        f64::from_bits(k)
    }
}

/// Division and remainder by a power of two `k` (`k > 0`), as Rust's `/` and `%` by it
/// (truncated toward zero; a remainder takes the dividend's sign), without a division.
trait ByPowerOfTwo: Sized {
    fn div_pow2(self, k: Self) -> Self;
    fn rem_pow2(self, k: Self) -> Self;
}

impl ByPowerOfTwo for u64 {
    #[inline(always)]
    fn div_pow2(self, k: u64) -> u64 {
        self >> k.trailing_zeros()
    }
    #[inline(always)]
    fn rem_pow2(self, k: u64) -> u64 {
        self & (k - 1)
    }
}

impl ByPowerOfTwo for i64 {
    /// A negative dividend is biased by `k - 1` first, so the arithmetic shift, which
    /// rounds down, rounds toward zero.
    #[inline(always)]
    fn div_pow2(self, k: i64) -> i64 {
        let bias = (self >> 63) & (k - 1);
        self.wrapping_add(bias) >> k.trailing_zeros()
    }
    #[inline(always)]
    fn rem_pow2(self, k: i64) -> i64 {
        let bias = (self >> 63) & (k - 1);
        self.wrapping_sub(self.wrapping_add(bias) & !(k - 1))
    }
}

/// A place for unit results nobody keeps.
pub(crate) static mut UNIT_SCRATCH: u64 = 0;

impl Machine<'_> {
    /// Takes a frame of `size` bytes, 16-aligned; `None` when the frame memory is
    /// exhausted.
    fn push_frame(&self, size: usize) -> Option<(*mut u8, crate::frames::Mark)> {
        self.frames.push(size)
    }

    /// The frame for a call of `cf` (`Op::Call`, `Op::CallV`); `None` when there is no
    /// room for it. Deep recursion is a runtime error, never a crash: the call-depth
    /// limit, the native stack (the dispatch loop recurses once per call) and the frame
    /// memory are tested before the callee starts. `depth` is the call depth the call
    /// takes (IR `call ... depth`).
    #[inline(always)]
    unsafe fn callee_frame(
        &self,
        cf: &CFunc,
        depth: u32,
    ) -> Option<(*mut u8, crate::frames::Mark)> {
        let marker = 0u8;
        let no_room = (&marker as *const u8 as usize) < (*self.rt).stack_limit;
        let no_depth = (*self.rt).depth_left < depth as usize;
        if no_depth || no_room {
            if no_depth {
                // Too little depth left, perhaps some: the runtime names the depth limit
                // only when none is left (docs/abi.md, section 12).
                (*self.rt).depth_left = 0;
            }
            None
        } else {
            self.push_frame(cf.frame_size)
        }
    }

    /// Runs function `callee` on `frame` (from [`Machine::callee_frame`], its arguments
    /// written), one call deeper, then gives the frame back; whether the runtime is
    /// abandoning after it.
    #[inline(always)]
    unsafe fn run_callee(
        &self,
        callee: u32,
        depth_taken: u32,
        frame: *mut u8,
        saved: crate::frames::Mark,
        ret: *mut u8,
    ) -> bool {
        let depth = (*self.rt).depth_left;
        (*self.rt).depth_left = depth - depth_taken as usize;
        self.run(callee as usize, frame, ret);
        (*self.rt).depth_left = depth;
        self.frames.pop(saved);
        self.abandoning()
    }

    /// Runs the entry function on a fresh frame.
    ///
    /// # Safety
    /// The program must be verified and its natives the ones its calls declare.
    pub unsafe fn run_entry(&self, entry: usize) {
        let f = &self.funcs[entry];
        let Some((frame, saved)) = self.push_frame(f.frame_size) else {
            (self.table.raise_stack_overflow)(self.rt);
            return;
        };
        self.run(entry, frame, ptr::null_mut());
        self.frames.pop(saved);
    }

    /// Runs function `fi` on `frame`, whose parameters and type-parameter descriptors the
    /// caller has written; the result goes to `ret`.
    ///
    /// # Safety
    /// As for [`Machine::run_entry`].
    pub unsafe fn run(&self, fi: usize, frame: *mut u8, ret: *mut u8) {
        // `fi` is the entry or a callee the lowering resolved: always a function here.
        debug_assert!(fi < self.funcs.len() && fi < self.desc_bases.len());
        let f = self.funcs.get_unchecked(fi);
        let base = *self.desc_bases.get_unchecked(fi);
        let rt = self.rt;
        let t = self.table;
        // The frame's descriptor table: generic types, from the type arguments.
        for (i, entry) in f.generic_entries.iter().enumerate() {
            let desc = match entry {
                GenericEntry::List(e) => (t.tydesc_list)(rt, desc_of(frame, base, *e)),
                GenericEntry::Option(p) => (t.tydesc_option)(rt, desc_of(frame, base, *p)),
                GenericEntry::Tuple(fields) if fields.len() <= FEW_FIELDS => {
                    let mut ds = [ptr::null(); FEW_FIELDS];
                    for (at, d) in ds.iter_mut().zip(fields.iter()) {
                        *at = desc_of(frame, base, *d);
                    }
                    (t.tydesc_tuple)(rt, ds.as_ptr(), fields.len())
                }
                GenericEntry::Tuple(fields) => {
                    let ds: Vec<Td> = fields.iter().map(|d| desc_of(frame, base, *d)).collect();
                    (t.tydesc_tuple)(rt, ds.as_ptr(), ds.len())
                }
                GenericEntry::Map(k, v) => {
                    (t.tydesc_map)(rt, desc_of(frame, base, *k), desc_of(frame, base, *v))
                }
                GenericEntry::Enum(names, payloads) => {
                    let ds: Vec<Td> = payloads.iter().map(|d| desc_of(frame, base, *d)).collect();
                    (t.tydesc_enum)(rt, names.as_ptr(), names.len(), ds.as_ptr(), ds.len())
                }
            };
            *(frame.add(base as usize + 8 * (f.type_params + i)) as *mut Td) = desc;
        }
        if let Some(mark_at) = f.shadow_mark {
            *(frame.add(mark_at as usize) as *mut *mut u8) = (*rt).shadow_top;
            for (offset, d, copy_in) in &f.shadow_locals {
                let desc = desc_of(frame, base, *d);
                let p = (t.shadow_push)(rt, (*desc).size, (*desc).align);
                if p.is_null() {
                    (t.shadow_pop)(rt, *(frame.add(mark_at as usize) as *mut *mut u8));
                    self.drop_owned(frame, base, &f.entry_drops);
                    return;
                }
                let at = frame.add(*offset as usize) as *mut *mut u8;
                if *copy_in {
                    ptr::copy_nonoverlapping(*at, p, (*desc).size);
                }
                *at = p;
            }
        }
        let pop_shadow = || {
            if let Some(mark_at) = f.shadow_mark {
                (t.shadow_pop)(rt, *(frame.add(mark_at as usize) as *mut *mut u8));
            }
        };
        // The operation to run next, as its address: a step is one add, a jump one
        // multiply-add from the start (`goto!`).
        let ops = f.ops.as_ptr();
        let mut pc = ops;
        macro_rules! goto {
            ($target:expr) => {
                pc = ops.add($target as usize)
            };
        }
        // Loads and stores at direct frame offsets, for the fast form.
        macro_rules! ld {
            ($t:ty, $o:expr) => {
                (frame.add($o as usize) as *const $t).read()
            };
        }
        macro_rules! st {
            ($t:ty, $o:expr, $v:expr) => {
                (frame.add($o as usize) as *mut $t).write($v)
            };
        }
        // The fast form's per-type operations, each run by one of these on its payload
        // `$o` (see `per_type!`); `$t` is the type, `$op` the operator.
        // A fused operation's parts: its constant `k` (of `$t`'s bits), written to its
        // slot `kd` first; its result copied to `m`; the operations it covers skipped.
        macro_rules! k {
            ($t:ty, $o:expr) => {{
                st!(u64, $o.kd, $o.k);
                <$t as FromBits>::from_bits($o.k)
            }};
        }
        macro_rules! copy_to_m {
            ($o:expr) => {
                st!(u64, $o.m, ld!(u64, $o.op.d))
            };
        }
        macro_rules! skip {
            ($covers:expr) => {{
                pc = pc.add($covers);
                continue;
            }};
        }
        // `d = a op b`, plain or checked (`$op` is then the checked method and the
        // error's `ArithOp`: the result, or the error and the abandon target).
        macro_rules! plain {
            ($t:ty, $o:expr, $b:expr, $op:tt) => {
                st!($t, $o.d, ld!($t, $o.a) $op $b)
            };
        }
        macro_rules! checked {
            ($t:ty, $o:expr, $b:expr, ($method:ident, $aop:ident)) => {
                match <$t>::$method(ld!($t, $o.a), $b) {
                    Some(v) => st!($t, $o.d, v),
                    None => {
                        overflow(t, rt, ArithOp::$aop, $o.ty as u32);
                        goto!($o.fail);
                        continue;
                    }
                }
            };
        }
        // `$run` (`plain` or `checked`) with `b` read from the frame; with `b` a fused
        // constant; the former, then its result copied to `m`.
        macro_rules! operands {
            ($t:ty, $o:expr, ($run:ident $op:tt)) => {
                $run!($t, $o, ld!($t, $o.b), $op)
            };
        }
        macro_rules! with_k {
            ($t:ty, $o:expr, ($run:ident $op:tt)) => {{
                let k = k!($t, $o);
                $run!($t, $o, k, $op);
                skip!(2)
            }};
        }
        // `d = a / k` or `a % k` by a power of two `k` (written first): two operations.
        macro_rules! pow2 {
            ($t:ty, $o:expr, $method:ident) => {{
                let k = k!($t, $o);
                st!($t, $o.d, <$t as ByPowerOfTwo>::$method(ld!($t, $o.a), k));
                skip!(2)
            }};
        }
        macro_rules! then_copy {
            ($t:ty, $o:expr, ($run:ident $op:tt)) => {{
                operands!($t, $o.op, ($run $op));
                copy_to_m!($o);
                skip!(2)
            }};
        }
        // Checked `d = a + k`, then the copy to `m`: three operations.
        macro_rules! inc {
            ($t:ty, $o:expr, $op:tt) => {{
                let k = k!($t, $o.op);
                checked!($t, $o.op, k, $op);
                copy_to_m!($o);
                skip!(3)
            }};
        }
        // A comparison written at `d`; with the branch on it; with a constant `k` (of
        // `$t`'s bits) as its right operand, first written at `kd`.
        macro_rules! cmp {
            ($t:ty, $o:expr, $op:tt) => {
                st!(u8, $o.d, (ld!($t, $o.a) $op ld!($t, $o.b)) as u8)
            };
        }
        // To `$t` when `$c` holds, else to `$e`, by a conditional jump that the
        // processor predicts. Picking the target by the condition instead (what the
        // compiler makes of `goto!(if c { t } else { e })`: no jump) would make the
        // address of every later operation wait for the condition's loads. The empty
        // `asm!` in one arm (it must run only there) keeps the arms apart.
        macro_rules! jump_if {
            ($c:expr, $t:expr, $e:expr) => {
                if $c {
                    std::arch::asm!("", options(nomem, nostack, preserves_flags));
                    goto!($t)
                } else {
                    goto!($e)
                }
            };
        }
        macro_rules! branch {
            ($o:expr, $c:expr) => {{
                let c = $c;
                st!(u8, $o.d, c as u8);
                jump_if!(c, $o.to.t, $o.to.e);
                continue;
            }};
        }
        macro_rules! cmp_br {
            ($t:ty, $o:expr, $op:tt) => {
                branch!($o, ld!($t, $o.a) $op ld!($t, $o.b))
            };
        }
        macro_rules! cmp_br_k {
            ($t:ty, $o:expr, $op:tt) => {{
                let k = k!($t, $o);
                branch!($o, ld!($t, $o.a) $op k)
            }};
        }
        // A counter's step and the loop's test (`Op::IncBrLtI64`, ..): the step (its
        // constant written first, or read from its slot), checked; the result written
        // and copied; the bound (its constant written first, or read from its slot);
        // the comparison written and branched on.
        macro_rules! stepped {
            ($t:ty, $o:expr, $step:expr) => {
                stepped!($t, $o, $step, checked_add, ArithOp::Add)
            };
            ($t:ty, $o:expr, $step:expr, $method:ident, $arith:expr) => {{
                // The step first: a constant step is written before `a` is read, as its
                // own operation would be (the two may be one slot).
                let step = $step;
                match <$t>::$method(ld!($t, $o.step.a), step) {
                    Some(v) => {
                        st!($t, $o.step.d, v);
                        st!($t, $o.step.m, v);
                        v
                    }
                    None => {
                        overflow(t, rt, $arith, $o.step.ty as u32);
                        goto!($o.step.fail);
                        continue;
                    }
                }
            }};
        }
        macro_rules! k32 {
            ($t:ty, $at:expr, $k:expr) => {{
                let k = $k as i64 as $t;
                st!($t, $at, k);
                k
            }};
        }
        // `step_br` runs one: `$step` and `$bound` say whether each is a constant
        // (`k`, its value at `k`, written to its slot first) or read from its slot.
        macro_rules! operand {
            ($t:ty, $at:expr, $k:expr, k) => {
                k32!($t, $at, $k)
            };
            ($t:ty, $at:expr, $k:expr, slot) => {
                ld!($t, $at)
            };
        }
        macro_rules! step_br {
            // A constant subtracted (`Op::SubBrLtI64K`, ..).
            ($t:ty, $o:expr, (subk $bound:ident $op:tt)) => {{
                let k = k32!($t, $o.step.step, $o.step.k);
                let v = stepped!($t, $o, k, checked_sub, ArithOp::Sub);
                branch!($o.br, v $op operand!($t, $o.br.b, $o.br.k, $bound))
            }};
            ($t:ty, $o:expr, ($step:ident $bound:ident $op:tt)) => {{
                let v = stepped!($t, $o, operand!($t, $o.step.step, $o.step.k, $step));
                branch!($o.br, v $op operand!($t, $o.br.b, $o.br.k, $bound))
            }};
        }
        // A call-depth test as `Op::CheckDepth` makes it, then a step and its test
        // (`Op::DepthSubBrLtI64K`, ..).
        macro_rules! depth_step_br {
            ($t:ty, $o:expr, $how:tt) => {{
                if (*self.rt).depth_left < $o.depth as usize {
                    // The runtime names the depth limit only when none is left.
                    (*self.rt).depth_left = 0;
                    (t.raise_stack_overflow)(rt);
                    goto!($o.fail);
                    continue;
                }
                step_br!($t, $o.then, $how)
            }};
        }
        // A list element in place (`$at`: the list in the frame, or its address there),
        // read into `value` or written from it; or the bounds error.
        macro_rules! list_at {
            (direct, $o:expr) => {
                frame.add($o.list as usize)
            };
            (indirect, $o:expr) => {
                ld!(*mut u8, $o.list)
            };
        }
        macro_rules! element {
            ($t:ty, $o:expr, $at:ident, $p:ident => $access:expr) => {
                match list_elem(list_at!($at, $o), $o.index, frame, size_of::<$t>()) {
                    Ok($p) => $access,
                    Err((i, len)) => {
                        out_of_bounds(t, rt, i, len);
                        goto!($o.fail);
                        continue;
                    }
                }
            };
        }
        macro_rules! get {
            ($t:ty, $o:expr, $at:ident) => {
                element!($t, $o, $at, p => st!($t, $o.value, (p as *const $t).read()))
            };
        }
        macro_rules! set {
            ($t:ty, $o:expr, $at:ident) => {
                element!($t, $o, $at, p => (p as *mut $t).write(ld!($t, $o.value)))
            };
        }
        // A push in place while the buffer has room; the runtime grows a full one.
        macro_rules! push {
            ($t:ty, $o:expr, $at:ident) => {{
                let list = list_at!($at, $o) as *mut datalove_rti::rtdt::List;
                let (p, len, cap) = (*list).raw_parts();
                if len < cap {
                    (p as *mut $t).add(len).write(ld!($t, $o.value));
                    (*list).set_raw_parts(p, len + 1, cap);
                } else {
                    (t.list_push)(
                        rt,
                        list,
                        $o.elem,
                        frame.add($o.value as usize) as *mut c_void,
                    );
                }
            }};
        }
        // `f64` arithmetic, then the test of its result against a constant (written to
        // its slot first, as its own operation would).
        macro_rules! arith_br_k {
            ($t:ty, $o:expr, ($aop:tt $cop:tt)) => {{
                let v = ld!($t, $o.op.a) $aop ld!($t, $o.op.b);
                st!($t, $o.op.d, v);
                let k = k!($t, $o.br);
                branch!($o.br, v $cop k)
            }};
        }
        // An index computed by a checked `+` or `-` (its constant step written first, or
        // its step read from its slot), then the element at it read (`Op::AddKGetW`, ..).
        macro_rules! index_get {
            ($t:ty, $o:expr, ($at:ident $step:ident $covers:literal $method:ident $aop:ident)) => {{
                // The step first, as for `stepped!`.
                let step = operand!(u64, $o.step, $o.k, $step);
                match u64::$method(ld!(u64, $o.a), step) {
                    Some(v) => st!(u64, $o.d, v),
                    None => {
                        overflow(t, rt, ArithOp::$aop, $o.ty as u32);
                        goto!($o.fail);
                        continue;
                    }
                }
                get!($t, $o.get, $at);
                skip!($covers)
            }};
        }
        // An element read, then an element written (`Op::MoveW`, ..).
        macro_rules! move_element {
            ($t:ty, $o:expr, $at:ident) => {{
                get!($t, $o.get, $at);
                set!($t, $o.set, $at);
                skip!(2)
            }};
        }
        // Two checked operations in a row (`Op::AddAddI64`, ..): the first on two slots,
        // the second on two slots or with a constant (written to its slot first).
        macro_rules! two {
            ($t:ty, $o:expr, $op:tt) => {{
                operands!($t, $o.first, (checked $op));
                operands!($t, $o.then, (checked $op));
                skip!(2)
            }};
        }
        macro_rules! two_k {
            ($t:ty, $o:expr, $op:tt) => {{
                operands!($t, $o.first, (checked $op));
                let k = k!($t, $o.then);
                checked!($t, $o.then, k, $op);
                skip!(3)
            }};
        }
        // A checked `*`, then the division of its product by a power of two (its
        // constant written first), which reads its dividend from its slot.
        macro_rules! mul_div_p2 {
            ($t:ty, $o:expr, $_op:tt) => {{
                operands!($t, $o.first, (checked(checked_mul, Mul)));
                let k = k!($t, $o.then);
                st!(
                    $t,
                    $o.then.d,
                    <$t as ByPowerOfTwo>::div_pow2(ld!($t, $o.then.a), k)
                );
                skip!(3)
            }};
        }
        // A conversion to `f64`, written, then the division after it (which reads its
        // operands from their slots, as its own operation would).
        macro_rules! convert_div {
            ($t:ty, $o:expr, $_op:tt) => {{
                st!(f64, $o.c, ld!($t, $o.s) as f64);
                plain!(f64, $o.div, ld!(f64, $o.div.b), /);
                skip!(2)
            }};
        }
        // Two `f64` operations in a row (`Op::PairSubAddF64`, ..): each reads its
        // operands after the one before wrote, and writes its result and its copy.
        macro_rules! f64_pair {
            ($t:ty, $o:expr, ($first:tt $then:tt)) => {{
                let v = ld!($t, $o.first.a) $first ld!($t, $o.first.b);
                st!($t, $o.first.d, v);
                st!($t, $o.first.m, v);
                let v = ld!($t, $o.then.a) $then ld!($t, $o.then.b);
                st!($t, $o.then.d, v);
                st!($t, $o.then.m, v);
                // A branch on the count, predicted, rather than an add of it: the next
                // operation's address then does not wait for the load of `covers`.
                match $o.covers {
                    2 => skip!(2),
                    3 => skip!(3),
                    _ => skip!(4),
                }
            }};
        }
        // An `f64` product and the sum or difference that takes it (`mul_then`): the
        // result written (`Op::MulAddF64`, ..), also copied (`Op::MulAddF64M`, ..), or
        // written and then stored as a list element (`Op::MulAddSetW`, ..).
        macro_rules! mul_op {
            ($o:expr, add) => {
                mul_then(frame, &$o) + ld!(f64, $o.c)
            };
            ($o:expr, sub) => {
                mul_then(frame, &$o) - ld!(f64, $o.c)
            };
            ($o:expr, rsub) => {
                ld!(f64, $o.c) - mul_then(frame, &$o)
            };
        }
        macro_rules! mul_arith {
            ($t:ty, $o:expr, $how:ident) => {{
                st!($t, $o.d, mul_op!($o, $how));
                skip!(2)
            }};
        }
        macro_rules! mul_arith_m {
            ($t:ty, $o:expr, $how:ident) => {{
                let v = mul_op!($o.op, $how);
                st!($t, $o.op.d, v);
                st!($t, $o.m, v);
                skip!(3)
            }};
        }
        macro_rules! mul_set {
            ($t:ty, $o:expr, ($how:ident $at:ident)) => {{
                st!($t, $o.op.d, mul_op!($o.op, $how));
                set!($t, $o.set, $at);
                skip!(3)
            }};
        }
        // An 8-byte element read, then the product-and-sum after it (`Op::GetMulAddW`,
        // ..), which reads its operands from their slots, as it would alone.
        macro_rules! get_mul_add {
            ($t:ty, $o:expr, ($at:ident $then:ident)) => {{
                get!(u64, $o.get, $at);
                pc = pc.add(1);
                $then!($t, $o.then, add)
            }};
        }
        // A call with its arguments as values (`Op::CallV`, `Op::CallW1`): the callee's
        // frame taken (or the stack overflow), the arguments written by `$args` into it,
        // the callee run with its result to `$dst` (none when `u32::MAX`).
        macro_rules! call_value {
            ($callee:expr, $dst:expr, $depth:expr, $fail:expr, |$to:ident| $args:block) => {{
                let cf = self.funcs.get_unchecked($callee as usize);
                let Some(($to, saved)) = self.callee_frame(cf, $depth) else {
                    (t.raise_stack_overflow)(rt);
                    goto!($fail);
                    continue;
                };
                $args
                let ret_ptr = if $dst == u32::MAX {
                    ptr::null_mut()
                } else {
                    frame.add($dst as usize)
                };
                if self.run_callee($callee, $depth, $to, saved, ret_ptr) {
                    goto!($fail);
                    continue;
                }
            }};
        }
        // A native call in registers (`Op::NativeS5`, ..; `$call` is the `call_short_N`
        // of its word count): its status and the runtime's abandoning flag tested as
        // `Op::CallNative` tests them.
        macro_rules! native_short {
            ($o:expr, $call:ident) => {{
                let call = &*$o.call;
                // SAFETY: the fast form makes these only of calls with short words.
                let words = call.short.as_ref().unwrap_unchecked();
                let status =
                    crate::native::$call(call.function, rt as usize, words, frame as usize);
                if !self.native_returned(call, frame, base, status) {
                    goto!($o.fail);
                    continue;
                }
            }};
        }
        // A checked operation with a constant, then the one-argument call that takes its
        // result (`Op::SubKCallI64`, ..): three operations.
        macro_rules! step_call {
            ($t:ty, $o:expr, $op:tt) => {{
                let k = k!($t, $o.step);
                checked!($t, $o.step, k, $op);
                let c = &$o.call;
                call_value!(c.callee, c.dst, c.depth, c.fail, |callee_frame| {
                    (callee_frame.add(c.offset as usize) as *mut u64).write(ld!(u64, c.src));
                });
                skip!(3)
            }};
        }
        // A one-argument call, then the operation on its result that copies what it
        // computes (`Op::CallAddI64M`, ..): three operations.
        macro_rules! call_then_copy {
            ($t:ty, $o:expr, ($run:ident $op:tt)) => {{
                let c = &$o.call;
                call_value!(c.callee, c.dst, c.depth, c.fail, |callee_frame| {
                    (callee_frame.add(c.offset as usize) as *mut u64).write(ld!(u64, c.src));
                });
                operands!($t, $o.then.op, ($run $op));
                copy_to_m!($o.then);
                skip!(3)
            }};
        }
        // A checked operation, then the return of its result (`Op::AddRetI64`, ..).
        macro_rules! ret_checked {
            ($t:ty, $o:expr, $op:tt) => {{
                operands!($t, $o, (checked $op));
                if !ret.is_null() {
                    (ret as *mut u64).write(ld!(u64, $o.d));
                }
                pop_shadow();
                return;
            }};
        }
        // An `f64` product, written, then the operation after it (`Op::MulMulAddF64`,
        // `Op::MulMulRsubSetWI`, ..), which reads its operands from their slots.
        macro_rules! mul_then {
            ($t:ty, $o:expr, ($then:ident $($how:tt)+)) => {{
                plain!($t, $o.mul, ld!($t, $o.mul.b), *);
                pc = pc.add(1);
                $then!($t, $o.then, $($how)+)
            }};
        }
        // A `bool` element read, then the branch on it (`Op::GetBBr`, ..).
        macro_rules! get_br {
            ($t:ty, $o:expr, $at:ident) => {{
                get!($t, $o.get, $at);
                jump_if!(ld!($t, $o.get.value) != 0, $o.to.t, $o.to.e);
                continue;
            }};
        }
        loop {
            // SAFETY: lowering ends every block with a jump, branch or return, and every
            // target is an operation of this function.
            per_type! { &*pc;
                operands { (plain +) AddF64: f64; (plain -) SubF64: f64;
                           (plain *) MulF64: f64; (plain /) DivF64: f64;
                           (plain &) AndB: u8; (plain |) OrB: u8;
                           (checked (checked_add, Add)) AddI64: i64, AddU64: u64;
                           (checked (checked_sub, Sub)) SubI64: i64, SubU64: u64;
                           (checked (checked_mul, Mul)) MulI64: i64, MulU64: u64; }
                with_k { (plain +) AddF64K: f64; (plain -) SubF64K: f64;
                         (plain *) MulF64K: f64;
                         (plain /) DivF64K: f64, DivI64K: i64, DivU64K: u64;
                         (plain %) RemI64K: i64, RemU64K: u64;
                         (checked (checked_add, Add)) AddI64K: i64, AddU64K: u64;
                         (checked (checked_sub, Sub)) SubI64K: i64, SubU64K: u64;
                         (checked (checked_mul, Mul)) MulI64K: i64, MulU64K: u64; }
                pow2 { div_pow2 DivI64P2: i64, DivU64P2: u64;
                       rem_pow2 RemI64P2: i64, RemU64P2: u64; }
                then_copy { (plain +) AddF64M: f64; (plain -) SubF64M: f64;
                            (plain *) MulF64M: f64;
                            (checked (checked_add, Add)) AddI64M: i64, AddU64M: u64;
                            (checked (checked_sub, Sub)) SubI64M: i64; }
                inc { (checked_add, Add) IncI64: i64, IncU64: u64; }
                cmp { == EqI64: i64, EqU64: u64, EqF64: f64;
                      != NeI64: i64, NeU64: u64, NeF64: f64;
                      < LtI64: i64, LtU64: u64, LtF64: f64;
                      <= LeI64: i64, LeU64: u64, LeF64: f64; }
                cmp_br { == BrEqI64: i64, BrEqU64: u64, BrEqF64: f64;
                         != BrNeI64: i64, BrNeU64: u64, BrNeF64: f64;
                         < BrLtI64: i64, BrLtU64: u64, BrLtF64: f64;
                         <= BrLeI64: i64, BrLeU64: u64, BrLeF64: f64; }
                cmp_br_k { == BrEqI64K: i64, BrEqU64K: u64, BrEqF64K: f64;
                           != BrNeI64K: i64, BrNeU64K: u64, BrNeF64K: f64;
                           < BrLtI64K: i64, BrLtU64K: u64, BrLtF64K: f64;
                           <= BrLeI64K: i64, BrLeU64K: u64, BrLeF64K: f64;
                           > BrGtI64K: i64, BrGtU64K: u64, BrGtF64K: f64;
                           >= BrGeI64K: i64, BrGeU64K: u64, BrGeF64K: f64; }
                step_br { (k slot ==) IncBrEqI64: i64, IncBrEqU64: u64; (k slot !=) IncBrNeI64: i64, IncBrNeU64: u64;
                          (k slot <) IncBrLtI64: i64, IncBrLtU64: u64; (k slot <=) IncBrLeI64: i64, IncBrLeU64: u64;
                          (k k ==) IncBrEqI64K: i64, IncBrEqU64K: u64; (k k !=) IncBrNeI64K: i64, IncBrNeU64K: u64;
                          (k k <) IncBrLtI64K: i64, IncBrLtU64K: u64; (k k <=) IncBrLeI64K: i64, IncBrLeU64K: u64;
                          (slot slot ==) AddBrEqI64: i64, AddBrEqU64: u64; (slot slot !=) AddBrNeI64: i64, AddBrNeU64: u64;
                          (slot slot <) AddBrLtI64: i64, AddBrLtU64: u64; (slot slot <=) AddBrLeI64: i64, AddBrLeU64: u64;
                          (slot k ==) AddBrEqI64K: i64, AddBrEqU64K: u64; (slot k !=) AddBrNeI64K: i64, AddBrNeU64K: u64;
                          (slot k <) AddBrLtI64K: i64, AddBrLtU64K: u64; (slot k <=) AddBrLeI64K: i64, AddBrLeU64K: u64;
                          (subk slot ==) SubBrEqI64: i64, SubBrEqU64: u64; (subk slot !=) SubBrNeI64: i64, SubBrNeU64: u64;
                          (subk slot <) SubBrLtI64: i64, SubBrLtU64: u64; (subk slot <=) SubBrLeI64: i64, SubBrLeU64: u64;
                          (subk k ==) SubBrEqI64K: i64, SubBrEqU64K: u64; (subk k !=) SubBrNeI64K: i64, SubBrNeU64K: u64;
                          (subk k <) SubBrLtI64K: i64, SubBrLtU64K: u64; (subk k <=) SubBrLeI64K: i64, SubBrLeU64K: u64; }
                depth_step_br { (subk slot ==) DepthSubBrEqI64: i64, DepthSubBrEqU64: u64;
                                (subk slot !=) DepthSubBrNeI64: i64, DepthSubBrNeU64: u64;
                                (subk slot <) DepthSubBrLtI64: i64, DepthSubBrLtU64: u64;
                                (subk slot <=) DepthSubBrLeI64: i64, DepthSubBrLeU64: u64;
                                (subk k ==) DepthSubBrEqI64K: i64, DepthSubBrEqU64K: u64;
                                (subk k !=) DepthSubBrNeI64K: i64, DepthSubBrNeU64K: u64;
                                (subk k <) DepthSubBrLtI64K: i64, DepthSubBrLtU64K: u64;
                                (subk k <=) DepthSubBrLeI64K: i64, DepthSubBrLeU64K: u64; }
                arith_br_k { (+ <) AddF64BrLtK: f64; (+ <=) AddF64BrLeK: f64;
                             (+ >) AddF64BrGtK: f64; (+ >=) AddF64BrGeK: f64;
                             (- <) SubF64BrLtK: f64; (- <=) SubF64BrLeK: f64;
                             (- >) SubF64BrGtK: f64; (- >=) SubF64BrGeK: f64;
                             (* <) MulF64BrLtK: f64; (* <=) MulF64BrLeK: f64;
                             (* >) MulF64BrGtK: f64; (* >=) MulF64BrGeK: f64; }
                index_get { (direct k 3 checked_add Add) AddKGetW: u64;
                            (indirect k 3 checked_add Add) AddKGetWI: u64;
                            (direct slot 2 checked_add Add) AddGetW: u64;
                            (indirect slot 2 checked_add Add) AddGetWI: u64;
                            (direct k 3 checked_sub Sub) SubKGetW: u64;
                            (indirect k 3 checked_sub Sub) SubKGetWI: u64;
                            (direct slot 2 checked_sub Sub) SubGetW: u64;
                            (indirect slot 2 checked_sub Sub) SubGetWI: u64; }
                move_element { direct MoveW: u64, MoveB: u8; indirect MoveWI: u64, MoveBI: u8; }
                two { (checked_add, Add) AddAddI64: i64, AddAddU64: u64; }
                two_k { (checked_add, Add) AddAddKI64: i64, AddAddKU64: u64; }
                convert_div { (/) I64ToF64Div: i64, U64ToF64Div: u64; }
                mul_div_p2 { (/) MulDivP2I64: i64, MulDivP2U64: u64; }
                f64_pair { (+ +) PairAddAddF64: f64; (+ -) PairAddSubF64: f64;
                           (+ *) PairAddMulF64: f64; (- +) PairSubAddF64: f64;
                           (- -) PairSubSubF64: f64; (- *) PairSubMulF64: f64;
                           (* +) PairMulAddF64: f64; (* -) PairMulSubF64: f64;
                           (* *) PairMulMulF64: f64; }
                get_br { direct GetBBr: u8; indirect GetBIBr: u8; }
                mul_then { (mul_arith add) MulMulAddF64: f64; (mul_arith sub) MulMulSubF64: f64;
                           (mul_arith rsub) MulMulRsubF64: f64;
                           (mul_set (add direct)) MulMulAddSetW: f64;
                           (mul_set (add indirect)) MulMulAddSetWI: f64;
                           (mul_set (sub direct)) MulMulSubSetW: f64;
                           (mul_set (sub indirect)) MulMulSubSetWI: f64;
                           (mul_set (rsub direct)) MulMulRsubSetW: f64;
                           (mul_set (rsub indirect)) MulMulRsubSetWI: f64; }
                step_call { (checked_add, Add) AddKCallI64: i64, AddKCallU64: u64;
                            (checked_sub, Sub) SubKCallI64: i64, SubKCallU64: u64; }
                call_then_copy { (checked (checked_add, Add)) CallAddI64M: i64, CallAddU64M: u64; }
                get_mul_add { (direct mul_arith) GetMulAddW: f64;
                              (indirect mul_arith) GetMulAddWI: f64;
                              (direct mul_arith_m) GetMulAddMW: f64;
                              (indirect mul_arith_m) GetMulAddMWI: f64; }
                mul_arith { add MulAddF64: f64; sub MulSubF64: f64; rsub MulRsubF64: f64; }
                mul_arith_m { add MulAddF64M: f64; sub MulSubF64M: f64; rsub MulRsubF64M: f64; }
                mul_set { (add direct) MulAddSetW: f64; (add indirect) MulAddSetWI: f64;
                          (sub direct) MulSubSetW: f64; (sub indirect) MulSubSetWI: f64;
                          (rsub direct) MulRsubSetW: f64; (rsub indirect) MulRsubSetWI: f64; }
                get { direct GetW: u64, GetB: u8; indirect GetWI: u64, GetBI: u8; }
                set { direct SetW: u64, SetB: u8; indirect SetWI: u64, SetBI: u8; }
                push { direct PushW: u64, PushB: u8; indirect PushWI: u64, PushBI: u8; }
            ;
                Op::Jump(target) => {
                    goto!(*target);
                    continue;
                }
                Op::CallNative { call, fail } => {
                    if !self.call_native(frame, base, call) {
                        goto!(*fail);
                        continue;
                    }
                }
                Op::NativeS3(o) => native_short!(o, call_short_3),
                Op::NativeS4(o) => native_short!(o, call_short_4),
                Op::NativeS5(o) => native_short!(o, call_short_5),
                Op::NativeS6(o) => native_short!(o, call_short_6),
                Op::NativeS7(o) => native_short!(o, call_short_7),
                Op::NativeS8(o) => native_short!(o, call_short_8),
                Op::CheckDepth { depth, fail } => {
                    if (*self.rt).depth_left < *depth as usize {
                        // The runtime names the depth limit only when none is left.
                        (*self.rt).depth_left = 0;
                        (t.raise_stack_overflow)(rt);
                        goto!(*fail);
                        continue;
                    }
                }
                // The generic operations, out of the loop's way.
                Op::Const { .. }
                | Op::Mov { .. }
                | Op::Unary { .. }
                | Op::Binary { .. }
                | Op::Compare { .. }
                | Op::Cast { .. }
                | Op::Branch { .. }
                | Op::MovDyn { .. }
                | Op::CompareDyn { .. }
                | Op::ConstStr { .. }
                | Op::Clone { .. }
                | Op::Drop { .. }
                | Op::DropString { .. }
                | Op::Concat { .. }
                | Op::MakeTuple { .. }
                | Op::TupleField { .. }
                | Op::Unpack { .. }
                | Op::MakeVariant { .. }
                | Op::VariantTag { .. }
                | Op::TakeVariant { .. }
                | Op::MakeVariantDyn { .. }
                | Op::TakeVariantDyn { .. }
                | Op::MakeList { .. }
                | Op::ListLen { .. }
                | Op::MapLen { .. }
                | Op::StrParts { .. }
                | Op::MapEntry { .. }
                | Op::ListGet { .. }
                | Op::StrSlice { .. }
                | Op::ListSet { .. }
                | Op::ListPush { .. }
                | Op::MakeSome { .. }
                | Op::MakeNone { .. }
                | Op::IsSome { .. }
                | Op::Unwrap { .. }
                | Op::MakeData { .. }
                | Op::Debuglog { .. }
                | Op::Call { .. }
                | Op::Return { .. }
                | Op::Abandon
                | Op::Site { .. }
                | Op::CalledFrom { .. } => match self.generic(&*pc, f, frame, base, ret)
                {
                    Flow::Next => {}
                    Flow::Goto(to) => {
                        goto!(to);
                        continue;
                    }
                    Flow::Return => return,
                },
                // ---- the fast form ----
                Op::ConstW { dst, bits } => st!(u64, *dst, *bits),
                Op::ConstB { dst, bits } => st!(u8, *dst, *bits),
                Op::MovW { dst, src } => st!(u64, *dst, ld!(u64, *src)),
                Op::MovB { dst, src } => st!(u8, *dst, ld!(u8, *src)),
                Op::BranchD { cond, t: th, e } => {
                    jump_if!(ld!(u8, *cond) != 0, *th, *e);
                    continue;
                }
                Op::BoolToW { d, s } => st!(u64, *d, ld!(u8, *s) as u64),
                Op::I64ToF64 { d, s } => st!(f64, *d, ld!(i64, *s) as f64),
                Op::U64ToF64 { d, s } => st!(f64, *d, ld!(u64, *s) as f64),
                Op::SqrtF64 { d, s } => st!(f64, *d, ld!(f64, *s).sqrt()),
                Op::AbsF64 { d, s } => st!(f64, *d, ld!(f64, *s).abs()),
                Op::NegF64 { d, s } => st!(f64, *d, -ld!(f64, *s)),
                Op::FloorF64 { d, s } => st!(f64, *d, ld!(f64, *s).floor()),
                Op::CeilF64 { d, s } => st!(f64, *d, ld!(f64, *s).ceil()),
                Op::I64ToU64 { d, s, ty, fail } => {
                    let v = ld!(i64, *s);
                    if v < 0 && *fail != u32::MAX {
                        overflow(t, rt, ArithOp::Cast, *ty);
                        goto!(*fail);
                        continue;
                    }
                    st!(u64, *d, v as u64);
                }
                Op::U64ToI64 { d, s, ty, fail } => {
                    let v = ld!(u64, *s);
                    if v > i64::MAX as u64 && *fail != u32::MAX {
                        overflow(t, rt, ArithOp::Cast, *ty);
                        goto!(*fail);
                        continue;
                    }
                    st!(i64, *d, v as i64);
                }
                Op::CallV {
                    callee,
                    args,
                    dst,
                    depth,
                    fail,
                } => {
                    let dst = dst.unwrap_or(u32::MAX);
                    call_value!(*callee, dst, *depth, *fail, |callee_frame| {
                        for &(src, offset, size) in args.iter() {
                            let to = callee_frame.add(offset as usize);
                            if size == 8 {
                                (to as *mut u64).write(ld!(u64, src));
                            } else {
                                ptr::copy_nonoverlapping(frame.add(src as usize), to, size as usize);
                            }
                        }
                    })
                }
                Op::CallW1(o) => call_value!(o.callee, o.dst, o.depth, o.fail, |callee_frame| {
                    (callee_frame.add(o.offset as usize) as *mut u64).write(ld!(u64, o.src));
                }),
                Op::RetW { src } => {
                    if !ret.is_null() {
                        (ret as *mut u64).write(ld!(u64, *src));
                    }
                    pop_shadow();
                    return;
                }
                Op::AddRetI64(o) => ret_checked!(i64, o, (checked_add, Add)),
                Op::SubRetI64(o) => ret_checked!(i64, o, (checked_sub, Sub)),
                Op::MulRetI64(o) => ret_checked!(i64, o, (checked_mul, Mul)),
            }
            pc = pc.add(1);
        }
    }

    /// Runs one generic operation (`crate::ops`' first section) of function `f` on
    /// `frame`: out of the dispatch loop, so the loop's registers serve the fast form.
    #[inline(never)]
    unsafe fn generic(&self, op: &Op, f: &CFunc, frame: *mut u8, base: u32, ret: *mut u8) -> Flow {
        let rt = self.rt;
        let t = self.table;
        let pop_shadow = || {
            if let Some(mark_at) = f.shadow_mark {
                (t.shadow_pop)(rt, *(frame.add(mark_at as usize) as *mut *mut u8));
            }
        };
        let a = |o: Opnd| o.addr(frame);
        let desc = |d: DescRef| desc_of(frame, base, d);
        // A list operation's index (read at `index`) and the length of the list at `list`;
        // the bounds error on them, then the abandon target `fail`.
        let index_in = |index: Opnd, list: Opnd| {
            let i = (a(index) as *const u64).read();
            (i, (t.list_len)(rt, a(list) as *const _) as u64)
        };
        let out_of_bounds = |i: u64, len: u64, fail: u32| {
            (t.raise_bounds)(rt, i, len);
            Flow::Goto(fail as usize)
        };
        // The next operation after arithmetic on a `ty`, or its error raised and the
        // abandon target `fail`.
        let raised = |result: arith::ArithResult, ty: u32, fail: u32| match result {
            Ok(()) => Flow::Next,
            Err((kind, aop)) => {
                (t.raise_arith)(rt, kind as u32, aop as u32, ty);
                Flow::Goto(fail as usize)
            }
        };
        match op {
            Op::Const { dst, bits, size } => {
                let p = a(*dst);
                match size {
                    1 => *p = *bits as u8,
                    2 => (p as *mut u16).write(*bits as u16),
                    4 => (p as *mut u32).write(*bits as u32),
                    _ => (p as *mut u64).write(*bits),
                }
            }
            Op::Mov { dst, src, size } => match size {
                8 => (a(*dst) as *mut u64).write((a(*src) as *const u64).read()),
                4 => (a(*dst) as *mut u32).write((a(*src) as *const u32).read()),
                1 => *a(*dst) = *a(*src),
                n => ptr::copy(a(*src), a(*dst), *n as usize),
            },
            Op::Binary(o) => {
                let result = arith::binary(o.op, o.ty, a(o.a), a(o.b), a(o.dst));
                return raised(result, o.ty as u32, o.fail);
            }
            Op::Compare(o) => *a(o.dst) = arith::compare(o.op, o.ty, a(o.a), a(o.b)) as u8,
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                return Flow::Goto(if *a(*cond) != 0 { *then_pc } else { *else_pc } as usize);
            }
            Op::Unary(o) => {
                let result = arith::unary(o.op, o.ty, a(o.src), a(o.dst));
                return raised(result, o.ty as u32, o.fail);
            }
            Op::Cast(o) => {
                let result = arith::cast(o.from, o.to, o.checked, a(o.src), a(o.dst));
                return raised(result, datalove_rti::status::cast_ty(o.from, o.to), o.fail);
            }
            Op::MovDyn { dst, src, desc: d } => {
                ptr::copy(a(*src), a(*dst), (*desc(*d)).size);
            }
            Op::CompareDyn {
                op,
                desc: d,
                dst,
                a: x,
                b: y,
            } => {
                let td = desc(*d);
                let r = match op {
                    CompareOp::Eq => {
                        (t.eq)(rt, a(*x) as *const c_void, a(*y) as *const c_void, td) != 0
                    }
                    CompareOp::Ne => {
                        (t.eq)(rt, a(*x) as *const c_void, a(*y) as *const c_void, td) == 0
                    }
                    _ => arith::compare_result(
                        *op,
                        (t.cmp)(rt, a(*x) as *const c_void, a(*y) as *const c_void, td),
                    ),
                };
                *a(*dst) = r as u8;
            }
            Op::ConstStr { dst, bytes } => {
                // The constant's own bytes, owned by no value (`cap` 0): the lowered
                // program outlives every run, and the runtime copies them before a
                // change.
                let head = if bytes.is_empty() {
                    RtString::EMPTY
                } else {
                    RtString::from_raw_parts(bytes.as_ptr().cast_mut(), bytes.len(), 0)
                };
                ptr::write(a(*dst) as *mut RtString, head);
            }
            Op::Clone { dst, src, desc: d } => {
                (t.clone)(
                    rt,
                    a(*src) as *const c_void,
                    desc(*d),
                    a(*dst) as *mut c_void,
                );
            }
            Op::Drop { slot, desc: d } => (t.drop)(rt, a(*slot) as *mut c_void, desc(*d)),
            Op::DropString { slot } => {
                let at = a(*slot);
                if (at.add(LIST_CAP_OFFSET) as *const u64).read() != 0 {
                    (t.drop)(rt, at as *mut c_void, &datalove_rti::tydesc::STRING_TYDESC);
                }
            }
            Op::Concat { dst, a: x, b: y } => {
                (t.string_concat)(rt, a(*x) as *const _, a(*y) as *const _, a(*dst) as *mut _);
            }
            Op::MakeTuple {
                dst,
                desc: d,
                fields,
            } => {
                let td = &*desc(*d);
                let d0 = a(*dst);
                for (field, src) in td.fields().iter().zip(fields.iter()) {
                    ptr::copy(a(*src), d0.add(field.offset), (*field.desc).size);
                }
            }
            Op::TupleField {
                dst,
                src,
                desc: d,
                index,
            } => {
                let field = (*desc(*d)).fields()[*index as usize];
                let from = a(*src).add(field.offset);
                if (*field.desc).is_copy() {
                    ptr::copy(from, a(*dst), (*field.desc).size);
                } else {
                    (t.clone)(
                        rt,
                        from as *const c_void,
                        field.desc,
                        a(*dst) as *mut c_void,
                    );
                }
            }
            Op::Unpack { src, desc: d, dsts } => {
                let td = &*desc(*d);
                let s0 = a(*src);
                for (field, dst) in td.fields().iter().zip(dsts.iter()) {
                    ptr::copy(s0.add(field.offset), a(*dst), (*field.desc).size);
                }
            }
            Op::MakeVariant { dst, tag, fields } => {
                let d0 = a(*dst);
                (d0 as *mut u32).write(*tag);
                for &(src, offset, size) in fields.iter() {
                    ptr::copy(a(src), d0.add(offset as usize), size as usize);
                }
            }
            Op::VariantTag { dst, src } => {
                (a(*dst) as *mut u32).write((a(*src) as *const u32).read());
            }
            Op::TakeVariant { src, dsts } => {
                let s0 = a(*src);
                for &(dst, offset, size) in dsts.iter() {
                    ptr::copy(s0.add(offset as usize), a(dst), size as usize);
                }
            }
            Op::MakeVariantDyn {
                dst,
                desc: d,
                tag,
                fields,
            } => {
                let d0 = a(*dst);
                (d0 as *mut u32).write(*tag);
                let places = (*desc(*d)).variant_fields(*tag as usize);
                for ((offset, field_td), src) in places.zip(fields.iter()) {
                    ptr::copy(a(*src), d0.add(offset), field_td.size);
                }
            }
            Op::TakeVariantDyn {
                src,
                desc: d,
                tag,
                dsts,
            } => {
                let s0 = a(*src);
                let places = (*desc(*d)).variant_fields(*tag as usize);
                for ((offset, field_td), dst) in places.zip(dsts.iter()) {
                    ptr::copy(s0.add(offset), a(*dst), field_td.size);
                }
            }
            Op::MakeList { dst, elem, elems } => {
                let ed = desc(*elem);
                (t.list_new)(rt, ed, elems.len(), a(*dst) as *mut _);
                for e in elems.iter() {
                    (t.list_push)(rt, a(*dst) as *mut _, ed, a(*e) as *mut c_void);
                }
            }
            Op::ListLen { dst, list } => {
                // The length word of a list or a string (the one layout, `layout.rs`).
                let len = (a(*list) as *const u8).add(LIST_LEN_OFFSET) as *const u64;
                (a(*dst) as *mut u64).write(len.read());
            }
            Op::StrParts { dst, string, sep } => {
                let sep = sep.map_or(ptr::null(), |s| a(s) as *const _);
                (t.string_parts)(rt, a(*string) as *const _, sep, a(*dst) as *mut _);
            }
            Op::MapLen { dst, map } => {
                let len = (t.map_len)(rt, a(*map) as *const _) as u64;
                (a(*dst) as *mut u64).write(len);
            }
            Op::MapEntry {
                dst,
                map,
                index,
                map_desc,
                fail,
            } => {
                let i = (a(*index) as *const u64).read();
                let m = a(*map) as *const _;
                let md = desc(*map_desc);
                let entry = (t.map_entry_at)(rt, m, md, i as usize) as *const u8;
                if entry.is_null() {
                    return out_of_bounds(i, (t.map_len)(rt, m) as u64, *fail);
                }
                // The entry's bytes; the map keeps what they own.
                let size = (*(*md).elem).size;
                ptr::copy_nonoverlapping(entry, a(*dst), size);
            }
            Op::ListGet(o) => {
                let (i, len) = index_in(o.index, o.list);
                if i >= len {
                    return out_of_bounds(i, len, o.fail);
                }
                let at = a(o.dst) as *mut c_void;
                if o.view {
                    // The element's bytes; the list keeps what they own.
                    let size = (*desc(o.elem)).size;
                    let elems = (a(o.list).add(LIST_PTR_OFFSET) as *const *const u8).read();
                    ptr::copy_nonoverlapping(elems.add(i as usize * size), at as *mut u8, size);
                } else {
                    (t.list_get)(rt, a(o.list) as *const _, desc(o.elem), i as usize, at);
                }
            }
            Op::StrSlice {
                dst,
                string,
                start,
                end,
                view,
                fail,
            } => {
                let read = |o: Opnd| (a(o) as *const u64).read() as usize;
                let status = (t.string_part)(
                    rt,
                    a(*string) as *const _,
                    read(*start),
                    read(*end),
                    u8::from(*view),
                    a(*dst) as *mut _,
                );
                if status != STATUS_OK {
                    return Flow::Goto(*fail as usize);
                }
            }
            Op::ListSet(o) => {
                let (i, len) = index_in(o.index, o.list);
                let value = a(o.value) as *mut c_void;
                let status = (t.list_set)(rt, a(o.list) as *mut _, desc(o.elem), i as usize, value);
                if status == STATUS_OUT_OF_BOUNDS || i >= len {
                    return out_of_bounds(i, len, o.fail);
                }
            }
            Op::ListPush { list, value, elem } => {
                (t.list_push)(
                    rt,
                    a(*list) as *mut _,
                    desc(*elem),
                    a(*value) as *mut c_void,
                );
            }
            Op::MakeSome {
                dst,
                value,
                desc: d,
            } => {
                let td = &*desc(*d);
                let p = a(*dst);
                *p = 1;
                ptr::copy(a(*value), p.add(td.payload_offset), (*td.elem).size);
            }
            Op::MakeNone { dst, desc: d } => (t.init)(a(*dst) as *mut c_void, desc(*d)),
            Op::IsSome { dst, src } => *a(*dst) = (*a(*src) != 0) as u8,
            Op::Unwrap {
                dst,
                src,
                desc: d,
                fail,
            } => {
                let p = a(*src);
                if *p == 0 {
                    // An empty detail: the runtime words the error.
                    (t.raise)(rt, ErrorKind::UnwrapNone as u32, ptr::null(), 0);
                    return Flow::Goto(*fail as usize);
                }
                let td = &*desc(*d);
                ptr::copy(p.add(td.payload_offset), a(*dst), (*td.elem).size);
            }
            Op::MakeData {
                dst,
                value,
                desc: d,
            } => {
                (t.data_make)(rt, a(*value) as *mut c_void, desc(*d), a(*dst) as *mut _);
            }
            Op::Debuglog { src, desc: d } => (t.debuglog)(rt, a(*src) as *const c_void, desc(*d)),
            Op::Call(call) => {
                let Call {
                    callee,
                    args,
                    type_args,
                    dst,
                    in_drops,
                    depth,
                    fail,
                } = &**call;
                let cf = &self.funcs[*callee as usize];
                let Some((callee_frame, saved)) = self.callee_frame(cf, *depth) else {
                    (t.raise_stack_overflow)(rt);
                    // The callee never started: the `in` arguments it would own are dropped
                    // here, as its entry would have dropped them.
                    self.drop_owned(frame, base, in_drops);
                    return Flow::Goto(*fail as usize);
                };
                for arg in args.iter() {
                    match arg.pass {
                        ParamPass::Value { offset, size } => ptr::copy_nonoverlapping(
                            a(arg.src),
                            callee_frame.add(offset as usize),
                            size as usize,
                        ),
                        ParamPass::Address { offset } => {
                            *(callee_frame.add(offset as usize) as *mut *mut u8) = a(arg.src)
                        }
                    }
                }
                let cbase = self.desc_bases[*callee as usize] as usize;
                for (i, d) in type_args.iter().enumerate() {
                    *(callee_frame.add(cbase + 8 * i) as *mut Td) = desc(*d);
                }
                let ret_ptr = dst.map(a).unwrap_or(ptr::null_mut());
                if self.run_callee(*callee, *depth, callee_frame, saved, ret_ptr) {
                    return Flow::Goto(*fail as usize);
                }
            }
            Op::Return { src } => {
                if let Some((s, d)) = src {
                    if !ret.is_null() {
                        ptr::copy(a(*s), ret, (*desc(*d)).size);
                    }
                }
                pop_shadow();
                return Flow::Return;
            }
            Op::Abandon => {
                pop_shadow();
                return Flow::Return;
            }
            Op::Site { site, next } => {
                let site = &f.sites[*site as usize];
                (t.error_at)(rt, site.as_ptr(), site.len());
                return Flow::Goto(*next as usize);
            }
            Op::CalledFrom { site } => {
                let site = &f.sites[*site as usize];
                (t.error_at)(rt, site.as_ptr(), site.len());
            }

            _ => unreachable!("a fast operation is run by the dispatch loop"),
        }
        Flow::Next
    }
}
