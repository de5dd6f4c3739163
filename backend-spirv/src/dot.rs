//! `tt.dot` by FMA through workgroup memory: the fallback every shape and device can take.
//!
//! Both operands are written to workgroup memory row-major, widened to f32 (f16, bf16 and fp8
//! exactly; f32 rounded to tf32 first when `input_precision` is tf32, as tensor cores would) or
//! kept as 32-bit integers for int8 dots. Each thread then walks K once, and for every k loads the A
//! values of its distinct rows and the B values of its distinct columns and updates all its
//! accumulator registers with one FMA each (an outer product per k). Where the device has
//! cooperative matrices (`VK_KHR_cooperative_matrix`), f16 dots take them (`cooperative/`).
//!
//! Tried and dropped (2026-11-28): a chunk's k walked straight instead of in a loop where it had
//! at most 64 k and 1024 FMAs a thread (every k's operands at constant offsets): on the H100's
//! Vulkan the fp32 `ieee` 2048^3 GEMM (64x64x32 tiles, four warps) went from 27.1 to 28.3
//! TFLOP/s (Triton 40.5), and lavapipe took 82 s instead of 0.9 to compile the ci corpus' flash
//! attention d128 causal.

use rustc_hash::FxHashMap;

use rspirv::spirv::Op;
use trident_midend::codegen::dot::{widen_operand, DotOp};
use trident_midend::codegen::{Isa, LowerDot};
use trident_midend::ir::Op as IrOp;

use crate::emit::{EResult, Emitter};
use crate::spirv::{glsl, Class, Reg};
use trident_midend::layout::registers::Affine;

/// The most operand writes to workgroup memory one dot may emit over all its chunks of K: a
/// 256x256x64 f16 tile on four warps, chunked for 32 KiB, takes about a thousand.
pub const MAX_CHUNKED_WRITES: u64 = 1 << 18;

