//! Hopper warpgroup MMAs: `ttng.warp_group_dot` as `wgmma.mma_async` with B in shared memory
//! and A in shared memory or in registers, `ttng.warp_group_dot_wait` as `wgmma.wait_group`, and
//! `ttng.fence_async_shared` as `fence.proxy.async.shared::cta`.
//!
//! Each warpgroup (warps `4g .. 4g + 3`) computes rows `64 g + 16 wm mi ..` of the result with
//! one `wgmma.mma_async.m64nNk16` per M repetition `mi`, N repetition `ni` and K step, where `N`
//! is the MMA v3 layout's instruction N; the accumulators are the layout's registers, in the
//! order [`trident_midend::layout::Mma`] documents (register `i` of an instruction is the
//! instruction's `d[i]`).
//!
//! The operands are `#ttg.nvmma_shared` tiles, read through 64-bit matrix descriptors (PTX ISA,
//! "Matrix Descriptor Format"): bits 0-13 the start address >> 4, 16-29 the leading-dimension
//! byte offset >> 4, 32-45 the stride-dimension byte offset >> 4, 62-63 the swizzle (1: 128 B,
//! 2: 64 B, 3: 32 B). With a swizzle of `S` bytes and a tile stored `[rows][cols]`:
//!
//! - *K-major* (A stored `[M][K]`; B stored `[N][K]`, a `column_major` ring): the stride offset
//!   is `8 S` (from one 8-row group to the next), the leading offset is unused; K step `k0`
//!   starts at column block `k0 / (S / e)` and byte `(k0 % (S / e)) e` inside the swizzle row
//!   (the hardware swizzles absolute addresses, so an offset inside the atom is legal).
//! - *MN-major* (B stored `[K][N]`, `imm-trans-b = 1`; 16-bit types only): the leading offset is
//!   the distance between column blocks (`K S`), the stride offset `8 S` between 8-row groups of
//!   K; K step `k0` starts at row `k0`.
//!
//! A 16-bit A operand whose layout holds the instruction's A fragments (the layout
//! accelerate-matmul gives chained dots, [`Mma::v3_register_operand`]: attention's `Q` and `P`)
//! is read from registers, packed two elements per 32-bit register: `wgmma ... {a0, a1, a2,
//! a3}, b-desc`, with no shared-memory trip. Triton keeps attention's loop-invariant `Q` in shared
//! memory instead (written once before the loop); tried here on an H100 (same command), it freed
//! 32 to 44 registers a thread but ran slower where the scores are 64 wide: flash attention d128
//! (8 warps) 472 → 432 TFLOP/s, desc d128 434 → 397, causal d64 269 → 264 (d64 full 369 → 371).
//!
//! Other operands that are not read in place from a ring (`ttg.local_load`) are staged into scratch
//! shared memory first, A K-major and B MN-major (K-major for 8-bit types, which `wgmma` cannot
//! transpose), each thread writing its registers at the swizzled offsets, then fenced for the
//! async proxy.
//!
//! 8-bit float operands (e4m3, e5m2) take `m64nNk32` instructions: a K step is 32 bytes of an
//! operand row for every type, so the descriptors and start offsets are those of 16-bit tiles.
//!
//! An `is_async` dot accumulates in its accumulator's registers (the loop's carried registers,
//! which the midend made sure nothing else reads meanwhile) and returns without waiting; a
//! synchronous one works on a copy and waits for itself. A synchronous dot whose accumulator is a
//! constant zero (attention's scores) copies nothing: the first K step of each instruction tile
//! runs with `scale-d` false, which ignores the accumulator registers.
//!
//! A dot with a predicate (its fourth operand: the scores of a rotated attention loop's next
//! iteration, `pipeline-dot-loads`) branches around its MMAs and their commit when it is false,
//! so that no group is committed.
//!
//! A `pingpong` dot (`pingpong-warpgroups`: attention's `QK^T` in a program of two warpgroups)
//! waits for its warpgroup's turn on a named barrier before the `wgmma.fence` and passes the
//! turn to the other warpgroup right after its `commit_group`.

use trident_midend::ir::{DType, Op, Opcode};
use trident_midend::layout::{Encoding, Mma, MmaVersion, NvmmaShared};
use trident_midend::passes::pingpong_warpgroups::PINGPONG;

