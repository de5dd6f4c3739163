//! Remove layout conversions: let whole elementwise neighbourhoods adopt the layout their memory
//! ops want, so that the conversions coalesce inserted disappear (a simplified form of Triton's
//! `RemoveLayoutConversions.cpp`).
//!
//! # The model
//!
//! Values are grouped into *classes* that must share one layout: the tensor operands and results
//! of an elementwise op (arith, math, casts, `tt.addptr`, `arith.select`...), of a memory op, of a
//! reduction to scalars, the values a loop or branch carries (init, block argument, yield,
//! result), and the two sides of a `ttg.convert_layout`. Conversions are edges *inside* a class on
//! purpose: once the class has one layout, every conversion in it is an identity.
//!
//! Each class then picks its layout from its *anchors*:
//! - hard anchors are operands and results of ops whose layout relation this pass does not
//!   model (broadcast, expand_dims, reshape, trans, dot, reductions to tensors, scans...): they
//!   keep the layout they have;
//! - soft anchors are the memory ops (`tt.load`, `tt.store`, `tt.atomic_rmw`): they work in any
//!   layout, but prefer the one coalesce gave them.
//!
//! A class with hard anchors takes their most common layout (conversions are inserted next to the
//! hard anchors that disagree, and the memory ops in it lose their coalesced layout: exactly what
//! the code was before coalesce). A class with only soft anchors takes the memory layout with the
//! widest vector (Triton's "maximum over the slice"). A class without memory ops is left alone.
//!
//! Before grouping, cheap producers (`tt.make_range`, `tt.splat`, `arith.constant`) are cloned
//! once per use, so that a range shared by two classes does not tie them together; CSE merges
//! the clones that end up with the same type. After the rewrite, chains of conversions are
//! folded (`convert(convert(x))` reads `x`) and identity conversions are dropped.
//!
//! Expects: TTGIR after coalesce. Guarantees: the IR verifies; conversions remain only next to
//! hard anchors whose layout differs from their class's.

use std::collections::HashMap;

use crate::ir::{Attrs, Block, Body, Function, Module, Op, Opcode, Type, Value};
use crate::layout::Encoding;

/// Rewrites every function of `module`.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let entry = function.entry;
        rematerialize_producers(&mut function.body, entry);
        let classes = Classes::build(function);
        relayout(&mut function.body, entry, &classes);
        fold_conversions(&mut function.body, entry);
    }
}

// ---- cheap producers ------------------------------------------------------------------------

/// Gives every use of a tensor `make_range`, `splat` or `constant` its own copy of the op
/// (placed right after the original, so it dominates the same uses).
fn rematerialize_producers(body: &mut Body, entry: Block) {
    let mut uses: HashMap<Value, Vec<(Op, usize)>> = HashMap::new();
    for op in body.walk(entry) {
        for (slot, &operand) in body.op(op).operands.iter().enumerate() {
            let Some(def) = body.def_op(operand) else { continue };
            let cheap = matches!(body.opcode(def), Opcode::MakeRange | Opcode::Splat | Opcode::Constant);
            if cheap && body.ty(operand).is_tensor() {
                uses.entry(operand).or_default().push((op, slot));
            }
        }
    }
    for (value, slots) in uses {
        let producer = body.def_op(value).expect("a producer result");
        let Some(block) = body.op(producer).parent else { continue };
        for &(user, slot) in slots.iter().skip(1) {
            let data = body.op(producer).clone();
            let span = body.span(producer);
            let ty = body.ty(value).clone();
            let clone = body.create_op(data.opcode, data.operands, &[ty], data.attrs, Vec::new(), span);
            let index = body.position(block, producer) + 1;
            body.insert_op(block, index, clone);
            let result = body.result(clone);
            body.ops[user].operands[slot] = result;
        }
    }
}

// ---- classes -----------------------------------------------------------------------------------

