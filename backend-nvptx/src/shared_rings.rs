//! Shared-memory rings for software-pipelined dot operands: `ttg.local_alloc`,
//! `ttg.local_dealloc`, `ttg.async_copy_global_to_local`, `ttg.async_commit_group`,
//! `ttg.async_wait` and `ttg.local_load` (made by the midend's pipeline-dot-loads).
//!
//! A ring holds `slots` tiles of a 2-D operand, each stored as the tensor-core dot stages its
//! operands ([`crate::dot`]): row-major with rows padded by 16 bytes, so that `ldmatrix` rows
//! and the 16-byte copies both stay aligned and conflict-free. A `column_major` ring (a B tile
//! whose copies run along K, such as attention's `K^T`) stores each tile transposed, columns
//! padded by 16 bytes, and the dot reads it with plain `ldmatrix`. Rings sit at the bottom of shared
//! memory, stacked in allocation order; while they live, scratch shared memory starts above them
//! ([`Emitter::smem_base`]), and the kernel's shared size covers both.
//!
//! Allocating a ring starts with a barrier: its memory may be scratch that slower warps are
//! still reading (the previous tile of a persistent kernel).
//!
//! A `transposed` copy (a tile the kernel transposes before its dot: the ring holds the
//! transpose) places element (r, c) where the ring keeps (c, r).
//!
//! An asynchronous copy moves each thread's vector of the pointer layout (the widest access the
//! pointers and mask allow, [`crate::memory::access_width`]) with one `cp.async` into the slot
//! at the element's padded offset. A masked-off vector reads no global memory and writes zeros
//! (`src-size` 0), which is the load's `other`. 16-byte copies bypass L1 (`.cg`, as Triton emits them); narrower
//! ones can only go through it (`.ca`).
//!
//! The global side of the copies: where the pointer tensor is a scalar base plus affine offsets
//! ([`trident_midend::analysis::affine_pointers`], `base + rows[:, None] * stride + cols[None, :]`),
//! each thread computes one address per `tt.addptr` level (the uniform part and its share of the
//! linear part; the latter in the prologue) and every copy reads at that address plus its
//! register's share as an immediate, instead of a 64-bit address per register. Other pointer
//! tensors are read register by register.
//!
//! Vectors of one or two bytes (addresses not provably 4-byte aligned) are loaded and stored
//! synchronously instead: `cp.async` has no such form.
//!
//! A ring with `swizzle_bytes` holds `#ttg.nvmma_shared` tiles for warpgroup dots (`wgmma`
//! reads them through matrix descriptors, [`crate::warp_group_dot`]): no padding, slots and the
//! ring aligned to 1024 bytes (the largest swizzle atom), and every copy lands at the swizzled
//! offset, the thread's part XORed with the register's ([`Emitter::xor_linear_base`]).
//!
//! A `tma` ring is filled by the TMA unit (`ttng.async_tma_copy_global_to_local`): it also holds
//! one mbarrier per slot, after the slots, initialized when the ring is allocated (one arrival
//! per phase) and invalidated when it is released. Thread 0 arms the slot's barrier with the
//! tile's byte count and issues one `cp.async.bulk.tensor` per column block of the swizzled tile;
//! `ttng.wait_barrier` spins on `mbarrier.try_wait.parity` with the phase the loop carries.
//!
//! `ttg.local_load` emits nothing: it records the tile's address, and the dot reads the operand
//! in place. Any other user of its value is an internal error.

use trident_midend::analysis::affine_pointers;
use trident_midend::ir::{Op, Opcode, Value};
use trident_midend::layout::registers::{Affine, LayoutInfo};
use trident_midend::layout::NvmmaShared;

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};

/// One ring: where it starts (bytes from the start of shared memory) and its geometry.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    pub offset: u32,
    /// Tiles (or, for a bare barrier array, barriers).
    pub slots: u32,
    pub bytes: u32,
    pub slot_bytes: u32,
    /// Elements per padded row (per padded column when `column_major`).
    pub row_stride: i64,
    pub elem_bytes: i64,
    pub column_major: bool,
    /// The swizzled tile layout of a warpgroup dot's ring, and the stored shape `[rows, cols]`
    /// (the tile's, transposed for `column_major`).
    pub swizzle: Option<(NvmmaShared, [u32; 2])>,
    /// For a ring TMA fills: where its mbarriers start (bytes from the start of shared memory),
    /// one 8-byte barrier per slot after the slots.
    pub barriers: Option<u32>,
}

