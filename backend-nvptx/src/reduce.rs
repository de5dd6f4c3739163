//! Reductions and scans.
//!
//! `tt.reduce` follows Triton's three steps, read off the linear layout of the operand:
//! 1. inside a thread, registers that differ only along the axis are combined in register order;
//! 2. inside a warp, for every lane bit whose basis points along the axis, a butterfly shuffle
//!    (`shfl.sync.bfly`) exchanges partials and combines them;
//! 3. across warps, when warp bits point along the axis, each warp writes its partials to shared
//!    memory and every thread combines the warps' partials in warp order.
//!
//! The result then sits in the registers of the slice layout (matched by coordinate), copied in
//! every thread that the slice replicates.
//!
//! `tt.scan` goes through shared memory: every element is written, then each thread walks the
//! prefix (or suffix) of each of its elements along the axis with a runtime loop. It is simple
//! and correct; a warp-level scan is the faster form to write later.
//!
//! The combine region is emitted inline wherever two partials meet, with its block arguments
//! bound to the partials' registers.

use std::collections::HashMap;

use trident_midend::ir::{Block, Op, Opcode};

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};
use trident_midend::layout::registers::{row_major_strides, Affine};

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    if e.func.body.opcode(op) == Opcode::Reduce {
        reduce(e, op)
    } else {
        scan(e, op)
    }
}

/// Emits the combine region on (lhs..., rhs...) and returns its results.
fn combine(e: &mut Emitter, region: Block, lhs: &[Reg], rhs: &[Reg]) -> EResult<Vec<Reg>> {
    let args = e.func.body.blocks[region].args.clone();
    for (k, &a) in args.iter().enumerate() {
        let r = if k < lhs.len() { lhs[k] } else { rhs[k - lhs.len()] };
        e.set(a, vec![r]);
    }
    e.block(region)?;
    let Some(&term) = e.func.body.blocks[region].ops.last() else {
        return e.invalid("combine region without terminator");
    };
    let values = e.func.body.op(term).operands.clone();
    values.into_iter().map(|v| Ok(e.get(v)?[0])).collect()
}

/// A butterfly exchange with the lane `lane ^ mask`, for any register class.
fn shuffle_xor(e: &mut Emitter, v: Reg, mask: u32) -> Reg {
    let full = "0xffffffff";
    match v.class {
        Class::B32 | Class::F32 => {
            let r = e.reg(v.class);
            e.ins(format!("shfl.sync.bfly.b32 {r}, {v}, {mask}, 31, {full}"));
            r
        }
        Class::B64 | Class::F64 => {
            let (lo, hi) = (e.reg(Class::B32), e.reg(Class::B32));
            e.ins(format!("mov.b64 {{{lo}, {hi}}}, {v}"));
            e.ins(format!("shfl.sync.bfly.b32 {lo}, {lo}, {mask}, 31, {full}"));
            e.ins(format!("shfl.sync.bfly.b32 {hi}, {hi}, {mask}, 31, {full}"));
            let r = e.reg(v.class);
            e.ins(format!("mov.b64 {r}, {{{lo}, {hi}}}"));
            r
        }
        Class::B16 => {
            let t = e.reg(Class::B32);
            e.ins(format!("cvt.u32.u16 {t}, {v}"));
            e.ins(format!("shfl.sync.bfly.b32 {t}, {t}, {mask}, 31, {full}"));
            let r = e.reg(Class::B16);
            e.ins(format!("cvt.u16.u32 {r}, {t}"));
            r
        }
        Class::Pred => {
            let t = e.reg(Class::B32);
            e.ins(format!("selp.u32 {t}, 1, 0, {v}"));
            e.ins(format!("shfl.sync.bfly.b32 {t}, {t}, {mask}, 31, {full}"));
            let r = e.reg(Class::Pred);
            e.ins(format!("setp.ne.u32 {r}, {t}, 0"));
            r
        }
    }
}