/// How an op constrains the layouts of its tensor operands and results.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Every tensor operand and result shares one layout.
    Same,
    /// Like `Same`, and the op prefers its current (coalesced) layout.
    Memory,
    /// Carries values through regions (`scf.for`, `scf.if`, `scf.while`).
    Carry,
    /// Places no constraint (terminators, prints, asserts).
    Free,
    /// Operands and results keep their layouts.
    Hard,
}

fn role(body: &Body, op: Op) -> Role {
    use Opcode::*;
    let data = body.op(op);
    match data.opcode {
        Load | Store | AtomicRmw | DescriptorLoad | DescriptorStore => Role::Memory,
        For | If | While => Role::Carry,
        Yield | Condition | Return | Print | Assert | Barrier | ReduceReturn | ScanReturn => Role::Free,
        // A reduction to scalars reads its operands in whatever layout they share.
        Reduce if data.results.iter().all(|&r| !body.ty(r).is_tensor()) => Role::Same,
        Constant | MakeRange | Splat | ConvertLayout | AddPtr | AtomicCas | Select | MulHiUI => Role::Same,
        AddI | SubI | MulI | DivSI | DivUI | RemSI | RemUI | AndI | OrI | XOrI | ShLI | ShRSI | ShRUI
        | MaxSI | MinSI | MaxUI | MinUI | CmpI => Role::Same,
        AddF | SubF | MulF | DivF | RemF | NegF | MaxNumF | MinNumF | MaximumF | MinimumF | CmpF
        | PreciseSqrt | PreciseDivF | ClampF => Role::Same,
        Exp | Exp2 | Log | Log2 | Sqrt | Rsqrt | Sin | Cos | Tanh | AbsF | AbsI | Floor | Ceil | Erf
        | Fma => Role::Same,
        ExtSI | ExtUI | TruncI | ExtF | TruncF | FpToFp | SIToFP | UIToFP | FPToSI | FPToUI | Bitcast
        | IntToPtr | PtrToInt => Role::Same,
        _ => Role::Hard,
    }
}

/// Tensor values grouped into classes, with each class's anchors.
struct Classes {
    /// Union-find parent per value index (values that are not tensors stay alone).
    parent: Vec<usize>,
    /// Operand slots that must keep their type: (op, slot, the value there, its type).
    hard_operands: Vec<(Op, usize, Value, Type)>,
    /// Results that must keep their type.
    hard_results: Vec<(Value, Type)>,
    /// Per memory op, the class of its pointer and the layout it prefers.
    memory: Vec<(Value, Encoding)>,
}

impl Classes {
    fn build(function: &Function) -> Classes {
        let body = &function.body;
        let mut classes = Classes {
            parent: (0..body.values.len()).collect(),
            hard_operands: Vec::new(),
            hard_results: Vec::new(),
            memory: Vec::new(),
        };
        for op in body.walk(function.entry) {
            let data = body.op(op);
            let tensors = |values: &[Value]| -> Vec<Value> {
                values.iter().copied().filter(|&v| body.ty(v).is_tensor()).collect()
            };
            match role(body, op) {
                Role::Same | Role::Memory => {
                    let mut all = tensors(&data.operands);
                    all.extend(tensors(&data.results));
                    classes.union_all(&all);
                    if role(body, op) == Role::Memory {
                        // The access's tensor: the pointers, or a descriptor access's tile.
                        let accessed = match data.opcode {
                            Opcode::DescriptorLoad => data.results[0],
                            Opcode::DescriptorStore => data.operands[1],
                            _ => data.operands[0],
                        };
                        if let Some(encoding) = body.ty(accessed).encoding() {
                            classes.memory.push((accessed, encoding.clone()));
                        }
                    }
                }
                Role::Carry => classes.carry(body, op),
                Role::Free => {}
                Role::Hard => {
                    for (slot, &operand) in data.operands.iter().enumerate() {
                        if body.ty(operand).is_tensor() {
                            classes.hard_operands.push((op, slot, operand, body.ty(operand).clone()));
                        }
                    }
                    for &result in &data.results {
                        if body.ty(result).is_tensor() {
                            classes.hard_results.push((result, body.ty(result).clone()));
                        }
                    }
                }
            }
        }
        classes
    }

