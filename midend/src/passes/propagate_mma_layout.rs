//! Lets values computed from tensor-core results stay in the MMA layout (the part of Triton's
//! `remove_layout_conversions` that matters for chained dots such as attention), and likewise
//! values computed from the register tile of a dot off tensor-core layouts (an FMA dot, or any dot
//! on Vulkan: "MMA-derived" below reads "derived from a dot's layout").
//!
//! After accelerate-matmul, a dot result is converted back to a blocked layout before anything
//! else uses it, and every use in a loop pays a trip through shared memory. This pass starts from
//! each such conversion and moves it forward: the users that work in any layout take the MMA-derived
//! layout instead:
//! - elementwise ops (arithmetic, math, comparisons, select, casts): the same layout;
//! - `tt.reduce`: `#slice<axis, layout>`; `tt.expand_dims` of `#slice<axis, P>`: `P`;
//! - `tt.broadcast`: the same layout on the larger shape;
//! - a conversion to the layout the value now has disappears, others start from the value;
//! - the A and B operands of `tt.dot`, which are staged through shared memory from any layout.
//!
//! The change then propagates to their users in turn. Other operands of a rewritten op are
//! converted to its new layout (splats and constants are rebuilt in it, which is free). Users that
//! need the old layout (memory ops, dot operands, yields) get a conversion right before them.
//! Finally, loop-carried values whose uses are all conversions to one layout are carried in it
//! (accelerate-matmul's second phase), which moves the remaining conversions out of loops.
//!
//! Expects: TTGIR after accelerate-matmul. Guarantees: a verified module computing the same
//! values with fewer layout conversions inside loops.

use std::collections::HashSet;

use crate::ir::{Attrs, Body, Builder, Module, Op, Opcode, Type, Value};
use crate::layout::Encoding;
use crate::passes::accelerate_matmul::carry_in_converted_layout;
use crate::passes::rematerialize_coalesced::rebuild;

/// Propagates every MMA-derived layout forward, then lifts conversions out of loops, then
/// propagates again from the conversions that lifting placed after the loops (attention's
/// epilogue `acc / l_i` then runs in the accumulator's layout).
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let dots = DotLayouts::of(body, function.entry);
        propagate_all(body, function.entry, &dots);
        let loops: Vec<Op> =
            body.walk(function.entry).into_iter().filter(|&op| body.opcode(op) == Opcode::For).collect();
        for &lp in &loops {
            rebuild_conversions_into_mma(body, lp, &dots);
        }
        for lp in loops {
            carry_in_converted_layout(body, lp);
        }
        propagate_all(body, function.entry, &dots);
    }
}

/// The layouts dots produce: MMA layouts, and the blocked register tiles accelerate-matmul gives
/// dots that stay off tensor-core layouts (FMA, and on Vulkan the dots the backend may run on
/// cooperative matrices, whose registers are staged through shared memory from any layout).
struct DotLayouts(Vec<Encoding>);

impl DotLayouts {
    fn of(body: &Body, entry: crate::ir::Block) -> DotLayouts {
        let mut layouts = Vec::new();
        for op in body.walk(entry) {
            if matches!(body.opcode(op), Opcode::Dot | Opcode::WarpGroupDot) {
                if let Some(enc) = body.ty(body.op(op).results[0]).encoding() {
                    if !layouts.contains(enc) {
                        layouts.push(enc.clone());
                    }
                }
            }
        }
        DotLayouts(layouts)
    }

    /// Whether the encoding comes from a dot's layout (the layout itself or a slice of it).
    fn derived(&self, e: Option<&Encoding>) -> bool {
        match e {
            Some(Encoding::Mma(_)) => true,
            Some(Encoding::Slice { parent, .. }) => self.derived(Some(parent)),
            Some(other) => self.0.contains(other),
            None => false,
        }
    }
}

/// Propagates from every seed conversion until none is left.
fn propagate_all(body: &mut Body, entry: crate::ir::Block, dots: &DotLayouts) {
    // Each round removes at least one seed conversion; the bound only guards against a bug.
    for _ in 0..64 {
        let seed = body.walk(entry).into_iter().find(|&op| is_seed(body, op, dots));
        let Some(seed) = seed else { break };
        propagate(body, seed);
    }
}

