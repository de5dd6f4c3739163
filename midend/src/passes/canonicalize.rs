//! Canonicalization: constant folding and local simplification, iterated to a fixed point.
//!
//! Why: the frontend lowers Python literally, so a kernel is full of arithmetic on constants
//! (`BLOCK_SIZE * 2`, `offs + 0`), splats and broadcasts of constants, masks that are statically
//! all true and branches on specialized values. Triton's `canonicalizer` removes them before
//! the layout passes; every later pass (axis info above all) works better on the folded IR.
//!
//! What it does, each rule keeping the old op's span on anything it creates:
//! - integer arithmetic, comparisons and casts on `arith.constant` operands, wrapped to the
//!   result's width and signedness (signedness is in the type; the `s`/`u` of the opcode names
//!   how the operand bits are read); no folding of division by zero or of out-of-range shifts;
//! - float arithmetic and comparisons on constants for f32 (rounded to f32) and f64 results;
//!   f16, bf16 and fp8 results are folded only where the result is exact (casts);
//! - identities: `x + 0`, `x - 0`, `x * 1`, `x | 0`, `x ^ 0` give `x`; `x * 0` and `x & 0` give 0
//!   (integers only: `x * 0.0` is not 0.0 for NaN or infinite `x`);
//! - `select` with a constant condition or equal branches; `addptr(p, 0)` gives `p`;
//! - `splat`, `broadcast`, `expand_dims`, `reshape`, `trans` of a constant give a constant (a
//!   constant of tensor type is a splat); `broadcast(splat x)` gives `splat x`; a broadcast to
//!   its own type gives its operand;
//! - `tt.load` / `tt.store` whose mask is a constant all-true drop the mask (and `other`);
//! - `scf.if` on a constant condition is replaced by the taken region's ops;
//! - `scf.for` whose constant bounds give zero iterations is replaced by its init values.
//!
//! Expects: a verified module. Guarantees: a verified module with the same meaning, in which
//! none of the rules above applies any more; folded ops are unlinked (DCE removes constants
//! that became unused).

use std::collections::{HashMap, VecDeque};

use crate::ir::{Attr, Attrs, Block, Body, DType, Module, Op, Opcode, Span, Type, Value};

/// Sweeps after which the pass stops even if a rule still fired (a rule set that cycles would be
/// a bug; stopping keeps the compiler from hanging on it).
const MAX_SWEEPS: usize = 64;

/// Canonicalizes every function of the module.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let entry = function.entry;
        run_on_block(&mut function.body, entry);
    }
}

/// Canonicalizes `block` and the regions in it, whose values no op outside uses but through its
/// terminator (a function's entry, a loop body that another pass just rewrote).
pub fn run_on_block(body: &mut Body, block: Block) {
    for _ in 0..MAX_SWEEPS {
        let mut sweep = Sweep { body, replacements: HashMap::new(), changed: false };
        sweep.simplify_block(block);
        let Sweep { replacements, changed, .. } = sweep;
        body.replace_uses(block, &replacements);
        if !changed {
            break;
        }
    }
}

/// What a rule decided for one op.
enum Outcome {
    /// Nothing to do (or the op was changed in place and stays).
    Keep,
    /// The op goes away: `new_ops` (detached, freshly created) take its place in the block, and
    /// each result is replaced by the value at the same index of `values`.
    Replace { new_ops: Vec<Op>, values: Vec<Value> },
    /// The op goes away and the ops of `region` (but its terminator) take its place; its results
    /// are replaced by the terminator's operands.
    InlineRegion(Block),
}

/// One pass over a function: rules are applied in program order, and values replaced so far are
/// substituted in each op's operands before its rules run, so chains fold in one sweep.
struct Sweep<'a> {
    body: &'a mut Body,
    replacements: HashMap<Value, Value>,
    changed: bool,
}