fn reduce(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    let axis = data.attrs.int("axis").unwrap_or(0) as usize;
    let region = data.regions[0];
    let operands = data.operands.clone();
    let results = data.results.clone();
    let srcs: Vec<Vec<Reg>> = operands.iter().map(|&v| e.get(v)).collect::<EResult<_>>()?;
    let sl = e.layout(operands[0])?;
    let n = operands.len();

    // 1. Within the thread: group registers by their coordinate with the axis zeroed.
    let mut groups: Vec<(Vec<u32>, Vec<Reg>)> = Vec::new();
    let mut index: HashMap<Vec<u32>, usize> = HashMap::new();
    for (i, c) in sl.reg_coords.iter().enumerate() {
        let mut key = c.clone();
        key[axis] = 0;
        let regs: Vec<Reg> = srcs.iter().map(|s| s[i]).collect();
        match index.get(&key) {
            Some(&g) => {
                let acc = groups[g].1.clone();
                groups[g].1 = combine(e, region, &acc, &regs)?;
            }
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, regs));
            }
        }
    }

    // 2. Within the warp: butterflies over the lane bits along the axis.
    for (b, basis) in sl.lane_bases.clone().iter().enumerate() {
        if basis[axis] == 0 {
            continue;
        }
        if basis.iter().enumerate().any(|(d, &x)| d != axis && x != 0) {
            return e.unsupported("a reduction over a layout whose lanes mix the axis with other dims");
        }
        for group in groups.iter_mut() {
            let acc = group.1.clone();
            let other: Vec<Reg> = acc.iter().map(|&r| shuffle_xor(e, r, 1 << b)).collect();
            group.1 = combine(e, region, &acc, &other)?;
        }
    }

    // 3. Across warps, through shared memory.
    let axis_warp_bits: Vec<usize> =
        sl.warp_bases.iter().enumerate().filter(|(_, v)| v[axis] != 0).map(|(b, _)| b).collect();
    if !axis_warp_bits.is_empty() {
        if sl
            .warp_bases
            .iter()
            .any(|v| v[axis] != 0 && v.iter().enumerate().any(|(d, &x)| d != axis && x != 0))
        {
            return e.unsupported("a reduction over a layout whose warps mix the axis with other dims");
        }
        let w = 1u32 << axis_warp_bits.len();
        // This warp's index along the axis.
        let wi = e.reg(Class::B32);
        e.ins(format!("mov.u32 {wi}, 0"));
        for (j, &b) in axis_warp_bits.iter().enumerate() {
            let t = e.reg(Class::B32);
            e.ins(format!("bfe.u32 {t}, {}, {b}, 1", e.warp));
            e.ins(format!("shl.b32 {t}, {t}, {j}"));
            e.ins(format!("or.b32 {wi}, {wi}, {t}"));
        }
        // Slot of (group coordinate, warp index): 8 bytes per partial, one array per operand.
        // The group's index in the result shape (the operand shape without the axis).
        let mut result_shape = sl.shape.clone();
        result_shape.remove(axis);
        let mut nonaxis = Affine::row_major(&result_shape);
        nonaxis.coeffs.insert(axis, 0);
        let groups_total: i64 =
            sl.shape.iter().enumerate().filter(|(d, _)| *d != axis).map(|(_, &s)| s as i64).product();
        let slots = groups_total * w as i64;
        e.need_shared((slots * 8 * n as i64) as u64)?;
        let smem = e.smem_base();
        let base = e.affine_base(&sl, &nonaxis);
        let row = e.reg(Class::B32);
        // row = (base * w + wi) * 8 + smem
        e.ins(format!("mad.lo.s32 {row}, {base}, {w}, {wi}"));
        e.ins(format!("mad.lo.s32 {row}, {row}, 8, {smem}"));
        let col0 = e.reg(Class::B32);
        e.ins(format!("mad.lo.s32 {col0}, {base}, {}, {smem}", w * 8));
        e.barrier();
        for (key, regs) in &groups {
            let off = nonaxis.eval(key) * w as i64 * 8;
            for (k, &r) in regs.iter().enumerate() {
                e.st_shared(row, off + k as i64 * slots * 8, r);
            }
        }
        e.barrier();
        for group in groups.iter_mut() {
            let off = nonaxis.eval(&group.0) * w as i64 * 8;
            let classes: Vec<Class> = group.1.iter().map(|r| r.class).collect();
            let mut acc: Vec<Reg> = classes
                .iter()
                .enumerate()
                .map(|(k, &c)| e.ld_shared(c, col0, off + k as i64 * slots * 8))
                .collect();
            for j in 1..w as i64 {
                let other: Vec<Reg> = classes
                    .iter()
                    .enumerate()
                    .map(|(k, &c)| e.ld_shared(c, col0, off + j * 8 + k as i64 * slots * 8))
                    .collect();
                acc = combine(e, region, &acc, &other)?;
            }
            group.1 = acc;
        }
    }

    // 4. Hand the partials to the result layout.
    let result_ty = e.ty(results[0]).clone();
    if !result_ty.is_tensor() {
        for (k, &r) in results.iter().enumerate() {
            e.set(r, vec![groups[0].1[k]]);
        }
        return Ok(());
    }
    let dl = e.layout(results[0])?;
    let mut per_result: Vec<Vec<Reg>> = vec![Vec::new(); n];
    for c in &dl.reg_coords {
        let mut key = c.clone();
        key.insert(axis, 0);
        let Some(&g) = index.get(&key) else {
            return e.invalid(format!("reduction result element {c:?} has no partial in this thread"));
        };
        for (k, out) in per_result.iter_mut().enumerate() {
            out.push(groups[g].1[k]);
        }
    }
    for (k, &r) in results.iter().enumerate() {
        e.set(r, per_result[k].clone());
    }
    Ok(())
}

