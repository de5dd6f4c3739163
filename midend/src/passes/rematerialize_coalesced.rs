//! Coalesced loads whose address computation could not move: recompute the addresses in the
//! coalesced layout instead of giving up vectorization.
//!
//! remove-layout-conversions gives a load back its old layout when the pointer's class contains
//! ops whose layout it does not move (broadcast, expand_dims: every 2-D tile pointer). This pass
//! takes such loads again when their values only feed `tt.dot` A/B operands (any other user
//! would need the result converted back through shared memory) and the axis analysis allows
//! wider accesses than the load's layout gives. It rebuilds the pointer, mask and `other` in the
//! coalesced layout by cloning their pure producers (splat, make_range, constants, expand_dims
//! through slices, broadcast, elementwise arithmetic, addptr) in that layout, gives the load that
//! layout and converts its result back. A conversion whose only users are `tt.dot` operands is
//! then dropped: dots stage their operands through shared memory from any layout. If a producer
//! cannot be cloned (a load, a block argument), the load is left as it is.
//!
//! Atomics get the same treatment for another reason: remove-layout-conversions lets a
//! `tt.atomic_rmw` follow its neighbourhood, and a layout that gives each thread more elements
//! than one atomic vector holds (8 f16 loads beside f32 atomics) makes every warp instruction
//! touch twice the L2 sectors, which bounds atomic throughput. An atomic over contiguous
//! addresses whose coalesced layout (as wide as one atomic instruction of the target updates:
//! [`Target::atomic_vector_bits`], one element on Vulkan and sm_80) differs from its layout takes
//! it, as Triton anchors atomics: its pointer and mask are rebuilt as above, and its value (and a
//! mask that cannot be rebuilt) is converted through shared memory.
//!
//! Stores likewise, where the stored value arrives through a `ttg.convert_layout` (a matmul
//! epilogue: the accumulator leaves the MMA layout): remove-layout-conversions gave the store
//! its neighbourhood's layout because the accumulator's class held the dot, but once the value
//! is converted anyway, converting it to the coalesced layout costs the same and every thread
//! stores whole vectors. The pointer and mask are rebuilt; the value is converted from the
//! conversion's source. Off tensor-core layouts (Vulkan) such a store takes the source's layout
//! instead where it still gives each thread runs of 4 bytes or more (a dot's register tile): the
//! conversion goes, and the workgroup memory it would hold beside the kernel's other arrays.
//!
//! Expects: TTGIR after the layout passes. Guarantees: the same values; loads vectorized where
//! the addresses allow it.

use std::collections::HashMap;

use crate::analysis::axis_info;
use crate::ir::{Attrs, Body, Builder, Module, Op, Opcode, Type, Value};
use crate::layout::{Blocked, Encoding};
use crate::passes::coalesce::{coalesced_layout, max_vector_bits};
use crate::passes::uses::users_in;
use crate::target::Target;

pub fn run(module: &mut Module, target: &Target) {
    let num_warps = module.attrs.int("ttg.num-warps").unwrap_or(4) as u32;
    let threads_per_warp = module.attrs.int("ttg.threads-per-warp").unwrap_or(32) as u32;
    for function in &mut module.functions {
        let infos = axis_info::analyze(function);
        let body = &mut function.body;
        let ops = body.walk(function.entry);
        let users = users_in(body, &ops);
        let memory: Vec<Op> = ops
            .into_iter()
            .filter(|&op| matches!(body.opcode(op), Opcode::Load | Opcode::AtomicRmw | Opcode::Store))
            .collect();
        for op in memory {
            let ptr = body.op(op).operands[0];
            let ty = body.ty(ptr).clone();
            let (Some(Encoding::Blocked(current)), Some(info)) = (ty.encoding(), infos.get(ptr)) else {
                continue;
            };
            if let Some(source) = store_in_source_layout(body, op, info, target) {
                rewrite(body, op, source, |slot| slot == 1);
                continue;
            }
            let max_bits = max_vector_bits(body, op, target);
            let wanted = coalesced_layout(&ty, info, max_bits, threads_per_warp, num_warps);
            let width = |b: &Blocked| b.size_per_thread.iter().product::<u32>();
            let (wider, tile) = (width(&wanted) > width(current), ty.shape().len() >= 2);
            let (take, may_convert): (bool, fn(usize) -> bool) = match body.opcode(op) {
                Opcode::Load => {
                    (tile && wider && feeds_only_dots(body, &users, body.op(op).results[0]), |_| false)
                }
                // The pointer is rebuilt; the value and the mask may travel through a conversion.
                Opcode::AtomicRmw => {
                    let contiguous = info.contiguity.iter().any(|&run| run > 1);
                    (contiguous && width(&wanted) != width(current), |slot| slot > 0)
                }
                // Only a value that arrives through a conversion: converting it to the wider
                // layout instead costs the same.
                _ => {
                    let value = body.op(op).operands[1];
                    let converted =
                        body.def_op(value).is_some_and(|d| body.opcode(d) == Opcode::ConvertLayout);
                    (tile && wider && converted, |slot| slot == 1)
                }
            };
            if take {
                rewrite(body, op, Encoding::Blocked(wanted), may_convert);
            }
        }
        drop_conversions_into_dots(body, function.entry);
    }
}