impl Sweep<'_> {
    fn simplify_block(&mut self, block: Block) {
        let mut pending: VecDeque<Op> = std::mem::take(&mut self.body.blocks[block].ops).into();
        let mut kept: Vec<Op> = Vec::with_capacity(pending.len());
        while let Some(op) = pending.pop_front() {
            self.resolve_operands(op);
            match self.simplify(op) {
                Outcome::Keep => {
                    kept.push(op);
                    for region in self.body.op(op).regions.clone() {
                        self.simplify_block(region);
                    }
                }
                Outcome::Replace { new_ops, values } => {
                    self.changed = true;
                    kept.extend(new_ops);
                    let results = self.body.op(op).results.clone();
                    for (result, value) in results.into_iter().zip(values) {
                        self.replacements.insert(result, value);
                    }
                    self.body.ops[op].parent = None;
                }
                Outcome::InlineRegion(region) => {
                    self.changed = true;
                    let mut region_ops = std::mem::take(&mut self.body.blocks[region].ops);
                    let terminator = region_ops.pop_if(|&mut last| self.body.opcode(last) == Opcode::Yield);
                    let yielded = match terminator {
                        Some(terminator) => {
                            self.body.ops[terminator].parent = None;
                            self.body.op(terminator).operands.clone()
                        }
                        None => Vec::new(),
                    };
                    let results = self.body.op(op).results.clone();
                    for (result, value) in results.into_iter().zip(yielded) {
                        self.replacements.insert(result, value);
                    }
                    // The region's ops are simplified next, in the enclosing block.
                    for &region_op in region_ops.iter().rev() {
                        pending.push_front(region_op);
                    }
                    self.body.ops[op].parent = None;
                }
            }
        }
        for &op in &kept {
            self.body.ops[op].parent = Some(block);
        }
        self.body.blocks[block].ops = kept;
    }

    /// Substitutes the replacements made so far in `op`'s operands (following chains).
    fn resolve_operands(&mut self, op: Op) {
        for i in 0..self.body.ops[op].operands.len() {
            let mut v = self.body.ops[op].operands[i];
            while let Some(&next) = self.replacements.get(&v) {
                v = next;
            }
            self.body.ops[op].operands[i] = v;
        }
    }

    /// The `value` attribute of the constant defining `v`, if `v` is a constant.
    fn constant(&self, v: Value) -> Option<Attr> {
        let op = self.body.def_op(v)?;
        if self.body.opcode(op) != Opcode::Constant {
            return None;
        }
        self.body.op(op).attrs.get("value").cloned()
    }

    /// A new detached `arith.constant` of type `ty`.
    fn new_constant(&mut self, ty: Type, value: Attr, span: Span) -> Op {
        let attrs = Attrs::new().with("value", value);
        self.body.create_op(Opcode::Constant, vec![], &[ty], attrs, vec![], span)
    }

    /// Replaces `op` by a new constant of its result type.
    fn fold_to_constant(&mut self, op: Op, value: Attr) -> Outcome {
        let result = self.body.result(op);
        let ty = self.body.ty(result).clone();
        let span = self.body.span(op);
        let constant = self.new_constant(ty, value, span);
        let value = self.body.result(constant);
        Outcome::Replace { new_ops: vec![constant], values: vec![value] }
    }

    /// Replaces the single result of `op` by an existing value of the same type.
    fn forward(&self, op: Op, value: Value) -> Outcome {
        if self.body.ty(self.body.result(op)) != self.body.ty(value) {
            return Outcome::Keep;
        }
        Outcome::Replace { new_ops: vec![], values: vec![value] }
    }

    fn simplify(&mut self, op: Op) -> Outcome {
        let opcode = self.body.opcode(op);
        match opcode {
            Opcode::Constant => Outcome::Keep,
            Opcode::Select => self.simplify_select(op),
            Opcode::AddPtr => self.simplify_addptr(op),
            Opcode::Splat | Opcode::ExpandDims | Opcode::Reshape | Opcode::Trans => {
                self.fold_shape_op_of_constant(op)
            }
            Opcode::Broadcast => self.simplify_broadcast(op),
            Opcode::Load | Opcode::Store => self.drop_all_true_mask(op),
            Opcode::If => self.simplify_if(op),
            Opcode::For => self.simplify_for(op),
            _ if self.body.op(op).operands.len() == 1 => self.fold_unary(op),
            _ if self.body.op(op).operands.len() == 2 => self.fold_binary(op),
            _ => Outcome::Keep,
        }
    }

    // ---- elementwise arithmetic ------------------------------------------------------------

    fn fold_binary(&mut self, op: Op) -> Outcome {
        let opcode = self.body.opcode(op);
        let (lhs, rhs) = (self.body.op(op).operands[0], self.body.op(op).operands[1]);
        if self.body.op(op).results.len() != 1 {
            return Outcome::Keep;
        }
        let operand_type = self.body.ty(lhs).clone();
        let result_type = self.body.ty(self.body.result(op)).clone();
        if !matches!(operand_type, Type::Scalar(_) | Type::Tensor { .. }) || operand_type.is_ptr() {
            return Outcome::Keep;
        }
        let dtype = operand_type.dtype();
        let (lhs_const, rhs_const) = (self.constant(lhs), self.constant(rhs));

        if let (Some(a), Some(b)) = (&lhs_const, &rhs_const) {
            // Comparisons carry their predicate; other ops have none and ignore the empty one.
            let predicate = self.body.op(op).attrs.str("predicate").unwrap_or("");
            let folded = if dtype.is_int() {
                fold_int_binary(opcode, predicate, a, b, dtype, result_type.dtype())
            } else {
                fold_float_binary(opcode, predicate, a, b, dtype)
            };
            if let Some(value) = folded {
                return self.fold_to_constant(op, value);
            }
            return Outcome::Keep;
        }

        if !dtype.is_int() || result_type != operand_type {
            return Outcome::Keep;
        }
        let is = |c: &Option<Attr>, n: i128| c.as_ref().and_then(|a| int_value(a, dtype)) == Some(n);
        match opcode {
            Opcode::AddI | Opcode::OrI | Opcode::XOrI if is(&rhs_const, 0) => self.forward(op, lhs),
            Opcode::AddI | Opcode::OrI | Opcode::XOrI if is(&lhs_const, 0) => self.forward(op, rhs),
            Opcode::SubI if is(&rhs_const, 0) => self.forward(op, lhs),
            Opcode::MulI if is(&rhs_const, 1) => self.forward(op, lhs),
            Opcode::MulI if is(&lhs_const, 1) => self.forward(op, rhs),
            Opcode::MulI | Opcode::AndI if is(&lhs_const, 0) || is(&rhs_const, 0) => {
                self.fold_to_constant(op, int_attr(0, dtype))
            }
            _ => Outcome::Keep,
        }
    }

    /// Casts and negation of a constant.
    fn fold_unary(&mut self, op: Op) -> Outcome {
        let operand = self.body.op(op).operands[0];
        let Some(value) = self.constant(operand) else { return Outcome::Keep };
        if self.body.op(op).results.len() != 1 || self.body.ty(operand).is_ptr() {
            return Outcome::Keep;
        }
        let from = self.body.ty(operand).dtype();
        let to = self.body.ty(self.body.result(op)).dtype();
        let folded = match self.body.opcode(op) {
            Opcode::ExtSI | Opcode::ExtUI | Opcode::TruncI | Opcode::SIToFP | Opcode::UIToFP => {
                let signed = matches!(self.body.opcode(op), Opcode::ExtSI | Opcode::SIToFP);
                int_bits(&value, from)
                    .map(|bits| if signed { as_signed(bits, from) } else { bits as i128 })
                    .and_then(|n| if to.is_int() { Some(int_attr(n, to)) } else { exact_int_to_float(n, to) })
            }
            Opcode::FPToSI | Opcode::FPToUI => {
                let signed = self.body.opcode(op) == Opcode::FPToSI;
                float_in_type(&value, from).and_then(|x| float_to_int(x, to, signed))
            }
            Opcode::ExtF | Opcode::TruncF | Opcode::FpToFp => {
                float_in_type(&value, from).and_then(|x| round_float_to(x, to)).map(Attr::Float)
            }
            Opcode::NegF => float_in_type(&value, from)
                .filter(|_| matches!(from, DType::F32 | DType::F64))
                .map(|x| Attr::Float(-x)),
            _ => None,
        };
        match folded {
            Some(attr) => self.fold_to_constant(op, attr),
            None => Outcome::Keep,
        }
    }

    // ---- selects, pointers, shapes ----------------------------------------------------------

    fn simplify_select(&mut self, op: Op) -> Outcome {
        let [cond, on_true, on_false] = self.body.op(op).operands[..] else { return Outcome::Keep };
        if on_true == on_false {
            return self.forward(op, on_true);
        }
        match self.constant(cond).and_then(|c| c.as_bool()) {
            Some(true) => self.forward(op, on_true),
            Some(false) => self.forward(op, on_false),
            None => Outcome::Keep,
        }
    }

    fn simplify_addptr(&mut self, op: Op) -> Outcome {
        let [pointer, offset] = self.body.op(op).operands[..] else { return Outcome::Keep };
        let offset_dtype = self.body.ty(offset).dtype();
        let offset_is_zero = self.constant(offset).and_then(|c| int_value(&c, offset_dtype)) == Some(0);
        if offset_is_zero {
            return self.forward(op, pointer);
        }
        Outcome::Keep
    }

    /// `splat`, `expand_dims`, `reshape` and `trans` of a constant: every element is the same
    /// value, so the result is the constant at the result type.
    fn fold_shape_op_of_constant(&mut self, op: Op) -> Outcome {
        let operand = self.body.op(op).operands[0];
        match self.constant(operand) {
            Some(value) => self.fold_to_constant(op, value),
            None => Outcome::Keep,
        }
    }

    fn simplify_broadcast(&mut self, op: Op) -> Outcome {
        let operand = self.body.op(op).operands[0];
        let result_type = self.body.ty(self.body.result(op)).clone();
        if *self.body.ty(operand) == result_type {
            return self.forward(op, operand);
        }
        if let Some(value) = self.constant(operand) {
            return self.fold_to_constant(op, value);
        }
        let Some(producer) = self.body.def_op(operand) else { return Outcome::Keep };
        if self.body.opcode(producer) != Opcode::Splat {
            return Outcome::Keep;
        }
        // broadcast(splat x) is splat x at the broadcast's shape.
        let scalar = self.body.op(producer).operands[0];
        let span = self.body.span(op);
        let splat =
            self.body.create_op(Opcode::Splat, vec![scalar], &[result_type], Attrs::new(), vec![], span);
        let value = self.body.result(splat);
        Outcome::Replace { new_ops: vec![splat], values: vec![value] }
    }

    // ---- memory -------------------------------------------------------------------------------

    /// A constant all-true mask guards nothing: drop it (and a load's `other`, which is then
    /// never read). Changes the op in place.
    fn drop_all_true_mask(&mut self, op: Op) -> Outcome {
        let mask_index = if self.body.opcode(op) == Opcode::Load { 1 } else { 2 };
        let Some(&mask) = self.body.op(op).operands.get(mask_index) else { return Outcome::Keep };
        if self.constant(mask).and_then(|c| c.as_bool()) == Some(true) {
            self.body.ops[op].operands.truncate(mask_index);
            self.changed = true;
        }
        Outcome::Keep
    }

    // ---- control flow -------------------------------------------------------------------------

    fn simplify_if(&mut self, op: Op) -> Outcome {
        let cond = self.body.op(op).operands[0];
        let Some(taken) = self.constant(cond).and_then(|c| c.as_bool()) else { return Outcome::Keep };
        let regions = &self.body.op(op).regions;
        let region = if taken { regions.first() } else { regions.get(1) };
        match region {
            Some(&region) => Outcome::InlineRegion(region),
            // An `if` without an else region has no results; a false condition removes it.
            None if self.body.op(op).results.is_empty() => {
                Outcome::Replace { new_ops: vec![], values: vec![] }
            }
            None => Outcome::Keep,
        }
    }

    /// A loop whose constant bounds give no iteration yields its init values.
    fn simplify_for(&mut self, op: Op) -> Outcome {
        let operands = self.body.op(op).operands.clone();
        let (lower, upper) = (operands[0], operands[1]);
        let dtype = self.body.ty(lower).dtype();
        let bound = |v: Value| self.constant(v).and_then(|c| int_value(&c, dtype));
        let (Some(lower), Some(upper)) = (bound(lower), bound(upper)) else { return Outcome::Keep };
        if lower < upper {
            return Outcome::Keep;
        }
        let inits = operands[3..].to_vec();
        if inits.len() != self.body.op(op).results.len() {
            return Outcome::Keep;
        }
        Outcome::Replace { new_ops: vec![], values: inits }
    }
}