impl<'a> LowerDot<'a> for Emitter<'a> {
    fn dot(e: &mut Self, op: IrOp) -> EResult<()> {
        let dot = DotOp::read(e, op)?;
        if crate::cooperative::try_dot(e, &dot)? {
            return Ok(());
        }
        let DotOp { result, a_type, b_type, integer, tf32, rank, m, k, n, batch, .. } = dot;
        let (al, bl, cl) = (dot.a_layout, dot.b_layout, dot.c_layout);
        let a_regs = e.get(dot.a)?;
        let b_regs = e.get(dot.b)?;
        let widened_a = widen_operand(e, &a_regs, a_type, tf32)?;
        let widened_b = widen_operand(e, &b_regs, b_type, tf32)?;
        let class = if integer { Class::U32 } else { Class::F32 };

        // K is split into chunks whose A and B slices fit in workgroup memory together; each chunk
        // writes its slices (A at element 0, B right after it), then walks its k.
        let limit_words = e.options.workgroup_memory_limit as i64 / 4;
        let mut chunk = k;
        while chunk > 1 && batch * (m + n) * chunk > limit_words {
            chunk /= 2;
        }
        let chunks = k / chunk;
        // Each chunk writes every operand register of the thread under a test of its k (which k a
        // register holds is known only at run time), so the code grows as chunks x registers: a
        // 16x65536 by 65536x16 dot on one warp takes 256 chunks of 65536 writes, gigabytes of
        // SPIR-V.
        let writes = chunks as u64 * (a_regs.len() + b_regs.len()) as u64;
        if chunks > 1 && writes > MAX_CHUNKED_WRITES {
            return e.exceeds(&format!(
                "a {m}x{k} by {k}x{n} product through {} bytes of workgroup memory in {chunks} chunks \
                 of K, each writing all {} operand values a thread holds: {writes} writes, more than \
                 {MAX_CHUNKED_WRITES} (use a smaller K block or more warps)",
                e.options.workgroup_memory_limit,
                a_regs.len() + b_regs.len(),
            ));
        }
        let a_chunk = batch * m * chunk;
        let c_regs = e.get(dot.c)?;
        let acc_vars: Vec<u32> = c_regs
            .iter()
            .map(|&c| {
                let v = e.s.var(class);
                e.s.store(v, c.id);
                v
            })
            .collect();
        // Per-register k coordinates, to pick the registers of a chunk when there are several.
        let a_k_coords = if chunks > 1 { e.coord_regs(&al, rank - 1) } else { Vec::new() };
        let b_k_coords = if chunks > 1 { e.coord_regs(&bl, rank - 2) } else { Vec::new() };
        for index in 0..chunks {
            let k0 = index * chunk;
            let a_write = Affine {
                coeffs: if rank == 3 { vec![m * chunk, chunk, 1] } else { vec![chunk, 1] },
                offset: -k0,
            };
            let b_write = Affine {
                coeffs: if rank == 3 { vec![chunk * n, n, 1] } else { vec![n, 1] },
                offset: a_chunk - k0 * n,
            };
            e.need_shared_words((batch * (m + n) * chunk) as u64)?;
            e.barrier();
            let word = |e: &mut Emitter, base: Reg, offset: i64, v: Reg| e.st_shared(base, offset, v);
            write_chunk(e, &widened_a, &al, &a_write, &a_k_coords, k0, chunk, word)?;
            write_chunk(e, &widened_b, &bl, &b_write, &b_k_coords, k0, chunk, word)?;
            e.barrier();
            fma_loop(e, &cl, rank, (m, chunk, n), a_chunk, &acc_vars, class, integer);
        }
        let out: Vec<Reg> = acc_vars.iter().map(|&v| e.s.load(class, v)).collect();
        e.set(result, out);
        Ok(())
    }

    /// Round to nearest, ties away from zero, keeping 10 mantissa bits.
    fn round_to_tf32(e: &mut Self, r: Reg) -> Reg {
        // Round to nearest, ties away from zero, keeping 10 mantissa bits.
        let bits = e.s.op(Op::Bitcast, Class::U32, &[r]);
        let (half, mask) = (e.u32c(0x1000), e.u32c(0xffff_e000));
        let t = e.s.op(Op::IAdd, Class::U32, &[bits, half]);
        let t = e.s.op(Op::BitwiseAnd, Class::U32, &[t, mask]);
        let rounded = e.s.op(Op::Bitcast, Class::F32, &[t]);
        // NaN and infinity (all exponent bits set) stay as they are.
        let (abs_mask, inf) = (e.u32c(0x7fff_ffff), e.u32c(0x7f80_0000));
        let magnitude = e.s.op(Op::BitwiseAnd, Class::U32, &[bits, abs_mask]);
        let special = e.s.op(Op::UGreaterThanEqual, Class::Bool, &[magnitude, inf]);
        e.s.select(special, r, rounded)
    }
}

/// Writes the registers of an operand whose k lies in `[k0, k0 + chunk)` (all of them when
/// `k_coords` is empty: a single chunk) at element `write(coordinate)`, through `store(base,
/// offset, value)` (element `base + offset`: a word of the FMA path's workgroup memory, an f16 of
/// a cooperative dot's array). Registers that share a k coordinate share one test, so a chunk
/// costs one branch per distinct k of the thread, not one per register.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_chunk(
    e: &mut Emitter,
    regs: &[Reg],
    l: &trident_midend::layout::registers::LayoutInfo,
    write: &Affine,
    k_coords: &[Reg],
    k0: i64,
    chunk: i64,
    mut store: impl FnMut(&mut Emitter, Reg, i64, Reg),
) -> EResult<()> {
    let base = e.affine_base(l, write);
    let unique = l.unique_registers();
    let owned = (0..regs.len()).filter(|&i| unique[i]).map(|i| (k_coords.get(i).copied(), i));
    in_chunk(e, owned, k0, chunk, |e, i| {
        store(e, base, write.eval(&l.reg_coords[i]), regs[i]);
        Ok(())
    })
}

