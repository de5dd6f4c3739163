//! A Python evaluator for what Triton runs on the host before a kernel is compiled: the configs
//! of `@triton.autotune`, the lambdas of `@triton.heuristics` and grid expressions.
//!
//! Triton evaluates these with CPython at decoration or launch time; trident has no Python, so
//! this module evaluates the subset such code uses, exactly as Python would: int (unbounded in
//! Python; i128 here, with overflow an error), float and bool arithmetic, comparisons (chained),
//! `and`/`or`/`not` with Python's short-circuit values, conditional expressions, lists, tuples,
//! string-keyed dicts, subscripts, list comprehensions over literal iterables, `range`, `min`,
//! `max`, `int`, `float`, `bool`, `abs`, `len`, `triton.cdiv`, `triton.next_power_of_2`,
//! `tl.constexpr(...)`, `triton.Config(...)`, and module-level names bound to any of these
//! (only those assigned above the point of use, as at decoration time).
//!
//! It is deliberately separate from the kernel lowering's constant folding (`lower/`): that one
//! folds into IR and knows tensors, this one knows dicts, configs and pointer arguments as
//! opaque values. A pointer argument ([`HostValue::Pointer`]) is not a number: arithmetic on one
//! is an error naming it. Everything else that is not supported is a user error at the
//! expression's span, never a panic.

use ruff_python_ast::{self as ast, Expr, Number, Operator, UnaryOp};

use trident_midend::ir::Span;

use super::autotune::{self, Config};
use crate::diagnostics::Diagnostic;
use crate::lower::span_of;
use crate::program::Program;
use crate::spec::ArgSpec;
use crate::value::{Const, FValue};

/// A host-side Python value.
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    Const(Const),
    /// A pointer argument of the launch, by parameter name; it has no numeric value.
    Pointer(String),
    /// Lists and tuples alike.
    List(Vec<HostValue>),
    /// A dict with string keys, in insertion order.
    Dict(Vec<(String, HostValue)>),
    Config(Box<Config>),
    /// A callable by canonical name: `min`, `range`, `cdiv`, `Config`, ...
    Function(String),
    /// A Python module by dotted path (`triton`, `triton.language`).
    Module(String),
}

impl HostValue {
    pub fn int(v: i128) -> HostValue {
        HostValue::Const(Const::Int(v))
    }

    pub fn bool(v: bool) -> HostValue {
        HostValue::Const(Const::Bool(v))
    }

    /// A launch argument as host code sees it: scalars by value, pointers opaque.
    pub fn of_arg(name: &str, arg: &ArgSpec) -> HostValue {
        match arg {
            ArgSpec::Pointer { .. } | ArgSpec::TensorDesc { .. } => HostValue::Pointer(name.to_string()),
            ArgSpec::Int { value, .. } => HostValue::int(*value as i128),
            ArgSpec::Float { value, .. } => HostValue::Const(Const::Float(*value)),
        }
    }

    /// How the value reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            HostValue::Const(c) => c.describe(),
            HostValue::Pointer(name) => format!("the pointer argument `{name}`"),
            HostValue::List(_) => "a list".into(),
            HostValue::Dict(_) => "a dict".into(),
            HostValue::Config(_) => "a triton.Config".into(),
            HostValue::Function(name) => format!("the function `{name}`"),
            HostValue::Module(path) => format!("the module `{path}`"),
        }
    }
}

pub type HResult<T> = Result<T, Diagnostic>;

fn err<T>(span: Span, message: impl Into<String>) -> HResult<T> {
    Err(Diagnostic::error(message, Some(span)))
}

/// A number as Python's arithmetic sees it (bool is an int).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

/// Evaluates host expressions of one kernel file.
pub struct Evaluator<'p> {
    program: &'p Program,
    /// Local names: lambda parameters, comprehension targets. Innermost last.
    scopes: Vec<Vec<(String, HostValue)>>,
    /// Only module-level assignments that start before this byte offset are visible: a
    /// decorator sees the module as it was when Python ran it.
    visible_before: u32,
    /// Module-level names being evaluated now, to refuse `A = B; B = A` cycles.
    resolving: Vec<String>,
}