// ---- integer constants ------------------------------------------------------------------------

/// The low `bits` bits set.
fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The bits of an integer constant of type `dtype`, masked to its width.
fn int_bits(attr: &Attr, dtype: DType) -> Option<u64> {
    if !dtype.is_int() {
        return None;
    }
    Some(attr.as_int()? as u64 & width_mask(dtype.bits()))
}

/// Reads masked bits as a two's-complement number of `dtype`'s width.
fn as_signed(bits: u64, dtype: DType) -> i128 {
    let width = dtype.bits();
    let shift = 64 - width;
    (((bits << shift) as i64) >> shift) as i128
}

/// The mathematical value of an integer constant, read with the signedness of its type (`i1`
/// reads as 0 or 1).
fn int_value(attr: &Attr, dtype: DType) -> Option<i128> {
    let bits = int_bits(attr, dtype)?;
    if dtype.is_signed_int() && dtype != DType::I1 {
        Some(as_signed(bits, dtype))
    } else {
        Some(bits as i128)
    }
}

/// The attribute of an integer constant of type `dtype` holding `value` wrapped to its width:
/// `i1` as a bool, signed types as their value, unsigned types as their value too (so `u32`
/// prints non-negative) except `u64` values above `i64::MAX`, stored as their bits.
fn int_attr(value: i128, dtype: DType) -> Attr {
    let bits = value as u64 & width_mask(dtype.bits());
    if dtype == DType::I1 {
        Attr::Bool(bits != 0)
    } else if dtype.is_signed_int() {
        Attr::Int(as_signed(bits, dtype) as i64)
    } else {
        Attr::Int(bits as i64)
    }
}

