//! Reductions and scans across threads, in SPIR-V.
//!
//! The midend combines the registers of a thread and hands the result to the slice layout
//! ([`trident_midend::codegen::reduce`]); between the two, this file combines a group's partials
//! across threads (lane and warp bits whose bases point along the axis): each thread writes its
//! partials to workgroup memory at (group, thread index along the axis), and after a barrier
//! every thread combines the partials of its groups in thread order when there are a few (up to
//! eight); for more, a tree halves them (thread i takes slot i + s, for s = w/2 .. 1, two barriers
//! per step) and everyone reads slot 0 (every thread reading all `w` partials costs `w^2` reads
//! per group, 262144 for a 512-thread row: the suspected cause of spirv softmax running at 0.06x
//! of CUDA on an H200, not yet re-measured).
//!
//! # Subgroups
//!
//! The layouts are built for a warp of 64 threads unless every subgroup of the device is 32 lanes
//! wide (then 32; see the runtime's `layout_warp_width` for why), so a layout warp need not be a
//! subgroup.
//! Rather than build layouts per subgroup size, reductions use subgroup operations only for the
//! lanes one subgroup holds: with `S` the device's smallest subgroup size
//! ([`crate::Options::shuffle_span`]: `min(S, 64)`, Vulkan dialect only), the lane bits `b` along
//! the axis with `2^b < S` pair thread `t` with thread `t ^ 2^b`, which is subgroup invocation
//! `id ^ 2^b` of the same subgroup when subgroups are aligned runs of local invocation indices;
//! those bits combine by `OpGroupNonUniformShuffleXor`, no barrier, and the remaining lane bits
//! and the warp bits go through workgroup memory as above (`w` shrinks by `S`: 8 on lavapipe, 32
//! on NVIDIA). Vulkan does not promise that mapping of invocations to subgroups (drivers do it),
//! so the kernel checks it once after the grid check (`Emitter::check_subgroups`: every subgroup
//! aligned, of one base, at least `S` wide, the workgroup a multiple of it) into a
//! workgroup-uniform flag, and each reduction branches on it: shuffles then memory, or memory
//! only. Both arms hold barriers, which a uniform branch allows, and each is correct for any
//! subgroup size, so the result is too. argmax/argmin (one reduction over a value and an index)
//! shuffle both operands; scans still walk workgroup memory.
//!
//! `tt.scan`'s elements are in workgroup memory ([`trident_midend::codegen::scan`]); each thread
//! walks the prefix (or suffix) of each of its elements along the axis with a structured loop
//! over function variables.

use rspirv::spirv::{Op, Scope};
use trident_midend::codegen::combine::combine;
use trident_midend::codegen::reduce::{Group, ReduceOp};
use trident_midend::codegen::scan::Scan;
use trident_midend::codegen::{Isa, Lines, LowerReduce};
use trident_midend::layout::registers::Affine;

use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg};

/// Up to this many partials per group are combined in straight-line code by every thread; more
/// go through the halving tree. Eight: a row over eight warps of 32 lanes (NVIDIA) then costs one
/// barrier and eight reads of a broadcast slot instead of three tree steps of two barriers.
const UNROLLED_PARTIALS: i64 = 8;