/// In the body of loop `lp`, a conversion to an MMA-derived layout of a value computed by cheap
/// pure ops (ranges, splats, constants, shape ops, integer arithmetic and comparisons: causal
/// attention's mask `q_rows[:, None] >= kv_rows[None, :]`) is replaced by those ops recomputed in
/// that layout, as Triton's backward rematerialization does: a few instructions instead of a trip
/// through shared memory, with two barriers, per iteration. The conversion is left for DCE.
fn rebuild_conversions_into_mma(body: &mut Body, lp: Op, dots: &DotLayouts) {
    let region = body.op(lp).regions[0];
    let converts: Vec<Op> = body.blocks[region]
        .ops
        .iter()
        .copied()
        .filter(|&op| {
            body.opcode(op) == Opcode::ConvertLayout
                && dots.derived(body.ty(body.op(op).results[0]).encoding())
        })
        .collect();
    for convert in converts {
        let (src, result) = (body.op(convert).operands[0], body.op(convert).results[0]);
        if dots.derived(body.ty(src).encoding()) {
            continue;
        }
        let index = body.position(region, convert);
        let want = body.ty(result).clone();
        let span = body.span(convert);
        let mut b = Builder::at(body, region, index);
        b.span = span;
        let mut memo = std::collections::HashMap::new();
        if let Some(rebuilt) = rebuild(&mut b, src, &want, &mut memo) {
            body.replace_uses(region, &std::collections::HashMap::from([(result, rebuilt)]));
        }
    }
}

/// A conversion from an MMA-derived layout to another one, with a user that could take the
/// MMA-derived layout instead.
fn is_seed(body: &Body, op: Op, dots: &DotLayouts) -> bool {
    if body.opcode(op) != Opcode::ConvertLayout {
        return false;
    }
    let (src, dst) = (body.op(op).operands[0], body.op(op).results[0]);
    if !dots.derived(body.ty(src).encoding()) || dots.derived(body.ty(dst).encoding()) {
        return false;
    }
    let enc = body.ty(src).encoding().cloned();
    uses(body, op, dst).iter().any(|&(user, _)| flexible(body, user, enc.as_ref()))
}

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
            | MulHiUI
            | AddF
            | SubF
            | MulF
            | DivF
            | RemF
            | NegF
            | MaxNumF
            | MinNumF
            | MaximumF
            | MinimumF
            | CmpF
            | Select
            | PreciseSqrt
            | PreciseDivF
            | ClampF
            | Exp
            | Exp2
            | Log
            | Log2
            | Sqrt
            | Rsqrt
            | Sin
            | Cos
            | Tanh
            | AbsF
            | AbsI
            | Floor
            | Ceil
            | Erf
            | Fma
            | ExtSI
            | ExtUI
            | TruncI
            | ExtF
            | TruncF
            | FpToFp
            | SIToFP
            | UIToFP
            | FPToSI
            | FPToUI
    )
}

/// Whether `op` can take an operand in layout `enc` by changing its own result layouts.
fn flexible(body: &Body, op: Op, enc: Option<&Encoding>) -> bool {
    let data = body.op(op);
    match data.opcode {
        o if elementwise(o) => data.results.len() == 1 && body.ty(data.results[0]).is_tensor(),
        Opcode::Reduce | Opcode::Broadcast => true,
        Opcode::ExpandDims => {
            let axis = data.attrs.int("axis").unwrap_or(-1);
            matches!(enc, Some(Encoding::Slice { dim, .. }) if *dim as i64 == axis)
        }
        Opcode::ConvertLayout => true,
        op if op.is_dot() => data.operands.len() == 3,
        _ => false,
    }
}

/// Uses of `v` by ops in the same function, as (user, operand index); `within` is the op
/// defining or owning `v`, whose block (and the blocks nested under it) are searched.
fn uses(body: &Body, within: Op, v: Value) -> Vec<(Op, usize)> {
    let mut block = body.op(within).parent;
    // Walk up to the outermost block so that uses in enclosing and nested regions are found.
    while let Some(b) = block {
        match body.blocks[b].parent_op.and_then(|p| body.op(p).parent) {
            Some(outer) => block = Some(outer),
            None => break,
        }
    }
    let Some(root) = block else { return Vec::new() };
    let mut out = Vec::new();
    for op in body.walk(root) {
        for (i, &o) in body.op(op).operands.iter().enumerate() {
            if o == v {
                out.push((op, i));
            }
        }
    }
    out
}

/// The position of `op` in its block.
fn position(body: &Body, op: Op) -> Option<(crate::ir::Block, usize)> {
    let block = body.op(op).parent?;
    Some((block, body.blocks[block].ops.iter().position(|&o| o == op)?))
}

/// `v` as a value of type `ty` right before `user`: a rebuilt splat or constant when that is
/// free, a conversion otherwise.
fn in_type_before(body: &mut Body, user: Op, v: Value, ty: &Type) -> Value {
    if body.ty(v) == ty {
        return v;
    }
    let Some((block, index)) = position(body, user) else { return v };
    let span = body.span(user);
    let def = body.def_op(v);
    let mut b = Builder::at(body, block, index);
    b.span = span;
    match def.map(|d| (d, b.body.opcode(d))) {
        Some((d, Opcode::Constant)) => {
            let attrs = b.body.op(d).attrs.clone();
            b.value(Opcode::Constant, vec![], ty.clone(), attrs)
        }
        Some((d, Opcode::Splat)) => {
            let scalar = b.body.op(d).operands[0];
            b.value(Opcode::Splat, vec![scalar], ty.clone(), Attrs::new())
        }
        _ => b.value(Opcode::ConvertLayout, vec![v], ty.clone(), Attrs::new()),
    }
}