fn scan(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    let axis = data.attrs.int("axis").unwrap_or(0) as usize;
    let reverse = data.attrs.bool("reverse").unwrap_or(false);
    let region = data.regions[0];
    let operands = data.operands.clone();
    let results = data.results.clone();
    let srcs: Vec<Vec<Reg>> = operands.iter().map(|&v| e.get(v)).collect::<EResult<_>>()?;
    let l = e.layout(operands[0])?;
    let numel: i64 = l.shape.iter().map(|&d| d as i64).product();
    let len = l.shape[axis] as i64;
    let stride = row_major_strides(&l.shape)[axis];
    let n = operands.len();
    // One array of 8-byte slots per operand.
    e.barrier();
    for (k, s) in srcs.iter().enumerate() {
        let class = s[0].class;
        let f = Affine {
            coeffs: row_major_strides(&l.shape).iter().map(|x| x * (8 / class.bytes() as i64)).collect(),
            offset: k as i64 * numel * (8 / class.bytes() as i64),
        };
        e.write_shared(s, &l, &f, class, (numel * 8 * n as i64) as u64 / class.bytes() as u64)?;
    }
    e.barrier();
    let smem = e.smem_base();
    let mut nonaxis = Affine::row_major(&l.shape);
    nonaxis.coeffs[axis] = 0;
    let base = e.affine_base(&l, &nonaxis);
    let pos = e.coord_regs(&l, axis);
    let classes: Vec<Class> = srcs.iter().map(|s| s[0].class).collect();
    let mut outs: Vec<Vec<Reg>> = vec![Vec::new(); n];
    for (i, c) in l.reg_coords.iter().enumerate() {
        // Address of element k along the axis: smem + (base + const + k*stride) * 8.
        let row = e.reg(Class::B32);
        e.ins(format!("add.s32 {row}, {base}, {}", nonaxis.eval(c)));
        e.ins(format!("mad.lo.s32 {row}, {row}, 8, {smem}"));
        let first = if reverse { len - 1 } else { 0 };
        let acc: Vec<Reg> = classes
            .iter()
            .enumerate()
            .map(|(k, &cl)| {
                let r = e.reg(cl);
                let v = e.ld_shared(cl, row, first * stride * 8 + k as i64 * numel * 8);
                mov_any(e, r, v);
                r
            })
            .collect();
        // k walks from the first element toward this register's position.
        let kreg = e.reg(Class::B32);
        let addr = e.reg(Class::B32);
        let done = e.reg(Class::Pred);
        let top = e.ptx.label("scan");
        let end = e.ptx.label("scan_end");
        e.ins(format!("mov.u32 {kreg}, {first}"));
        e.ptx.place_label(&top);
        if reverse {
            e.ins(format!("setp.le.s32 {done}, {kreg}, {}", pos[i]));
        } else {
            e.ins(format!("setp.ge.s32 {done}, {kreg}, {}", pos[i]));
        }
        e.ins(format!("@{done} bra {end}"));
        e.ins(format!("add.s32 {kreg}, {kreg}, {}", if reverse { -1 } else { 1 }));
        e.ins(format!("mul.lo.s32 {addr}, {kreg}, {}", stride * 8));
        e.ins(format!("add.s32 {addr}, {addr}, {row}"));
        let x: Vec<Reg> =
            classes.iter().enumerate().map(|(k, &cl)| e.ld_shared(cl, addr, k as i64 * numel * 8)).collect();
        let next = if reverse { combine(e, region, &x, &acc)? } else { combine(e, region, &acc, &x)? };
        for (a, v) in acc.iter().zip(next) {
            mov_any(e, *a, v);
        }
        e.ins(format!("bra {top}"));
        e.ptx.place_label(&end);
        for k in 0..n {
            outs[k].push(acc[k]);
        }
    }
    for (k, &r) in results.iter().enumerate() {
        e.set(r, outs[k].clone());
    }
    Ok(())
}

fn mov_any(e: &mut Emitter, dst: Reg, src: Reg) {
    let ty = match dst.class {
        Class::Pred => "pred",
        Class::B16 => "b16",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
    };
    e.ins(format!("mov.{ty} {dst}, {src}"));
}