    /// Ties the values a loop or branch carries: each init, block argument, yielded value and
    /// result of one position share a layout.
    fn carry(&mut self, body: &Body, op: Op) {
        let data = body.op(op);
        let terminator_operands = |block: Block| -> Vec<Value> {
            body.blocks[block].ops.last().map(|&t| body.op(t).operands.clone()).unwrap_or_default()
        };
        let mut groups: Vec<Vec<Value>> = Vec::new();
        match data.opcode {
            Opcode::For => {
                let region = data.regions[0];
                let args = &body.blocks[region].args;
                let yields = terminator_operands(region);
                for (k, &result) in data.results.iter().enumerate() {
                    let mut group = vec![result];
                    group.extend(data.operands.get(3 + k));
                    group.extend(args.get(1 + k));
                    group.extend(yields.get(k));
                    groups.push(group);
                }
            }
            Opcode::If => {
                for (k, &result) in data.results.iter().enumerate() {
                    let mut group = vec![result];
                    for &region in &data.regions {
                        group.extend(terminator_operands(region).get(k));
                    }
                    groups.push(group);
                }
            }
            Opcode::While => {
                let (before, after) = (data.regions[0], data.regions[1]);
                let yields = terminator_operands(after);
                for (k, &init) in data.operands.iter().enumerate() {
                    let mut group = vec![init];
                    group.extend(body.blocks[before].args.get(k));
                    group.extend(yields.get(k));
                    groups.push(group);
                }
                // scf.condition(cond, values...) feeds the after region and the results.
                let passed = terminator_operands(before);
                for (k, &result) in data.results.iter().enumerate() {
                    let mut group = vec![result];
                    group.extend(passed.get(1 + k));
                    group.extend(body.blocks[after].args.get(k));
                    groups.push(group);
                }
            }
            _ => {}
        }
        for group in groups {
            let tensors: Vec<Value> = group.into_iter().filter(|&v| body.ty(v).is_tensor()).collect();
            self.union_all(&tensors);
        }
    }

    fn find(&self, v: Value) -> usize {
        let mut i = v.index();
        while self.parent[i] != i {
            i = self.parent[i];
        }
        i
    }

    fn union_all(&mut self, values: &[Value]) {
        let Some((&first, rest)) = values.split_first() else { return };
        for &v in rest {
            let (a, b) = (self.find(first), self.find(v));
            if a != b {
                self.parent[b] = a;
            }
        }
    }

    /// The layout each class with memory ops takes, by class root.
    fn choices(&self) -> HashMap<usize, Encoding> {
        // Hard anchors vote; the most common layout wins (the first seen on ties).
        let mut votes: HashMap<usize, Vec<(Encoding, usize)>> = HashMap::new();
        let hard = self.hard_operands.iter().map(|(_, _, v, ty)| (self.find(*v), ty));
        let hard = hard.chain(self.hard_results.iter().map(|(v, ty)| (self.find(*v), ty)));
        for (class, ty) in hard {
            let Some(encoding) = ty.encoding() else { continue };
            let tally = votes.entry(class).or_default();
            match tally.iter_mut().find(|(e, _)| e == encoding) {
                Some((_, n)) => *n += 1,
                None => tally.push((encoding.clone(), 1)),
            }
        }
        let mut choices = HashMap::new();
        for (pointer, encoding) in &self.memory {
            let class = self.find(*pointer);
            if let Some(tally) = votes.get(&class) {
                let best = tally.iter().rev().max_by_key(|(_, n)| *n).map(|(e, _)| e.clone());
                choices.insert(class, best.expect("a non-empty tally"));
                continue;
            }
            let wider = match choices.get(&class) {
                Some(current) => vector_elements(encoding) > vector_elements(current),
                None => true,
            };
            if wider {
                choices.insert(class, encoding.clone());
            }
        }
        choices
    }
}