impl<'p> Evaluator<'p> {
    pub fn new(program: &'p Program, visible_before: u32) -> Evaluator<'p> {
        Evaluator { program, scopes: Vec::new(), visible_before, resolving: Vec::new() }
    }

    /// Binds `name` in a new innermost scope for the duration of `body`.
    pub fn with_local<T>(
        &mut self,
        bindings: Vec<(String, HostValue)>,
        body: impl FnOnce(&mut Self) -> HResult<T>,
    ) -> HResult<T> {
        self.scopes.push(bindings);
        let result = body(self);
        self.scopes.pop();
        result
    }

    pub fn eval(&mut self, e: &Expr) -> HResult<HostValue> {
        let span = span_of(e);
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => match i.to_string().parse::<i128>() {
                    Ok(v) => Ok(HostValue::int(v)),
                    Err(_) => err(span, "integer literal too large"),
                },
                Number::Float(f) => Ok(HostValue::Const(Const::Float(*f))),
                Number::Complex { .. } => err(span, "complex numbers are not supported here"),
            },
            Expr::BooleanLiteral(b) => Ok(HostValue::bool(b.value)),
            Expr::NoneLiteral(_) => Ok(HostValue::Const(Const::None)),
            Expr::StringLiteral(s) => Ok(HostValue::Const(Const::Str(s.value.to_str().to_string()))),
            Expr::Name(n) => self.lookup(n.id.as_str(), span),
            Expr::Attribute(a) => {
                let base = self.eval(&a.value)?;
                attribute(base, a.attr.as_str(), span)
            }
            Expr::Call(call) => self.call(call, span),
            Expr::BinOp(b) => {
                let lhs = self.eval(&b.left)?;
                let rhs = self.eval(&b.right)?;
                binary(b.op, &lhs, &rhs, span)
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand)?;
                unary(u.op, &v, span)
            }
            Expr::Compare(c) => {
                let mut left = self.eval(&c.left)?;
                for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                    let right = self.eval(right)?;
                    if !compare(*op, &left, &right, span)? {
                        return Ok(HostValue::bool(false));
                    }
                    left = right;
                }
                Ok(HostValue::bool(true))
            }
            Expr::BoolOp(b) => {
                // Python returns the operand that decided, not a bool.
                let is_and = matches!(b.op, ast::BoolOp::And);
                let mut last = HostValue::bool(is_and);
                for v in &b.values {
                    last = self.eval(v)?;
                    let truth = truthy(&last, span_of(v))?;
                    if truth != is_and {
                        return Ok(last);
                    }
                }
                Ok(last)
            }
            Expr::If(t) => {
                let test = self.eval(&t.test)?;
                if truthy(&test, span_of(&*t.test))? {
                    self.eval(&t.body)
                } else {
                    self.eval(&t.orelse)
                }
            }
            Expr::List(l) => Ok(HostValue::List(self.eval_all(&l.elts)?)),
            Expr::Tuple(t) => Ok(HostValue::List(self.eval_all(&t.elts)?)),
            Expr::Dict(d) => {
                let mut items = Vec::new();
                for item in &d.items {
                    let Some(key) = &item.key else {
                        return err(span, "`**` unpacking in a dict is not supported here");
                    };
                    let HostValue::Const(Const::Str(name)) = self.eval(key)? else {
                        return err(span_of(key), "dict keys must be strings here");
                    };
                    let value = self.eval(&item.value)?;
                    items.retain(|(k, _): &(String, HostValue)| *k != name);
                    items.push((name, value));
                }
                Ok(HostValue::Dict(items))
            }
            Expr::Subscript(s) => {
                let base = self.eval(&s.value)?;
                let index = self.eval(&s.slice)?;
                subscript(&base, &index, span_of(&*s.value), span)
            }
            Expr::ListComp(c) => {
                let mut out = Vec::new();
                self.comprehension(&c.generators, &c.elt, &mut out)?;
                Ok(HostValue::List(out))
            }
            Expr::Lambda(_) => err(span, "a lambda is only supported as a value of @triton.heuristics"),
            _ => err(span, "this Python expression is not supported by trident's host-side evaluator"),
        }
    }

    fn eval_all(&mut self, items: &[Expr]) -> HResult<Vec<HostValue>> {
        items.iter().map(|x| self.eval(x)).collect()
    }

    /// `[elt for t in iter if cond ...]`, one generator after the other, as nested loops.
    fn comprehension(
        &mut self,
        generators: &[ast::Comprehension],
        elt: &Expr,
        out: &mut Vec<HostValue>,
    ) -> HResult<()> {
        let Some((first, rest)) = generators.split_first() else {
            out.push(self.eval(elt)?);
            return Ok(());
        };
        if first.is_async {
            return err(span_of(first), "`async for` is not supported here");
        }
        let iterable = self.eval(&first.iter)?;
        let HostValue::List(items) = iterable else {
            return err(
                span_of(&first.iter),
                format!(
                    "a comprehension here iterates over a list, a tuple or range(...), not {}",
                    iterable.describe()
                ),
            );
        };
        for item in items {
            let bindings = bind_target(&first.target, item)?;
            self.with_local(bindings, |this| {
                for condition in &first.ifs {
                    let test = this.eval(condition)?;
                    if !truthy(&test, span_of(condition))? {
                        return Ok(());
                    }
                }
                this.comprehension(rest, elt, out)
            })?;
        }
        Ok(())
    }

    fn lookup(&mut self, name: &str, span: Span) -> HResult<HostValue> {
        for scope in self.scopes.iter().rev() {
            if let Some((_, v)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Ok(v.clone());
            }
        }
        // Module-level assignments, the last one above the point of use.
        let program = self.program;
        let assigned = program
            .global_assignments()
            .filter(|(n, e)| *n == name && span_of(*e).start < self.visible_before)
            .last();
        if let Some((_, expr)) = assigned {
            if self.resolving.iter().any(|n| n == name) {
                return err(span, format!("the module-level name `{name}` refers to itself"));
            }
            self.resolving.push(name.to_string());
            let saved_scopes = std::mem::take(&mut self.scopes);
            let value = self.eval(expr);
            self.scopes = saved_scopes;
            self.resolving.pop();
            return value.map_err(|d| d.with_label(span, format!("in the value of `{name}`, used here")));
        }
        if let Some(global) = program.globals.get(name) {
            return match global {
                FValue::Module(path) => Ok(HostValue::Module(path.clone())),
                FValue::Builtin(builtin) => {
                    let short = builtin.trim_start_matches("triton.");
                    match canonical_function(short) {
                        Some(f) => Ok(HostValue::Function(f.into())),
                        None => err(span, format!("`{name}` is not supported in host-side code yet")),
                    }
                }
                FValue::Const(c) => Ok(HostValue::Const(c.clone())),
                FValue::JitFn(_) => err(span, format!("`{name}` is a @triton.jit function, not a value")),
                _ => err(span, format!("`{name}` is not supported in host-side code yet")),
            };
        }
        if program.plain_functions.contains_key(name) {
            return err(
                span,
                format!(
                    "`{name}` is a Python function; trident cannot run it on the host (it has no Python)"
                ),
            );
        }
        match name {
            "min" | "max" | "int" | "float" | "bool" | "abs" | "len" | "range" => {
                Ok(HostValue::Function(name.into()))
            }
            _ => err(span, format!("`{name}` is not defined")),
        }
    }

    fn call(&mut self, call: &ast::ExprCall, span: Span) -> HResult<HostValue> {
        let func = self.eval(&call.func)?;
        let HostValue::Function(name) = func else {
            return err(span_of(&*call.func), format!("{} cannot be called", func.describe()));
        };
        let mut args = Vec::new();
        for a in call.arguments.args.iter() {
            if let Expr::Starred(starred) = a {
                match self.eval(&starred.value)? {
                    HostValue::List(items) => {
                        args.extend(items.into_iter().map(|v| (v, span_of(&*starred.value))))
                    }
                    other => return err(span_of(a), format!("cannot unpack {} with `*`", other.describe())),
                }
                continue;
            }
            args.push((self.eval(a)?, span_of(a)));
        }
        let mut kwargs = Vec::new();
        for k in call.arguments.keywords.iter() {
            let Some(key) = &k.arg else {
                return err(span_of(k), "`**kwargs` is not supported here");
            };
            // A hook is Python code to run on the host: refuse it by name, before evaluating it.
            if name == "Config" && key.as_str() == "pre_hook" && !matches!(k.value, Expr::NoneLiteral(_)) {
                return err(
                    span_of(&k.value),
                    "a config's pre_hook is not supported by trident yet (it runs Python on the host)",
                );
            }
            kwargs.push((key.as_str().to_string(), self.eval(&k.value)?, span_of(&k.value)));
        }
        if name == "Config" {
            return autotune::make_config(args, kwargs, span).map(|c| HostValue::Config(Box::new(c)));
        }
        if let Some((key, _, at)) = kwargs.first() {
            return err(*at, format!("`{name}` takes no keyword argument `{key}` here"));
        }
        call_builtin(&name, &args, span)
    }
}

