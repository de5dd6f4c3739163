//! Trip counts of `scf.for` loops whose bounds differ by a constant, though neither is one, and
//! the spans of loops as affine sums (what a loop's length depends on).
//!
//! Causal attention's diagonal loop runs from `m * BLOCK_M` to `(m + 1) * BLOCK_M`: its bounds
//! depend on the program id, but the loop always runs `BLOCK_M / BLOCK_N` times. Each bound is
//! read as an affine sum of the values it is built from (`arith.addi`, `arith.subi`,
//! `arith.muli` by a constant, integer constants); where the two sums share every term, their
//! difference is the loop's span, and the trip count follows from a constant step.
//!
//! The arithmetic of the IR wraps and this reading does not, so the count is an upper bound of
//! the iterations (a wrapped bound can only make the loop run none): a fact for heuristics, not
//! for correctness.

use std::collections::BTreeMap;

use crate::ir::{Attr, Body, Op, Opcode, Value};

/// How deep [`affine`] follows operands before it gives up (bounds are short expressions).
const MAX_DEPTH: u32 = 16;

/// The number of iterations loop `lp` runs at most, when its step is a positive constant and its
/// upper bound minus its lower bound is a constant.
pub fn trip_count(body: &Body, lp: Op) -> Option<i64> {
    let step = constant_step(body, lp)?;
    let (terms, span) = span(body, lp)?;
    if !terms.is_empty() {
        return None;
    }
    Some(if span <= 0 { 0 } else { (span as u64).div_ceil(step as u64) as i64 })
}

/// The step of loop `lp`, when it is a positive constant.
pub fn constant_step(body: &Body, lp: Op) -> Option<i64> {
    let &step = body.op(lp).operands.get(2)?;
    constant(body, step).filter(|&s| s > 0)
}

/// The span of loop `lp`, its upper bound minus its lower bound, as `sum(coefficient * leaf) +
/// constant` over the values the bounds are built from (terms with a zero coefficient dropped).
pub fn span(body: &Body, lp: Op) -> Option<(BTreeMap<Value, i64>, i64)> {
    let [lb, ub, ..] = body.op(lp).operands[..] else { return None };
    let (mut terms, ub_constant) = affine(body, ub, MAX_DEPTH)?;
    let (lb_terms, lb_constant) = affine(body, lb, MAX_DEPTH)?;
    for (value, coefficient) in lb_terms {
        let term = terms.entry(value).or_insert(0);
        *term = term.checked_sub(coefficient)?;
    }
    terms.retain(|_, c| *c != 0);
    Some((terms, ub_constant.checked_sub(lb_constant)?))
}

/// `v` as `sum(coefficient * leaf) + constant` over the values it is built from with
/// `arith.addi`, `arith.subi` and `arith.muli` by constants; `None` when a coefficient overflows.
pub fn affine_sum(body: &Body, v: Value) -> Option<(BTreeMap<Value, i64>, i64)> {
    affine(body, v, MAX_DEPTH)
}

/// [`affine_sum`], following operands at most `depth` deep.
fn affine(body: &Body, v: Value, depth: u32) -> Option<(BTreeMap<Value, i64>, i64)> {
    if let Some(c) = constant(body, v) {
        return Some((BTreeMap::new(), c));
    }
    let leaf = || Some((BTreeMap::from([(v, 1)]), 0));
    let Some(def) = body.def_op(v).filter(|_| depth > 0) else { return leaf() };
    let operands = &body.op(def).operands;
    match body.opcode(def) {
        Opcode::AddI | Opcode::SubI => {
            let sign = if body.opcode(def) == Opcode::AddI { 1 } else { -1 };
            let (mut terms, lhs) = affine(body, operands[0], depth - 1)?;
            let (rhs_terms, rhs) = affine(body, operands[1], depth - 1)?;
            for (value, coefficient) in rhs_terms {
                let sum = terms.entry(value).or_insert(0);
                *sum = sum.checked_add(coefficient.checked_mul(sign)?)?;
            }
            Some((terms, lhs.checked_add(rhs.checked_mul(sign)?)?))
        }
        Opcode::MulI => {
            let (factor, other) = match (constant(body, operands[0]), constant(body, operands[1])) {
                (_, Some(c)) => (c, operands[0]),
                (Some(c), None) => (c, operands[1]),
                (None, None) => return leaf(),
            };
            let (terms, c) = affine(body, other, depth - 1)?;
            let scaled = terms
                .into_iter()
                .map(|(value, coefficient)| Some((value, coefficient.checked_mul(factor)?)))
                .collect::<Option<_>>()?;
            Some((scaled, c.checked_mul(factor)?))
        }
        _ => leaf(),
    }
}

/// The value of `v` when it is a scalar integer constant.
pub(crate) fn constant(body: &Body, v: Value) -> Option<i64> {
    let def =
        body.def_op(v).filter(|&d| body.opcode(d) == Opcode::Constant && body.ty(v).shape().is_empty())?;
    body.op(def).attrs.get("value").and_then(Attr::as_int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Attrs, Builder, DType, Type};

    /// A loop from `lb(x)` to `ub(x)` by `step`, `x` a function argument.
    fn loop_over(
        lb: impl Fn(&mut Builder, Value) -> Value,
        ub: impl Fn(&mut Builder, Value) -> Value,
        step: i64,
    ) -> (Body, Op) {
        let mut body = Body::new();
        let entry = body.new_block(&[Type::scalar(DType::I32)]);
        let x = body.blocks[entry].args[0];
        let mut b = Builder::at(&mut body, entry, 0);
        let (lo, hi) = (lb(&mut b, x), ub(&mut b, x));
        let step = b.const_int(DType::I32, step);
        let lp = b.op(Opcode::For, vec![lo, hi, step], &[], Attrs::new());
        (body, lp)
    }

    #[test]
    fn the_diagonal_block_of_causal_attention_runs_block_m_over_block_n_times() {
        let (body, lp) = loop_over(
            |b, x| {
                let block = b.const_int(DType::I32, 128);
                b.same_type(Opcode::MulI, vec![x, block])
            },
            |b, x| {
                let one = b.const_int(DType::I32, 1);
                let next = b.same_type(Opcode::AddI, vec![x, one]);
                let block = b.const_int(DType::I32, 128);
                b.same_type(Opcode::MulI, vec![next, block])
            },
            64,
        );
        assert_eq!(trip_count(&body, lp), Some(2));
    }

    #[test]
    fn bounds_that_differ_by_a_variable_have_no_trip_count() {
        let (body, lp) = loop_over(
            |b, _| b.const_int(DType::I32, 0),
            |b, x| {
                let block = b.const_int(DType::I32, 128);
                b.same_type(Opcode::MulI, vec![x, block])
            },
            64,
        );
        assert_eq!(trip_count(&body, lp), None);
    }

    #[test]
    fn constant_bounds_round_up_and_empty_ranges_run_none() {
        let constants = |lo: i64, hi: i64, step: i64| {
            let (body, lp) = loop_over(
                move |b, _| b.const_int(DType::I32, lo),
                move |b, _| b.const_int(DType::I32, hi),
                step,
            );
            trip_count(&body, lp)
        };
        assert_eq!(constants(0, 100, 64), Some(2));
        assert_eq!(constants(5, 5, 1), Some(0));
        assert_eq!(constants(9, 3, 1), Some(0));
        assert_eq!(constants(0, 8, 0), None);
    }
}
