//! The consumers' A operands in shared memory (Hopper, warp-specialized loops): a tile that
//! the consumers load once through a tensor descriptor and then feed to warpgroup dots only as
//! their A operand (attention's `Q`) is copied by TMA into a swizzled shared-memory tile of its
//! own and read there by the dots, as FlashAttention-3 and Triton keep `Q`, instead of being
//! read into registers and held there through the loop.
//!
//! ```text
//! %q = tt.descriptor_load %desc_q, ...             %q_tile = ttg.local_alloc {slots = 1, tma, swizzle}
//! %a = ttg.convert_layout %q       (mma operand)   ttng.async_tma_copy_global_to_local %q_tile, 0, true, %desc_q, ...
//! scf.for ...                                ->    ttng.wait_barrier %q_tile, 0, 0
//!     ttng.warp_group_dot %a, %k, ...              %a = ttg.local_load %q_tile, 0  (read in place)
//! ```
//!
//! The registers the operand took (32 per thread for a 128 x 128 fp16 `Q` over two warpgroups)
//! go to the loop's softmax. The tile sits on the ring stack above the loop's rings, and is
//! released first after the partition. Measured on an H100 (the corpus' attention through
//! descriptors, d128, 2048 keys, one command): 481.0 -> 490.5 TFLOP/s.
//!
//! Applies to descriptor loads at the top of the consumers' region (where
//! `sink_loads_into_consumers` put them) of 16-bit, two-dimensional tiles whose rows
//! `#ttg.nvmma_shared` can swizzle, whose descriptor (made in the kernel, read by no other op)
//! can take the swizzle, and whose every use is the A operand of a warpgroup dot, directly or
//! through layout conversions used for nothing else.

use std::collections::HashMap;

use crate::ir::{Attrs, Block, Body, Builder, DType, Op, Opcode, Value};
use crate::layout::NvmmaShared;
use crate::passes::uses::users_in;

/// A tile [`stage_a_operands`] made.
pub struct StagedTile {
    pub tile: Value,
    /// Its TMA copy and the mbarrier wait for it.
    pub copy: Op,
    pub wait: Op,
}

/// Stages the eligible A operands of the consumers' region `default` (see the module docs):
/// their tiles are allocated at `alloc_at` in block `parent` (above the loop's rings). Returns
/// the tiles, for the caller to release after the partition.
pub(super) fn stage_a_operands(
    body: &mut Body,
    parent: Block,
    alloc_at: usize,
    default: Block,
) -> Vec<StagedTile> {
    let users = users_in(body, &body.walk(default));
    let whole = users_in(body, &body.walk(parent));
    let loads: Vec<(Op, Vec<Op>, NvmmaShared)> = body.blocks[default]
        .ops
        .iter()
        .filter_map(|&op| eligible(body, &users, &whole, op).map(|(convs, swizzle)| (op, convs, swizzle)))
        .collect();
    let mut tiles = Vec::new();
    for (index, (load, conversions, swizzle)) in loads.into_iter().enumerate() {
        let span = body.span(load);
        let data = body.op(load).clone();
        let ty = body.ty(data.results[0]).clone();
        let desc = data.operands[0];
        // The tile, on the ring stack (its descriptor takes the swizzle).
        let mut b = Builder::at(body, parent, alloc_at + index);
        b.span = span;
        let tile = super::alloc_ring(&mut b, &ty, 1, super::RingOrder::RowMajor, Some(swizzle), Some(desc));
        // The copy, its wait, and the tile read in place where the load was.
        let at = body.position(default, load);
        let mut b = Builder::at(body, default, at);
        b.span = span;
        let zero = b.const_int(DType::I32, 0);
        let always = b.const_int(DType::I1, 1);
        let mut operands = vec![tile, zero, always, desc];
        operands.extend_from_slice(&data.operands[1..]);
        let copy = b.op(Opcode::AsyncTmaCopyGlobalToLocal, operands, &[], Attrs::new());
        // The phase of its one use (a constant of its own: a persistent kernel alternates it).
        let phase = b.const_int(DType::I32, 0);
        let wait = b.op(Opcode::WaitBarrier, vec![tile, zero, phase], &[], Attrs::new());
        let in_place = b.value(Opcode::LocalLoad, vec![tile, zero], ty, Attrs::new());
        let mut renamed: HashMap<Value, Value> = HashMap::from([(data.results[0], in_place)]);
        renamed.extend(conversions.iter().map(|&c| (body.op(c).results[0], in_place)));
        body.replace_uses(default, &renamed);
        for op in conversions.into_iter().chain([load]) {
            body.detach_op(op);
        }
        tiles.push(StagedTile { tile, copy, wait });
    }
    tiles
}

/// Whether `op` is a descriptor load whose tile can be staged: the conversions between it and
/// the dots, and the tile's swizzle.
fn eligible(
    body: &Body,
    users: &HashMap<Value, Vec<(Op, usize)>>,
    whole: &HashMap<Value, Vec<(Op, usize)>>,
    op: Op,
) -> Option<(Vec<Op>, NvmmaShared)> {
    if body.opcode(op) != Opcode::DescriptorLoad {
        return None;
    }
    let data = body.op(op);
    let ty = body.ty(data.results[0]);
    if !matches!(ty.dtype(), DType::F16 | DType::BF16) || ty.shape().len() != 2 {
        return None;
    }
    let swizzle = NvmmaShared::for_row(ty.shape()[1], 2)?;
    let desc = data.operands[0];
    let made_here = body.def_op(desc).is_some_and(|make| body.opcode(make) == Opcode::MakeTensorDescriptor);
    if !made_here || whole.get(&desc).is_none_or(|uses| uses.len() != 1) {
        return None;
    }
    // Every use: A of a warpgroup dot, directly or through conversions.
    let mut conversions = Vec::new();
    let mut stack = vec![data.results[0]];
    while let Some(v) = stack.pop() {
        for &(user, slot) in users.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
            match body.opcode(user) {
                Opcode::WarpGroupDot if slot == 0 => {}
                Opcode::ConvertLayout => {
                    conversions.push(user);
                    stack.push(body.op(user).results[0]);
                }
                _ => return None,
            }
        }
    }
    let used_by_dots = conversions.iter().map(|&c| body.op(c).results[0]).chain([data.results[0]]).any(|v| {
        users.get(&v).is_some_and(|uses| uses.iter().any(|&(u, _)| body.opcode(u) == Opcode::WarpGroupDot))
    });
    used_by_dots.then_some((conversions, swizzle))
}
