//! Expressions: names, attributes, calls, subscripts, operators and literals.
//!
//! Attribute access and calls are where Python meets the Triton language: `tl.load` resolves to a
//! builtin, `x.to(...)` to a bound method, `x.shape` to a tuple of constants, `p.dtype.element_ty`
//! to a dtype. Everything resolvable at compile time is folded here.

use ruff_python_ast::{self as ast, Expr, Number, Operator, UnaryOp};

use super::semantic::{BinOp, CmpOp};
use super::{span_of, FnLowerer, LResult};
use crate::builtins::{self, CallArgs};
use crate::diagnostics::Diagnostic;
use crate::value::{Const, FValue};

impl FnLowerer<'_, '_> {
    /// Lowers an expression, stamping its span on the ops it creates.
    pub fn expr(&mut self, e: &Expr) -> LResult<FValue> {
        let saved = self.span;
        self.span = span_of(e);
        let r = self.expr_inner(e);
        self.span = saved;
        r
    }

    fn expr_inner(&mut self, e: &Expr) -> LResult<FValue> {
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => match i.as_i64() {
                    Some(v) => Ok(FValue::int(v as i128)),
                    None => match i.to_string().parse::<i128>() {
                        Ok(v) => Ok(FValue::int(v)),
                        Err(_) => self.error("integer literal too large"),
                    },
                },
                Number::Float(f) => Ok(FValue::Const(Const::Float(*f))),
                Number::Complex { .. } => self.error("complex numbers are not supported in Triton kernels"),
            },
            Expr::BooleanLiteral(b) => Ok(FValue::Const(Const::Bool(b.value))),
            Expr::NoneLiteral(_) => Ok(FValue::Const(Const::None)),
            Expr::StringLiteral(s) => Ok(FValue::Const(Const::Str(s.value.to_str().to_string()))),
            Expr::Name(n) => self.lookup(n.id.as_str()),
            Expr::Attribute(a) => {
                let base = self.expr(&a.value)?;
                self.attribute(base, a.attr.as_str())
            }
            Expr::Call(call) => {
                let func = self.expr(&call.func)?;
                let mut args = Vec::new();
                for a in call.arguments.args.iter() {
                    if let Expr::Starred(s) = a {
                        match self.expr(&s.value)? {
                            FValue::Tuple(items) => args.extend(items),
                            _ => return self.error("only tuples can be unpacked with `*` here"),
                        }
                        continue;
                    }
                    args.push(self.expr(a)?);
                }
                let mut kwargs = Vec::new();
                for k in call.arguments.keywords.iter() {
                    let Some(name) = &k.arg else {
                        return self.error("`**kwargs` is not supported in Triton kernels");
                    };
                    kwargs.push((name.as_str().to_string(), self.expr(&k.value)?));
                }
                self.call(func, args, kwargs)
            }
            Expr::BinOp(b) => {
                let lhs = self.expr(&b.left)?;
                let rhs = self.expr(&b.right)?;
                let Some(op) = binop_of(b.op) else {
                    return self.error("`@` is not supported; use tl.dot");
                };
                self.binary(op, lhs, rhs)
            }
            Expr::UnaryOp(u) => {
                let v = self.expr(&u.operand)?;
                match u.op {
                    UnaryOp::USub => self.negate(v),
                    UnaryOp::UAdd => Ok(v),
                    UnaryOp::Invert => self.invert(v),
                    UnaryOp::Not => self.logical_not(v),
                }
            }
            Expr::Compare(c) => {
                let mut left = self.expr(&c.left)?;
                let mut result: Option<FValue> = None;
                for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                    let rv = self.expr(right)?;
                    let cmp = match op {
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::Ne,
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::Le,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::Ge,
                        ast::CmpOp::Is | ast::CmpOp::IsNot => {
                            let same = match (&left, &rv) {
                                (FValue::Const(a), FValue::Const(b)) => a == b,
                                _ => return self.error("`is` only compares compile-time values"),
                            };
                            let r = if matches!(op, ast::CmpOp::Is) { same } else { !same };
                            result = Some(self.and_values(result, FValue::Const(Const::Bool(r)))?);
                            left = rv;
                            continue;
                        }
                        ast::CmpOp::In | ast::CmpOp::NotIn => {
                            let FValue::Tuple(items) = &rv else {
                                return self.error("`in` needs a tuple of compile-time values");
                            };
                            let found = items.contains(&left);
                            let r = if matches!(op, ast::CmpOp::In) { found } else { !found };
                            result = Some(self.and_values(result, FValue::Const(Const::Bool(r)))?);
                            left = rv;
                            continue;
                        }
                    };
                    let r = self.compare(cmp, left.clone(), rv.clone())?;
                    result = Some(self.and_values(result, r)?);
                    left = rv;
                }
                Ok(result.unwrap_or(FValue::Const(Const::Bool(true))))
            }
            Expr::BoolOp(b) => {
                let is_and = matches!(b.op, ast::BoolOp::And);
                let mut acc: Option<FValue> = None;
                for v in &b.values {
                    // Short-circuit on compile-time values, as Python does.
                    if let Some(FValue::Const(c)) = &acc {
                        if is_and && !c.truthy() || !is_and && c.truthy() {
                            return Ok(acc.unwrap());
                        }
                    }
                    let x = self.expr(v)?;
                    acc = Some(match acc {
                        None => x,
                        Some(prev) => self.logical(is_and, prev, x)?,
                    });
                }
                Ok(acc.unwrap_or(FValue::Const(Const::Bool(is_and))))
            }
            Expr::If(t) => {
                let cond = self.expr(&t.test)?;
                if let FValue::Const(c) = &cond {
                    return if c.truthy() { self.expr(&t.body) } else { self.expr(&t.orelse) };
                }
                let a = self.expr(&t.body)?;
                let b = self.expr(&t.orelse)?;
                builtins::where_(self, cond, a, b)
            }
            Expr::Tuple(t) => {
                let items = t.elts.iter().map(|x| self.expr(x)).collect::<LResult<Vec<_>>>()?;
                Ok(FValue::Tuple(items))
            }
            Expr::List(l) => {
                let items = l.elts.iter().map(|x| self.expr(x)).collect::<LResult<Vec<_>>>()?;
                Ok(FValue::Tuple(items))
            }
            Expr::Subscript(s) => self.subscript(s),
            Expr::Lambda(_) => self.error("lambda expressions are not supported in Triton kernels"),
            Expr::FString(_) => self.error("f-strings are not supported in Triton kernels"),
            Expr::Named(_) => self.error("the walrus operator `:=` is not supported in Triton kernels"),
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {
                self.error("comprehensions are not supported in Triton kernels")
            }
            Expr::Dict(_) | Expr::Set(_) => self.error("dicts and sets are not supported in Triton kernels"),
            Expr::Slice(_) => self.error("a slice is only valid inside `[...]`"),
            Expr::Starred(_) => self.error("`*` unpacking is only supported in call arguments"),
            _ => self.error("this expression is not supported in Triton kernels"),
        }
    }

    /// `a and b` / `a or b` on possibly-runtime values.
    fn logical(&mut self, is_and: bool, a: FValue, b: FValue) -> LResult<FValue> {
        if let (FValue::Const(x), FValue::Const(y)) = (&a, &b) {
            let _ = y;
            return Ok(if is_and == x.truthy() { b } else { a });
        }
        let x = self.to_value(&a)?;
        let y = self.to_value(&b)?;
        let x = self.cast(x, trident_midend::ir::DType::I1)?;
        let y = self.cast(y, trident_midend::ir::DType::I1)?;
        self.binary(if is_and { BinOp::And } else { BinOp::Or }, FValue::Tensor(x), FValue::Tensor(y))
    }

    fn and_values(&mut self, acc: Option<FValue>, next: FValue) -> LResult<FValue> {
        match acc {
            None => Ok(next),
            Some(prev) => self.logical(true, prev, next),
        }
    }

    /// Resolves a name: locals, then module globals, then Python builtins.
    pub fn lookup(&mut self, name: &str) -> LResult<FValue> {
        if let Some(v) = self.vars.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.c.globals.get(name) {
            return v.clone();
        }
        match name {
            "range" | "min" | "max" | "len" | "float" | "int" | "bool" | "print" | "isinstance" | "abs"
            | "getattr" | "tuple" | "zip" | "enumerate" => Ok(FValue::PyBuiltin(name.to_string())),
            _ => match self.c.program.plain_functions.get(name) {
                // Triton compiles only what is decorated; a plain `def` is not "not defined".
                Some(&def_span) => Err(Diagnostic::error(
                    format!(
                        "`{name}` is not a @triton.jit function: a kernel can only call functions \
                         decorated with @triton.jit"
                    ),
                    Some(self.span),
                )
                .with_label(def_span, format!("`{name}` is defined here without @triton.jit"))),
                None => self.error(format!("name `{name}` is not defined")),
            },
        }
    }

    /// `base.name`.
    pub fn attribute(&mut self, base: FValue, name: &str) -> LResult<FValue> {
        match base {
            FValue::Module(path) => Ok(builtins::lookup_in_module(&path, name)),
            FValue::Tensor(v) => {
                let ty = self.ty(v);
                match name {
                    "dtype" => Ok(FValue::Const(if ty.is_ptr() {
                        Const::PtrType(ty.dtype())
                    } else {
                        Const::DType(ty.dtype())
                    })),
                    "shape" => {
                        Ok(FValue::Tuple(ty.shape().iter().map(|&d| FValue::int(d as i128)).collect()))
                    }
                    "numel" => Ok(FValue::int(ty.numel() as i128)),
                    "ndim" => Ok(FValue::int(ty.shape().len() as i128)),
                    "T" => builtins::call(self, "trans", CallArgs::positional(vec![FValue::Tensor(v)])),
                    "type" => Ok(FValue::Const(Const::DType(ty.dtype()))),
                    _ => Ok(FValue::Method(Box::new(FValue::Tensor(v)), name.to_string())),
                }
            }
            FValue::Const(Const::PtrType(d)) => match name {
                "element_ty" => Ok(FValue::Const(Const::DType(d))),
                _ => self.error(format!("a pointer type has no attribute `{name}`")),
            },
            FValue::Const(Const::DType(d)) => match name {
                "primitive_bitwidth" => Ok(FValue::int(d.bits() as i128)),
                "element_ty" => Ok(FValue::Const(Const::DType(d))),
                "is_floating" | "is_int" | "is_int_signed" | "is_int_unsigned" | "is_fp16" | "is_bf16"
                | "is_fp32" | "is_fp64" | "is_fp8" | "is_ptr" => {
                    Ok(FValue::Method(Box::new(FValue::Const(Const::DType(d))), name.into()))
                }
                _ => self.error(format!("a dtype has no attribute `{name}`")),
            },
            FValue::Const(Const::Int(_)) | FValue::Const(Const::Float(_)) if name == "value" => Ok(base),
            FValue::BlockPtr(_) => Ok(FValue::Method(Box::new(base), name.to_string())),
            FValue::Tuple(_) => Ok(FValue::Method(Box::new(base), name.to_string())),
            other => self.error(format!("{} has no attribute `{name}`", describe(&other))),
        }
    }

    /// Calls whatever `func` denotes.
    pub fn call(
        &mut self,
        func: FValue,
        args: Vec<FValue>,
        kwargs: Vec<(String, FValue)>,
    ) -> LResult<FValue> {
        match func {
            FValue::JitFn(name) => self.call_jit(&name, args, kwargs),
            FValue::Builtin(name) => builtins::call(self, &name, CallArgs { args, kwargs }),
            FValue::Method(recv, name) => {
                builtins::call_method(self, *recv, &name, CallArgs { args, kwargs })
            }
            FValue::PyBuiltin(name) => builtins::call_python(self, &name, CallArgs { args, kwargs }),
            FValue::Const(Const::DType(d)) => {
                // `tl.float32(x)` style casts are not Triton; a dtype is not callable.
                self.error(format!(
                    "tl.{} is a dtype and cannot be called; use x.to(tl.{})",
                    d.triton_name(),
                    d.triton_name()
                ))
            }
            other => self.error(format!("{} is not callable", describe(&other))),
        }
    }

    /// `x[None, :]`, `x[:, None]`, `t[i]` on tuples.
    fn subscript(&mut self, s: &ast::ExprSubscript) -> LResult<FValue> {
        let base = self.expr(&s.value)?;
        let items: Vec<&Expr> = match s.slice.as_ref() {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        match base {
            FValue::Tuple(elems) => {
                if items.len() != 1 {
                    return self.error("a tuple takes one index");
                }
                let idx = self.expr(items[0])?;
                match idx {
                    FValue::Const(Const::Int(i)) => {
                        let n = elems.len() as i128;
                        let k = if i < 0 { i + n } else { i };
                        if k < 0 || k >= n {
                            return self.error(format!("tuple index {i} out of range (length {n})"));
                        }
                        Ok(elems[k as usize].clone())
                    }
                    _ => self.error("a tuple index must be a compile-time integer"),
                }
            }
            FValue::Tensor(v) => {
                // A tensor descriptor has no elements to index (`to_value` says so).
                let mut x = self.to_value(&FValue::Tensor(v))?;
                let mut dim = 0usize;
                for item in items {
                    match item {
                        Expr::NoneLiteral(_) => {
                            x = self.b().expand_dims(x, dim);
                            dim += 1;
                        }
                        Expr::Slice(sl) if sl.lower.is_none() && sl.upper.is_none() && sl.step.is_none() => {
                            if dim >= self.shape_of(x).len() {
                                return self.error("too many indices for this tensor");
                            }
                            dim += 1;
                        }
                        _ => {
                            return self.error(
                                "only `None` and `:` can index a tensor (e.g. x[:, None]); Triton has no element indexing",
                            )
                        }
                    }
                }
                Ok(FValue::Tensor(x))
            }
            other => self.error(format!("{} cannot be indexed", describe(&other))),
        }
    }
}