use trident_midend::layout::registers::register_map;

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};
use crate::shared_rings::SharedTile;

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    match data.opcode {
        Opcode::FenceAsyncShared => {
            e.ins("fence.proxy.async.shared::cta");
            Ok(())
        }
        Opcode::WarpGroupDotWait => {
            let pendings = data.attrs.int("pendings").unwrap_or(0);
            e.ins(format!("wgmma.wait_group.sync.aligned {pendings}"));
            for (&operand, &result) in data.operands.iter().zip(&data.results) {
                let regs = e.get(operand)?;
                e.set(result, regs);
            }
            Ok(())
        }
        _ => warp_group_dot(e, op),
    }
}

/// Where an operand tile sits and how `wgmma` reads it.
struct Operand {
    /// The tile's byte address in shared memory.
    addr: Reg,
    layout: NvmmaShared,
    /// The stored shape `[rows, cols]`.
    stored: [u32; 2],
    /// Stored with K contiguous.
    k_major: bool,
}

impl Operand {
    fn of_ring(tile: SharedTile, is_b: bool) -> Option<Operand> {
        let (layout, stored) = tile.swizzle?;
        // A row-major tile has its second dim contiguous: K for A, N for B.
        let k_major = if is_b { tile.column_major } else { !tile.column_major };
        Some(Operand { addr: tile.addr, layout, stored, k_major })
    }

    /// The swizzle field of the descriptor.
    fn mode(&self) -> u64 {
        match self.layout.swizzle_bytes {
            128 => 1,
            64 => 2,
            _ => 3,
        }
    }

    /// The descriptor's constant bits: leading and stride offsets and the swizzle.
    fn descriptor_high(&self) -> u64 {
        let s = self.layout.swizzle_bytes as u64;
        let leading = if self.k_major { 16 } else { self.stored[0] as u64 * s };
        let stride = 8 * s;
        ((leading >> 4) << 16) | ((stride >> 4) << 32) | (self.mode() << 62)
    }

    /// The byte offset, from the tile's start, of the instruction operand at row (M or N)
    /// `mn0` and K step `k0`.
    fn start(&self, mn0: u32, k0: u32) -> EResult<u32> {
        let s = self.layout.swizzle_bytes;
        let block_cols = self.layout.block_cols();
        let e = self.layout.elem_bytes;
        if self.k_major {
            Ok((k0 / block_cols) * self.stored[0] * s + mn0 * s + (k0 % block_cols) * e)
        } else if mn0.is_multiple_of(block_cols) {
            Ok((mn0 / block_cols) * self.stored[0] * s + k0 * s)
        } else {
            Err(crate::Error::Invalid(format!(
                "a wgmma operand starting at column {mn0} of a {}-column swizzle block",
                block_cols
            )))
        }
    }
}

