//! Tensor descriptors through the Tensor Memory Accelerator (sm_90a): `tt.make_tensor_descriptor`,
//! `tt.descriptor_load` and `tt.descriptor_store` (those the midend's rewrite-tensor-descriptors
//! kept, having proven what a tensor map needs).
//!
//! # Tensor maps encoded on the host
//!
//! TMA copies read a 128-byte *tensor map* (CUDA's `CUtensorMap`). A descriptor whose base,
//! shape and strides are all computed from the kernel's parameters alone
//! ([`trident_midend::analysis::launch_scalars`]: `make_tensor_descriptor(q_ptr, [Z * H * N, D],
//! [D, 1])`) would be built alike by every program. Its map is left to the runtime instead
//! ([`host_map`], [`crate::HostTensorMap`] in the artifact): each launch evaluates the fields from
//! its arguments, encodes the map with the driver and passes it by value as a kernel parameter
//! (`.param .align 64 .b8 [128]`, after the global scratch), as CUDA passes a `__grid_constant__`
//! map; the descriptor's value is the parameter's generic address (`cvta.param`). No program
//! writes a map, fences it or waits for it. H100, the corpus' attention through descriptors
//! (2048 keys, d128, same command, two rounds): full 437.2 / 438.5 -> 475.6 / 477.2 TFLOP/s,
//! causal 309.9 / 311.0 -> 349.0 / 350.3 (Triton 3.6: 394.0, 287.2).
//!
//! # Tensor maps built on the device
//!
//! Any other descriptor made inside the kernel (its base or shape depends on the program) gets
//! its map built there, as Triton's `TMAToLLVM` does:
//! warp 0 zeroes 128 bytes of shared memory, thread 0 fills in the fields with
//! `tensormap.replace` (base address, rank, box and global dimensions innermost first, byte
//! strides, element type by size, swizzle mode, zero fill), and warp 0 copies the map to this
//! program's slot of the *global scratch* with `tensormap.cp_fenceproxy` and makes it visible to
//! the TMA unit with `fence.proxy.tensormap::generic.acquire`. The global scratch is a buffer the
//! runtime allocates per launch ([`crate::Artifact::global_scratch_bytes`] per program, passed as
//! a last hidden pointer parameter), 128 bytes per `tt.make_tensor_descriptor` of the kernel. The
//! descriptor's value is the generic address of its map.
//!
//! # Loads and stores
//!
//! A load copies the block into a row-major tile in scratch shared memory with one
//! `cp.async.bulk.tensor` issued by thread 0, which also arms an `mbarrier` with the tile's byte
//! count (`mbarrier.arrive.expect_tx`); every thread waits on the barrier's phase 0 and reads
//! its elements in the result layout. Elements outside the tensor arrive as zeros. A store
//! writes the value into such a tile, fences the writes for the async proxy
//! (`fence.proxy.async.shared::cta`), and thread 0 issues the bulk copy to global memory and
//! waits until it has read the tile (`cp.async.bulk.wait_group.read 0`) before the tile's memory
//! is reused; the TMA unit skips the elements outside the tensor.
//!
//! These tiles are unswizzled (swizzle mode none; the box is the whole block). Tiles that feed
//! warpgroup dots in a pipelined loop stream through swizzled rings instead: the pipeliner gives
//! their descriptor the ring's swizzle, and [`crate::shared_rings`] issues the copies (one box per
//! swizzle-row-wide column block) and the mbarrier waits.

use trident_midend::ir::{Op, Opcode, Type};
use trident_midend::layout::registers::Affine;

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};

/// Bytes of one tensor map (`CUtensorMap`), and its alignment in global and shared memory.
pub const TENSOR_MAP_BYTES: u32 = 128;

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    match e.func.body.opcode(op) {
        Opcode::MakeTensorDescriptor => make_descriptor(e, op),
        Opcode::DescriptorLoad => load(e, op),
        _ => store(e, op),
    }
}

/// The block shape and element size of a descriptor value.
fn block_of(e: &Emitter, desc: trident_midend::ir::Value) -> EResult<(Vec<u32>, u32)> {
    match e.ty(desc) {
        Type::Desc { dtype, block } => Ok((block.clone(), dtype.bits().div_ceil(8))),
        other => e.invalid(format!("a tensor descriptor operand of type {other}")),
    }
}

/// A predicate true in the leader thread only (the thread that issues TMA copies and fills
/// tensor maps: thread 0, or the producer's first thread in its region of a warp-specialized
/// kernel).
pub fn first_thread(e: &mut Emitter) -> Reg {
    let p = e.reg(Class::Pred);
    e.ins(format!("setp.eq.u32 {p}, {}, {}", e.tid, e.leader));
    p
}

/// The box of a descriptor's copies: its block, but along the contiguous dimension at most one
/// swizzle row wide (several copies fill a wider tile); unswizzled boxes are the whole block.
fn box_of(block: &[u32], elem_bytes: u32, swizzle_bytes: u32) -> Vec<u32> {
    let mut boxed = block.to_vec();
    if let (Some(inner), true) = (boxed.last_mut(), swizzle_bytes != 0) {
        *inner = swizzle_bytes / elem_bytes;
    }
    boxed
}