impl Ring {
    /// A `ttng.init_barriers` array on the ring stack: `count` mbarriers and no tiles.
    pub fn barriers_only(offset: u32, count: u32) -> Ring {
        Ring {
            offset,
            slots: count,
            bytes: 8 * count,
            slot_bytes: 0,
            row_stride: 0,
            elem_bytes: 0,
            column_major: false,
            swizzle: None,
            barriers: Some(offset),
        }
    }
}

/// A dot operand tile in shared memory (`ttg.local_load`'s result): its address and how the
/// ring stores it.
#[derive(Clone, Copy, Debug)]
pub struct SharedTile {
    pub addr: crate::ptx::Reg,
    pub row_stride: i64,
    pub column_major: bool,
    pub swizzle: Option<(NvmmaShared, [u32; 2])>,
}

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    match data.opcode {
        Opcode::LocalAlloc => {
            let slots = data.attrs.int("slots").unwrap_or(1);
            let shape = data.attrs.ints("shape").unwrap_or_default().to_vec();
            let elem_bytes = data.attrs.int("elem_bytes").unwrap_or(2);
            let column_major = data.attrs.bool("column_major") == Some(true);
            let [rows, cols] = shape[..] else { return e.invalid("local_alloc of a tile that is not 2-D") };
            let (rows, cols) = if column_major { (cols, rows) } else { (rows, cols) };
            let swizzle = match data.attrs.int("swizzle_bytes") {
                Some(bytes) => {
                    let layout = NvmmaShared { swizzle_bytes: bytes as u32, elem_bytes: elem_bytes as u32 };
                    Some((layout, [rows as u32, cols as u32]))
                }
                None => None,
            };
            let (row_stride, slot_bytes, offset) = match swizzle {
                Some((layout, stored)) => (
                    cols,
                    layout.tile_bytes(stored).next_multiple_of(1024),
                    e.ring_top.next_multiple_of(1024),
                ),
                None => {
                    let row_stride = cols + 16 / elem_bytes;
                    (row_stride, (rows * row_stride * elem_bytes) as u32, e.ring_top)
                }
            };
            let tma = data.attrs.bool("tma") == Some(true);
            if tma && swizzle.is_none() {
                return e.invalid("a TMA ring without a swizzled tile layout");
            }
            let tiles_bytes = slots as u32 * slot_bytes;
            let barriers = tma.then_some(offset + tiles_bytes);
            let barrier_bytes = if tma { 8 * slots as u32 } else { 0 };
            let bytes = (tiles_bytes + barrier_bytes).next_multiple_of(128);
            let slots = slots as u32;
            let ring = Ring {
                offset,
                slots,
                bytes,
                slot_bytes,
                row_stride,
                elem_bytes,
                column_major,
                swizzle,
                barriers,
            };
            // The ring reuses shared memory that earlier ops may still be reading in slower
            // warps (a persistent kernel's previous tile converts its output pointers through
            // it): no copy may land there before every warp is past them.
            e.barrier();
            e.ring_top = offset + bytes;
            e.need_shared(0)?;
            let start = e.smem_start();
            let r = e.reg(Class::B32);
            e.ins(format!("add.s32 {r}, {start}, {}", ring.offset));
            if let Some(first) = barriers {
                // One arrival (thread 0's expect_tx) per phase; the TMA unit completes it. The
                // memory's earlier generic writes are ordered before the TMA unit's.
                let thread0 = crate::tma::first_thread(e);
                for slot in 0..ring.slots {
                    e.ins(format!(
                        "@{thread0} mbarrier.init.shared::cta.b64 [{start}+{}], 1",
                        first + 8 * slot
                    ));
                }
                e.ins("fence.proxy.async.shared::cta");
                e.barrier();
            }
            let result = data.results[0];
            e.rings.insert(result, ring);
            e.set(result, vec![r]);
            Ok(())
        }
        Opcode::LocalDealloc => {
            let Some(ring) = e.rings.remove(&data.operands[0]) else {
                return e.invalid("local_dealloc of an unknown ring");
            };
            if ring.offset + ring.bytes != e.ring_top {
                return e.invalid("rings must be released latest first");
            }
            if let Some(first) = ring.barriers {
                // Every warp is past its last wait (the loop ends with a barrier): the barriers
                // go back to plain memory.
                let start = e.smem_start();
                let thread0 = crate::tma::first_thread(e);
                for slot in 0..ring.slots {
                    e.ins(format!(
                        "@{thread0} mbarrier.inval.shared::cta.b64 [{start}+{}]",
                        first + 8 * slot
                    ));
                }
            }
            // The end of the highest live ring (alignment may have left a gap below this one).
            e.ring_top = e.rings.values().map(|r| r.offset + r.bytes).max().unwrap_or(e.ring_floor);
            Ok(())
        }
        Opcode::AsyncCopyGlobalToLocal => async_copy(e, op),
        Opcode::AsyncTmaCopyGlobalToLocal => tma_copy(e, op),
        Opcode::WaitBarrier => {
            let (_, barrier) = slot_barrier(e, data.operands[0], data.operands[1])?;
            let phase = e.get(data.operands[2])?[0];
            // With a predicate (false past the loop's last iteration), a uniform branch around.
            let skip = e.skip_unless(data.operands.get(3).copied(), "wait_skip")?;
            crate::tma::wait_phase(e, barrier, &phase.to_string());
            e.end_skip(skip);
            Ok(())
        }
        Opcode::AsyncCommitGroup => {
            e.ins("cp.async.commit_group");
            Ok(())
        }
        Opcode::AsyncWait => {
            let num = data.attrs.int("num").unwrap_or(0);
            e.ins(format!("cp.async.wait_group {num}"));
            Ok(())
        }
        Opcode::AsyncCopyArrive => {
            // Every thread, once its earlier cp.async copies land; `.noinc` leaves the pending
            // count alone: the barrier's arrivals count these.
            let (_, barrier) = slot_barrier(e, data.operands[0], data.operands[1])?;
            let when = e.get(data.operands[2])?[0];
            e.ins(format!("@{when} cp.async.mbarrier.arrive.noinc.shared::cta.b64 [{barrier}]"));
            Ok(())
        }
        _ => {
            // ttg.local_load: the tile's address in its slot.
            let (ring_v, slot_v, result) = (data.operands[0], data.operands[1], data.results[0]);
            let Some(&ring) = e.rings.get(&ring_v) else { return e.invalid("local_load of an unknown ring") };
            let (base, slot) = (e.get(ring_v)?[0], e.get(slot_v)?[0]);
            let addr = e.reg(Class::B32);
            e.ins(format!("mad.lo.s32 {addr}, {slot}, {}, {base}", ring.slot_bytes));
            e.in_shared.insert(
                result,
                SharedTile {
                    addr,
                    row_stride: ring.row_stride,
                    column_major: ring.column_major,
                    swizzle: ring.swizzle,
                },
            );
            Ok(())
        }
    }
}