/// The Triton binary operator of a Python operator (`None` for `@`, which Triton lacks).
pub fn binop_of(op: Operator) -> Option<BinOp> {
    Some(match op {
        Operator::Add => BinOp::Add,
        Operator::Sub => BinOp::Sub,
        Operator::Mult => BinOp::Mul,
        Operator::Div => BinOp::TrueDiv,
        Operator::FloorDiv => BinOp::FloorDiv,
        Operator::Mod => BinOp::Mod,
        Operator::BitAnd => BinOp::And,
        Operator::BitOr => BinOp::Or,
        Operator::BitXor => BinOp::Xor,
        Operator::LShift => BinOp::Shl,
        Operator::RShift => BinOp::Shr,
        Operator::Pow => BinOp::Pow,
        Operator::MatMult => return None,
    })
}

/// A short description of a frontend value for error messages.
pub fn describe(v: &FValue) -> String {
    match v {
        FValue::Const(c) => c.describe(),
        FValue::Tensor(_) => "a tensor".into(),
        FValue::Tuple(_) => "a tuple".into(),
        FValue::Module(m) => format!("the module `{m}`"),
        FValue::Builtin(b) => format!("`{b}`"),
        FValue::PyBuiltin(b) => format!("the Python builtin `{b}`"),
        FValue::JitFn(f) => format!("the jit function `{f}`"),
        FValue::Method(_, m) => format!("the method `{m}`"),
        FValue::BlockPtr(_) => "a block pointer".into(),
    }
}
