//! Coalesce: give every global memory access a layout that lets each thread move up to 128 bits
//! of consecutive elements with one instruction (Triton's `Coalesce.cpp`).
//!
//! A tensor-descriptor access (`tt.descriptor_load` / `tt.descriptor_store`, kept for TMA on
//! sm_90a) moves its tile through a row-major tile in shared memory: it gets the layout of a
//! pointer access whose last dim is contiguous and 16-byte aligned.
//!
//! For each `tt.load`, `tt.store` and `tt.atomic_rmw` on a tensor of pointers, the axis analysis
//! of the pointer decides:
//! 1. `order`: the dims sorted by contiguity, highest first (ties keep the row-major order);
//! 2. the vector width along `order[0]`:
//!    `min(divisibility_bytes / elem_bytes, contiguity[order[0]], max_bits / elem_bits)`, at least
//!    one, capped at `numel / threads` so that no thread is left without an element; `max_bits`
//!    is 128 for loads and stores, and for atomics what the target updates with one instruction
//!    ([`Target::atomic_vector_bits`]: a thread holding more consecutive elements than that would
//!    only make each warp instruction touch more sectors);
//! 3. a blocked layout with that `sizePerThread` (other dims 1), built by [`Blocked::for_shape`].
//!
//! The op is rewritten to that layout: a `ttg.convert_layout` to the new layout before each
//! tensor operand and one back to the old layout after the result. Nothing else changes here;
//! `remove_layout_conversions` then lets the surrounding computation adopt the new layout (or
//! gives the access back its old one when the neighbourhood cannot move) and drops the
//! conversions that became identities.
//!
//! Expects: TTGIR (every tensor has a layout; the module attributes `ttg.num-warps` and
//! `ttg.threads-per-warp` set by convert-to-gpu). Guarantees: the IR still verifies; every memory
//! op sees one layout on its tensor operands and result.

use crate::analysis::axis_info::{self, AxisInfoMap};
use crate::ir::{Attrs, Body, Builder, DType, Function, Module, Op, Opcode, Type, Value};
use crate::layout::{Blocked, Encoding};
use crate::target::Target;

/// The widest load or store one thread makes with one instruction, in bits.
pub(crate) const MAX_VECTOR_BITS: u64 = 128;

/// Coalesces every memory op of every function of `module`.
pub fn run(module: &mut Module, target: &Target) {
    let num_warps = module.attrs.int("ttg.num-warps").unwrap_or(4) as u32;
    let threads_per_warp = module.attrs.int("ttg.threads-per-warp").unwrap_or(32) as u32;
    for function in &mut module.functions {
        let infos = axis_info::analyze(function);
        let plans = plan(function, &infos, target, threads_per_warp, num_warps);
        // Every result's readers move to its conversion back in one walk of the function (one
        // walk per memory op was quadratic: a loop unrolled 1,024 times spent a tenth of its
        // spirv compile here).
        let converted: Vec<(Value, Value)> = plans
            .into_iter()
            .filter_map(|(op, encoding)| rewrite(&mut function.body, op, encoding))
            .collect();
        let body = &mut function.body;
        body.replace_uses(function.entry, &converted.iter().copied().collect());
        // The conversions themselves keep reading the memory ops' results.
        for (result, back) in converted {
            let convert = body.def_op(back).expect("a convert result");
            body.ops[convert].operands[0] = result;
        }
    }
}

/// The memory ops whose layout should change, with their new layouts.
fn plan(
    function: &Function,
    infos: &AxisInfoMap,
    target: &Target,
    threads_per_warp: u32,
    num_warps: u32,
) -> Vec<(Op, Encoding)> {
    let body = &function.body;
    let mut plans = Vec::new();
    for op in body.walk(function.entry) {
        if matches!(body.opcode(op), Opcode::DescriptorLoad | Opcode::DescriptorStore) {
            plans.extend(descriptor_plan(body, op, threads_per_warp, num_warps));
            continue;
        }
        if !matches!(body.opcode(op), Opcode::Load | Opcode::Store | Opcode::AtomicRmw) {
            continue;
        }
        let pointer = body.op(op).operands[0];
        let ty = body.ty(pointer);
        if !ty.is_tensor() || ty.encoding().is_none() {
            continue;
        }
        let Some(info) = infos.get(pointer) else { continue };
        let max_bits = max_vector_bits(body, op, target);
        let blocked = coalesced_layout(ty, info, max_bits, threads_per_warp, num_warps);
        let encoding = Encoding::Blocked(blocked);
        if ty.encoding() != Some(&encoding) {
            plans.push((op, encoding));
        }
    }
    plans
}

