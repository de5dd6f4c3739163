//! Control flow: `if`, `for` and `while`, compile-time and runtime.
//!
//! Compile-time forms are resolved here: an `if` on a constexpr lowers only the taken branch, and
//! `tl.static_range` unrolls. Runtime forms become `scf.if`, `scf.for` and `scf.while` with
//! explicit region values, following Triton's code generator:
//! - a loop carries every variable that is live before it and rebound inside it; which ones, and
//!   with what types, is found by lowering the body once speculatively and rolling the IR back;
//! - a carried variable may not change type (its initial compile-time value is materialized with
//!   the default type of a Python scalar first);
//! - an `if` yields every variable rebound in either branch that was live before it (or bound in
//!   both), and both branches must agree on its type;
//! - variables first bound inside a runtime region are not visible after it.

use std::collections::HashMap;

use ruff_python_ast::{ElifElseClause, Expr, Stmt, StmtFor, StmtIf, StmtWhile};
use trident_midend::ir::{Attr, Attrs, Block, DType, Opcode, Type, Value};

use super::{span_of, FnLowerer, LResult};
use crate::builtins::CallArgs;
use crate::value::{flatten, rebuild, Const, FValue, Skeleton};

/// The most copies of a body `tl.static_range` unrolls: the iterations of one loop, or the
/// product of the iterations of nested ones.
const MAX_STATIC_ITERATIONS: u128 = 4096;

/// A variable carried through a region: its name, skeleton and flat runtime types.
struct Carried {
    name: String,
    skeleton: Skeleton,
    types: Vec<Type>,
}

impl FnLowerer<'_, '_> {
    pub fn if_stmt(&mut self, s: &StmtIf) -> LResult<()> {
        self.if_chain(&s.test, &s.body, &s.elif_else_clauses)
    }

    fn if_chain(&mut self, test: &Expr, body: &[Stmt], rest: &[ElifElseClause]) -> LResult<()> {
        let cond = self.expr(test)?;
        if let FValue::Const(c) = &cond {
            if c.truthy() {
                return self.block_stmts(body);
            }
            return self.else_part(rest);
        }
        self.span = span_of(test);
        let c = self.to_value(&cond)?;
        if !self.shape_of(c).is_empty() {
            return self.error("`if` needs a scalar condition; for a tensor condition use tl.where");
        }
        let c = self.cast(c, DType::I1)?;
        let if_span = self.span;
        let before = self.vars.clone();
        let parent = self.block;

        let then_block = self.func.body.new_block(&[]);
        self.block = then_block;
        self.block_stmts(body)?;
        self.reject_return_in_region("an `if` on a runtime condition")?;
        let then_vars = std::mem::replace(&mut self.vars, before.clone());

        let else_block = self.func.body.new_block(&[]);
        self.block = else_block;
        self.else_part(rest)?;
        self.reject_return_in_region("an `if` on a runtime condition")?;
        let else_vars = std::mem::replace(&mut self.vars, before.clone());
        self.span = if_span;

        // Names that leave the if: rebound in a branch and live before, or bound in both.
        let mut names: Vec<&String> = then_vars.keys().chain(else_vars.keys()).collect();
        names.sort();
        names.dedup();
        let mut yielded: Vec<(String, Skeleton)> = Vec::new();
        let mut then_flat = Vec::new();
        let mut else_flat = Vec::new();
        for name in names {
            let (Some(tv), Some(ev)) = (then_vars.get(name), else_vars.get(name)) else {
                continue;
            };
            let bv = before.get(name);
            if Some(tv) == bv && Some(ev) == bv {
                continue;
            }
            if tv == ev {
                // Both branches computed the same compile-time value (or left a shared value).
                self.vars.insert(name.clone(), tv.clone());
                continue;
            }
            let (tv, ev) = self.unify_branch_values(tv.clone(), ev.clone(), then_block, else_block)?;
            let (mut tf, mut ef) = (Vec::new(), Vec::new());
            let ts = flatten(&tv, &mut tf);
            let es = flatten(&ev, &mut ef);
            let t_types: Vec<Type> = tf.iter().map(|&v| self.ty(v)).collect();
            let e_types: Vec<Type> = ef.iter().map(|&v| self.ty(v)).collect();
            if ts != es || t_types != e_types {
                return self.error(format!(
                    "`{name}` has different types in the two branches of this `if`: {} and {}",
                    type_list(&t_types),
                    type_list(&e_types)
                ));
            }
            then_flat.extend(tf);
            else_flat.extend(ef);
            yielded.push((name.clone(), ts));
        }
        let result_types: Vec<Type> = then_flat.iter().map(|&v| self.ty(v)).collect();
        self.block = then_block;
        self.b().op(Opcode::Yield, then_flat, &[], Attrs::new());
        self.block = else_block;
        self.b().op(Opcode::Yield, else_flat, &[], Attrs::new());
        self.block = parent;
        let op = self.b().op_with_regions(
            Opcode::If,
            vec![c],
            &result_types,
            Attrs::new(),
            vec![then_block, else_block],
        );
        let results = self.func.body.op(op).results.clone();
        let mut it = results.into_iter();
        for (name, skeleton) in yielded {
            let v = rebuild(&skeleton, &mut it);
            self.vars.insert(name, v);
        }
        Ok(())
    }

