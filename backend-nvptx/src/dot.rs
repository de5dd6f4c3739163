//! `tt.dot` by FMA through shared memory: the correct fallback every shape can take.
//!
//! Both operands are written to shared memory row-major, widened to f32 (rounded to tf32 first
//! when `input_precision` is tf32 and the inputs are f32, as tensor cores would) or kept as 32-bit
//! integers for int8 dots. Each thread then walks K once, and for every k loads the A values of
//! its distinct rows and the B values of its distinct columns and updates all its accumulator
//! registers with one FMA each (an outer product per k).
//!
//! Dots whose result has the MMA v2 layout (chosen by the accelerate-matmul pass) use tensor
//! cores instead: the operands are staged in shared memory with padded rows (so fragment loads
//! hit distinct banks), each warp loads the `mma.sync` fragments of its tiles per K step
//! (m16n8k16 for f16 / bf16, m16n8k8 for tf32) and accumulates in place in the registers of the
//! MMA layout, whose order ([`Mma`]'s docs) gives the four accumulators of each instruction.

use std::collections::HashMap;

use trident_midend::ir::{DType, Op};
use trident_midend::layout::{Encoding, Mma};

use crate::emit::{EResult, Emitter};
use crate::layout::Affine;
use crate::ptx::{Class, Reg};

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    if let Some(Encoding::Mma(mma)) = e.ty(data.results[0]).encoding() {
        let mma = mma.clone();
        return mma_dot(e, op, &mma);
    }
    let (a_v, b_v, c_v) = (data.operands[0], data.operands[1], data.operands[2]);
    let result = data.results[0];
    let precision = data.attrs.str("input_precision").unwrap_or("tf32").to_string();
    let in_type = e.ty(a_v).dtype();
    let b_type = e.ty(b_v).dtype();
    let out_type = e.ty(result).dtype();
    let integer = in_type.is_int();
    if out_type != DType::F32 && !integer {
        return e.unsupported(&format!("tl.dot accumulating in {out_type}"));
    }
    let (al, bl, cl) = (e.layout(a_v)?, e.layout(b_v)?, e.layout(c_v)?);
    let rank = al.rank();
    let (m, k, n) = (al.shape[rank - 2] as i64, al.shape[rank - 1] as i64, bl.shape[rank - 1] as i64);
    let batch = if rank == 3 { al.shape[0] as i64 } else { 1 };
    let a_elems = batch * m * k;
    let b_elems = batch * k * n;
    let a_regs = e.get(a_v)?;
    let b_regs = e.get(b_v)?;
    let tf32 = precision == "tf32" && in_type == DType::F32;
    let widened_a = widen(e, &a_regs, in_type, tf32)?;
    let widened_b = widen(e, &b_regs, b_type, tf32)?;
    let class = if integer { Class::B32 } else { Class::F32 };

    // A at element 0, B right after it.
    e.barrier();
    e.write_shared(&widened_a, &al, &Affine::row_major(&al.shape), class, (a_elems + b_elems) as u64)?;
    let mut bw = Affine::row_major(&bl.shape);
    bw.offset = a_elems;
    e.write_shared(&widened_b, &bl, &bw, class, (a_elems + b_elems) as u64)?;
    e.barrier();

    // For each result register: the element index of A[.., row, 0] and of B[.., 0, col].
    let a_row = Affine { coeffs: if rank == 3 { vec![m * k, k, 0] } else { vec![k, 0] }, offset: 0 };
    let b_col = Affine { coeffs: if rank == 3 { vec![k * n, 0, 1] } else { vec![0, 1] }, offset: a_elems };
    let smem = e.smem_base();
    let a_base = e.affine_base(&cl, &a_row);
    let b_base = e.affine_base(&cl, &b_col);
    let a_ptr = e.reg(Class::B32);
    let b_ptr = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {a_ptr}, {a_base}, 4, {smem}"));
    e.ins(format!("mad.lo.s32 {b_ptr}, {b_base}, 4, {smem}"));
    let c_regs = e.get(c_v)?;
    let acc: Vec<Reg> = c_regs
        .iter()
        .map(|&c| {
            let r = e.reg(class);
            e.ins(format!("mov.{} {r}, {c}", if integer { "b32" } else { "f32" }));
            r
        })
        .collect();
    let kreg = e.reg(Class::B32);
    let done = e.reg(Class::Pred);
    let top = e.ptx.label("dot_k");
    let end = e.ptx.label("dot_k_end");
    e.ins(format!("mov.u32 {kreg}, 0"));
    e.ptx.place_label(&top);
    e.ins(format!("setp.ge.s32 {done}, {kreg}, {k}"));
    e.ins(format!("@{done} bra.uni {end}"));
    // k steps: A moves by one element, B by one row.
    let a_k = e.reg(Class::B32);
    let b_k = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {a_k}, {kreg}, 4, {a_ptr}"));
    e.ins(format!("mad.lo.s32 {b_k}, {kreg}, {}, {b_ptr}", n * 4));
    let mut a_vals: HashMap<i64, Reg> = HashMap::new();
    let mut b_vals: HashMap<i64, Reg> = HashMap::new();
    for (i, c) in cl.reg_coords.iter().enumerate() {
        let ao = a_row.eval(c) * 4;
        let bo = b_col.eval(c) * 4;
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
        if integer {
            e.ins(format!("mad.lo.s32 {}, {av}, {bv}, {}", acc[i], acc[i]));
        } else {
            e.ins(format!("fma.rn.f32 {}, {av}, {bv}, {}", acc[i], acc[i]));
        }
    }
    e.ins(format!("add.s32 {kreg}, {kreg}, 1"));
    e.ins(format!("bra.uni {top}"));
    e.ptx.place_label(&end);
    e.set(result, acc);
    Ok(())
}

