//! Pipeline the loads that feed `tt.dot` one iteration ahead, into registers.
//!
//! A K loop `for k: a = load(pa(k)); b = load(pb(k)); acc = dot(a, b, acc)` waits for each tile
//! from global memory before the tensor cores can start on it: the whole load latency is exposed
//! once per iteration. Triton's pipeliner (num_stages >= 2) issues the loads of later iterations
//! while the current one computes, through asynchronous copies into a ring of shared buffers.
//! This pass does the first step of that schedule with registers instead: the loads of
//! iteration `k + 1` are issued in iteration `k`, right before the dot, and carried to the next
//! iteration as extra iter args. A prologue before the loop loads iteration `lb`.
//!
//! ```text
//! a0 = load(pa(lb), mask & lb < ub)
//! for k (.., a = a0):
//!     a_next = load(pa(k + step), mask(k + step) & k + step < ub)
//!     acc = dot(a, b, acc)
//!     yield .., a_next
//! ```
//!
//! The address and mask computations of a pipelined load are cloned with the induction variable
//! advanced by one step and each carried value replaced by the value the iteration yields for it
//! (cloned before the dot as well). The extra `< ub` term keeps the loads past the last iteration
//! off memory. Eligible loads: top-level ops of the loop body whose results feed only dot A/B
//! operands (directly or through layout conversions), and whose address and mask come from pure,
//! region-free ops of the body, the induction variable, values from outside the loop, and carried
//! values whose next value is computed the same way (no loads, no dots). Loops holding anything
//! else keep their loads where they are.
//!
//! Expects: TTGIR after the layout passes (the loads keep the layouts they were given; clones
//! share them). Guarantees: the same values, each load's memory touched in the same iterations
//! (masked-off copies touch none); one more set of operand registers live across the dot.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    Attrs, Block, Body, Builder, DType, Effect, Module, Op, Opcode, Type, Value, ValueData, ValueDef,
};
use crate::target::Target;

/// The most 32-bit registers per thread that the accumulators and two copies of the pipelined
/// operands may take. Past it the extra copy spills: measured on an H200, a 128x256x64 fp16 tile
/// over 8 warps (128 accumulator and 2 x 48 operand registers) ran at 194 TFLOP/s pipelined
/// against 240 without, while a 128x128x32 tf32 tile (64 + 2 x 32) went from 84 to 101.
const REGISTER_BUDGET: u64 = 160;

/// Pipelines the dot operand loads of every `scf.for` when `target.num_stages >= 2`.
pub fn run(module: &mut Module, target: &Target) {
    if target.num_stages < 2 {
        return;
    }
    let threads = target.threads_per_program() as u64;
    for function in &mut module.functions {
        let body = &mut function.body;
        let loops: Vec<Op> =
            body.walk(function.entry).into_iter().filter(|&op| body.opcode(op) == Opcode::For).collect();
        for lp in loops {
            pipeline(body, lp, threads);
        }
    }
}

/// 32-bit registers per thread that a tensor of type `ty` takes when spread over `threads`.
fn registers(ty: &Type, threads: u64) -> u64 {
    (ty.numel() * ty.dtype().bits() as u64).div_ceil(32 * threads)
}

/// One loop: finds its eligible loads and, if there are any and they fit the register budget,
/// rewrites the loop.
fn pipeline(body: &mut Body, lp: Op, threads: u64) {
    let region = body.op(lp).regions[0];
    let top: Vec<Op> = body.blocks[region].ops.clone();
    let Some(&yield_op) = top.last() else { return };
    // A nested loop or branch may hold the uses; keep to flat bodies.
    if top.iter().any(|&op| !body.op(op).regions.is_empty()) {
        return;
    }
    let users = users_in(body, &top);
    let loads: Vec<Op> = top
        .iter()
        .copied()
        .filter(|&op| {
            body.opcode(op) == Opcode::Load
                && body.ty(body.op(op).results[0]).is_tensor()
                && feeds_only_dot_operands(body, &users, body.op(op).results[0])
        })
        .collect();
    if loads.is_empty() {
        return;
    }
    let accumulators: u64 = top
        .iter()
        .filter(|&&op| body.opcode(op) == Opcode::Dot)
        .map(|&op| registers(body.ty(body.op(op).results[0]), threads))
        .sum();
    let operands: u64 = loads.iter().map(|&l| registers(body.ty(body.op(l).results[0]), threads)).sum();
    if accumulators + 2 * operands > REGISTER_BUDGET {
        return;
    }
    let in_body: HashSet<Op> = top.iter().copied().collect();
    let args = body.blocks[region].args.clone();
    let yields = body.op(yield_op).operands.clone();
    // Every load's operands must be recomputable for the next iteration.
    let mut checked = HashMap::new();
    for &load in &loads {
        for &operand in &body.op(load).operands {
            if !recomputable(body, &in_body, &args, &yields, operand, &mut checked) {
                return;
            }
        }
    }
    // The carried values the loads' addresses read (directly or through other carried values).
    let carried: Vec<usize> =
        (1..args.len()).filter(|&k| checked.get(&args[k]).copied().unwrap_or(false)).collect();
    rewrite(body, lp, &loads, &carried, &users);
}