/// The tensor map of `tt.make_tensor_descriptor` `op` as the runtime encodes it on the host,
/// when its base, shape and strides are all launch scalars (computed from the kernel's
/// parameters alone: every program would build the same map).
pub fn host_map(func: &trident_midend::ir::Function, op: Op) -> Option<crate::HostTensorMap> {
    use trident_midend::analysis::launch_scalars::launch_scalar;
    let data = func.body.op(op);
    let Type::Desc { dtype, block } = func.body.ty(data.results[0]) else { return None };
    let elem_bytes = dtype.bits().div_ceil(8);
    let swizzle_bytes = data.attrs.int("swizzle_bytes").unwrap_or(0) as u32;
    if !matches!(elem_bytes, 1 | 2 | 4) || !matches!(swizzle_bytes, 0 | 32 | 64 | 128) {
        return None;
    }
    let rank = block.len();
    let scalars = |values: &[trident_midend::ir::Value]| -> Option<Vec<_>> {
        values.iter().map(|&v| launch_scalar(func, v)).collect()
    };
    Some(crate::HostTensorMap {
        base: launch_scalar(func, data.operands[0])?,
        dims: scalars(&data.operands[1..1 + rank])?,
        strides: scalars(&data.operands[1 + rank..1 + 2 * rank])?,
        box_dims: box_of(block, elem_bytes, swizzle_bytes),
        elem_bytes,
        swizzle_bytes,
    })
}

/// Builds the tensor map of `tt.make_tensor_descriptor(base, shape..., strides...)` in this
/// program's global scratch slot, or takes the one the runtime encoded on the host
/// ([`host_map`]).
fn make_descriptor(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    if let Some(map) = e.host_tensor_map(op) {
        e.set(data.results[0], vec![map]);
        return Ok(());
    }
    let (block, elem_bytes) = block_of(e, data.results[0])?;
    let rank = block.len();
    let swizzle_bytes = data.attrs.int("swizzle_bytes").unwrap_or(0) as u32;
    let swizzle_mode = match swizzle_bytes {
        0 => 0,
        32 => 1,
        64 => 2,
        128 => 3,
        other => return e.invalid(format!("a tensor map swizzle of {other} bytes")),
    };
    let boxed = box_of(&block, elem_bytes, swizzle_bytes);
    let elem_type = match elem_bytes {
        1 => 0,
        2 => 1,
        4 => 2,
        other => return e.invalid(format!("a tensor map of {other}-byte elements")),
    };
    let base = e.get(data.operands[0])?[0];
    let shapes: Vec<Reg> =
        data.operands[1..1 + rank].iter().map(|&v| e.get(v).map(|r| r[0])).collect::<EResult<_>>()?;
    let strides: Vec<Reg> = data.operands[1 + rank..1 + 2 * rank]
        .iter()
        .map(|&v| e.get(v).map(|r| r[0]))
        .collect::<EResult<_>>()?;

    let slot = e.tensor_map_slot(op)?;
    let (global, generic) = e.tensor_map_address(slot);
    e.need_shared(TENSOR_MAP_BYTES as u64)?;
    let staging32 = e.smem_base();
    let staging = e.reg(Class::B64);
    e.ins(format!("cvt.u64.u32 {staging}, {staging32}"));
    let warp0 = e.reg(Class::Pred);
    e.ins(format!("setp.lt.u32 {warp0}, {}, 32", e.tid));
    let thread0 = first_thread(e);
    // The staging bytes may still be read by slower warps (scratch shared memory).
    e.barrier();
    let lane_word = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {lane_word}, {}, 4, {staging32}", e.lane));
    e.ins(format!("@{warp0} st.shared.b32 [{lane_word}], 0"));
    e.ins("bar.warp.sync -1");
    let replace =
        |field: &str, ty: &str| format!("@{thread0} tensormap.replace.tile.{field}.shared::cta.b1024.{ty}");
    e.ins(format!("{} [{staging}], {base}", replace("global_address", "b64")));
    e.ins(format!("{} [{staging}], {}", replace("rank", "b32"), rank - 1));
    for dim in 0..rank {
        // Ordinal 0 is the innermost (contiguous) dimension.
        let axis = rank - 1 - dim;
        e.ins(format!("{} [{staging}], {dim}, {}", replace("box_dim", "b32"), boxed[axis]));
        e.ins(format!("{} [{staging}], {dim}, {}", replace("global_dim", "b32"), shapes[axis]));
        e.ins(format!("{} [{staging}], {dim}, 1", replace("element_stride", "b32")));
        if dim + 1 < rank {
            // The byte stride of the next dimension out.
            let bytes = e.reg(Class::B64);
            e.ins(format!("mul.lo.s64 {bytes}, {}, {elem_bytes}", strides[axis - 1]));
            e.ins(format!("{} [{staging}], {dim}, {bytes}", replace("global_stride", "b64")));
        }
    }
    e.ins(format!("{} [{staging}], {elem_type}", replace("elemtype", "b32")));
    e.ins(format!("{} [{staging}], 0", replace("interleave_layout", "b32")));
    e.ins(format!("{} [{staging}], {swizzle_mode}", replace("swizzle_mode", "b32")));
    e.ins(format!("{} [{staging}], 0", replace("fill_mode", "b32")));
    e.ins(format!(
        "@{warp0} tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
         [{global}], [{staging}], {TENSOR_MAP_BYTES}"
    ));
    e.ins(format!("@{warp0} fence.proxy.tensormap::generic.acquire.gpu [{global}], {TENSOR_MAP_BYTES}"));
    // The copy read the staging bytes asynchronously: they are free once it has.
    e.ins(format!("@{warp0} cp.async.bulk.commit_group"));
    e.ins(format!("@{warp0} cp.async.bulk.wait_group.read 0"));
    e.barrier();
    e.set(data.results[0], vec![generic]);
    Ok(())
}