/// Operand registers as f32 (tf32-rounded if asked) or as 32-bit integers.
fn widen(e: &mut Emitter, regs: &[Reg], d: DType, tf32: bool) -> EResult<Vec<Reg>> {
    let mut cache: HashMap<Reg, Reg> = HashMap::new();
    let mut out = Vec::with_capacity(regs.len());
    for &r in regs {
        if let Some(&w) = cache.get(&r) {
            out.push(w);
            continue;
        }
        let w = match d {
            DType::F32 if tf32 => {
                let bits = e.reg(Class::B32);
                e.ins(format!("cvt.rna.tf32.f32 {bits}, {r}"));
                let f = e.reg(Class::F32);
                e.ins(format!("mov.b32 {f}, {bits}"));
                f
            }
            DType::F32 | DType::I8 | DType::U8 | DType::I32 => r,
            DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => e.widen_to_f32(r, d)?,
            other => return e.unsupported(&format!("tl.dot on {other} operands")),
        };
        cache.insert(r, w);
        out.push(w);
    }
    Ok(out)
}

/// `tt.dot` on tensor cores; the result (and accumulator) has the MMA v2 layout.
fn mma_dot(e: &mut Emitter, op: Op, mma: &Mma) -> EResult<()> {
    let data = e.func.body.op(op);
    let (a_v, b_v, c_v) = (data.operands[0], data.operands[1], data.operands[2]);
    let result = data.results[0];
    let in_type = e.ty(a_v).dtype();
    let (al, bl) = (e.layout(a_v)?, e.layout(b_v)?);
    let (m, k, n) = (al.shape[0] as i64, al.shape[1] as i64, bl.shape[1] as i64);
    let [wm, wn] = mma.warps_per_cta;
    let (mt_count, nt_count) = (m / (16 * wm as i64), n / (8 * wn as i64));
    let tf32 = in_type == DType::F32;
    let (class, bytes, k_step, instr) = match in_type {
        DType::F16 => (Class::B16, 2i64, 16i64, "m16n8k16.row.col.f32.f16.f16.f32"),
        DType::BF16 => (Class::B16, 2, 16, "m16n8k16.row.col.f32.bf16.bf16.f32"),
        DType::F32 => (Class::F32, 4, 8, "m16n8k8.row.col.f32.tf32.tf32.f32"),
        other => return e.unsupported(&format!("tensor-core dots on {other}")),
    };
    // Padded row strides (in elements): 16 extra bytes per row spreads fragment loads over banks.
    let pad = 16 / bytes;
    let (sa, sb) = (k + pad, n + pad);
    let a_elems = m * sa;
    let b_elems = k * sb;
    let a_regs = e.get(a_v)?;
    let b_regs = e.get(b_v)?;
    let (a_regs, b_regs) = if tf32 {
        (widen(e, &a_regs, in_type, true)?, widen(e, &b_regs, in_type, true)?)
    } else {
        (a_regs, b_regs)
    };
    e.barrier();
    let total = (a_elems + b_elems) as u64;
    e.write_shared(&a_regs, &al, &Affine { coeffs: vec![sa, 1], offset: 0 }, class, total)?;
    e.write_shared(&b_regs, &bl, &Affine { coeffs: vec![sb, 1], offset: a_elems }, class, total)?;
    e.barrier();

    // Thread coordinates inside the warp and the warp's tile.
    let smem = e.smem_base();
    let (g, tig, wn_idx, wm_idx) =
        (e.reg(Class::B32), e.reg(Class::B32), e.reg(Class::B32), e.reg(Class::B32));
    e.ins(format!("shr.u32 {g}, {}, 2", e.lane));
    e.ins(format!("and.b32 {tig}, {}, 3", e.lane));
    e.ins(format!("rem.u32 {wn_idx}, {}, {wn}", e.warp));
    e.ins(format!("div.u32 {wm_idx}, {}, {wn}", e.warp));
    // Byte address of A[16 wm_idx + g][k_lane] and of B[k_lane][8 wn_idx + g], where k_lane is
    // 2 tig (f16) or tig (tf32): the fragment's first element for this lane.
    let k_lane = e.reg(Class::B32);
    if tf32 {
        e.ins(format!("mov.u32 {k_lane}, {tig}"));
    } else {
        e.ins(format!("shl.b32 {k_lane}, {tig}, 1"));
    }
    let a_row = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {a_row}, {wm_idx}, 16, {g}"));
    let a_ptr = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {a_ptr}, {a_row}, {sa}, {k_lane}"));
    e.ins(format!("mad.lo.s32 {a_ptr}, {a_ptr}, {bytes}, {smem}"));
    let b_col = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {b_col}, {wn_idx}, 8, {g}"));
    let b_ptr = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {b_ptr}, {k_lane}, {sb}, {b_col}"));
    e.ins(format!("add.s32 {b_ptr}, {b_ptr}, {a_elems}"));
    e.ins(format!("mad.lo.s32 {b_ptr}, {b_ptr}, {bytes}, {smem}"));

    let c_regs = e.get(c_v)?;
    let acc: Vec<Reg> = c_regs
        .iter()
        .map(|&c| {
            let r = e.reg(Class::F32);
            e.ins(format!("mov.f32 {r}, {c}"));
            r
        })
        .collect();
    let nt_bits = nt_count.trailing_zeros();
    let kreg = e.reg(Class::B32);
    let done = e.reg(Class::Pred);
    let top = e.ptx.label("mma_k");
    let end = e.ptx.label("mma_k_end");
    e.ins(format!("mov.u32 {kreg}, 0"));
    e.ptx.place_label(&top);
    e.ins(format!("setp.ge.s32 {done}, {kreg}, {k}"));
    e.ins(format!("@{done} bra.uni {end}"));
    let (a_k, b_k) = (e.reg(Class::B32), e.reg(Class::B32));
    e.ins(format!("mad.lo.s32 {a_k}, {kreg}, {bytes}, {a_ptr}"));
    e.ins(format!("mad.lo.s32 {b_k}, {kreg}, {}, {b_ptr}", sb * bytes));
    let row8 = 8 * sa * bytes;
    let half_k = (k_step / 2) * bytes;
    // A fragments per M tile, B fragments per N tile.
    let mut a_frags = Vec::new();
    for mt in 0..mt_count {
        let base = mt * 16 * wm as i64 * sa * bytes;
        // Both instruction shapes read A as four 32-bit words: (row, k), (row + 8, k), then the
        // same at k + half a K step (two f16 values per word for m16n8k16, one tf32 for m16n8k8).
        let frag: Vec<Reg> = [(0, 0), (row8, 0), (0, half_k), (row8, half_k)]
            .iter()
            .map(|&(r, c)| {
                let x = e.reg(Class::B32);
                e.ins(format!("ld.shared.b32 {x}, [{a_k}+{}]", base + r + c));
                x
            })
            .collect();
        a_frags.push(frag);
    }
    let mut b_frags = Vec::new();
    for nt in 0..nt_count {
        let base = nt * 8 * wn as i64 * bytes;
        let row = sb * bytes;
        let frag: Vec<Reg> = if tf32 {
            [0, 4 * row]
                .iter()
                .map(|&r| {
                    let x = e.reg(Class::B32);
                    e.ins(format!("ld.shared.b32 {x}, [{b_k}+{}]", base + r));
                    x
                })
                .collect()
        } else {
            [0, 8 * row]
                .iter()
                .map(|&r| {
                    let (lo, hi) = (e.reg(Class::B16), e.reg(Class::B16));
                    e.ins(format!("ld.shared.b16 {lo}, [{b_k}+{}]", base + r));
                    e.ins(format!("ld.shared.b16 {hi}, [{b_k}+{}]", base + r + row));
                    let x = e.reg(Class::B32);
                    e.ins(format!("mov.b32 {x}, {{{lo}, {hi}}}"));
                    x
                })
                .collect()
        };
        b_frags.push(frag);
    }
    for (mt, a) in a_frags.iter().enumerate() {
        for (nt, b) in b_frags.iter().enumerate() {
            let r0 = (nt << 2) | (mt << (2 + nt_bits));
            let (c0, c1, c2, c3) = (acc[r0], acc[r0 | 1], acc[r0 | 2], acc[r0 | 3]);
            e.ins(format!(
                "mma.sync.aligned.{instr} {{{c0}, {c1}, {c2}, {c3}}}, {{{}, {}, {}, {}}}, {{{}, {}}}, {{{c0}, {c1}, {c2}, {c3}}}",
                a[0], a[1], a[2], a[3], b[0], b[1]
            ));
        }
    }
    e.ins(format!("add.s32 {kreg}, {kreg}, {k_step}"));
    e.ins(format!("bra.uni {top}"));
    e.ptx.place_label(&end);
    e.set(result, acc);
    Ok(())
}
