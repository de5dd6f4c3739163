//! Reductions and scans.
//!
//! `tt.reduce` follows the nvptx backend's steps, read off the linear layout of the operand:
//! 1. inside a thread, registers that differ only along the axis are combined in register order;
//! 2. across threads (lane and warp bits whose bases point along the axis), each thread writes its
//!    partials to workgroup memory at (group, thread index along the axis), and after a barrier
//!    every thread combines the partials of its groups in thread order when there are a few; for
//!    more, a tree halves them (thread i takes slot i + s, for s = w/2 .. 1, two barriers per
//!    step) and everyone reads slot 0 (every thread reading all `w` partials costs `w^2` reads
//!    per group, 262144 for a 512-thread row: the suspected cause of spirv softmax running at
//!    0.06x of CUDA on an H200, not yet re-measured). Going through workgroup memory
//!    for lanes too makes the result independent of the device's real subgroup size (8 to 64), at
//!    the cost of barriers that subgroup shuffles would avoid.
//!
//! The result then sits in the registers of the slice layout (matched by coordinate), copied in
//! every thread that the slice replicates.
//!
//! `tt.scan` goes through workgroup memory: every element is written, then each thread walks the
//! prefix (or suffix) of each of its elements along the axis with a runtime loop.
//!
//! The combine region is emitted inline wherever two partials meet, with its block arguments
//! bound to the partials' registers.

use std::collections::HashMap;

use rspirv::spirv::Op;
use trident_midend::ir::{Block, Op as IrOp, Opcode};

use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg};
use trident_midend::layout::registers::{row_major_strides, Affine};