/// Every use of the values the ops define, as (user, operand index), among `ops`.
fn users_in(body: &Body, ops: &[Op]) -> HashMap<Value, Vec<(Op, usize)>> {
    let mut users: HashMap<Value, Vec<(Op, usize)>> = HashMap::new();
    for &op in ops {
        for (slot, &v) in body.op(op).operands.iter().enumerate() {
            users.entry(v).or_default().push((op, slot));
        }
    }
    users
}

/// Whether `v` is used, and only as a `tt.dot` A or B operand (directly or through layout
/// conversions; an unused conversion, left for DCE, does not count).
fn feeds_only_dot_operands(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, v: Value) -> bool {
    fn only_dots(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, v: Value) -> bool {
        users.get(&v).into_iter().flatten().all(|&(user, slot)| match body.opcode(user) {
            Opcode::Dot => slot < 2,
            Opcode::ConvertLayout => only_dots(body, users, body.op(user).results[0]),
            _ => false,
        })
    }
    users.contains_key(&v) && only_dots(body, users, v)
}

/// Whether `v` can be computed for the next iteration: defined outside the body, the induction
/// variable, a carried value whose yielded value is recomputable, or the result of a pure,
/// single-result op of the body whose operands are recomputable.
fn recomputable(
    body: &Body,
    in_body: &HashSet<Op>,
    args: &[Value],
    yields: &[Value],
    v: Value,
    checked: &mut HashMap<Value, bool>,
) -> bool {
    if let Some(&answer) = checked.get(&v) {
        return answer;
    }
    // Cycles through carried values are fine: assume yes while looking.
    checked.insert(v, true);
    let answer = if let Some(k) = args.iter().position(|&a| a == v) {
        k == 0 || recomputable(body, in_body, args, yields, yields[k - 1], checked)
    } else {
        match body.def_op(v) {
            Some(op) if in_body.contains(&op) => {
                let data = body.op(op);
                let info = data.opcode.info();
                info.effect == Effect::Pure
                    && info.regions == 0
                    && data.results.len() == 1
                    && data.opcode != Opcode::Dot
                    && data.operands.iter().all(|&x| recomputable(body, in_body, args, yields, x, checked))
            }
            // Defined outside the loop, or an argument of an enclosing block.
            _ => true,
        }
    };
    checked.insert(v, answer);
    answer
}

/// Clones the ops of the loop body that compute `v` at the builder's position, reading
/// `map[x]` wherever the computation reads `x` (memoized in `map`).
fn clone_with(b: &mut Builder, in_body: &HashSet<Op>, v: Value, map: &mut HashMap<Value, Value>) -> Value {
    if let Some(&x) = map.get(&v) {
        return x;
    }
    let Some(op) = b.body.def_op(v).filter(|op| in_body.contains(op)) else { return v };
    let data = b.body.op(op).clone();
    let operands: Vec<Value> = data.operands.iter().map(|&x| clone_with(b, in_body, x, map)).collect();
    let ty = b.body.ty(v).clone();
    let clone = b.value(data.opcode, operands, ty, data.attrs.clone());
    map.insert(v, clone);
    clone
}