    fn else_part(&mut self, rest: &[ElifElseClause]) -> LResult<()> {
        match rest.first() {
            None => Ok(()),
            Some(clause) => match &clause.test {
                Some(test) => self.if_chain(test, &clause.body, &rest[1..]),
                None => self.block_stmts(&clause.body),
            },
        }
    }

    /// Makes the two branch values of one variable carry the same runtime form: a compile-time
    /// value facing a runtime one is materialized (in its own branch) with the other's type.
    fn unify_branch_values(
        &mut self,
        tv: FValue,
        ev: FValue,
        then_block: Block,
        else_block: Block,
    ) -> LResult<(FValue, FValue)> {
        let saved = self.block;
        let materialize = |me: &mut Self, v: FValue, like: &FValue, block: Block| -> LResult<FValue> {
            let FValue::Const(c) = &v else { return Ok(v) };
            me.block = block;
            let r = match like {
                FValue::Tensor(t) => {
                    let ty = me.ty(*t);
                    let x = me.scalar_const(c, ty.dtype())?;
                    me.broadcast_to(x, ty.shape())?
                }
                _ => me.to_value(&v)?,
            };
            Ok(FValue::Tensor(r))
        };
        let t2 = materialize(self, tv.clone(), &ev, then_block)?;
        let e2 = materialize(self, ev, &tv, else_block)?;
        self.block = saved;
        Ok((t2, e2))
    }

    fn reject_return_in_region(&mut self, what: &str) -> LResult<()> {
        if let Some((_, span)) = &self.returned {
            return super::err(
                *span,
                format!("`return` inside {what} is not supported; return at the end of the function"),
            );
        }
        Ok(())
    }

