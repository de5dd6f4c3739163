//! `@triton.autotune(configs=[triton.Config(...)], key=[...], ...)`: the configs a launch may
//! pick from, read from the decorator without running any Python.
//!
//! Triton's `Autotuner` (python/triton/runtime/autotuner.py) times every config on the first
//! launch of each `key` and reruns the fastest; what trident needs from the decorator is the list
//! of configs (each: constexpr values, `num_warps`, `num_stages`, `num_ctas`, `maxnreg`) and the
//! launch-side lists (`key`, `reset_to_zero`, `restore_value`, `warmup`, `rep`). The configs may
//! be a literal list, a module-level name bound to one, or a list comprehension over literal
//! iterables, all evaluated by the host evaluator. Which config runs is the caller's choice (the
//! command line times them); this module only reads and checks them.
//!
//! Not supported yet, each a user error at its argument: `prune_configs_by`, `pre_hook` and
//! `post_hook` (in the decorator or a config), `do_bench`, and `num_ctas` other than 1, since
//! each would need Python callables or thread-block clusters.

use ruff_python_ast::{Expr, ExprCall, StmtFunctionDef};

use trident_midend::ir::Span;

use super::host_eval::{Evaluator, HResult, HostValue};
use crate::diagnostics::Diagnostic;
use crate::lower::span_of;
use crate::spec::ConstValue;
use crate::value::Const;

/// One `triton.Config`.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The meta-parameters the config sets, in the dict's order.
    pub kwargs: Vec<(String, ConstValue)>,
    pub num_warps: u32,
    pub num_stages: u32,
    /// Registers per thread the config asks for; trident does not apply it yet (the command line
    /// warns).
    pub maxnreg: Option<u32>,
    /// The `triton.Config(...)` call (or the comprehension element that made it).
    pub span: Span,
}

