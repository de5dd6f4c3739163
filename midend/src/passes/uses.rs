//! Use counts: how many operands, in a whole function body, name each value; and use lists of a
//! set of ops ([`users_in`]).
//!
//! The IR keeps no use lists (values point to their definitions, never to their users), so the
//! passes that need "is this value used" or "is this its only use" (DCE, combine)
//! count uses once per sweep with [`UseCounts::compute`] and keep the counts current themselves
//! (with [`UseCounts::remove_use`]) while they delete ops. Counting is one walk over the function, linear in its size.

use std::collections::HashMap;

use crate::ir::{Block, Body, Op, SecondaryMap, Value, ValueData};

/// The number of uses of every value reachable from one root block.
pub struct UseCounts {
    counts: SecondaryMap<ValueData, u32>,
}

impl UseCounts {
    /// Counts every operand of every op nested in `root`, regions included.
    pub fn compute(body: &Body, root: Block) -> UseCounts {
        let mut counts = SecondaryMap::with_default(0u32);
        for op in body.walk(root) {
            for &operand in &body.op(op).operands {
                let n = *counts.get(operand);
                counts.set(operand, n + 1);
            }
        }
        UseCounts { counts }
    }

    pub fn get(&self, v: Value) -> u32 {
        *self.counts.get(v)
    }

    pub fn is_unused(&self, v: Value) -> bool {
        self.get(v) == 0
    }

    /// Whether no result of `op` is used (vacuously true for ops without results).
    pub fn all_results_unused(&self, body: &Body, op: Op) -> bool {
        body.op(op).results.iter().all(|&r| self.is_unused(r))
    }

    /// Records one use fewer of `v`.
    pub fn remove_use(&mut self, v: Value) {
        let n = *self.counts.get(v);
        self.counts.set(v, n.saturating_sub(1));
    }
}

/// Every use, by one of `ops` (their own operands, not those of nested ops), of every value they
/// name, as (user, operand index), in the order of `ops`.
pub fn users_in(body: &Body, ops: &[Op]) -> HashMap<Value, Vec<(Op, usize)>> {
    let mut users: HashMap<Value, Vec<(Op, usize)>> = HashMap::new();
    for &op in ops {
        for (slot, &v) in body.op(op).operands.iter().enumerate() {
            users.entry(v).or_default().push((op, slot));
        }
    }
    users
}
