//! `@triton.heuristics({'NAME': lambda args: EXPR, ...})`: meta-parameters computed from the
//! launch's arguments at specialization time.
//!
//! Triton's `Heuristics.run` (python/triton/runtime/autotuner.py) calls each lambda, in the dict's
//! order, with a dict of the launch's arguments by name plus the meta-parameters known so far (the
//! autotune config's, when `@triton.autotune` is stacked above, and the earlier heuristics'), and
//! passes the result to the kernel as that meta-parameter, overriding any value given for it.
//! trident does the same with the host evaluator: scalars are their values, constexprs theirs,
//! and a pointer argument is an opaque value that cannot take part in arithmetic.
//!
//! Stacked above `@triton.autotune`, the heuristics wrap the autotuner and run before it: their
//! dict holds the launch's own arguments and no config's meta-parameters, so a lambda that reads
//! one raises `KeyError` in Triton, and a heuristic that sets one makes the autotuner refuse the
//! launch ("Conflicting meta-parameters"). [`check_before_config`] reports both when the
//! decorators are read, with the Python line.

use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, ExprCall};

use trident_midend::ir::Span;

use super::autotune::Autotune;
use super::host_eval::{Evaluator, HResult, HostValue};
use crate::diagnostics::Diagnostic;
use crate::lower::span_of;
use crate::spec::{ConstValue, Specialization};
use crate::value::Const;

/// One entry of the dict: `'NAME': lambda PARAM: BODY`.
#[derive(Clone, Debug, PartialEq)]
pub struct Heuristic {
    pub name: String,
    /// The key in the dict.
    pub name_span: Span,
    /// The lambda's parameter (`args`, `meta`, `nargs`...).
    pub param: String,
    pub body: Expr,
}

fn err<T>(span: Span, message: impl Into<String>) -> HResult<T> {
    Err(Diagnostic::error(message, Some(span)))
}

/// Reads the dict of one `@triton.heuristics(...)`. `params` are the kernel's parameter names.
pub fn read(call: &ExprCall, params: &[(String, bool)]) -> HResult<Vec<Heuristic>> {
    let span = span_of(call);
    let values = match (&call.arguments.args[..], &call.arguments.keywords[..]) {
        ([values], []) => values,
        ([], [keyword]) if keyword.arg.as_ref().is_some_and(|a| a.as_str() == "values") => &keyword.value,
        _ => return err(span, "@triton.heuristics takes one argument: a dict of lambdas"),
    };
    let Expr::Dict(dict) = values else {
        return err(
            span_of(values),
            "trident reads @triton.heuristics from a dict literal: {'NAME': lambda args: ..., ...}",
        );
    };
    let mut heuristics = Vec::new();
    for item in &dict.items {
        let Some(Expr::StringLiteral(key)) = &item.key else {
            let at = item.key.as_ref().map_or(span_of(values), span_of);
            return err(
                at,
                "a key of @triton.heuristics must be a string literal: the meta-parameter's name",
            );
        };
        let name = key.value.to_str().to_string();
        let name_span = span_of(key);
        let Expr::Lambda(lambda) = &item.value else {
            return err(
                span_of(&item.value),
                format!("the value of '{name}' must be a lambda (`lambda args: ...`); trident cannot call other functions on the host"),
            );
        };
        let param = match lambda.parameters.as_deref() {
            Some(p)
                if p.posonlyargs.is_empty()
                    && p.args.len() == 1
                    && p.vararg.is_none()
                    && p.kwonlyargs.is_empty()
                    && p.kwarg.is_none() =>
            {
                p.args[0].parameter.name.as_str().to_string()
            }
            _ => {
                return err(
                    span_of(&item.value),
                    format!("the lambda of '{name}' must take one argument, the dict of arguments"),
                )
            }
        };
        match params.iter().find(|(p, _)| *p == name) {
            Some((_, true)) => {}
            Some((_, false)) => {
                return err(name_span, format!("'{name}' is not a tl.constexpr parameter; trident computes only constexprs with @triton.heuristics"))
            }
            None => {
                let all: Vec<&str> = params.iter().map(|(p, _)| p.as_str()).collect();
                return err(name_span, format!("'{name}' is not a parameter of the kernel (its parameters: {})", all.join(", ")));
            }
        }
        heuristics.push(Heuristic { name, name_span, param, body: (*lambda.body).clone() });
    }
    Ok(heuristics)
}