/// Binds a comprehension target (`b`, `(b, w)`) to one item.
fn bind_target(target: &Expr, item: HostValue) -> HResult<Vec<(String, HostValue)>> {
    match target {
        Expr::Name(n) => Ok(vec![(n.id.as_str().to_string(), item)]),
        Expr::Tuple(t) => {
            let HostValue::List(items) = item else {
                return err(span_of(target), format!("cannot unpack {}", item.describe()));
            };
            if items.len() != t.elts.len() {
                return err(
                    span_of(target),
                    format!("cannot unpack {} values into {} names", items.len(), t.elts.len()),
                );
            }
            let mut out = Vec::new();
            for (name, value) in t.elts.iter().zip(items) {
                out.extend(bind_target(name, value)?);
            }
            Ok(out)
        }
        _ => err(span_of(target), "only names and tuples of names can be comprehension targets here"),
    }
}

/// The canonical name of a host function of `triton` / `triton.language`, if supported.
fn canonical_function(name: &str) -> Option<&'static str> {
    match name {
        "cdiv" => Some("cdiv"),
        "next_power_of_2" => Some("next_power_of_2"),
        "Config" => Some("Config"),
        "constexpr" => Some("constexpr"),
        _ => None,
    }
}

/// `module.attr`.
fn attribute(base: HostValue, attr: &str, span: Span) -> HResult<HostValue> {
    let HostValue::Module(path) = &base else {
        return match base {
            HostValue::Pointer(name) => err(
                span,
                format!("`.{attr}` of the pointer argument `{name}` is not supported in host-side code yet"),
            ),
            other => err(span, format!("{} has no attribute `{attr}` here", other.describe())),
        };
    };
    if let Some(f) = canonical_function(attr) {
        if matches!(path.as_str(), "triton" | "triton.language") {
            return Ok(HostValue::Function(f.into()));
        }
    }
    let full = format!("{path}.{attr}");
    match full.as_str() {
        "triton.language" | "triton.language.math" | "triton.language.extra" => {
            return Ok(HostValue::Module(full))
        }
        _ => {}
    }
    if path == "triton.language" {
        if let FValue::Const(c) = crate::builtins::lookup_in_module("triton.language", attr) {
            return Ok(HostValue::Const(c));
        }
    }
    err(span, format!("`{full}` is not supported in host-side code yet"))
}