fn warp_group_dot(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let (a_v, b_v, c_v) = (data.operands[0], data.operands[1], data.operands[2]);
    let result = data.results[0];
    let Some(Encoding::Mma(mma)) = e.ty(result).encoding().cloned() else {
        return e.invalid("a warpgroup dot without an MMA v3 result layout");
    };
    let ([wm, wn], MmaVersion::V3 { instr_n, instr_k }) = (mma.warps_per_cta, mma.version) else {
        return e.invalid("a warpgroup dot without an MMA v3 result layout");
    };
    let (a_type, b_type) = (e.ty(a_v).dtype(), e.ty(b_v).dtype());
    let (Some(a_name), Some(b_name)) = (wgmma_type(a_type), wgmma_type(b_type)) else {
        return e.unsupported(&format!("warpgroup dots on {a_type} x {b_type}"));
    };
    // 16-bit operands may be read MN-major (transposed); the others only K-major.
    let sixteen_bit = a_type.bits() == 16;
    if wn != 1 || instr_k * a_type.bits() != 256 || a_type.bits() != b_type.bits() {
        return e.invalid("warpgroup dots take every warp along M and K steps of 32 bytes");
    }
    let (m, k, n) = (e.ty(a_v).shape()[0], e.ty(a_v).shape()[1], e.ty(b_v).shape()[1]);
    let a_ring = e.in_shared.get(&a_v).copied().and_then(|t| Operand::of_ring(t, false));
    let b_ring = e.in_shared.get(&b_v).copied().and_then(|t| Operand::of_ring(t, true));
    // The registers this dot reads and accumulates in: prepared by an earlier dot, or here (A
    // now, the accumulator after any staging).
    let prepared = e.prepared_dots.remove(&op);
    let a_regs = match &prepared {
        Some(prepared) => prepared.a_regs.clone(),
        None => a_registers(e, a_v, &mma)?,
    };
    let staged = (a_ring.is_none() && a_regs.is_none()) || b_ring.is_none();
    if staged {
        // The scratch may still be read by slower warps.
        e.barrier();
    }
    let a = match (a_ring, &a_regs) {
        (Some(a), _) => Some(a),
        (None, Some(_)) => None,
        (None, None) => Some(stage(e, a_v, [m, k], Staging::A, 0)?),
    };
    let a_bytes = a.as_ref().map_or(0, |a| a.layout.tile_bytes([m, k]).next_multiple_of(1024));
    let b = match b_ring {
        Some(b) => b,
        None => {
            let staging = if sixteen_bit { Staging::BMnMajor } else { Staging::BKMajor };
            stage(e, b_v, [k, n], staging, a_bytes)?
        }
    };
    if staged {
        e.ins("fence.proxy.async.shared::cta");
        e.barrier();
    }
    if a.as_ref().is_some_and(|a| !a.k_major) || (!sixteen_bit && !b.k_major) {
        return e.invalid("a warpgroup dot's A tile (and an 8-bit B tile) must be stored K-major");
    }

    let is_async = data.attrs.bool("is_async") == Some(true);
    let zero_acc = is_zero_constant(e, c_v);
    let acc = match prepared {
        Some(prepared) => prepared.acc,
        None => accumulator(e, op)?,
    };

    // This warpgroup's first row: 64 (warp / 4), as a byte offset into A's rows.
    let a_desc = match &a {
        Some(a) => {
            let group_row = e.reg(Class::B32);
            e.ins(format!("shr.u32 {group_row}, {}, 2", e.warp));
            let a_base = e.reg(Class::B32);
            e.ins(format!("mad.lo.s32 {a_base}, {group_row}, {}, {}", 64 * a.layout.swizzle_bytes, a.addr));
            Some(descriptor(e, a_base, a))
        }
        None => None,
    };
    let b_desc = descriptor(e, b.addr, &b);
    let scale_d = e.reg(Class::Pred);
    e.ins(format!("setp.eq.u32 {scale_d}, 1, 1"));
    let first_scale_d = if zero_acc {
        let p = e.reg(Class::Pred);
        e.ins(format!("setp.ne.u32 {p}, 1, 1"));
        p
    } else {
        scale_d
    };
    // The transpose immediates exist for 16-bit types only; A in registers has none.
    let transposes = match (sixteen_bit, a.is_some()) {
        (false, _) => String::new(),
        (true, true) => format!(", 0, {}", u32::from(!b.k_major)),
        (true, false) => format!(", {}", u32::from(!b.k_major)),
    };

    let regs_per_instr = (instr_n / 2) as usize;
    let n_reps = n / instr_n;
    let m_reps = m / (16 * wm);
    // The asynchronous dots issued next, before any wait, get their registers ready now: no
    // instruction may write a wgmma's input or accumulator registers while another is in flight
    // (ptxas would serialize every wgmma of the kernel), and this one is about to be.
    if is_async {
        prepare_following(e, op)?;
    }
    // A predicated dot (the rotated loop's next scores) branches around everything it issues;
    // the predicate is the same in every thread.
    let skip = e.skip_unless(data.operands.get(3).copied(), "wgmma_skip")?;
    let takes_turns = data.attrs.bool(PINGPONG) == Some(true);
    if takes_turns {
        if wm != 8 {
            return e.invalid("a ping-pong warpgroup dot in a program of other than two warpgroups");
        }
        wait_for_turn(e);
    }
    e.ins("wgmma.fence.sync.aligned");
    for mi in 0..m_reps {
        for ni in 0..n_reps {
            let first = (ni + mi * n_reps) as usize * regs_per_instr;
            let d = acc[first..first + regs_per_instr].iter().map(|r| r.to_string()).collect::<Vec<_>>();
            let d = d.join(", ");
            for k0 in (0..k).step_by(instr_k as usize) {
                let a_operand = match (&a, a_desc, &a_regs) {
                    (Some(a), Some(a_desc), _) => {
                        let da = e.reg(Class::B64);
                        e.ins(format!("add.s64 {da}, {a_desc}, {}", a.start(16 * wm * mi, k0)? >> 4));
                        da.to_string()
                    }
                    (_, _, Some(regs)) => {
                        // Four packed registers per K step and row block (`register_operand`).
                        let at = ((mi * k + k0) / instr_k * 4) as usize;
                        let words: Vec<String> = regs[at..at + 4].iter().map(|r| r.to_string()).collect();
                        format!("{{{}}}", words.join(", "))
                    }
                    _ => {
                        return e.invalid(
                            "a warpgroup dot's A operand is neither in shared memory nor in registers",
                        )
                    }
                };
                let db = e.reg(Class::B64);
                e.ins(format!("add.s64 {db}, {b_desc}, {}", b.start(instr_n * ni, k0)? >> 4));
                let scale = if k0 == 0 { first_scale_d } else { scale_d };
                e.ins(format!(
                    "wgmma.mma_async.sync.aligned.m64n{instr_n}k{instr_k}.f32.{a_name}.{b_name} {{{d}}}, {a_operand}, {db}, {scale}, 1, 1{transposes}"
                ));
            }
        }
    }
    e.ins("wgmma.commit_group.sync.aligned");
    if takes_turns {
        pass_turn(e);
    }
    e.end_skip(skip);
    if !is_async {
        e.ins("wgmma.wait_group.sync.aligned 0");
    }
    e.set(result, acc);
    Ok(())
}

