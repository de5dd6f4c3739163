//! Copying ops with their regions, between bodies or within one, mapping the values they read.
//!
//! Inlining copies a helper's ops into the kernel; loop unrolling copies a loop body into a new
//! loop. Both map every value the copies read through a table that the copies extend with their
//! own results and block arguments; values missing from it are read as they are (defined outside
//! what is copied). To copy within one body, clone the source body first.

use std::collections::HashMap;

use super::{Block, Body, Op, Value};

/// Copies one op of `source` (with its regions) into `target`, detached, mapping operands through
/// `value_map` and extending it with the copies' results and block arguments.
pub fn clone_op(target: &mut Body, source: &Body, op: Op, value_map: &mut HashMap<Value, Value>) -> Op {
    let data = source.op(op);
    let regions: Vec<Block> =
        data.regions.iter().map(|&region| clone_block(target, source, region, value_map)).collect();
    let operands: Vec<Value> = data.operands.iter().map(|&v| map_value(value_map, v)).collect();
    let result_types: Vec<_> = data.results.iter().map(|&r| source.ty(r).clone()).collect();
    let copy =
        target.create_op(data.opcode, operands, &result_types, data.attrs.clone(), regions, source.span(op));
    for (&old, &new) in data.results.iter().zip(&target.op(copy).results) {
        value_map.insert(old, new);
    }
    copy
}

/// Copies a region block (arguments and ops) of `source` into `target`.
pub fn clone_block(
    target: &mut Body,
    source: &Body,
    block: Block,
    value_map: &mut HashMap<Value, Value>,
) -> Block {
    let arg_types: Vec<_> = source.blocks[block].args.iter().map(|&a| source.ty(a).clone()).collect();
    let copy = target.new_block(&arg_types);
    for (&old, &new) in source.blocks[block].args.iter().zip(&target.blocks[copy].args) {
        value_map.insert(old, new);
    }
    for &op in &source.blocks[block].ops {
        let op_copy = clone_op(target, source, op, value_map);
        target.append_op(copy, op_copy);
    }
    copy
}

/// The copy of `v`, or `v` itself when it was defined outside what is being copied.
pub fn map_value(value_map: &HashMap<Value, Value>, v: Value) -> Value {
    value_map.get(&v).copied().unwrap_or(v)
}