/// Folds a two-operand integer op. `dtype` is the operands' type, `result` the result's (i1 for
/// comparisons). `s`/`u` opcodes read the operand bits as signed/unsigned whatever the type says.
fn fold_int_binary(
    opcode: Opcode,
    predicate: &str,
    a: &Attr,
    b: &Attr,
    dtype: DType,
    result: DType,
) -> Option<Attr> {
    let (a_bits, b_bits) = (int_bits(a, dtype)?, int_bits(b, dtype)?);
    let (a_signed, b_signed) = (as_signed(a_bits, dtype), as_signed(b_bits, dtype));
    let (a_unsigned, b_unsigned) = (a_bits as i128, b_bits as i128);
    let width = dtype.bits() as i128;
    // Signed views of i1 are -1/0, which no one means: fold i1 only with bitwise ops and
    // equality.
    let signed_op = !matches!(opcode, Opcode::AndI | Opcode::OrI | Opcode::XOrI | Opcode::CmpI);
    if dtype == DType::I1 && (signed_op || !matches!(predicate, "" | "eq" | "ne")) {
        return None;
    }
    let value: i128 = match opcode {
        Opcode::AddI => a_unsigned + b_unsigned,
        Opcode::SubI => a_unsigned - b_unsigned,
        Opcode::MulI => a_unsigned.wrapping_mul(b_unsigned),
        Opcode::AndI => a_unsigned & b_unsigned,
        Opcode::OrI => a_unsigned | b_unsigned,
        Opcode::XOrI => a_unsigned ^ b_unsigned,
        Opcode::DivSI if b_signed != 0 => a_signed / b_signed,
        Opcode::RemSI if b_signed != 0 => a_signed % b_signed,
        Opcode::DivUI if b_unsigned != 0 => a_unsigned / b_unsigned,
        Opcode::RemUI if b_unsigned != 0 => a_unsigned % b_unsigned,
        Opcode::ShLI if b_unsigned < width => a_unsigned << b_unsigned,
        Opcode::ShRSI if b_unsigned < width => a_signed >> b_unsigned,
        Opcode::ShRUI if b_unsigned < width => a_unsigned >> b_unsigned,
        Opcode::MaxSI => a_signed.max(b_signed),
        Opcode::MinSI => a_signed.min(b_signed),
        Opcode::MaxUI => a_unsigned.max(b_unsigned),
        Opcode::MinUI => a_unsigned.min(b_unsigned),
        Opcode::CmpI => {
            let holds = match predicate {
                "eq" => a_bits == b_bits,
                "ne" => a_bits != b_bits,
                "slt" => a_signed < b_signed,
                "sle" => a_signed <= b_signed,
                "sgt" => a_signed > b_signed,
                "sge" => a_signed >= b_signed,
                "ult" => a_unsigned < b_unsigned,
                "ule" => a_unsigned <= b_unsigned,
                "ugt" => a_unsigned > b_unsigned,
                "uge" => a_unsigned >= b_unsigned,
                _ => return None,
            };
            return Some(Attr::Bool(holds));
        }
        _ => return None,
    };
    if result != dtype {
        return None;
    }
    Some(int_attr(value, dtype))
}