pub fn lower(e: &mut Emitter, op: IrOp) -> EResult<()> {
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

/// Up to this many partials per group are combined in straight-line code by every thread; more
/// go through the halving tree.
const UNROLLED_PARTIALS: i64 = 4;

fn reduce(e: &mut Emitter, op: IrOp) -> EResult<()> {
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

    // 2. Across threads, through workgroup memory: lane bits, then warp bits, along the axis.
    let mut axis_bits: Vec<(Reg, usize)> = Vec::new();
    for (bases, id) in [(&sl.lane_bases, e.lane), (&sl.warp_bases, e.warp)] {
        for (b, basis) in bases.iter().enumerate() {
            if basis[axis] == 0 {
                continue;
            }
            if basis.iter().enumerate().any(|(d, &x)| d != axis && x != 0) {
                return e.unsupported("a reduction over a layout whose threads mix the axis with other dims");
            }
            axis_bits.push((id, b));
        }
    }
    if !axis_bits.is_empty() {
        let w = 1i64 << axis_bits.len();
        // This thread's index along the axis.
        let mut wi = e.u32c(0);
        for (j, &(id, b)) in axis_bits.iter().enumerate() {
            let (shift, one, pos) = (e.u32c(b as u32), e.u32c(1), e.u32c(j as u32));
            let t = e.s.op(Op::ShiftRightLogical, Class::U32, &[id, shift]);
            let t = e.s.op(Op::BitwiseAnd, Class::U32, &[t, one]);
            let t = e.s.op(Op::ShiftLeftLogical, Class::U32, &[t, pos]);
            wi = e.s.op(Op::BitwiseOr, Class::U32, &[wi, t]);
        }
        // Slot of (group, thread index): one array per operand, each partial as wide as the
        // widest operand (2 words for 64-bit values, else 1).
        let mut result_shape = sl.shape.clone();
        result_shape.remove(axis);
        let mut nonaxis = Affine::row_major(&result_shape);
        nonaxis.coeffs.insert(axis, 0);
        let groups_total: i64 =
            sl.shape.iter().enumerate().filter(|(d, _)| *d != axis).map(|(_, &s)| s as i64).product();
        let slots = groups_total * w;
        let words = groups[0].1.iter().map(|r| r.class.words()).max().unwrap_or(1) as i64;
        e.need_shared_words((slots * words * n as i64) as u64)?;
        let base = e.affine_base(&sl, &nonaxis);
        // row = (base * w + wi) * words, col0 = base * w * words
        let (wc, width, w_words) = (e.u32c(w as u32), e.u32c(words as u32), e.u32c((words * w) as u32));
        let t = e.s.op(Op::IMul, Class::U32, &[base, wc]);
        let t = e.s.op(Op::IAdd, Class::U32, &[t, wi]);
        let row = e.s.op(Op::IMul, Class::U32, &[t, width]);
        let col0 = e.s.op(Op::IMul, Class::U32, &[base, w_words]);
        let partials = Partials { nonaxis, w, words, slots };
        e.barrier();
        partials.publish(e, row, &groups);
        e.barrier();
        if w <= UNROLLED_PARTIALS {
            for group in groups.iter_mut() {
                let mut acc = partials.read(e, col0, group, 0);
                for j in 1..w {
                    let other = partials.read(e, col0, group, j);
                    acc = combine(e, region, &acc, &other)?;
                }
                group.1 = acc;
            }
        } else {
            // A tree: at stride s = w/2, w/4, .., 1, thread i combines its running partial
            // (kept in registers) with the slot of thread i + s, then publishes its own. Only
            // threads below s compute something that is read again; the others read a wrapped
            // slot and publish garbage nobody reads, which keeps control flow uniform.
            let mut stride = w / 2;
            while stride >= 1 {
                let (sc, wrap) = (e.u32c(stride as u32), e.u32c((w - 1) as u32));
                let partner = e.s.op(Op::IAdd, Class::U32, &[wi, sc]);
                let partner = e.s.op(Op::BitwiseAnd, Class::U32, &[partner, wrap]);
                let t = e.s.op(Op::IMul, Class::U32, &[base, wc]);
                let t = e.s.op(Op::IAdd, Class::U32, &[t, partner]);
                let partner_row = e.s.op(Op::IMul, Class::U32, &[t, width]);
                for group in groups.iter_mut() {
                    let other = partials.read(e, partner_row, group, 0);
                    let acc = group.1.clone();
                    group.1 = combine(e, region, &acc, &other)?;
                }
                e.barrier();
                partials.publish(e, row, &groups);
                e.barrier();
                stride /= 2;
            }
            // Thread 0 of each group now holds the whole reduction: everyone reads it.
            for group in groups.iter_mut() {
                group.1 = partials.read(e, col0, group, 0);
            }
        }
    }

    // 3. Hand the partials to the result layout.
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

fn scan(e: &mut Emitter, op: IrOp) -> EResult<()> {
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
    // One array of 2-word slots per operand.
    e.barrier();
    for (k, s) in srcs.iter().enumerate() {
        let class = e.uniform_class(s)?;
        let f = Affine {
            coeffs: row_major_strides(&l.shape).iter().map(|x| x * 2 / class.words() as i64).collect(),
            offset: k as i64 * numel * 2 / class.words() as i64,
        };
        e.write_shared(s, &l, &f, class, (numel * 2 * n as i64) as u64 / class.words() as u64)?;
    }
    e.barrier();
    let mut nonaxis = Affine::row_major(&l.shape);
    nonaxis.coeffs[axis] = 0;
    let base = e.affine_base(&l, &nonaxis);
    let pos = e.coord_regs(&l, axis);
    let classes: Vec<Class> = srcs.iter().map(|s| s[0].class).collect();
    let mut outs: Vec<Vec<Reg>> = vec![Vec::new(); n];
    for (i, c) in l.reg_coords.iter().enumerate() {
        // Word index of element k along the axis: (base + const + k*stride) * 2.
        let row = e.add_imm(base, nonaxis.eval(c));
        let two = e.u32c(2);
        let row = e.s.op(Op::IMul, Class::U32, &[row, two]);
        let first = if reverse { len - 1 } else { 0 };
        let acc_vars: Vec<u32> = classes.iter().map(|&cl| e.s.var(cl)).collect();
        for (k, &cl) in classes.iter().enumerate() {
            let v = e.ld_shared(cl, row, first * stride * 2 + k as i64 * numel * 2);
            e.s.store(acc_vars[k], v.id);
        }
        // k walks from the first element toward this register's position.
        let k_var = e.s.var(Class::U32);
        let first_c = e.u32c(first as u32);
        e.s.store(k_var, first_c.id);
        let labels = e.s.begin_loop();
        let kv = e.s.load(Class::U32, k_var);
        let go = e.s.op(if reverse { Op::SGreaterThan } else { Op::SLessThan }, Class::Bool, &[kv, pos[i]]);
        e.s.loop_test(&labels, go);
        let kn = e.add_imm(kv, if reverse { -1 } else { 1 });
        e.s.store(k_var, kn.id);
        let sc = e.u32c((stride * 2) as u32);
        let addr = e.s.op(Op::IMul, Class::U32, &[kn, sc]);
        let addr = e.s.op(Op::IAdd, Class::U32, &[addr, row]);
        let x: Vec<Reg> =
            classes.iter().enumerate().map(|(k, &cl)| e.ld_shared(cl, addr, k as i64 * numel * 2)).collect();
        let acc: Vec<Reg> = classes.iter().zip(&acc_vars).map(|(&cl, &v)| e.s.load(cl, v)).collect();
        let next = if reverse { combine(e, region, &x, &acc)? } else { combine(e, region, &acc, &x)? };
        for (&var, v) in acc_vars.iter().zip(next) {
            e.s.store(var, v.id);
        }
        e.s.end_loop(&labels, |_| {});
        for k in 0..n {
            let v = e.s.load(classes[k], acc_vars[k]);
            outs[k].push(v);
        }
    }
    for (k, &r) in results.iter().enumerate() {
        e.set(r, outs[k].clone());
    }
    Ok(())
}

/// Where a reduction's partials sit in workgroup memory: one array per operand, `slots` slots of
/// `words` words each; a group's `w` threads take consecutive slots from `nonaxis(key) * w`.
struct Partials {
    nonaxis: Affine,
    w: i64,
    words: i64,
    slots: i64,
}

impl Partials {
    /// The word offset of operand `k` of group `key`, from a thread's slot address.
    fn offset(&self, key: &[u32], k: usize) -> i64 {
        self.nonaxis.eval(key) * self.w * self.words + k as i64 * self.slots * self.words
    }

    /// Every thread stores its partial of every group at its slot address `row`.
    fn publish(&self, e: &mut Emitter, row: Reg, groups: &[(Vec<u32>, Vec<Reg>)]) {
        for (key, regs) in groups {
            for (k, &r) in regs.iter().enumerate() {
                e.st_shared(row, self.offset(key, k), r);
            }
        }
    }

    /// The partials of `group` at slot address `at`, `j` slots further (in the group's classes).
    fn read(&self, e: &mut Emitter, at: Reg, group: &(Vec<u32>, Vec<Reg>), j: i64) -> Vec<Reg> {
        let (key, regs) = group;
        regs.iter()
            .enumerate()
            .map(|(k, r)| e.ld_shared(r.class, at, self.offset(key, k) + j * self.words))
            .collect()
    }
}