/// Off tensor-core layouts (Vulkan), a store whose 2-D value arrives through a conversion from a
/// layout that still gives each thread runs of at least 4 bytes along the pointer's contiguous
/// dim (a dot's register tile: attention's output, an FMA GEMM's tile) stores in that layout
/// instead: the value's conversion goes, and with it the shared memory it needed (on Vulkan a
/// kernel's workgroup arrays are all live at once, so a conversion's scratch after the loop
/// shrinks what a cooperative dot in the loop may stage). Returns the source layout.
fn store_in_source_layout(
    body: &Body,
    op: Op,
    info: &axis_info::AxisInfo,
    target: &Target,
) -> Option<Encoding> {
    if body.opcode(op) != Opcode::Store || target.compute_capability.is_some() {
        return None;
    }
    let value = body.op(op).operands[1];
    let conversion = body.def_op(value).filter(|&d| body.opcode(d) == Opcode::ConvertLayout)?;
    let source = body.ty(body.op(conversion).operands[0]);
    let Some(Encoding::Blocked(layout)) = source.encoding() else { return None };
    let shape = source.shape();
    if shape.len() != 2 {
        return None;
    }
    // The pointer's contiguous dim, and the run of elements a thread holds along it.
    let fastest = if info.contiguity[1] >= info.contiguity[0] { 1 } else { 0 };
    let run = u64::from(layout.size_per_thread[fastest]).min(info.contiguity[fastest]);
    let bytes = run * (u64::from(source.dtype().bits()) / 8).max(1);
    (bytes >= 4).then(|| Encoding::Blocked(layout.clone()))
}

/// Moves memory op `op` to layout `enc`: each operand is rebuilt in `enc` from clones of its
/// producers, or, where `may_convert(slot)`, converted when it cannot be (from the source of
/// the conversion it arrives through, if any); the result, if any, is converted back for its
/// users.
fn rewrite(body: &mut Body, op: Op, enc: Encoding, may_convert: impl Fn(usize) -> bool) {
    let Some(block) = body.op(op).parent else { return };
    let index = body.blocks[block].ops.iter().position(|&o| o == op).unwrap_or(0);
    let span = body.span(op);
    // Clone into a scratch position first; give up (and let DCE drop the clones) if any operand
    // cannot be rebuilt.
    let operands = body.op(op).operands.clone();
    let mut b = Builder::at(body, block, index);
    b.span = span;
    let mut memo = HashMap::new();
    let mut rebuilt = Vec::new();
    for (slot, &v) in operands.iter().enumerate() {
        let want = b.ty(v).with_encoding(Some(enc.clone()));
        match rebuild(&mut b, v, &want, &mut memo) {
            Some(x) => rebuilt.push(x),
            None if may_convert(slot) => {
                // A value that arrives through a conversion is converted from its source (or is
                // its source, already in the layout).
                let conversion = b.body.def_op(v).filter(|&d| b.body.opcode(d) == Opcode::ConvertLayout);
                let source = conversion.map_or(v, |d| b.body.op(d).operands[0]);
                if b.ty(source) == want {
                    rebuilt.push(source);
                } else {
                    rebuilt.push(b.value(Opcode::ConvertLayout, vec![source], want, Attrs::new()));
                }
            }
            None => return,
        }
    }
    let inserted = b.position.unwrap_or(index) - index;
    body.ops[op].operands = rebuilt;
    let Some(&result) = body.op(op).results.first() else { return };
    let old_ty = body.ty(result).clone();
    body.values[result].ty = old_ty.with_encoding(Some(enc));
    let mut b = Builder::at(body, block, index + inserted + 1);
    b.span = span;
    let back = b.value(Opcode::ConvertLayout, vec![result], old_ty, Attrs::new());
    let back_op = body.def_op(back);
    for user in body.walk(block) {
        // A conversion converts from the new layout directly (attention's `Q`, loaded coalesced
        // and converted to the MMA layout: one trip through shared memory, not two).
        if Some(user) == back_op || body.opcode(user) == Opcode::ConvertLayout {
            continue;
        }
        for operand in body.ops[user].operands.iter_mut() {
            if *operand == result {
                *operand = back;
            }
        }
    }
}