// ---- float constants ----------------------------------------------------------------------------

/// The value of a float constant as its type holds it: f32 constants are rounded to f32 (the
/// attribute may hold more digits than the type), f64 read as is; f16, bf16 and fp8 only when the
/// attribute is exactly representable (rounding to them is not implemented here).
fn float_in_type(attr: &Attr, dtype: DType) -> Option<f64> {
    let x = attr.as_float()?;
    match dtype {
        DType::F64 => Some(x),
        DType::F32 => Some(x as f32 as f64),
        DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 if exactly_representable(x, dtype) => {
            Some(x)
        }
        _ => None,
    }
}

/// `x` rounded to the float type `to`, if that rounding is implemented (f32, f64) or exact.
fn round_float_to(x: f64, to: DType) -> Option<f64> {
    match to {
        DType::F64 => Some(x),
        DType::F32 => Some(x as f32 as f64),
        DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 if exactly_representable(x, to) => Some(x),
        _ => None,
    }
}

/// Whether the f64 `x` is a value of the float type `dtype` (NaN and infinities included).
fn exactly_representable(x: f64, dtype: DType) -> bool {
    if !x.is_finite() {
        // fp8 conversions saturate or have no infinities: non-finite values stay unfolded.
        return matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64);
    }
    let (mantissa_bits, min_exponent, max_finite) = match dtype {
        DType::F64 => return true,
        DType::F32 => return x as f32 as f64 == x,
        DType::F16 => (10, -14, 65504.0),
        DType::BF16 => (7, -126, f32::MAX as f64),
        DType::F8E4M3 => (3, -6, 448.0),
        DType::F8E5M2 => (2, -14, 57344.0),
        _ => return false,
    };
    if x == 0.0 {
        return true;
    }
    if x.abs() > max_finite {
        return false;
    }
    // Scale so that the last mantissa bit of x's binade (or of the subnormal range) is 1.
    let exponent = (x.abs().log2().floor() as i32).max(min_exponent);
    let scaled = x * 2f64.powi(mantissa_bits - exponent);
    scaled == scaled.trunc()
}