/// The number in `v`, or an error that says why it is not one.
fn number(v: &HostValue, span: Span) -> HResult<Num> {
    match v {
        HostValue::Const(Const::Int(i)) => Ok(Num::Int(*i)),
        HostValue::Const(Const::Bool(b)) => Ok(Num::Int(*b as i128)),
        HostValue::Const(Const::Float(f)) => Ok(Num::Float(*f)),
        HostValue::Pointer(name) => err(
            span,
            format!("`{name}` is a pointer argument, not a number: host-side code can compute only with scalars and constexprs"),
        ),
        other => err(span, format!("{} is not a number", other.describe())),
    }
}

fn int_of(v: &HostValue, span: Span, what: &str) -> HResult<i128> {
    match number(v, span)? {
        Num::Int(i) => Ok(i),
        Num::Float(f) => err(span, format!("{what} must be an int, not the float {f:?}")),
    }
}

fn from_num(n: Num) -> HostValue {
    match n {
        Num::Int(i) => HostValue::int(i),
        Num::Float(f) => HostValue::Const(Const::Float(f)),
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// Python truthiness.
pub fn truthy(v: &HostValue, span: Span) -> HResult<bool> {
    match v {
        HostValue::Const(c) => Ok(c.truthy()),
        HostValue::List(items) => Ok(!items.is_empty()),
        HostValue::Dict(items) => Ok(!items.is_empty()),
        HostValue::Pointer(name) => err(
            span,
            format!("`{name}` is a pointer argument; its truth value is not known before the launch"),
        ),
        _ => Ok(true),
    }
}

fn overflow<T>(span: Span) -> HResult<T> {
    err(span, "integer overflow: the value does not fit in 128 bits")
}

/// `lhs op rhs` with Python's rules (`/` is true division, `//` and `%` floor).
fn binary(op: Operator, lhs: &HostValue, rhs: &HostValue, span: Span) -> HResult<HostValue> {
    // `+` concatenates lists, as in `configs = small + large`.
    if let (Operator::Add, HostValue::List(a), HostValue::List(b)) = (op, lhs, rhs) {
        return Ok(HostValue::List(a.iter().chain(b).cloned().collect()));
    }
    let a = number(lhs, span)?;
    let b = number(rhs, span)?;
    let zero_division = || err(span, "division by zero");
    let result = match (a, b) {
        (Num::Int(x), Num::Int(y)) => match op {
            Operator::Add => Num::Int(x.checked_add(y).map_or_else(|| overflow(span), Ok)?),
            Operator::Sub => Num::Int(x.checked_sub(y).map_or_else(|| overflow(span), Ok)?),
            Operator::Mult => Num::Int(x.checked_mul(y).map_or_else(|| overflow(span), Ok)?),
            Operator::Div => {
                if y == 0 {
                    return zero_division();
                }
                Num::Float(x as f64 / y as f64)
            }
            Operator::FloorDiv => {
                if y == 0 {
                    return zero_division();
                }
                Num::Int(x.div_euclid(y) - if y < 0 && x.rem_euclid(y) != 0 { 1 } else { 0 })
            }
            Operator::Mod => {
                if y == 0 {
                    return zero_division();
                }
                let r = x.rem_euclid(y);
                Num::Int(if y < 0 && r != 0 { r + y } else { r })
            }
            Operator::Pow => {
                if y < 0 {
                    Num::Float((x as f64).powf(y as f64))
                } else {
                    let e = u32::try_from(y).or_else(|_| overflow(span))?;
                    Num::Int(x.checked_pow(e).map_or_else(|| overflow(span), Ok)?)
                }
            }
            Operator::LShift | Operator::RShift => {
                if y < 0 {
                    return err(span, "negative shift count");
                }
                let s = u32::try_from(y.min(127)).unwrap_or(127);
                if matches!(op, Operator::RShift) {
                    Num::Int(x >> s)
                } else {
                    Num::Int(x.checked_shl(s).filter(|r| r >> s == x).map_or_else(|| overflow(span), Ok)?)
                }
            }
            Operator::BitAnd => Num::Int(x & y),
            Operator::BitOr => Num::Int(x | y),
            Operator::BitXor => Num::Int(x ^ y),
            Operator::MatMult => return err(span, "`@` is not supported here"),
        },
        (a, b) => {
            let (x, y) = (as_f64(a), as_f64(b));
            match op {
                Operator::Add => Num::Float(x + y),
                Operator::Sub => Num::Float(x - y),
                Operator::Mult => Num::Float(x * y),
                Operator::Div | Operator::FloorDiv | Operator::Mod if y == 0.0 => return zero_division(),
                Operator::Div => Num::Float(x / y),
                Operator::FloorDiv => Num::Float((x / y).floor()),
                Operator::Mod => Num::Float(x - y * (x / y).floor()),
                Operator::Pow => Num::Float(x.powf(y)),
                _ => return err(span, "this operator needs int operands"),
            }
        }
    };
    Ok(from_num(result))
}

fn unary(op: UnaryOp, v: &HostValue, span: Span) -> HResult<HostValue> {
    if op == UnaryOp::Not {
        return Ok(HostValue::bool(!truthy(v, span)?));
    }
    let n = number(v, span)?;
    Ok(from_num(match (op, n) {
        (UnaryOp::UAdd, n) => n,
        (UnaryOp::USub, Num::Int(i)) => Num::Int(i.checked_neg().map_or_else(|| overflow(span), Ok)?),
        (UnaryOp::USub, Num::Float(f)) => Num::Float(-f),
        (UnaryOp::Invert, Num::Int(i)) => Num::Int(!i),
        _ => return err(span, "`~` needs an int operand"),
    }))
}

/// One comparison of a (possibly chained) comparison.
fn compare(op: ast::CmpOp, lhs: &HostValue, rhs: &HostValue, span: Span) -> HResult<bool> {
    use ast::CmpOp as C;
    match op {
        C::In | C::NotIn => {
            let found = match rhs {
                HostValue::List(items) => items.iter().any(|item| equal(lhs, item)),
                HostValue::Dict(items) => {
                    matches!(lhs, HostValue::Const(Const::Str(k)) if items.iter().any(|(n, _)| n == k))
                }
                other => {
                    return err(
                        span,
                        format!("`in` needs a list, a tuple or a dict, not {}", other.describe()),
                    )
                }
            };
            Ok(found == (op == C::In))
        }
        C::Is | C::IsNot => Ok(equal(lhs, rhs) == (op == C::Is)),
        C::Eq => Ok(equal(lhs, rhs)),
        C::NotEq => Ok(!equal(lhs, rhs)),
        C::Lt | C::LtE | C::Gt | C::GtE => {
            let ordering = match (number(lhs, span)?, number(rhs, span)?) {
                (Num::Int(a), Num::Int(b)) => a.partial_cmp(&b),
                (a, b) => as_f64(a).partial_cmp(&as_f64(b)),
            };
            let Some(ordering) = ordering else { return Ok(false) };
            Ok(match op {
                C::Lt => ordering.is_lt(),
                C::LtE => ordering.is_le(),
                C::Gt => ordering.is_gt(),
                _ => ordering.is_ge(),
            })
        }
    }
}

/// Python `==`: numbers by value across int, float and bool; everything else structurally.
fn equal(a: &HostValue, b: &HostValue) -> bool {
    let numeric = |v: &HostValue| match v {
        HostValue::Const(Const::Int(i)) => Some(Num::Int(*i)),
        HostValue::Const(Const::Bool(x)) => Some(Num::Int(*x as i128)),
        HostValue::Const(Const::Float(f)) => Some(Num::Float(*f)),
        _ => None,
    };
    match (numeric(a), numeric(b)) {
        (Some(Num::Int(x)), Some(Num::Int(y))) => x == y,
        (Some(x), Some(y)) => as_f64(x) == as_f64(y),
        _ => a == b,
    }
}

fn subscript(base: &HostValue, index: &HostValue, base_span: Span, span: Span) -> HResult<HostValue> {
    match (base, index) {
        (HostValue::Dict(items), HostValue::Const(Const::Str(key))) => {
            match items.iter().find(|(n, _)| n == key) {
                Some((_, v)) => Ok(v.clone()),
                None => {
                    let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
                    err(span, format!("no key '{key}' here (the keys: {})", names.join(", ")))
                }
            }
        }
        (HostValue::List(items), index) => {
            let i = int_of(index, span, "a list index")?;
            let at = if i < 0 { items.len() as i128 + i } else { i };
            usize::try_from(at)
                .ok()
                .and_then(|at| items.get(at))
                .cloned()
                .map_or_else(|| err(span, format!("index {i} is out of range")), Ok)
        }
        (base, _) => err(base_span, format!("{} cannot be subscripted", base.describe())),
    }
}

/// Python's builtins and Triton's host helpers.
fn call_builtin(name: &str, args: &[(HostValue, Span)], span: Span) -> HResult<HostValue> {
    let arity = |n: usize| -> HResult<()> {
        if args.len() == n {
            Ok(())
        } else {
            err(span, format!("`{name}` takes {n} argument(s) here, not {}", args.len()))
        }
    };
    match name {
        "cdiv" => {
            arity(2)?;
            let x = int_of(&args[0].0, args[0].1, "cdiv's first argument")?;
            let div = int_of(&args[1].0, args[1].1, "cdiv's second argument")?;
            // Triton's `(x + div - 1) // div`, floor division as Python's.
            let sum = x.checked_add(div - 1).map_or_else(|| overflow(span), Ok)?;
            binary(Operator::FloorDiv, &HostValue::int(sum), &HostValue::int(div), span)
        }
        "next_power_of_2" => {
            arity(1)?;
            let n = int_of(&args[0].0, args[0].1, "next_power_of_2's argument")?;
            if n < 0 {
                return err(args[0].1, format!("next_power_of_2 of the negative number {n}"));
            }
            // Triton's bit trick gives 0 for 0, and n itself for powers of two.
            let p = if n == 0 { 0 } else { (n as u128).next_power_of_two() as i128 };
            Ok(HostValue::int(p))
        }
        "constexpr" => {
            arity(1)?;
            Ok(args[0].0.clone())
        }
        "min" | "max" => {
            let items: Vec<(HostValue, Span)> = match args {
                [(HostValue::List(items), at)] => items.iter().map(|v| (v.clone(), *at)).collect(),
                _ => args.to_vec(),
            };
            let Some(((first, _), rest)) = items.split_first() else {
                return err(span, format!("`{name}` of nothing"));
            };
            let mut best = first.clone();
            for (v, at) in rest {
                let op = if name == "min" { ast::CmpOp::Lt } else { ast::CmpOp::Gt };
                if compare(op, v, &best, *at)? {
                    best = v.clone();
                }
            }
            // Make sure a single argument is a number too.
            number(&best, span)?;
            Ok(best)
        }
        "int" => {
            arity(1)?;
            Ok(HostValue::int(match number(&args[0].0, args[0].1)? {
                Num::Int(i) => i,
                Num::Float(f) if f.is_finite() => f.trunc() as i128,
                Num::Float(f) => return err(args[0].1, format!("cannot convert {f:?} to an int")),
            }))
        }
        "float" => {
            arity(1)?;
            Ok(HostValue::Const(Const::Float(as_f64(number(&args[0].0, args[0].1)?))))
        }
        "bool" => {
            arity(1)?;
            Ok(HostValue::bool(truthy(&args[0].0, args[0].1)?))
        }
        "abs" => {
            arity(1)?;
            Ok(from_num(match number(&args[0].0, args[0].1)? {
                Num::Int(i) => Num::Int(i.checked_abs().map_or_else(|| overflow(span), Ok)?),
                Num::Float(f) => Num::Float(f.abs()),
            }))
        }
        "len" => {
            arity(1)?;
            match &args[0].0 {
                HostValue::List(items) => Ok(HostValue::int(items.len() as i128)),
                HostValue::Dict(items) => Ok(HostValue::int(items.len() as i128)),
                other => err(args[0].1, format!("{} has no len()", other.describe())),
            }
        }
        "range" => {
            let ints =
                args.iter().map(|(v, at)| int_of(v, *at, "a range bound")).collect::<HResult<Vec<i128>>>()?;
            let (start, stop, step) = match ints[..] {
                [stop] => (0, stop, 1),
                [start, stop] => (start, stop, 1),
                [start, stop, step] => (start, stop, step),
                _ => return err(span, "range takes 1 to 3 arguments"),
            };
            if step == 0 {
                return err(span, "range() step must not be zero");
            }
            let mut items = Vec::new();
            let mut i = start;
            while (step > 0 && i < stop) || (step < 0 && i > stop) {
                if items.len() >= 1 << 16 {
                    return err(span, "this range has more than 65536 items");
                }
                items.push(HostValue::int(i));
                i += step;
            }
            Ok(HostValue::List(items))
        }
        _ => err(span, format!("`{name}` cannot be called in host-side code")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the value of the last module-level assignment of `source`.
    fn eval(source: &str) -> HResult<HostValue> {
        let program = Program::parse("t.py", source).unwrap();
        let (_, expr) = program.global_assignments().last().unwrap();
        Evaluator::new(&program, u32::MAX).eval(expr)
    }

    fn int(source: &str) -> i128 {
        match eval(source) {
            Ok(HostValue::Const(Const::Int(i))) => i,
            other => panic!("{source}: {other:?}"),
        }
    }

    #[test]
    fn python_arithmetic() {
        assert_eq!(int("x = 7 // 2"), 3);
        assert_eq!(int("x = -7 // 2"), -4);
        assert_eq!(int("x = 7 // -2"), -4);
        assert_eq!(int("x = -7 % 3"), 2);
        assert_eq!(int("x = 7 % -3"), -2);
        assert_eq!(int("x = 2 ** 10 + (1 << 4) - (256 >> 2)"), 1024 + 16 - 64);
        assert_eq!(int("x = True + 1"), 2);
        assert_eq!(eval("x = 7 / 2"), Ok(HostValue::Const(Const::Float(3.5))));
        assert_eq!(int("import triton\nx = triton.cdiv(1000, 128)"), 8);
        assert_eq!(int("import triton\nx = triton.next_power_of_2(1000)"), 1024);
        assert_eq!(int("import triton\nx = triton.next_power_of_2(0)"), 0);
        assert_eq!(int("x = min(3, 1, 2) + max([4, 9]) + int(2.9) + abs(-5)"), 1 + 9 + 2 + 5);
        assert_eq!(int("N = 10\nx = N * 2 if N > 5 and not N == 3 else 0"), 20);
        assert_eq!(eval("x = 0 or 5"), Ok(HostValue::int(5)));
        assert_eq!(eval("x = 1 < 2 < 2"), Ok(HostValue::bool(false)));
        assert!(eval("x = 1 // 0").unwrap_err().message.contains("division by zero"));
        assert!(eval("x = 2 ** 200").unwrap_err().message.contains("overflow"));
    }

    #[test]
    fn comprehensions_and_module_names() {
        let v = eval("BS = [64, 128]\nx = [b * w for b in BS for w in range(1, 3) if b > 64]").unwrap();
        assert_eq!(v, HostValue::List(vec![HostValue::int(128), HostValue::int(256)]));
        let v = eval("x = [a + b for (a, b) in [(1, 2), (3, 4)]]").unwrap();
        assert_eq!(v, HostValue::List(vec![HostValue::int(3), HostValue::int(7)]));
        let v = eval("import triton.language as tl\nW = tl.constexpr(8)\nx = {'A': W, 'T': tl.float16}['A']");
        assert_eq!(v, Ok(HostValue::int(8)));
    }

    #[test]
    fn unsupported_code_is_an_error_at_its_span() {
        let error = eval("def f():\n    pass\nx = f(3)").unwrap_err();
        assert!(error.message.contains("`f` is a Python function"), "{}", error.message);
        let error = eval("x = {1: 2}").unwrap_err();
        assert!(error.message.contains("dict keys must be strings"), "{}", error.message);
        let error = eval("x = undefined_name + 1").unwrap_err();
        assert_eq!(error.message, "`undefined_name` is not defined");
        let error = eval("x = y\ny = x").unwrap_err();
        assert!(error.message.contains("is not defined") || error.message.contains("itself"));
    }

    #[test]
    fn pointers_are_not_numbers() {
        let program = Program::parse("t.py", "x = args['p'] + 1\n").unwrap();
        let (_, expr) = program.global_assignments().last().unwrap();
        let args = HostValue::Dict(vec![("p".into(), HostValue::Pointer("p".into()))]);
        let error = Evaluator::new(&program, u32::MAX)
            .with_local(vec![("args".into(), args)], |e| e.eval(expr))
            .unwrap_err();
        assert!(error.message.contains("`p` is a pointer argument, not a number"), "{}", error.message);
    }
}