/// `v` rebuilt with type `want` from clones of its producers; `None` when a producer cannot be
/// cloned.
pub(crate) fn rebuild(
    b: &mut Builder,
    v: Value,
    want: &Type,
    memo: &mut HashMap<(Value, String), Value>,
) -> Option<Value> {
    if b.ty(v) == *want || !want.is_tensor() {
        return Some(v);
    }
    let key = (v, want.to_string());
    if let Some(&x) = memo.get(&key) {
        return Some(x);
    }
    let op = b.body.def_op(v)?;
    let data = b.body.op(op).clone();
    let enc = want.encoding()?.clone();
    let x = match data.opcode {
        Opcode::Constant | Opcode::MakeRange => {
            b.value(data.opcode, vec![], want.clone(), data.attrs.clone())
        }
        Opcode::Splat => b.value(Opcode::Splat, data.operands.clone(), want.clone(), Attrs::new()),
        Opcode::ConvertLayout => rebuild(b, data.operands[0], want, memo)?,
        Opcode::ExpandDims => {
            let axis = data.attrs.int("axis")? as u32;
            let x = data.operands[0];
            let slice = Encoding::Slice { dim: axis, parent: Box::new(enc) };
            let operand = rebuild(b, x, &b.ty(x).with_encoding(Some(slice)), memo)?;
            b.value(Opcode::ExpandDims, vec![operand], want.clone(), data.attrs.clone())
        }
        Opcode::Broadcast => {
            let x = data.operands[0];
            let operand = rebuild(b, x, &b.ty(x).with_encoding(Some(enc)), memo)?;
            b.value(Opcode::Broadcast, vec![operand], want.clone(), Attrs::new())
        }
        o if elementwise(o) => {
            let mut operands = Vec::new();
            for &x in &data.operands {
                let t = b.ty(x);
                let y =
                    if t.is_tensor() { rebuild(b, x, &t.with_encoding(Some(enc.clone())), memo)? } else { x };
                operands.push(y);
            }
            b.value(data.opcode, operands, want.clone(), data.attrs.clone())
        }
        _ => return None,
    };
    memo.insert(key, x);
    Some(x)
}

/// Ops whose operands and result share one shape and layout, and which are cheap to recompute.
fn elementwise(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        AddI | SubI
            | MulI
            | DivSI
            | DivUI
            | RemSI
            | RemUI
            | AndI
            | OrI
            | XOrI
            | ShLI
            | ShRSI
            | ShRUI
            | MaxSI
            | MinSI
            | MaxUI
            | MinUI
            | CmpI
            | AddPtr
            | Select
            | ExtSI
            | ExtUI
            | TruncI
            | Bitcast
    )
}

/// Whether `v` is used only as a `tt.dot` A or B operand, directly or through layout
/// conversions. Only such loads are worth re-coalescing: the dot takes any layout, while any
/// other user would need the result converted back through shared memory.
fn feeds_only_dots(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, v: Value) -> bool {
    let Some(uses) = users.get(&v) else { return false };
    uses.iter().all(|&(u, i)| match body.opcode(u) {
        op if op.is_dot() => i < 2,
        Opcode::ConvertLayout => feeds_only_dots(body, users, body.op(u).results[0]),
        _ => false,
    })
}

/// A conversion used only as `tt.dot` operands A or B is unnecessary: the dot stages those
/// through shared memory from whatever layout they arrive in. Not so a conversion to the MMA
/// layout in which a warpgroup dot reads A from registers (accelerate-matmul's, for chained
/// dots).
fn drop_conversions_into_dots(body: &mut Body, entry: crate::ir::Block) {
    let ops = body.walk(entry);
    let users = users_in(body, &ops);
    for op in ops {
        if body.opcode(op) != Opcode::ConvertLayout || body.op(op).parent.is_none() {
            continue;
        }
        let r = body.op(op).results[0];
        let Some(uses) = users.get(&r) else { continue };
        let register_operand = matches!(body.ty(r).encoding(), Some(Encoding::Mma(_)))
            && uses.iter().any(|&(u, i)| body.opcode(u) == Opcode::WarpGroupDot && i == 0);
        if !register_operand && uses.iter().all(|&(u, i)| body.opcode(u).is_dot() && i < 2) {
            let src = body.op(op).operands[0];
            for &(u, i) in uses {
                body.ops[u].operands[i] = src;
            }
        }
    }
}