/// Elements per thread of a layout's innermost tile (1 for non-blocked layouts).
fn vector_elements(encoding: &Encoding) -> u32 {
    match encoding {
        Encoding::Blocked(b) => b.size_per_thread.iter().product(),
        _ => 1,
    }
}

// ---- rewriting --------------------------------------------------------------------------------

/// Gives every value of each chosen class its class's layout, converting next to the hard
/// anchors that keep another one.
fn relayout(body: &mut Body, entry: Block, classes: &Classes) {
    let choices = classes.choices();
    if choices.is_empty() {
        return;
    }
    let kept: HashMap<Value, Type> = classes.hard_results.iter().cloned().collect();
    for value in tensor_values(body, entry) {
        let Some(encoding) = choices.get(&classes.find(value)) else { continue };
        if !kept.contains_key(&value) {
            let ty = body.ty(value).with_encoding(Some(encoding.clone()));
            body.values[value].ty = ty;
        }
    }
    // A hard result that keeps another layout is converted once, right after its op, for the
    // class's other members (a hard user that wants the old layout gets it back below, and the
    // conversion chain folds away).
    for (result, ty) in &classes.hard_results {
        let Some(encoding) = choices.get(&classes.find(*result)) else { continue };
        if ty.encoding() == Some(encoding) {
            continue;
        }
        let def = body.def_op(*result).expect("a hard result is an op result");
        let block = body.op(def).parent.expect("the op is in a block");
        let index = body.position(block, def) + 1;
        let converted =
            insert_convert(body, block, index, *result, ty.with_encoding(Some(encoding.clone())), def);
        body.replace_uses(entry, &HashMap::from([(*result, converted)]));
        let convert = body.def_op(converted).expect("a convert result");
        body.ops[convert].operands[0] = *result;
    }
    // Hard operands read their old layout.
    for (op, slot, _, ty) in &classes.hard_operands {
        let operand = body.op(*op).operands[*slot];
        if body.ty(operand) == ty {
            continue;
        }
        let block = body.op(*op).parent.expect("the op is in a block");
        let index = body.position(block, *op);
        let converted = insert_convert(body, block, index, operand, ty.clone(), *op);
        body.ops[*op].operands[*slot] = converted;
    }
}

/// Inserts `convert_layout(value) : ty` at `index` of `block`, with the span of `near`.
fn insert_convert(body: &mut Body, block: Block, index: usize, value: Value, ty: Type, near: Op) -> Value {
    let span = body.span(near);
    let op = body.create_op(Opcode::ConvertLayout, vec![value], &[ty], Attrs::new(), Vec::new(), span);
    body.insert_op(block, index, op);
    body.result(op)
}

/// Every tensor value defined in the function: op results and region arguments.
fn tensor_values(body: &Body, entry: Block) -> Vec<Value> {
    let mut values = Vec::new();
    for op in body.walk(entry) {
        values.extend(body.op(op).results.iter().copied());
        for &region in &body.op(op).regions {
            values.extend(body.blocks[region].args.iter().copied());
        }
    }
    values.retain(|&v| body.ty(v).is_tensor());
    values
}

/// Folds `convert(convert(x))` to `convert(x)` and drops conversions to the type they read.
fn fold_conversions(body: &mut Body, entry: Block) {
    let mut replaced: HashMap<Value, Value> = HashMap::new();
    // Program order visits a conversion's source before the conversion itself.
    for op in body.walk(entry) {
        if body.opcode(op) != Opcode::ConvertLayout {
            continue;
        }
        let mut source = body.op(op).operands[0];
        while let Some(&next) = replaced.get(&source) {
            source = next;
        }
        if let Some(def) = body.def_op(source) {
            if body.opcode(def) == Opcode::ConvertLayout && body.op(def).parent.is_some() {
                source = body.op(def).operands[0];
            }
        }
        body.ops[op].operands[0] = source;
        let result = body.result(op);
        if body.ty(source) == body.ty(result) {
            replaced.insert(result, source);
            body.detach_op(op);
        }
    }
    body.replace_uses(entry, &replaced);
}