/// A value whose layout changed, its previous type, and the uses still to fix up.
type Changed = (Value, Type, Vec<(Op, usize)>);

fn propagate(body: &mut Body, seed: Op) {
    let src = body.op(seed).operands[0];
    let old = body.op(seed).results[0];
    let old_ty = body.ty(old).clone();
    // The seed's users now read `src` directly; fix each of them up.
    let mut work: Vec<Changed> = vec![(src, old_ty, uses(body, seed, old))];
    for &(user, i) in &work[0].2 {
        body.ops[user].operands[i] = src;
    }
    body.detach_op(seed);
    let mut retyped: HashSet<Op> = HashSet::new();
    while let Some((v, old_ty, users)) = work.pop() {
        let enc = body.ty(v).encoding().cloned();
        for (user, i) in users {
            if body.op(user).parent.is_none() || body.op(user).operands.get(i) != Some(&v) {
                continue;
            }
            let accumulator = body.opcode(user).is_dot() && i == 2;
            if !accumulator && !retyped.contains(&user) && flexible(body, user, enc.as_ref()) {
                if let Some(changed) = retype(body, user, v, enc.as_ref()) {
                    // Conversions and dots can meet the value again through another operand.
                    if !(body.opcode(user) == Opcode::ConvertLayout || body.opcode(user).is_dot()) {
                        retyped.insert(user);
                    }
                    for (r, before) in changed {
                        let users = uses(body, user, r);
                        work.push((r, before, users));
                    }
                    continue;
                }
            }
            // The user needs the old layout: convert back right before it.
            let back = in_type_before(body, user, v, &old_ty);
            body.ops[user].operands[i] = back;
        }
    }
}

/// Rewrites `op` (one of whose operands is `v`, now in `enc`) to produce layouts derived from
/// `enc`; returns its results with their previous types, or `None` if it cannot.
fn retype(body: &mut Body, op: Op, v: Value, enc: Option<&Encoding>) -> Option<Vec<(Value, Type)>> {
    let data = body.op(op).clone();
    let enc = enc?.clone();
    let results: Vec<(Value, Type)> = data.results.iter().map(|&r| (r, body.ty(r).clone())).collect();
    match data.opcode {
        Opcode::ConvertLayout => {
            // A conversion to what the value already is disappears; any other conversion now
            // starts from the value itself (no chain of two conversions).
            if body.ty(v) == body.ty(data.results[0]) {
                let r = data.results[0];
                let all: Vec<(Op, usize)> = uses(body, op, r);
                for (u, i) in all {
                    body.ops[u].operands[i] = v;
                }
                body.detach_op(op);
            } else {
                body.ops[op].operands[0] = v;
            }
            Some(Vec::new())
        }
        Opcode::Dot | Opcode::WarpGroupDot => {
            // Dot operands are staged through shared memory from whatever layout they have.
            Some(Vec::new())
        }
        Opcode::Reduce => {
            let axis = data.attrs.int("axis")? as u32;
            for (i, &x) in data.operands.iter().enumerate() {
                let want = body.ty(x).with_encoding(Some(enc.clone()));
                let y = in_type_before(body, op, x, &want);
                body.ops[op].operands[i] = y;
            }
            let slice = Encoding::Slice { dim: axis, parent: Box::new(enc) };
            for (r, ty) in &results {
                if ty.is_tensor() {
                    body.values[*r].ty = ty.with_encoding(Some(slice.clone()));
                }
            }
            Some(results.into_iter().filter(|(_, t)| t.is_tensor()).collect())
        }
        Opcode::ExpandDims => {
            let Encoding::Slice { parent, .. } = enc else { return None };
            let (r, ty) = results[0].clone();
            body.values[r].ty = ty.with_encoding(Some(*parent));
            Some(vec![(r, ty)])
        }
        Opcode::Broadcast => {
            let (r, ty) = results[0].clone();
            body.values[r].ty = ty.with_encoding(Some(enc));
            Some(vec![(r, ty)])
        }
        _ => {
            // Elementwise: every tensor operand and the result in `enc`.
            for (i, &x) in data.operands.iter().enumerate() {
                if !body.ty(x).is_tensor() {
                    continue;
                }
                let want = body.ty(x).with_encoding(Some(enc.clone()));
                let y = in_type_before(body, op, x, &want);
                body.ops[op].operands[i] = y;
            }
            let (r, ty) = results[0].clone();
            body.values[r].ty = ty.with_encoding(Some(enc));
            Some(vec![(r, ty)])
        }
    }
}