/// The ring behind `ring_v` and the shared address of the mbarrier of slot `slot_v`.
pub fn slot_barrier(
    e: &mut Emitter,
    ring_v: trident_midend::ir::Value,
    slot_v: trident_midend::ir::Value,
) -> EResult<(Ring, Reg)> {
    let Some(&ring) = e.rings.get(&ring_v) else { return e.invalid("a TMA ring op on an unknown ring") };
    let Some(first) = ring.barriers else { return e.invalid("an mbarrier op on a ring TMA does not fill") };
    let slot = e.get(slot_v)?[0];
    let start = e.smem_start();
    let barrier = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {barrier}, {slot}, 8, {start}"));
    e.ins(format!("add.s32 {barrier}, {barrier}, {first}"));
    Ok((ring, barrier))
}

/// `ttng.async_tma_copy_global_to_local`: thread 0, when the predicate holds, arms the slot's
/// mbarrier with the tile's bytes and copies the descriptor's block into the slot, one box per
/// swizzle-row-wide column block (the tensor map's box is one swizzle row wide; the ring stores
/// column block `j` at `j * rows * swizzle_bytes`, as TMA writes each box).
fn tma_copy(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let (ring, barrier) = slot_barrier(e, data.operands[0], data.operands[1])?;
    let Some((swizzle, [rows, cols])) = ring.swizzle else { return e.invalid("a TMA ring without swizzle") };
    let (base, slot) = (e.get(data.operands[0])?[0], e.get(data.operands[1])?[0]);
    let live = e.get(data.operands[2])?[0];
    let desc = e.get(data.operands[3])?[0];
    let offsets: Vec<Reg> =
        data.operands[4..].iter().map(|&v| e.get(v).map(|r| r[0])).collect::<EResult<_>>()?;
    let [outer, inner] = offsets[..] else { return e.invalid("a TMA ring copy of a block that is not 2-D") };
    let issue = e.reg(Class::Pred);
    e.ins(format!("setp.eq.and.u32 {issue}, {}, {}, {live}", e.tid, e.leader));
    let tile_bytes = swizzle.tile_bytes([rows, cols]);
    e.ins(format!("@{issue} mbarrier.arrive.expect_tx.shared::cta.b64 _, [{barrier}], {tile_bytes}"));
    let slot_addr = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {slot_addr}, {slot}, {}, {base}", ring.slot_bytes));
    let block_cols = swizzle.block_cols();
    for block in 0..cols / block_cols {
        let column = if block == 0 {
            inner
        } else {
            let c = e.reg(Class::B32);
            e.ins(format!("add.s32 {c}, {inner}, {}", block * block_cols));
            c
        };
        e.ins(format!(
            "@{issue} cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes \
             [{slot_addr}+{}], [{desc}, {{{column}, {outer}}}], [{barrier}]",
            block * rows * swizzle.swizzle_bytes
        ));
    }
    Ok(())
}

