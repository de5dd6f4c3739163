//! Common-subexpression elimination of pure ops, with scoped hash tables.
//!
//! Why: the frontend emits one `tt.make_range`, `tt.splat` or `arith.constant` per Python
//! expression, so the same value is often computed several times (`offs` in both a load and a
//! store mask, every `BLOCK_SIZE` splat). Merging them shrinks the IR and lets the axis-info and
//! coalesce passes see one value instead of copies.
//!
//! Two ops are equal when they have the same opcode, the same operands (after earlier merges),
//! the same attributes (floats compared by bits, [`crate::ir::Attrs::same_as`]) and the same
//! result types. Only [`Effect::Pure`] ops without regions that are not terminators take part;
//! ops with regions (`tt.reduce`, `tt.scan`) are skipped, but their regions are processed.
//!
//! Scoping: the table is a stack of scopes, one per block being walked. An op may be replaced
//! by an equal op of its own block or of an enclosing block that comes before it (that op
//! dominates it); never by one inside a nested region, whose values are not visible outside.
//!
//! Expects: a verified module. Guarantees: a verified module with the same meaning in which no
//! two equal pure ops remain where one dominates the other; the later duplicates are unlinked.

use std::collections::HashMap;

use crate::ir::{Block, Body, Effect, Module, Op, Opcode, Type, Value};

/// Merges equal pure ops in every function of the module.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let mut cse = Cse { table: HashMap::new(), replacements: HashMap::new() };
        cse.visit_block(&mut function.body, function.entry);
        let Cse { replacements, .. } = cse;
        function.body.replace_uses(function.entry, &replacements);
    }
}

/// The hashed part of an op's identity; attributes are compared separately because floats in
/// them are compared by bits and are not hashable as they are.
#[derive(Clone, PartialEq, Eq, Hash)]
struct OpKey {
    opcode: Opcode,
    operands: Vec<Value>,
    result_types: Vec<Type>,
}

struct Cse {
    /// For each key, the visible ops with that key, innermost scope last.
    table: HashMap<OpKey, Vec<Op>>,
    /// Results of removed duplicates, mapped to the results of the ops they duplicate.
    replacements: HashMap<Value, Value>,
}

impl Cse {
    /// Walks one block as a new scope: the ops it adds to the table are removed when it ends.
    fn visit_block(&mut self, body: &mut Body, block: Block) {
        let mut scope_keys: Vec<OpKey> = Vec::new();
        let ops = std::mem::take(&mut body.blocks[block].ops);
        let mut kept = Vec::with_capacity(ops.len());
        for op in ops {
            self.resolve_operands(body, op);
            if !is_candidate(body, op) {
                kept.push(op);
                for region in body.op(op).regions.clone() {
                    self.visit_block(body, region);
                }
                continue;
            }
            let key = op_key(body, op);
            match self.find_equal(body, &key, op) {
                Some(existing) => {
                    let pairs = body.op(op).results.iter().zip(&body.op(existing).results);
                    for (&duplicate, &original) in pairs {
                        self.replacements.insert(duplicate, original);
                    }
                    body.ops[op].parent = None;
                }
                None => {
                    self.table.entry(key.clone()).or_default().push(op);
                    scope_keys.push(key);
                    kept.push(op);
                }
            }
        }
        body.blocks[block].ops = kept;
        // Leave the scope: drop this block's entries (each was pushed last onto its list).
        for key in scope_keys.into_iter().rev() {
            if let Some(ops) = self.table.get_mut(&key) {
                ops.pop();
                if ops.is_empty() {
                    self.table.remove(&key);
                }
            }
        }
    }

    /// A visible op with the same key and the same attributes as `op`, innermost first.
    fn find_equal(&self, body: &Body, key: &OpKey, op: Op) -> Option<Op> {
        let candidates = self.table.get(key)?;
        let attrs = &body.op(op).attrs;
        candidates.iter().rev().copied().find(|&candidate| body.op(candidate).attrs.same_as(attrs))
    }

    /// Substitutes merged values in `op`'s operands, so that ops using two copies of one value
    /// hash equal.
    fn resolve_operands(&self, body: &mut Body, op: Op) {
        for operand in body.ops[op].operands.iter_mut() {
            if let Some(&original) = self.replacements.get(operand) {
                *operand = original;
            }
        }
    }
}

/// Whether `op` may be merged with an equal op.
fn is_candidate(body: &Body, op: Op) -> bool {
    let data = body.op(op);
    let info = data.opcode.info();
    info.effect == Effect::Pure && !info.terminator && data.regions.is_empty() && !data.results.is_empty()
}

fn op_key(body: &Body, op: Op) -> OpKey {
    let data = body.op(op);
    OpKey {
        opcode: data.opcode,
        operands: data.operands.clone(),
        result_types: data.results.iter().map(|&r| body.ty(r).clone()).collect(),
    }
}