/// The named barriers of the ping-pong hand-over (`pingpong-warpgroups`): warpgroup `g` waits
/// on `TURN_BARRIERS[g]` for its turn and arrives on the other's to pass it. Barrier 0 is the
/// block's (or the consumers') and 1 and 2 belong to warp specialization.
const TURN_BARRIERS: [u32; 2] = [14, 15];

/// Threads of the hand-over barriers: the waiting warpgroup and the arriving one.
const TURN_THREADS: u32 = 256;

/// Waits for this warpgroup's turn on the tensor cores. The first ping-pong dot of the kernel
/// also has warpgroup 1 give warpgroup 0 the first turn at the program's start.
fn wait_for_turn(e: &mut Emitter) {
    if !e.takes_turns {
        e.takes_turns = true;
        let group = e.ptx.reg(Class::B32);
        let second = e.ptx.reg(Class::Pred);
        e.ptx.prologue_ins(format!("shr.u32 {group}, {}, 7", e.tid));
        e.ptx.prologue_ins(format!("setp.eq.u32 {second}, {group}, 1"));
        e.ptx.prologue_ins(format!("@{second} bar.arrive {}, {TURN_THREADS}", TURN_BARRIERS[0]));
    }
    let second = second_warpgroup(e);
    e.ins(format!("@!{second} bar.sync {}, {TURN_THREADS}", TURN_BARRIERS[0]));
    e.ins(format!("@{second} bar.sync {}, {TURN_THREADS}", TURN_BARRIERS[1]));
}

/// Gives the turn to the other warpgroup, once this one's dot is issued.
fn pass_turn(e: &mut Emitter) {
    let second = second_warpgroup(e);
    e.ins(format!("@!{second} bar.arrive {}, {TURN_THREADS}", TURN_BARRIERS[1]));
    e.ins(format!("@{second} bar.arrive {}, {TURN_THREADS}", TURN_BARRIERS[0]));
}

/// At the kernel's end: warpgroup 0 takes the turn warpgroup 1 passed last, so that no
/// hand-over is left half done when the program exits.
pub fn end_turns(e: &mut Emitter) {
    if e.takes_turns {
        let second = second_warpgroup(e);
        e.ins(format!("@!{second} bar.sync {}, {TURN_THREADS}", TURN_BARRIERS[0]));
    }
}

/// Whether this thread is in warpgroup 1 (its warp index is uniform: ptxas keeps it so).
fn second_warpgroup(e: &mut Emitter) -> Reg {
    let p = e.reg(Class::Pred);
    e.ins(format!("setp.ge.u32 {p}, {}, 4", e.warp));
    p
}

/// The registers a warpgroup dot reads its A operand from (`None`: A is in shared memory) and
/// accumulates in.
pub struct Prepared {
    a_regs: Option<Vec<Reg>>,
    acc: Vec<Reg>,
}

/// Packs dot `op`'s A operand into registers where `wgmma` reads it from there, and picks its
/// accumulator registers: in place for an asynchronous dot (the loop's carried registers when it
/// stays in flight across the back edge), else a private copy. A zero accumulator (a constant,
/// as attention's `QK^T` has) is not copied: the first K step of each instruction tile ignores
/// it (`scale-d` false).
fn prepare(e: &mut Emitter, op: Op) -> EResult<Prepared> {
    let data = e.func.body.op(op).clone();
    let (a_v, result) = (data.operands[0], data.results[0]);
    let Some(Encoding::Mma(mma)) = e.ty(result).encoding().cloned() else {
        return e.invalid("a warpgroup dot without an MMA v3 result layout");
    };
    let a_regs = a_registers(e, a_v, &mma)?;
    let acc = accumulator(e, op)?;
    Ok(Prepared { a_regs, acc })
}