    pub fn for_stmt(&mut self, s: &StmtFor) -> LResult<()> {
        if !s.orelse.is_empty() {
            return self.error("`for ... else` is not supported in Triton kernels");
        }
        let Expr::Call(call) = s.iter.as_ref() else {
            return self.error(
                "a Triton `for` loop must iterate over range(...), tl.range(...) or tl.static_range(...)",
            );
        };
        let func = self.expr(&call.func)?;
        let kind =
            match &func {
                FValue::PyBuiltin(n) if n == "range" => "range",
                FValue::Builtin(n) if n == "range" => "range",
                FValue::Builtin(n) if n == "static_range" => "static_range",
                _ => return self.error(
                    "a Triton `for` loop must iterate over range(...), tl.range(...) or tl.static_range(...)",
                ),
            };
        let mut args = Vec::new();
        for a in call.arguments.args.iter() {
            args.push(self.expr(a)?);
        }
        let mut kwargs = Vec::new();
        for k in call.arguments.keywords.iter() {
            let Some(name) = &k.arg else { return self.error("`**` is not supported here") };
            kwargs.push((name.as_str().to_string(), self.expr(&k.value)?));
        }
        let target = match s.target.as_ref() {
            Expr::Name(n) => n.id.as_str().to_string(),
            _ => return self.error("the loop variable must be a single name"),
        };
        let mut call_args = CallArgs { args, kwargs };
        let start = call_args.take(0, "arg1");
        let end = call_args.take(1, "arg2");
        let step = call_args.take(2, "step");
        let (lb, ub, step) = match (start, end, step) {
            (Some(a), None, None) => (FValue::int(0), a, FValue::int(1)),
            (Some(a), Some(b), None) => (a, b, FValue::int(1)),
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => return self.error(format!("{kind}() takes 1 to 3 positional arguments")),
        };

        if kind == "static_range" {
            let (Some(lo), Some(hi), Some(st)) = (const_int(&lb), const_int(&ub), const_int(&step)) else {
                return self.error("tl.static_range needs compile-time bounds");
            };
            if st == 0 {
                return self.error("tl.static_range step must not be zero");
            }
            // Each iteration is a copy of the body: a bound keeps a mistyped range from hanging
            // the compiler.
            let count = if (st > 0 && hi > lo) || (st < 0 && hi < lo) {
                (hi - lo).unsigned_abs().div_ceil(st.unsigned_abs())
            } else {
                0
            };
            if count > MAX_STATIC_ITERATIONS {
                return self.error(format!(
                    "tl.static_range({lo}, {hi}, {st}) unrolls {count} copies of its body; trident unrolls at most \
                     {MAX_STATIC_ITERATIONS} (use tl.range for a loop that runs at run time)"
                ));
            }
            // Nested loops multiply: 3 x 4000 copies hang the compiler as surely as 12000.
            let enclosing = self.unrolled_copies;
            let total = enclosing.saturating_mul(count);
            if total > MAX_STATIC_ITERATIONS {
                return self.error(format!(
                    "tl.static_range({lo}, {hi}, {st}) unrolls {count} copies of its body inside loops that unroll \
                     {enclosing}: {total} copies in all; trident unrolls at most {MAX_STATIC_ITERATIONS} (use tl.range \
                     for a loop that runs at run time)"
                ));
            }
            self.unrolled_copies = total.max(1);
            let mut i = lo;
            while (st > 0 && i < hi) || (st < 0 && i > hi) {
                self.vars.insert(target.clone(), FValue::int(i));
                self.block_stmts(&s.body)?;
                self.reject_return_in_region("a loop")?;
                i += st;
            }
            self.unrolled_copies = enclosing;
            return Ok(());
        }

        let mut loop_attrs = Attrs::new();
        for (key, attr) in [
            ("num_stages", "tt.num_stages"),
            ("loop_unroll_factor", "tt.loop_unroll_factor"),
            ("warp_specialize", "tt.warp_specialize"),
            ("flatten", "tt.flatten"),
            ("disallow_acc_multi_buffer", "tt.disallow_acc_multi_buffer"),
            ("disable_licm", "tt.disable_licm"),
        ] {
            if let Some(v) = call_args.take_kw(key) {
                match v {
                    FValue::Const(Const::Int(i)) => {
                        let most = match key {
                            "num_stages" => crate::limits::MAX_NUM_STAGES as i128,
                            // The size of the unrolled kernel is bounded by `check_kernel_size`.
                            _ => i64::MAX as i128,
                        };
                        if !(0..=most).contains(&i) {
                            let message = format!("tl.range's `{key}` must be between 0 and {most}, got {i}");
                            return super::err(span_of(call), message);
                        }
                        loop_attrs.set(attr, Attr::Int(i as i64))
                    }
                    FValue::Const(Const::Bool(b)) => loop_attrs.set(attr, Attr::Bool(b)),
                    FValue::Const(Const::None) => {}
                    _ => return self.error(format!("tl.range's `{key}` must be a compile-time constant")),
                }
            }
        }
        if let Some(k) = call_args.leftover() {
            return self.error(format!("unexpected argument `{k}` to {kind}()"));
        }
        if let Some(st) = const_int(&step) {
            if st <= 0 {
                return self
                    .error("a runtime loop needs a positive step (use tl.static_range for other steps)");
            }
        }
        // The induction variable is i64 if any bound is, else i32.
        let mut iv_type = DType::I32;
        for v in [&lb, &ub, &step] {
            let d = match v {
                FValue::Tensor(x) => {
                    let ty = self.ty(*x);
                    if ty.is_tensor() || !ty.dtype().is_int() || ty.is_ptr() {
                        return self.error("loop bounds must be integer scalars");
                    }
                    ty.dtype()
                }
                FValue::Const(c) => match super::semantic::const_dtype(c) {
                    Some(d) if d.is_int() => d,
                    _ => return self.error("loop bounds must be integers"),
                },
                _ => return self.error("loop bounds must be integers"),
            };
            if d.bits() == 64 {
                iv_type = DType::I64;
            }
        }
        let mut bounds = Vec::new();
        for v in [&lb, &ub, &step] {
            let x = match v {
                FValue::Const(c) => self.scalar_const(c, iv_type)?,
                other => {
                    let x = self.to_value(other)?;
                    self.cast(x, iv_type)?
                }
            };
            bounds.push(x);
        }
        let for_span = self.span;
        let carried = self.probe_loop(&s.body, Some((&target, Type::scalar(iv_type))))?;
        self.span = for_span;
        let inits = self.carried_inits(&carried)?;
        let mut block_types = vec![Type::scalar(iv_type)];
        block_types.extend(carried.iter().flat_map(|c| c.types.clone()));
        let body_block = self.func.body.new_block(&block_types);
        let before = self.vars.clone();
        let parent = self.block;
        let args: Vec<Value> = self.func.body.blocks[body_block].args.clone();
        self.vars.insert(target.clone(), FValue::Tensor(args[0]));
        self.bind_carried(&carried, &args[1..]);
        self.block = body_block;
        self.block_stmts(&s.body)?;
        self.reject_return_in_region("a loop")?;
        self.span = for_span;
        let next = self.carried_values(&carried)?;
        self.b().op(Opcode::Yield, next, &[], Attrs::new());
        self.block = parent;
        self.vars = before;
        let mut operands = bounds;
        operands.extend(inits);
        let result_types: Vec<Type> = carried.iter().flat_map(|c| c.types.clone()).collect();
        let op = self.b().op_with_regions(Opcode::For, operands, &result_types, loop_attrs, vec![body_block]);
        self.apply_pending_hints(op);
        let results = self.func.body.op(op).results.clone();
        self.bind_carried(&carried, &results);
        Ok(())
    }

