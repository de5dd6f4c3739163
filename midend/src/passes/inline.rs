//! Inlining: replaces every `tt.call` by a copy of the callee's body, then deletes the helpers.
//!
//! Why: Triton inlines every `@triton.jit` helper before any other pass (its `inliner` is the
//! first pass of `make_ttir`), so that folding, CSE and the layout passes see one function, and
//! neither backend has to implement calls.
//!
//! Expects: every `tt.call` names, through its `callee` string attribute, a function of the
//! module whose entry block ends in its only `tt.return`. Calls may sit anywhere, nested regions
//! (loop bodies, branches, reduce combine regions) included, and helpers may call helpers.
//!
//! Guarantees: no `tt.call` to a non-recursive function of the module is left, and no function
//! of kind [`FuncKind::Helper`] remains in the module. Cloned ops keep the callee's spans (they
//! point into the same kernel file), so diagnostics and line info still name the helper's lines.
//! A call that cannot be inlined (an unknown callee, recursion, a callee with an early return)
//! is left as it is for the verifier to report; the frontend never produces one.

use std::collections::HashMap;

use crate::ir::clone::{clone_op, map_value};
use crate::ir::{Body, FuncKind, Function, Module, Op, Opcode, Value};

/// Inlines every call of every function, then drops the helpers.
pub fn run(module: &mut Module) {
    let mut states = vec![InlineState::NotStarted; module.functions.len()];
    for index in 0..module.functions.len() {
        inline_calls_in(module, index, &mut states);
    }
    module.functions.retain(|f| f.kind != FuncKind::Helper);
}

/// Where a function is in the depth-first inlining order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InlineState {
    NotStarted,
    /// Its calls are being inlined right now: meeting it again means recursion.
    InProgress,
    /// It contains no inlinable call any more.
    Done,
}

/// Inlines every call in function `index`, first inlining the callees' own calls, so that each
/// callee is copied already flat and each helper is processed once however often it is called.
fn inline_calls_in(module: &mut Module, index: usize, states: &mut [InlineState]) {
    if states[index] != InlineState::NotStarted {
        return;
    }
    states[index] = InlineState::InProgress;

    // Flatten the callees first (depth first), then copy them.
    let entry = module.functions[index].entry;
    let calls: Vec<Op> = {
        let body = &module.functions[index].body;
        body.walk(entry).into_iter().filter(|&op| body.opcode(op) == Opcode::Call).collect()
    };
    let callee_indices: Vec<Option<usize>> =
        calls.iter().map(|&call| callee_index(module, &module.functions[index].body, call)).collect();
    for &callee in callee_indices.iter().flatten() {
        inline_calls_in(module, callee, states);
    }

    // Take the caller's body out of the module so that the callees can be read while it changes.
    let mut body = std::mem::take(&mut module.functions[index].body);
    let mut call_results: HashMap<Value, Value> = HashMap::new();
    for (&call, &callee) in calls.iter().zip(&callee_indices) {
        let Some(callee) = callee else { continue };
        // A callee still in progress is on the current call chain: recursion, left alone.
        if callee == index || states[callee] != InlineState::Done {
            continue;
        }
        inline_one_call(&mut body, call, &module.functions[callee], &mut call_results);
    }
    body.replace_uses(entry, &call_results);
    module.functions[index].body = body;
    states[index] = InlineState::Done;
}

/// The index of the function a call names, if the module has it.
fn callee_index(module: &Module, body: &Body, call: Op) -> Option<usize> {
    let name = body.op(call).attrs.str("callee")?;
    module.functions.iter().position(|f| f.name == name)
}

/// Copies `callee`'s body in front of `call`, records the replacement of the call's results by
/// the returned values, and unlinks the call. Does nothing when the callee's shape is not the
/// simple one the frontend produces (one `tt.return`, last in the entry block).
fn inline_one_call(body: &mut Body, call: Op, callee: &Function, call_results: &mut HashMap<Value, Value>) {
    let callee_body = &callee.body;
    let callee_ops = &callee_body.blocks[callee.entry].ops;
    let Some((&return_op, ops_before_return)) = callee_ops.split_last() else { return };
    if callee_body.opcode(return_op) != Opcode::Return {
        return;
    }
    let nested_return = callee_body
        .walk(callee.entry)
        .into_iter()
        .any(|op| op != return_op && callee_body.opcode(op) == Opcode::Return);
    if nested_return || callee.params().len() != body.op(call).operands.len() {
        return;
    }
    let Some(block) = body.op(call).parent else { return };

    // Parameters of the callee stand for the call's arguments.
    let mut value_map: HashMap<Value, Value> = HashMap::new();
    for (&param, &argument) in callee.params().iter().zip(&body.op(call).operands) {
        value_map.insert(param, argument);
    }

    let call_position = body.blocks[block].ops.iter().position(|&op| op == call).expect("call in its block");
    for (offset, &op) in ops_before_return.iter().enumerate() {
        let copy = clone_op(body, callee_body, op, &mut value_map);
        body.insert_op(block, call_position + offset, copy);
    }

    let returned = &callee_body.op(return_op).operands;
    for (&result, &value) in body.op(call).results.clone().iter().zip(returned) {
        call_results.insert(result, map_value(&value_map, value));
    }
    body.detach_op(call);
}