/// A's registers as `wgmma` reads them ([`register_operand`]), or `None` when A is read in
/// place from a ring or staged.
fn a_registers(e: &mut Emitter, a_v: trident_midend::ir::Value, mma: &Mma) -> EResult<Option<Vec<Reg>>> {
    let in_ring = e.in_shared.get(&a_v).copied().and_then(|t| Operand::of_ring(t, false)).is_some();
    if in_ring {
        return Ok(None);
    }
    register_operand(e, a_v, mma)
}

/// The accumulator registers of dot `op` (see [`prepare`]), copied where it needs a copy.
fn accumulator(e: &mut Emitter, op: Op) -> EResult<Vec<Reg>> {
    let data = e.func.body.op(op).clone();
    let (c_v, result) = (data.operands[2], data.results[0]);
    let is_async = data.attrs.bool("is_async") == Some(true);
    let zero_acc = is_zero_constant(e, c_v);
    let carried = if is_async { carried_registers(e, result)? } else { None };
    let acc: Vec<Reg> = match (carried, zero_acc) {
        // In flight across the back edge: accumulate in the loop's own registers.
        (Some(carried), true) => carried,
        (Some(carried), false) => {
            let c_regs = e.get(c_v)?;
            for (&to, &from) in carried.iter().zip(&c_regs) {
                if to != from {
                    e.ins(format!("mov.f32 {to}, {from}"));
                }
            }
            carried
        }
        (None, true) => {
            let count = e.layout(c_v)?.num_regs();
            let fresh: Vec<Reg> = (0..count).map(|_| e.reg(Class::F32)).collect();
            if starts_a_loop(e, result) {
                // The loop takes these registers over for what it carries: zeroed here, they are
                // not live into the dot from an enclosing loop's back edge (a persistent kernel's
                // walk), where ptxas would keep them through the code between (attention's
                // epilogue) and, short of registers, serialize every wgmma of the kernel (C7512).
                for &r in &fresh {
                    e.ins(format!("mov.f32 {r}, 0f00000000"));
                }
            }
            fresh
        }
        (None, false) if is_async => e.get(c_v)?,
        (None, false) => {
            let c_regs = e.get(c_v)?;
            c_regs
                .iter()
                .map(|&c| {
                    let r = e.reg(Class::F32);
                    e.ins(format!("mov.f32 {r}, {c}"));
                    r
                })
                .collect()
        }
    };
    Ok(acc)
}

/// Whether dot `result`, once waited for, is the initial value of a loop's carried value (the
/// first scores of a rotated attention loop, issued before it).
fn starts_a_loop(e: &Emitter, result: trident_midend::ir::Value) -> bool {
    let body = &e.func.body;
    let Some(block) = body.def_op(result).and_then(|d| body.op(d).parent) else { return false };
    let ops = &body.blocks[block].ops;
    let waited: Vec<trident_midend::ir::Value> = ops
        .iter()
        .filter(|&&op| body.opcode(op) == Opcode::WarpGroupDotWait && body.op(op).operands.contains(&result))
        .flat_map(|&op| body.op(op).results.clone())
        .collect();
    ops.iter().any(|&op| {
        body.opcode(op) == Opcode::For
            && body.op(op).operands[3..].iter().any(|v| *v == result || waited.contains(v))
    })
}

/// Prepares ([`prepare`]) the asynchronous warpgroup dots that follow `op` in its block before
/// any wait, whose operands are computed already (a rotated attention loop issues the next
/// scores, then `P V`: `P`'s packing and the accumulator's copy come before the scores' MMAs).
fn prepare_following(e: &mut Emitter, op: Op) -> EResult<()> {
    let body = &e.func.body;
    let Some(block) = body.op(op).parent else { return Ok(()) };
    let ops = &body.blocks[block].ops;
    let at = body.position(block, op);
    let mut following = Vec::new();
    for &later in &ops[at + 1..] {
        match body.opcode(later) {
            Opcode::WarpGroupDotWait => break,
            Opcode::WarpGroupDot if body.op(later).attrs.bool("is_async") == Some(true) => {
                following.push(later);
            }
            _ => {}
        }
    }
    for later in following {
        let data = e.func.body.op(later);
        let (a_v, c_v) = (data.operands[0], data.operands[2]);
        let a_ready = e.in_shared.contains_key(&a_v) || e.vals.contains_key(&a_v) || rounded_ready(e, a_v);
        if a_ready
            && (e.vals.contains_key(&c_v) || is_zero_constant(e, c_v))
            && !e.prepared_dots.contains_key(&later)
        {
            let prepared = prepare(e, later)?;
            e.prepared_dots.insert(later, prepared);
        }
    }
    Ok(())
}