/// `cp.async` of every vector of the pointer tensor into the ring slot, zero-filling masked-off
/// vectors.
fn async_copy(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let (ring_v, slot_v, ptr_v) = (data.operands[0], data.operands[1], data.operands[2]);
    let Some(&ring) = e.rings.get(&ring_v) else { return e.invalid("async copy into an unknown ring") };
    let (base, slot) = (e.get(ring_v)?[0], e.get(slot_v)?[0]);
    let ptr = e.get(ptr_v)?;
    let mask = match data.operands.get(3) {
        Some(&m) => Some(e.get(m)?),
        None => None,
    };
    let layout = e.layout(ptr_v)?;
    let d = e.ty(ptr_v).dtype();
    let width = e.access_width(ptr_v, data.operands.get(3).copied(), d.bits() as u64)?;
    let copy_bytes = width as i64 * ring.elem_bytes;
    // Row-major with padded rows: element (r, c) at r * row_stride + c; column-major: at
    // c * row_stride + r. A `transposed` copy moves the transpose of the ring's tile, whose
    // (r, c) is the tile's (c, r).
    let transposed = data.attrs.bool("transposed") == Some(true);
    if let Some((swizzle, stored)) = ring.swizzle {
        // The pointer tensor's (p0, p1) is stored at (p1, p0) when exactly one of the ring and
        // the copy is transposed.
        let swap = ring.column_major != transposed;
        let place = move |c: &[u32]| {
            let (row, col) = if swap { (c[1], c[0]) } else { (c[0], c[1]) };
            swizzle.byte_offset(stored, row, col)
        };
        let thread = e.xor_linear_base(&layout, &place);
        let slot_addr = e.reg(Class::B32);
        e.ins(format!("mad.lo.s32 {slot_addr}, {slot}, {}, {base}", ring.slot_bytes));
        let sources = global_sources(e, ptr_v, &layout, &ptr);
        let unique = layout.unique_registers();
        for first in (0..ptr.len()).step_by(width) {
            if !unique[first] {
                continue;
            }
            let (addr, offset) = e.xor_address(slot_addr, thread, place(&layout.reg_coords[first]));
            let pred = mask.as_ref().map(|m| m[if m.len() == 1 { 0 } else { first }]);
            issue_copy(e, (addr, offset as i64), sources[first], pred, copy_bytes);
        }
        return Ok(());
    }
    let coeffs =
        if ring.column_major != transposed { vec![1, ring.row_stride] } else { vec![ring.row_stride, 1] };
    let place = Affine { coeffs, offset: 0 };
    let thread = e.affine_base(&layout, &place);
    let addr = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {addr}, {slot}, {}, {base}", ring.slot_bytes));
    e.ins(format!("mad.lo.s32 {addr}, {thread}, {}, {addr}", ring.elem_bytes));
    let sources = global_sources(e, ptr_v, &layout, &ptr);
    let unique = layout.unique_registers();
    for first in (0..ptr.len()).step_by(width) {
        if !unique[first] {
            continue;
        }
        let offset = place.eval(&layout.reg_coords[first]) * ring.elem_bytes;
        let pred = mask.as_ref().map(|m| m[if m.len() == 1 { 0 } else { first }]);
        issue_copy(e, (addr, offset), sources[first], pred, copy_bytes);
    }
    Ok(())
}

/// Per register of pointer tensor `ptr_v` (of layout `layout`, registers `ptr`), the global
/// address its copy reads, as a register and an immediate byte offset: one address per thread
/// when the pointers are affine (see the module docs), else the register's own pointer.
fn global_sources(e: &mut Emitter, ptr_v: Value, layout: &LayoutInfo, ptr: &[Reg]) -> Vec<(Reg, i64)> {
    affine_sources(e, ptr_v, layout).unwrap_or_else(|| ptr.iter().map(|&r| (r, 0)).collect())
}