    pub fn while_stmt(&mut self, s: &StmtWhile) -> LResult<()> {
        if !s.orelse.is_empty() {
            return self.error("`while ... else` is not supported in Triton kernels");
        }
        let while_span = self.span;
        let carried = self.probe_loop(&s.body, None)?;
        self.span = while_span;
        let inits = self.carried_inits(&carried)?;
        let types: Vec<Type> = carried.iter().flat_map(|c| c.types.clone()).collect();
        let before = self.vars.clone();
        let parent = self.block;

        let cond_block = self.func.body.new_block(&types);
        let cond_args = self.func.body.blocks[cond_block].args.clone();
        self.bind_carried(&carried, &cond_args);
        self.block = cond_block;
        let cond = self.expr(&s.test)?;
        self.span = span_of(s.test.as_ref());
        let c = self.to_value(&cond)?;
        if !self.shape_of(c).is_empty() {
            return self.error("`while` needs a scalar condition");
        }
        let c = self.cast(c, DType::I1)?;
        let mut operands = vec![c];
        operands.extend(cond_args.iter().copied());
        self.b().op(Opcode::Condition, operands, &[], Attrs::new());

        self.vars = before.clone();
        let body_block = self.func.body.new_block(&types);
        let body_args = self.func.body.blocks[body_block].args.clone();
        self.bind_carried(&carried, &body_args);
        self.block = body_block;
        self.block_stmts(&s.body)?;
        self.reject_return_in_region("a loop")?;
        self.span = while_span;
        let next = self.carried_values(&carried)?;
        self.b().op(Opcode::Yield, next, &[], Attrs::new());

        self.block = parent;
        self.vars = before;
        let op = self.b().op_with_regions(
            Opcode::While,
            inits,
            &types,
            Attrs::new(),
            vec![cond_block, body_block],
        );
        let results = self.func.body.op(op).results.clone();
        self.bind_carried(&carried, &results);
        Ok(())
    }

    /// Lowers a loop body speculatively to find the variables it carries, then rolls the IR back.
    fn probe_loop(&mut self, body: &[Stmt], iv: Option<(&String, Type)>) -> LResult<Vec<Carried>> {
        let before = self.vars.clone();
        let parent = self.block;
        let checkpoint = self.func.body.checkpoint(parent);
        let arg_types: Vec<Type> = iv.iter().map(|(_, t)| t.clone()).collect();
        let scratch = self.func.body.new_block(&arg_types);
        if let Some((name, _)) = iv {
            let arg = self.func.body.blocks[scratch].args[0];
            self.vars.insert(name.clone(), FValue::Tensor(arg));
        }
        self.block = scratch;
        let result = self.block_stmts(body).and_then(|_| self.reject_return_in_region("a loop"));
        let after = std::mem::replace(&mut self.vars, before.clone());
        self.block = parent;
        let mut carried = Vec::new();
        if result.is_ok() {
            let mut names: Vec<&String> = before.keys().collect();
            names.sort();
            for name in names {
                let (bv, av) = (&before[name], &after[name]);
                if bv == av || iv.as_ref().map(|(n, _)| *n == name).unwrap_or(false) {
                    continue;
                }
                carried.push(self.carried_entry(name, bv, av)?);
            }
        }
        self.func.body.rollback(checkpoint);
        result?;
        Ok(carried)
    }