/// Checks the heuristics stacked above `@triton.autotune` against its configs: none may set a
/// meta-parameter a config sets, and none may read one from its dict (`args['BLOCK']`), which
/// holds no config's values yet when they run. A read through anything but a string literal is
/// caught when the lambda runs, as a missing key.
pub fn check_before_config(heuristics: &[Heuristic], autotune: &Autotune) -> HResult<()> {
    let meta_parameters = autotune.meta_parameters();
    for heuristic in heuristics {
        if let Some(index) = autotune.configs.iter().position(|c| c.get(&heuristic.name).is_some()) {
            let config = &autotune.configs[index];
            return Err(Diagnostic::error(
                format!(
                    "'{}' is set both by @triton.heuristics above @triton.autotune and by config {index} {}; \
                     Triton refuses the launch (Conflicting meta-parameters: {})",
                    heuristic.name,
                    config.describe(),
                    heuristic.name
                ),
                Some(heuristic.name_span),
            )
            .with_label(config.span, "the config that sets it"));
        }
        let mut finder = KeyRead { param: &heuristic.param, names: &meta_parameters, found: None };
        finder.visit_expr(&heuristic.body);
        if let Some((name, span)) = finder.found {
            return Err(Diagnostic::error(
                format!(
                    "`{name}` is a meta-parameter of the @triton.autotune configs, and @triton.heuristics above \
                     @triton.autotune runs before a config is chosen: its arguments have no '{name}' (Triton \
                     raises KeyError: '{name}'); put this @triton.heuristics below @triton.autotune to \
                     compute from the config"
                ),
                Some(span),
            )
            .with_label(heuristic.name_span, format!("while computing '{}'", heuristic.name)));
        }
    }
    Ok(())
}

/// Finds the first `PARAM['NAME']` in a lambda's body with NAME among `names`.
struct KeyRead<'n> {
    /// The lambda's parameter: the dict of arguments.
    param: &'n str,
    names: &'n [&'n str],
    found: Option<(String, Span)>,
}

impl<'a> Visitor<'a> for KeyRead<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.found.is_some() {
            return;
        }
        if let Expr::Subscript(subscript) = expr {
            let reads_param = matches!(&*subscript.value, Expr::Name(n) if n.id.as_str() == self.param);
            if let (true, Expr::StringLiteral(key)) = (reads_param, &*subscript.slice) {
                let key = key.value.to_str();
                if self.names.contains(&key) {
                    self.found = Some((key.to_string(), span_of(expr)));
                    return;
                }
            }
        }
        walk_expr(self, expr);
    }
}

/// The dict a lambda receives: every argument and constexpr of the launch by name, in the
/// kernel's parameter order.
fn launch_values(spec: &Specialization, params: &[(String, bool)]) -> Vec<(String, HostValue)> {
    let mut values = Vec::new();
    for (name, _) in params {
        if let Some((_, arg)) = spec.args.iter().find(|(n, _)| n == name) {
            values.push((name.clone(), HostValue::of_arg(name, arg)));
        } else if let Some((_, value)) = spec.constexprs.iter().find(|(n, _)| n == name) {
            values.push((name.clone(), HostValue::Const(Const::from(value))));
        }
    }
    values
}

/// Runs the heuristics in order over `spec` and returns it with their values set (replacing
/// values given for the same names, as Triton does).
pub fn apply(
    evaluator: &mut Evaluator,
    heuristics: &[Heuristic],
    spec: &Specialization,
    params: &[(String, bool)],
) -> HResult<Specialization> {
    let mut spec = spec.clone();
    for heuristic in heuristics {
        let args = HostValue::Dict(launch_values(&spec, params));
        let value = evaluator
            .with_local(vec![(heuristic.param.clone(), args)], |e| e.eval(&heuristic.body))
            .map_err(|d| {
                d.with_label(heuristic.name_span, format!("while computing '{}'", heuristic.name))
            })?;
        let value = match value {
            HostValue::Const(Const::Int(i)) => match i64::try_from(i) {
                Ok(i) => ConstValue::Int(i),
                Err(_) => {
                    return err(
                        span_of(&heuristic.body),
                        format!("'{}' = {i} does not fit in 64 bits", heuristic.name),
                    )
                }
            },
            HostValue::Const(Const::Float(f)) => ConstValue::Float(f),
            HostValue::Const(Const::Bool(b)) => ConstValue::Bool(b),
            HostValue::Const(Const::DType(d)) => ConstValue::DType(d),
            HostValue::Const(Const::Str(s)) => ConstValue::Str(s),
            HostValue::Const(Const::None) => ConstValue::None,
            other => {
                return err(
                    span_of(&heuristic.body),
                    format!(
                        "'{}' must be a constant (an int, float or bool), not {}",
                        heuristic.name,
                        other.describe()
                    ),
                )
            }
        };
        spec.constexprs.retain(|(n, _)| *n != heuristic.name);
        spec.constexprs.push((heuristic.name.clone(), value));
    }
    Ok(spec)
}