/// Runs `body` on each item whose k (a register: an element's k coordinate) lies in
/// `[k0, k0 + chunk)`, at run time: items that share a k register share one test (grouped in
/// first-seen order), and an item without one (K staged whole) is not tested.
pub(crate) fn in_chunk<T>(
    e: &mut Emitter,
    items: impl IntoIterator<Item = (Option<Reg>, T)>,
    k0: i64,
    chunk: i64,
    mut body: impl FnMut(&mut Emitter, T) -> EResult<()>,
) -> EResult<()> {
    let mut groups: Vec<(Option<Reg>, Vec<T>)> = Vec::new();
    let mut group_of: FxHashMap<Option<Reg>, usize> = FxHashMap::default();
    for (k, item) in items {
        let group = *group_of.entry(k).or_insert_with(|| {
            groups.push((k, Vec::new()));
            groups.len() - 1
        });
        groups[group].1.push(item);
    }
    for (k, members) in groups {
        let merge = match k {
            Some(k) => {
                let (relative, size) = (e.add_imm(k, -k0), e.u32c(chunk as u32));
                let inside = e.s.op(Op::ULessThan, Class::Bool, &[relative, size]);
                Some(e.s.begin_if(inside))
            }
            None => None,
        };
        for item in members {
            body(e, item)?;
        }
        if let Some(merge) = merge {
            e.s.end_if(merge);
        }
    }
    Ok(())
}

/// The k loop over one chunk in workgroup memory: an outer product per k into the accumulators.
#[allow(clippy::too_many_arguments)]
fn fma_loop(
    e: &mut Emitter,
    cl: &trident_midend::layout::registers::LayoutInfo,
    rank: usize,
    (m, k, n): (i64, i64, i64),
    a_elems: i64,
    acc_vars: &[u32],
    class: Class,
    integer: bool,
) {
    // For each result register: the element index of A[.., row, 0] and of B[.., 0, col].
    let a_row = Affine { coeffs: if rank == 3 { vec![m * k, k, 0] } else { vec![k, 0] }, offset: 0 };
    let b_col = Affine { coeffs: if rank == 3 { vec![k * n, 0, 1] } else { vec![0, 1] }, offset: a_elems };
    let a_base = e.affine_base(cl, &a_row);
    let b_base = e.affine_base(cl, &b_col);
    let k_var = e.s.var(Class::U32);
    let zero = e.u32c(0);
    e.s.store(k_var, zero.id);
    let labels = e.s.begin_loop();
    let kv = e.s.load(Class::U32, k_var);
    let kc = e.u32c(k as u32);
    let go = e.s.op(Op::ULessThan, Class::Bool, &[kv, kc]);
    e.s.loop_test(&labels, go);
    // k steps: A moves by one element, B by one row.
    let a_k = e.add_u32(a_base, kv);
    let nc = e.u32c(n as u32);
    let b_step = e.s.op(Op::IMul, Class::U32, &[kv, nc]);
    let b_k = e.add_u32(b_base, b_step);
    let mut a_vals: FxHashMap<i64, Reg> = FxHashMap::default();
    let mut b_vals: FxHashMap<i64, Reg> = FxHashMap::default();
    for (i, c) in cl.reg_coords.iter().enumerate() {
        let ao = a_row.eval(c);
        let bo = b_col.eval(c);
        let av = match a_vals.get(&ao) {
            Some(&r) => r,
            None => {
                let r = e.ld_shared(class, a_k, ao);
                a_vals.insert(ao, r);
                r
            }
        };
        let bv = match b_vals.get(&bo) {
            Some(&r) => r,
            None => {
                let r = e.ld_shared(class, b_k, bo);
                b_vals.insert(bo, r);
                r
            }
        };
        let acc = e.s.load(class, acc_vars[i]);
        let next = if integer {
            let p = e.s.op(Op::IMul, Class::U32, &[av, bv]);
            e.s.op(Op::IAdd, Class::U32, &[acc, p])
        } else {
            e.s.ext(glsl::FMA, Class::F32, &[av, bv, acc])
        };
        e.s.store(acc_vars[i], next.id);
    }
    e.s.end_loop(&labels, |s| {
        let kv = s.load(Class::U32, k_var);
        let one = s.const_reg_u32(1);
        let next = s.op(Op::IAdd, Class::U32, &[kv, one]);
        s.store(k_var, next.id);
    });
}
