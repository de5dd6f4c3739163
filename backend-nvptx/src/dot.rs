//! `tt.dot` by FMA through shared memory: the correct fallback every shape can take.
//!
//! Both operands are written to shared memory row-major, widened to f32 (rounded to tf32 first
//! when `input_precision` is tf32 and the inputs are f32, as tensor cores would) or kept as 32-bit
//! integers for int8 dots. Each thread then walks K once, and for every k loads the A values of
//! its distinct rows and the B values of its distinct columns and updates all its accumulator
//! registers with one FMA each (an outer product per k). Tensor-core lowering (mma.sync, wgmma)
//! replaces this for the shapes that allow it.

use std::collections::HashMap;

use trident_midend::ir::{DType, Op};

use crate::emit::{EResult, Emitter};
use crate::layout::Affine;
use crate::ptx::{Class, Reg};

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
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