    /// Checks that a carried variable keeps its type, and records its form.
    fn carried_entry(&mut self, name: &str, init: &FValue, after: &FValue) -> LResult<Carried> {
        let (init_skel, init_types) = self.runtime_form(init)?;
        let (after_skel, after_types) = self.runtime_form(after)?;
        if init_skel != after_skel || init_types != after_types {
            return self.error(format!(
                "loop-carried variable `{name}` changes type inside the loop: it enters as {} and is reassigned as {}; keep its type the same (e.g. initialize it with tl.zeros of the final shape and dtype)",
                describe_form(init, &init_types),
                describe_form(after, &after_types)
            ));
        }
        Ok(Carried { name: name.to_string(), skeleton: init_skel, types: init_types })
    }

    /// The skeleton and flat types a value has once its top-level constant is materialized.
    fn runtime_form(&mut self, v: &FValue) -> LResult<(Skeleton, Vec<Type>)> {
        if let FValue::Const(c) = v {
            let Some(d) = super::semantic::const_dtype(c) else {
                return self.error(format!("{} cannot be carried through a loop", c.describe()));
            };
            return Ok((Skeleton::Leaf, vec![Type::scalar(d)]));
        }
        let mut flat = Vec::new();
        let s = flatten(v, &mut flat);
        Ok((s, flat.iter().map(|&x| self.ty(x)).collect()))
    }

    /// The initial values of carried variables, materialized in the current block.
    fn carried_inits(&mut self, carried: &[Carried]) -> LResult<Vec<Value>> {
        let mut out = Vec::new();
        for c in carried {
            let v = self.vars[&c.name].clone();
            out.extend(self.flat_as(&v, c)?);
        }
        Ok(out)
    }

    /// The current values of carried variables (at the end of a loop body), type-checked.
    fn carried_values(&mut self, carried: &[Carried]) -> LResult<Vec<Value>> {
        let mut out = Vec::new();
        for c in carried {
            let v = self.vars[&c.name].clone();
            out.extend(self.flat_as(&v, c)?);
        }
        Ok(out)
    }

    fn flat_as(&mut self, v: &FValue, c: &Carried) -> LResult<Vec<Value>> {
        if let FValue::Const(k) = v {
            let x = self.scalar_const(k, c.types[0].dtype())?;
            return Ok(vec![self.broadcast_to(x, c.types[0].shape())?]);
        }
        let mut flat = Vec::new();
        let s = flatten(v, &mut flat);
        let types: Vec<Type> = flat.iter().map(|&x| self.ty(x)).collect();
        if s != c.skeleton || types != c.types {
            return self.error(format!(
                "loop-carried variable `{}` changes type inside the loop: {} before, {} after",
                c.name,
                type_list(&c.types),
                type_list(&types)
            ));
        }
        Ok(flat)
    }

    fn bind_carried(&mut self, carried: &[Carried], values: &[Value]) {
        let mut it = values.iter().copied();
        let mut bound = HashMap::new();
        for c in carried {
            bound.insert(c.name.clone(), rebuild(&c.skeleton, &mut it));
        }
        self.vars.extend(bound);
    }
}

fn const_int(v: &FValue) -> Option<i128> {
    match v {
        FValue::Const(Const::Int(i)) => Some(*i),
        FValue::Const(Const::Bool(b)) => Some(*b as i128),
        _ => None,
    }
}

fn type_list(types: &[Type]) -> String {
    let parts: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

fn describe_form(v: &FValue, types: &[Type]) -> String {
    match v {
        FValue::Const(c) => format!("the constant {} (type {})", c.describe(), type_list(types)),
        _ => format!("type {}", type_list(types)),
    }
}
