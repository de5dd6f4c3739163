//! Statements: assignments, expression statements, `return`, `assert`, and the rejection of
//! Python statements that are not part of the Triton language. Control flow is in `control.rs`.

use ruff_python_ast::{Expr, Stmt};

use super::{span_of, FnLowerer, LResult};
use crate::builtins::{self, CallArgs};
use crate::value::{Const, FValue};

impl FnLowerer<'_, '_> {
    pub fn stmt(&mut self, s: &Stmt) -> LResult<()> {
        self.span = span_of(s);
        match s {
            Stmt::Expr(e) => {
                if matches!(e.value.as_ref(), Expr::StringLiteral(_)) {
                    return Ok(()); // docstring
                }
                self.expr(&e.value)?;
                Ok(())
            }
            Stmt::Assign(a) => {
                let v = self.expr(&a.value)?;
                for t in &a.targets {
                    self.assign(t, v.clone())?;
                }
                Ok(())
            }
            Stmt::AnnAssign(a) => {
                let Some(value) = &a.value else {
                    return Ok(());
                };
                let v = self.expr(value)?;
                self.assign(&a.target, v)
            }
            Stmt::AugAssign(a) => {
                let current = self.expr(&a.target)?;
                let rhs = self.expr(&a.value)?;
                self.span = span_of(s);
                let Some(op) = super::expr::binop_of(a.op) else {
                    return self.error("`@=` is not supported; use tl.dot");
                };
                let r = self.binary(op, current, rhs)?;
                self.assign(&a.target, r)
            }
            Stmt::Return(r) => {
                let v = match &r.value {
                    Some(e) => self.expr(e)?,
                    None => FValue::Const(Const::None),
                };
                self.returned = Some((v, span_of(s)));
                Ok(())
            }
            Stmt::If(i) => self.if_stmt(i),
            Stmt::For(f) => self.for_stmt(f),
            Stmt::While(w) => self.while_stmt(w),
            Stmt::Pass(_) => Ok(()),
            Stmt::Assert(a) => {
                let cond = self.expr(&a.test)?;
                let msg = match &a.msg {
                    Some(m) => self.expr(m)?,
                    None => FValue::Const(Const::Str(String::new())),
                };
                self.span = span_of(s);
                if cond.is_const() {
                    builtins::call(self, "static_assert", CallArgs::positional(vec![cond, msg]))?;
                } else {
                    builtins::call(self, "device_assert", CallArgs::positional(vec![cond, msg]))?;
                }
                Ok(())
            }
            Stmt::Break(_) => self.error("`break` is not supported in Triton kernels"),
            Stmt::Continue(_) => self.error("`continue` is not supported in Triton kernels"),
            Stmt::Try(_) => self.error("exceptions are not supported in Triton kernels: try/except cannot be compiled"),
            Stmt::With(_) => self.error("`with` statements are not supported in Triton kernels"),
            Stmt::Raise(_) => self.error("`raise` is not supported in Triton kernels; use tl.static_assert or tl.device_assert"),
            Stmt::FunctionDef(_) => {
                self.error("nested function definitions are not supported in Triton kernels; define a @triton.jit helper at module level")
            }
            Stmt::ClassDef(_) => self.error("class definitions are not supported in Triton kernels"),
            Stmt::Import(_) | Stmt::ImportFrom(_) => self.error("imports inside a Triton kernel are not supported; import at module level"),
            Stmt::Global(_) | Stmt::Nonlocal(_) => self.error("`global`/`nonlocal` are not supported in Triton kernels"),
            Stmt::Delete(_) => self.error("`del` is not supported in Triton kernels"),
            Stmt::Match(_) => self.error("`match` statements are not supported in Triton kernels"),
            _ => self.error("this statement is not supported in Triton kernels"),
        }
    }

    /// Binds an assignment target.
    pub fn assign(&mut self, target: &Expr, value: FValue) -> LResult<()> {
        match target {
            Expr::Name(n) => {
                self.vars.insert(n.id.as_str().to_string(), value);
                Ok(())
            }
            Expr::Tuple(t) => self.assign_many(&t.elts, value),
            Expr::List(l) => self.assign_many(&l.elts, value),
            Expr::Subscript(_) => {
                self.error("tensors are immutable in Triton: element assignment is not supported (use tl.where or tl.store)")
            }
            Expr::Attribute(_) => self.error("attribute assignment is not supported in Triton kernels"),
            _ => self.error("unsupported assignment target"),
        }
    }

    fn assign_many(&mut self, targets: &[Expr], value: FValue) -> LResult<()> {
        let FValue::Tuple(items) = value else {
            return self.error(format!("cannot unpack a non-tuple into {} names", targets.len()));
        };
        if items.len() != targets.len() {
            return self.error(format!("cannot unpack {} values into {} names", items.len(), targets.len()));
        }
        for (t, v) in targets.iter().zip(items) {
            self.assign(t, v)?;
        }
        Ok(())
    }
}