/// An integer converted to the float type `to`, when the conversion is exact.
fn exact_int_to_float(n: i128, to: DType) -> Option<Attr> {
    let x = n as f64;
    (x as i128 == n && exactly_representable(x, to)).then_some(Attr::Float(x))
}

/// A float truncated toward zero to the integer type `to`, when the result is in range.
fn float_to_int(x: f64, to: DType, signed: bool) -> Option<Attr> {
    if !x.is_finite() || !to.is_int() || to == DType::I1 {
        return None;
    }
    let n = x.trunc() as i128;
    let bits = to.bits();
    let (low, high) =
        if signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    (low..=high).contains(&n).then(|| int_attr(n, to))
}

/// Folds a two-operand float op on f32 or f64 operands.
fn fold_float_binary(opcode: Opcode, predicate: &str, a: &Attr, b: &Attr, dtype: DType) -> Option<Attr> {
    if !matches!(dtype, DType::F32 | DType::F64) {
        return None;
    }
    let (a, b) = (float_in_type(a, dtype)?, float_in_type(b, dtype)?);
    if opcode == Opcode::CmpF {
        return compare_floats(predicate, a, b).map(Attr::Bool);
    }
    // Minimum and maximum are exact, so they need no rounding; but the hardware treats -0 and
    // +0 as equal and may return either, so that case is left unfolded.
    if matches!(opcode, Opcode::MaxNumF | Opcode::MinNumF | Opcode::MaximumF | Opcode::MinimumF) {
        return min_or_max(opcode, a, b).map(Attr::Float);
    }
    // f32 arithmetic is done in f32 so that each operation rounds once, like the hardware.
    let value = if dtype == DType::F32 {
        let (a, b) = (a as f32, b as f32);
        let value = match opcode {
            Opcode::AddF => a + b,
            Opcode::SubF => a - b,
            Opcode::MulF => a * b,
            Opcode::DivF => a / b,
            Opcode::RemF => a % b,
            _ => return None,
        };
        value as f64
    } else {
        match opcode {
            Opcode::AddF => a + b,
            Opcode::SubF => a - b,
            Opcode::MulF => a * b,
            Opcode::DivF => a / b,
            Opcode::RemF => a % b,
            _ => return None,
        }
    };
    Some(Attr::Float(value))
}