/// Whether `a_v` is a rounding from f32 whose source registers exist: the packing reads those.
fn rounded_ready(e: &Emitter, a_v: trident_midend::ir::Value) -> bool {
    rounded_from(e, a_v).is_some_and(|src| e.vals.contains_key(&src))
}

/// The f32 value that `a_v` rounds (`arith.truncf`), if that is how it is made.
fn rounded_from(e: &Emitter, a_v: trident_midend::ir::Value) -> Option<trident_midend::ir::Value> {
    let body = &e.func.body;
    body.def_op(a_v)
        .filter(|&d| body.opcode(d) == Opcode::TruncF)
        .map(|d| body.op(d).operands[0])
        .filter(|&src| e.ty(src).dtype() == DType::F32)
}

/// The A operand of a warpgroup dot as `wgmma` reads it from registers, when its layout holds
/// each thread's fragment ([`Mma::v3_register_operand`]; accelerate-matmul gives chained dots
/// that layout): per row block `mi` and K step, four 32-bit registers each packing two 16-bit
/// elements in fragment order, at `4 (mi K + k0) / 16`. `None` when A sits elsewhere (it is
/// then staged to shared memory).
fn register_operand(e: &mut Emitter, a_v: trident_midend::ir::Value, mma: &Mma) -> EResult<Option<Vec<Reg>>> {
    let ty = e.ty(a_v).clone();
    let [m, k] = ty.shape()[..] else { return Ok(None) };
    let Some(fragment) = mma.v3_register_operand(k).filter(|_| ty.dtype().bits() == 16) else {
        return Ok(None);
    };
    let want = e.layout_of_type(&ty.with_encoding(Some(Encoding::Mma(fragment))))?;
    let have = e.layout(a_v)?;
    let Some(index) = register_map(&want, &have, &|c| c.to_vec()) else { return Ok(None) };
    // A rounded from f32 (attention's `P`) is rounded and packed in one instruction per pair
    // from the f32 registers (the 16-bit ones are then dead).
    let rounded = rounded_from(e, a_v);
    let (regs, pack) = match (rounded, ty.dtype()) {
        (Some(src), DType::F16) => (e.get(src)?, Some("cvt.rn.f16x2.f32")),
        (Some(src), DType::BF16) => (e.get(src)?, Some("cvt.rn.bf16x2.f32")),
        _ => (e.get(a_v)?, None),
    };
    let ordered: Vec<Reg> = index.iter().map(|&i| regs[i]).collect();
    debug_assert_eq!(ordered.len() as u32, m * k / (32 * mma.warps_per_cta[0]));
    let packed = ordered
        .chunks(2)
        .map(|pair| {
            let word = e.reg(Class::B32);
            match pack {
                // The first operand goes to the upper half.
                Some(cvt) => e.ins(format!("{cvt} {word}, {}, {}", pair[1], pair[0])),
                None => e.ins(format!("mov.b32 {word}, {{{}, {}}}", pair[0], pair[1])),
            }
            word
        })
        .collect();
    Ok(Some(packed))
}

/// For an asynchronous dot whose result only an `scf.for` yield uses: the registers the loop
/// carries it in. The dot accumulates there, so that the back edge copies nothing while it is in
/// flight (pipeline-dot-loads made sure that the carried value is dead by then: attention's
/// accumulator is read, rescaled, only before the second dot).
fn carried_registers(e: &Emitter, result: trident_midend::ir::Value) -> EResult<Option<Vec<Reg>>> {
    let body = &e.func.body;
    let Some(block) = body.def_op(result).and_then(|d| body.op(d).parent) else { return Ok(None) };
    let Some(&term) = body.blocks[block].ops.last() else { return Ok(None) };
    let in_loop = body.blocks[block].parent_op.is_some_and(|lp| body.opcode(lp) == Opcode::For);
    let users_of = |v: trident_midend::ir::Value| -> Vec<Op> {
        body.walk(block)
            .into_iter()
            .flat_map(|op| body.op(op).operands.iter().filter(|&&x| x == v).map(move |_| op))
            .collect()
    };
    // Yielded directly, or through a wait that leaves it in flight no longer (a rotated
    // attention loop's scores).
    let mut yielded = result;
    if let [wait] = users_of(result)[..] {
        if body.opcode(wait) == Opcode::WarpGroupDotWait && body.op(wait).operands == [result] {
            yielded = body.op(wait).results[0];
        }
    }
    if !in_loop || body.opcode(term) != Opcode::Yield || users_of(yielded) != [term] {
        return Ok(None);
    }
    let k = body.op(term).operands.iter().position(|&v| v == yielded).expect("the yield uses it");
    let arg = body.blocks[block].args[k + 1];
    // The carried value, and waits passing its registers on, must be read before the dot only
    // (one walk in program order: a wait comes before the uses of its results).
    let dot_at = body.position(block, body.def_op(result).expect("a dot defines its result"));
    let mut sharing = vec![arg];
    for op in body.walk(block) {
        let data = body.op(op);
        for (i, v) in data.operands.iter().enumerate() {
            if !sharing.contains(v) {
                continue;
            }
            let top = body.ancestor_in(block, op).expect("the walk stays in the block");
            if body.position(block, top) > dot_at {
                return e
                    .invalid("an asynchronous dot would accumulate in loop registers still read after it");
            }
            if data.opcode == Opcode::WarpGroupDotWait {
                sharing.push(data.results[i]);
            }
        }
    }
    e.get(arg).map(Some)
}