impl<'a> LowerReduce<'a> for Emitter<'a> {
    /// 8-byte slots: 2 words.
    fn slot_elements(class: Class) -> i64 {
        2 / class.words() as i64
    }

    fn reduce_across_threads(e: &mut Self, op: &ReduceOp, groups: &mut [Group<Reg>]) -> EResult<()> {
        let (axis, sl) = (op.axis, &op.layout);

        // 2. Across threads, through workgroup memory: lane bits, then warp bits, along the axis.
        let mut axis_bits: Vec<(Reg, usize)> = Vec::new();
        for (bases, id) in [(&sl.lane_bases, e.lane), (&sl.warp_bases, e.warp)] {
            for (b, basis) in bases.iter().enumerate() {
                if basis[axis] == 0 {
                    continue;
                }
                if basis.iter().enumerate().any(|(d, &x)| d != axis && x != 0) {
                    return e
                        .unsupported("a reduction over a layout whose threads mix the axis with other dims");
                }
                axis_bits.push((id, b));
            }
        }
        // Lane bits below the shuffle span cross threads of one subgroup: where the workgroup's
        // subgroups are as the shuffles assume (a uniform flag, see `Emitter::check_subgroups`),
        // they combine by shuffles and the other bits through memory; elsewhere all go through
        // memory. The two arms hold barriers, which the uniform branch allows.
        let span = e.options.shuffle_span();
        let shuffled: Vec<usize> = axis_bits
            .iter()
            .filter(|&&(id, b)| id == e.lane && (1u32 << b) < span)
            .map(|&(_, b)| b)
            .collect();
        let ok = match e.subgroups_ok {
            Some(var) if !shuffled.is_empty() => var,
            _ => return through_memory(e, op, groups, &axis_bits),
        };
        let rest: Vec<(Reg, usize)> =
            axis_bits.iter().copied().filter(|&(id, b)| !(id == e.lane && shuffled.contains(&b))).collect();
        // The groups' results leave the arms through function variables.
        let vars: Vec<Vec<u32>> =
            groups.iter().map(|(_, regs)| regs.iter().map(|r| e.s.var(r.class)).collect()).collect();
        let keep = |e: &mut Emitter, done: &[Group<Reg>]| {
            for ((_, regs), vars) in done.iter().zip(&vars) {
                for (r, &var) in regs.iter().zip(vars) {
                    e.s.store(var, r.id);
                }
            }
        };
        let flag = e.s.load(Class::Bool, ok);
        let (memory_label, merge) = e.s.begin_if_else(flag);
        let mut done = groups.to_vec();
        for &b in &shuffled {
            for group in done.iter_mut() {
                let other: Vec<Reg> = group.1.iter().map(|&r| shuffle_xor(e, r, 1 << b)).collect();
                let acc = group.1.clone();
                group.1 = combine(e, op.region, &acc, &other)?;
            }
        }
        through_memory(e, op, &mut done, &rest)?;
        keep(e, &done);
        e.s.else_part(memory_label, merge);
        let mut done = groups.to_vec();
        through_memory(e, op, &mut done, &axis_bits)?;
        keep(e, &done);
        e.s.end_if(merge);
        for (group, vars) in groups.iter_mut().zip(&vars) {
            group.1 = group.1.iter().zip(vars).map(|(r, &var)| e.s.load(r.class, var)).collect();
        }
        Ok(())
    }

    fn scan(e: &mut Self, scan: &Scan<Reg, Class>) -> EResult<Vec<Vec<Reg>>> {
        scan.write_slots(e)?;
        let Lines { start: nonaxis, base, pos } = e.lines_along(&scan.layout, scan.axis);
        let (classes, numel, stride) = (&scan.classes, scan.numel(), scan.stride());
        let mut outs: Vec<Vec<Reg>> = vec![Vec::new(); classes.len()];
        for (i, c) in scan.layout.reg_coords.iter().enumerate() {
            // Word index of element k along the axis: (base + const + k*stride) * 2.
            let row = e.add_imm(base, nonaxis.eval(c));
            let two = e.u32c(2);
            let row = e.s.op(Op::IMul, Class::U32, &[row, two]);
            let first = scan.first();
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
            let go = e.s.op(
                if scan.reverse { Op::SGreaterThan } else { Op::SLessThan },
                Class::Bool,
                &[kv, pos[i]],
            );
            e.s.loop_test(&labels, go);
            let kn = e.add_imm(kv, if scan.reverse { -1 } else { 1 });
            e.s.store(k_var, kn.id);
            let sc = e.u32c((stride * 2) as u32);
            let addr = e.s.op(Op::IMul, Class::U32, &[kn, sc]);
            let addr = e.s.op(Op::IAdd, Class::U32, &[addr, row]);
            let x: Vec<Reg> = classes
                .iter()
                .enumerate()
                .map(|(k, &cl)| e.ld_shared(cl, addr, k as i64 * numel * 2))
                .collect();
            let acc: Vec<Reg> = classes.iter().zip(&acc_vars).map(|(&cl, &v)| e.s.load(cl, v)).collect();
            let next = if scan.reverse {
                combine(e, scan.region, &x, &acc)?
            } else {
                combine(e, scan.region, &acc, &x)?
            };
            for (&var, v) in acc_vars.iter().zip(next) {
                e.s.store(var, v.id);
            }
            e.s.end_loop(&labels, |_| {});
            for ((out, &class), &var) in outs.iter_mut().zip(classes).zip(&acc_vars) {
                out.push(e.s.load(class, var));
            }
        }
        Ok(outs)
    }
}