/// The layout of a descriptor access (TMA on sm_90a): its tile sits row-major in shared memory,
/// rows 16-byte aligned, so threads read or write it in 16-byte vectors along the last dim.
fn descriptor_plan(body: &Body, op: Op, threads_per_warp: u32, num_warps: u32) -> Option<(Op, Encoding)> {
    let data = body.op(op);
    let tile = if data.opcode == Opcode::DescriptorLoad { data.results[0] } else { data.operands[1] };
    let ty = body.ty(tile);
    ty.encoding()?;
    let rank = ty.shape().len();
    let mut info = axis_info::AxisInfo::pessimistic(rank);
    info.contiguity[rank - 1] = ty.shape()[rank - 1] as u64;
    info.divisibility[rank - 1] = 16;
    let encoding =
        Encoding::Blocked(coalesced_layout(ty, &info, MAX_VECTOR_BITS, threads_per_warp, num_warps));
    (ty.encoding() != Some(&encoding)).then_some((op, encoding))
}

/// The widest access memory op `op` makes with one instruction on `target`, in bits.
pub(crate) fn max_vector_bits(body: &Body, op: Op, target: &Target) -> u64 {
    if body.opcode(op) != Opcode::AtomicRmw {
        return MAX_VECTOR_BITS;
    }
    let data = body.op(op);
    let f32_add =
        data.attrs.str("atomic_rmw_op") == Some("fadd") && body.ty(data.results[0]).dtype() == DType::F32;
    target.atomic_vector_bits(f32_add)
}

/// The layout that vectorizes an access through pointers of type `ty` with facts `info`, each
/// thread moving up to `max_bits` with one instruction.
pub(crate) fn coalesced_layout(
    ty: &Type,
    info: &axis_info::AxisInfo,
    max_bits: u64,
    threads_per_warp: u32,
    num_warps: u32,
) -> Blocked {
    let shape = ty.shape();
    let rank = shape.len();
    // Dims by contiguity, highest first; the sort is stable, so ties keep row-major order.
    let mut order: Vec<u32> = (0..rank as u32).rev().collect();
    order.sort_by_key(|&dim| std::cmp::Reverse(info.contiguity[dim as usize]));
    let fastest = order[0] as usize;

    // i1 elements travel as bytes.
    let elem_bits = (ty.dtype().bits() as u64).max(8);
    let elem_bytes = elem_bits / 8;
    let aligned = (info.divisibility[fastest] / elem_bytes).max(1);
    let contiguous = info.contiguity[fastest].min(shape[fastest] as u64);
    let mut per_thread = aligned.min(contiguous).min(max_bits / elem_bits).max(1);
    let threads = (threads_per_warp * num_warps) as u64;
    per_thread = per_thread.min((ty.numel() / threads).max(1));
    // Vector widths are powers of two (the layout bases are).
    let per_thread = 1u32 << (63 - per_thread.leading_zeros());

    let mut size_per_thread = vec![1; rank];
    size_per_thread[fastest] = per_thread;
    Blocked::for_shape(shape, size_per_thread, order, threads_per_warp, num_warps)
}

/// Moves `op` to `encoding`: converts its tensor operands before it and its result back after.
/// Returns the result and its conversion back, whose readers the caller moves to the conversion.
fn rewrite(body: &mut Body, op: Op, encoding: Encoding) -> Option<(Value, Value)> {
    let block = body.op(op).parent?;
    let span = body.span(op);
    let index = body.position(block, op);
    let mut builder = Builder::at(body, block, index);
    builder.span = span;
    let operands = builder.body.op(op).operands.clone();
    let mut converted = Vec::with_capacity(operands.len());
    for operand in operands {
        let ty = builder.ty(operand);
        if !ty.is_tensor() {
            converted.push(operand);
            continue;
        }
        let want = ty.with_encoding(Some(encoding.clone()));
        converted.push(builder.value(Opcode::ConvertLayout, vec![operand], want, Attrs::new()));
    }
    body.ops[op].operands = converted;

    let &result = body.op(op).results.first()?;
    let old = body.ty(result).clone();
    body.values[result].ty = old.with_encoding(Some(encoding));
    let index = body.position(block, op) + 1;
    let mut builder = Builder::at(body, block, index);
    builder.span = span;
    let back = builder.value(Opcode::ConvertLayout, vec![result], old, Attrs::new());
    Some((result, back))
}