/// Whether `v` is a constant zero (a dot's accumulator made by `tl.zeros` or absent).
fn is_zero_constant(e: &Emitter, v: trident_midend::ir::Value) -> bool {
    let body = &e.func.body;
    body.def_op(v).is_some_and(|def| {
        body.opcode(def) == Opcode::Constant
            && body.op(def).attrs.get("value").is_some_and(|x| x.as_float() == Some(0.0))
    })
}

/// The PTX name of a `wgmma` operand type.
fn wgmma_type(ty: DType) -> Option<&'static str> {
    match ty {
        DType::F16 => Some("f16"),
        DType::BF16 => Some("bf16"),
        DType::F8E4M3 => Some("e4m3"),
        DType::F8E5M2 => Some("e5m2"),
        _ => None,
    }
}

/// The descriptor of the tile at `addr`: its start address field plus the constant bits; an
/// instruction adds its start offset >> 4 (addresses stay under 256 KiB, so the 14-bit field
/// never carries).
fn descriptor(e: &mut Emitter, addr: Reg, operand: &Operand) -> Reg {
    let (wide, desc) = (e.reg(Class::B64), e.reg(Class::B64));
    e.ins(format!("cvt.u64.u32 {wide}, {addr}"));
    e.ins(format!("shr.u64 {wide}, {wide}, 4"));
    e.ins(format!("and.b64 {wide}, {wide}, 16383"));
    e.ins(format!("or.b64 {desc}, {wide}, {}", operand.descriptor_high()));
    desc
}

/// How a staged operand is stored.
#[derive(Clone, Copy, PartialEq)]
enum Staging {
    /// A `[M][K]`, K-major.
    A,
    /// B `[K][N]`, MN-major (16-bit types).
    BMnMajor,
    /// B transposed to `[N][K]`, K-major (8-bit types).
    BKMajor,
}

/// Writes an operand of `shape` held in registers to scratch shared memory at byte `offset`
/// (past the live rings, 1024-aligned) as a swizzled tile stored as `staging` says. The caller
/// synchronizes before and fences after.
fn stage(
    e: &mut Emitter,
    v: trident_midend::ir::Value,
    shape: [u32; 2],
    staging: Staging,
    offset: u32,
) -> EResult<Operand> {
    let elem_bytes = e.ty(v).dtype().bits() / 8;
    let transpose = staging == Staging::BKMajor;
    let stored = if transpose { [shape[1], shape[0]] } else { shape };
    let Some(layout) = NvmmaShared::for_row(stored[1], elem_bytes) else {
        return e.invalid("a warpgroup dot operand with rows under 32 bytes");
    };
    let regs = e.get(v)?;
    let l = e.layout(v)?;
    let gap = e.ring_top.next_multiple_of(1024) - e.ring_top;
    e.need_shared((gap + offset + layout.tile_bytes(stored)) as u64)?;
    let scratch = e.smem_base();
    let addr = e.reg(Class::B32);
    e.ins(format!("add.s32 {addr}, {scratch}, {}", gap + offset));
    let place = move |c: &[u32]| {
        let (row, col) = if transpose { (c[1], c[0]) } else { (c[0], c[1]) };
        layout.byte_offset(stored, row, col)
    };
    let thread = e.xor_linear_base(&l, &place);
    let unique = l.unique_registers();
    for (i, &r) in regs.iter().enumerate() {
        if !unique[i] {
            continue;
        }
        let (at, imm) = e.xor_address(addr, thread, place(&l.reg_coords[i]));
        if elem_bytes == 1 {
            // An 8-bit element sits in the low half of a 16-bit register.
            e.ins(format!("st.shared.b8 [{at}+{imm}], {r}"));
        } else {
            e.st_shared(at, imm as i64, r);
        }
    }
    Ok(Operand { addr, layout, stored, k_major: staging != Staging::BMnMajor })
}