/// `maxnumf`/`minnumf` (a NaN operand yields the other) and `maximumf`/`minimumf` (NaN wins).
fn min_or_max(opcode: Opcode, a: f64, b: f64) -> Option<f64> {
    if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
        return None;
    }
    let propagate_nan = matches!(opcode, Opcode::MaximumF | Opcode::MinimumF);
    if a.is_nan() || b.is_nan() {
        if propagate_nan {
            return Some(f64::NAN);
        }
        return Some(if a.is_nan() { b } else { a });
    }
    let is_max = matches!(opcode, Opcode::MaxNumF | Opcode::MaximumF);
    Some(if is_max { a.max(b) } else { a.min(b) })
}

fn compare_floats(predicate: &str, a: f64, b: f64) -> Option<bool> {
    let unordered = a.is_nan() || b.is_nan();
    Some(match predicate {
        "oeq" => !unordered && a == b,
        "one" => !unordered && a != b,
        "olt" => !unordered && a < b,
        "ole" => !unordered && a <= b,
        "ogt" => !unordered && a > b,
        "oge" => !unordered && a >= b,
        "ueq" => unordered || a == b,
        "une" => unordered || a != b,
        "ult" => unordered || a < b,
        "ule" => unordered || a <= b,
        "ugt" => unordered || a > b,
        "uge" => unordered || a >= b,
        "ord" => !unordered,
        "uno" => unordered,
        _ => return None,
    })
}