impl Config {
    /// `{BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3}`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> =
            self.kwargs.iter().map(|(name, value)| format!("{name}={}", describe_const(value))).collect();
        parts.push(format!("num_warps={}", self.num_warps));
        parts.push(format!("num_stages={}", self.num_stages));
        if let Some(maxnreg) = self.maxnreg {
            parts.push(format!("maxnreg={maxnreg}"));
        }
        format!("{{{}}}", parts.join(", "))
    }

    /// The value the config gives `name`, if it sets it.
    pub fn get(&self, name: &str) -> Option<&ConstValue> {
        self.kwargs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// A constexpr value as Python prints it.
pub fn describe_const(value: &ConstValue) -> String {
    match value {
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(f) => format!("{f:?}"),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        ConstValue::DType(d) => d.triton_name().to_string(),
        ConstValue::Str(s) => format!("{s:?}"),
        ConstValue::None => "None".into(),
    }
}

/// What `@triton.autotune` says.
#[derive(Clone, Debug, PartialEq)]
pub struct Autotune {
    pub configs: Vec<Config>,
    /// Argument names whose values select a tuning result in Triton's cache.
    pub key: Vec<String>,
    /// Buffers zeroed before each timed launch.
    pub reset_to_zero: Vec<String>,
    /// Buffers restored after each timed launch.
    pub restore_value: Vec<String>,
    /// Warm-up and measurement time per config, in milliseconds (Triton's 25 and 100 when not
    /// given).
    pub warmup_ms: u64,
    pub rep_ms: u64,
    /// The decorator, for messages about it.
    pub span: Span,
}

impl Autotune {
    /// Every meta-parameter some config sets, once each, in the order the configs first set them.
    pub fn meta_parameters(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in self.configs.iter().flat_map(|config| &config.kwargs) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }
}

/// Reads `@triton.autotune(...)` on `def`. `params` are the kernel's parameters: (name, is a
/// constexpr).
pub fn read(
    evaluator: &mut Evaluator,
    call: &ExprCall,
    def: &StmtFunctionDef,
    params: &[(String, bool)],
) -> HResult<Autotune> {
    let span = span_of(call);
    let positional = ["configs", "key"];
    if call.arguments.args.len() > positional.len() {
        return err(
            span_of(&call.arguments.args[2]),
            "@triton.autotune takes configs and key by position; give the rest by name",
        );
    }
    let mut named: Vec<(&str, &Expr)> =
        call.arguments.args.iter().enumerate().map(|(i, a)| (positional[i], a)).collect();
    for keyword in call.arguments.keywords.iter() {
        let Some(name) = &keyword.arg else {
            return err(span_of(keyword), "`**kwargs` is not supported in @triton.autotune");
        };
        named.push((name.as_str(), &keyword.value));
    }

    let mut tune = Autotune {
        configs: Vec::new(),
        key: Vec::new(),
        reset_to_zero: Vec::new(),
        restore_value: Vec::new(),
        warmup_ms: 25,
        rep_ms: 100,
        span,
    };
    let mut saw_configs = false;
    for (name, value) in named {
        let at = span_of(value);
        match name {
            "configs" => {
                saw_configs = true;
                tune.configs = configs(evaluator, value)?;
            }
            "key" => tune.key = names(evaluator, value, "key", params, false)?,
            "reset_to_zero" => tune.reset_to_zero = names(evaluator, value, name, params, true)?,
            "restore_value" => tune.restore_value = names(evaluator, value, name, params, true)?,
            "warmup" | "rep" => {
                let ms = match evaluator.eval(value)? {
                    HostValue::Const(Const::None) => continue,
                    HostValue::Const(Const::Int(ms)) if ms > 0 => ms as u64,
                    other => {
                        return err(at, format!("{name} is a time in milliseconds, not {}", other.describe()))
                    }
                };
                if name == "warmup" {
                    tune.warmup_ms = ms;
                } else {
                    tune.rep_ms = ms;
                }
            }
            // Flags that change how Triton measures or caches, not what runs.
            "use_cuda_graph" | "cache_results" => {
                evaluator.eval(value)?;
            }
            "prune_configs_by" | "pre_hook" | "post_hook" | "do_bench" => {
                if !matches!(evaluator.eval(value), Ok(HostValue::Const(Const::None))) {
                    return err(
                        at,
                        format!("@triton.autotune({name}=...) is not supported by trident yet (it runs Python on the host)"),
                    );
                }
            }
            other => return err(at, format!("@triton.autotune has no argument `{other}`")),
        }
    }
    if !saw_configs {
        return err(span, "@triton.autotune needs configs=[triton.Config(...), ...]");
    }
    if tune.configs.is_empty() {
        return err(span, "@triton.autotune has no configs");
    }
    for config in &tune.configs {
        for (name, _) in &config.kwargs {
            match params.iter().find(|(p, _)| p == name) {
                Some((_, true)) => {}
                Some((_, false)) => {
                    return err(
                        config.span,
                        format!("this config sets `{name}`, which is not a tl.constexpr parameter of `{}`; trident tunes only constexprs", def.name),
                    )
                }
                None => {
                    return err(
                        config.span,
                        format!("this config sets `{name}`, which is not a parameter of `{}`", def.name),
                    )
                }
            }
        }
    }
    Ok(tune)
}

fn err<T>(span: Span, message: impl Into<String>) -> HResult<T> {
    Err(Diagnostic::error(message, Some(span)))
}

/// The `configs` list: every item must be a `triton.Config`.
fn configs(evaluator: &mut Evaluator, value: &Expr) -> HResult<Vec<Config>> {
    let at = span_of(value);
    let evaluated = evaluator.eval(value).map_err(|d| {
        d.with_note("trident evaluates configs given as a list, a module-level name bound to one, or a list comprehension over literal lists and ranges")
    })?;
    let HostValue::List(items) = evaluated else {
        return err(at, format!("configs must be a list of triton.Config, not {}", evaluated.describe()));
    };
    let mut configs = Vec::new();
    for item in items {
        match item {
            HostValue::Config(config) => configs.push(*config),
            other => {
                return err(at, format!("configs must hold triton.Config values, not {}", other.describe()))
            }
        }
    }
    Ok(configs)
}

/// A list of parameter names (`key`, `reset_to_zero`, `restore_value`); `None` is an empty list.
fn names(
    evaluator: &mut Evaluator,
    value: &Expr,
    what: &str,
    params: &[(String, bool)],
    buffers_only: bool,
) -> HResult<Vec<String>> {
    let at = span_of(value);
    let items = match evaluator.eval(value)? {
        HostValue::Const(Const::None) => return Ok(Vec::new()),
        HostValue::List(items) => items,
        other => {
            return err(at, format!("{what} must be a list of argument names, not {}", other.describe()))
        }
    };
    let mut out = Vec::new();
    for item in items {
        let HostValue::Const(Const::Str(name)) = item else {
            return err(at, format!("{what} must be a list of argument names, not {}", item.describe()));
        };
        match params.iter().find(|(p, _)| *p == name) {
            None => {
                let all: Vec<&str> = params.iter().map(|(p, _)| p.as_str()).collect();
                return err(
                    at,
                    format!(
                        "{what} names `{name}`, which is not a parameter (the parameters: {})",
                        all.join(", ")
                    ),
                );
            }
            Some((_, true)) if buffers_only => {
                return err(at, format!("{what} names `{name}`, a tl.constexpr parameter; it lists buffers"))
            }
            Some(_) => out.push(name),
        }
    }
    Ok(out)
}

/// `triton.Config(kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None)`,
/// Triton 3.x's signature and defaults.
pub fn make_config(
    args: Vec<(HostValue, Span)>,
    kwargs: Vec<(String, HostValue, Span)>,
    span: Span,
) -> HResult<Config> {
    const PARAMS: [&str; 6] = ["kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook"];
    if args.len() > PARAMS.len() {
        return err(span, "triton.Config takes at most 6 arguments");
    }
    let mut bound: Vec<(&str, HostValue, Span)> =
        args.into_iter().enumerate().map(|(i, (v, at))| (PARAMS[i], v, at)).collect();
    for (name, value, at) in kwargs {
        let Some(&param) = PARAMS.iter().find(|p| **p == name) else {
            return err(at, format!("triton.Config has no argument `{name}`"));
        };
        if bound.iter().any(|(p, ..)| *p == param) {
            return err(at, format!("triton.Config got two values for `{name}`"));
        }
        bound.push((param, value, at));
    }
    let mut config = Config { kwargs: Vec::new(), num_warps: 4, num_stages: 3, maxnreg: None, span };
    let mut saw_kwargs = false;
    for (param, value, at) in bound {
        let small_int = |what: &str, min: i128| -> HResult<u32> {
            match &value {
                HostValue::Const(Const::Int(v)) if *v >= min && *v <= 1 << 16 => Ok(*v as u32),
                other => {
                    err(at, format!("{what} must be an int of at least {min}, not {}", other.describe()))
                }
            }
        };
        match param {
            "kwargs" => {
                saw_kwargs = true;
                let HostValue::Dict(items) = &value else {
                    return err(
                        at,
                        format!(
                            "a config's first argument is a dict of meta-parameters, not {}",
                            value.describe()
                        ),
                    );
                };
                for (name, v) in items {
                    config.kwargs.push((name.clone(), const_value(v, at, name)?));
                }
            }
            "num_warps" => {
                let n = small_int("num_warps", 1)?;
                if !n.is_power_of_two() || n > 64 {
                    return err(at, format!("num_warps={n}: must be a power of two from 1 to 64"));
                }
                config.num_warps = n;
            }
            "num_stages" => config.num_stages = small_int("num_stages", 1)?,
            "num_ctas" => {
                if small_int("num_ctas", 1)? != 1 {
                    return err(
                        at,
                        "num_ctas other than 1 (thread-block clusters) is not supported by trident yet",
                    );
                }
            }
            "maxnreg" => {
                if value != HostValue::Const(Const::None) {
                    config.maxnreg = Some(small_int("maxnreg", 1)?);
                }
            }
            _ => {
                if value != HostValue::Const(Const::None) {
                    return err(
                        at,
                        "a config's pre_hook is not supported by trident yet (it runs Python on the host)",
                    );
                }
            }
        }
    }
    if !saw_kwargs {
        return err(span, "triton.Config needs a dict of meta-parameters as its first argument");
    }
    Ok(config)
}

/// A config value as a constexpr.
fn const_value(value: &HostValue, at: Span, name: &str) -> HResult<ConstValue> {
    Ok(match value {
        HostValue::Const(Const::Int(i)) => match i64::try_from(*i) {
            Ok(i) => ConstValue::Int(i),
            Err(_) => return err(at, format!("the value of `{name}` does not fit in 64 bits")),
        },
        HostValue::Const(Const::Float(f)) => ConstValue::Float(*f),
        HostValue::Const(Const::Bool(b)) => ConstValue::Bool(*b),
        HostValue::Const(Const::Str(s)) => ConstValue::Str(s.clone()),
        HostValue::Const(Const::DType(d)) => ConstValue::DType(*d),
        HostValue::Const(Const::None) => ConstValue::None,
        other => {
            return err(
                at,
                format!(
                    "`{name}` must be a constant (an int, float, bool, string, dtype or None), not {}",
                    other.describe()
                ),
            )
        }
    })
}