#[cfg(test)]
mod tests {
    //! Replays, on the CPU, the addresses `wgmma` reads through trident's descriptors (the
    //! canonical layouts of the PTX ISA / CUTLASS `make_gmma_desc`, swizzle applied to the
    //! absolute address of a 1024-aligned tile) and checks that each is where the ring or the
    //! staging put the element ([`NvmmaShared::byte_offset`]). The layouts were verified on an
    //! H100 (every corpus case); this pins them.

    use super::Operand;
    use crate::ptx::{Class, Reg};
    use trident_midend::layout::NvmmaShared;

    fn operand(stored: [u32; 2], k_major: bool, elem_bytes: u32) -> Operand {
        let layout = NvmmaShared::for_row(stored[1], elem_bytes).unwrap();
        Operand { addr: Reg { class: Class::B32, id: 0 }, layout, stored, k_major }
    }

    /// The byte the hardware reads for (mn, k) of an instruction whose start is `start`.
    fn hardware_address(op: &Operand, start: u32, mn: u32, k: u32) -> u32 {
        let high = op.descriptor_high();
        let leading = ((high >> 16) & 0x3fff) as u32 * 16;
        let stride = ((high >> 32) & 0x3fff) as u32 * 16;
        let (s, e) = (op.layout.swizzle_bytes, op.layout.elem_bytes);
        let plain = if op.k_major {
            start + (mn / 8) * stride + (mn % 8) * s + k * e
        } else {
            let block_cols = op.layout.block_cols();
            start + (mn / block_cols) * leading + (mn % block_cols) * e + (k / 8) * stride + (k % 8) * s
        };
        plain ^ (((plain >> 7) & (s / 16 - 1)) << 4)
    }

    #[test]
    fn descriptors_address_the_swizzled_tiles() {
        // A [M][K] K-major; B [N][K] K-major; B [K][N] MN-major: the perf and corpus shapes,
        // 16-bit (K steps of 16) and 8-bit (K steps of 32, K-major only).
        let k_major_cases = [
            (128u32, 64u32, 64u32, 2u32),
            (64, 32, 64, 2),
            (128, 16, 64, 2),
            (256, 64, 256, 2),
            (64, 128, 64, 2),
            (128, 128, 64, 1),
            (256, 128, 256, 1),
            (64, 64, 64, 1),
            (32, 32, 32, 1),
        ];
        for (rows, k, instr_mn, elem_bytes) in k_major_cases {
            let a = operand([rows, k], true, elem_bytes);
            let instr_k = 32 / elem_bytes;
            for r0 in (0..rows).step_by(instr_mn as usize) {
                for k0 in (0..k).step_by(instr_k as usize) {
                    let start = a.start(r0, k0).unwrap();
                    for i in 0..instr_mn.min(rows) {
                        for kk in 0..instr_k {
                            let want = a.layout.byte_offset([rows, k], r0 + i, k0 + kk);
                            assert_eq!(hardware_address(&a, start, i, kk), want, "K-major {rows}x{k}");
                        }
                    }
                }
            }
        }
        for (k, n, instr_n) in
            [(64u32, 256u32, 256u32), (32, 64, 64), (16, 16, 16), (64, 512, 256), (32, 32, 32)]
        {
            let b = operand([k, n], false, 2);
            for n0 in (0..n).step_by(instr_n as usize) {
                for k0 in (0..k).step_by(16) {
                    let start = b.start(n0, k0).unwrap();
                    for j in 0..instr_n {
                        for kk in 0..16 {
                            let want = b.layout.byte_offset([k, n], k0 + kk, n0 + j);
                            assert_eq!(hardware_address(&b, start, j, kk), want, "MN-major {k}x{n}");
                        }
                    }
                }
            }
        }
    }

    /// Reading an MN-major tile as if it were K-major lands elsewhere.
    #[test]
    fn a_wrong_descriptor_reads_elsewhere() {
        let b = operand([64, 256], false, 2);
        let start = b.start(0, 16).unwrap();
        let want = b.layout.byte_offset([64, 256], 16 + 9, 70);
        let mut wrong = operand([64, 256], true, 2);
        wrong.layout = b.layout;
        assert_ne!(hardware_address(&wrong, start, 70, 9), want);
        assert_eq!(hardware_address(&b, start, 70, 9), want);
    }
}