/// The value `r` of the invocation whose subgroup id is this one's XOR `mask`
/// (`OpGroupNonUniformShuffleXor` on 32-bit values: bools travel as 0/1, 64-bit values as two
/// words, since 64-bit shuffles need a device feature).
fn shuffle_xor(e: &mut Emitter, r: Reg, mask: u32) -> Reg {
    let scope = e.s.const_u32(Scope::Subgroup as u32);
    let mask = e.s.const_u32(mask);
    let word = |e: &mut Emitter, v: Reg| {
        let ty = e.s.ty(v.class);
        Reg { id: e.s.inst(Op::GroupNonUniformShuffleXor, ty, &[scope, v.id, mask]), class: v.class }
    };
    match r.class {
        Class::U32 | Class::F32 => word(e, r),
        Class::Ptr(_) => {
            let v = word(e, Reg { id: r.id, class: Class::U32 });
            Reg { id: v.id, class: r.class }
        }
        Class::Bool => {
            let bits = e.word_bits(r);
            let v = word(e, bits);
            let zero = e.u32c(0);
            e.s.op(Op::INotEqual, Class::Bool, &[v, zero])
        }
        Class::U64 | Class::F64 => {
            let (lo, hi) = e.split64(r);
            let (lo, hi) = (word(e, lo), word(e, hi));
            e.join64(r.class, lo, hi)
        }
        Class::Matrix | Class::WorkgroupMatrix(_) => {
            unreachable!("reductions read elements, not cooperative matrices")
        }
    }
}

/// Combines each group's partials across the threads that `axis_bits` (lane or warp id, bit)
/// tell apart, through workgroup memory (see the module docs): every thread ends with the whole
/// combination of its group. Threads that differ in other bits only (already combined by
/// shuffles, or copies) publish equal partials to the same slot.
fn through_memory(
    e: &mut Emitter,
    op: &ReduceOp,
    groups: &mut [Group<Reg>],
    axis_bits: &[(Reg, usize)],
) -> EResult<()> {
    if axis_bits.is_empty() {
        return Ok(());
    }
    let sl = &op.layout;
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
    let (nonaxis, groups_total) = op.group_slots();
    let slots = groups_total * w;
    let words = groups[0].1.iter().map(|r| r.class.words()).max().unwrap_or(1) as i64;
    e.need_shared_words((slots * words * groups[0].1.len() as i64) as u64)?;
    let base = e.affine_base(sl, &nonaxis);
    // row = (base * w + wi) * words, col0 = base * w * words
    let (wc, width, w_words) = (e.u32c(w as u32), e.u32c(words as u32), e.u32c((words * w) as u32));
    let t = e.s.op(Op::IMul, Class::U32, &[base, wc]);
    let t = e.s.op(Op::IAdd, Class::U32, &[t, wi]);
    let row = e.s.op(Op::IMul, Class::U32, &[t, width]);
    let col0 = e.s.op(Op::IMul, Class::U32, &[base, w_words]);
    let partials = Partials { nonaxis, w, words, slots };
    e.barrier();
    partials.publish(e, row, groups);
    e.barrier();
    if w <= UNROLLED_PARTIALS {
        for group in groups.iter_mut() {
            let mut acc = partials.read(e, col0, group, 0);
            for j in 1..w {
                let other = partials.read(e, col0, group, j);
                acc = combine(e, op.region, &acc, &other)?;
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
                group.1 = combine(e, op.region, &acc, &other)?;
            }
            e.barrier();
            partials.publish(e, row, groups);
            e.barrier();
            stride /= 2;
        }
        // Thread 0 of each group now holds the whole reduction: everyone reads it.
        for group in groups.iter_mut() {
            group.1 = partials.read(e, col0, group, 0);
        }
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