/// The coordinates of a descriptor access, innermost first, as a PTX vector operand.
fn coordinates(e: &Emitter, offsets: &[trident_midend::ir::Value]) -> EResult<String> {
    let regs: Vec<String> =
        offsets.iter().rev().map(|&v| e.get(v).map(|r| r[0].to_string())).collect::<EResult<_>>()?;
    Ok(format!("{{{}}}", regs.join(", ")))
}

/// `tt.descriptor_load`: one bulk tensor copy into a row-major scratch tile, an mbarrier wait,
/// then every thread reads its elements.
fn load(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let desc = e.get(data.operands[0])?[0];
    let (block, elem_bytes) = block_of(e, data.operands[0])?;
    let rank = block.len();
    let coords = coordinates(e, &data.operands[1..])?;
    let tile_bytes = block.iter().map(|&d| d as u64).product::<u64>() * elem_bytes as u64;
    // The tile at the scratch base (128-byte aligned), its mbarrier right after it.
    e.need_shared(tile_bytes + 8)?;
    let tile = e.smem_base();
    let bar = e.reg(Class::B32);
    e.ins(format!("add.s32 {bar}, {tile}, {tile_bytes}"));
    let thread0 = first_thread(e);
    // Earlier generic reads and writes of this scratch memory finish before the TMA unit (the
    // async proxy) writes it.
    e.barrier();
    e.ins(format!("@{thread0} mbarrier.init.shared::cta.b64 [{bar}], 1"));
    e.ins("fence.proxy.async.shared::cta");
    e.barrier();
    e.ins(format!("@{thread0} mbarrier.arrive.expect_tx.shared::cta.b64 _, [{bar}], {tile_bytes}"));
    e.ins(format!(
        "@{thread0} cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes \
         [{tile}], [{desc}, {coords}], [{bar}]"
    ));
    wait_phase(e, bar, "0");
    let layout = e.layout(data.results[0])?;
    let class = crate::emit::class_of_type(e.ty(data.results[0]));
    let regs = e.read_shared(&layout, &Affine::row_major(&layout.shape), class);
    // Every thread has read the tile: the barrier goes back to plain memory.
    e.barrier();
    e.ins(format!("@{thread0} mbarrier.inval.shared::cta.b64 [{bar}]"));
    e.set(data.results[0], regs);
    Ok(())
}

/// Spins until the mbarrier at `bar` completes the phase of parity `phase` (an immediate or a
/// register).
pub fn wait_phase(e: &mut Emitter, bar: Reg, phase: &str) {
    let done = e.reg(Class::Pred);
    let again = e.ptx.label("mbarrier_wait");
    e.ptx.place_label(&again);
    e.ins(format!("mbarrier.try_wait.parity.shared::cta.b64 {done}, [{bar}], {phase}"));
    e.ins(format!("@!{done} bra.uni {again}"));
}

/// `tt.descriptor_store`: the value into a row-major scratch tile, then one bulk tensor copy to
/// global memory, waited for until it has read the tile.
fn store(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let desc = e.get(data.operands[0])?[0];
    let (block, _) = block_of(e, data.operands[0])?;
    let rank = block.len();
    let value = e.get(data.operands[1])?;
    let layout = e.layout(data.operands[1])?;
    let coords = coordinates(e, &data.operands[2..])?;
    let class = value[0].class;
    let elements = block.iter().map(|&d| d as u64).product::<u64>();
    e.barrier();
    e.write_shared(&value, &layout, &Affine::row_major(&layout.shape), class, elements)?;
    // The generic-proxy writes become visible to the TMA unit, in every thread, before thread 0
    // starts the copy.
    e.ins("fence.proxy.async.shared::cta");
    e.barrier();
    let tile = e.smem_base();
    let thread0 = first_thread(e);
    e.ins(format!(
        "@{thread0} cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group [{desc}, {coords}], [{tile}]"
    ));
    e.ins(format!("@{thread0} cp.async.bulk.commit_group"));
    e.ins(format!("@{thread0} cp.async.bulk.wait_group.read 0"));
    e.barrier();
    Ok(())
}
