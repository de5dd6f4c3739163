//! Global memory: `tt.addptr`, `tt.load`, `tt.store`, `tt.atomic_rmw`, `tt.atomic_cas`.
//!
//! A pointer is a byte offset into the storage buffer of its base argument (its class names
//! the argument), so `addptr` is integer arithmetic and a load or store is an index into an
//! array of 32-bit words. Elements narrower than a word are extracted on load; on store they are
//! merged into their word with two atomics (clear the element's bits, then set them), so
//! neighbours written by other threads survive. 64-bit elements take two words.
//!
//! Masked loads need no branch: a masked-off lane reads word 0 (every buffer has one) and the
//! result is `select(mask, loaded, other)`. Stores and atomics run inside `if`, predicated by
//! the mask and by ownership: threads that only hold copies of an element (replicated lanes,
//! warps, or duplicate registers) skip them, so every element is written once and every atomic
//! happens once. Scalar stores and atomics run in thread 0; a scalar atomic's old value reaches
//! every thread through workgroup memory.
//!
//! Where the device has 16-bit storage ([`crate::Storage16Bit`]), 16-bit elements skip the words:
//! a store is one `u16` store through the buffer's 16-bit view, with no atomics (the neighbouring
//! element is another memory location), and with `LoadsAndStores` a load is one `u16` load,
//! widened to 32 bits (by default loads keep the words: NVIDIA's 16-bit loads were slower than
//! wide word loads). Windowed buffers keep the word path.
//!
//! In the Vulkan dialect, loads and stores move up to 16 bytes at once where the midend's
//! [`access_width`](trident_midend::codegen::memory::access_width) allows it (the rule the nvptx
//! backend's `ld.global.v4` follows: the layout gives a thread consecutive registers along one
//! dim, the axis analysis proves the pointers contiguous and aligned over them, the mask is
//! constant over them): a group of whole words is one access through a `uvec4` or `uvec2` view
//! of the binding (`u32` for one word), its elements split from or packed into the words. A
//! stored group is written by its one owner, so even 16-bit pairs need no atomics.
//!
//! A buffer larger than one storage binding is bound as two windows (`Options::windowed_buffers`):
//! every access to it goes through [`Emitter::at_word`], which branches on the split word and
//! indexes the high window with the word less the split.
//!
//! Float atomic add is the native `OpAtomicFAddEXT` on the buffer's f32 view where the device
//! has it ([`crate::Options::native_float32_atomic_add`]), else a compare-and-swap loop on the
//! word. Prefer the native op: on lavapipe (Mesa 22.3) the loop loses adds that race. Seeded with
//! a stale value there, the first of two loops in a kernel retried and added, the second never
//! performed its retry, so its add was dropped.
//!
//! Measured and not kept (H100, NVIDIA's Vulkan 580, both in one device command against the
//! previous binary): buffers the kernel never writes declared `NonWritable` (found by scanning
//! the finished function's stores and atomics) moved layernorm forward f16 from 1728 to 1780
//! GB/s, left the other bandwidth cases within 0.5%, and slowed the fp16 GEMM from 180 to 136
//! TFLOP/s; the device created without `robustBufferAccess`/`robustBufferAccess2` (which wgpu
//! enables) changed no case by more than 0.1%.

use rustc_hash::FxHashMap;

use rspirv::dr::Operand;
use rspirv::spirv::{MemorySemantics, Op, Scope, Word};
use trident_midend::codegen::memory::{AtomicOp, AtomicScope, AtomicSem};
use trident_midend::codegen::{Isa, LowerMemory};
use trident_midend::ir::{DType, Op as IrOp, Value};

use crate::emit::{class_of, EResult, Emitter, View};
use crate::spirv::{Class, Reg};
use crate::Mode;
pub(crate) use trident_midend::codegen::memory::owner_predicates;

/// Picks element `i` of a register list (splats have one register).
fn pick(regs: &[Reg], i: usize) -> Reg {
    regs[if regs.len() == 1 { 0 } else { i }]
}

/// The base argument of a pointer register, or an error saying why it is unknown.
fn binding_of(e: &Emitter, r: Reg) -> EResult<u32> {
    match r.class {
        Class::Ptr(b) => Ok(b),
        _ => e.unsupported("a pointer whose base argument cannot be resolved statically"),
    }
}