/// The affine form of [`global_sources`]: per `tt.addptr` level, `thread + sum(k * scalar) +
/// constant` in 32 bits (wrapping as the IR's offsets do), sign-extended, scaled by the element
/// size and added to the address so far; each register's share of the linear parts is its
/// immediate. `None` when the pointers are not affine, the layout is not additive (a register's
/// coordinate is not the thread's plus its own), a value is not at hand or an immediate does not
/// fit PTX's 32-bit offsets.
fn affine_sources(e: &mut Emitter, ptr_v: Value, layout: &LayoutInfo) -> Option<Vec<(Reg, i64)>> {
    if !layout.additive {
        return None;
    }
    let pointer = affine_pointers::pointer(&e.func.body, ptr_v)?;
    let elem = e.ty(ptr_v).dtype().size_bytes() as i64;
    let base = *e.get(pointer.base).ok()?.first()?;
    let mut scalars = Vec::new();
    for level in &pointer.levels {
        let mut terms = Vec::with_capacity(level.terms.len());
        for (&value, &factor) in &level.terms {
            terms.push((*e.get(value).ok()?.first()?, factor as i32));
        }
        if level.coeffs.iter().any(|&k| i32::try_from(k).is_err()) {
            return None;
        }
        scalars.push(terms);
    }
    let mut immediates = vec![0i64; layout.reg_coords.len()];
    for level in &pointer.levels {
        for (immediate, coord) in immediates.iter_mut().zip(&layout.reg_coords) {
            *immediate = immediate.checked_add(level.linear_at(coord).checked_mul(elem)?)?;
        }
    }
    if immediates.iter().any(|&i| i32::try_from(i).is_err()) {
        return None;
    }
    // Levels without scalars first: their sum does not change inside a loop, so ptxas can hoist
    // it, and a loop's copies wait on one level's arithmetic only.
    let mut levels: Vec<_> = pointer.levels.iter().zip(scalars).collect();
    levels.sort_by_key(|(level, _)| !level.terms.is_empty());
    let mut address = base;
    for (level, terms) in levels {
        let thread = e.affine_base(layout, &Affine { coeffs: level.coeffs.clone(), offset: 0 });
        let offset = e.reg(Class::B32);
        e.ins(format!("add.s32 {offset}, {thread}, {}", level.constant as i32));
        for (scalar, factor) in terms {
            e.ins(format!("mad.lo.s32 {offset}, {scalar}, {factor}, {offset}"));
        }
        let next = e.reg(Class::B64);
        e.ins(format!("mad.wide.s32 {next}, {offset}, {elem}, {address}"));
        address = next;
    }
    Some(immediates.into_iter().map(|immediate| (address, immediate)).collect())
}

/// One vector's copy from global `src` to shared `[addr + offset]`: `cp.async` (zero-filling
/// when `pred` is false; 16-byte copies bypass L1), or for one or two bytes, which `cp.async`
/// cannot move, a load and a store through a register (visible to the dot after the barrier
/// that follows the wait).
fn issue_copy(
    e: &mut Emitter,
    (addr, offset): (Reg, i64),
    (src, src_offset): (Reg, i64),
    pred: Option<Reg>,
    copy_bytes: i64,
) {
    if copy_bytes < 4 {
        let bits = copy_bytes * 8;
        let r = e.reg(Class::B16);
        e.ins(format!("mov.b16 {r}, 0"));
        let guard = pred.map(|p| format!("@{p} ")).unwrap_or_default();
        e.ins(format!("{guard}ld.global.b{bits} {r}, [{src}+{src_offset}]"));
        e.ins(format!("st.shared.b{bits} [{addr}+{offset}], {r}"));
        return;
    }
    let cache = if copy_bytes == 16 { "cg" } else { "ca" };
    match pred {
        Some(pred) => {
            let size = e.reg(Class::B32);
            e.ins(format!("selp.u32 {size}, {copy_bytes}, 0, {pred}"));
            e.ins(format!(
                "cp.async.{cache}.shared.global [{addr}+{offset}], [{src}+{src_offset}], {copy_bytes}, {size}"
            ));
        }
        None => e.ins(format!(
            "cp.async.{cache}.shared.global [{addr}+{offset}], [{src}+{src_offset}], {copy_bytes}"
        )),
    }
}
