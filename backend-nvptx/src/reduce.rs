//! Reductions and scans across threads, in PTX.
//!
//! The midend combines the registers of a thread and hands the result to the slice layout
//! ([`trident_midend::codegen::reduce`]); between the two, this file combines a group's partials
//! across threads, following Triton:
//! 1. inside a warp, for every lane bit whose basis points along the axis, a butterfly shuffle
//!    (`shfl.sync.bfly`) exchanges partials and combines them;
//! 2. across warps, when warp bits point along the axis, each warp writes its partials to shared
//!    memory (8 bytes per partial) and every thread combines the warps' partials in warp order.
//!
//! `tt.scan`'s elements are in shared memory ([`trident_midend::codegen::scan`]); each thread
//! walks the prefix (or suffix) of each of its elements along the axis with a runtime loop of
//! registers and labels. It is simple and correct; a warp-level scan is the faster form to write
//! later.

use trident_midend::codegen::combine::combine;
use trident_midend::codegen::reduce::{Group, ReduceOp};
use trident_midend::codegen::scan::Scan;
use trident_midend::codegen::{Isa, Lines, LowerReduce};

use crate::control::mov;
use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};

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

impl<'a> LowerReduce<'a> for Emitter<'a> {
    /// 8-byte slots.
    fn slot_elements(class: Class) -> i64 {
        8 / class.bytes() as i64
    }

    fn reduce_across_threads(e: &mut Self, op: &ReduceOp, groups: &mut [Group<Reg>]) -> EResult<()> {
        let (axis, region, sl) = (op.axis, op.region, &op.layout);

        // 2. Within the warp: butterflies over the lane bits along the axis.
        for (b, basis) in sl.lane_bases.iter().enumerate() {
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
            // Slot of (group coordinate, warp index): 8 bytes per partial, one array per operand,
            // from the group's index in the result shape (the operand shape without the axis).
            let (nonaxis, groups_total) = op.group_slots();
            let slots = groups_total * w as i64;
            e.need_shared((slots * 8 * groups[0].1.len() as i64) as u64)?;
            let smem = e.smem_base();
            let base = e.affine_base(sl, &nonaxis);
            let row = e.reg(Class::B32);
            // row = (base * w + wi) * 8 + smem
            e.ins(format!("mad.lo.s32 {row}, {base}, {w}, {wi}"));
            e.ins(format!("mad.lo.s32 {row}, {row}, 8, {smem}"));
            let col0 = e.reg(Class::B32);
            e.ins(format!("mad.lo.s32 {col0}, {base}, {}, {smem}", w * 8));
            e.barrier();
            for (key, regs) in groups.iter() {
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
        Ok(())
    }

    fn scan(e: &mut Self, scan: &Scan<Reg, Class>) -> EResult<Vec<Vec<Reg>>> {
        scan.write_slots(e)?;
        let smem = e.smem_base();
        let Lines { start: nonaxis, base, pos } = e.lines_along(&scan.layout, scan.axis);
        let (classes, numel, stride) = (&scan.classes, scan.numel(), scan.stride());
        let mut outs: Vec<Vec<Reg>> = vec![Vec::new(); classes.len()];
        for (i, c) in scan.layout.reg_coords.iter().enumerate() {
            // Address of element k along the axis: smem + (base + const + k*stride) * 8.
            let row = e.reg(Class::B32);
            e.ins(format!("add.s32 {row}, {base}, {}", nonaxis.eval(c)));
            e.ins(format!("mad.lo.s32 {row}, {row}, 8, {smem}"));
            let first = scan.first();
            let acc: Vec<Reg> = classes
                .iter()
                .enumerate()
                .map(|(k, &cl)| {
                    let r = e.reg(cl);
                    let v = e.ld_shared(cl, row, first * stride * 8 + k as i64 * numel * 8);
                    mov(e, r, v);
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
            if scan.reverse {
                e.ins(format!("setp.le.s32 {done}, {kreg}, {}", pos[i]));
            } else {
                e.ins(format!("setp.ge.s32 {done}, {kreg}, {}", pos[i]));
            }
            e.ins(format!("@{done} bra {end}"));
            e.ins(format!("add.s32 {kreg}, {kreg}, {}", if scan.reverse { -1 } else { 1 }));
            e.ins(format!("mul.lo.s32 {addr}, {kreg}, {}", stride * 8));
            e.ins(format!("add.s32 {addr}, {addr}, {row}"));
            let x: Vec<Reg> = classes
                .iter()
                .enumerate()
                .map(|(k, &cl)| e.ld_shared(cl, addr, k as i64 * numel * 8))
                .collect();
            let next = if scan.reverse {
                combine(e, scan.region, &x, &acc)?
            } else {
                combine(e, scan.region, &acc, &x)?
            };
            for (a, v) in acc.iter().zip(next) {
                mov(e, *a, v);
            }
            e.ins(format!("bra {top}"));
            e.ptx.place_label(&end);
            for (out, &r) in outs.iter_mut().zip(&acc) {
                out.push(r);
            }
        }
        Ok(outs)
    }
}