/// A copy of `load` reading through `map`, with its mask narrowed to `live` (an `i1` scalar).
fn clone_load(
    b: &mut Builder,
    in_body: &HashSet<Op>,
    load: Op,
    live: Value,
    map: &mut HashMap<Value, Value>,
) -> Value {
    let data = b.body.op(load).clone();
    let mut operands: Vec<Value> = data.operands.iter().map(|&x| clone_with(b, in_body, x, map)).collect();
    let ptr_ty = b.ty(operands[0]);
    let mask_ty = ptr_ty.with_elem(crate::ir::Elem::Scalar(DType::I1));
    let live = b.value(Opcode::Splat, vec![live], mask_ty.clone(), Attrs::new());
    match operands.get(1).copied() {
        Some(mask) => operands[1] = b.value(Opcode::AndI, vec![mask, live], mask_ty, Attrs::new()),
        None => operands.push(live),
    }
    let ty = b.body.ty(data.results[0]).clone();
    b.value(Opcode::Load, operands, ty, data.attrs.clone())
}

/// Rewrites loop `lp` with `loads` pipelined; `carried` are the block-argument indices of the
/// carried values their addresses read.
fn rewrite(
    body: &mut Body,
    lp: Op,
    loads: &[Op],
    carried: &[usize],
    users: &HashMap<Value, Vec<(Op, usize)>>,
) {
    let region = body.op(lp).regions[0];
    let in_body: HashSet<Op> = body.blocks[region].ops.iter().copied().collect();
    let args = body.blocks[region].args.clone();
    let (lb, ub, step) = {
        let o = &body.op(lp).operands;
        (o[0], o[1], o[2])
    };
    let inits: Vec<Value> = body.op(lp).operands[3..].to_vec();
    let yield_op = *body.blocks[region].ops.last().expect("a loop body ends in scf.yield");
    let yields = body.op(yield_op).operands.clone();
    let span = body.span(lp);
    let parent = body.op(lp).parent.expect("the loop is in a block");

    // Prologue: the loads of the first iteration, off memory when the loop runs zero times.
    let index = position(body, parent, lp);
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let runs = b.cmpi("slt", lb, ub);
    let mut first: HashMap<Value, Value> = HashMap::from([(args[0], lb)]);
    first.extend(carried.iter().map(|&k| (args[k], inits[k - 1])));
    let prologue: Vec<Value> =
        loads.iter().map(|&l| clone_load(&mut b, &in_body, l, runs, &mut first)).collect();

    // New iter args: init, block argument, result, one per pipelined load.
    let mut current = Vec::new();
    for (&load, &init) in loads.iter().zip(&prologue) {
        let ty: Type = body.ty(body.op(load).results[0]).clone();
        body.ops[lp].operands.push(init);
        current.push(body.add_block_arg(region, ty.clone()));
        let result_index = body.op(lp).results.len() as u32;
        let result = body.values.append(ValueData { ty, def: ValueDef::Result(lp, result_index) });
        body.ops[lp].results.push(result);
    }

    // In the body, before the first use of a pipelined load: the next iteration's loads.
    let first_use = body.blocks[region]
        .ops
        .iter()
        .position(|&op| {
            loads.iter().any(|&l| {
                users.get(&body.op(l).results[0]).is_some_and(|u| u.iter().any(|&(user, _)| user == op))
            })
        })
        .expect("a pipelined load has a user in the body");
    let mut b = Builder::at(body, region, first_use);
    b.span = span;
    let iv_next = b.value(Opcode::AddI, vec![args[0], step], b.ty(args[0]), Attrs::new());
    let live = b.cmpi("slt", iv_next, ub);
    // The values this iteration yields, computed here (clones; CSE merges the originals).
    let mut same: HashMap<Value, Value> = HashMap::new();
    let mut next: HashMap<Value, Value> = HashMap::from([(args[0], iv_next)]);
    for &k in carried {
        let yielded = clone_with(&mut b, &in_body, yields[k - 1], &mut same);
        next.insert(args[k], yielded);
    }
    let prefetched: Vec<Value> =
        loads.iter().map(|&l| clone_load(&mut b, &in_body, l, live, &mut next)).collect();

    // The body reads the carried loads; the originals die in DCE.
    let map: HashMap<Value, Value> =
        loads.iter().zip(&current).map(|(&l, &c)| (body.op(l).results[0], c)).collect();
    body.replace_uses(region, &map);
    body.ops[yield_op].operands.extend(prefetched);
}

/// The index of `op` in `block`.
fn position(body: &Body, block: Block, op: Op) -> usize {
    body.blocks[block].ops.iter().position(|&o| o == op).expect("the op is in its parent block")
}