/// An offset (any integer class) as a u32 byte count times `size`.
fn scaled_offset(e: &mut Emitter, o: Reg, size: u32) -> Reg {
    let o32 = match o.class {
        Class::U64 => e.s.op(Op::UConvert, Class::U32, &[o]),
        Class::Bool => e.word_bits(o),
        _ => o,
    };
    if size == 1 {
        return o32;
    }
    let k = e.u32c(size);
    e.s.op(Op::IMul, Class::U32, &[o32, k])
}

impl<'a> LowerMemory<'a> for Emitter<'a> {
    fn addptr(e: &mut Self, op: IrOp) -> EResult<()> {
        let data = e.func.body.op(op);
        let ptr = e.get(data.operands[0])?;
        let off = e.get(data.operands[1])?;
        let size = e.ty(data.operands[0]).dtype().size_bytes() as u32;
        let n = ptr.len().max(off.len());
        let mut cache = rustc_hash::FxHashMap::default();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (p, o) = (pick(&ptr, i), pick(&off, i));
            if let Some(&r) = cache.get(&(p, o)) {
                out.push(r);
                continue;
            }
            binding_of(e, p)?;
            let bytes = scaled_offset(e, o, size);
            let sum = e.s.op(Op::IAdd, Class::U32, &[Reg { id: p.id, class: Class::U32 }, bytes]);
            let r = Reg { id: sum.id, class: p.class };
            cache.insert((p, o), r);
            out.push(r);
        }
        e.set(data.results[0], out);
        Ok(())
    }

    #[allow(clippy::needless_range_loop)]
    fn load(e: &mut Self, op: IrOp) -> EResult<()> {
        let data = e.func.body.op(op);
        let ptr = e.get(data.operands[0])?;
        let mask = data.operands.get(1).map(|&m| e.get(m)).transpose()?;
        let other = data.operands.get(2).map(|&o| e.get(o)).transpose()?;
        let d = e.ty(data.results[0]).dtype();
        let class = class_of(d);
        e.check_class(class)?;
        let width = wide_width(e, data.operands[0], data.operands.get(1).copied(), d, &ptr)?;
        if width > 1 {
            let out = load_wide(e, &ptr, mask.as_deref(), other.as_deref(), d, width)?;
            e.set(data.results[0], out);
            return Ok(());
        }
        let mut out = Vec::with_capacity(ptr.len());
        let mut cache = rustc_hash::FxHashMap::default();
        for i in 0..ptr.len() {
            let p = ptr[i];
            let m = mask.as_ref().map(|m| pick(m, i));
            let o = other.as_ref().map(|o| pick(o, i));
            if let Some(&r) = cache.get(&(p, m, o)) {
                out.push(r);
                continue;
            }
            let binding = binding_of(e, p)?;
            let byte = match m {
                Some(m) => {
                    let zero = e.u32c(0);
                    e.s.select(m, Reg { id: p.id, class: Class::U32 }, zero)
                }
                None => p,
            };
            let mut v = load_element(e, binding, byte, d);
            if let Some(m) = m {
                let fallback = match o {
                    Some(o) => o,
                    None => e.s.const_of(class, 0),
                };
                v = e.s.select(m, v, fallback);
            }
            cache.insert((p, m, o), v);
            out.push(v);
        }
        e.set(data.results[0], out);
        Ok(())
    }

    /// Stores element by element. Consecutive registers under the same condition (the same owner
    /// test and mask register, as unmasked and splat-masked stores have) share one `if`, which
    /// keeps the module small for large tiles.
    #[allow(clippy::needless_range_loop)]
    fn store(e: &mut Self, op: IrOp) -> EResult<()> {
        let data = e.func.body.op(op);
        let ptr = e.get(data.operands[0])?;
        let val = e.get(data.operands[1])?;
        let mask = data.operands.get(2).map(|&m| e.get(m)).transpose()?;
        let d = e.ty(data.operands[1]).dtype();
        e.check_class(class_of(d))?;
        let owners = owner_predicates(e, op, 0)?;
        // Wide stores: groups of `width` registers under one condition move as one; the mask is
        // constant over a group, so its first register's guards it all.
        let width = wide_width(e, data.operands[0], data.operands.get(2).copied(), d, &ptr)?;
        // The condition of every register that stores (None: unconditional).
        let mut conditions: FxHashMap<(Option<Reg>, Option<Reg>), Option<Reg>> = FxHashMap::default();
        let mut stores: Vec<(usize, Option<Reg>)> = Vec::new();
        for i in 0..ptr.len() {
            let owner = pick_owner(&owners, i);
            let owner_reg = match owner {
                Owner::Never => continue,
                Owner::Always => None,
                Owner::If(p) => Some(p),
            };
            let m = mask.as_ref().map(|m| pick(m, i - i % width));
            let c = match conditions.get(&(owner_reg, m)) {
                Some(&c) => c,
                None => {
                    let c = condition(e, owner, m);
                    conditions.insert((owner_reg, m), c);
                    c
                }
            };
            stores.push((i, c));
        }
        let mut accesses: Vec<(usize, usize, Option<Reg>)> = Vec::with_capacity(stores.len());
        let mut k = 0;
        while k < stores.len() {
            let (i, c) = stores[k];
            let whole = width > 1
                && i % width == 0
                && k + width <= stores.len()
                && (0..width).all(|j| stores[k + j] == (i + j, c));
            let n = if whole { width } else { 1 };
            accesses.push((i, n, c));
            k += n;
        }
        let mut open: Option<(Reg, u32)> = None;
        for (i, n, c) in accesses {
            if open.map(|(reg, _)| Some(reg)) != Some(c) {
                if let Some((_, merge)) = open.take() {
                    e.s.end_if(merge);
                }
                if let Some(c) = c {
                    open = Some((c, e.s.begin_if(c)));
                }
            }
            let binding = binding_of(e, ptr[i])?;
            if n > 1 {
                let values: Vec<Reg> = (i..i + n).map(|j| pick(&val, j)).collect();
                store_wide(e, binding, ptr[i], &values, d);
                continue;
            }
            let v = pick(&val, i);
            store_element(e, binding, ptr[i], v, d);
        }
        if let Some((_, merge)) = open {
            e.s.end_if(merge);
        }
        Ok(())
    }

    #[allow(clippy::needless_range_loop)]
    fn atomic(e: &mut Self, atomic: AtomicOp<Reg>) -> EResult<()> {
        let AtomicOp { op, is_cas, ptr, args, dtype: d, sem, scope, result_used } = atomic;
        let data = e.func.body.op(op);
        let sem = if result_used { sem } else { sem.without_reader() };
        let order = Ordering::new(e, sem, scope);
        let kind = data.attrs.str("atomic_rmw_op").unwrap_or("add").to_string();
        if d.bits() != 32 {
            return e.unsupported(&format!("atomics on {d} elements (32-bit words only)"));
        }
        let class = class_of(d);
        let owners = owner_predicates(e, op, 0)?;
        let scalar = !e.ty(data.results[0]).is_tensor();
        // Consecutive registers that share their mask (the rule of wide accesses) and their owner
        // share one branch, `group` of them.
        let mut group = 1;
        if !is_cas && !scalar {
            let mask = data.operands.get(2).copied();
            let width = e.access_width(data.operands[0], mask, 32)?.max(1);
            let alike = |chunk: &[Owner]| chunk.iter().all(|&o| o == chunk[0]);
            if owners.len() == ptr.len() && owners.chunks(width).all(alike) {
                group = width;
            }
        }
        let mut out = Vec::with_capacity(ptr.len());
        order.fence_before(e);
        for first in (0..ptr.len()).step_by(group) {
            let members = first..(first + group).min(ptr.len());
            let owner = pick_owner(&owners, first);
            let zero = e.s.const_of(class, 0);
            if matches!(owner, Owner::Never) {
                out.extend(members.map(|_| zero));
                continue;
            }
            // rmw operands: (val[, mask]); cas: (cmp, val).
            let mask = if !is_cas { args.get(1).map(|m| pick(m, first)) } else { None };
            let branch = condition(e, owner, mask);
            // Old values leave a branch through function variables, where something reads them.
            let carry = branch.is_some() && result_used;
            let vars: Vec<u32> = if carry {
                members
                    .clone()
                    .map(|_| {
                        let var = e.s.var(class);
                        e.s.store(var, zero.id);
                        var
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let merge = branch.map(|c| e.s.begin_if(c));
            let mut olds = Vec::with_capacity(group);
            for (k, i) in members.enumerate() {
                let these: Vec<Reg> = args.iter().map(|a| pick(a, i)).collect();
                let binding = binding_of(e, ptr[i])?;
                let old = atomic_element(e, &order, binding, ptr[i], &kind, is_cas, &these, d)?;
                if carry {
                    e.s.store(vars[k], old.id);
                }
                olds.push(old);
            }
            if let Some(merge) = merge {
                e.s.end_if(merge);
                olds = if carry {
                    vars.iter().map(|&var| e.s.load(class, var)).collect()
                } else {
                    vec![zero; olds.len()]
                };
            }
            out.extend(olds);
        }
        order.fence_after(e);
        if scalar {
            // Thread 0 did the atomic: share its old value with every thread.
            e.need_shared_words(1)?;
            e.barrier();
            let zero = e.u32c(0);
            let is_first = e.s.op(Op::IEqual, Class::Bool, &[e.tid, zero]);
            let merge = e.s.begin_if(is_first);
            e.st_shared(zero, 0, out[0]);
            e.s.end_if(merge);
            e.barrier();
            let r = e.ld_shared(class, zero, 0);
            e.barrier();
            out = vec![r];
        }
        e.set(data.results[0], out);
        Ok(())
    }

    fn is_first_thread(e: &mut Self) -> Reg {
        let zero = e.u32c(0);
        e.s.op(Op::IEqual, Class::Bool, &[e.tid, zero])
    }

    fn is_first_copy(e: &mut Self, lane_mask: u32, warp_mask: u32) -> Reg {
        let (lm, wm, zero) = (e.u32c(lane_mask), e.u32c(warp_mask), e.u32c(0));
        let t = e.s.op(Op::BitwiseAnd, Class::U32, &[e.lane, lm]);
        let u = e.s.op(Op::BitwiseAnd, Class::U32, &[e.warp, wm]);
        let t = e.s.op(Op::BitwiseOr, Class::U32, &[t, u]);
        e.s.op(Op::IEqual, Class::Bool, &[t, zero])
    }
}

// ---- wide accesses -----------------------------------------------------------------------------

/// How many consecutive registers of an access through `pointer` (masked by `mask`, elements of
/// `d`, registers `ptr`) move as one access of whole words: the midend's
/// [`access_width`](trident_midend::codegen::memory::access_width) where it covers at least one
/// word, else 1 (the element path). Only the Vulkan dialect (naga reads the `uvec` views but its
/// WGSL would bind one buffer as two types) and only buffers bound once.
fn wide_width(e: &mut Emitter, pointer: Value, mask: Option<Value>, d: DType, ptr: &[Reg]) -> EResult<usize> {
    if !e.options.wide_accesses
        || e.options.mode != Mode::Vulkan
        || !e.ty(pointer).is_tensor()
        || ptr.is_empty()
    {
        return Ok(1);
    }
    let elem_bits = match d {
        DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 16,
        DType::I32 | DType::U32 | DType::F32 => 32,
        DType::I64 | DType::U64 | DType::F64 => 64,
        _ => return Ok(1),
    };
    let binding = binding_of(e, ptr[0])?;
    if e.windowed(binding) {
        return Ok(1);
    }
    let width = e.access_width(pointer, mask, elem_bits)?;
    if width < 2 || !(width as u64 * elem_bits).is_multiple_of(32) || !ptr.len().is_multiple_of(width) {
        return Ok(1);
    }
    Ok(width)
}

/// A pointer to the `words`-word group holding byte offset `byte` (aligned to the group) of
/// binding `binding`, and the type of the group (u32, `uvec2` or `uvec4`).
fn group_ptr(e: &mut Emitter, binding: u32, byte: Reg, words: u32) -> (Word, Word) {
    let shift = e.u32c(words.trailing_zeros() + 2);
    let b = Reg { id: byte.id, class: Class::U32 };
    let index = e.s.op(Op::ShiftRightLogical, Class::U32, &[b, shift]);
    match words {
        1 => (e.buffer_word_ptr(binding, index), e.s.u32_ty()),
        2 => (e.buffer_view_ptr(binding, View::Words2, index), e.view_element_ty(View::Words2)),
        _ => (e.buffer_view_ptr(binding, View::Words4, index), e.view_element_ty(View::Words4)),
    }
}

/// Loads `width` elements per access; returns one register per register index. A masked-off
/// group reads group 0 (every buffer has a word) and keeps `other`.
fn load_wide(
    e: &mut Emitter,
    ptr: &[Reg],
    mask: Option<&[Reg]>,
    other: Option<&[Reg]>,
    d: DType,
    width: usize,
) -> EResult<Vec<Reg>> {
    let class = class_of(d);
    let words = (width * d.size_bytes() / 4) as u32;
    let mut out = Vec::with_capacity(ptr.len());
    let mut cache: FxHashMap<(Reg, Option<Reg>, Vec<Reg>), Vec<Reg>> = FxHashMap::default();
    for first in (0..ptr.len()).step_by(width) {
        let p = ptr[first];
        let m = mask.map(|m| pick(m, first));
        let others: Vec<Reg> =
            other.map(|o| (first..first + width).map(|i| pick(o, i)).collect()).unwrap_or_default();
        if let Some(regs) = cache.get(&(p, m, others.clone())) {
            out.extend(regs.iter().copied());
            continue;
        }
        let binding = binding_of(e, p)?;
        let byte = match m {
            Some(m) => {
                let zero = e.u32c(0);
                e.s.select(m, Reg { id: p.id, class: Class::U32 }, zero)
            }
            None => Reg { id: p.id, class: Class::U32 },
        };
        let (pointer, ty) = group_ptr(e, binding, byte, words);
        let loaded = e.s.inst(Op::Load, ty, &[pointer]);
        let word_regs: Vec<Reg> = if words == 1 {
            vec![Reg { id: loaded, class: Class::U32 }]
        } else {
            let u32t = e.s.u32_ty();
            (0..words)
                .map(|k| {
                    let ops = vec![Operand::IdRef(loaded), Operand::LiteralBit32(k)];
                    let id = e.s.inst_raw(Op::CompositeExtract, Some(u32t), ops).expect("extract");
                    Reg { id, class: Class::U32 }
                })
                .collect()
        };
        let mut regs = Vec::with_capacity(width);
        for j in 0..width {
            let mut v = match d.size_bytes() {
                8 => e.join64(class, word_regs[2 * j], word_regs[2 * j + 1]),
                4 => e.bits_to_class(class, word_regs[j]),
                _ => {
                    let w = word_regs[j / 2];
                    let x = if j % 2 == 1 {
                        let k = e.u32c(16);
                        e.s.op(Op::ShiftRightLogical, Class::U32, &[w, k])
                    } else {
                        let k = e.u32c(0xffff);
                        e.s.op(Op::BitwiseAnd, Class::U32, &[w, k])
                    };
                    crate::arith::normalize_int(e, x, d)
                }
            };
            if let Some(m) = m {
                let fallback = match others.get(j) {
                    Some(&o) => o,
                    None => e.s.const_of(class, 0),
                };
                v = e.s.select(m, v, fallback);
            }
            regs.push(v);
        }
        cache.insert((p, m, others), regs.clone());
        out.extend(regs);
    }
    Ok(out)
}

/// Stores `values` (consecutive elements of `d` from byte offset `byte`, aligned to their bytes)
/// of pointer argument `arg`'s buffer with one access of whole words.
fn store_wide(e: &mut Emitter, arg: u32, byte: Reg, values: &[Reg], d: DType) {
    let mut words: Vec<Reg> = Vec::new();
    match d.size_bytes() {
        8 => {
            for &v in values {
                let (lo, hi) = e.split64(v);
                words.extend([lo, hi]);
            }
        }
        4 => words.extend(values.iter().map(|&v| e.word_bits(v))),
        _ => {
            for pair in values.chunks(2) {
                let (k16, mask) = (e.u32c(16), e.u32c(0xffff));
                let lo = e.word_bits(pair[0]);
                let lo = e.s.op(Op::BitwiseAnd, Class::U32, &[lo, mask]);
                let hi = e.word_bits(pair[1]);
                let hi = e.s.op(Op::ShiftLeftLogical, Class::U32, &[hi, k16]);
                words.push(e.s.op(Op::BitwiseOr, Class::U32, &[lo, hi]));
            }
        }
    }
    let (pointer, ty) = group_ptr(e, arg, byte, words.len() as u32);
    let value = if words.len() == 1 {
        words[0].id
    } else {
        let ids: Vec<Word> = words.iter().map(|w| w.id).collect();
        e.s.inst(Op::CompositeConstruct, ty, &ids)
    };
    e.s.store(pointer, value);
}

/// Word index and bit shift of a byte offset.
fn word_and_shift(e: &mut Emitter, byte: Reg) -> (Reg, Reg) {
    let two = e.u32c(2);
    let three = e.u32c(3);
    let b = Reg { id: byte.id, class: Class::U32 };
    let word = e.s.op(Op::ShiftRightLogical, Class::U32, &[b, two]);
    let low = e.s.op(Op::BitwiseAnd, Class::U32, &[b, three]);
    let shift = e.s.op(Op::ShiftLeftLogical, Class::U32, &[low, three]);
    (word, shift)
}

/// Loads word `word` of pointer argument `arg`'s buffer.
fn load_word(e: &mut Emitter, arg: u32, word: Reg) -> Reg {
    let loaded = e.at_word(arg, word, |e, binding, index| {
        let p = e.buffer_word_ptr(binding, index);
        Some(e.s.load(Class::U32, p))
    });
    loaded.expect("a load returns its word")
}

/// Stores `bits` (a u32) to word `word` of pointer argument `arg`'s buffer.
fn store_word(e: &mut Emitter, arg: u32, word: Reg, bits: Reg) {
    e.at_word(arg, word, |e, binding, index| {
        let p = e.buffer_word_ptr(binding, index);
        e.s.store(p, bits.id);
        None
    });
}

/// The index of the 16-bit element at byte offset `byte`.
fn half_index(e: &mut Emitter, byte: Reg) -> Reg {
    let one = e.u32c(1);
    let b = Reg { id: byte.id, class: Class::U32 };
    e.s.op(Op::ShiftRightLogical, Class::U32, &[b, one])
}

/// Loads one element of `d` at byte offset `byte` of pointer argument `arg`'s buffer.
pub fn load_element(e: &mut Emitter, arg: u32, byte: Reg, d: DType) -> Reg {
    if d.size_bytes() == 2 && e.direct_16bit_load(arg) {
        // One 16-bit load, widened to the u32 the element's class holds (i16 sign-extended).
        let index = half_index(e, byte);
        let p = e.buffer_view_ptr(arg, View::Half, index);
        let u16t = e.s.u16_ty();
        let half = e.s.inst(Op::Load, u16t, &[p]);
        let widen = if d == DType::I16 { Op::SConvert } else { Op::UConvert };
        let u32t = e.s.u32_ty();
        return Reg { id: e.s.inst(widen, u32t, &[half]), class: Class::U32 };
    }
    let (word, shift) = word_and_shift(e, byte);
    let size = d.size_bytes();
    let w = load_word(e, arg, word);
    match size {
        8 => {
            let word1 = e.add_imm(word, 1);
            let hi = load_word(e, arg, word1);
            e.join64(class_of(d), w, hi)
        }
        4 => e.bits_to_class(class_of(d), w),
        _ => {
            let mask = e.u32c(if size == 1 { 0xff } else { 0xffff });
            let x = e.s.op(Op::ShiftRightLogical, Class::U32, &[w, shift]);
            let x = e.s.op(Op::BitwiseAnd, Class::U32, &[x, mask]);
            if d == DType::I1 {
                e.bits_to_class(Class::Bool, x)
            } else {
                crate::arith::normalize_int(e, x, d)
            }
        }
    }
}

/// Whether this thread's copy of an element is the one that writes it.
pub(crate) type Owner = trident_midend::codegen::memory::Owner<Reg>;

/// The condition under which a store or atomic happens (`None`: always).
fn condition(e: &mut Emitter, owner: Owner, mask: Option<Reg>) -> Option<Reg> {
    match (owner.pred(), mask) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(e.s.op(Op::LogicalAnd, Class::Bool, &[a, b])),
    }
}

fn device_scope(e: &mut Emitter) -> u32 {
    e.s.const_u32(Scope::Device as u32)
}

/// How one `tt.atomic_*` orders memory, as SPIR-V operands.
///
/// In the Vulkan dialect the order is a fence around the op's atomics rather than the atomics'
/// own semantics: a release fence (`OpMemoryBarrier`) before a thread's relaxed atomics, an
/// acquire fence after them. That orders at least as much as release, acquire or acq_rel on each
/// atomic (a fence-release before a relaxed write, a relaxed read before a fence-acquire,
/// synchronize as the atomics' own orders would), and a thread holding sixteen elements of a
/// `tl.atomic_add` issues two fences instead of ordering sixteen atomics. (On NVIDIA's Vulkan
/// layernorm's backward pass ran no faster for it: its float atomics cost the same relaxed.)
/// naga's SPIR-V reader (the portable dialect) keeps the order on each atomic.
struct Ordering {
    /// The scope operand (an id).
    scope: u32,
    /// The semantics operand of each atomic (an id), and of a failed compare-and-swap's read.
    each: u32,
    unequal: u32,
    /// The fences' semantics operands (ids), where the order asks for them.
    before: Option<u32>,
    after: Option<u32>,
}

impl Ordering {
    fn new(e: &mut Emitter, sem: AtomicSem, scope: AtomicScope) -> Ordering {
        let scope = match scope {
            AtomicScope::Cta => e.s.const_u32(Scope::Workgroup as u32),
            // Vulkan has no scope beyond the device for memory a kernel reaches.
            AtomicScope::Gpu | AtomicScope::Sys => device_scope(e),
        };
        // The orders apply to storage buffers (`UniformMemory`).
        let semantics = |e: &mut Emitter, order: MemorySemantics| {
            let bits = if order.is_empty() { order } else { order | MemorySemantics::UNIFORM_MEMORY };
            e.s.const_u32(bits.bits())
        };
        let acquire = if sem.acquires() { MemorySemantics::ACQUIRE } else { MemorySemantics::empty() };
        if e.options.mode != Mode::Vulkan {
            let each = match sem {
                AtomicSem::Relaxed => MemorySemantics::empty(),
                AtomicSem::Acquire => MemorySemantics::ACQUIRE,
                AtomicSem::Release => MemorySemantics::RELEASE,
                AtomicSem::AcqRel => MemorySemantics::ACQUIRE_RELEASE,
            };
            // A failed compare-and-swap wrote nothing: no release.
            let (each, unequal) = (semantics(e, each), semantics(e, acquire));
            return Ordering { scope, each, unequal, before: None, after: None };
        }
        // The Vulkan memory model makes writes available and visible only where asked.
        let (available, visible) = if e.s.vulkan_memory_model {
            (MemorySemantics::MAKE_AVAILABLE, MemorySemantics::MAKE_VISIBLE)
        } else {
            (MemorySemantics::empty(), MemorySemantics::empty())
        };
        let before = sem.releases().then(|| semantics(e, MemorySemantics::RELEASE | available));
        let after = sem.acquires().then(|| semantics(e, MemorySemantics::ACQUIRE | visible));
        let relaxed = semantics(e, MemorySemantics::empty());
        Ordering { scope, each: relaxed, unequal: relaxed, before, after }
    }

    fn fence_before(&self, e: &mut Emitter) {
        if let Some(semantics) = self.before {
            e.s.memory_barrier(self.scope, semantics);
        }
    }

    fn fence_after(&self, e: &mut Emitter) {
        if let Some(semantics) = self.after {
            e.s.memory_barrier(self.scope, semantics);
        }
    }
}

/// Stores one element of `d` at byte offset `byte` of pointer argument `arg`'s buffer.
fn store_element(e: &mut Emitter, arg: u32, byte: Reg, v: Reg, d: DType) {
    if d.size_bytes() == 2 && e.direct_16bit_store(arg) {
        // One 16-bit store of the value's low bits: neighbours are other memory locations.
        let index = half_index(e, byte);
        let bits = e.word_bits(v);
        let u16t = e.s.u16_ty();
        let half = e.s.inst(Op::UConvert, u16t, &[bits.id]);
        let p = e.buffer_view_ptr(arg, View::Half, index);
        e.s.store(p, half);
        return;
    }
    let (word, shift) = word_and_shift(e, byte);
    match d.size_bytes() {
        8 => {
            let (lo, hi) = e.split64(v);
            store_word(e, arg, word, lo);
            let word1 = e.add_imm(word, 1);
            store_word(e, arg, word1, hi);
        }
        4 => {
            let bits = e.word_bits(v);
            store_word(e, arg, word, bits);
        }
        size => {
            let mask = e.u32c(if size == 1 { 0xff } else { 0xffff });
            let bits = e.word_bits(v);
            let bits = e.s.op(Op::BitwiseAnd, Class::U32, &[bits, mask]);
            let bits = e.s.op(Op::ShiftLeftLogical, Class::U32, &[bits, shift]);
            let hole = e.s.op(Op::ShiftLeftLogical, Class::U32, &[mask, shift]);
            let keep = e.s.op(Op::Not, Class::U32, &[hole]);
            let scope = device_scope(e);
            let relaxed = e.s.const_u32(0);
            let u32t = e.s.u32_ty();
            e.at_word(arg, word, |e, binding, index| {
                let p = e.buffer_word_ptr(binding, index);
                e.s.inst(Op::AtomicAnd, u32t, &[p, scope, relaxed, keep.id]);
                e.s.inst(Op::AtomicOr, u32t, &[p, scope, relaxed, bits.id]);
                None
            });
        }
    }
}

fn pick_owner(owners: &[Owner], i: usize) -> Owner {
    owners[if owners.len() == 1 { 0 } else { i }]
}

/// One atomic read-modify-write or compare-and-swap on the word at `byte` of pointer argument
/// `arg`'s buffer; returns the old value.
#[allow(clippy::too_many_arguments)]
fn atomic_element(
    e: &mut Emitter,
    order: &Ordering,
    arg: u32,
    byte: Reg,
    kind: &str,
    is_cas: bool,
    args: &[Reg],
    d: DType,
) -> EResult<Reg> {
    let (word, _) = word_and_shift(e, byte);
    let (scope, sem, unequal) = (order.scope, order.each, order.unequal);
    let u32t = e.s.u32_ty();
    let class = class_of(d);
    let old = if is_cas {
        let cmp = e.word_bits(args[0]);
        let val = e.word_bits(args[1]);
        e.at_word(arg, word, |e, binding, index| {
            let p = e.buffer_word_ptr(binding, index);
            let old = e.s.inst(Op::AtomicCompareExchange, u32t, &[p, scope, sem, unequal, val.id, cmp.id]);
            Some(Reg { id: old, class: Class::U32 })
        })
    } else if kind == "fadd" {
        let native = e.options.native_float32_atomic_add();
        e.at_word(arg, word, |e, binding, index| {
            Some(if native {
                float_add_native(e, order, binding, index, args[0])
            } else {
                let p = e.buffer_word_ptr(binding, index);
                float_add_loop(e, order, p, args[0])
            })
        })
    } else {
        let opcode = match kind {
            "add" => Op::AtomicIAdd,
            "and" => Op::AtomicAnd,
            "or" => Op::AtomicOr,
            "xor" => Op::AtomicXor,
            "xchg" => Op::AtomicExchange,
            "max" => Op::AtomicSMax,
            "min" => Op::AtomicSMin,
            "umax" => Op::AtomicUMax,
            "umin" => Op::AtomicUMin,
            other => return e.unsupported(&format!("atomic op {other} on spirv")),
        };
        let v = e.word_bits(args[0]);
        e.at_word(arg, word, |e, binding, index| {
            let p = e.buffer_word_ptr(binding, index);
            Some(Reg { id: e.s.inst(opcode, u32t, &[p, scope, sem, v.id]), class: Class::U32 })
        })
    };
    let old = old.expect("an atomic returns the old value");
    Ok(if old.class == Class::F32 { old } else { e.bits_to_class(class, old) })
}

/// `atomic_add` on f32 word `word` of `binding` as one `OpAtomicFAddEXT` on its f32 view.
fn float_add_native(e: &mut Emitter, order: &Ordering, binding: u32, word: Reg, v: Reg) -> Reg {
    let (scope, sem) = (order.scope, order.each);
    let p = e.buffer_f32_ptr(binding, word);
    let f32t = e.s.ty(Class::F32);
    e.s.uses_atomic_float32_add = true;
    let old = e.s.inst(Op::AtomicFAddEXT, f32t, &[p, scope, sem, v.id]);
    Reg { id: old, class: Class::F32 }
}

/// `atomic_add` on an f32 word without the native op: load, add, compare-and-swap until no
/// other thread intervened.
fn float_add_loop(e: &mut Emitter, order: &Ordering, p: u32, v: Reg) -> Reg {
    let (scope, sem, unequal) = (order.scope, order.each, order.unequal);
    let u32t = e.s.u32_ty();
    let current = e.s.var(Class::U32);
    let done = e.s.var(Class::Bool);
    let first = e.s.load(Class::U32, p);
    e.s.store(current, first.id);
    let f = e.s.const_of(Class::Bool, 0);
    e.s.store(done, f.id);
    let labels = e.s.begin_loop();
    let finished = e.s.load(Class::Bool, done);
    let go = e.s.op(Op::LogicalNot, Class::Bool, &[finished]);
    e.s.loop_test(&labels, go);
    let seen = e.s.load(Class::U32, current);
    let as_float = e.s.op(Op::Bitcast, Class::F32, &[seen]);
    let sum = e.s.op(Op::FAdd, Class::F32, &[as_float, v]);
    let new_bits = e.s.op(Op::Bitcast, Class::U32, &[sum]);
    let got = e.s.inst(Op::AtomicCompareExchange, u32t, &[p, scope, sem, unequal, new_bits.id, seen.id]);
    let got = Reg { id: got, class: Class::U32 };
    let ok = e.s.op(Op::IEqual, Class::Bool, &[got, seen]);
    e.s.store(done, ok.id);
    e.s.store(current, got.id);
    e.s.end_loop(&labels, |_| {});
    let old = e.s.load(Class::U32, current);
    e.s.op(Op::Bitcast, Class::F32, &[old])
}
